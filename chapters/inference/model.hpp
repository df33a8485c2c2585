// Part 7, "All About Transformer Inference": what a decode step and a prefill cost on a TPU slice.
// The step is made of weight loading, KV-cache loading and FLOPs (A.7); memory bounds the batch
// (A.6); prefill is compute-bound (A.8); the critical batch moves with quantization (A.2). Every
// quantity is a double in SI base units (bytes, FLOPs, seconds, $). Section labels (A.2 ...) refer
// to the chapter notes shared/book/inference.md; serving.hpp holds the sharding, MoE and engine
// formulas (A.10-A.17) and the records' list.
//
// Names follow the notes' renamed symbols: N query heads, K KV heads, n_chips chips of a replica,
// C_peak the peak in the matmul's precision, b_w / b_kv / b_a bytes per weight / KV element /
// activation, S the KV length in the cache, T the prompt tokens of a prefill, B the decode batch
// (sequences, one token each per step).
//
// Parameter and KV counts come from the transformers chapter; collectives from the sharding
// chapter. Each formula the chapter teaches is a record (core/formula.hpp) right under its
// function.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/formula.hpp"

namespace sb::hw {
struct Chip;
}
namespace sb::transformers {
struct Config;
}
namespace sb {
class Trace;
}

namespace sb::inference {

// The chapter's symbols: unit, the range the record test draws from, words, TeX where needed.
inline constexpr Symbol kSymbols[] = {
    with_tex(sym("C_peak", "flop_per_s", 1e12, 1e17, "peak FLOPs/s per chip in the matmul's dtype"),
             "C_{\\mathrm{peak}}"),
    with_tex(sym("W_hbm", "B_per_s", 1e10, 1e14, "HBM bandwidth per chip"), "W_{\\mathrm{hbm}}"),
    with_tex(sym("M_hbm", "B", 1e9, 1e12, "HBM capacity per chip"), "M_{\\mathrm{hbm}}"),
    with_tex(sym("W_ici", "B_per_s", 1e9, 1e13, "ICI bandwidth per link, both directions"),
             "W_{\\mathrm{ici}}"),
    with_tex(sym("W_ici_1way", "B_per_s", 1e9, 1e13, "ICI bandwidth per link, one direction"),
             "W_{\\mathrm{ici}}^{\\to}"),
    with_tex(sym("t_hop", "s", 1e-8, 1e-4, "latency of one ICI hop"), "t_{\\mathrm{hop}}"),
    sym("b_w", "B", 0.5, 4, "bytes per weight"),
    with_tex(sym("b_kv", "B", 0.5, 4, "bytes per KV-cache element"), "b_{kv}"),
    sym("b_a", "B", 0.5, 4, "bytes per activation"),
    sym("B", "tokens", 1, 1e5, "decode batch: sequences, one token each per step"),
    sym("S", "tokens", 1, 1e7, "tokens in each sequence's KV cache"),
    sym("T", "tokens", 1, 1e7, "query (prompt) tokens of one pass"),
    with_tex(sym("T_cached", "tokens", 1, 1e6, "prompt tokens whose K and V are cached already"),
             "T_{\\mathrm{cached}}"),
    with_tex(sym("P_total", "params", 1e6, 1e13, "parameters stored"), "P_{\\mathrm{total}}"),
    with_tex(sym("P_active", "params", 1e6, 1e13, "parameters one token uses"),
             "P_{\\mathrm{active}}"),
    with_tex(sym("P_dense", "params", 1e6, 1e13, "parameters of the dense model an MoE extends"),
             "P_{\\mathrm{dense}}"),
    with_tex(whole("n_mats", "count", 1, 3, "weight matrices of a layer"), "n_{\\mathrm{mats}}"),
    with_tex(sym("P_exp", "params", 1e6, 1e13, "parameters of the experts"), "P_{\\mathrm{exp}}"),
    with_tex(sym("P_rest", "params", 1e6, 1e13, "parameters outside the experts"),
             "P_{\\mathrm{rest}}"),
    with_tex(sym("bytes_w", "B", 1e6, 1e14, "bytes of the weights"), "M_{w}"),
    with_tex(sym("kv_tok", "B", 10, 1e8, "KV-cache bytes per token, every layer"),
             "\\mathrm{kv}_{\\mathrm{tok}}"),
    with_tex(sym("kv_batch", "B", 1e3, 1e15, "KV-cache bytes of the batch"),
             "\\mathrm{kv}_{\\mathrm{batch}}"),
    with_tex(sym("M_free", "B", 1e6, 1e15, "HBM left beside the weights"), "M_{\\mathrm{free}}"),
    with_tex(whole("n_chips", "chips", 1, 1e4, "chips serving one replica"), "n_{\\mathrm{chips}}"),
    whole("L", "count", 1, 200, "layers"),
    whole("D", "count", 64, 65536, "model width d_model"),
    whole("F", "count", 64, 1e5, "MLP width d_ff (one expert's for an MoE)"),
    whole("N", "count", 1, 256, "query heads"),
    whole("K", "count", 1, 256, "KV heads"),
    whole("H", "count", 16, 512, "head dimension"),
    whole("V", "count", 1000, 3e5, "vocabulary"),
    whole("E", "count", 1, 512, "experts per MoE layer (1 for a dense model)"),
    whole("k", "count", 1, 16, "experts each token uses (1 for a dense model)"),
    with_tex(whole("n_emb", "count", 1, 2, "vocabulary matrices: 1 tied, 2 untied"),
             "n_{\\mathrm{emb}}"),
    with_tex(sym("B_crit", "tokens", 1, 1e4, "critical batch of a weight-streaming matmul"),
             "B_{\\mathrm{crit}}"),
    with_tex(sym("T_kv", "s", 1e-7, 10, "time to read the KV cache"), "T_{kv}"),
    with_tex(sym("T_param", "s", 1e-7, 10, "time to read the weights"), "T_{\\mathrm{param}}"),
    with_tex(sym("T_flops", "s", 1e-7, 10, "time of the matmul FLOPs"), "T_{\\mathrm{flops}}"),
    with_tex(sym("T_step", "s", 1e-6, 10, "time of one decode step"), "T_{\\mathrm{step}}"),
    with_tex(sym("T_prefill", "s", 1e-5, 100, "time of one prefill"), "T_{\\mathrm{prefill}}"),
    sym("MFU", "ratio", 0.01, 1, "share of the peak a prefill reaches"),
    sym("price", "usd_per_hour", 0.01, 100, "price per chip-hour"),
    with_tex(sym("len_decode", "tokens", 1, 1e5, "tokens generated per request"),
             "\\mathrm{len}_{\\mathrm{decode}}"),
    with_tex(sym("len_prompt", "tokens", 1, 1e6, "prompt tokens per request"),
             "\\mathrm{len}_{\\mathrm{prompt}}"),
    // Sharding (serving.hpp).
    sym("Y", "count", 1, 1e4, "model-parallel degree (shards of the weights)"),
    sym("X", "count", 1, 1e3, "2D sharding: the axis that splits D"),
    sym("Z", "count", 1, 1e3, "a second axis that splits F (2D sharding) or the experts"),
    with_tex(whole("n_axes", "count", 1, 3, "ICI axes a collective spans"), "n_{\\mathrm{axes}}"),
    with_tex(sym("alpha_ici", "flop_per_B", 10, 1e5, "ICI arithmetic intensity of the chip"),
             "\\alpha_{\\mathrm{ici}}"),
    with_tex(sym("r_hbm_ici", "ratio", 0.5, 100, "HBM over ICI bandwidth"),
             "r_{\\mathrm{hbm/ici}}"),
    with_tex(sym("msg", "B", 1, 1e12, "bytes a collective moves"), "\\mathrm{msg}"),
    // MoE beside data-parallel attention (serving.hpp, beyond the book).
    with_tex(whole("DP", "count", 1, 1024, "data-parallel groups of the attention"),
             "\\mathrm{DP}"),
    with_tex(whole("TP", "count", 1, 256, "chips per attention group (its model parallelism)"),
             "\\mathrm{TP}"),
    with_tex(sym("V_a2a", "B", 1, 1e12, "bytes of one AllToAll, summed over the chips"),
             "V_{\\mathrm{a2a}}"),
    with_tex(sym("X_max", "count", 1, 64, "longest axis of the mesh the AllToAll spans"),
             "X_{\\max}"),
    with_tex(sym("T_1D", "s", 1e-8, 1, "one block's collectives under 1D model parallelism"),
             "T_{\\mathrm{1D}}"),
    with_tex(sym("T_a2a", "s", 1e-8, 1, "time of one AllToAll"), "T_{\\mathrm{a2a}}"),
    with_tex(sym("bytes_chip", "B", 1e3, 1e13, "weight bytes one chip holds"),
             "M_{w,\\mathrm{chip}}"),
    with_tex(sym("kv_chip", "B", 1e3, 1e13, "KV-cache bytes one chip holds"),
             "\\mathrm{kv}_{\\mathrm{chip}}"),
    // Speculative decoding (serving.hpp, beyond the book).
    sym("a", "ratio", 0.01, 0.99, "chance the target model accepts a drafted token"),
    whole("gamma", "count", 1, 16, "tokens drafted per step"),
    with_tex(sym("T_draft", "s", 1e-6, 1, "time of one drafter step"), "T_{\\mathrm{draft}}"),
    with_tex(sym("c_draft", "ratio", 1e-3, 1, "a drafter step's time over the target model's"),
             "c_{\\mathrm{draft}}"),
    with_tex(sym("T_verify", "s", 1e-6, 10, "time of the target model's scoring pass"),
             "T_{\\mathrm{verify}}"),
    with_tex(sym("n_tok", "tokens", 1, 17, "tokens accepted per target-model pass"),
             "n_{\\mathrm{tok}}"),
};

// ------------------------------------------------------------------ A.2 critical batch

// A.2: a weight-streaming matmul is compute-bound once 2 B D F / C_peak >= b_w D F / W_hbm:
// B_crit = (b_w / 2) C_peak / W_hbm, with C_peak in the matmul's precision (int8 weights in bf16
// matmuls: 120 on a v5e; int8 x int8: 240).
double critical_batch(double b_w, double C_peak, double W_hbm);
inline constexpr Formula kBCrit =
    record("B_crit", "b_w / 2 * C_peak / W_hbm", "tokens", "A.2", "b_w C_peak W_hbm", kSymbols,
           [](const double* x) { return critical_batch(x[0], x[1], x[2]); });
// A.14 / inference Q5: every expert is read each step but a token multiplies through k of the E:
// the book's factor E / k.
double moe_critical_batch_book(double B_crit, double E, double k);
inline constexpr Formula kBCritMoeBook =
    record("B_crit", "B_crit * E / k", "tokens", "A.14 (inference Q5)", "B_crit E k", kSymbols,
           [](const double* x) { return moe_critical_batch_book(x[0], x[1], x[2]); });
// A.7: the same with attention and embeddings counted: B_crit P_total / P_active.
double moe_critical_batch(double B_crit, double P_total, double P_active);
inline constexpr Formula kBCritMoe =
    record("B_crit", "B_crit * P_total / P_active", "tokens", "A.7", "B_crit P_total P_active",
           kSymbols, [](const double* x) { return moe_critical_batch(x[0], x[1], x[2]); });

// ------------------------------------------------------------------ A.3 attention

// A.3: flash attention of T queries against S keys: FLOPs 4BSTD over bytes 4BSD + 4BTD (bf16).
double attention_intensity(double S, double T);
inline constexpr Formula kAttnIntensity =
    record("I_attn", "S * T / (S + T)", "flop_per_B", "A.3", "S T", kSymbols,
           [](const double* x) { return attention_intensity(x[0], x[1]); });
// A.3: prefill (S = T) has intensity T / 2: compute-bound once T > 2 C_peak / W_hbm.
double prefill_attention_threshold(double C_peak, double W_hbm);
inline constexpr Formula kAttnPrefillT =
    record("T", "2 * C_peak / W_hbm", "tokens", "A.3", "C_peak W_hbm", kSymbols,
           [](const double* x) { return prefill_attention_threshold(x[0], x[1]); });

// ------------------------------------------------------------------ A.4 parameters

// A.4: the gated MLPs of every layer, 3 L D F (the transformers chapter's 3DF per layer) ...
double mlp_params(double L, double D, double F);
inline constexpr Formula kPMlp =
    record("P_mlp", "3 * L * D * F", "count", "A.4", "L D F", kSymbols,
           [](const double* x) { return mlp_params(x[0], x[1], x[2]); });
// ... an MoE's E experts per layer, 3 L E D F (k in place of E for the ones a token uses) ...
double expert_params(double L, double D, double F, double E);
inline constexpr Formula kPExperts =
    record("P_mlp", "3 * L * E * D * F", "count", "A.4", "L E D F", kSymbols,
           [](const double* x) { return expert_params(x[0], x[2], x[3], x[1]); });
inline constexpr Formula kPExpertsActive =
    record("P_mlp", "3 * L * k * D * F", "count", "A.4", "L k D F", kSymbols,
           [](const double* x) { return expert_params(x[0], x[2], x[3], x[1]); });
// ... attention Q, K, V, O: 2 L D H (N + K) ...
double attn_params(double L, double D, double N, double K, double H);
inline constexpr Formula kPAttn =
    record("P_attn", "2 * L * D * H * (N + K)", "count", "A.4", "L D H N K", kSymbols,
           [](const double* x) { return attn_params(x[0], x[1], x[3], x[4], x[2]); });
// ... and the vocabulary: D V when input and output share one matrix, 2 D V when not.
double vocab_params(double D, double V, double n_emb);
inline constexpr Formula kPVocab =
    record("P_vocab", "n_emb * D * V", "count", "A.4", "n_emb D V", kSymbols,
           [](const double* x) { return vocab_params(x[1], x[2], x[0]); });
// A.4: the whole book model, P_total = L (3 E D F + 2 D H (N + K)) + n_emb D V (E = 1: dense) ...
double params_total(double L, double D, double F, double N, double K, double H, double V, double E,
                    double n_emb);
inline constexpr Formula kPTotal =
    record("P_total", "L * (3 * E * D * F + 2 * D * H * (N + K)) + n_emb * D * V", "count", "A.4",
           "L E D F H N K n_emb V", kSymbols, [](const double* x) {
             return params_total(x[0], x[2], x[3], x[5], x[6], x[4], x[8], x[1], x[7]);
           });
// ... and what one token uses, k experts in place of E.
inline constexpr Formula kPActive =
    record("P_active", "L * (3 * k * D * F + 2 * D * H * (N + K)) + n_emb * D * V", "count", "A.4",
           "L k D F H N K n_emb V", kSymbols, [](const double* x) {
             return params_total(x[0], x[2], x[3], x[5], x[6], x[4], x[8], x[1], x[7]);
           });
// A.14 (inference Q5): an MoE's size against the dense model it grows from, stored ...
double params_over_dense(double P, double P_dense);
inline constexpr Formula kTotalOverDense =
    record("ratio", "P_total / P_dense", "ratio", "A.14 (inference Q5)", "P_total P_dense",
           kSymbols, [](const double* x) { return params_over_dense(x[0], x[1]); });
// ... and used per token.
inline constexpr Formula kActiveOverDense =
    record("ratio", "P_active / P_dense", "ratio", "A.14 (inference Q5)", "P_active P_dense",
           kSymbols, [](const double* x) { return params_over_dense(x[0], x[1]); });
// Appendix A's toy layer: n_mats matrices of D x F.
double layer_params(double n_mats, double D, double F);
inline constexpr Formula kLayerParams =
    record("P_layer", "n_mats * D * F", "count", "A.2 (Appendix A)", "n_mats D F", kSymbols,
           [](const double* x) { return layer_params(x[0], x[1], x[2]); });
// A.4: inference keeps one copy of the weights, P_total b_w bytes.
double weight_bytes(double P_total, double b_w);
inline constexpr Formula kWeightBytes =
    record("bytes_w", "P_total * b_w", "B", "A.4", "P_total b_w", kSymbols,
           [](const double* x) { return weight_bytes(x[0], x[1]); });
// A.4: one activation of a T-token prefill, T D b_a bytes.
double activation_bytes(double T, double D, double b_a);
inline constexpr Formula kActivation =
    record("bytes_act", "T * D * b_a", "B", "A.4", "T D b_a", kSymbols,
           [](const double* x) { return activation_bytes(x[0], x[1], x[2]); });

// ------------------------------------------------------------------ A.5 KV cache

// A.5: a key and a value per KV head per layer, 2 L K H b_kv bytes per token.
double kv_bytes_per_token(double L, double K, double H, double b_kv);
inline constexpr Formula kKvTok =
    record("kv_tok", "2 * L * K * H * b_kv", "B", "A.5", "L K H b_kv", kSymbols,
           [](const double* x) { return kv_bytes_per_token(x[0], x[1], x[2], x[3]); });
// A.5: one sequence of S tokens ...
double kv_bytes_per_sequence(double S, double kv_tok);
inline constexpr Formula kKvSeq =
    record("kv_seq", "S * kv_tok", "B", "A.5", "S kv_tok", kSymbols,
           [](const double* x) { return kv_bytes_per_sequence(x[0], x[1]); });
// ... and a batch of B of them, each slot padded to S.
double kv_bytes_batch(double B, double S, double kv_tok);
inline constexpr Formula kKvBatch =
    record("kv_batch", "B * S * kv_tok", "B", "A.5", "B S kv_tok", kSymbols,
           [](const double* x) { return kv_bytes_batch(x[0], x[1], x[2]); });

// ------------------------------------------------------------------ A.6 memory

// A.6: HBM of the replica left beside the weights.
double free_hbm(double n_chips, double M_hbm, double bytes_w);
inline constexpr Formula kFreeHbm =
    record("M_free", "n_chips * M_hbm - bytes_w", "B", "A.6", "n_chips M_hbm bytes_w", kSymbols,
           [](const double* x) { return free_hbm(x[0], x[1], x[2]); });
// A.6: the largest batch whose caches fit there, floor(M_free / (S kv_tok)).
double max_batch(double M_free, double S, double kv_tok);
inline constexpr Formula kMaxBatch =
    record("B_max", "floor(M_free / (S * kv_tok))", "count", "A.6", "M_free S kv_tok", kSymbols,
           [](const double* x) { return max_batch(x[0], x[1], x[2]); });
// A.6: chips whose HBM holds the weights and the caches, before rounding up to a slice.
double min_chips_raw(double bytes_w, double kv_batch, double M_hbm);
inline constexpr Formula kMinChips =
    record("n_raw", "(bytes_w + kv_batch) / M_hbm", "ratio", "A.6", "bytes_w kv_batch M_hbm",
           kSymbols, [](const double* x) { return min_chips_raw(x[0], x[1], x[2]); });

// ------------------------------------------------------------------ A.7 the decode step

// A.7: a forward pass does 2 FLOPs per used parameter per token.
double flops_per_token(double P_active);
inline constexpr Formula kFlopsPerToken =
    record("FLOPs", "2 * P_active", "flop", "A.7", "P_active", kSymbols,
           [](const double* x) { return flops_per_token(x[0]); });
// B.2: a slice's chips together: their HBM bandwidth ...
double slice_bandwidth(double n_chips, double W_hbm);
inline constexpr Formula kSliceBw =
    record("W_slice", "n_chips * W_hbm", "B_per_s", "B.2", "n_chips W_hbm", kSymbols,
           [](const double* x) { return slice_bandwidth(x[0], x[1]); });
// ... and their peak.
double slice_peak(double n_chips, double C_peak);
inline constexpr Formula kSlicePeak =
    record("C_slice", "n_chips * C_peak", "flop_per_s", "B.2", "n_chips C_peak", kSymbols,
           [](const double* x) { return slice_peak(x[0], x[1]); });
// A.7: reading the batch's KV caches, always bandwidth-bound.
double t_kv(double B, double S, double kv_tok, double n_chips, double W_hbm);
inline constexpr Formula kTKv =
    record("T_kv", "B * S * kv_tok / (n_chips * W_hbm)", "s", "A.7", "B S kv_tok n_chips W_hbm",
           kSymbols, [](const double* x) { return t_kv(x[0], x[1], x[2], x[3], x[4]); });
// A.7: streaming every weight once.
double t_param(double P_total, double b_w, double n_chips, double W_hbm);
inline constexpr Formula kTParam =
    record("T_param", "P_total * b_w / (n_chips * W_hbm)", "s", "A.7", "P_total b_w n_chips W_hbm",
           kSymbols, [](const double* x) { return t_param(x[0], x[1], x[2], x[3]); });
// A.7: 2 FLOPs per used parameter per token.
double t_flops(double B, double P_active, double n_chips, double C_peak);
inline constexpr Formula kTFlops = record(
    "T_flops", "2 * B * P_active / (n_chips * C_peak)", "s", "A.7", "B P_active n_chips C_peak",
    kSymbols, [](const double* x) { return t_flops(x[0], x[1], x[2], x[3]); });
// A.7, the book's "theoretical step time (general)": loads and FLOPs of the weights overlap.
double step_time(double T_kv, double T_flops, double T_param);
inline constexpr Formula kTStep =
    record("T_step", "T_kv + max(T_flops, T_param)", "s", "A.7", "T_kv T_flops T_param", kSymbols,
           [](const double* x) { return step_time(x[0], x[1], x[2]); });
// A.7: the small-batch bound the LLaMA 2-13B tables use: everything read once, FLOPs hidden.
double step_time_bandwidth(double B, double S, double kv_tok, double P_total, double b_w,
                           double n_chips, double W_hbm);
inline constexpr Formula kTStepBw = record(
    "T_step", "(B * S * kv_tok + P_total * b_w) / (n_chips * W_hbm)", "s", "A.7",
    "B S kv_tok P_total b_w n_chips W_hbm", kSymbols,
    [](const double* x) { return step_time_bandwidth(x[0], x[1], x[2], x[3], x[4], x[5], x[6]); });
// A.7: tokens per second of the replica (one per sequence per step) ...
double tokens_per_s(double B, double T_step);
inline constexpr Formula kTokS =
    record("tok_s", "B / T_step", "tokens_per_s", "A.7", "B T_step", kSymbols,
           [](const double* x) { return tokens_per_s(x[0], x[1]); });
// ... and per chip.
double tokens_per_s_chip(double B, double n_chips, double T_step);
inline constexpr Formula kTokSChip =
    record("tok_s_chip", "B / (n_chips * T_step)", "tokens_per_s", "A.7", "B n_chips T_step",
           kSymbols, [](const double* x) { return tokens_per_s_chip(x[0], x[1], x[2]); });
// A.7: one reply of len_decode tokens ...
double reply_time(double len_decode, double T_step);
inline constexpr Formula kReply =
    record("T_reply", "len_decode * T_step", "s", "A.7", "len_decode T_step", kSymbols,
           [](const double* x) { return reply_time(x[0], x[1]); });
// ... and the queries a chip answers per second.
double qps_per_chip(double B, double T_step, double len_decode, double n_chips);
inline constexpr Formula kQps = record(
    "QPS", "B / (T_step * len_decode * n_chips)", "per_s", "A.7", "B T_step len_decode n_chips",
    kSymbols, [](const double* x) { return qps_per_chip(x[0], x[1], x[2], x[3]); });
// A.7: the chips' price over the tokens they make: $ per million output tokens.
double cost_per_million(double n_chips, double price, double T_step, double B);
inline constexpr Formula kCostOut =
    record("cost_out", "1e6 * n_chips * price * T_step / (3600 * B)", "usd", "A.7",
           "n_chips price T_step B", kSymbols,
           [](const double* x) { return cost_per_million(x[0], x[1], x[2], x[3]); });
// A.7: the context above which reading one sequence's cache takes longer than its FLOPs,
// S kv_tok / W_hbm = 2 P_active / C_peak.
double kv_flops_crossover(double P_active, double W_hbm, double C_peak, double kv_tok);
inline constexpr Formula kKvCrossover =
    record("S", "2 * P_active * W_hbm / (C_peak * kv_tok)", "tokens", "A.7",
           "P_active W_hbm C_peak kv_tok", kSymbols,
           [](const double* x) { return kv_flops_crossover(x[0], x[1], x[2], x[3]); });
// A.7 (applied-inference S6): a batch that fills HBM makes every chip read its whole HBM per step.
double full_hbm_step(double M_hbm, double W_hbm);
inline constexpr Formula kFullHbmStep =
    record("T_step", "M_hbm / W_hbm", "s", "A.7", "M_hbm W_hbm", kSymbols,
           [](const double* x) { return full_hbm_step(x[0], x[1]); });
// B.1: what a dollar buys, C_peak 3600 / price.
double flops_per_dollar(double C_peak, double price);
inline constexpr Formula kFlopsPerDollar =
    record("FLOPs_usd", "C_peak * 3600 / price", "ratio", "B.1", "C_peak price", kSymbols,
           [](const double* x) { return flops_per_dollar(x[0], x[1]); });

// ------------------------------------------------------------------ A.8 prefill

// A.8: a prefill of T prompt tokens is compute-bound: 2 P_active T / (n_chips C_peak MFU).
double prefill_time(double P_active, double T, double n_chips, double C_peak, double MFU);
inline constexpr Formula kTPrefill =
    record("T_prefill", "2 * P_active * T / (n_chips * C_peak * MFU)", "s", "A.8",
           "P_active T n_chips C_peak MFU", kSymbols,
           [](const double* x) { return prefill_time(x[0], x[1], x[2], x[3], x[4]); });
// A.8 with A.7's pricing: $ per million prompt tokens.
double cost_per_million_input(double n_chips, double price, double T_prefill, double T);
inline constexpr Formula kCostIn =
    record("cost_in", "1e6 * n_chips * price * T_prefill / (3600 * T)", "usd", "A.8",
           "n_chips price T_prefill T", kSymbols,
           [](const double* x) { return cost_per_million_input(x[0], x[1], x[2], x[3]); });

// ------------------------------------------------------------------ the setting of a calculation

// A serving machine, from data/chips.json: a TPU, whose slices are tori with ICI on every axis, or
// a GPU, whose slices are sets of GPUs: 1, 2, 4 ... inside its NVLink node (the fast axis), then
// whole nodes over the scale-out network (the slow axis), as the GPU chapter builds them.
struct Machine {
  enum class Kind { tpu, gpu };
  Kind kind = Kind::tpu;
  std::string id, name;
  double W_hbm = 0, M_hbm = 0;
  // TPU: ICI per link, both directions / one. GPU: W_ici is NVLink egress per GPU, each way; a
  // GPU has no one-way link figure and no hop latency (0).
  double W_ici = 0, W_ici_1way = 0;
  double t_hop = 0;
  double price = 0;  // $ per chip-hour; 0 when the tables have none
  int torus_dims = 2;
  double max_pod_chips = 0;
  // GPU: the NVLink node, the node's scale-out egress (0: the tables give none) and the most
  // nodes the GPU chapter's two-tier fat tree takes; d_node 0 for a GPU without NVLink figures.
  double d_node = 0, w_node = 0, max_nodes = 0;
  const hw::Chip* chip = nullptr;
  bool gpu() const { return kind == Kind::gpu; }
};
Machine machine_of(const hw::Chip& chip, std::string_view field = "chip");
// The same for the chapter's problems, which the book sets on TPU slices (their statements speak
// of ICI and tori): a GPU is an InputError naming `field`.
Machine tpu_of(const hw::Chip& chip, std::string_view field = "chip");
// The peak of a matmul dtype ("bf16", "int8", "fp8"); InputError naming `field` when the chip
// has none.
double peak_of(const Machine& t, std::string_view dtype, std::string_view field);

// A slice a chip comes in: chips, a shape, the axes longer than 1 and the longest axis. On a GPU
// the axes are the GPUs of a node and the nodes ({4, 1}: 4 GPUs of a node; {8, 2}: two nodes).
struct Slice {
  double chips = 1;
  std::string shape;  // "4x4", "2x2x4"; "4-GPU group", "8-GPU node", "16-GPU cluster (2 nodes)"
  std::vector<double> dims;
  double n_axes = 0;
  double max_axis = 1;
  std::vector<bool> wrap;  // per axis, by the chip's rule (tpus chapter); none on a GPU
};
// A.6: the slices of a chip by size: 1, 4, 8, 16 ... up to the pod (2D: 1x1, 2x2, 2x4, 4x4, ...,
// 16x16; 3D: 2x2x1, 2x2x2, 2x2x4, ...). A GPU: 1, 2, 4 ... GPUs of a node, the node (8; 72 on
// NVL72), then 2, 4, 8 ... nodes up to what the fat tree takes (one GPU without NVLink figures).
std::vector<Slice> slices(const Machine& t);
// The smallest slice of at least `chips` chips; nullptr when the pod is too small.
const Slice* smallest_slice(const std::vector<Slice>& all, double chips);
// The slice of exactly `chips` chips; InputError naming `field` (with the sizes there are).
Slice slice_of(const Machine& t, double chips, std::string_view field = "chips");

// Collectives over a GPU slice of n GPUs (the GPU chapter's records,
// chapters/gpus/collectives.hpp): inside a node a ring over NVLink (A.4 (1), (2), (4)); across
// whole nodes the hierarchical AllGather (A.4 (8)) and the cross-node AllToAll (A.4 (10)) over the
// scale-out network. `bytes` is the whole array. InputError naming `field` on a TPU (its
// collectives are the sharding chapter's) or a slice the machine has not. With a trace, the time is
// also written as a step
// (`what`) of the record it comes from.
double gpu_allgather_time(const Machine& t, double bytes, double n, std::string_view field,
                          Trace* tr = nullptr, std::string_view what = {});
double gpu_allreduce_time(const Machine& t, double bytes, double n, std::string_view field,
                          Trace* tr = nullptr, std::string_view what = {});
double gpu_alltoall_time(const Machine& t, double bytes, double n, std::string_view field,
                         Trace* tr = nullptr, std::string_view what = {});

// Bytes per element of a serving dtype: bf16 2, fp8 and int8 1, int4 0.5; InputError naming
// `field` for any other.
double dtype_bytes(std::string_view dtype, std::string_view field);

// A model as the step model needs it: its counts (transformers chapter) and the widths the
// sharding limits use.
struct Served {
  double P_total = 0, P_active = 0;
  double L = 0, D = 0, F = 0;  // F: the dense MLP's width, or one expert's for an all-MoE model
  double K = 0, N = 0, H = 0;
  double E = 0, k = 0;  // 0 for a dense model
  bool moe = false;
  bool plain_kv = true;  // KV bytes per token are 2 L K H b_kv (no MLA, no window)
  const transformers::Config* config = nullptr;
};
Served served(const transformers::Config& c);
// KV bytes per token at context S (averaged over the sequence for sliding-window layers; MLA's
// latent), the transformers chapter's count.
double kv_tok_of(const Served& m, double b_kv, double S);

// What a decode step costs, all terms (A.5-A.7).
struct Decode {
  double kv_batch = 0, bytes_w = 0;
  double T_kv = 0, T_param = 0, T_flops = 0, T_step = 0;
  double T_comms = 0;  // a GPU slice's AllReduces, in T_step (gpu_step_comms); 0 on a TPU
};
Decode decode(double P_total, double P_active, double b_w, double kv_tok, double C_peak,
              double W_hbm, double n_chips, double B, double S);

// Beyond the book, on a GPU slice of n > 1: the step's model-parallel collectives, two
// AllReduces of the [B, D] activation (b_a bytes) per layer (A.10's 1D model parallelism) over
// NVLink and, across nodes, the scale-out network, which the serving searches add to the step (the
// book takes a TPU's ICI to hide them). 0 on a TPU or one GPU.
double gpu_step_comms(const Machine& t, const Served& m, double B, double b_a, double n);
// The same as steps of `tr`: the activation, one AllReduce by the GPU chapter's record, two per
// layer, and the step with them (a sum step). On a TPU or one GPU: T_step, and no step written.
struct GpuComms {
  double T_allreduce = 0, T_comms = 0, T_step = 0;
};
GpuComms gpu_comms_steps(const Machine& t, const Served& m, double B, double b_a, double n,
                         double T_step, Trace& tr);
// The step with them added.
Decode with_comms(Decode d, double T_comms);

// Which term of the step dominates, in words: "weight-load bound", "KV-load bound",
// "compute-bound" or, on a GPU slice, "collective-bound".
const char* regime(const Decode& d);

}  // namespace sb::inference
