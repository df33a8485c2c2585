// The case study's questions on sharding LLaMA 3-70B (IQ7-IQ9) (ids, slot names and units as in
// shared/book/problems/applied-training.json); every expected answer is computed by the models
// (this chapter's, training's, transformers') from the problem's own inputs.
#include <cmath>
#include <string>

#include "chapters/applied_training/model.hpp"
#include "chapters/applied_training/problems.hpp"
#include "chapters/training/model.hpp"
#include "chapters/transformers/model.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::applied_training {
namespace {

namespace tf = transformers;
namespace tr = training;

// ---- How to shard LLaMA 3-70B -----------------------------------------------------------------

constexpr double kIQ7Seqs[] = {2048, 4096, 8192};
constexpr double kIQ7Batches[] = {4194304, 16777216, 41943040};
constexpr Param kIQ7Given[] = {
    tokens("tokens_per_batch", 4194304, "global batch (4 x 2^20)", kIQ7Batches),
    tokens("seq_len", 4096, "sequence length", kIQ7Seqs),
    chip_count("chips", 8960, "chips (a full v5p pod)")};
constexpr Slot kIQ7Slots[] = {number("sequences_per_batch", "count", "sequences per batch"),
                              boolean("fits_8960_chips", "one sequence per chip possible?")};
constexpr Problem kIQ7{
    .id = "applied-training.IQ7",
    .title = "Pure FSDP without sequence sharding",
    .statement =
        "LLaMA 3-70B trains with a batch of {tokens_per_batch} in sequences of {seq_len}. Without "
        "splitting a sequence over chips, data parallelism (or FSDP) can use at most one chip per "
        "sequence. How many sequences is the batch, and is that enough for {chips}?",
    .kind = "numeric",
    .given = kIQ7Given,
    .slots = kIQ7Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const double B = in.num("tokens_per_batch"), T = in.num("seq_len"), N = in.num("chips");
          const double s = t.step("Sequences", tr::kSequences, {B, T});
          t.note(s >= N ? "Enough sequences for one per chip."
                        : "Fewer sequences than chips: the sequences must be split (sequence "
                          "sharding) or another axis used.");
          return Answers{{"sequences_per_batch", s}, {"fits_8960_chips", s >= N ? 1 : 0}};
        },
};

constexpr double kIQ8Chips[] = {2048, 4096, 8960, 17920};
constexpr double kIQ8Axes[] = {1, 2, 3};
constexpr Param kIQ8Given[] = {
    tokens("tokens_per_batch", 4194304, "global batch (4 x 2^20)", kIQ7Batches),
    chip_count("chips", 8960, "chips (the chapter's: a full v5p pod)", kIQ8Chips), kPeak,
    rate("ici_bw_bidir_Bps", "B_per_s", 1.8e11, "ICI per axis, both directions, W_ici"),
    count("M_X", 3, "ICI axes FSDP spans", kIQ8Axes, 1, 3)};
constexpr Slot kIQ8Slots[] = {number("per_chip_batch", "tokens", "batch per chip"),
                              number("fsdp_threshold", "tokens", "FSDP floor"),
                              boolean("compute_bound", "FSDP compute-bound?")};
constexpr Problem kIQ8{
    .id = "applied-training.IQ8",
    .title = "FSDP with sequence sharding on a pod",
    .statement =
        "Shard both batch and sequence so that FSDP uses all {chips} with a batch of "
        "{tokens_per_batch}. What batch does each chip get, what does FSDP over {M_X} "
        "{M_X|axis|axes} need "
        "({peak_bf16_flops_per_s}, {ici_bw_bidir_Bps} per axis), and is it compute-bound?",
    .kind = "numeric",
    .given = kIQ8Given,
    .slots = kIQ8Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const double B = in.num("tokens_per_batch"), N = in.num("chips"), M = in.num("M_X");
          const double alpha =
              t.step("ICI intensity", tr::kAlpha,
                     {in.num("peak_bf16_flops_per_s"), in.num("ici_bw_bidir_Bps")});
          const double b = t.step("Per chip", tr::kPerChipBatch, {B, N});
          const double f = t.step("FSDP floor", tr::kDpFloor, {alpha, M});
          Answers a{{"per_chip_batch", b}, {"fsdp_threshold", f}, {"compute_bound", b > f ? 1 : 0}};
          a.slip("fsdp_threshold", tr::dp_min_batch_per_chip(alpha, 1), kSlipOneAxis);
          return a;
        },
};

constexpr Param kIQ9Given[] = {
    kF70,
    tokens("tokens_per_batch", 4194304, "global batch (4 x 2^20)", kPow2Batches),
    chip_count("chips", 8960, "chips (a full v5p pod)"),
    tokens("alpha", 2550, "ICI intensity alpha = C / W_ici"),
    count("M_X", 2, "ICI axes FSDP spans", {}, 1, 3),
    count("M_Y", 1, "ICI axes TP spans", {}, 1, 3)};
constexpr Slot kIQ9Slots[] = {number("mixed_threshold", "tokens", "FSDP + TP floor per chip"),
                              boolean("compute_bound", "compute-bound?"),
                              number("x_opt", "count", "X_opt"),
                              number("fsdp_degree", "count", "FSDP degree X"),
                              number("tp_degree", "count", "TP degree Y"),
                              number("x_min_compute_bound", "count", "smallest compute-bound X"),
                              number("x_max_compute_bound", "count", "largest compute-bound X")};
constexpr Problem kIQ9{
    .id = "applied-training.IQ9",
    .title = "Mixed FSDP plus tensor parallelism",
    .statement =
        "So mix FSDP over {M_X} {M_X|axis|axes} with TP over {M_Y} {M_Y|axis|axes} (F = {F}, alpha "
        "= {alpha}, a batch of "
        "{tokens_per_batch} on {chips}). What batch per chip does the best split need, and is "
        "this one compute-bound? Where is X_opt, which FSDP and TP degrees would you pick (a "
        "power of two, as the chapter rounds), and between which X do both comm terms stay under "
        "the math?",
    .kind = "numeric",
    .given = kIQ9Given,
    .slots = kIQ9Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const double F = in.num("F"), B = in.num("tokens_per_batch"), N = in.num("chips"),
                       alpha = in.num("alpha"), MX = in.num("M_X"), MY = in.num("M_Y");
          Answers a;
          a["mixed_threshold"] = t.step("Per-chip floor", tr::kMixedFloor, {alpha, MX, MY, F});
          const double b = t.step("Per chip", tr::kPerChipBatch, {B, N});
          a["compute_bound"] = b > a["mixed_threshold"] ? 1 : 0;
          const double x = t.step("Optimal FSDP degree", tr::kXOpt, {B, F, MX, MY, N});
          a["x_opt"] = x;
          a["fsdp_degree"] = t.step("Nearest power of two", tr::kRoundPow2, {x});
          const tr::Recipe rc = tr::mixed_recipe(x, N, 0, 0, 0);
          a["tp_degree"] =
              t.value("TP degree: the largest whole number beside it, N / X", rc.Y, "count");
          a["x_min_compute_bound"] =
              t.step("Smallest X (TP term)", tr::kXWindowLo, {N, alpha, F, MY});
          a["x_max_compute_bound"] =
              t.step("Largest X (FSDP term)", tr::kFsdpMaxChips, {B, MX, alpha});
          const tr::XWindow w{a["x_min_compute_bound"], a["x_max_compute_bound"]};
          t.note("The chapter's recipe: " + tr::recipe_words(rc, x) + "; " +
                 tr::window_words(w, b, a["mixed_threshold"]) + ".");
          a.slip("mixed_threshold", tr::mixed_min_batch_per_chip_additive(alpha, F, MX, MY),
                 kSlipAdditive);
          a.slip("x_opt", tr::x_opt(F, B, N, MX, MY), kSlipInverted);
          return a;
        },
    .hint =
        "X_opt balances the FSDP gathers (growing with X) against the TP collectives "
        "(falling with X).",
};

constexpr Problem kShardingProblems[] = {kIQ7, kIQ8, kIQ9};

}  // namespace

void add_problems_sharding(Registry& r) { r.add(kShardingProblems); }

}  // namespace sb::applied_training
