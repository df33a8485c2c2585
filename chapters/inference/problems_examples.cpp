// The inference chapter's inline examples and its pop quiz (ids, slots and units as in
// shared/book/problems/inference.json); every answer is computed by the model from the problem's
// own inputs.
#include <cmath>

#include "chapters/inference/problems.hpp"
#include "chapters/roofline/model.hpp"
#include "core/units.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::inference {

double book_params(const Inputs& in, Trace& tr, Text what, double E) {
  return tr.step(what, kPTotal,
                 {in.num("L"), E, in.num("D"), in.num("F"), in.num("H"), in.num("N"), in.num("K"),
                  in.num("n_emb"), in.num("V")});
}

namespace {

// ---- E1: critical batch ------------------------------------------------------------------------

constexpr Param kE1Given[] = {
    kChipGiven,
    kPeakBf16,
    kPeakInt8,
    kHbmBw,
    rate("h100_peak_bf16_flops_per_s", "flop_per_s", 9.9e14, "H100 peak bf16 FLOPs/s"),
    rate("h100_hbm_bw_Bps", "B_per_s", 3.35e12, "H100 HBM bandwidth"),
    rate("b200_peak_bf16_flops_per_s", "flop_per_s", 2.25e15,
         "B200 peak bf16 FLOPs/s (Part 12 rounds the two GPUs together)"),
    rate("b200_hbm_bw_Bps", "B_per_s", 8e12, "B200 HBM bandwidth")};
constexpr Slot kE1Slots[] = {
    number("b_crit_bf16_w_bf16_matmul", "tokens", "bf16 weights, bf16 matmuls"),
    number("b_crit_int8_w_bf16_matmul", "tokens", "int8 weights, bf16 matmuls"),
    number("b_crit_int8_w_int8_matmul", "tokens", "int8 weights, int8 matmuls"),
    number("b_crit_int4_w_bf16_matmul", "tokens", "int4 weights, bf16 matmuls"),
    number("b_crit_h100_bf16", "tokens", "H100, bf16")};
constexpr Problem kE1{
    .id = "inference.E1",
    .title = "Critical token batch for decode matmuls",
    .statement =
        "A decode matmul [B, D] x [D, F] streams its weights from HBM. On a {chip} "
        "({peak_bf16_flops_per_s} in bf16, {peak_int8_flops_per_s} in int8, {hbm_bw_Bps} of HBM "
        "bandwidth), how many tokens must the batch hold, with B much smaller than D and F, before "
        "the matmul is compute-bound? Answer for bf16 weights in bf16 matmuls, int8 weights in "
        "bf16 matmuls, int8 weights in int8 matmuls and int4 weights in bf16 matmuls; then for "
        "bf16 on an H100 ({h100_peak_bf16_flops_per_s}, {h100_hbm_bw_Bps}).",
    .kind = "numeric",
    .given = kE1Given,
    .slots = kE1Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double C = in.num("peak_bf16_flops_per_s"), C8 = in.num("peak_int8_flops_per_s");
          const double W = in.num("hbm_bw_Bps");
          tr.note("Compute-bound once $2 B D F / C_{peak} \\ge b_w D F / W_{hbm}$.");
          Answers a;
          a["b_crit_bf16_w_bf16_matmul"] = tr.step("bf16 weights, bf16 matmuls", kBCrit, {2, C, W});
          a["b_crit_int8_w_bf16_matmul"] = tr.step("int8 weights, bf16 matmuls", kBCrit, {1, C, W});
          a["b_crit_int8_w_int8_matmul"] =
              tr.step("int8 weights, int8 matmuls", kBCrit, {1, C8, W});
          a["b_crit_int4_w_bf16_matmul"] =
              tr.step("int4 weights, bf16 matmuls", kBCrit, {0.5, C, W});
          a["b_crit_h100_bf16"] =
              tr.step("H100, bf16", kBCrit,
                      {2, in.num("h100_peak_bf16_flops_per_s"), in.num("h100_hbm_bw_Bps")});
          a.book("b_crit_h100_bf16",
                 critical_batch(2, in.num("b200_peak_bf16_flops_per_s"), in.num("b200_hbm_bw_Bps")),
                 "rounds the H100's figure and the B200's together to about 280");
          a.slip("b_crit_int8_w_bf16_matmul", critical_batch(2, C, W),
                 "int8 weights are 1 byte each: half the bytes per FLOP, so half the batch.");
          a.slip("b_crit_int8_w_int8_matmul", critical_batch(2, C8, W),
                 "With the int8 peak the weights are 1 byte, not 2: B_crit = (1/2) C_int8 / W.");
          a.slip("b_crit_int4_w_bf16_matmul", critical_batch(2, C, W),
                 "int4 is half a byte per weight: a quarter of bf16's batch.");
          return a;
        },
    .hint = "A weight-streaming matmul's intensity is about 2B / b_w; compare it with C / W_hbm.",
};

// ---- E2: attention intensity ----------------------------------------------------------------

constexpr double kE2Ss[] = {2048, 8192, 32768};
constexpr Param kE2Given[] = {
    kChipGiven, kPeakBf16, kHbmBw,
    tokens("seq_len_tokens_decode_example", 8192, "context of the decode example, S", kE2Ss)};
constexpr Slot kE2Slots[] = {
    number("prefill_len_compute_bound", "tokens", "prefill length above which it is compute-bound"),
    number("decode_intensity_at_8k", "flop_per_B", "decode intensity at S")};
constexpr Problem kE2{
    .id = "inference.E2",
    .title = "Attention intensity in prefill and decode",
    .statement =
        "Flash attention of T queries against S cached keys does 4BSTD FLOPs and moves 4BSD + 4BTD "
        "bytes in bf16. On a {chip} ({peak_bf16_flops_per_s}, {hbm_bw_Bps}), above which prompt "
        "length is prefill attention (S = T) compute-bound? What is the intensity of decoding one "
        "token against a cache of {seq_len_tokens_decode_example}?",
    .kind = "formula",
    .given = kE2Given,
    .slots = kE2Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double C = in.num("peak_bf16_flops_per_s"), W = in.num("hbm_bw_Bps");
          const double S = in.num("seq_len_tokens_decode_example");
          tr.note("Intensity $S T / (S + T)$: $T / 2$ when $S = T$, about 1 when $T = 1$.");
          Answers a;
          a["prefill_len_compute_bound"] =
              tr.step("Prefill: $T / 2 > C_{peak} / W_{hbm}$", kAttnPrefillT, {C, W});
          a["decode_intensity_at_8k"] = tr.step("Decode: one query", kAttnIntensity, {S, 1});
          a.slip("prefill_len_compute_bound", roofline::critical_intensity(C, W),
                 "Prefill attention's intensity is T / 2, not T: the length must be twice the "
                 "chip's ridge.");
          return a;
        },
};

// ---- Pop quiz --------------------------------------------------------------------------------

constexpr double kPqChips[] = {8, 16, 32};
constexpr std::array<Param, 9> kPqBase = {
    kChipGiven,
    param_count("param_count", 30e9, "parameters P"),
    bytes_per("bytes_per_param", 1, "bytes per weight (int8)"),
    memory("kv_bytes_per_token_B", 1e5, "KV-cache bytes per token (int8)"),
    chips_given(16, "chips (a 4x4)", kPqChips),
    kHbmBw,
    kPeakBf16,
    tokens("seq_len_tokens", 8192, "context S"),
    count("batch_tokens", 4, "sequences in the batch", {}, 1, 1e7)};
constexpr auto kPq1bGiven = [] {
  auto g = kPqBase;
  g[8].def = 256;
  return g;
}();

struct Pq {
  double P, b_w, kv_tok, n, W, C, S, B;
};
Pq pq_of(const Inputs& in) {
  return {in.num("param_count"),    in.num("bytes_per_param"), in.num("kv_bytes_per_token_B"),
          in.num("n_chips"),        in.num("hbm_bw_Bps"),      in.num("peak_bf16_flops_per_s"),
          in.num("seq_len_tokens"), in.num("batch_tokens")};
}

constexpr Slot kPq1aSlots[] = {number("kv_bytes_per_seq", "B", "KV cache of one sequence"),
                               number("step_time_s", "s", "lower bound on one step")};
constexpr Problem kPq1a{
    .id = "inference.PQ1.a",
    .title = "Decode step lower bound, small batch",
    .statement =
        "A {param_count}-parameter dense model with int8 weights ({bytes_per_param} each) and int8 "
        "KV caches of {kv_bytes_per_token_B} per token runs on {n_chips} ({chip}, "
        "{hbm_bw_Bps} each). What is one sequence's cache at {seq_len_tokens}, and a lower bound "
        "on one decode step for {batch_tokens} such sequences?",
    .kind = "numeric",
    .given = kPqBase,
    .slots = kPq1aSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const Pq q = pq_of(in);
          Answers a;
          a["kv_bytes_per_seq"] = tr.step("One sequence's cache", kKvSeq, {q.S, q.kv_tok});
          tr.note("A small batch is bandwidth-bound: every byte is read once per step.");
          a["step_time_s"] = tr.step("Weights and caches over the chips' bandwidth", kTStepBw,
                                     {q.B, q.S, q.kv_tok, q.P, q.b_w, q.n, q.W});
          a.book("step_time_s", step_time_bandwidth(q.B, q.S, q.kv_tok, q.P, q.b_w, q.n, 8.1e11),
                 "divided by 8.1e11 B/s before May 2026");
          a.slip("step_time_s", t_param(q.P, q.b_w, q.n, q.W), kSlipNoKv);
          a.slip("step_time_s", step_time_bandwidth(q.B, q.S, q.kv_tok, q.P, q.b_w, 1, q.W),
                 kSlipNoChips);
          return a;
        },
};

constexpr Slot kPq1bSlots[] = {number("t_kv_s", "s", "KV-cache reads"),
                               number("t_flops_s", "s", "FLOPs"),
                               boolean("mlp_compute_bound", "the MLP is compute-bound"),
                               number("step_time_s", "s", "one step")};
constexpr Problem kPq1b{
    .id = "inference.PQ1.b",
    .title = "Decode step estimate, large batch",
    .statement =
        "The same {param_count}-parameter model (int8 weights, {kv_bytes_per_token_B} of KV per "
        "token) on {n_chips} ({chip}, {hbm_bw_Bps} and {peak_bf16_flops_per_s} in bf16 "
        "each) now decodes {batch_tokens} sequences of {seq_len_tokens}. How long do the KV reads "
        "and the "
        "FLOPs take, is the MLP compute-bound, and roughly how long is one step?",
    .kind = "numeric",
    .given = kPq1bGiven,
    .slots = kPq1bSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const Pq q = pq_of(in);
          Answers a;
          const double kv = tr.step("KV reads", kTKv, {q.B, q.S, q.kv_tok, q.n, q.W});
          const double fl = tr.step("FLOPs", kTFlops, {q.B, q.P, q.n, q.C});
          const double w = tr.step("Weight reads", kTParam, {q.P, q.b_w, q.n, q.W});
          const double bc =
              tr.step("Critical batch, int8 weights in bf16", kBCrit, {q.b_w, q.C, q.W});
          a["t_kv_s"] = kv;
          a["t_flops_s"] = fl;
          a["mlp_compute_bound"] = q.B > bc ? 1 : 0;
          a["step_time_s"] = tr.step("The step", kTStep, {kv, fl, w});
          a.book("step_time_s",
                 step_time(t_kv(q.B, q.S, q.kv_tok, q.n, 8.1e11), fl,
                           t_param(q.P, q.b_w, q.n, 8.1e11)),
                 "divided by 8.1e11 B/s before May 2026");
          a.slip("step_time_s", step_time_bandwidth(q.B, q.S, q.kv_tok, q.P, q.b_w, q.n, q.W),
                 "That leaves the FLOPs out: above the critical batch the MLP's FLOPs take longer "
                 "than its weight loads, so the step is T_kv + T_flops.");
          return a;
        },
};

// ---- E3, E4: LLaMA 2-13B's parameters and cache -------------------------------------------

constexpr auto kE3Given =
    with(kLlama13,
         std::array<Param, 2>{tokens("prefill_tokens", 8192, "prompt tokens of the prefill, T"),
                              bytes_per("bytes_per_elem", 2, "bytes per element (bf16)")});
constexpr Slot kE3Slots[] = {
    number("ffw_params", "count", "MLP parameters"),
    number("vocab_params", "count", "vocabulary parameters"),
    number("attention_params", "count", "attention parameters"),
    number("total_params", "count", "parameters in all"),
    number("weight_bytes_bf16", "B", "bytes of the weights"),
    number("prefill_activation_bytes_8k", "B", "one activation of the prefill")};
constexpr Problem kE3{
    .id = "inference.E3",
    .title = "LLaMA 2-13B parameter and memory count",
    .statement =
        "LLaMA 2-13B has L = {L} layers, D = {D}, F = {F}, N = {N} query heads, K = {K} KV heads "
        "of H = {H}, a vocabulary of {V} and separate input and output embeddings. Count its MLP, "
        "vocabulary and attention parameters and their total, the bytes of its weights at "
        "{bytes_per_elem} each, and the bytes of one [T, D] activation of a prefill of "
        "{prefill_tokens}.",
    .kind = "numeric",
    .given = kE3Given,
    .slots = kE3Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double L = in.num("L"), D = in.num("D"), b = in.num("bytes_per_elem");
          Answers a;
          const double mlp = tr.step("MLP: three matrices per layer", kPMlp, {L, D, in.num("F")});
          const double voc = tr.step("Vocabulary", kPVocab, {in.num("n_emb"), D, in.num("V")});
          const double att = tr.step("Attention: Q, K, V and O", kPAttn,
                                     {L, D, in.num("H"), in.num("N"), in.num("K")});
          a["ffw_params"] = mlp;
          a["vocab_params"] = voc;
          a["attention_params"] = att;
          a["total_params"] = tr.sum("All of it", "P_total", "params",
                                     {{"P_mlp", mlp}, {"P_vocab", voc}, {"P_attn", att}});
          a["weight_bytes_bf16"] =
              tr.step("Bytes of the weights", kWeightBytes, {a["total_params"], b});
          a["prefill_activation_bytes_8k"] = tr.step("One activation of the prefill", kActivation,
                                                     {in.num("prefill_tokens"), D, b});
          a.slip("vocab_params", vocab_params(D, in.num("V"), 1),
                 "LLaMA 2 keeps separate input and output embeddings: 2 D V.");
          return a;
        },
};

constexpr auto kE4Given = with(
    kLlama13,
    std::array<Param, 3>{bytes_per("bytes_per_elem", 2, "bytes per element (bf16)"),
                         tokens("seq_len_tokens", 8192, "tokens in the sequence, S"),
                         count("sequences", 4, "sequences compared with the weights", {}, 1, 1e6)});
constexpr Slot kE4Slots[] = {
    number("kv_bytes_per_token", "B", "KV bytes per token"),
    number("kv_bytes_per_seq", "B", "KV bytes of one sequence"),
    boolean("four_seqs_exceed_weights", "the caches outweigh the weights")};
constexpr Problem kE4{
    .id = "inference.E4",
    .title = "LLaMA 2-13B KV cache per sequence",
    .statement =
        "LLaMA 2-13B (L = {L}, D = {D}, F = {F}, N = K = {K}, H = {H}, V = {V}, separate "
        "embeddings) keeps its cache in bf16 ({bytes_per_elem} per element). How many bytes does "
        "a token take in the cache, and one sequence of {seq_len_tokens}? Do {sequences} such "
        "sequences outweigh the bf16 weights?",
    .kind = "numeric",
    .given = kE4Given,
    .slots = kE4Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double b = in.num("bytes_per_elem");
          Answers a;
          a["kv_bytes_per_token"] =
              tr.step("Per token", kKvTok, {in.num("L"), in.num("K"), in.num("H"), b});
          a["kv_bytes_per_seq"] =
              tr.step("One sequence", kKvSeq, {in.num("seq_len_tokens"), a["kv_bytes_per_token"]});
          const double P = book_params(in, tr, "Parameters");
          const double w = tr.step("Weights", kWeightBytes, {P, b});
          const double kv =
              tr.step("The sequences' caches", kKvBatch,
                      {in.num("sequences"), in.num("seq_len_tokens"), a["kv_bytes_per_token"]});
          a["four_seqs_exceed_weights"] = kv > w ? 1 : 0;
          a.slip("kv_bytes_per_token",
                 kv_bytes_per_token(in.num("L"), in.num("K"), in.num("H"), b) / 2,
                 "Count both a key and a value per KV head: the factor 2.");
          return a;
        },
};

}  // namespace

void add_problems_examples(Registry& r) {
  static constexpr Problem kAll[] = {kE1, kE2, kPq1a, kPq1b, kE3, kE4};
  r.add(kAll);
}

}  // namespace sb::inference
