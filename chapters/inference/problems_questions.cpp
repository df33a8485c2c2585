// The inference chapter's worked problems (inference.Q1 to Q7) on its LLaMA-2-13B-like model and
// that model's 16-expert variant. Every answer is computed by the model from the givens.
#include <cmath>

#include "chapters/inference/problems.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::inference {
namespace {

double kv_tok_given(const Inputs& in, Trace& tr, double b_kv, double K) {
  return tr.step("KV bytes per token", kKvTok, {in.num("L"), K, in.num("H"), b_kv});
}

// ---- Q1 -------------------------------------------------------------------------------------

constexpr auto kQ1Given = with(
    kWorked, std::array<Param, 1>{bytes_per("bytes_per_kv", 1, "bytes per KV element (int8)")});
constexpr Slot kQ1Slots[] = {number("param_count", "count", "parameters"),
                             number("kv_bytes_per_token_int8", "B", "KV bytes per token")};
constexpr Problem kQ1{
    .id = "inference.Q1",
    .title = "Parameters and KV bytes per token",
    .statement =
        "The worked problems' model has L = {L} layers, D = {D}, F = {F}, N = {N} query heads, "
        "K = {K} KV heads of H = {H}, a vocabulary of {V}, and one matrix shared by the input and "
        "output embeddings. How many parameters does it have, and how many bytes does one token "
        "take in an int8 ({bytes_per_kv} per element) KV cache?",
    .kind = "numeric",
    .given = kQ1Given,
    .slots = kQ1Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Answers a;
          a["param_count"] = book_params(in, tr, "Parameters");
          a["kv_bytes_per_token_int8"] = kv_tok_given(in, tr, in.num("bytes_per_kv"), in.num("K"));
          a.slip("param_count",
                 params_total(in.num("L"), in.num("D"), in.num("F"), in.num("N"), in.num("K"),
                              in.num("H"), in.num("V"), 1, 2),
                 kSlipUntied);
          return a;
        },
};

// ---- Q2, Q3, Q4: the model on a v5e 4x4 ----------------------------------------------------

constexpr double kQChips[] = {8, 16, 32};
constexpr std::array<Param, 8> kSlice = {
    kChipGiven,
    chips_given(16, "chips (a 4x4)", kQChips),
    bytes_per("bytes_per_param", 1, "bytes per weight (int8)"),
    bytes_per("bytes_per_kv", 1, "bytes per KV element (int8)"),
    kHbmBytes,
    kHbmBw,
    kPeakInt8,
    kIciBidi};

constexpr auto kQ2Given = with(
    kWorked, with(kSlice, std::array<Param, 2>{
                              tokens("seq_len_tokens", 128000, "context S (128k read as 128,000)"),
                              heads("K_variant", 1, "KV heads of the variant")}));
constexpr Slot kQ2Slots[] = {number("kv_bytes_per_seq", "B", "KV bytes of one sequence"),
                             number("max_batch", "tokens", "sequences that fit"),
                             number("max_batch_k1", "tokens", "sequences that fit, one KV head")};
constexpr Problem kQ2{
    .id = "inference.Q2",
    .title = "Largest batch on a v5e 4x4",
    .statement =
        "The worked problems' model (L = {L}, D = {D}, F = {F}, N = {N}, K = {K}, H = {H}, V = "
        "{V}, "
        "shared embeddings) serves in int8 weights and int8 KV on {n_chips} ({chip}, "
        "{hbm_per_chip_B} each), its caches spread over all of them. How many bytes does one "
        "sequence of {seq_len_tokens} take, how many such sequences fit beside the weights, and "
        "how "
        "many with {K_variant} KV {K_variant|head|heads}?",
    .kind = "numeric",
    .given = kQ2Given,
    .slots = kQ2Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double S = in.num("seq_len_tokens"), n = in.num("n_chips");
          const double M = in.num("hbm_per_chip_B"), b_kv = in.num("bytes_per_kv");
          const double w = tr.step("Weights", kWeightBytes,
                                   {book_params(in, tr, "Parameters"), in.num("bytes_per_param")});
          const double free = tr.step("HBM left beside them", kFreeHbm, {n, M, w});
          if (free <= 0) fail("n_chips", "the weights alone fill these chips", "out_of_range");
          const double kv = kv_tok_given(in, tr, b_kv, in.num("K"));
          const double kv1 = kv_tok_given(in, tr, b_kv, in.num("K_variant"));
          Answers a;
          a["kv_bytes_per_seq"] = tr.step("One sequence", kKvSeq, {S, kv});
          a["max_batch"] = tr.step("Sequences that fit", kMaxBatch, {free, S, kv});
          a["max_batch_k1"] = tr.step("With the variant's KV heads", kMaxBatch, {free, S, kv1});
          return a;
        },
};

constexpr auto kQ3Given = with(kWorked, kSlice);
constexpr Slot kQ3Slots[] = {number("weight_load_time_s", "s", "time to read every weight")};
constexpr Problem kQ3{
    .id = "inference.Q3",
    .title = "Time to stream all weights",
    .statement =
        "The same model's int8 weights ({bytes_per_param} each) are sharded over {n_chips} "
        "({chip}, {hbm_bw_Bps} each). How long does reading every weight once take: the floor "
        "of a decode step at small batch?",
    .kind = "numeric",
    .given = kQ3Given,
    .slots = kQ3Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double P = book_params(in, tr, "Parameters"), b = in.num("bytes_per_param");
          const double W = in.num("hbm_bw_Bps");
          Answers a;
          a["weight_load_time_s"] =
              tr.step("Every weight once", kTParam, {P, b, in.num("n_chips"), W});
          a.slip("weight_load_time_s", t_param(P, b, 1, W), kSlipNoChips);
          return a;
        },
};

constexpr auto kQ4Given =
    with(kWorked, with(kSlice, std::array<Param, 1>{ratio_given(
                                   "hbm_to_ici_bw_ratio_text", 8,
                                   "HBM over ICI bandwidth as the text rounds it", 0.5, 100)}));
constexpr Slot kQ4Slots[] = {
    number("max_batch_for_16way_decode", "tokens", "largest batch for decode over all chips"),
    number("step_time_weights_only_s", "s", "step floor: weights only"),
    number("step_time_b7_128k_s", "s", "step: 7 sequences of 128k"),
    number("step_time_b32_8k_s", "s", "step: 32 sequences of 8k")};

Answers q4(const Inputs& in, Trace& tr) {
  const double n = in.num("n_chips"), W = in.num("hbm_bw_Bps"), C = in.num("peak_int8_flops_per_s");
  const double b_w = in.num("bytes_per_param");
  const double P = book_params(in, tr, "Parameters");
  const double kv = kv_tok_given(in, tr, in.num("bytes_per_kv"), in.num("K"));
  const double r = tr.step("HBM over ICI bandwidth", kRHbmIci, {W, in.num("ici_bw_bidi_Bps")});
  Answers a;
  a["max_batch_for_16way_decode"] =
      tr.step("Decode over all chips keeps ICI hidden up to", kBMaxDecode, {in.num("F"), n, r});
  a.book("max_batch_for_16way_decode",
         y_max_decode(in.num("F"), n, in.num("hbm_to_ici_bw_ratio_text")),
         "takes the ratio as about 8");
  a["step_time_weights_only_s"] = tr.step("Weights only", kTParam, {P, b_w, n, W});
  const double cases[2][2] = {{7, 128000}, {32, 8192}};
  const char* slots[2] = {"step_time_b7_128k_s", "step_time_b32_8k_s"};
  for (int i = 0; i < 2; ++i) {
    const double B = cases[i][0], S = cases[i][1];
    const double t_k = tr.step("KV reads", kTKv, {B, S, kv, n, W});
    const double t_f = tr.step("FLOPs (int8 matmuls)", kTFlops, {B, P, n, C});
    a[slots[i]] = tr.step("The step", kTStep, {t_k, t_f, a["step_time_weights_only_s"]});
  }
  return a;
}

constexpr Problem kQ4{
    .id = "inference.Q4",
    .title = "Sharding and decode latency on 4x4",
    .statement =
        "The same model runs on {n_chips} ({chip}: {hbm_bw_Bps}, {peak_int8_flops_per_s} in int8, "
        "{ici_bw_bidi_Bps} of ICI per link both ways), weights, caches, activations and matmuls "
        "all in int8. Up to which batch does decode split over all the chips keep its ICI under "
        "the weight loads? What is the step's floor from the weights alone, and the step for 7 "
        "sequences of 128,000 tokens and for 32 sequences of 8192?",
    .kind = "numeric",
    .given = kQ4Given,
    .slots = kQ4Slots,
    .solve = q4,
};

}  // namespace

void add_problems_questions(Registry& r) {
  static constexpr Problem kAll[] = {kQ1, kQ2, kQ3, kQ4};
  r.add(kAll);
  add_problems_moe(r);
}

}  // namespace sb::inference
