// Part 5's compute-bound conditions (A.4) and the layouts a mesh can hold, as functions and their
// formula records; model.hpp includes this and lists the records in kFormulas.
#pragma once
#include <string>

#include "chapters/training/symbols.hpp"
#include "core/formula.hpp"

namespace sb::training {

struct Hardware;  // model.hpp

// ------------------------------------------------------------------ A.4 compute-bound conditions

// The batch each chip (or each pod) processes: B / N, B / pods.
double per_chip_batch(double B, double chips);
inline constexpr Formula kPerChipBatch =
    record("B_chip", "B / N", "tokens", "A.4", "B N", kSymbols,
           [](const double* x) { return per_chip_batch(x[0], x[1]); });
double per_pod_batch(double B, double pods);
inline constexpr Formula kPerPodBatch =
    record("B_pod", "B / pods", "tokens", "A.4 (6)", "B pods", kSymbols,
           [](const double* x) { return per_pod_batch(x[0], x[1]); });
// The global batch N chips carry at a batch per chip: B_chip N.
double global_batch(double per_chip, double chips);
inline constexpr Formula kGlobalBatch =
    record("B", "B_chip * N", "tokens", "A.4 (1)", "B_chip N", kSymbols,
           [](const double* x) { return global_batch(x[0], x[1]); });
// The chips of several pods: N_pod pods.
double total_chips(double pod_chips, double pods);
inline constexpr Formula kTotalChips =
    record("N", "N_pod * pods", "chips", "A.4 (6)", "N_pod pods", kSymbols,
           [](const double* x) { return total_chips(x[0], x[1]); });
// How many pods N chips make: N / N_pod.
double pods_of(double chips, double pod_chips);
inline constexpr Formula kPodsOf =
    record("pods", "N / N_pod", "count", "A.4 (6)", "N N_pod", kSymbols,
           [](const double* x) { return pods_of(x[0], x[1]); });
// A.4 (1), (2): DP and FSDP are compute-bound iff B/X > alpha / M_X (v5p: 2550, 850 on 3 axes).
double dp_min_batch_per_chip(double alpha, double M_X);
inline constexpr Formula kDpFloor =
    record("b_FSDP", "alpha / M_X", "tokens", "A.4 (1)", "alpha M_X", kSymbols,
           [](const double* x) { return dp_min_batch_per_chip(x[0], x[1]); });
// Ex5, Ex6: the most chips DP/FSDP keeps compute-bound for a batch: B M_X / alpha.
double fsdp_max_chips(double B, double alpha, double M_X);
inline constexpr Formula kFsdpMaxChips =
    record("N", "B * M_X / alpha", "chips", "A.4 (2)", "B M_X alpha", kSymbols,
           [](const double* x) { return fsdp_max_chips(x[0], x[2], x[1]); });
// A.4 (3): TP is compute-bound iff Y < M_Y F / alpha, whatever the batch (Ex7, Ex8).
double tp_max_degree(double F, double alpha, double M_Y);
inline constexpr Formula kTpMaxDegree =
    record("Y", "M_Y * F / alpha", "count", "A.4 (3)", "M_Y F alpha", kSymbols,
           [](const double* x) { return tp_max_degree(x[1], x[2], x[0]); });
// Ex7: the F a TP degree Y needs: Y alpha / M_Y.
double tp_min_F(double Y, double alpha, double M_Y);
inline constexpr Formula kTpMinF =
    record("F", "Y * alpha / M_Y", "count", "A.4 (3)", "Y alpha M_Y", kSymbols,
           [](const double* x) { return tp_min_F(x[0], x[1], x[2]); });
// A.4 (4): FSDP + TP at the best split is compute-bound iff B/N > alpha^2 / (M_X M_Y F).
double mixed_min_batch_per_chip(double alpha, double F, double M_X, double M_Y);
inline constexpr Formula kMixedFloor =
    record("b_mixed", "alpha^2 / (M_X * M_Y * F)", "tokens", "A.4 (4)", "alpha M_X M_Y F", kSymbols,
           [](const double* x) { return mixed_min_batch_per_chip(x[0], x[3], x[1], x[2]); });
// A.4 (4), older copies of the chapter: with the FSDP and TP terms added instead of overlapped,
// the floor is 4 alpha^2 / (M_X M_Y F), four times higher (the book's model is the max).
double mixed_min_batch_per_chip_additive(double alpha, double F, double M_X, double M_Y);
inline constexpr Formula kMixedFloorAdditive = record(
    "b_mixed", "4 * alpha^2 / (M_X * M_Y * F)", "tokens",
    "beyond the book: Part 5 before Aug 2025, which added the FSDP and TP terms", "alpha M_X M_Y F",
    kSymbols,
    [](const double* x) { return mixed_min_batch_per_chip_additive(x[0], x[3], x[1], x[2]); });
// Ex12, Ex15.c: the global batch (or the chips) at that floor: N alpha^2 / (M_X M_Y F).
double mixed_min_batch(double N, double alpha, double F, double M_X, double M_Y);
inline constexpr Formula kMixedMinBatch =
    record("B", "N * alpha^2 / (M_X * M_Y * F)", "tokens", "A.4 (4)", "N alpha M_X M_Y F", kSymbols,
           [](const double* x) { return mixed_min_batch(x[0], x[1], x[4], x[2], x[3]); });
double mixed_max_chips(double B, double alpha, double F, double M_X, double M_Y);
inline constexpr Formula kMixedMaxChips =
    record("N", "B * M_X * M_Y * F / alpha^2", "chips", "A.4 (4)", "B M_X M_Y F alpha", kSymbols,
           [](const double* x) { return mixed_max_chips(x[0], x[4], x[3], x[1], x[2]); });
// A.4 (4): the FSDP degree where the two comm terms are equal, sqrt((B/F)(M_X/M_Y) N).
double x_opt(double B, double F, double N, double M_X, double M_Y);
inline constexpr Formula kXOpt =
    record("X_opt", "sqrt(B / F * (M_X / M_Y) * N)", "count", "A.4 (4)", "B F M_X M_Y N", kSymbols,
           [](const double* x) { return x_opt(x[0], x[1], x[4], x[2], x[3]); });
// A.4 (4) (derived): X keeps both terms compute-bound on [N alpha / (F M_Y), B M_X / alpha]; the
// lower end is the TP limit restated, the upper FSDP's (fsdp_max_chips).
struct XWindow {
  double lo = 0, hi = 0;
  bool empty() const { return lo > hi; }
};
double x_window_lo(double N, double alpha, double F, double M_Y);
inline constexpr Formula kXWindowLo =
    record("X", "N * alpha / (F * M_Y)", "count", "A.4 (4)", "N alpha F M_Y", kSymbols,
           [](const double* x) { return x_window_lo(x[0], x[1], x[2], x[3]); });
XWindow x_window(double B, double F, double N, double alpha, double M_X, double M_Y);
// The window in a reader's words: "every X from 797 to 3290", or, when it is empty, that no such
// degree exists and why (the batch per chip below the floor).
std::string window_words(const XWindow& w, double per_chip, double floor);
// A.4 (4): T_math / T_comms at X_opt: sqrt(B F M_X M_Y) / (alpha sqrt(N)).
double mixed_ratio(double B, double F, double N, double alpha, double M_X, double M_Y);
inline constexpr Formula kMixedRatio =
    record("ratio", "sqrt(B * F * M_X * M_Y) / (alpha * sqrt(N))", "ratio", "A.4 (4)",
           "B F M_X M_Y alpha N", kSymbols,
           [](const double* x) { return mixed_ratio(x[0], x[1], x[5], x[4], x[2], x[3]); });
// How many times lower the mixed floor is than FSDP's: b_FSDP / b_mixed (Ex11).
double floor_gain(double fsdp_floor, double mixed_floor);
inline constexpr Formula kFloorGain =
    record("gain", "b_FSDP / b_mixed", "ratio", "A.4 (4)", "b_FSDP b_mixed", kSymbols,
           [](const double* x) { return floor_gain(x[0], x[1]); });
// A.4 (6): across pods, the batch per pod must exceed alpha_dcn = C / W_dcn.
bool dcn_compute_bound(double B, double pods, const Hardware& h);
// The book's rounding of X_opt on its power-of-two slices: the nearest power of two on a log scale
// (Ex10: 13.7 -> 16; Q3: 1333 -> 1024; IQ9: 1619 -> 2048).
double round_pow2(double x);
inline constexpr Formula kRoundPow2 =
    record("X", "2^floor(log2(X_opt) + 0.5)", "count", "A.4 (4)", "X_opt", kSymbols,
           [](const double* x) { return round_pow2(x[0]); });
// The 16x16x16 figure's model: F = 4D (Ex12).
double mlp_width_4d(double D);
inline constexpr Formula kMlpWidth4D = record("F", "4 * D", "count", "A.4 (4)", "D", kSymbols,
                                              [](const double* x) { return mlp_width_4d(x[0]); });

// ------------------------------------------------------------------ layouts a mesh can hold

// A TP degree a model's layers can be split into: Y divides D and the KV heads, or the query heads
// with the KV heads replicated (Y above K). Any Y for a model with no heads (the chapter's MLP
// alone: N = 0).
bool tp_degree_fits(double Y, double D, double N_heads, double K_heads);
// The words of a TP degree that does not fit: "5 divides neither the 8 KV heads nor the 64 query
// heads".
std::string tp_degree_misfit(double Y, double D, double N_heads, double K_heads);
// The chapter's FSDP x TP recipe on N chips: X_opt rounded to a power of two (as the chapter
// rounds, at most N), and Y the largest power-of-two TP degree the model takes with X Y <= N. When
// no factorisation uses every chip (8960 = 2^8 x 35), the recipe runs on a sub-slice of X Y chips
// and the others stay idle (the chapter's IQ9: 2048 x 4 of 8960, 768 idle).
struct Recipe {
  double X = 1, Y = 1;
  double used = 1, idle = 0;  // chips
};
Recipe mixed_recipe(double x_opt, double N, double D, double N_heads, double K_heads);
// "2048-way FSDP x 4-way TP on 8192 of the 8960 chips, 768 idle (the optimal FSDP degree, 1619,
// rounded to a power of two, as the chapter does)".
std::string recipe_words(const Recipe& r, double x_opt);

}  // namespace sb::training
