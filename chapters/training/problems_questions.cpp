// The training chapter's end-of-chapter problems ("Some Problems to Work"): LLaMA-2 13B's
// parameters, its training memory, and three ways to train it on a v5p 16x16x16. Ids, slot names
// and units are the catalogue's (shared/book/problems/training.json); every expected answer is
// computed by the models (training, transformers) from the problem's own inputs.
#include <string>
#include <utility>

#include "chapters/training/model.hpp"
#include "chapters/training/problems.hpp"
#include "chapters/transformers/model.hpp"
#include "core/error.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::training {
namespace {

namespace tf = transformers;

// ---- Question 1: LLaMA-2 13B's parameters -----------------------------------------------------

// The configuration checked, its errors naming the problem's givens (n_kv_heads for K, ...).
tf::Config checked(const tf::Config& c) {
  try {
    return tf::validated(c);
  } catch (const InputError& e) {
    static constexpr std::pair<Text, Text> kNames[] = {
        {"L", "n_layers"},   {"D", "d_model"},  {"F", "d_ff"}, {"N", "n_heads"},
        {"K", "n_kv_heads"}, {"H", "head_dim"}, {"V", "vocab"}};
    for (const auto& [field, given] : kNames)
      if (e.field == field) fail(given, e.what(), e.code);
    throw;
  }
}

constexpr double kQ1Ls[] = {32, 40, 48, 80};
constexpr double kQ1Ds[] = {4096, 5120, 8192};
constexpr double kQ1Fs[] = {11008, 13824, 28672};
constexpr double kQ1Vs[] = {32000, 128256};
constexpr Param kQ1Given[] = {
    width("n_layers", 40, "layers L", kQ1Ls),
    width("d_model", 5120, "model width D", kQ1Ds),
    width("d_ff", 13824, "MLP width F", kQ1Fs),
    width("n_heads", 40, "query heads N"),
    width("n_kv_heads", 40, "key/value heads K"),
    width("head_dim", 128, "head dimension H"),
    width("vocab", 32000, "vocabulary V", kQ1Vs),
    choice("mlp", "gated", "gated|plain", "MLP: gated (3 matrices) or plain (2)"),
    choice("embeddings", "untied", "untied|tied",
           "input and output embeddings: separate matrices (untied) or one shared (tied)")};
constexpr Slot kQ1Slots[] = {
    decimal_prefixes(number("ffw_params", "count", "feed-forward parameters")),
    decimal_prefixes(number("attn_params", "count", "attention parameters")),
    decimal_prefixes(number("vocab_params", "count", "vocabulary parameters")),
    decimal_prefixes(number("total_params", "count", "total parameters"))};
constexpr Problem kQ1{
    .id = "training.Q1",
    .title = "Parameter count of LLaMA-2 13B",
    .statement =
        "LLaMA-2 13B has {n_layers} layers, D = {d_model}, F = {d_ff}, {n_heads} query heads and "
        "{n_kv_heads} key/value heads of dimension {head_dim}, a vocabulary of {vocab}, a {mlp} "
        "MLP "
        "and {embeddings} embeddings. How many parameters are in the feed-forward blocks, in "
        "attention, in the vocabulary matrices, and in total? (Leave the small norm vectors out.)",
    .kind = "numeric",
    .given = kQ1Given,
    .slots = kQ1Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          tf::Config c;
          c.L = in.num("n_layers");
          c.D = in.num("d_model");
          c.F = in.num("d_ff");
          c.N = in.num("n_heads");
          c.K = in.num("n_kv_heads");
          c.H = in.num("head_dim");
          c.V = in.num("vocab");
          c.gated = in.text("mlp") == "gated";
          c.tied = in.text("embeddings") == "tied";
          c.norms_per_layer = 0;
          checked(c);
          const tf::CountSteps n = tf::count_steps(tr, c);
          Answers a;
          a["ffw_params"] = n.mlp;
          a["attn_params"] = n.attn;
          a["vocab_params"] = n.vocab;
          a["total_params"] = n.total;
          // The other MLP and the other embedding, as a reader who misread the config counts.
          tf::Config other = c;
          other.gated = !c.gated;
          const tf::Params g = tf::params(checked(other));
          const char* mats_hint =
              c.gated ? "That counts 2 MLP matrices: a gated MLP has 3 (W_in1, W_in2, W_out)."
                      : "That counts 3 MLP matrices: this MLP is plain, with W_in and W_out.";
          a.slip("ffw_params", g.mlp, mats_hint);
          a.slip("total_params", g.total, mats_hint);
          other = c;
          other.tied = !c.tied;
          const tf::Params e = tf::params(checked(other));
          a.slip("vocab_params", e.embed + e.unembed,
                 c.tied ? "That counts two matrices: the embeddings are tied, one D x V matrix."
                        : "That counts one D x V matrix: the input and output embeddings are "
                          "separate (2 D V).");
          return a;
        },
    .hint = "A gated MLP has three D x F matrices; attention has W_Q, W_K, W_V and W_O.",
};

// ---- Question 2: training memory --------------------------------------------------------------

constexpr double kQ2Params[] = {7e9, 13e9, 70e9};
constexpr double kQ2Batches[] = {4e6, 8e6, 16e6};
constexpr double kQ2Ckpts[] = {2, 3};
constexpr Param kQ2Given[] = {
    param_count("params", 13e9, "parameters P", kQ2Params),
    tokens("batch_tokens", 16e6, "global batch B", kQ2Batches),
    width("n_layers", 40, "layers L"),
    width("d_model", 5120, "model width D"),
    width("d_ff", 13824, "MLP width F"),
    per_param("bytes_per_param_bf16", 2, "bytes per bf16 weight"),
    per_param("bytes_adam_state_fp32", 8, "bytes of Adam state per parameter (fp32 m and v)"),
    count("checkpoints_per_layer", 3, "bf16 checkpoints per layer: one [B, D], the rest [B, F]",
          kQ2Ckpts, 1, 3)};
constexpr Slot kQ2Slots[] = {
    decimal_prefixes(number("params_and_optimizer_bytes", "B", "parameters and optimizer state")),
    decimal_prefixes(number("activation_bytes", "B", "saved activations")),
    decimal_prefixes(number("total_bytes", "B", "total"))};
constexpr Problem kQ2{
    .id = "training.Q2",
    .title = "Training memory: weights, Adam state, checkpoints",
    .statement =
        "Train a model of {params} parameters with a batch of {batch_tokens}: "
        "{bytes_per_param_bf16} "
        "per bf16 weight and {bytes_adam_state_fp32} of Adam state per parameter, and "
        "{checkpoints_per_layer} bf16 checkpoints per layer, saved after each big matmul of the "
        "MLP "
        "(one of width D = {d_model}, the others of width F = {d_ff}), over {n_layers} layers. "
        "With no parallelism at all, how many bytes do the weights and optimizer take, how many "
        "the checkpoints, and how many in total?",
    .kind = "numeric",
    .given = kQ2Given,
    .slots = kQ2Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double P = in.num("params"), B = in.num("batch_tokens"), L = in.num("n_layers");
          const Layer l{in.num("d_model"), in.num("d_ff"), in.num("checkpoints_per_layer")};
          const double w = tf::param_bytes(P, in.num("bytes_per_param_bf16"));
          Answers a;
          a["params_and_optimizer_bytes"] =
              tr.step("Weights and Adam", kStateBytes,
                      {in.num("bytes_per_param_bf16"), in.num("bytes_adam_state_fp32"), P});
          a["activation_bytes"] = tr.step("Checkpoints ($n$ = the checkpoints per layer)",
                                          kCheckpointBytes, {L, B, l.D, l.n_mats, l.F});
          a["total_bytes"] =
              tr.sum("Total", "M", "B",
                     {{"S", a["params_and_optimizer_bytes"]}, {"A", a["activation_bytes"]}});
          a.slip("params_and_optimizer_bytes", w, kSlipNoAdam);
          a.slip("activation_bytes", checkpoint_bytes({l.D, l.D, l.n_mats}, L, B), kSlipAllD);
          return a;
        },
    .hint = "Each checkpoint is a bf16 array of B tokens by its width.",
};

// ---- Question 3: LLaMA-2 13B on a v5p 16x16x16 -------------------------------------------------

constexpr double kQ3Batches[] = {1e6, 1.5e6, 2e6, 3e6, 4e6, 6e6};
constexpr Param kQ3Params = param_count("params", 13e9, "parameters P (LLaMA-2 13B)");
constexpr Param kQ3Chips = chip_count("n_chips", 4096, "chips N (a v5p 16x16x16)");
constexpr Param kQ3Hbm = memory("hbm_per_chip_B", 96e9, "HBM per chip");
constexpr Param kQ3Seq = tokens("seq_len", 32768, "sequence length T");
constexpr Param kQ3Batch = tokens("batch_tokens", 3e6, "global batch B", kQ3Batches);
constexpr Param kQ3Layers = width("n_layers", 40, "layers L");
constexpr Param kQ3D = width("d_model", 5120, "model width D");
constexpr Param kQ3F = width("d_ff", 13824, "MLP width F (gated: 3 matrices)");
constexpr Param kQ3Peak =
    rate("peak_bf16_flops_per_s", "flop_per_s", 4.59e14, "peak bf16 FLOPs/s per chip, C");
constexpr Param kQ3WIci =
    rate("w_ici_Bps", "B_per_s", 1.8e11, "ICI bandwidth per axis, both directions, W_ici");
// The same three as facts of one chip, for the parts whose only chip figures they are.
constexpr Param kQ3HbmSpec = chip_spec(kQ3Hbm, "hbm_bytes");
constexpr Param kQ3PeakSpec = chip_spec(kQ3Peak, "peak_flops_bf16");
constexpr Param kQ3WIciSpec = chip_spec(kQ3WIci, "ici_bw_bidi");

// The checkpoints of Question 2's model at this batch, and the state over N chips.
struct Q3 {
  double P, N, B, act, state, alpha;
};
Q3 q3_setup(const Inputs& in, Trace& tr) {
  Q3 q;
  q.P = in.num("params");
  q.N = in.num("n_chips");
  q.B = in.num("batch_tokens");
  const Layer l{in.num("d_model"), in.num("d_ff"), 3};
  q.act = tr.step("Checkpoints (3 per layer)", kCheckpointBytes,
                  {in.num("n_layers"), q.B, l.D, l.n_mats, l.F});
  q.state = tr.step("Weights and Adam", kParamsOptimizerBytes, {q.P});
  q.alpha =
      tr.step("ICI intensity", kAlpha, {in.num("peak_bf16_flops_per_s"), in.num("w_ici_Bps")});
  return q;
}

constexpr Param kQ3aGiven[] = {kQ3Params, kQ3Chips, kQ3HbmSpec, kQ3Seq,      kQ3Batch,
                               kQ3Layers, kQ3D,     kQ3F,       kQ3PeakSpec, kQ3WIciSpec};
constexpr Slot kQ3aSlots[] = {
    number("sequences_per_batch", "count", "sequences per batch"),
    decimal_prefixes(number("params_opt_bytes_per_chip", "B", "weights and Adam per chip")),
    boolean("pure_dp_fits", "does pure DP fit?")};
constexpr Problem kQ3a{
    .id = "training.Q3.a",
    .title = "Pure data parallelism on 16x16x16",
    .statement =
        "Train LLaMA-2 13B ({params} parameters) on a 16x16x16 slice ({n_chips} with "
        "{hbm_per_chip_B} of HBM each; the chapter's are v5p) with sequences of {seq_len} and a "
        "batch of {batch_tokens}. How many "
        "sequences is the batch? With pure data parallelism, how many bytes of weights and Adam "
        "state sit on each chip, and does that fit?",
    .kind = "numeric",
    .given = kQ3aGiven,
    .slots = kQ3aSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double B = in.num("batch_tokens"), T = in.num("seq_len"), P = in.num("params");
          const double per_chip = tr.step("Replicated on every chip", kParamsOptimizerBytes, {P});
          Answers a{{"sequences_per_batch", tr.step("Sequences", kSequences, {B, T})},
                    {"params_opt_bytes_per_chip", per_chip},
                    {"pure_dp_fits", per_chip <= in.num("hbm_per_chip_B") ? 1 : 0}};
          a.book("sequences_per_batch", sequences(binary_millions(B), T),
                 "reads the batch's M as 2^20 (3M tokens as 3 x 2^20 = 3,145,728)");
          a.slip("params_opt_bytes_per_chip", tf::param_bytes(P), kSlipNoAdam);
          return a;
        },
    .erratum =
        "The book counts 96 sequences: it reads 3M as 3 x 2^20 and 32k as 2^15. With the "
        "problem's own 3e6 tokens it is 3e6 / 32768 = 91.6 sequences.",
};

constexpr double kQ3Axes[] = {2, 3};
constexpr Param kQ3bGiven[] = {kQ3Params,
                               kQ3Chips,
                               kQ3HbmSpec,
                               kQ3Seq,
                               kQ3Batch,
                               kQ3Layers,
                               kQ3D,
                               kQ3F,
                               kQ3PeakSpec,
                               kQ3WIciSpec,
                               count("fsdp_mesh_axes", 3, "ICI axes FSDP spans", kQ3Axes, 1, 3)};
constexpr Slot kQ3bSlots[] = {
    decimal_prefixes(number("activation_bytes", "B", "checkpoints (3 per layer)")),
    decimal_prefixes(number("total_bytes", "B", "total memory")),
    decimal_prefixes(number("slice_hbm_bytes", "B", "HBM of the slice")),
    boolean("fits_in_slice", "fits in the slice?"),
    decimal_prefixes(number("bytes_per_chip", "B", "bytes per chip under FSDP")),
    number("min_batch_fsdp_3axes_tokens", "tokens", "smallest compute-bound global batch"),
    number("per_chip_batch_tokens", "tokens", "batch per chip"),
    boolean("fsdp_compute_bound", "is FSDP compute-bound?")};
constexpr Problem kQ3b{
    .id = "training.Q3.b",
    .title = "Pure FSDP: memory and compute-bound check",
    .statement =
        "Same setup: {params} parameters, {n_layers} layers with D = {d_model} and F = {d_ff} "
        "(gated, so 3 bf16 checkpoints per layer), a batch of {batch_tokens}, {n_chips} "
        "of {hbm_per_chip_B} ({peak_bf16_flops_per_s}, ICI {w_ici_Bps} per axis). With pure FSDP "
        "over {fsdp_mesh_axes} {fsdp_mesh_axes|axis|axes}: how much memory do checkpoints and "
        "state take in total, how "
        "much HBM does the slice have, does it fit, and how much lands on each chip? What global "
        "batch would FSDP need to be compute-bound, what is the batch per chip, and is it?",
    .kind = "numeric",
    .given = kQ3bGiven,
    .slots = kQ3bSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const Q3 q = q3_setup(in, tr);
          const double M = in.num("fsdp_mesh_axes"), hbm = in.num("hbm_per_chip_B");
          Answers a;
          a["activation_bytes"] = q.act;
          a["total_bytes"] = tr.sum("In total", "M", "B", {{"S", q.state}, {"A", q.act}});
          a["slice_hbm_bytes"] = tr.step("HBM of the slice", kSliceHbm, {q.N, hbm});
          a["fits_in_slice"] = a["total_bytes"] <= a["slice_hbm_bytes"] ? 1 : 0;
          a["bytes_per_chip"] =
              tr.step("Per chip under FSDP", kMemoryFsdp, {q.state, q.act, q.N, 1, 1});
          const double floor = tr.step("FSDP floor", kDpFloor, {q.alpha, M});
          a["min_batch_fsdp_3axes_tokens"] =
              tr.step("Smallest compute-bound batch", kGlobalBatch, {floor, q.N});
          a["per_chip_batch_tokens"] = tr.step("Per chip", kPerChipBatch, {q.B, q.N});
          a["fsdp_compute_bound"] = q.B / q.N > floor ? 1 : 0;
          a.slip("min_batch_fsdp_3axes_tokens", q.N * dp_min_batch_per_chip(q.alpha, 1),
                 kSlipOneAxis);
          const Layer all_d{in.num("d_model"), in.num("d_model"), 3};
          a.slip("activation_bytes", checkpoint_bytes(all_d, in.num("n_layers"), q.B), kSlipAllD);
          return a;
        },
};

constexpr double kQ3cMfus[] = {0.3, 0.35, 0.4, 0.45, 0.5};
constexpr Param kQ3cGiven[] = {
    kQ3Params,
    kQ3Chips,
    kQ3Hbm,
    kQ3Seq,
    kQ3Batch,
    kQ3Layers,
    kQ3D,
    kQ3F,
    kQ3Peak,
    kQ3WIci,
    count("m_x_axes", 2, "ICI axes FSDP spans, M_X", {}, 1, 3),
    count("m_y_axes", 1, "ICI axes TP spans, M_Y", {}, 1, 3),
    mfu_given(0.4, kQ3cMfus),
    rate("peak_flops_for_step_time", "flop_per_s", 4.6e14,
         "peak FLOPs/s the step-time estimate uses (the text's rounded figure)")};
constexpr Slot kQ3cSlots[] = {number("min_batch_per_chip_tokens", "tokens", "per-chip floor"),
                              boolean("mixed_compute_bound", "is FSDP + TP compute-bound?"),
                              number("x_opt", "count", "X_opt"),
                              number("x_fsdp", "count", "FSDP degree X"),
                              number("y_tp", "count", "TP degree Y"),
                              decimal_prefixes(number("bytes_per_chip", "B", "bytes per chip")),
                              derived(number("step_time_s", "s", "step time", 0.04), From::Flops)};
constexpr Problem kQ3c{
    .id = "training.Q3.c",
    .title = "Mixed FSDP and tensor parallelism plan",
    .statement =
        "Now mix FSDP over {m_x_axes} {m_x_axes|axis|axes} with TP over {m_y_axes} "
        "{m_y_axes|axis|axes}, the two overlapping on their "
        "own axes (same model: {params} parameters, F = {d_ff}; {batch_tokens} on {n_chips} of "
        "v5p, "
        "{peak_bf16_flops_per_s} and {w_ici_Bps} per axis). What batch per chip does the "
        "best split need, and is this one compute-bound? Where is X_opt, which power-of-two split "
        "X x Y would you use, and how many bytes does each chip hold? How long is a step at {mfu} "
        "MFU with a peak of {peak_flops_for_step_time}?",
    .kind = "numeric",
    .given = kQ3cGiven,
    .slots = kQ3cSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const Q3 q = q3_setup(in, tr);
          const double F = in.num("d_ff"), MX = in.num("m_x_axes"), MY = in.num("m_y_axes");
          Answers a;
          const double floor = tr.step("Per-chip floor", kMixedFloor, {q.alpha, MX, MY, F});
          a["min_batch_per_chip_tokens"] = floor;
          a["mixed_compute_bound"] = q.B / q.N > floor ? 1 : 0;
          const double x = tr.step("Optimal FSDP degree", kXOpt, {q.B, F, MX, MY, q.N});
          a["x_opt"] = x;
          a["x_fsdp"] = tr.step("Nearest power of two", kRoundPow2, {x});
          const Recipe rc = mixed_recipe(x, q.N, 0, 0, 0);
          a["y_tp"] = tr.value("TP degree: the largest that fits beside it, N / X", rc.Y, "count");
          if (rc.idle > 0) tr.note(recipe_words(rc, x) + ".");
          a["bytes_per_chip"] = tr.step("Per chip (every byte sharded)", kMemoryFsdp,
                                        {q.state, q.act, a["x_fsdp"], a["y_tp"], 1});
          const double C = in.num("peak_flops_for_step_time"), mfu = in.num("mfu");
          a["step_time_s"] = tr.step("Step time", kStepTimeAtMfu, {q.B, q.P, q.N, C, mfu});
          a.slip("min_batch_per_chip_tokens", mixed_min_batch_per_chip_additive(q.alpha, F, MX, MY),
                 kSlipAdditive);
          a.slip("x_opt", x_opt(F, q.B, q.N, MX, MY), kSlipInverted);
          a.slip("step_time_s", step_time_at_mfu(q.B, q.P, q.N, C, 1), kSlipNoMfu);
          return a;
        },
    .hint = "X_opt is where the FSDP gathers and the TP collectives take equally long.",
};

constexpr Problem kQuestionsProblems[] = {kQ1, kQ2, kQ3a, kQ3b, kQ3c};

}  // namespace

void add_problems_questions(Registry& r) { r.add(kQuestionsProblems); }

}  // namespace sb::training
