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
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace sb::transformers {

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
// A.3: W_Q[D,N,H], W_K[D,K,H], W_V[D,K,H], W_O[N,H,D] = 2D(N+K)H (4DNH for MHA).
double attention_params(double D, double N, double K, double H);
// A.3: norm vectors of size D (the book: 2D per layer, two layernorms).
double norm_params(double D, double count);
// A.3: the unembedding DV, plus the input embedding DV when untied (2DV, the LLaMA tables).
double vocab_params(double D, double V, bool tied);
// A.3: the book's total L (3DF + 2D(N+K)H + norms D) + 2DV, for a plain dense model.
double book_params(double L, double D, double F, double N, double K, double H, double V,
                   double norms_per_layer = 2);
// A.3 (DeepSeek's MLA, from its config): q_a [D, q_lora] + q_b [q_lora, N (nope + rope)] (or one
// [D, N (nope + rope)]), kv_a [D, kv_lora + rope], kv_b [kv_lora, N (nope + v)], o [N v, D].
// Weights only; its two internal norms (q_lora + kv_lora) are counted with the norms.
double mla_params(double D, double N, const Mla& m);
// A.3 MoE: router D x E per MoE layer (the book leaves it out; an optional term).
double router_params(double D, double E);

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
// Sharded matmul (Part 3 rules applied to FLOPs): each device multiplies its local blocks, so it
// does the global FLOPs over the shards of the contraction's operands; replicas over unused mesh
// axes repeat that work. Returns FLOPs per device; the total is that times the devices.
double flops_per_device(double global_flops, double shards);

// ------------------------------------------------------------------ A.4, A.5 FLOPs of the model

// A.4: dot-product attention of B sequences, T queries against S keys: QK^T and PV are 2BTSN H
// each forward (N query heads even under GQA); x3 to train. `causal` halves it (a kernel that
// skips the masked half; the book's formulas do not, so the default is no discount).
double attention_core_flops(double B, double T, double S, double N, double H_qk, double H_v, Pass p,
                            bool causal = false);

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

// A.6: attention core over the other matmuls of a layer: 12BT^2NH / (18BTDF + 12BTD(N+K)H),
// B cancelling (MoE layers: the active MLP). For the book's F = 4D, NH = D, N = K it is T / 8D.
double attention_flops_ratio(const Config& c, double T);
// A.6: the book's rule: attention dominates once T > 8D.
double attention_crossover_book(double D);
// A.6 (derived): the exact T* = (18DF + 12DH(N+K)) / (12NH) where the ratio reaches 1.
double attention_crossover(const Config& c);
// transformers Q5: core = QKVO projections, 12BT^2NH = 12BTD(N+K)H: T = D(N+K)/N (2D for MHA).
double attention_vs_projections_crossover(double D, double N, double K);

// ------------------------------------------------------------------ A.7 attention intensity

// A.7 / Q4: attention core FLOPs over bytes, with Q and O of B T N H elements and K and V of
// B S K H elements moved once (the T x S scores stay on chip): 2 T S G / (b (T G + S)), G = N/K.
double attention_intensity(double T, double S, double G, double bytes_per_elem = 2);
// Q4: prefill (S = T) reaches a chip's critical intensity I_hw once T > (b/2) I_hw (G + 1) / G.
double attention_min_T_compute_bound(double i_hw, double G, double bytes_per_elem = 2);
// Q4: the large-G limit of that length, (b/2) I_hw (the book's "S = 240" on a v5e).
double attention_min_T_large_G(double i_hw, double bytes_per_elem = 2);
// Q4: decode (T = 1) intensity tends to 2G/b as S grows: below any TPU's I_hw for small G.
double attention_decode_intensity_limit(double G, double bytes_per_elem = 2);

// ------------------------------------------------------------------ A.8 MoE

// A.8 / Q8: an MoE layer's expert matmuls load all E experts' weights (b_w D F each) and do
// 2 k B D F FLOPs per matrix: intensity 2 k B / (E b_w); compute-bound once k B / E > b_w I_hw / 2.
double moe_intensity(double B, double E, double k, double weight_bytes);
// Q8: the threshold on k B / E, b_w I_hw / 2 (D and F cancel) ...
double moe_kb_over_e_threshold(double i_hw, double weight_bytes);
// ... and the batch in tokens, E b_w I_hw / (2 k).
double moe_min_batch(double i_hw, double E, double k, double weight_bytes);
// A.8: AllToAlls an MoE layer adds when data is sharded over the expert axis: dispatch, return.
inline constexpr double kMoeAllToAllsPerLayer = 2;

// ------------------------------------------------------------------ A.9 activations and remat

// A.9: what the backward pass keeps per layer.
enum class Remat {
  SaveAll,     // every intermediate: about 20 [B,T,D]-sized arrays per layer
  BigMatmuls,  // the outputs of Q, K, V, O, W_in1, W_in2, W_out: about 7
  Block,       // each layer's input only: 1; the backward pass replays the forward
};
// A.9: c, the [B,T,D]-sized arrays saved per layer: 20, 7, 1.
double saved_arrays_per_layer(Remat r);
// A.9: training FLOPs per parameter per token: 6, 6 (plus the attention recompute below), 8.
double remat_flops_per_param_token(Remat r);
// A.9: M_act = b c (B T) D L.
double activation_bytes(double tokens, double D, double L, double saved_arrays,
                        double bytes_per_elem = 2);
// A.9 (derived, exact shapes): elements saved per token per layer under BigMatmuls:
// NH + 2KH + D + F (+ F gated) + D (83,968 = 10.25 D for LLaMA 3-70B).
double saved_elems_per_token_layer(const Config& c);
// Q6: recompute under BigMatmuls: QK^T and PV again, 4 B T^2 N H per layer (a third of the
// attention core's 12 B T^2 N H training FLOPs).
double big_matmuls_recompute_flops(double B, double T, double N, double H);

// ------------------------------------------------------------------ A.10 KV cache

// A.10: one sequence's cache [2, S, L, K, H]: 2 S L K H b bytes.
double kv_cache_bytes(double S, double L, double K, double H, double bytes_per_elem);
// A.10 for a configuration: bytes one sequence of S tokens keeps. Sliding-window layers keep
// min(S, window) tokens; MLA keeps kv_lora_rank + qk_rope_head_dim per token per layer.
double kv_bytes_per_sequence(const Config& c, double S, double bytes_per_elem);
// Per token: at a context S above the window the average over the sequence; S = 0 gives the cost
// of one more token at a short context (every layer stores it): 2 L K H b (MLA: L (r + rope) b).
double kv_bytes_per_token(const Config& c, double bytes_per_elem, double S = 0);
// A.10: B sequences: B x one sequence.
double kv_bytes_per_batch(const Config& c, double B, double S, double bytes_per_elem);

// ------------------------------------------------------------------ A.11 training-state memory

// A.11: bf16 parameters, 2 P.
double param_bytes(double P, double bytes_per_param = 2);
// A.11 (optional add-on, off in the book): gradient buffers, b P.
double grad_bytes(double P, double bytes_per_grad = 2);
// A.11: Adam's two fp32 moments, 8 P.
double optimizer_bytes(double P, double bytes_per_param = 8);

// ------------------------------------------------------------------ Q7 utilisation

// Q7: FLOPs a run could have done: accelerator-hours x 3600 x peak FLOPs/s.
double available_flops(double chip_hours, double peak_flops_per_s);
// Q7 / A.12: model FLOPs utilisation, the FLOPs the model needed over what the chips could do.
double mfu(double model_flops, double available);

}  // namespace sb::transformers
