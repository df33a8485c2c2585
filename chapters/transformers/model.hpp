// Part 4, "All the Transformer Math You Need to Know": what a transformer holds and costs.
// Parameter counts per component (MHA/GQA/MQA attention, MLA, gated and plain MLPs, MoE,
// embeddings, norms, biases), FLOPs per matmul, layer and model, where attention starts to
// dominate, KV-cache bytes, saved activations under each rematerialisation policy, and the
// parameter, gradient and optimizer memory. Every quantity is a double in SI base units
// (parameters and elements as counts, FLOPs, bytes, seconds). Section labels (A.1 ...) refer to the
// chapter notes shared/book/transformers-appliedtraining.md, which follow the book's sections.
//
// Names follow the book: L layers, D model width, F MLP width, N query heads, K KV heads, H head
// dim, V vocabulary, B batch, T query length, S key/value length, E experts, k experts per token.
//
// Each formula is a record (core/formula.hpp) right under its function: the derivations are
// rendered from the records, and tests/core/formula_records_test.cpp checks each record's
// expression against its function at random points of the symbols' ranges. A.1-A.6 are here; the
// attention intensity, MoE, activations, KV cache, training memory and utilisation (A.7-A.12) are
// in model_memory.hpp, included at the end.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/formula.hpp"

namespace sb::transformers {

// The chapter's symbols: their units and the ranges the record test draws them from (wide enough
// for any model of the table; sizes are log-uniform, counts that may be zero uniform).
inline constexpr Symbol kSymbols[] = {
    sym("L", "count", 1, 1000, "layers"),
    sym("D", "count", 1, 1e5, "model width d_model"),
    sym("F", "count", 1, 1e6, "MLP width of a dense layer"),
    sym("F_e", "count", 1, 1e5, "width of one expert"),
    sym("F_tok", "count", 1, 1e6, "MLP width one token uses (k + shared experts in an MoE layer)"),
    sym("N", "count", 1, 1e5, "query heads; in a matmul A[N, P] B[P, M], the rows of A"),
    sym("K", "count", 1, 1e4, "KV heads"),
    sym("H", "count", 1, 1e3, "head dimension"),
    sym("H_qk", "count", 1, 1e3, "head dimension of queries and keys (MLA: nope + rope)"),
    sym("H_v", "count", 1, 1e3, "head dimension of values"),
    sym("V", "count", 1, 1e6, "vocabulary"),
    sym("G", "ratio", 1, 128, "query heads per KV head, N / K"),
    sym("P", "params", 1, 1e13,
        "parameters (of a model, a layer or a component); in a matmul A[N, P] B[P, M], the "
        "contracted dimension"),
    sym("M", "count", 1, 1e6, "in a matmul A[N, P] B[P, M], the columns of B"),
    sym("n_norm", "count", 0, 8, "D-sized norm vectors per layer"),
    sym("P_attn", "params", 1, 1e11, "attention weights of a layer (of the model, where said)"),
    sym("P_mlp", "params", 1, 1e12, "MLP weights of a layer"),
    sym("E", "count", 1, 1e3, "routed experts per MoE layer"),
    sym("k", "count", 1, 64, "experts a token is routed to"),
    with_tex(sym("n_s", "count", 0, 8, "shared experts every token uses"), "E_{shared}"),
    sym("r_q", "count", 1, 1e4, "MLA: rank of the query bottleneck (q_lora_rank)"),
    with_tex(sym("r_kv", "count", 1, 1e4, "MLA: rank of the key-value latent (kv_lora_rank)"),
             "r_{kv}"),
    sym("h_n", "count", 1, 1e3, "MLA: query/key head dim without RoPE (qk_nope_head_dim)"),
    sym("h_r", "count", 1, 1e3, "MLA: the shared RoPE key's dim (qk_rope_head_dim)"),
    sym("h_v", "count", 1, 1e3, "MLA: value head dim (v_head_dim)"),
    sym("B", "count", 1, 1e6, "batch: sequences (tokens in A.8's MoE batch)"),
    sym("T", "tokens", 1, 1e7, "query length; the context of a token"),
    sym("S", "tokens", 1, 1e7, "key/value length"),
    with_tex(sym("BT", "tokens", 1, 1e10, "tokens per batch, B T"), "(BT)"),
    with_tex(sym("tokens", "tokens", 1, 1e16, "tokens trained on"), "\\mathrm{tokens}"),
    sym("b", "B", 0.125, 8, "bytes per element"),
    sym("b_p", "B", 0.125, 8, "bytes per parameter"),
    sym("b_g", "B", 0.125, 8, "bytes per gradient"),
    with_tex(sym("b_opt", "B", 0.125, 64, "optimizer bytes per parameter (Adam in fp32: 8)"),
             "b_{\\mathrm{opt}}"),
    sym("b_w", "B", 0.125, 8, "bytes per weight"),
    sym("c", "count", 0.01, 100, "[B, T, D]-sized arrays saved per layer"),
    sym("e", "count", 1, 1e7, "elements saved per token per layer"),
    sym("n_mats", "count", 2, 3, "matrices of the MLP (3 gated, 2 plain)"),
    sym("L_w", "count", 0, 1000, "layers attending within a sliding window"),
    sym("w", "tokens", 1, 1e6, "the sliding window"),
    sym("M_kv", "B", 1, 1e7, "KV-cache bytes one token adds"),
    with_tex(sym("M_seq", "B", 1, 1e13, "KV-cache bytes of one sequence"), "M_{\\mathrm{seq}}"),
    sym("bytes", "B", 1, 1e16, "bytes to hold"),
    sym("HBM", "B", 1e9, 1e12, "HBM of one chip"),
    sym("n_chips", "chips", 1, 1e6, "chips"),
    sym("M_params", "B", 1, 1e9, "bytes of the weights"),
    sym("I_hw", "flop_per_B", 1, 1e4, "critical intensity of the chip"),
    sym("FLOPs", "flop", 1, 1e26, "FLOPs"),
    sym("FLOPs_core", "flop", 1, 1e20, "attention-core training FLOPs per token"),
    sym("FLOPs_rest", "flop", 1, 1e20, "training FLOPs per token of every other matmul"),
    sym("FLOPs_fwd", "flop", 1, 1e20, "forward FLOPs"),
    sym("FLOPs_train", "flop", 1, 1e20, "training FLOPs"),
    sym("FLOPs_re", "flop", 1, 1e20, "FLOPs recomputed in the backward pass"),
    sym("FLOPs_avail", "flop", 1, 1e30, "FLOPs the chips could have done"),
    sym("FLOPs_used", "flop", 1, 1e30, "FLOPs the training needed"),
    sym("h", "count", 1, 1e9, "accelerator-hours"),
    sym("C", "flop_per_s", 1e9, 1e17, "peak FLOPs/s of one chip"),
    sym("X", "count", 1, 1e4, "devices along mesh axis X"),
    sym("Y", "count", 1, 1e4, "devices along mesh axis Y"),
    sym("Z", "count", 1, 1e4, "devices along mesh axis Z"),
    sym("s", "ratio", 1e-8, 1, "the share of a matmul's FLOPs one device does"),
    with_tex(sym("W_ici", "B_per_s", 1e9, 1e13, "ICI bandwidth of the axis"), "W_{\\mathrm{ici}}"),
    sym("V_b", "B", 1, 1e12, "bytes of the array"),
};

// ------------------------------------------------------------------ the model's configuration

// Multi-head latent attention as DeepSeek-V2/V3 use it (config.json names). Queries go through a
// low-rank bottleneck (q_lora_rank; 0 = a plain [D, N (nope + rope)] projection); keys and values
// come from one shared latent of kv_lora_rank plus one shared RoPE key of qk_rope_head_dim.
struct Mla {
  double q_lora_rank = 0;
  double kv_lora_rank = 0;
  double qk_nope_head_dim = 0;
  double qk_rope_head_dim = 0;
  double v_head_dim = 0;
};

// A decoder-only transformer. The book's plain model is the default: gated MLP, untied
// embeddings, two norms per layer, no biases, no final norm (the book ignores it). Published
// models switch on what they have; data/models.json states each choice with its source.
struct Config {
  double L = 0, D = 0, F = 0, N = 0, K = 0;
  double H = 0;       // head dim; 0 means D / N (then N must divide D)
  double V = 0;       // vocabulary; 0 for a model with no embedding (the book's layer examples)
  bool gated = true;  // 3 matrices W_in1, W_in2, W_out (3DF) or 2 (2DF)   (A.3)
  bool tied = false;  // one [V, D] matrix for the embedding and the unembedding (A.3)
  double norms_per_layer = 2;  // D-sized norm vectors per layer: 0, 1, 2 (book), 4 (Gemma 2)
  bool final_norm = false;     // one D-sized norm before the unembedding (the book drops it)
  bool qk_norm = false;        // H-sized norms on queries and keys per layer (Qwen3)
  bool qkv_bias = false;       // biases on Q, K, V: (N + 2K) H per layer (Qwen2.5, gpt-oss)
  bool o_bias = false;         // bias on the output projection: D per layer (gpt-oss)
  bool mlp_bias = false;       // biases in every MLP/expert: (mats - 1) F + D (gpt-oss)
  bool attn_sinks = false;     // one learned sink logit per query head: N per layer (gpt-oss)
  // Mixture of experts. E = 0: every layer is dense with width F.
  double E = 0;              // routed experts per MoE layer
  double k = 0;              // routed experts per token
  double n_shared = 0;       // shared experts every token uses
  double F_e = 0;            // width of one expert (moe_intermediate_size); 0 means F
  double n_dense = 0;        // first layers that stay dense with width F (DeepSeek: 3)
  bool router_bias = false;  // E biases per MoE layer besides the D x E router
  // Attention variant.
  bool mla = false;
  Mla m;
  // Sliding-window layers keep only the last `window` tokens in their KV cache.
  double window = 0;
  double window_layers = 0;  // how many of the L layers use the window
  // Multi-token-prediction modules trained beside the model (DeepSeek-V3: 1); not part of it.
  double mtp_layers = 0;
};

// Checks a configuration; InputError naming the field for zero or fractional layers, widths or
// heads, K not dividing N, N not dividing D when H is derived, k > E, and so on. Returns the
// configuration with H filled in.
Config validated(Config c);

// Head dims of the attention core: queries and keys (H_qk), values (H_v). H for plain attention;
// qk_nope + qk_rope and v_head_dim for MLA.
double head_dim_qk(const Config& c);
double head_dim_v(const Config& c);

// ------------------------------------------------------------------ A.3 parameter counts

// A.3: gated MLP W_in1[D,F], W_in2[D,F], W_out[F,D] = 3DF; ungated 2DF.
double mlp_params(double D, double F, bool gated);
inline constexpr Formula kMlpGated =
    record("P_mlp", "3 * D * F", "params", "A.3", "D F", kSymbols,
           [](const double* x) { return mlp_params(x[0], x[1], true); });
inline constexpr Formula kMlpPlain =
    record("P_mlp", "2 * D * F", "params", "A.3", "D F", kSymbols,
           [](const double* x) { return mlp_params(x[0], x[1], false); });
// A.3: W_Q[D,N,H], W_K[D,K,H], W_V[D,K,H], W_O[N,H,D] = 2D(N+K)H (4DNH for MHA).
double attention_params(double D, double N, double K, double H);
inline constexpr Formula kAttentionParams =
    record("P_attn", "2 * D * (N + K) * H", "params", "A.3", "D N K H", kSymbols,
           [](const double* x) { return attention_params(x[0], x[1], x[2], x[3]); });
// A.3: norm vectors of size D (the book: 2D per layer, two layernorms).
double norm_params(double D, double count);
inline constexpr Formula kNormParams =
    record("P_norm", "n_norm * D", "params", "A.3", "D n_norm", kSymbols,
           [](const double* x) { return norm_params(x[0], x[1]); });
// A.3: the unembedding DV, plus the input embedding DV when untied (2DV, the LLaMA tables).
double vocab_params(double D, double V, bool tied);
inline constexpr Formula kVocabUntied =
    record("P_vocab", "2 * D * V", "params", "A.3", "D V", kSymbols,
           [](const double* x) { return vocab_params(x[0], x[1], false); });
inline constexpr Formula kVocabTied =
    record("P_vocab", "D * V", "params", "A.3", "D V", kSymbols,
           [](const double* x) { return vocab_params(x[0], x[1], true); });
// A.3: the book's total L (3DF + 2D(N+K)H + norms D) + 2DV, for a plain dense model.
double book_params(double L, double D, double F, double N, double K, double H, double V,
                   double norms_per_layer = 2);
inline constexpr Formula kBookParams = record(
    "P", "L * (3 * D * F + 2 * D * (N + K) * H + n_norm * D) + 2 * D * V", "params", "A.3",
    "L D F N K H V n_norm", kSymbols,
    [](const double* x) { return book_params(x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]); });
// A.3 (DeepSeek's MLA, from its config): q_a [D, q_lora] + q_b [q_lora, N (nope + rope)] (or one
// [D, N (nope + rope)]), kv_a [D, kv_lora + rope], kv_b [kv_lora, N (nope + v)], o [N v, D].
// Weights only; its two internal norms (q_lora + kv_lora) are counted with the norms.
double mla_params(double D, double N, const Mla& m);
inline constexpr Formula kMlaParams = record(
    "P_attn",
    "D * r_q + r_q * N * (h_n + h_r) + D * (r_kv + h_r) + r_kv * N * (h_n + h_v) + N * h_v * D",
    "params", "beyond the book: DeepSeek-V3's config.json (multi-head latent attention)",
    "D N r_q r_kv h_n h_r h_v", kSymbols, [](const double* x) {
      return mla_params(x[0], x[1], Mla{x[2], x[3], x[4], x[5], x[6]});
    });
inline constexpr Formula kMlaParamsNoQRank = record(
    "P_attn", "D * N * (h_n + h_r) + D * (r_kv + h_r) + r_kv * N * (h_n + h_v) + N * h_v * D",
    "params", "beyond the book: DeepSeek-V2-Lite's config.json (MLA, no query bottleneck)",
    "D N r_kv h_n h_r h_v", kSymbols, [](const double* x) {
      return mla_params(x[0], x[1], Mla{0, x[2], x[3], x[4], x[5]});
    });
// A.3 MoE: router D x E per MoE layer (the book leaves it out; an optional term).
double router_params(double D, double E);
inline constexpr Formula kRouterParams =
    record("P_router", "D * E", "params", "A.3 (MoE)", "D E", kSymbols,
           [](const double* x) { return router_params(x[0], x[1]); });
// A.3 MoE: `experts` MLPs of width F_e, E + n_shared stored and k + n_shared used by one token:
// (E + n_shared) 3 D F_e (2 D F_e each, ungated).
double moe_mlp_params(double experts, double n_shared, double D, double F_e, bool gated);
inline constexpr Formula kExpertsGated =
    record("P_experts", "(E + n_s) * 3 * D * F_e", "params", "A.3 (MoE)", "E n_s D F_e", kSymbols,
           [](const double* x) { return moe_mlp_params(x[0], x[1], x[2], x[3], true); });
inline constexpr Formula kExpertsPlain =
    record("P_experts", "(E + n_s) * 2 * D * F_e", "params", "A.3 (MoE)", "E n_s D F_e", kSymbols,
           [](const double* x) { return moe_mlp_params(x[0], x[1], x[2], x[3], false); });
inline constexpr Formula kActiveExpertsGated =
    record("P_experts", "(k + n_s) * 3 * D * F_e", "params", "A.3 (MoE)", "k n_s D F_e", kSymbols,
           [](const double* x) { return moe_mlp_params(x[0], x[1], x[2], x[3], true); });
inline constexpr Formula kActiveExpertsPlain =
    record("P_experts", "(k + n_s) * 2 * D * F_e", "params", "A.3 (MoE)", "k n_s D F_e", kSymbols,
           [](const double* x) { return moe_mlp_params(x[0], x[1], x[2], x[3], false); });
// A.3 (Q1.b): attention's share of a layer's matmul weights, P_attn / (P_attn + P_mlp) ...
double attention_share_of_layer(double attn, double mlp);
inline constexpr Formula kAttentionShareOfLayer = record(
    "f_attn", "P_attn / (P_attn + P_mlp)", "ratio", "A.3 (transformers Q1.b)", "P_attn P_mlp",
    kSymbols, [](const double* x) { return attention_share_of_layer(x[0], x[1]); });
// ... and of the whole model's parameters, L P_attn / P.
double attention_share_of_model(double L, double attn, double P);
inline constexpr Formula kAttentionShareOfModel =
    record("f_attn", "L * P_attn / P", "ratio", "A.3 (transformers Q1.b)", "L P_attn P", kSymbols,
           [](const double* x) { return attention_share_of_model(x[0], x[1], x[2]); });

// Per-layer and per-model counts by component. Weights of the matmuls (what FLOPs count) are
// separated from biases and norms (which cost O(BTD)).
struct LayerParams {
  double attn = 0;        // attention projection weights (QKVO or MLA)
  double attn_extra = 0;  // attention biases, sinks, QK norms
  double mlp = 0;         // MLP weights: every routed expert, the shared ones, or the dense MLP
  double mlp_active = 0;  // MLP weights one token uses: k routed + shared, or the dense MLP
  double mlp_bias = 0;    // biases of all experts (or of the dense MLP)
  double mlp_bias_active = 0;
  double router = 0;       // D x E
  double router_bias = 0;  // E
  double norms = 0;        // norm vectors (MLA's two internal norms included)
  double total() const { return attn + attn_extra + mlp + mlp_bias + router + router_bias + norms; }
  double active() const {
    return attn + attn_extra + mlp_active + mlp_bias_active + router + router_bias + norms;
  }
  double matmul() const { return attn + mlp + router; }                // weights in matmuls
  double matmul_active() const { return attn + mlp_active + router; }  // ... one token uses
};
// A.3: one dense layer (width F) and one MoE layer of the configuration.
LayerParams dense_layer_params(const Config& c);
LayerParams moe_layer_params(const Config& c);
// Dense layers: all L when E = 0, else the first n_dense.
double dense_layers(const Config& c);
double moe_layers(const Config& c);
// The MLP width one token's matmuls use, averaged over the layers: F in a dense layer,
// (k + n_shared) F_e in an MoE layer. The stack's MLP does 2 mats D L times it in FLOPs per token.
double mlp_width_per_token(const Config& c);

struct Params {
  double attn = 0, attn_extra = 0;  // summed over layers
  double mlp = 0, mlp_active = 0;   // weights (MoE: all experts / the k + shared used)
  double mlp_bias = 0, mlp_bias_active = 0;
  double router = 0, router_bias = 0;
  double norms = 0;                      // per layer, MLA-internal and the final norm
  double embed = 0;                      // input embedding VD (0 when tied)
  double unembed = 0;                    // output matrix DV
  double total = 0;                      // everything the model stores
  double active = 0;                     // what one token uses (embedding row counted as in total)
  double matmul = 0, matmul_active = 0;  // weights in matmuls, unembedding included
  double mtp = 0;  // multi-token-prediction modules, reported apart (not in total)
};
// A.3: the whole model by component; total vs active (A.3 MoE: "active per token").
Params params(const Config& c);
// DeepSeek-V3's MTP module: one MoE layer, a [2D, D] projection and three D-sized norms; it shares
// the embedding and output head with the model (A.3 note; the checkpoint stores copies of those).
double mtp_params(const Config& c);

// ------------------------------------------------------------------ A.1, A.2 FLOPs of matmuls

// A.1: the labels of an einsum's operands: batching (on both inputs and the output), contracting
// (on both inputs, not the output), free (on one input). One character per label.
struct Einsum {
  std::vector<char> batching, contracting, free;
  double flops = 0;  // 2 x product of every distinct label's size (no factor 2 without contraction)
};
// A.1: einsum_flops("IJKL", "IJMNO", "KLMNO", sizes by label). InputError naming `field` for a
// label without a size, a size below 1, or an output label on neither input.
Einsum einsum_flops(std::string_view lhs, std::string_view rhs, std::string_view out,
                    const std::vector<std::pair<char, double>>& sizes,
                    std::string_view field = "einsum");

// A.2: the passes of a weight matmul C = A[N,P] . W[P,M].
enum class Pass { Forward, Backward, Train };
// A.2: FLOPs per weight per token: forward 2, backward 4 (weight and input gradients), train 6.
double flops_per_param_token(Pass p);
// A.2: forward 2NPM (roofline A.3), backward 4NPM, training 6NPM.
double matmul_flops(double N, double P, double M, Pass p);
inline constexpr Formula kMatmulForward =
    record("FLOPs_fwd", "2 * N * P * M", "flop", "A.2", "N P M", kSymbols,
           [](const double* x) { return matmul_flops(x[0], x[1], x[2], Pass::Forward); });
inline constexpr Formula kMatmulBackward =
    record("FLOPs_bwd", "4 * N * P * M", "flop", "A.2", "N P M", kSymbols,
           [](const double* x) { return matmul_flops(x[0], x[1], x[2], Pass::Backward); });
inline constexpr Formula kMatmulTrain =
    record("FLOPs_train", "6 * N * P * M", "flop", "A.2", "N P M", kSymbols,
           [](const double* x) { return matmul_flops(x[0], x[1], x[2], Pass::Train); });
// A.2 (EX1): training over the forward pass, and the training FLOPs per parameter (P M of them)
// per token (N): 6NPM / (PM N) = 6.
double train_over_forward(double train_flops, double forward_flops);
inline constexpr Formula kTrainOverForward =
    record("r", "FLOPs_train / FLOPs_fwd", "ratio", "A.2", "FLOPs_train FLOPs_fwd", kSymbols,
           [](const double* x) { return train_over_forward(x[0], x[1]); });
double flops_per_param_per_token(double flops, double P, double M, double N);
inline constexpr Formula kFlopsPerParamPerToken =
    record("r", "FLOPs_train / (P * M * N)", "ratio", "A.2", "FLOPs_train P M N", kSymbols,
           [](const double* x) { return flops_per_param_per_token(x[0], x[1], x[2], x[3]); });
// Sharded matmul (Part 3 rules applied to FLOPs): each device multiplies its local blocks, so it
// does the global FLOPs over the shards of the contraction's operands; replicas over unused mesh
// axes repeat that work. Returns FLOPs per device; the total is that times the devices.
double flops_per_device(double global_flops, double shards);
// Q2: the share of a matmul's FLOPs each device does when its operands are split X and Y ways,
// 1 / (XY), and what the X Y Z devices do together, s X Y Z (the Z replicas repeat the work).
double device_share(double X, double Y);
inline constexpr Formula kDeviceShare =
    record("s", "1 / (X * Y)", "ratio", "A.2 (transformers Q2)", "X Y", kSymbols,
           [](const double* x) { return device_share(x[0], x[1]); });
double mesh_share(double share, double X, double Y, double Z);
inline constexpr Formula kMeshShare =
    record("s_all", "s * X * Y * Z", "ratio", "A.2 (transformers Q2)", "s X Y Z", kSymbols,
           [](const double* x) { return mesh_share(x[0], x[1], x[2], x[3]); });

// ------------------------------------------------------------------ A.4, A.5 FLOPs of the model

// A.4: dot-product attention of B sequences, T queries against S keys: QK^T and PV are 2BTSN H
// each forward (N query heads even under GQA); x3 to train. `causal` halves it (a kernel that
// skips the masked half; the book's formulas do not, so the default is no discount).
double attention_core_flops(double B, double T, double S, double N, double H_qk, double H_v, Pass p,
                            bool causal = false);
inline constexpr Formula kCoreTrain =
    record("FLOPs_core", "6 * B * T * S * N * (H_qk + H_v)", "flop", "A.4", "B T S N H_qk H_v",
           kSymbols, [](const double* x) {
             return attention_core_flops(x[0], x[1], x[2], x[3], x[4], x[5], Pass::Train);
           });
// A.5: the attention core's training FLOPs per token at a context of T: each query meets T keys
// in each of the L layers, 6 L T N (H_qk + H_v) (12 T N H L for H_qk = H_v = H); half of it with a
// causal kernel.
double core_flops_per_token(double L, double T, double N, double H_qk, double H_v,
                            bool causal = false);
inline constexpr Formula kCorePerToken =
    record("FLOPs_core", "6 * L * T * N * (H_qk + H_v)", "flop", "A.5", "L T N H_qk H_v", kSymbols,
           [](const double* x) { return core_flops_per_token(x[0], x[1], x[2], x[3], x[4]); });
inline constexpr Formula kCorePerTokenCausal = record(
    "FLOPs_core", "3 * L * T * N * (H_qk + H_v)", "flop", "A.4 (causal kernel)", "L T N H_qk H_v",
    kSymbols,
    [](const double* x) { return core_flops_per_token(x[0], x[1], x[2], x[3], x[4], true); });

// A.4: FLOPs of one layer by component for B sequences of T tokens attending to S keys.
struct LayerFlops {
  double mlp = 0;     // 18BTDF train for the gated dense MLP; MoE: the k + shared experts used
  double qkvo = 0;    // 12BTD(N+K)H train (MLA: its low-rank projections)
  double router = 0;  // 6BTDE train (MoE layers)
  double core = 0;    // 12BTSNH train
  double total() const { return mlp + qkvo + router + core; }
};
LayerFlops dense_layer_flops(const Config& c, double B, double T, double S, Pass p,
                             bool causal = false);
LayerFlops moe_layer_flops(const Config& c, double B, double T, double S, Pass p,
                           bool causal = false);

struct ModelFlops {
  double layers = 0;   // every layer (dense and MoE) without the vocabulary
  double core = 0;     // of which the attention core
  double unembed = 0;  // 6BTDV train
  double embed = 0;    // the input embedding as a matmul (the summary table's 12BTDV); 0 if off
  double total = 0;
};
// A.5: L [18BTDF + 12BTD(N+K)H + 12BT^2NH] + 6BTDV (+ 6BTDV with embed_as_matmul) for
// self-attention (S = T).
ModelFlops model_flops(const Config& c, double B, double T, Pass p, bool causal = false,
                       bool embed_as_matmul = false);
// A.5: training FLOPs per token at context T: 6 P_matmul + 12 T N H L (active weights; the
// unembedding included, the input embedding as the book's 6P rule counts it when embed_as_matmul).
double train_flops_per_token(const Config& c, double T, bool causal = false,
                             bool embed_as_matmul = false);
// A.5 rule of thumb: 6 x params x tokens (MoE: active params). `per_param_token` = 8 under block
// remat (A.9), 2 for inference.
double six_p_tokens(double params, double tokens, double per_param_token = 6);
inline constexpr Formula kSixPTokens =
    record("FLOPs", "6 * P * tokens", "flop", "A.5", "P tokens", kSymbols,
           [](const double* x) { return six_p_tokens(x[0], x[1]); });
// A.5 / A.6: training FLOPs per token of every matmul of the layers but the attention core: 6 x
// the matmul weights a token uses in the layers (the vocabulary left out).
double rest_flops_per_token(const Config& c);
// A.5: per token, 6 FLOPs per matmul weight a token uses (of every matmul, or of those but the
// attention core in the layers).
inline constexpr Formula kMatmulFlopsPerToken =
    record("FLOPs_matmul", "6 * P", "flop", "A.5", "P", kSymbols,
           [](const double* x) { return six_p_tokens(x[0], 1); });
inline constexpr Formula kSixP = record("FLOPs_rest", "6 * P", "flop", "A.5", "P", kSymbols,
                                        [](const double* x) { return six_p_tokens(x[0], 1); });

// A.6: the attention core over the other matmuls, from the two per-token training costs at a
// context T: core_flops_per_token() over 6 x the matmul weights a token uses in the layers (the
// vocabulary left out, B cancelling). For one layer of the book's model, 12BT^2NH / (18BTDF +
// 12BTD(N+K)H); with F = 4D, NH = D, N = K it is T / 8D.
double attention_flops_ratio(double core_per_token, double rest_per_token);
inline constexpr Formula kAttentionRatio =
    record("R", "FLOPs_core / FLOPs_rest", "ratio", "A.6", "FLOPs_core FLOPs_rest", kSymbols,
           [](const double* x) { return attention_flops_ratio(x[0], x[1]); });
double attention_flops_ratio(const Config& c, double T, bool causal = false);
// A.6: the book's model (F = 4D, NH = D, N = K): R = T / 8D.
double attention_flops_ratio_book(double T, double D);
inline constexpr Formula kAttentionRatioBook =
    record("R", "T / (8 * D)", "ratio", "A.6", "T D", kSymbols,
           [](const double* x) { return attention_flops_ratio_book(x[0], x[1]); });
// A.6: the book's rule: attention dominates once T > 8D.
double attention_crossover_book(double D);
inline constexpr Formula kCrossoverBook =
    record("T", "8 * D", "tokens", "A.6", "D", kSymbols,
           [](const double* x) { return attention_crossover_book(x[0]); });
// A.6 (derived): the exact T* where the ratio reaches 1, the other matmuls' FLOPs per token over
// the core's per token of context: FLOPs_rest / (6 L N (H_qk + H_v)) (a causal kernel: twice).
double attention_crossover(double rest_per_token, double L, double N, double H_qk, double H_v,
                           bool causal = false);
inline constexpr Formula kCrossover =
    record("T", "FLOPs_rest / (6 * L * N * (H_qk + H_v))", "tokens", "A.6 (derived)",
           "FLOPs_rest L N H_qk H_v", kSymbols,
           [](const double* x) { return attention_crossover(x[0], x[1], x[2], x[3], x[4]); });
inline constexpr Formula kCrossoverCausal =
    record("T", "FLOPs_rest / (3 * L * N * (H_qk + H_v))", "tokens", "A.6 (derived; causal kernel)",
           "FLOPs_rest L N H_qk H_v", kSymbols,
           [](const double* x) { return attention_crossover(x[0], x[1], x[2], x[3], x[4], true); });
double attention_crossover(const Config& c, bool causal = false);
// A.6 (derived) for one dense layer of the book's plain transformer:
// T* = (18DF + 12DH(N+K)) / (12NH).
double attention_crossover_dense(double D, double F, double N, double K, double H);
inline constexpr Formula kCrossoverDense =
    record("T", "(18 * D * F + 12 * D * (N + K) * H) / (12 * N * H)", "tokens", "A.6 (derived)",
           "D F N K H", kSymbols,
           [](const double* x) { return attention_crossover_dense(x[0], x[1], x[2], x[3], x[4]); });
// transformers Q5: core = QKVO projections, 12BT^2NH = 12BTD(N+K)H: T = D(N+K)/N (2D for MHA).
double attention_vs_projections_crossover(double D, double N, double K);
inline constexpr Formula kCrossoverProjections =
    record("T", "D * (N + K) / N", "tokens", "A.6 (transformers Q5)", "D N K", kSymbols,
           [](const double* x) { return attention_vs_projections_crossover(x[0], x[1], x[2]); });

}  // namespace sb::transformers

#include "chapters/transformers/model_memory.hpp"
