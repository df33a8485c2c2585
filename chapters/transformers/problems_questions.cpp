// The transformers chapter's end-of-chapter problems on intensity and cost (Q4-Q8): the attention
// core's intensity and its crossover with the projections, the recompute cost of a remat policy,
// DeepSeek v3's utilisation and the MoE compute-bound batch. Ids, slot names and units are the
// catalogue's (shared/book/problems/transformers.json); every expected answer, shortcut and named
// mistake is computed by model.hpp from the problem's inputs.
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "chapters/roofline/model.hpp"
#include "chapters/transformers/model.hpp"
#include "chapters/transformers/problems.hpp"
#include "core/error.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

// Problems are written with designated initializers; the members left out keep their defaults.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::transformers {
namespace {

using namespace problems;
using Vars = std::map<std::string, double>;

// ---- Q4: the attention core's intensity ---------------------------------------------------------

constexpr double kQ4T[] = {1024, 2048, 4096, 16384};
constexpr double kQ4S[] = {4096, 8192, 32768};
constexpr double kQ4G[] = {1, 4, 8, 16};
constexpr Param kQ4aGiven[] = {
    token_count("T", 4096, "query length for prefill (S = T)", kQ4T),
    token_count("S", 8192, "keys in the cache when decoding one token", kQ4S),
    dim("G", 8, "query heads per KV head, N/K", kQ4G),
    elem_bytes("bytes_per_elem", 2, "bytes per element (bf16)"),
};
constexpr Slot::Var kQ4Vars[] = {{"T", "query length", 1, 1e5},
                                 {"S", "key/value length", 1, 1e5},
                                 {"G", "query heads per KV head", 1, 64}};
constexpr Slot kQ4aSlots[] = {
    number("intensity_prefill_test_point", "flop_per_B", "intensity at prefill (S = T)"),
    number("intensity_decode_test_point", "flop_per_B", "intensity decoding one token"),
    formula(
        "intensity", "flop_per_B", "intensity as a formula in T, S, G (bf16)", kQ4Vars,
        [](const Vars& v) { return attention_intensity(v.at("T"), v.at("S"), v.at("G"), 2); },
        "\\frac{T S G}{T G + S}"),
};
constexpr Problem kQ4a{
    .id = "transformers.Q4.a",
    .title = "Arithmetic intensity of self-attention",
    .statement =
        "Leave the projections out: the attention core reads Q[B, T, N, H], K and V[B, S, K, H] "
        "and writes O[B, T, N, H] at {bytes_per_elem} per element, with G = N/K query heads per "
        "KV head (here G = {G}) and the T x S scores kept on chip. What is its arithmetic "
        "intensity as a formula in T, S and G, and its value at prefill with T = S = {T}, and "
        "when decoding one token against S = {S}?",
    .kind = "formula",
    .given = kQ4aGiven,
    .slots = kQ4aSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double T = in.num("T"), S = in.num("S"), G = in.num("G");
          const double b = in.num("bytes_per_elem");
          tr.note(
              "FLOPs: $QK^T$ and $PV$, $2BTSNH$ each $= 4BTSKGH$. Bytes: "
              "$b (2BTNH + 2BSKH) = 2bBKH (TG + S)$. $B$, $K$ and $H$ cancel.");
          Answers a;
          a["intensity_prefill_test_point"] =
              tr.step("Prefill, $S = T$", kAttentionIntensity, {T, T, G, b});
          a["intensity_decode_test_point"] =
              tr.step("Decoding, $T = 1$", kAttentionIntensity, {1, S, G, b});
          a.slip("intensity_prefill_test_point", attention_intensity(T, T, 1, b),
                 "That is MHA (G = 1); with G query heads per KV head, K and V are read once for G "
                 "heads.");
          return a;
        },
};

constexpr double kQ4bGDecode[] = {1, 8, 16};
constexpr Param kQ4bGiven[] = {
    chip_spec(figure("peak_flops_per_s", "flop_per_s", 1.97e14,
                     "bf16 peak of the chip (the book: TPU v5e)"),
              "peak_flops_bf16"),
    chip_spec(figure("hbm_bw", "B_per_s", 8.2e11, "HBM bandwidth of the chip"), "hbm_bw"),
    elem_bytes("bytes_per_elem", 2, "bytes per element (bf16)"),
    dim("G_mha", 1, "G for the MHA question"),
    dim("G_decode", 8, "G when decoding", kQ4bGDecode),
};
constexpr Slot kQ4bSlots[] = {
    number("min_T_prefill_large_G", "tokens",
           "prefill: T above which it is compute-bound, large G"),
    number("min_T_prefill_MHA", "tokens", "the same for MHA (G = 1)"),
    boolean("decode_compute_bound", "can decoding be compute-bound?"),
};
constexpr Problem kQ4b{
    .id = "transformers.Q4.b",
    .title = "Length where attention is compute-bound",
    .statement =
        "A TPU does {peak_flops_per_s} in bf16 and reads HBM at {hbm_bw}. The attention "
        "core keeps {bytes_per_elem} per element and the sequence is not sharded. Above which "
        "sequence length is prefill attention compute-bound when G is large, and for MHA "
        "(G = {G_mha})? Can decoding one token at a time with G = {G_decode} ever be "
        "compute-bound?",
    .kind = "numeric",
    .given = kQ4bGiven,
    .slots = kQ4bSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double peak = in.num("peak_flops_per_s"), bw = in.num("hbm_bw");
          const double b = in.num("bytes_per_elem");
          const double i_hw =
              tr.step("Critical intensity", roofline::kCriticalIntensity, {peak, bw});
          Answers a;
          a["min_T_prefill_large_G"] = tr.step(
              "Prefill's intensity $T G / (G + 1)$ tends to $T$: compute-bound once $T$ exceeds",
              kMinTLargeG, {i_hw, b});
          const double g1 = in.num("G_mha");
          a["min_T_prefill_MHA"] =
              tr.step("With $G = 1$ the intensity is $T/2$: compute-bound once $T$ exceeds",
                      kMinTPrefill, {i_hw, g1, b});
          const double lim = tr.step("Decoding: the intensity tends to", kDecodeIntensityLimit,
                                     {in.num("G_decode"), b});
          a["decode_compute_bound"] = lim > i_hw ? 1 : 0;
          tr.note(lim > i_hw ? "Above $I_{hw}$: decoding can be compute-bound."
                             : "Far below $I_{hw}$ at any context: decoding is memory-bound.");
          a.book("min_T_prefill_large_G", attention_min_T_large_G(round_sig(i_hw, 2), b),
                 "rounds I_hw to 240");
          a.slip("min_T_prefill_MHA", attention_min_T_large_G(i_hw, b),
                 "That is the large-G limit; with G = 1 the intensity is T/2, so T must be twice "
                 "as large.");
          return a;
        },
};

constexpr Param kQ4cGiven[] = {
    chip_spec(figure("peak_flops_per_s", "flop_per_s", 1.97e14,
                     "bf16 peak of the chip (the book: TPU v5e)"),
              "peak_flops_bf16"),
    chip_spec(figure("hbm_bw", "B_per_s", 8.2e11, "HBM bandwidth of the chip"), "hbm_bw"),
    dim("D", 8192, "model width (F = 4D, N H = D, MHA) for the comparison"),
};
constexpr Problem kQ4c{
    .id = "transformers.Q4.c",
    .title = "Plot attention vs FFW cost",
    .statement =
        "On a TPU with {peak_flops_per_s} in bf16 and HBM at {hbm_bw}, sketch how the time of "
        "the attention core compares with the time of the MLP as the context grows, for "
        "prefill and for decoding.",
    .kind = "conceptual",
    .given = kQ4cGiven,
    .slots = {},
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double D = in.num("D");
          const Config c = dense(1, D, 4 * D, 1, 1, D);  // N H = D: one head is enough here
          tr.step("Critical intensity", roofline::kCriticalIntensity,
                  {in.num("peak_flops_per_s"), in.num("hbm_bw")});
          for (double T : {1024.0, 8192.0, 65536.0})
            tr.step("Attention core over the other matmuls at $T = " + units::number(T) + "$",
                    kAttentionRatioBook, {T, c.D});
          return Answers{};
        },
    .model_answer =
        "In prefill both are compute-bound once the context is a few hundred tokens (the "
        "attention core's intensity is about T, the MLP's about the batch of tokens), so their "
        "times follow their FLOPs: the core over the MLP grows linearly, as T/8D for the book's "
        "model, reaching 1 near 64k tokens for D = 8192 and staying small below a few thousand. "
        "When decoding, the MLP reads its weights once for the whole batch, while the core "
        "reads each sequence's whole KV cache at an intensity near G, far below the chip's "
        "240: its time grows linearly with the context and the batch and soon dominates. The "
        "context explorer on this page draws the prefill curve for any model and chip.",
};

// ---- Q5: attention core against the projections
// --------------------------------------------------

constexpr double kQ5D[] = {2048, 4096, 8192};
constexpr double kQ5N[] = {16, 32, 64};
constexpr double kQ5K[] = {8, 16, 32};
constexpr Param kQ5Given[] = {
    dim("D", 4096, "model width", kQ5D),
    dim("N", 32, "query heads (N H = D)", kQ5N),
    dim("K", 32, "KV heads (K = N: MHA)", kQ5K),
};
constexpr Slot kQ5Slots[] = {number("crossover_T", "tokens", "sequence length T")};
constexpr Problem kQ5{
    .id = "transformers.Q5",
    .title = "Attention equals QKVO projection FLOPs",
    .statement =
        "A layer of width D = {D} has N = {N} query heads of dimension D/N and K = {K} KV heads. "
        "At what sequence length do the attention core's FLOPs equal those of the Q, K, V and O "
        "projections?",
    .kind = "numeric",
    .given = kQ5Given,
    .slots = kQ5Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double D = in.num("D"), N = in.num("N"), K = in.num("K");
          const Config c = dense(1, D, 4 * D, N, K, 0);  // K must divide N, N divide D
          const double H = c.H;
          const double attn =
              tr.step("Q, K, V, O projections per layer", kAttentionParams, {D, N, K, H});
          tr.step("Their training FLOPs per token", kMatmulFlopsPerToken, {attn});
          tr.note(
              "The attention core does $12 T N H$ training FLOPs per token against its $T$ keys; "
              "$12 T N H = 12 D (N + K) H$ at one $T$.");
          Answers a;
          a["crossover_T"] = tr.step("Equal when", kCrossoverProjections, {D, N, K});
          a.slip("crossover_T", attention_crossover_book(D),
                 "8D is where the core matches the projections and the MLP together; the "
                 "projections alone are matched sooner.");
          return a;
        },
};

// ---- Q6: recompute cost of saving the big matmul outputs ----------------------------------------

constexpr double kQ6B[] = {1, 2, 8};
constexpr double kQ6T[] = {2048, 4096, 8192, 32768};
constexpr double kQ6N[] = {32, 64, 128};
constexpr Param kQ6Given[] = {
    count("B", 1, "sequences", kQ6B, 1, 1e7),
    token_count("T", 8192, "sequence length", kQ6T),
    dim("N", 64, "query heads", kQ6N),
    dim("H", 128, "head dimension"),
};
constexpr Slot::Var kQ6Vars[] = {{"B", "batch", 1, 64},
                                 {"T", "sequence length", 1, 1e5},
                                 {"N", "query heads", 1, 128},
                                 {"H", "head dimension", 1, 256}};
constexpr Slot kQ6Slots[] = {
    number("recompute_flops_test_point", "flop", "recomputed FLOPs per layer"),
    number("fraction_of_attention_train_flops", "ratio", "share of the core's training FLOPs"),
    formula(
        "recompute_flops", "flop", "recomputed FLOPs as a formula in B, T, N, H", kQ6Vars,
        [](const Vars& v) {
          return big_matmuls_recompute_flops(v.at("B"), v.at("T"), v.at("N"), v.at("H"));
        },
        "4 B T^2 N H"),
};
constexpr Problem kQ6{
    .id = "transformers.Q6",
    .title = "Recompute cost saving only matmul outputs",
    .statement =
        "A remat policy saves only the outputs of the seven big matmuls (Q, K, V, O, W_in1, "
        "W_in2, W_out). What must the backward pass recompute per layer, and how many FLOPs is "
        "that, as a formula and for B = {B} {B|sequence|sequences} of T = {T}, with N = {N} "
        "heads of dimension H = {H}? What share of the attention core's training FLOPs is it?",
    .kind = "formula",
    .given = kQ6Given,
    .slots = kQ6Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double B = in.num("B"), T = in.num("T"), N = in.num("N"), H = in.num("H");
          tr.note(
              "The gradient of $W_O$ needs $\\mathrm{softmax}(QK^T) V$; the elementwise parts cost "
              "only $O(BTD) + O(BTF)$. So $QK^T$ and the product with $V$ are redone.");
          Answers a;
          const double r =
              tr.step("$QK^T$ and $PV$ again, $2 B T^2 N H$ each", kRecompute, {B, T, N, H});
          a["recompute_flops_test_point"] = r;
          const double core =
              tr.step("The attention core's training FLOPs", kCoreTrain, {B, T, T, N, H, H});
          a["fraction_of_attention_train_flops"] =
              tr.step("Against the core's training FLOPs", kRecomputeShare, {r, core});
          a.slip("recompute_flops_test_point", r / 2,
                 "Both products are redone: QK^T and the product of the probabilities with V, "
                 "2 B T^2 N H each.");
          a.slip("recompute_flops_test_point", core,
                 "Only the forward core is redone (4 B T^2 N H); its backward pass is paid in "
                 "any case.");
          return a;
        },
};

// ---- Q7: DeepSeek v3's utilisation ------------------------------------------------------------

constexpr double kQ7Hours[] = {2e6, 2.79e6, 3.5e6};
constexpr double kQ7Tokens[] = {1e13, 1.48e13, 2e13};
constexpr double kQ7Params[] = {2.2e10, 3.7e10, 5e10};
constexpr Param kQ7Given[] = {
    figure("gpu_hours", "count", 2.79e6, "H800 GPU-hours of pre-training", kQ7Hours, 1, 1e12),
    figure("peak_dense", "flop_per_s", 1.513e15, "FP8 peak of one H800, dense"),
    figure("peak_sparse", "flop_per_s", 3.026e15, "FP8 peak with structured sparsity"),
    token_count("tokens", 1.48e13, "training tokens", kQ7Tokens, 1e16),
    figure("active_params", "count", 3.7e10, "active parameters per token", kQ7Params, 1, 1e15),
};
constexpr Slot kQ7Slots[] = {
    number("available_flops", "flop", "FLOPs the GPUs could have done"),
    number("used_flops", "flop", "FLOPs the training needed"),
    derived(number("mfu", "ratio", "model FLOPs utilisation"), From::Flops),
};
constexpr Problem kQ7{
    .id = "transformers.Q7",
    .title = "DeepSeek v3 hardware utilisation",
    .statement =
        "DeepSeek v3 was pre-trained for {gpu_hours} H800 GPU-hours on {tokens} in FP8, with "
        "{active_params} active parameters per token. An H800 is quoted at {peak_sparse} in "
        "FP8 with structured sparsity, and does {peak_dense} dense. How many FLOPs could the "
        "GPUs have done, how many did training need, and what was the model FLOPs "
        "utilisation?",
    .kind = "numeric",
    .given = kQ7Given,
    .slots = kQ7Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double h = in.num("gpu_hours"), pd = in.num("peak_dense");
          const double ps = in.num("peak_sparse"), t = in.num("tokens");
          const double P = in.num("active_params");
          Answers a;
          const double avail =
              tr.step("Available: GPU-hours x 3600 x the dense peak", kAvailableFlops, {h, pd});
          const double used =
              tr.step("Needed: 6 FLOPs per active parameter per token", kSixPTokens, {P, t});
          a["available_flops"] = avail;
          a["used_flops"] = used;
          a["mfu"] = tr.step("Utilisation", kMfu, {used, avail});
          const char* sparse =
              "The sparse figure counts structured sparsity, which dense "
              "training cannot use: take the dense peak, half of it.";
          a.slip("available_flops", available_flops(h, ps), sparse);
          a.slip("mfu", mfu(used, available_flops(h, ps)), sparse);
          const char* fwd =
              "Training is 6 FLOPs per parameter per token (forward 2, backward "
              "4), not 2.";
          a.slip("used_flops", six_p_tokens(P, t, flops_per_param_token(Pass::Forward)), fwd);
          a.slip("mfu", mfu(six_p_tokens(P, t, flops_per_param_token(Pass::Forward)), avail), fwd);
          return a;
        },
};

// ---- Q8: the MoE compute-bound batch (held out) -------------------------------------------------

constexpr double kQ8E[] = {64, 128, 256};
constexpr double kQ8k[] = {2, 4, 8};
constexpr Param kQ8aGiven[] = {
    chip_spec(figure("peak_flops_per_s", "flop_per_s", 1.97e14,
                     "bf16 peak of the chip (the book: TPU v5e)"),
              "peak_flops_bf16"),
    chip_spec(figure("hbm_bw", "B_per_s", 8.2e11, "HBM bandwidth of the chip"), "hbm_bw"),
    elem_bytes("weight_bytes", 1, "bytes per weight (int8)"),
};
constexpr Slot::Var kQ8Vars[] = {{"E", "experts", 1, 512},
                                 {"k", "experts per token", 1, 16},
                                 {"C", "peak FLOPs/s", 1e13, 1e16},
                                 {"W", "HBM bytes/s", 1e11, 1e13}};
constexpr Slot kQ8aSlots[] = {
    number("kB_over_E_threshold", "tokens", "k B / E must exceed"),
    formula(
        "min_batch", "tokens", "the smallest batch B as a formula in E, k, C, W", kQ8Vars,
        [](const Vars& v) { return moe_min_batch(v.at("C") / v.at("W"), v.at("E"), v.at("k"), 1); },
        "\\frac{E C}{2 k W}"),
};

// What both Q8 parts share: I_hw and the threshold on k B / E.
double q8_threshold(const Inputs& in, Trace& tr, double& i_hw) {
  const double peak = in.num("peak_flops_per_s"), bw = in.num("hbm_bw");
  const double bw_w = in.num("weight_bytes");
  i_hw = tr.step("Critical intensity", roofline::kCriticalIntensity, {peak, bw});
  tr.note(
      "A large batch touches every expert: the layer loads all $E$ experts' weights, "
      "$b_w E D F$ bytes per matrix, and does $2 k B D F$ FLOPs per matrix. Intensity "
      "$2 k B / (E b_w)$.");
  return tr.step("Compute-bound once $k B / E$ exceeds", kMoeThreshold, {i_hw, bw_w});
}

constexpr Problem kQ8a{
    .id = "transformers.Q8.a",
    .title = "MoE compute-bound batch, general form",
    .statement =
        "An MoE layer with E experts sends each token to k of them. Its weights are int8 "
        "({weight_bytes} each) and it computes in bf16 on a TPU ({peak_flops_per_s}, HBM at "
        "{hbm_bw}). How large must k B / E be, for a batch of B tokens, before the expert "
        "matmuls are compute-bound, and what is the smallest B as a formula?",
    .kind = "formula",
    .given = kQ8aGiven,
    .slots = kQ8aSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double i_hw = 0;
          Answers a;
          a["kB_over_E_threshold"] = q8_threshold(in, tr, i_hw);
          const double bw_w = in.num("weight_bytes");
          a.book("kB_over_E_threshold", moe_kb_over_e_threshold(round_sig(i_hw, 2), bw_w),
                 "rounds I_hw to 240");
          a.slip("kB_over_E_threshold", moe_kb_over_e_threshold(i_hw, 2 * bw_w),
                 "That is what bf16 weights (2 bytes) would need, or FLOPs counted without the 2 "
                 "of a multiply-add: int8 weights are 1 byte and each weight does 2 FLOPs per "
                 "token.");
          return a;
        },
};

constexpr Param kQ8bGiven[] = {
    chip_spec(figure("peak_flops_per_s", "flop_per_s", 1.97e14,
                     "bf16 peak of the chip (the book: TPU v5e)"),
              "peak_flops_bf16"),
    chip_spec(figure("hbm_bw", "B_per_s", 8.2e11, "HBM bandwidth of the chip"), "hbm_bw"),
    elem_bytes("weight_bytes", 1, "bytes per weight (int8)"),
    dim("E", 256, "routed experts", kQ8E),
    dim("k", 8, "experts per token", kQ8k),
};
constexpr Slot kQ8bSlots[] = {number("b_crit", "tokens", "smallest compute-bound batch")};
constexpr Problem kQ8b{
    .id = "transformers.Q8.b",
    .title = "DeepSeek MoE compute-bound batch",
    .statement =
        "DeepSeek v3 has E = {E} routed experts and sends each token to k = {k}. With int8 "
        "weights ({weight_bytes} each) in bf16 on a TPU ({peak_flops_per_s}, HBM at "
        "{hbm_bw}), what is the smallest batch in tokens for which its expert matmuls are "
        "compute-bound?",
    .kind = "numeric",
    .given = kQ8bGiven,
    .slots = kQ8bSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double i_hw = 0;
          const double thr = q8_threshold(in, tr, i_hw);
          const double E = in.num("E"), k = in.num("k"), bw_w = in.num("weight_bytes");
          if (k > E) fail("k", "k (experts per token) cannot exceed E (experts)", "out_of_range");
          Answers a;
          a["b_crit"] = tr.step("So $B$ must exceed", kMoeMinBatch, {i_hw, E, k, bw_w});
          a.book("b_crit", moe_min_batch(round_sig(i_hw, 2), E, k, bw_w), "rounds I_hw to 240");
          a.slip("b_crit", thr,
                 "That is the threshold on k B / E; B itself is E / k times "
                 "larger.");
          a.slip("b_crit", moe_min_batch(i_hw, E, k, 2 * bw_w),
                 "That is what bf16 weights would need; int8 weights are 1 byte.");
          return a;
        },
};

constexpr Problem kQuestionsProblems[] = {kQ4a, kQ4b, kQ4c, kQ5, kQ6, kQ7, kQ8a, kQ8b};

}  // namespace

void add_problems_questions(Registry& r) { r.add(kQuestionsProblems); }

}  // namespace sb::transformers
