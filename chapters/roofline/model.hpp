// Part 1 (Rooflines): the chapter's equations as named functions over plain structs.
// Everything is in SI base units: FLOPs, bytes, seconds, FLOPs/s, B/s. Section numbers (A.1 ...)
// refer to the developer notes shared/book/roofline-tpus.md.
// These functions take plain numbers (a peak, a bandwidth) rather than a chip, so that a problem
// can feed its own stated inputs; the calculators look the numbers up in sb::hw.
// The later chapters call these: each equation here is written nowhere else. A quantity that does
// not exist ("never compute-bound") is std::nullopt, never an infinity or a NaN.
//
// Each formula is a record (core/formula.hpp) beside its function: the derivations are rendered
// from the records, and tests/core/formula_records_test.cpp checks each record's expression
// against its function at random points of the symbols' ranges below.
#pragma once
#include <cmath>
#include <optional>

#include "core/formula.hpp"

namespace sb::roofline {

// The chapter's symbols: their units and the ranges the record test draws them from.
inline constexpr Symbol kSymbols[] = {
    sym("FLOPs", "flop", 1, 1e24, "floating-point operations"),
    sym("bytes", "B", 1, 1e15, "bytes moved"),
    sym("peak", "flop_per_s", 1e9, 1e17, "peak FLOPs/s of the chip"),
    sym("BW", "B_per_s", 1e6, 1e14, "bandwidth of the memory or link, one way"),
    sym("T_math", "s", 1e-9, 1e4, "time of the arithmetic"),
    sym("T_comms", "s", 1e-9, 1e4, "time of the transfer"),
    sym("T_lower", "s", 1e-9, 1e4, "time with full overlap"),
    sym("T_upper", "s", 1e-9, 1e4, "time with no overlap"),
    sym("I", "flop_per_B", 1e-3, 1e6, "arithmetic intensity"),
    sym("I_hw", "flop_per_B", 1, 1e5, "critical intensity of the chip"),
    with_tex(sym("attainable", "flop_per_s", 1, 1e17, "attainable FLOPs/s"), "\\mathrm{FLOPs/s}"),
    with_tex(sym("achieved", "flop_per_s", 1, 1e17, "achieved FLOPs/s"), "\\mathrm{FLOPs/s}"),
    sym("MFU", "ratio", 0.01, 1, "the share of the peak a kernel can reach"),
    whole("N", "count", 1, 1e9, "length of the vectors of a dot product"),
    sym("b", "B", 0.125, 8, "bytes per element"),
    sym("b_x", "B", 0.125, 8, "bytes per element of X (activations)"),
    sym("b_w", "B", 0.125, 8, "bytes per element of W (weights)"),
    sym("b_o", "B", 0.125, 8, "bytes per element of the output"),
    sym("B", "tokens", 1, 1e7, "batch (tokens)"),
    sym("D", "count", 1, 1e6, "contracting dimension"),
    sym("F", "count", 1, 1e6, "output dimension"),
    sym("f", "flop", 1, 1e13, "FLOPs per token"),
    sym("w", "B", 1, 1e13, "weight bytes"),
    sym("io", "B", 1, 1e8, "activation and output bytes per token"),
    sym("n_seq", "count", 1, 1e6, "sequences in the batch"),
    sym("T", "tokens", 1, 1e6, "tokens per sequence"),
    sym("n_dev", "count", 1, 1e5, "devices the batch is split over"),
    sym("peak_sparse", "flop_per_s", 1e9, 1e18, "peak FLOPs/s with structured sparsity"),
    sym("s", "ratio", 1, 8, "the sparsity factor"),
    whole("m", "count", 1, 1e5, "rows of the left operand"),
    whole("k", "count", 1, 1e5, "the contracted dimension of a tiled matmul"),
    whole("n", "count", 1, 1e5, "columns of the right operand"),
    with_tex(whole("bm", "count", 1, 1e4, "tile rows"), "b_m"),
    with_tex(whole("bk", "count", 1, 1e4, "tile depth"), "b_k"),
    with_tex(whole("bn", "count", 1, 1e4, "tile columns"), "b_n"),
    whole("t_m", "count", 1, 1e5, "tiles along m"),
    whole("t_k", "count", 1, 1e5, "tiles along k"),
    whole("t_n", "count", 1, 1e5, "tiles along n"),
    sym("B_small", "tokens", 1, 1e7, "critical batch of the smaller shape"),
    sym("B_large", "tokens", 1, 1e7, "critical batch of the larger shape"),
    sym("VPU_core", "flop_per_s", 1e9, 1e15, "VPU FLOPs/s of one TensorCore"),
    whole("n_core", "count", 1, 8, "TensorCores per chip"),
};

// ---- A.1 Time model -------------------------------------------------------------------------

// A.1 (1): time for the arithmetic at peak, T_math = FLOPs / peak.
double t_math(double flops, double peak_flops_per_s);
inline constexpr Formula kTMath =
    record("T_math", "FLOPs / peak", "s", "A.1 (1)", "FLOPs peak", kSymbols,
           [](const double* x) { return t_math(x[0], x[1]); });
// A.1 (2): time to move the bytes, T_comms = bytes / bandwidth.
double t_comms(double bytes, double bw_bytes_per_s);
inline constexpr Formula kTComms =
    record("T_comms", "bytes / BW", "s", "A.1 (2)", "bytes BW", kSymbols,
           [](const double* x) { return t_comms(x[0], x[1]); });
// A.1 (3): full overlap of compute and transfer, T_lower = max(T_math, T_comms).
double t_lower(double t_math, double t_comms);
inline constexpr Formula kTLower =
    record("T_lower", "max(T_math, T_comms)", "s", "A.1 (3)", "T_math T_comms", kSymbols,
           [](const double* x) { return t_lower(x[0], x[1]); });
// A.1 (4): no overlap at all, T_upper = T_math + T_comms (never more than 2 T_lower).
double t_upper(double t_math, double t_comms);
inline constexpr Formula kTUpper =
    record("T_upper", "T_math + T_comms", "s", "A.1 (4)", "T_math T_comms", kSymbols,
           [](const double* x) { return t_upper(x[0], x[1]); });

// A.1: T_upper / T_lower, between 1 (one term is negligible) and 2 (the two are equal).
double overlap_ratio(double t_upper, double t_lower);
inline constexpr Formula kOverlapRatio =
    record("ratio", "T_upper / T_lower", "ratio", "A.1", "T_upper T_lower", kSymbols,
           [](const double* x) { return overlap_ratio(x[0], x[1]); });

// A.1: which term dominates. Compute-bound iff T_math > T_comms (a tie counts as comms-bound).
enum class Bound { Compute, Comms };
Bound verdict(double t_math, double t_comms);
const char* bound_name(Bound b);  // "compute-bound" / "communication-bound"

// ---- A.2 Intensity and the ridge ------------------------------------------------------------

// A.2: algorithmic arithmetic intensity I = FLOPs / bytes [FLOPs/B].
double arithmetic_intensity(double flops, double bytes);
inline constexpr Formula kIntensity =
    record("I", "FLOPs / bytes", "flop_per_B", "A.2", "FLOPs bytes", kSymbols,
           [](const double* x) { return arithmetic_intensity(x[0], x[1]); });
// A.2: critical (hardware) intensity I_hw = peak / bandwidth: the ridge of the roofline.
double critical_intensity(double peak_flops_per_s, double bw_bytes_per_s);
inline constexpr Formula kCriticalIntensity =
    record("I_hw", "peak / BW", "flop_per_B", "A.2", "peak BW", kSymbols,
           [](const double* x) { return critical_intensity(x[0], x[1]); });
// A.2: the bytes an operation of a given intensity moves, FLOPs / I.
double bytes_at_intensity(double flops, double intensity);
inline constexpr Formula kBytesAtIntensity =
    record("bytes", "FLOPs / I", "B", "A.2", "FLOPs I", kSymbols,
           [](const double* x) { return bytes_at_intensity(x[0], x[1]); });
// A.2: the roofline curve, attainable FLOPs/s = min(peak, I * BW).
double attainable_flops_per_s(double intensity, double peak_flops_per_s, double bw_bytes_per_s);
inline constexpr Formula kAttainable =
    record("attainable", "min(peak, I * BW)", "flop_per_s", "A.2", "I peak BW", kSymbols,
           [](const double* x) { return attainable_flops_per_s(x[0], x[1], x[2]); });
// A.2: what a concrete kernel achieves, FLOPs / max(T_math, T_comms).
double achieved_flops_per_s(double flops, double t_math, double t_comms);
inline constexpr Formula kAchieved =
    record("achieved", "FLOPs / max(T_math, T_comms)", "flop_per_s", "A.2", "FLOPs T_math T_comms",
           kSymbols, [](const double* x) { return achieved_flops_per_s(x[0], x[1], x[2]); });
// A.2: how much of the peak that is, achieved / peak (1 on the flat roof).
double fraction_of_peak(double achieved_flops_per_s, double peak_flops_per_s);
inline constexpr Formula kFractionOfPeak =
    record("fraction", "achieved / peak", "ratio", "A.2", "achieved peak", kSymbols,
           [](const double* x) { return fraction_of_peak(x[0], x[1]); });
// A.1 (footnote): the realistic ceiling, a share of the advertised peak (about 0.95 on TPUs,
// 0.8-0.85 on H100/B200): mfu x peak. The flat roof sits there instead of at the peak.
double capped_peak(double peak_flops_per_s, double mfu);
inline constexpr Formula kCappedPeak =
    record("peak_cap", "MFU * peak", "flop_per_s", "A.1 (footnote)", "peak MFU", kSymbols,
           [](const double* x) { return capped_peak(x[0], x[1]); });

// ---- A.3 Dot product ------------------------------------------------------------------------

// A.7: a chip's VPU rate is every core's, n_core x VPU_core (the tables give it per core).
double vpu_chip_flops_per_s(double vpu_per_core, double cores);
inline constexpr Formula kVpuChip =
    record("VPU_chip", "n_core * VPU_core", "flop_per_s", "A.7", "VPU_core n_core", kSymbols,
           [](const double* x) { return vpu_chip_flops_per_s(x[0], x[1]); });

// A.3: N multiplies + (N - 1) adds = 2N - 1 FLOPs.
double dot_flops(double n);
inline constexpr Formula kDotFlops = record("FLOPs", "2 * N - 1", "flop", "A.3", "N", kSymbols,
                                            [](const double* x) { return dot_flops(x[0]); });
// A.3: read both vectors, write one scalar: 2 b N + b bytes (b = element size, 2 for bf16).
double dot_bytes(double n, double elem_bytes = 2);
inline constexpr Formula kDotBytes = record("bytes", "2 * b * N + b", "B", "A.3", "N b", kSymbols,
                                            [](const double* x) { return dot_bytes(x[0], x[1]); });
// A.3: (2N - 1) / (2 b N + b); for bf16 (4N + 2) in the denominator.
double dot_intensity(double n, double elem_bytes = 2);
inline constexpr Formula kDotIntensity =
    record("I", "(2 * N - 1) / (2 * b * N + b)", "flop_per_B", "A.3", "N b", kSymbols,
           [](const double* x) { return dot_intensity(x[0], x[1]); });
// A.3: large-N limit of the above, 2 / (2 b) = 1 / b (1/2 for bf16).
double dot_intensity_limit(double elem_bytes = 2);
inline constexpr Formula kDotIntensityLimit =
    record("I", "1 / b", "flop_per_B", "A.3", "b", kSymbols,
           [](const double* x) { return dot_intensity_limit(x[0]); });

// ---- A.3 Matmul X[B,D] . W[D,F] -> Z[B,F] ---------------------------------------------------

struct MatmulShape {
  double B = 0;  // tokens in the batch
  double D = 0;  // contracted axis
  double F = 0;  // output width
};
// Element sizes in bytes of the three operands (activations x, weights w, output o).
struct OperandBytes {
  double x = 2, w = 2, o = 2;
};
struct MatmulCost {
  double flops = 0;
  double bytes_x = 0, bytes_w = 0, bytes_o = 0;
  double bytes_read() const { return bytes_x + bytes_w; }
  double bytes_written() const { return bytes_o; }
  double bytes() const { return bytes_x + bytes_w + bytes_o; }
  double intensity() const;
};

// A.3: 2BDF (one multiply and one add per (b, d, f)); the dtype changes the rate, not the count.
double matmul_flops(const MatmulShape& s);
inline constexpr Formula kMatmulFlops =
    record("FLOPs", "2 * B * D * F", "flop", "A.3", "B D F", kSymbols, [](const double* x) {
      return matmul_flops({x[0], x[1], x[2]});
    });
// A.3: b_x BD + b_w DF + b_o BF; with per_example_weights the weight is W[B,D,F]: b_w BDF.
double matmul_bytes(const MatmulShape& s, const OperandBytes& b, bool per_example_weights = false);
inline constexpr Formula kMatmulBytes =
    record("bytes", "b_x * B * D + b_w * D * F + b_o * B * F", "B", "A.3", "B D F b_x b_w b_o",
           kSymbols, [](const double* x) {
             return matmul_bytes({x[0], x[1], x[2]}, {x[3], x[4], x[5]});
           });
// A.3: what the matmul reads (X and W) and what it writes back (Z).
double matmul_bytes_read(const MatmulShape& s, const OperandBytes& b);
inline constexpr Formula kMatmulBytesRead =
    record("bytes_read", "b_x * B * D + b_w * D * F", "B", "A.3", "B D F b_x b_w", kSymbols,
           [](const double* x) {
             return matmul_bytes_read({x[0], x[1], x[2]}, {x[3], x[4], 0});
           });
double matmul_bytes_written(const MatmulShape& s, const OperandBytes& b);
inline constexpr Formula kMatmulBytesWritten =
    record("bytes_written", "b_o * B * F", "B", "A.3", "B F b_o", kSymbols, [](const double* x) {
      return matmul_bytes_written({x[0], 0, x[1]}, {0, 0, x[2]});
    });
// A.3: FLOPs and the per-operand byte counts together.
MatmulCost matmul_cost(const MatmulShape& s, const OperandBytes& b,
                       bool per_example_weights = false);
// A.3: I = 2BDF / (b_x BD + b_w DF + b_o BF) (or with b_w BDF for per-example weights).
double matmul_intensity(const MatmulShape& s, const OperandBytes& b,
                        bool per_example_weights = false);
inline constexpr Formula kMatmulBytesPerExample =
    record("bytes", "b_x * B * D + b_w * B * D * F + b_o * B * F", "B", "A.3", "B D F b_x b_w b_o",
           kSymbols, [](const double* x) {
             return matmul_bytes({x[0], x[1], x[2]}, {x[3], x[4], x[5]}, true);
           });
inline constexpr Formula kMatmulIntensity =
    record("I", "2 * B * D * F / (b_x * B * D + b_w * D * F + b_o * B * F)", "flop_per_B", "A.3",
           "B D F b_x b_w b_o", kSymbols, [](const double* x) {
             return matmul_intensity({x[0], x[1], x[2]}, {x[3], x[4], x[5]});
           });
inline constexpr Formula kMatmulIntensityPerExample =
    record("I", "2 * B * D * F / (b_x * B * D + b_w * B * D * F + b_o * B * F)", "flop_per_B",
           "A.3", "B D F b_x b_w b_o", kSymbols, [](const double* x) {
             return matmul_intensity({x[0], x[1], x[2]}, {x[3], x[4], x[5]}, true);
           });
// A.1 (1) for a matmul: T_math = 2BDF / peak.
double matmul_t_math(const MatmulShape& s, double peak_flops_per_s);
inline constexpr Formula kMatmulTMath = record("T_math", "2 * B * D * F / peak", "s", "A.1 (1)",
                                               "B D F peak", kSymbols, [](const double* x) {
                                                 return matmul_t_math({x[0], x[1], x[2]}, x[3]);
                                               });
// A.1 (2) for a matmul: T_comms = (b_x BD + b_w DF + b_o BF) / BW.
double matmul_t_comms(const MatmulShape& s, const OperandBytes& b, double bw_bytes_per_s);
inline constexpr Formula kMatmulTComms =
    record("T_comms", "(b_x * B * D + b_w * D * F + b_o * B * F) / BW", "s", "A.1 (2)",
           "B D F b_x b_w b_o BW", kSymbols, [](const double* x) {
             return matmul_t_comms({x[0], x[1], x[2]}, {x[3], x[4], x[5]}, x[6]);
           });
// A.1 (3) for a matmul: T_lower = max(2BDF / peak, bytes / BW).
double matmul_t_lower(const MatmulShape& s, const OperandBytes& b, double peak_flops_per_s,
                      double bw_bytes_per_s);
inline constexpr Formula kMatmulTLower =
    record("T_lower", "max(2 * B * D * F / peak, (b_x * B * D + b_w * D * F + b_o * B * F) / BW)",
           "s", "A.1 (3)", "B D F b_x b_w b_o peak BW", kSymbols, [](const double* x) {
             return matmul_t_lower({x[0], x[1], x[2]}, {x[3], x[4], x[5]}, x[6], x[7]);
           });
// A.2 for a matmul: 2BDF / T_lower, what it reaches at batch B.
double matmul_achieved_flops_per_s(const MatmulShape& s, const OperandBytes& b,
                                   double peak_flops_per_s, double bw_bytes_per_s);
inline constexpr Formula kMatmulAchieved = record(
    "achieved",
    "2 * B * D * F / max(2 * B * D * F / peak, (b_x * B * D + b_w * D * F + b_o * B * F) / BW)",
    "flop_per_s", "A.2", "B D F b_x b_w b_o peak BW", kSymbols, [](const double* x) {
      return matmul_achieved_flops_per_s({x[0], x[1], x[2]}, {x[3], x[4], x[5]}, x[6], x[7]);
    });

// ---- A.4 Critical batch ---------------------------------------------------------------------

// A.4: weight-dominated approximation I ~ 2B / b_w, so B_crit ~ b_w * I_hw / 2.
double critical_batch_approx(double weight_bytes, double i_hw);
inline constexpr Formula kCriticalBatchApprox =
    record("B_crit", "b_w * I_hw / 2", "tokens", "A.4", "b_w I_hw", kSymbols,
           [](const double* x) { return critical_batch_approx(x[0], x[1]); });
// A.4 (derived): exact crossover 2BDF/peak = bytes/BW solved for B:
//   B_crit = b_w DF / (2DF / I_hw - b_x D - b_o F); std::nullopt ("never") when the denominator
//   is <= 0: the activation and output bytes alone take longer than the arithmetic.
std::optional<double> critical_batch_exact(double D, double F, const OperandBytes& b, double i_hw);
inline constexpr Formula kCriticalBatchExact =
    record("B_crit", "b_w * D * F / (2 * D * F / I_hw - b_x * D - b_o * F)", "tokens",
           "A.4 (derived)", "D F b_x b_w b_o I_hw", kSymbols, [](const double* x) {
             return critical_batch_exact(x[0], x[1], {x[2], x[3], x[4]}, x[5]).value_or(NAN);
           });
// A.4 (derived): the per-token costs of a matmul. Each token (row of X) costs f = 2DF FLOPs and
// io = b_x D + b_o F bytes of activations and output; the weights cost w = b_w DF once.
double matmul_flops_per_token(double D, double F);
inline constexpr Formula kFlopsPerToken =
    record("f", "2 * D * F", "flop", "A.4 (derived)", "D F", kSymbols,
           [](const double* x) { return matmul_flops_per_token(x[0], x[1]); });
double matmul_weight_bytes(double D, double F, double weight_bytes);
inline constexpr Formula kWeightBytes =
    record("w", "b_w * D * F", "B", "A.4 (derived)", "D F b_w", kSymbols,
           [](const double* x) { return matmul_weight_bytes(x[0], x[1], x[2]); });
double matmul_io_bytes_per_token(double D, double F, double x_bytes, double out_bytes);
inline constexpr Formula kIoBytesPerToken =
    record("io", "b_x * D + b_o * F", "B", "A.4 (derived)", "D F b_x b_o", kSymbols,
           [](const double* x) { return matmul_io_bytes_per_token(x[0], x[1], x[2], x[3]); });
// A.4 (derived): the same crossover from the per-token costs, B f / I_hw = w + B io:
//   B_crit = w / (f / I_hw - io), with f = 2DF FLOPs and io = b_x D + b_o F bytes per token and
//   w = b_w DF weight bytes; std::nullopt when f / I_hw <= io.
std::optional<double> critical_batch_from_costs(double flops_per_token, double weight_bytes,
                                                double io_bytes_per_token, double i_hw);
inline constexpr Formula kCriticalBatchFromCosts =
    record("B_crit", "w / (f / I_hw - io)", "tokens", "A.4 (derived)", "f w io I_hw", kSymbols,
           [](const double* x) {
             return critical_batch_from_costs(x[0], x[1], x[2], x[3]).value_or(NAN);
           });
// A.4 caveat: the batch counts tokens: sequences x tokens per sequence ...
double global_batch_tokens(double sequences, double tokens_per_sequence);
inline constexpr Formula kGlobalBatch =
    record("B", "n_seq * T", "tokens", "A.4", "n_seq T", kSymbols,
           [](const double* x) { return global_batch_tokens(x[0], x[1]); });
// ... and B_crit applies per replica (per device here): global tokens / devices.
double local_batch_tokens(double global_tokens, double n_devices);
inline constexpr Formula kLocalBatch =
    record("B_local", "B / n_dev", "tokens", "A.4", "B n_dev", kSymbols,
           [](const double* x) { return local_batch_tokens(x[0], x[1]); });
// roofline Q5: spec sheets quote sparse peaks; the dense rate is sparse / sparsity factor.
double dense_peak(double sparse_peak_flops_per_s, double sparsity_factor = 2);
inline constexpr Formula kDensePeak =
    record("peak", "peak_sparse / s", "flop_per_s", "A.4 (roofline Q5)", "peak_sparse s", kSymbols,
           [](const double* x) { return dense_peak(x[0], x[1]); });

// roofline Q3: how much later the smaller shape turns compute-bound, B_small / B_large.
double critical_batch_ratio(double b_small, double b_large);
inline constexpr Formula kCriticalBatchRatio =
    record("ratio", "B_small / B_large", "ratio", "A.4 (roofline Q3)", "B_small B_large", kSymbols,
           [](const double* x) { return critical_batch_ratio(x[0], x[1]); });

// ---- A.5 Tiled matmul -----------------------------------------------------------------------

struct Tiling {
  double m = 0, k = 0, n = 0;     // (m,k) . (k,n)
  double bm = 0, bk = 0, bn = 0;  // tile sizes
};
// A.5: tile counts tm = m/bm, tk = k/bk, tn = n/bn (rounded up: a partial tile is padded).
double tiles(double dim, double block);
inline constexpr Formula kTilesM = record("t_m", "ceil(m / bm)", "count", "A.5", "m bm", kSymbols,
                                          [](const double* x) { return tiles(x[0], x[1]); });
inline constexpr Formula kTilesK = record("t_k", "ceil(k / bk)", "count", "A.5", "k bk", kSymbols,
                                          [](const double* x) { return tiles(x[0], x[1]); });
inline constexpr Formula kTilesN = record("t_n", "ceil(n / bn)", "count", "A.5", "n bn", kSymbols,
                                          [](const double* x) { return tiles(x[0], x[1]); });
// A.5: the tiles of the whole product, tm tk tn.
double tile_count(double tm, double tk, double tn);
inline constexpr Formula kTileCount =
    record("tiles", "t_m * t_k * t_n", "count", "A.5", "t_m t_k t_n", kSymbols,
           [](const double* x) { return tile_count(x[0], x[1], x[2]); });
// A.5: FLOPs = 2 tm tn tk bm bn bk.
double tiled_flops(const Tiling& t);
double tiled_flops(double tm, double tn, double tk, double bm, double bn, double bk);
inline constexpr Formula kTiledFlops = record(
    "FLOPs", "2 * t_m * t_n * t_k * bm * bn * bk", "flop", "A.5", "t_m t_n t_k bm bn bk", kSymbols,
    [](const double* x) { return tiled_flops(x[0], x[1], x[2], x[3], x[4], x[5]); });
// A.5: bytes = b tm tn (tk (bm bk + bk bn) + bm bn): each output tile streams a strip of X and
// of W through fast memory and is written once (b = 2 for bf16).
double tiled_bytes(const Tiling& t, double elem_bytes = 2);
double tiled_bytes(double tm, double tn, double tk, double bm, double bk, double bn,
                   double elem_bytes);
inline constexpr Formula kTiledBytes =
    record("bytes", "b * t_m * t_n * (t_k * (bm * bk + bk * bn) + bm * bn)", "B", "A.5",
           "t_m t_n t_k bm bk bn b", kSymbols,
           [](const double* x) { return tiled_bytes(x[0], x[1], x[2], x[3], x[4], x[5], x[6]); });
// A.5: the ratio of the two above.
double tiled_intensity(const Tiling& t, double elem_bytes = 2);
// A.5: with the output write neglected, I ~ bm bn / (bm + bn) (bf16; times 2/b in general).
double tiled_intensity_approx(double bm, double bn, double elem_bytes = 2);
inline constexpr Formula kTiledIntensityApprox =
    record("I", "2 * bm * bn / (b * (bm + bn))", "flop_per_B", "A.5", "bm bn b", kSymbols,
           [](const double* x) { return tiled_intensity_approx(x[0], x[1], x[2]); });

// ---- A.6 Network roofline: X[B,D] . Y[D,F] sharded over 2 chips along D ---------------------

// A.6: each chip multiplies its D/2 slice: 2 B (D/2) F = BDF FLOPs.
double network_flops_per_chip(const MatmulShape& s);
inline constexpr Formula kNetworkFlops =
    record("FLOPs", "2 * B * (D / 2) * F", "flop", "A.6", "B D F", kSymbols, [](const double* x) {
      return network_flops_per_chip({x[0], x[1], x[2]});
    });
// A.6: T_math = BDF / peak (the final B F additions are ignored).
double network_t_math(const MatmulShape& s, double peak_flops_per_s);
inline constexpr Formula kNetworkTMath =
    record("T_math", "B * D * F / peak", "s", "A.6", "B D F peak", kSymbols, [](const double* x) {
      return network_t_math({x[0], x[1], x[2]}, x[3]);
    });
// A.6: each chip sends one partial sum of b_o B F bytes over a full-duplex link (one way).
double network_t_comms(const MatmulShape& s, double link_bw_one_way, double out_bytes = 2);
inline constexpr Formula kNetworkTComms =
    record("T_comms", "b_o * B * F / BW", "s", "A.6", "B F BW b_o", kSymbols, [](const double* x) {
      return network_t_comms({x[0], 0, x[1]}, x[2], x[3]);
    });
// A.6: per-chip intensity BDF / (b_o BF) = D / b_o (D/2 for bf16); B cancels.
double network_intensity(double D, double out_bytes = 2);
inline constexpr Formula kNetworkIntensity =
    record("I", "D / b_o", "flop_per_B", "A.6", "D b_o", kSymbols,
           [](const double* x) { return network_intensity(x[0], x[1]); });
// A.6: compute-bound over the link iff D / b_o > peak / BW_link, i.e. D > b_o peak / BW_link.
double network_d_crit(double peak_flops_per_s, double link_bw_one_way, double out_bytes = 2);
inline constexpr Formula kNetworkDCrit =
    record("D_crit", "b_o * peak / BW", "count", "A.6", "peak BW b_o", kSymbols,
           [](const double* x) { return network_d_crit(x[0], x[1], x[2]); });

// Every record above, for the registry (the formula sheet and the record test).
inline constexpr const Formula* kFormulas[] = {&kTMath,
                                               &kTComms,
                                               &kTLower,
                                               &kTUpper,
                                               &kOverlapRatio,
                                               &kIntensity,
                                               &kBytesAtIntensity,
                                               &kCriticalIntensity,
                                               &kAttainable,
                                               &kAchieved,
                                               &kFractionOfPeak,
                                               &kCappedPeak,
                                               &kVpuChip,
                                               &kDotFlops,
                                               &kDotBytes,
                                               &kDotIntensity,
                                               &kDotIntensityLimit,
                                               &kMatmulFlops,
                                               &kMatmulBytes,
                                               &kMatmulBytesRead,
                                               &kMatmulBytesWritten,
                                               &kMatmulBytesPerExample,
                                               &kMatmulIntensity,
                                               &kMatmulIntensityPerExample,
                                               &kMatmulTMath,
                                               &kMatmulTComms,
                                               &kMatmulTLower,
                                               &kMatmulAchieved,
                                               &kFlopsPerToken,
                                               &kWeightBytes,
                                               &kIoBytesPerToken,
                                               &kCriticalBatchApprox,
                                               &kCriticalBatchExact,
                                               &kCriticalBatchFromCosts,
                                               &kGlobalBatch,
                                               &kLocalBatch,
                                               &kDensePeak,
                                               &kCriticalBatchRatio,
                                               &kTilesM,
                                               &kTilesK,
                                               &kTilesN,
                                               &kTileCount,
                                               &kTiledFlops,
                                               &kTiledBytes,
                                               &kTiledIntensityApprox,
                                               &kNetworkFlops,
                                               &kNetworkTMath,
                                               &kNetworkTComms,
                                               &kNetworkIntensity,
                                               &kNetworkDCrit};

}  // namespace sb::roofline
