// The training chapter's examples on FSDP combined with tensor parallelism (ids, slot names and
// units as in shared/book/problems/training.json); every expected answer is computed by the model
// (model.hpp) from the problem's own inputs.
#include <cmath>
#include <string>

#include "chapters/training/model.hpp"
#include "chapters/training/problems.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::training {
namespace {

namespace tf = transformers;

// ---- FSDP + TP --------------------------------------------------------------------------------

constexpr double kEx10Batches[] = {24000, 48000, 96000, 192000, 384000, 768000};
constexpr double kEx10Fs[] = {16384, 32768, 65536};
constexpr Param kEx10Given[] = {chip_count("n_chips", 64, "chips N (a 4x4x4 slice)"),
                                tokens("batch_tokens", 48000, "global batch B", kEx10Batches),
                                width("d_ff", 32768, "MLP width F", kEx10Fs),
                                axes("m_x_axes", 2, "ICI axes FSDP spans, M_X"),
                                axes("m_y_axes", 1, "ICI axes TP spans, M_Y")};
constexpr Slot kEx10Slots[] = {number("x_opt", "count", "X_opt (real)"),
                               number("x_fsdp", "count", "FSDP degree X"),
                               number("y_tp", "count", "TP degree Y")};
constexpr Problem kEx10{
    .id = "training.Ex10",
    .title = "Optimal FSDP degree on a 4x4x4",
    .statement =
        "On a slice of {n_chips}, a batch of {batch_tokens} trains a model with F = "
        "{d_ff}, FSDP over {m_x_axes} {m_x_axes|axis|axes} and TP over {m_y_axes} "
        "{m_y_axes|axis|axes}. Where are the FSDP and TP "
        "comm terms equal (X_opt, a real number), and which split X x Y = N does that suggest "
        "(X a power of two)?",
    .kind = "numeric",
    .given = kEx10Given,
    .slots = kEx10Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double N = in.num("n_chips"), B = in.num("batch_tokens"), F = in.num("d_ff"),
                       MX = in.num("m_x_axes"), MY = in.num("m_y_axes");
          const double x = tr.step("Optimal FSDP degree", kXOpt, {B, F, MX, MY, N});
          const Recipe rc = mixed_recipe(x, N, 0, 0, 0);
          Answers a{{"x_opt", x},
                    {"x_fsdp", tr.step("Nearest power of two", kRoundPow2, {x})},
                    {"y_tp",
                     tr.value("TP degree: the largest that fits beside it, N / X", rc.Y, "count")}};
          if (rc.idle > 0) tr.note(recipe_words(rc, x) + ".");
          a.book("x_opt", x_opt(B, thousands(F), N, MX, MY),
                 "reads F as its round thousands (32,768 as 32k = 32,000)");
          a.slip("x_opt", x_opt(F, B, N, MX, MY), kSlipInverted);
          return a;
        },
    .hint =
        "The FSDP term grows with X and the TP term falls: set 4DF X / (N M_X) = 4BD / (X M_Y).",
};

constexpr double kEx11Fs[] = {16384, 28672, 32768, 53248};
constexpr Param kEx11Given[] = {kAlphaGiven, width("d_ff", 32768, "MLP width F", kEx11Fs),
                                axes("m_x_axes", 2, "ICI axes FSDP spans, M_X"),
                                axes("m_y_axes", 1, "ICI axes TP spans, M_Y"),
                                axes("fsdp_axes", 3, "axes pure FSDP spans")};
constexpr Slot kEx11Slots[] = {number("min_batch_per_chip_tokens", "tokens", "tokens per chip"),
                               number("gain_vs_fsdp", "ratio", "FSDP floor / mixed floor", 0.08)};
constexpr Problem kEx11{
    .id = "training.Ex11",
    .title = "Per-chip batch floor for mixed sharding",
    .statement =
        "With FSDP over {m_x_axes} {m_x_axes|axis|axes} and TP over {m_y_axes} "
        "{m_y_axes|axis|axes} (alpha = {alpha_ici_tokens}, F = "
        "{d_ff}), the FSDP and TP collectives overlap on their own axes. At the best split, what "
        "batch per chip keeps the layer compute-bound, and how many times lower is that than pure "
        "FSDP's floor over {fsdp_axes} {fsdp_axes|axis|axes}?",
    .kind = "numeric",
    .given = kEx11Given,
    .slots = kEx11Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double alpha = in.num("alpha_ici_tokens"), F = in.num("d_ff"),
                       MX = in.num("m_x_axes"), MY = in.num("m_y_axes"), M = in.num("fsdp_axes");
          const double b = tr.step("Mixed floor: $B/N > \\alpha^2 / (M_X M_Y F)$", kMixedFloor,
                                   {alpha, MX, MY, F});
          const double f = tr.step("Pure FSDP floor", kDpFloor, {alpha, M});
          Answers a{{"min_batch_per_chip_tokens", b},
                    {"gain_vs_fsdp", tr.step("Gain", kFloorGain, {f, b})}};
          const double additive = mixed_min_batch_per_chip_additive(alpha, F, MX, MY);
          a.slip("min_batch_per_chip_tokens", additive, kSlipAdditive);
          a.slip("gain_vs_fsdp", f / additive, kSlipAdditive);
          return a;
        },
};

constexpr double kEx12Chips[] = {1024, 4096, 8192};
constexpr double kEx12Ds[] = {4096, 8192, 16384};
constexpr Param kEx12Given[] = {
    chip_count("n_chips", 4096, "chips N (a 16x16x16 slice)", kEx12Chips),
    width("d_model", 8192, "model width D", kEx12Ds), kAlphaGiven,
    axes("m_x_axes", 2, "ICI axes FSDP spans, M_X"), axes("m_y_axes", 1, "ICI axes TP spans, M_Y")};
constexpr Slot kEx12Slots[] = {number("crossover_batch_tokens", "tokens", "global batch")};
constexpr Problem kEx12{
    .id = "training.Ex12",
    .title = "Comms-bound crossover batch on 16x16x16",
    .statement =
        "A model with D = {d_model} and F = 4D trains on {n_chips} with FSDP over "
        "{m_x_axes} {m_x_axes|axis|axes} and TP over {m_y_axes} {m_y_axes|axis|axes} (alpha = "
        "{alpha_ici_tokens}). Below which global "
        "batch is even the best FSDP + TP split comms-bound?",
    .kind = "numeric",
    .given = kEx12Given,
    .slots = kEx12Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double N = in.num("n_chips"), D = in.num("d_model"),
                       alpha = in.num("alpha_ici_tokens"), MX = in.num("m_x_axes"),
                       MY = in.num("m_y_axes");
          const double F = tr.step("MLP width", kMlpWidth4D, {D});
          Answers a{{"crossover_batch_tokens",
                     tr.step("Crossover", kMixedMinBatch, {N, alpha, MX, MY, F})}};
          a.slip("crossover_batch_tokens", N * mixed_min_batch_per_chip_additive(alpha, F, MX, MY),
                 kSlipAdditive);
          return a;
        },
};

constexpr double kEx19Fs[] = {16384, 30000, 32768};
constexpr Param kEx19Given[] = {chip_count("n_chips", 64, "chips N (a 4x4x4 slice)"),
                                width("d_ff", 30000, "MLP width F", kEx19Fs),
                                kAlphaGiven,
                                axes("m_x_axes", 2, "ICI axes FSDP spans in the mixed layout"),
                                axes("m_y_axes", 1, "ICI axes TP spans in the mixed layout"),
                                axes("fsdp_m_axes", 3, "axes pure FSDP spans"),
                                width("tp_only_degree", 64, "TP degree of pure TP"),
                                axes("tp_only_m_axes", 3, "axes pure TP spans")};
constexpr Slot kEx19Slots[] = {
    number("mixed_min_batch_per_chip_tokens", "tokens", "mixed FSDP + TP floor", 0.09),
    number("fsdp_min_batch_per_chip_tokens", "tokens", "pure FSDP floor"),
    boolean("tp_only_compute_bound", "pure TP compute-bound?")};
constexpr Problem kEx19{
    .id = "training.Ex19",
    .title = "Batch window where only mixed sharding works",
    .statement =
        "On {n_chips} (4x4x4) with F = {d_ff} and alpha = {alpha_ici_tokens}: from which "
        "batch per chip is FSDP + TP (FSDP on {m_x_axes} {m_x_axes|axis|axes}, TP on {m_y_axes} "
        "{m_y_axes|axis|axes}) compute-bound, "
        "from which is pure FSDP over {fsdp_m_axes} {fsdp_m_axes|axis|axes}, and is pure "
        "{tp_only_degree}-way TP "
        "over {tp_only_m_axes} {tp_only_m_axes|axis|axes} ever compute-bound?",
    .kind = "numeric",
    .given = kEx19Given,
    .slots = kEx19Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double F = in.num("d_ff"), alpha = in.num("alpha_ici_tokens"),
                       MX = in.num("m_x_axes"), MY = in.num("m_y_axes"), M = in.num("fsdp_m_axes"),
                       Y = in.num("tp_only_degree"), MT = in.num("tp_only_m_axes");
          Answers a;
          a["mixed_min_batch_per_chip_tokens"] =
              tr.step("Mixed floor", kMixedFloor, {alpha, MX, MY, F});
          a["fsdp_min_batch_per_chip_tokens"] = tr.step("FSDP floor", kDpFloor, {alpha, M});
          const double lim = tr.step("TP limit", kTpMaxDegree, {MT, F, alpha});
          a["tp_only_compute_bound"] = Y < lim ? 1 : 0;
          a.slip("mixed_min_batch_per_chip_tokens",
                 mixed_min_batch_per_chip_additive(alpha, F, MX, MY), kSlipAdditive);
          a.slip("fsdp_min_batch_per_chip_tokens", dp_min_batch_per_chip(alpha, 1), kSlipOneAxis);
          tr.note("Pure TP's ratio $T_{math} / T_{comms}$ does not depend on the batch: " +
                  units::number(Y) + "-way against a limit of " + units::number(lim) + ".");
          return a;
        },
};

constexpr Param kEx13Given[] = {chip_count("n_chips", 4096, "chips N (a 16x16x16 slice)")};
constexpr Problem kEx13{
    .id = "training.Ex13",
    .title = "Optimum in the interactive roofline plot",
    .statement =
        "The chapter's interactive plot of FSDP + TP on {n_chips} marks the split with the "
        "least communication. Where does it put it, and why can the companion not recompute that "
        "point exactly?",
    .kind = "conceptual",
    .given = kEx13Given,
    .model_answer =
        "The plot puts the lowest-comms split near 256-way FSDP with 16-way TP. That point is "
        "X_opt = sqrt((B/F)(M_X/M_Y) N) rounded to a split of the slice, and X_opt moves with the "
        "batch, which the plot does not state: so the number can only be read off the figure. "
        "The planner (training.plan) gives the optimum for any batch you type.",
};

constexpr Problem kMixedProblems[] = {kEx10, kEx11, kEx12, kEx19, kEx13};

}  // namespace

void add_problems_mixed(Registry& r) { r.add(kMixedProblems); }

}  // namespace sb::training
