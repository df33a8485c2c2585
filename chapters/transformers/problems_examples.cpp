// The transformers chapter's worked examples in the text (EX1-EX8): matmul FLOPs in training,
// where attention starts to dominate, saved activations under remat, the KV cache and MoE
// communication. Ids, slot names and units are the catalogue's
// (shared/book/problems/transformers.json); every expected answer is computed by model.hpp from
// the problem's own inputs, and so are the book's shortcut answers and the mistakes a hint names.
#include <cmath>
#include <map>
#include <string>

#include "chapters/transformers/model.hpp"
#include "chapters/transformers/models.hpp"
#include "chapters/transformers/problems.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

// Problems are written with designated initializers; the members left out keep their defaults.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::transformers {
namespace {

using namespace problems;
using Vars = std::map<std::string, double>;

// ---- EX1: training vs inference FLOPs of a matmul ----------------------------------------------

constexpr double kEx1N[] = {1024, 4096, 16384, 65536};
constexpr double kEx1P[] = {2048, 4096, 8192};
constexpr double kEx1M[] = {8192, 16384, 32768};
constexpr Param kEx1Given[] = {
    token_count("N", 4096, "tokens: rows of the activations A", kEx1N),
    dim("P", 8192, "contracted dimension", kEx1P),
    dim("M", 32768, "output dimension", kEx1M),
};
constexpr Slot::Var kEx1Vars[] = {{"N", "tokens (rows of A)", 1, 1e5},
                                  {"P", "contracted dimension", 1, 1e5},
                                  {"M", "output dimension", 1, 1e5}};
constexpr Slot kEx1Slots[] = {
    number("train_over_inference_ratio", "ratio", "training FLOPs / forward FLOPs"),
    derived(number("train_flops_per_param_per_token", "ratio",
                   "training FLOPs per parameter per token"),
            From::Flops),
    formula(
        "train_flops", "flop", "training FLOPs as a formula in N, P, M", kEx1Vars,
        [](const Vars& v) { return matmul_flops(v.at("N"), v.at("P"), v.at("M"), Pass::Train); },
        "6NPM"),
};
constexpr Problem kEx1{
    .id = "transformers.EX1",
    .title = "Training vs inference FLOPs of a matmul",
    .statement =
        "A layer multiplies activations A[N, P] by weights W[P, M], with N = {N}, P = {P} and "
        "M = {M}. "
        "Training also needs the gradient with respect to W (to update it) and with respect to "
        "A (to pass back to earlier layers). How many times the forward FLOPs does training this "
        "matmul cost, how many FLOPs is that per parameter per token, and what are the training "
        "FLOPs as a formula?",
    .kind = "formula",
    .given = kEx1Given,
    .slots = kEx1Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double N = in.num("N"), P = in.num("P"), M = in.num("M");
          const double fwd = tr.step("Forward: $C = A W$", kMatmulForward, {N, P, M});
          const double bwd = tr.step("Backward: $dW = A^T dC$ and $dA = dC\\, W^T$, $2NPM$ each",
                                     kMatmulBackward, {N, P, M});
          const double train = tr.sum("Training: forward and backward", "FLOPs_train", "flop",
                                      {{"FLOPs_fwd", fwd}, {"FLOPs_bwd", bwd}});
          Answers a;
          a["train_over_inference_ratio"] =
              tr.step("Training over the forward pass", kTrainOverForward, {train, fwd});
          a["train_flops_per_param_per_token"] =
              tr.step("Per parameter ($PM$ of them) per token ($N$)", kFlopsPerParamPerToken,
                      {train, P, M, N});
          a.slip("train_over_inference_ratio", (fwd + bwd / 2) / fwd,
                 "The backward pass does two matmuls, one for each gradient (W and A), each as "
                 "costly as the forward one.");
          a.slip("train_flops_per_param_per_token", flops_per_param_token(Pass::Forward),
                 "That is the forward pass (inference) alone; training adds the two backward "
                 "matmuls.");
          return a;
        },
    .hint =
        "Write the shapes of dW and dA and count each product as 2 x the product of its "
        "dimensions.",
};

// ---- EX2, EX3: where the attention core dominates ----------------------------------------------

constexpr double kEx2D[] = {4096, 8192, 16384};
constexpr double kEx2F[] = {16384, 32768, 65536};
constexpr double kEx2N[] = {32, 64, 128};
constexpr double kEx2K[] = {8, 32, 64};
constexpr Param kEx2Given[] = {
    dim("D", 8192, "model width", kEx2D),
    dim("F", 32768, "MLP width (gated: three matrices)", kEx2F),
    dim("N", 64, "query heads", kEx2N),
    dim("K", 64, "KV heads (K = N: MHA)", kEx2K),
    dim("H", 128, "head dimension"),
};
constexpr Slot kEx2Slots[] = {number("crossover_T", "tokens", "sequence length T")};
constexpr Problem kEx2{
    .id = "transformers.EX2",
    .title = "Context where attention FLOPs dominate",
    .statement =
        "A layer has D = {D}, a gated MLP of width F = {F}, N = {N} query heads and K = {K} KV "
        "heads of dimension H = {H}. At what sequence length T do the FLOPs of the attention "
        "core (QK^T and the product with V) equal those of all the other matmuls of the layer "
        "(the Q, K, V, O projections and the MLP)?",
    .kind = "numeric",
    .given = kEx2Given,
    .slots = kEx2Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double D = in.num("D"), F = in.num("F"), N = in.num("N"), K = in.num("K");
          const double H = in.num("H");
          dense(1, D, F, N, K, H);  // K must divide N
          tr.step("Attention projections of the layer", kAttentionParams, {D, N, K, H});
          tr.step("Its gated MLP", kMlpGated, {D, F});
          tr.note(
              "Per token, training does 6 FLOPs per weight of the layer, $18 D F + 12 D (N + K) "
              "H$, and the attention core $12 T N H$ against its $T$ keys: the two are equal at "
              "one "
              "$T$.");
          Answers a;
          a["crossover_T"] = tr.step("Equal when", kCrossoverDense, {D, F, N, K, H});
          tr.note("With $F = 4D$, $N H = D$ and $K = N$ this is the book's $T = 8D$.");
          a.book("crossover_T", attention_crossover_book(D),
                 "uses its rule T = 8D (exact for F = 4D, N H = D, K = N)");
          a.book("crossover_T", attention_crossover_book(round_sig(D, 1)),
                 "rounds D to one digit in T = 8D (8192 as 8k gives 64k)");
          a.slip("crossover_T", attention_vs_projections_crossover(D, N, K),
                 "That is where the core matches the Q, K, V, O projections alone; the MLP's "
                 "18 D F counts too.");
          return a;
        },
    .hint = "Write both costs per layer for B sequences of T tokens; B and one T cancel.",
};

constexpr double kEx3D[] = {3072, 4096, 4608, 5120, 8192};
constexpr Param kEx3Given[] = {dim("D", 4608, "model width (Gemma 27B)", kEx3D)};
constexpr Slot kEx3Slots[] = {number("crossover_T", "tokens", "context length T")};
constexpr Problem kEx3{
    .id = "transformers.EX3",
    .title = "Gemma-27B attention crossover",
    .statement =
        "Gemma 27B has a model width D = {D}. With the book's simplification (F = 4D, N H = D, "
        "as many KV heads as query heads), past which context length does the attention core "
        "cost more FLOPs than the rest of the layer?",
    .kind = "numeric",
    .given = kEx3Given,
    .slots = kEx3Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double D = in.num("D");
          Answers a;
          tr.note(
              "With $F = 4D$ and $N H = D$ ($N = K$): "
              "$12 T^2 D / (72 T D^2 + 24 T D^2) = T / 8D$.");
          a["crossover_T"] = tr.step("Attention dominates past", kCrossoverBook, {D});
          // The real model differs from the simplification: say by how much.
          const Config& g = model("gemma-2-27b").config;
          const Params p = params(g);
          const double rest = tr.step(
              "For comparison, Gemma 2 27B's own config ($F = 36864$, $N H = 4096$, "
              "$K = N/2$): its other matmuls per token, 6 per weight of its layers",
              kSixP, {p.attn + p.mlp_active + p.router});
          tr.step("Its exact crossover", kCrossover,
                  {rest, g.L, g.N, head_dim_qk(g), head_dim_v(g)});
          a.slip("crossover_T", attention_vs_projections_crossover(D, 1, 1),
                 "2D is where the core matches the attention projections alone; the MLP counts "
                 "too.");
          return a;
        },
};

// ---- EX4-EX6: saved activations ----------------------------------------------------------------

constexpr double kActTokens[] = {1e6, 2e6, 4e6, 8e6};
constexpr double kActL[] = {32, 64, 80, 126};
constexpr double kActD[] = {4096, 8192, 16384};
constexpr Param kActGiven[] = {
    token_count("tokens_per_batch", 4e6, "tokens per batch, B x T (the book's 4M)", kActTokens),
    dim("L", 64, "layers", kActL),
    dim("D", 8192, "model width", kActD),
    elem_bytes("bytes_per_elem", 2, "bytes per element (bf16)"),
};

// The saved bytes for `policy`, with the book's shortcut (4M read as 4 x 2^20) where it applies.
double saved_bytes(const Inputs& in, Trace& tr, Remat policy, Answers& a) {
  const double t = in.num("tokens_per_batch"), L = in.num("L"), D = in.num("D");
  const double b = in.num("bytes_per_elem");
  const double c = saved_arrays_per_layer(policy);
  const double m = tr.step("Saved activations", kActivationBytes, {t, D, L, c, b});
  if (binary_reading(t) != t)
    a.book("activation_bytes", activation_bytes(binary_reading(t), D, L, c, b),
           "reads the token count with binary prefixes (4M as 4 x 2^20)");
  return m;
}

constexpr Slot kEx4Slots[] = {number("activation_bytes", "B", "saved activations")};
constexpr Problem kEx4{
    .id = "transformers.EX4",
    .title = "Activation memory with no rematerialisation",
    .statement =
        "A training step runs {tokens_per_batch} through L = {L} layers of width D = {D}, "
        "keeping activations at {bytes_per_elem} per element. If the backward pass keeps every "
        "intermediate, about 20 arrays of shape [B, T, D] per layer, how many bytes of "
        "activations are saved?",
    .kind = "numeric",
    .given = kActGiven,
    .slots = kEx4Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Answers a;
          a["activation_bytes"] = saved_bytes(in, tr, Remat::SaveAll, a);
          a.slip("activation_bytes",
                 activation_bytes(in.num("tokens_per_batch"), in.num("D"), in.num("L"),
                                  saved_arrays_per_layer(Remat::Block), in.num("bytes_per_elem")),
                 "That keeps one array per layer (block remat); every intermediate is about 20.");
          return a;
        },
};

constexpr Slot kEx5Slots[] = {number("activation_bytes", "B", "saved activations"),
                              derived(number("train_flops_per_param_per_token", "ratio",
                                             "training FLOPs per parameter per token"),
                                      From::Flops)};
constexpr Problem kEx5{
    .id = "transformers.EX5",
    .title = "Block remat memory and FLOPs",
    .statement =
        "The same step ({tokens_per_batch}, L = {L}, D = {D}, {bytes_per_elem} per element) "
        "now saves only each layer's input and recomputes the rest of the layer in the backward "
        "pass. How many bytes are saved, and how many FLOPs per parameter per token does "
        "training now cost?",
    .kind = "numeric",
    .given = kActGiven,
    .slots = kEx5Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Answers a;
          a["activation_bytes"] = saved_bytes(in, tr, Remat::Block, a);
          a.slip("activation_bytes",
                 activation_bytes(in.num("tokens_per_batch"), in.num("D"), in.num("L"),
                                  saved_arrays_per_layer(Remat::SaveAll), in.num("bytes_per_elem")),
                 "That keeps every intermediate (about 20 arrays per layer); block remat keeps "
                 "one per layer.");
          a["train_flops_per_param_per_token"] =
              tr.step("Training, 6 per parameter per token, with the forward pass (2) replayed",
                      kRematBlockFlops, {});
          a.slip("train_flops_per_param_per_token", flops_per_param_token(Pass::Train),
                 "6 is training without remat; replaying the forward pass adds 2 per parameter "
                 "per token.");
          return a;
        },
};

constexpr Slot kEx6Slots[] = {
    number("saved_arrays_per_layer", "count", "[B, T, D]-sized arrays saved per layer"),
    number("activation_bytes", "B", "saved activations")};
constexpr Problem kEx6{
    .id = "transformers.EX6",
    .title = "Save only big matmul outputs",
    .statement =
        "A policy between the two saves only the outputs of the layer's big matmuls. How many "
        "arrays of shape [B, T, D] does it keep per layer, and how many bytes is that for the "
        "same step ({tokens_per_batch}, L = {L}, D = {D}, {bytes_per_elem} per element)?",
    .kind = "numeric",
    .given = kActGiven,
    .slots = kEx6Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Answers a;
          a["saved_arrays_per_layer"] = tr.value(
              "Arrays saved per layer: the outputs of $Q$, $K$, $V$, $O$ and the three MLP "
              "matmuls",
              saved_arrays_per_layer(Remat::BigMatmuls), "count");
          a["activation_bytes"] = saved_bytes(in, tr, Remat::BigMatmuls, a);
          a.slip("saved_arrays_per_layer", saved_arrays_per_layer(Remat::SaveAll),
                 "About 20 is every intermediate; this policy keeps only the big matmul outputs.");
          return a;
        },
    .hint = "Count the matmuls of one layer: four in attention, three in a gated MLP.",
};

// ---- EX7: the KV cache
// ---------------------------------------------------------------------------

constexpr double kEx7S[] = {2048, 4096, 8192, 32768};
constexpr double kEx7L[] = {32, 64, 80};
constexpr double kEx7K[] = {8, 16, 64};
constexpr double kEx7Bytes[] = {1, 2};
constexpr Param kEx7Given[] = {
    token_count("S", 8192, "tokens in the cache", kEx7S),
    dim("L", 64, "layers", kEx7L),
    dim("K", 64, "KV heads", kEx7K),
    dim("H", 128, "head dimension"),
    elem_bytes("bytes_per_elem", 1, "bytes per element (int8)", kEx7Bytes),
};
constexpr Slot kEx7Slots[] = {number("kv_cache_bytes", "B", "KV cache of one sequence")};
constexpr Problem kEx7{
    .id = "transformers.EX7",
    .title = "KV cache size of one sequence",
    .statement =
        "Decoding keeps the keys and values of every past token: one sequence of {S} through "
        "L = {L} layers with K = {K} KV heads of dimension H = {H}, stored at {bytes_per_elem} "
        "per element. How many bytes is its KV cache?",
    .kind = "numeric",
    .given = kEx7Given,
    .slots = kEx7Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double S = in.num("S"), L = in.num("L"), K = in.num("K"), H = in.num("H");
          const double b = in.num("bytes_per_elem");
          Answers a;
          a["kv_cache_bytes"] = tr.step("The array $[2, S, L, K, H]$", kKvCache, {S, L, K, H, b});
          a.slip("kv_cache_bytes", kv_cache_bytes(S, L, K, H, b) / 2,
                 "The cache holds a key and a value for each token: the leading 2 of [2, S, L, K, "
                 "H].");
          return a;
        },
};

// ---- EX8: MoE communication
// ----------------------------------------------------------------------

constexpr Slot kEx8Slots[] = {
    number("alltoalls_per_moe_layer", "count", "AllToAlls per MoE layer"),
    number("alltoall_cost_vs_allgather", "ratio", "one AllToAll / an AllGather of the same array")};
constexpr Problem kEx8{
    .id = "transformers.EX8",
    .title = "MoE extra communication",
    .statement =
        "In a mixture-of-experts layer whose experts are sharded over the same mesh axis as the "
        "tokens, how many AllToAll collectives does one layer add, and what does one cost "
        "against an AllGather of the same array along that axis (a bidirectional ring)?",
    .kind = "numeric",
    .given = {},
    .slots = kEx8Slots,
    .solve =
        [](const Inputs&, Trace& tr) {
          Answers a;
          a["alltoalls_per_moe_layer"] = tr.value(
              "AllToAlls per MoE layer: one sends each token to its experts, one brings "
              "the results back",
              kMoeAllToAllsPerLayer, "count");
          // Any array and bandwidth: both times are proportional to V / W_ici (here 1 GB over a
          // 45 GB/s axis).
          a["alltoall_cost_vs_allgather"] =
              tr.step("AllToAll over AllGather on one axis", kAllToAllOverAllGather, {1e9, 4.5e10});
          return a;
        },
};

constexpr Problem kExamplesProblems[] = {kEx1, kEx2, kEx3, kEx4, kEx5, kEx6, kEx7, kEx8};

}  // namespace

void add_problems_examples(Registry& r) { r.add(kExamplesProblems); }

}  // namespace sb::transformers
