// Part 7 beyond one chip: sharding for inference (A.10), latency-bound collectives (A.11), 2D
// weight-stationary sharding (A.12), MoE with its experts spread over the slice (A.14), expert
// parallelism beside data-parallel attention (beyond the book), and the engine: disaggregated
// prefill, continuous batching, prefix caching, speculative decoding (A.16, A.17). The records'
// list of the chapter, kFormulas, closes this file.
#pragma once
#include <string>
#include <vector>

#include "chapters/inference/model.hpp"

namespace sb::inference {

// ------------------------------------------------------------------ A.10 model parallelism

// A.10: the ICI intensity of the chip, C_peak / W_ici (v5e: 2189; the book rounds to 2200).
double alpha_ici(double C_peak, double W_ici);
inline constexpr Formula kAlphaIci =
    record("alpha_ici", "C_peak / W_ici", "flop_per_B", "A.10", "C_peak W_ici", kSymbols,
           [](const double* x) { return alpha_ici(x[0], x[1]); });
// A.10: HBM over ICI bandwidth (v5e 9.1, v6e 8.9; the book says "about 8").
double r_hbm_ici(double W_hbm, double W_ici);
inline constexpr Formula kRHbmIci =
    record("r_hbm_ici", "W_hbm / W_ici", "ratio", "A.10", "W_hbm W_ici", kSymbols,
           [](const double* x) { return r_hbm_ici(x[0], x[1]); });
// A.10, compute-bound (prefill, large batches): an AllGather and a ReduceScatter of the
// activations, 4 B D / (n_axes W_ici), hide under 4 B D F / (Y C_peak) while Y < n_axes F / alpha.
double y_max_compute(double n_axes, double F, double alpha_ici);
inline constexpr Formula kYMaxCompute =
    record("Y_max", "n_axes * F / alpha_ici", "count", "A.10", "n_axes F alpha_ici", kSymbols,
           [](const double* x) { return y_max_compute(x[0], x[1], x[2]); });
// A.10, bandwidth-bound decode: the ICI only has to hide under the weight loads,
// Y < F / (B r_hbm_ici).
double y_max_decode(double F, double B, double r_hbm_ici);
inline constexpr Formula kYMaxDecode =
    record("Y_max", "F / (B * r_hbm_ici)", "count", "A.10", "F B r_hbm_ici", kSymbols,
           [](const double* x) { return y_max_decode(x[0], x[1], x[2]); });
// A.10 read the other way (inference Q4): Y-way decode keeps its ICI hidden up to B = F / (Y r).
inline constexpr Formula kBMaxDecode =
    record("B_max", "F / (Y * r_hbm_ici)", "count", "A.10", "F Y r_hbm_ici", kSymbols,
           [](const double* x) { return y_max_decode(x[0], x[1], x[2]); });
// A.10, one decode matmul [B, D] x [D, F] split Y ways over F: loading its weights ...
double mm_t_hbm(double b_w, double D, double F, double Y, double W_hbm);
inline constexpr Formula kMmTHbm =
    record("T_hbm", "b_w * D * F / (Y * W_hbm)", "s", "A.10", "b_w D F Y W_hbm", kSymbols,
           [](const double* x) { return mm_t_hbm(x[0], x[1], x[2], x[3], x[4]); });
// ... gathering its activations over ICI ...
double mm_t_ici(double b_a, double B, double D, double W_ici);
inline constexpr Formula kMmTIci =
    record("T_ici", "b_a * B * D / W_ici", "s", "A.10", "b_a B D W_ici", kSymbols,
           [](const double* x) { return mm_t_ici(x[0], x[1], x[2], x[3]); });
// ... and its FLOPs.
double mm_t_math(double B, double D, double F, double Y, double C_peak);
inline constexpr Formula kMmTMath =
    record("T_math", "2 * B * D * F / (Y * C_peak)", "s", "A.10", "B D F Y C_peak", kSymbols,
           [](const double* x) { return mm_t_math(x[0], x[1], x[2], x[3], x[4]); });

// ------------------------------------------------------------------ A.11 latency-bound

// A.11: the bytes of a [B, D] activation.
double activation_msg(double B, double D, double b_a);
inline constexpr Formula kActMsg =
    record("msg", "B * D * b_a", "B", "A.11", "B D b_a", kSymbols,
           [](const double* x) { return activation_msg(x[0], x[1], x[2]); });
// A.11: a Y-way collective is latency-bound below Y W_ici_1way t_hop bytes (the sharding
// chapter's per-hop threshold, once per shard).
double latency_bound_bytes(double Y, double W_ici_1way, double t_hop);
inline constexpr Formula kLatencyBytes =
    record("msg_lat", "Y * W_ici_1way * t_hop", "B", "A.11", "Y W_ici_1way t_hop", kSymbols,
           [](const double* x) { return latency_bound_bytes(x[0], x[1], x[2]); });
// A.11: with a [B, D] activation, that happens once Y > B D b_a / (W_ici_1way t_hop).
double y_latency_bound(double B, double D, double b_a, double W_ici_1way, double t_hop);
inline constexpr Formula kYLatency = record(
    "Y_lat", "B * D * b_a / (W_ici_1way * t_hop)", "count", "A.11", "B D b_a W_ici_1way t_hop",
    kSymbols, [](const double* x) { return y_latency_bound(x[0], x[1], x[2], x[3], x[4]); });
// A.11: a ring AllGather over Y chips takes max(t_hop Y / 2, msg / W_ici).
double latency_collective_time(double t_hop, double Y, double msg, double W_ici);
inline constexpr Formula kTCollective =
    record("T_coll", "max(t_hop * Y / 2, msg / W_ici)", "s", "A.11", "t_hop Y msg W_ici", kSymbols,
           [](const double* x) { return latency_collective_time(x[0], x[1], x[2], x[3]); });

// ------------------------------------------------------------------ A.12 2D weight-stationary

// inference Q7: the five steps of the 2D weight-stationary MLP (W_in[D_X, F_YZ]) move
// 2 B D / (X W_ici) + 4 B F / (Y Z W_ici) (bf16 bytes folded in) ...
double t_ws_2d(double B, double D, double F, double X, double Y, double Z, double W_ici);
inline constexpr Formula kTWs2d =
    record("T_2D", "2 * B * D / (X * W_ici) + 4 * B * F / (Y * Z * W_ici)", "s",
           "A.12 (inference Q7)", "B D F X Y Z W_ici", kSymbols,
           [](const double* x) { return t_ws_2d(x[0], x[1], x[2], x[3], x[4], x[5], x[6]); });
// ... against 1D model parallelism over n_axes axes, 4 B D / (n_axes W_ici) (A.10) ...
double t_ws_1d(double B, double D, double n_axes, double W_ici);
inline constexpr Formula kTWs1d =
    record("T_1D", "4 * B * D / (n_axes * W_ici)", "s", "A.10", "B D n_axes W_ici", kSymbols,
           [](const double* x) { return t_ws_1d(x[0], x[1], x[2], x[3]); });
// ... twice per layer (attention and MLP blocks), every layer of a decode step.
double t_1d_step(double L, double T_1D);
inline constexpr Formula kT1dStep =
    record("T_1D_step", "2 * L * T_1D", "s", "A.10", "L T_1D", kSymbols,
           [](const double* x) { return t_1d_step(x[0], x[1]); });
// ... best at X = sqrt(n_chips D / (2 F)), where T_2D = sqrt(32 F / D) B D / (sqrt(n_chips) W_ici)
// ...
double ws_2d_best_x(double n_chips, double D, double F);
inline constexpr Formula kWsBestX =
    record("X", "sqrt(n_chips * D / (2 * F))", "count", "A.12 (inference Q7)", "n_chips D F",
           kSymbols, [](const double* x) { return ws_2d_best_x(x[0], x[1], x[2]); });
double ws_2d_coefficient(double F, double D);
inline constexpr Formula kWsCoefficient =
    record("c_2D", "sqrt(32 * F / D)", "ratio", "A.12 (inference Q7)", "F D", kSymbols,
           [](const double* x) { return ws_2d_coefficient(x[0], x[1]); });
// ... which beats 1D above n_chips = 32 (F / D) (n_axes / 4)^2 (72 for F = 4D over 3 axes).
double ws_2d_crossover(double F, double D, double n_axes);
inline constexpr Formula kWsCrossover = record(
    "n_cross", "32 * (F / D) * (n_axes / 4) ^ 2", "chips", "A.12 (inference Q7)", "F D n_axes",
    kSymbols, [](const double* x) { return ws_2d_crossover(x[0], x[1], x[2]); });

// ------------------------------------------------------------------ A.14 MoE

// A.14: the weights spread evenly over the chips of a replica.
double bytes_per_chip(double bytes_w, double n_chips);
inline constexpr Formula kBytesPerChip =
    record("bytes_chip", "bytes_w / n_chips", "B", "A.14", "bytes_w n_chips", kSymbols,
           [](const double* x) { return bytes_per_chip(x[0], x[1]); });
// inference Q6: experts over Y Z chips, attention and embeddings over Y only.
double bytes_per_chip_split(double P_exp, double P_rest, double b_w, double Y, double Z);
inline constexpr Formula kBytesPerChipSplit =
    record("bytes_chip", "P_exp * b_w / (Y * Z) + P_rest * b_w / Y", "B", "A.14 (inference Q6)",
           "P_exp P_rest b_w Y Z", kSymbols,
           [](const double* x) { return bytes_per_chip_split(x[0], x[1], x[2], x[3], x[4]); });

// Beyond the book: expert parallelism beside data-parallel attention. The n_chips of a replica
// form DP attention groups of TP chips (DP TP = n_chips); every chip also holds E / n_chips
// experts. Each MoE layer sends every token's activation to its k experts and back: two
// AllToAlls (the sharding chapter's, A4.4) of B k D b_a bytes over the whole replica.
inline constexpr Text kBeyondA2a =
    "beyond the book: the sharding chapter's AllToAll (A4.4) applied to an MoE layer's dispatch";
double a2a_bytes(double B, double k, double D, double b_a);
inline constexpr Formula kA2aBytes =
    record("V_a2a", "B * k * D * b_a", "B", kBeyondA2a, "B k D b_a", kSymbols,
           [](const double* x) { return a2a_bytes(x[0], x[1], x[2], x[3]); });
// The AllToAll's time on the replica's torus: V max(axes) / (4 n_chips W_ici).
double a2a_time(double V_a2a, double X_max, double n_chips, double W_ici);
inline constexpr Formula kA2aTime = record(
    "T_a2a", "V_a2a * X_max / (4 * n_chips * W_ici)", "s", kBeyondA2a, "V_a2a X_max n_chips W_ici",
    kSymbols, [](const double* x) { return a2a_time(x[0], x[1], x[2], x[3]); });
// Each attention group keeps the caches of its B / DP sequences, split over its heads up to K
// ways (A.10's rule: split heads, never replicate; a group wider than K repeats each head).
inline constexpr Text kBeyondKv =
    "beyond the book: the chapter's KV arithmetic (A.5) over data-parallel attention groups";
double kv_per_chip_dp(double B, double S, double kv_tok, double DP, double TP, double K);
inline constexpr Formula kKvPerChipDp = record(
    "kv_chip", "B * S * kv_tok / (DP * min(K, TP))", "B", kBeyondKv, "B S kv_tok DP TP K", kSymbols,
    [](const double* x) { return kv_per_chip_dp(x[0], x[1], x[2], x[3], x[4], x[5]); });
// The weights a chip holds: its share of the experts and its group's share of the rest.
double weights_per_chip_dp(double P_exp, double P_rest, double b_w, double n_chips, double TP);
inline constexpr Formula kWeightsPerChipDp =
    record("bytes_chip", "P_exp * b_w / n_chips + P_rest * b_w / TP", "B", kBeyondKv,
           "P_exp P_rest b_w n_chips TP", kSymbols,
           [](const double* x) { return weights_per_chip_dp(x[0], x[1], x[2], x[3], x[4]); });

// Per decode step, every MoE layer's dispatch and return: 2 L T_a2a.
double a2a_step_time(double L, double T_a2a);
inline constexpr Formula kA2aStep =
    record("T_a2a_step", "2 * L * T_a2a", "s", kBeyondA2a, "L T_a2a", kSymbols,
           [](const double* x) { return a2a_step_time(x[0], x[1]); });
// A.7 per chip, for a layout that does not spread every byte evenly: the bytes each chip reads.
double t_read(double bytes, double W_hbm);
inline constexpr Formula kTReadWeights =
    record("T_param", "bytes_chip / W_hbm", "s", "A.7", "bytes_chip W_hbm", kSymbols,
           [](const double* x) { return t_read(x[0], x[1]); });
inline constexpr Formula kTReadKv =
    record("T_kv", "kv_chip / W_hbm", "s", "A.7", "kv_chip W_hbm", kSymbols,
           [](const double* x) { return t_read(x[0], x[1]); });

// ------------------------------------------------------------------ A.16 the engine

// applied-inference S12: prefill servers that keep one generate server fed, T_prefill B /
// (T_step len_decode).
double prefill_servers_per_generate(double T_prefill, double B, double T_step, double len_decode);
inline constexpr Formula kServerRatio =
    record("n_ratio", "T_prefill * B / (T_step * len_decode)", "ratio",
           "A.16 (applied-inference S12)", "T_prefill B T_step len_decode", kSymbols,
           [](const double* x) { return prefill_servers_per_generate(x[0], x[1], x[2], x[3]); });
// applied-inference S11: each of B sequences ends with chance 1 / len_decode per step ...
double sequences_finished_per_step(double B, double len_decode);
inline constexpr Formula kChurn =
    record("n_done", "B / len_decode", "ratio", "A.16 (applied-inference S11)", "B len_decode",
           kSymbols, [](const double* x) { return sequences_finished_per_step(x[0], x[1]); });
// ... and frees its prompt's and its reply's KV entries.
double kv_tokens_freed_per_step(double B, double len_prompt, double len_decode);
inline constexpr Formula kKvFreed =
    record("kv_freed", "B * (len_prompt + len_decode) / len_decode", "tokens",
           "A.16 (applied-inference S11)", "B len_prompt len_decode", kSymbols,
           [](const double* x) { return kv_tokens_freed_per_step(x[0], x[1], x[2]); });
// Beyond the book (the notes' derived estimate, A.16): interleaving prefills into the decode
// batch stalls the average step by the prefills it needs, B / len_decode of T_prefill.
double interleave_stall(double B, double len_decode, double T_prefill);
inline constexpr Formula kStall =
    record("T_stall", "B * T_prefill / len_decode", "s",
           "beyond the book: A.16's churn times the prefill time", "B len_decode T_prefill",
           kSymbols, [](const double* x) { return interleave_stall(x[0], x[1], x[2]); });
// A.16 (prefix caching): only the tokens after the cached prefix need a prefill.
double prefix_compute_fraction(double T, double T_cached);
inline constexpr Formula kPrefix =
    record("f_prefill", "(T - T_cached) / T", "ratio", "A.16", "T T_cached", kSymbols,
           [](const double* x) { return prefix_compute_fraction(x[0], x[1]); });

// ------------------------------------------------------------------ A.17 speculative decoding

// Beyond the book (Leviathan et al. 2023, which Appendix D follows): with gamma drafted tokens each
// accepted with chance a, a target-model pass yields (1 - a^(gamma + 1)) / (1 - a) tokens ...
inline constexpr Text kLeviathan = "beyond the book: Leviathan et al. 2023 (speculative decoding)";
double speculative_tokens(double a, double gamma);
inline constexpr Formula kSpecTokens =
    record("n_tok", "(1 - a ^ (gamma + 1)) / (1 - a)", "tokens", kLeviathan, "a gamma", kSymbols,
           [](const double* x) { return speculative_tokens(x[0], x[1]); });
// A drafter step costs a fraction c_draft of the target model's step ...
double draft_time(double c_draft, double T_step);
inline constexpr Formula kDraftTime =
    record("T_draft", "c_draft * T_step", "s", kLeviathan, "c_draft T_step", kSymbols,
           [](const double* x) { return draft_time(x[0], x[1]); });
// ... so a token costs the drafter's gamma steps and the scoring pass over those tokens.
double speculative_time_per_token(double gamma, double T_draft, double T_verify, double n_tok);
inline constexpr Formula kSpecTime =
    record("T_token", "(gamma * T_draft + T_verify) / n_tok", "s", kLeviathan,
           "gamma T_draft T_verify n_tok", kSymbols,
           [](const double* x) { return speculative_time_per_token(x[0], x[1], x[2], x[3]); });

// ------------------------------------------------------------------ every record

inline constexpr const Formula* kFormulas[] = {
    &kTotalOverDense,
    &kActiveOverDense,
    &kLayerParams,
    &kFlopsPerToken,
    &kSliceBw,
    &kSlicePeak,
    &kBMaxDecode,
    &kBCrit,
    &kBCritMoeBook,
    &kBCritMoe,
    &kAttnIntensity,
    &kAttnPrefillT,
    &kPMlp,
    &kPExperts,
    &kPExpertsActive,
    &kPAttn,
    &kPVocab,
    &kPTotal,
    &kPActive,
    &kWeightBytes,
    &kActivation,
    &kKvTok,
    &kKvSeq,
    &kKvBatch,
    &kFreeHbm,
    &kMaxBatch,
    &kMinChips,
    &kTKv,
    &kTParam,
    &kTFlops,
    &kTStep,
    &kTStepBw,
    &kTokS,
    &kTokSChip,
    &kReply,
    &kQps,
    &kCostOut,
    &kKvCrossover,
    &kFullHbmStep,
    &kFlopsPerDollar,
    &kTPrefill,
    &kCostIn,
    &kAlphaIci,
    &kRHbmIci,
    &kYMaxCompute,
    &kYMaxDecode,
    &kMmTHbm,
    &kMmTIci,
    &kMmTMath,
    &kActMsg,
    &kLatencyBytes,
    &kYLatency,
    &kTCollective,
    &kTWs2d,
    &kTWs1d,
    &kT1dStep,
    &kWsBestX,
    &kWsCoefficient,
    &kWsCrossover,
    &kBytesPerChip,
    &kBytesPerChipSplit,
    &kA2aBytes,
    &kA2aTime,
    &kKvPerChipDp,
    &kWeightsPerChipDp,
    &kA2aStep,
    &kTReadWeights,
    &kTReadKv,
    &kServerRatio,
    &kChurn,
    &kKvFreed,
    &kStall,
    &kPrefix,
    &kSpecTokens,
    &kDraftTime,
    &kSpecTime,
};

}  // namespace sb::inference
