// Part 4, continued (model.hpp includes this file; include that one): the attention core's
// arithmetic intensity (A.7), the MoE batch (A.8), saved activations and rematerialisation (A.9),
// the KV cache (A.10), training-state memory and the chips that hold it (A.11), and utilisation
// (A.12, Q7). Each formula is a record under its function, over model.hpp's kSymbols.
#pragma once
#include "chapters/transformers/model.hpp"

namespace sb::transformers {

// ------------------------------------------------------------------ A.7 attention intensity

// A.7 / Q4: attention core FLOPs over bytes, with Q and O of B T N H elements and K and V of
// B S K H elements moved once (the T x S scores stay on chip): 2 T S G / (b (T G + S)), G = N/K.
double attention_intensity(double T, double S, double G, double bytes_per_elem = 2);
inline constexpr Formula kAttentionIntensity =
    record("I", "2 * T * S * G / (b * (T * G + S))", "flop_per_B", "A.7", "T S G b", kSymbols,
           [](const double* x) { return attention_intensity(x[0], x[1], x[2], x[3]); });
// Q4: prefill (S = T) reaches a chip's critical intensity I_hw once T > (b/2) I_hw (G + 1) / G.
double attention_min_T_compute_bound(double i_hw, double G, double bytes_per_elem = 2);
inline constexpr Formula kMinTPrefill = record(
    "T_min", "b / 2 * I_hw * (G + 1) / G", "tokens", "A.7 (transformers Q4)", "I_hw G b", kSymbols,
    [](const double* x) { return attention_min_T_compute_bound(x[0], x[1], x[2]); });
// Q4: the large-G limit of that length, (b/2) I_hw (the book's "S = 240" on a v5e).
double attention_min_T_large_G(double i_hw, double bytes_per_elem = 2);
inline constexpr Formula kMinTLargeG =
    record("T_min", "b / 2 * I_hw", "tokens", "A.7 (transformers Q4)", "I_hw b", kSymbols,
           [](const double* x) { return attention_min_T_large_G(x[0], x[1]); });
// Q4: decode (T = 1) intensity tends to 2G/b as S grows: below any TPU's I_hw for small G.
double attention_decode_intensity_limit(double G, double bytes_per_elem = 2);
inline constexpr Formula kDecodeIntensityLimit =
    record("I", "2 * G / b", "flop_per_B", "A.7 (transformers Q4)", "G b", kSymbols,
           [](const double* x) { return attention_decode_intensity_limit(x[0], x[1]); });

// ------------------------------------------------------------------ A.8 MoE

// A.8 / Q8: an MoE layer's expert matmuls load all E experts' weights (b_w D F each) and do
// 2 k B D F FLOPs per matrix: intensity 2 k B / (E b_w); compute-bound once k B / E > b_w I_hw / 2.
double moe_intensity(double B, double E, double k, double weight_bytes);
inline constexpr Formula kMoeIntensity =
    record("I", "2 * k * B / (E * b_w)", "flop_per_B", "A.8 (transformers Q8)", "B E k b_w",
           kSymbols, [](const double* x) { return moe_intensity(x[0], x[1], x[2], x[3]); });
// Q8: the threshold on k B / E, b_w I_hw / 2 (D and F cancel) ...
double moe_kb_over_e_threshold(double i_hw, double weight_bytes);
inline constexpr Formula kMoeThreshold =
    record("kB_over_E", "b_w * I_hw / 2", "tokens", "A.8 (transformers Q8)", "I_hw b_w", kSymbols,
           [](const double* x) { return moe_kb_over_e_threshold(x[0], x[1]); });
// ... and the batch in tokens, E b_w I_hw / (2 k).
double moe_min_batch(double i_hw, double E, double k, double weight_bytes);
inline constexpr Formula kMoeMinBatch =
    record("B_min", "E * b_w * I_hw / (2 * k)", "tokens", "A.8 (transformers Q8)", "I_hw E k b_w",
           kSymbols, [](const double* x) { return moe_min_batch(x[0], x[1], x[2], x[3]); });
// A.8: AllToAlls an MoE layer adds when data is sharded over the expert axis: dispatch, return.
inline constexpr double kMoeAllToAllsPerLayer = 2;
// A.8: one AllToAll on a bidirectional ring over an AllGather of the same array on that axis
// (the sharding chapter's V / 4W_ici and V / W_ici): 1/4.
double alltoall_over_allgather(double bytes, double w_ici);
inline constexpr Formula kAllToAllOverAllGather =
    record("r", "(V_b / (4 * W_ici)) / (V_b / W_ici)", "ratio", "A.8", "V_b W_ici", kSymbols,
           [](const double* x) { return alltoall_over_allgather(x[0], x[1]); });

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
inline constexpr Formula kRematBlockFlops =
    record("r", "6 + 2", "ratio", "A.9", "", kSymbols,
           [](const double*) { return remat_flops_per_param_token(Remat::Block); });
// A.9: M_act = b c (B T) D L.
double activation_bytes(double tokens, double D, double L, double saved_arrays,
                        double bytes_per_elem = 2);
inline constexpr Formula kActivationBytes =
    record("M_act", "b * c * BT * D * L", "B", "A.9", "BT D L c b", kSymbols,
           [](const double* x) { return activation_bytes(x[0], x[1], x[2], x[3], x[4]); });
// A.9 (derived, exact shapes): elements saved per token per layer under BigMatmuls: the outputs
// of Q (N H_qk), K and V (K (H_qk + H_v); MLA: N heads of each), O and W_out (D each) and the
// MLP's input matrices ((n_mats - 1) F_tok): 83,968 = 10.25 D for LLaMA 3-70B.
double saved_elems_per_token_layer(double N, double K, double H_qk, double H_v, double D,
                                   double n_mats, double F_tok);
inline constexpr Formula kSavedElems =
    record("e", "N * H_qk + K * (H_qk + H_v) + 2 * D + (n_mats - 1) * F_tok", "count",
           "A.9 (derived)", "N K H_qk H_v D n_mats F_tok", kSymbols, [](const double* x) {
             return saved_elems_per_token_layer(x[0], x[1], x[2], x[3], x[4], x[5], x[6]);
           });
double saved_elems_per_token_layer(const Config& c);
// ... as [B, T, D]-sized arrays: c = e / D.
double saved_arrays_exact(double elems, double D);
inline constexpr Formula kSavedArraysExact =
    record("c", "e / D", "count", "A.9 (derived)", "e D", kSymbols,
           [](const double* x) { return saved_arrays_exact(x[0], x[1]); });
// Q6: recompute under BigMatmuls: QK^T and PV again, 4 B T^2 N H per layer (a third of the
// attention core's 12 B T^2 N H training FLOPs) ...
double big_matmuls_recompute_flops(double B, double T, double N, double H);
inline constexpr Formula kRecompute =
    record("FLOPs_re", "4 * B * T^2 * N * H", "flop", "A.9 (transformers Q6)", "B T N H", kSymbols,
           [](const double* x) { return big_matmuls_recompute_flops(x[0], x[1], x[2], x[3]); });
// ... over the L layers ...
double big_matmuls_recompute_flops(double L, double B, double T, double N, double H);
inline constexpr Formula kRecomputeLayers = record(
    "FLOPs_re", "L * 4 * B * T^2 * N * H", "flop", "A.9 (transformers Q6)", "L B T N H", kSymbols,
    [](const double* x) { return big_matmuls_recompute_flops(x[0], x[1], x[2], x[3], x[4]); });
// ... and its share of the core's training FLOPs: 4 / 12.
double recompute_share(double recompute_flops, double core_flops);
inline constexpr Formula kRecomputeShare =
    record("f", "FLOPs_re / FLOPs_core", "ratio", "A.9 (transformers Q6)", "FLOPs_re FLOPs_core",
           kSymbols, [](const double* x) { return recompute_share(x[0], x[1]); });

// ------------------------------------------------------------------ A.10 KV cache

// A.10: one sequence's cache [2, S, L, K, H]: 2 S L K H b bytes.
double kv_cache_bytes(double S, double L, double K, double H, double bytes_per_elem);
inline constexpr Formula kKvCache =
    record("M_kv", "2 * S * L * K * H * b", "B", "A.10", "S L K H b", kSymbols,
           [](const double* x) { return kv_cache_bytes(x[0], x[1], x[2], x[3], x[4]); });
// A.10 per token: a key and a value per KV head in every layer, 2 L K H b.
inline constexpr Formula kKvPerToken =
    record("M_kv", "2 * L * K * H * b", "B", "A.10", "L K H b", kSymbols,
           [](const double* x) { return kv_cache_bytes(1, x[0], x[1], x[2], x[3]); });
// A.10 for MLA (DeepSeek): one latent of kv_lora_rank and one RoPE key per token per layer,
// L (r_kv + h_r) b.
double kv_bytes_per_token_mla(double L, double r_kv, double h_r, double bytes_per_elem);
inline constexpr Formula kKvPerTokenMla =
    record("M_kv", "L * (r_kv + h_r) * b", "B",
           "beyond the book: DeepSeek-V3's config.json (the MLA cache)", "L r_kv h_r b", kSymbols,
           [](const double* x) { return kv_bytes_per_token_mla(x[0], x[1], x[2], x[3]); });
// A.10: S tokens of M_kv bytes each (S M_kv) ...
double kv_sequence_bytes(double S, double per_token);
inline constexpr Formula kKvSequence =
    record("M_seq", "S * M_kv", "B", "A.10", "S M_kv", kSymbols,
           [](const double* x) { return kv_sequence_bytes(x[0], x[1]); });
// ... where L_w of the L layers keep only the last w tokens: M_kv / L ((L - L_w) S + L_w min(S, w))
double kv_sequence_bytes_windowed(double per_token, double L, double L_w, double S, double w);
inline constexpr Formula kKvSequenceWindowed = record(
    "M_seq", "M_kv / L * ((L - L_w) * S + L_w * min(S, w))", "B",
    "A.10 (the book's caveat on local attention)", "M_kv L L_w S w", kSymbols,
    [](const double* x) { return kv_sequence_bytes_windowed(x[0], x[1], x[2], x[3], x[4]); });
// ... and B sequences, B M_seq.
double kv_batch_bytes(double B, double per_sequence);
inline constexpr Formula kKvBatch =
    record("M_batch", "B * M_seq", "B", "A.10", "B M_seq", kSymbols,
           [](const double* x) { return kv_batch_bytes(x[0], x[1]); });
// The sequences of M_seq bytes one chip's HBM holds beside the weights: floor((HBM - M_params) /
// M_seq), for weights that fit (0 otherwise).
double sequences_beside_weights(double hbm_bytes, double weight_bytes, double per_sequence);
inline constexpr Formula kSequencesBesideWeights = record(
    "n_seq", "floor((HBM - M_params) / M_seq)", "count",
    "beyond the book: the KV cache beside the weights in one chip's HBM", "HBM M_params M_seq",
    kSymbols, [](const double* x) { return sequences_beside_weights(x[0], x[1], x[2]); });
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
inline constexpr Formula kParamBytes =
    record("M_params", "b_p * P", "B", "A.11", "P b_p", kSymbols,
           [](const double* x) { return param_bytes(x[0], x[1]); });
// A.11 (optional add-on, off in the book): gradient buffers, b P.
double grad_bytes(double P, double bytes_per_grad = 2);
inline constexpr Formula kGradBytes =
    record("M_grads", "b_g * P", "B", "A.11 (an add-on the book leaves out)", "P b_g", kSymbols,
           [](const double* x) { return grad_bytes(x[0], x[1]); });
// A.11: Adam's two fp32 moments, 8 P.
double optimizer_bytes(double P, double bytes_per_param = 8);
inline constexpr Formula kOptimizerBytes =
    record("M_opt", "b_opt * P", "B", "A.11", "P b_opt", kSymbols,
           [](const double* x) { return optimizer_bytes(x[0], x[1]); });
// A.11: bytes per parameter of the training state, weights and Adam: 2 + 8 = 10.
double state_bytes_per_param(double bytes_per_param = 2, double optimizer_bytes_per_param = 8);
inline constexpr Formula kStateBytesPerParam =
    record("b_state", "b_p + b_opt", "B", "A.11", "b_p b_opt", kSymbols,
           [](const double* x) { return state_bytes_per_param(x[0], x[1]); });
// A.11: the bytes each of n chips holds when all of it is sharded over them (FSDP), bytes / n.
double bytes_per_chip(double bytes, double chips);
inline constexpr Formula kBytesPerChip =
    record("M_chip", "bytes / n_chips", "B", "A.11", "bytes n_chips", kSymbols,
           [](const double* x) { return bytes_per_chip(x[0], x[1]); });
// A.11: the fewest chips whose HBM holds `bytes`, ceil(bytes / HBM).
double min_chips(double bytes, double hbm_bytes);
inline constexpr Formula kMinChips =
    record("n_chips", "ceil(bytes / HBM)", "chips", "A.11", "bytes HBM", kSymbols,
           [](const double* x) { return min_chips(x[0], x[1]); });

// ------------------------------------------------------------------ A.12, Q7 utilisation

// Q7: FLOPs a run could have done: accelerator-hours x 3600 x peak FLOPs/s.
double available_flops(double chip_hours, double peak_flops_per_s);
inline constexpr Formula kAvailableFlops =
    record("FLOPs_avail", "h * 3600 * C", "flop", "A.12 (transformers Q7)", "h C", kSymbols,
           [](const double* x) { return available_flops(x[0], x[1]); });
// Q7 / A.12: model FLOPs utilisation, the FLOPs the model needed over what the chips could do.
double mfu(double model_flops, double available);
inline constexpr Formula kMfu =
    record("MFU", "FLOPs_used / FLOPs_avail", "ratio", "A.12 (transformers Q7)",
           "FLOPs_used FLOPs_avail", kSymbols, [](const double* x) { return mfu(x[0], x[1]); });

// ------------------------------------------------------------------ the chapter's records

// Every record of model.hpp and this file, as register.cpp adds them.
inline constexpr const Formula* kFormulas[] = {
    &kMlpGated,
    &kMlpPlain,
    &kAttentionParams,
    &kNormParams,
    &kVocabUntied,
    &kVocabTied,
    &kBookParams,
    &kMlaParams,
    &kMlaParamsNoQRank,
    &kRouterParams,
    &kExpertsGated,
    &kExpertsPlain,
    &kActiveExpertsGated,
    &kActiveExpertsPlain,
    &kAttentionShareOfLayer,
    &kAttentionShareOfModel,
    &kMatmulForward,
    &kMatmulBackward,
    &kMatmulTrain,
    &kTrainOverForward,
    &kFlopsPerParamPerToken,
    &kDeviceShare,
    &kMeshShare,
    &kCoreTrain,
    &kCorePerToken,
    &kCorePerTokenCausal,
    &kSixPTokens,
    &kMatmulFlopsPerToken,
    &kSixP,
    &kAttentionRatio,
    &kAttentionRatioBook,
    &kCrossoverBook,
    &kCrossover,
    &kCrossoverCausal,
    &kCrossoverDense,
    &kCrossoverProjections,
    &kAttentionIntensity,
    &kMinTPrefill,
    &kMinTLargeG,
    &kDecodeIntensityLimit,
    &kMoeIntensity,
    &kMoeThreshold,
    &kMoeMinBatch,
    &kAllToAllOverAllGather,
    &kRematBlockFlops,
    &kActivationBytes,
    &kSavedElems,
    &kSavedArraysExact,
    &kRecompute,
    &kRecomputeLayers,
    &kRecomputeShare,
    &kKvCache,
    &kKvPerToken,
    &kKvPerTokenMla,
    &kKvSequence,
    &kKvSequenceWindowed,
    &kKvBatch,
    &kSequencesBesideWeights,
    &kParamBytes,
    &kGradBytes,
    &kOptimizerBytes,
    &kStateBytesPerParam,
    &kMinChips,
    &kBytesPerChip,
    &kAvailableFlops,
    &kMfu,
};

}  // namespace sb::transformers
