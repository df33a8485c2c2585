// "What about prefill?": the prefill time (S10), the churn of continuous batching (S11) and the
// prefill servers a generate server needs (S12); then the worked problems: LLaMA 3-405B's lower
// bounds (Q1), LLaMA 3-8B's memory (Q2) and serving 405B under a latency limit (Q3). Every
// expected answer is computed by the models from the problem's givens.
#include <algorithm>
#include <cmath>

#include "chapters/applied_inference/problems.hpp"
#include "chapters/inference/serving.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::applied_inference {
namespace {

namespace inf = inference;

constexpr double kPrompts[] = {2048, 8192, 32768};
constexpr Param kS10Given[] = {
    kP70,           kChipGiven,
    kPeakBf16,      chip_count("n_chips", 16, "chips of the prefill server"),
    mfu_given(0.4), tokens("seq_len_tokens", 8192, "prompt tokens", kPrompts)};
constexpr Slot kS10Slots[] = {number("prefill_time_s", "s", "prefill time")};
constexpr Problem kS10{
    .id = "applied-inference.S10",
    .title = "Prefill time for 8k tokens",
    .statement =
        "How long does LLaMA 3-70B ({param_count}) take to prefill one prompt of "
        "{seq_len_tokens} on {n_chips} ({chip}: {peak_bf16_flops_per_s} each in bf16) at "
        "{mfu} of the peak? Leave out attention's FLOPs.",
    .kind = "numeric",
    .given = kS10Given,
    .slots = kS10Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const double P = in.num("param_count"), T = in.num("seq_len_tokens");
          const double n = in.num("n_chips"), C = in.num("peak_bf16_flops_per_s");
          Answers a;
          a["prefill_time_s"] = t.step("Prefill", inf::kTPrefill, {P, T, n, C, in.num("mfu")});
          a.slip("prefill_time_s", inf::prefill_time(P, T, n, C, 1),
                 "That is the time at the full peak: divide by the MFU as well.");
          return a;
        },
    .hint = "A prefill is compute-bound: 2 FLOPs per parameter per prompt token.",
};

constexpr Param kS11Given[] = {count("batch_tokens", 32, "sequences in the decode batch"),
                               tokens("prefill_len_tokens", 8192, "prompt tokens per sequence"),
                               tokens("decode_len_tokens", 4096, "mean reply length")};
constexpr Slot kS11Slots[] = {
    number("sequences_finished_per_step", "count", "sequences that finish per step"),
    number("kv_tokens_freed_per_step", "tokens", "KV tokens freed per step")};
constexpr Problem kS11{
    .id = "applied-inference.S11",
    .title = "Sequences finishing and tokens freed per step",
    .statement =
        "A decode batch holds {batch_tokens} sequences with prompts of {prefill_len_tokens} and "
        "replies of {decode_len_tokens} on average. How many sequences finish per decode step, "
        "and how many KV-cache tokens does that free?",
    .kind = "numeric",
    .given = kS11Given,
    .slots = kS11Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const double B = in.num("batch_tokens"), len = in.num("decode_len_tokens");
          Answers a;
          a["sequences_finished_per_step"] = t.step("Sequences done", inf::kChurn, {B, len});
          a["kv_tokens_freed_per_step"] =
              t.step("Tokens freed", inf::kKvFreed, {B, in.num("prefill_len_tokens"), len});
          a.slip("kv_tokens_freed_per_step", B * in.num("prefill_len_tokens") / len,
                 "That frees the prompt alone: a finished sequence also frees its reply's "
                 "tokens.");
          return a;
        },
};

constexpr Param kS12Given[] = {
    ranged("prefill_time_s", "s", 0.909645, "prefill of one prompt (S10)", 1e-6, 1e4),
    ranged("decode_step_s", "s", 0.0194685, "decode step of a generate server (S6)", 1e-6, 1e3),
    tokens("batch_tokens", 32, "decode batch (the chapter's 43, called 32)"),
    tokens("batch_full_tokens", 43, "the batch the chapter derived"), kLenDecode};
constexpr Slot kS12Slots[] = {
    number("prefill_to_generate_servers", "ratio", "prefill servers per generate server"),
    number("prefill_to_generate_servers_b43", "ratio", "the same at the derived batch")};
constexpr Problem kS12{
    .id = "applied-inference.S12",
    .title = "Prefill to generate server ratio",
    .statement =
        "Prefill servers take {prefill_time_s} per prompt; a generate server runs a batch of "
        "{batch_tokens} with steps of {decode_step_s} and replies of {decode_len_tokens}. How "
        "many prefill servers keep one generate server busy? And with a batch of "
        "{batch_full_tokens}?",
    .kind = "numeric",
    .given = kS12Given,
    .slots = kS12Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const double pre = in.num("prefill_time_s"), st = in.num("decode_step_s");
          const double len = in.num("decode_len_tokens");
          Answers a;
          a["prefill_to_generate_servers"] =
              t.step("Prefill servers per generate server", inf::kServerRatio,
                     {pre, in.num("batch_tokens"), st, len});
          a["prefill_to_generate_servers_b43"] =
              t.step("At the derived batch", inf::kServerRatio,
                     {pre, in.num("batch_full_tokens"), st, len});
          t.note(
              "A generate server finishes $B / (T_{step} \\, len_{decode})$ requests a second; "
              "a prefill server starts $1 / T_{prefill}$.");
          return a;
        },
};

constexpr double kQ1Batches[] = {1, 32, 240};
constexpr Param kP405 = param_count("param_count", 405849243648, "parameters P (LLaMA 3-405B)");
constexpr Param kQ1Given[] = {kP405, kChipGiven, kPeakBf16, kHbmBw,
                              tokens("batch_tokens", 1, "tokens in the batch", kQ1Batches)};
constexpr Slot kQ1Slots[] = {
    number("flops_per_token", "flop", "forward FLOPs per token"),
    number("t_flops_bound_times_n_chips_s", "s", "FLOPs bound times the chips"),
    number("t_hbm_bound_times_n_chips_s_bf16", "s", "bandwidth bound times the chips, bf16"),
    number("t_hbm_bound_times_n_chips_s_int8", "s", "bandwidth bound times the chips, int8")};
constexpr Problem kQ1{
    .id = "applied-inference.Q1",
    .title = "LLaMA 3-405B FLOPs and lower bounds",
    .statement =
        "LLaMA 3-405B has {param_count}. How many FLOPs does a forward pass take per token? On n "
        "{chip} chips ({peak_bf16_flops_per_s} and {hbm_bw_Bps} each), what is the FLOPs-bound "
        "lower bound on a forward pass of {batch_tokens}, and the bandwidth-bound one with bf16 "
        "and with int8 weights? Give each bound times n (ignore that the model does not fit on "
        "one chip).",
    .kind = "numeric",
    .given = kQ1Given,
    .slots = kQ1Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const double P = in.num("param_count"), C = in.num("peak_bf16_flops_per_s");
          const double W = in.num("hbm_bw_Bps"), B = in.num("batch_tokens");
          Answers a;
          a["flops_per_token"] = t.step("FLOPs per token", inf::kFlopsPerToken, {P});
          t.note("On one chip, which is $n$ times the bound on $n$ chips:");
          a["t_flops_bound_times_n_chips_s"] = t.step("FLOPs bound", inf::kTFlops, {B, P, 1, C});
          a["t_hbm_bound_times_n_chips_s_bf16"] =
              t.step("Loading bf16 weights", inf::kTParam, {P, 2, 1, W});
          a["t_hbm_bound_times_n_chips_s_int8"] =
              t.step("Loading int8 weights", inf::kTParam, {P, 1, 1, W});
          a.slip("flops_per_token", P,
                 "A multiply-add is 2 FLOPs: a forward pass does 2 per parameter per token.");
          return a;
        },
};

constexpr Param kQ2Given[] = {count("L", 32, "layers L", {}, 1, 1000),
                              count("K", 8, "KV heads K", {}, 1, 1e4),
                              count("H", 128, "head dimension H", {}, 1, 1e4),
                              param_count("param_count", 8029995008, "parameters P (LLaMA 3-8B)"),
                              bytes_per("bytes_per_weight", 1, "bytes per weight (int8)"),
                              bytes_per("bytes_per_kv", 1, "bytes per KV element (int8)"),
                              kChipGiven,
                              kHbmBytes,
                              count("batch_tokens", 240, "sequences in the batch"),
                              tokens("seq_len_tokens", 8192, "tokens in each sequence (assumed)")};
constexpr Slot kQ2Slots[] = {number("weight_bytes", "B", "weight bytes"),
                             number("kv_bytes_total", "B", "KV bytes of the batch"),
                             number("smallest_slice_chips", "chips", "smallest slice")};
constexpr Problem kQ2{
    .id = "applied-inference.Q2",
    .title = "LLaMA 3-8B memory at batch 240",
    .statement =
        "Serve LLaMA 3-8B ({param_count}; L = {L}, K = {K}, H = {H}) with weights at "
        "{bytes_per_weight} and cache at {bytes_per_kv} per element, {batch_tokens} sequences of "
        "{seq_len_tokens}. How many bytes do the weights and the caches take, and what is the "
        "smallest {chip} slice ({hbm_per_chip_B} per chip) that holds them?",
    .kind = "numeric",
    .given = kQ2Given,
    .slots = kQ2Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const Given g = given_of(in, kModel | kMemory);
          const double B = in.num("batch_tokens"), S = in.num("seq_len_tokens");
          Answers a;
          const double w = a["weight_bytes"] =
              t.step("Weight bytes", inf::kWeightBytes, {g.P, in.num("bytes_per_weight")});
          const double kv = kv_tok_step(g, in.num("bytes_per_kv"), t);
          const double batch = a["kv_bytes_total"] =
              t.step("The caches", inf::kKvBatch, {B, S, kv});
          const double n = t.step("Chips", kMinChips, {w, batch, g.M});
          a["smallest_slice_chips"] = slice_step(g, n, t);
          a.slip("kv_bytes_total", inf::kv_bytes_batch(B, S, kv / 2), kSlipKeysOnly);
          t.note(
              "Activations of a decode step are a few MB per layer: they do not move the slice.");
          return a;
        },
};

constexpr double kQ3Limits[] = {0.01, 0.015, 0.03};
constexpr Param kQ3Given[] = {
    count("L", 126, "layers L", {}, 1, 1000),
    count("K", 8, "KV heads K", {}, 1, 1e4),
    count("H", 128, "head dimension H", {}, 1, 1e4),
    kP405,
    bytes_per("bytes_per_weight", 1, "bytes per weight (int8)"),
    bytes_per("bytes_per_kv", 1, "bytes per KV element (int8, assumed)"),
    kChipGiven,
    kPeakBf16,
    kHbmBw,
    kHbmBytes,
    ranged("latency_limit_s", "s", 0.015, "longest step allowed", 1e-4, 10, kQ3Limits),
    chip_count("n_chips_try", 32, "a slice to try first"),
    tokens("seq_len_tokens", 8192, "tokens in each sequence (assumed)")};
constexpr Slot kQ3Slots[] = {
    number("min_step_time_s_256_chips", "s", "lowest step, on the whole pod"),
    number("weights_only_step_s_32_chips", "s", "weights alone on the slice tried"),
    number("smallest_slice_meeting_limit_chips", "chips", "smallest slice within the limit"),
    number("max_batch_64_chips", "tokens", "largest batch there"),
    number("throughput_tokens_per_s_per_chip", "tokens_per_s", "tokens per second per chip")};

// Q3's slice: the smallest whose weight loads leave room for a batch within the limit, and the
// largest batch there (memory and latency both bound it).
struct Q3Slice {
  double chips = 0, B = 0, B_loads = 0;
};
Q3Slice q3_slice(const Given& g, double b_w, double kv, double S, double limit) {
  for (const inf::Slice& s : inf::slices(g.machine)) {
    const double free = inf::free_hbm(s.chips, g.M, inf::weight_bytes(g.P, b_w));
    if (free <= 0) continue;
    const double mem = inf::max_batch(free, S, kv);
    const double kv1 = inf::t_kv(1, S, kv, s.chips, g.W);
    const double loads = batch_under_limit_loads(limit, inf::t_param(g.P, b_w, s.chips, g.W), kv1);
    const double flops = batch_under_limit_flops(limit, kv1, inf::t_flops(1, g.P, s.chips, g.C));
    const double B = std::min({mem, loads, flops});
    if (B >= 1) return {s.chips, B, std::min(mem, loads)};
  }
  fail("latency_limit_s", "no slice of the pod serves a sequence within it", "out_of_range");
}

constexpr Problem kQ3{
    .id = "applied-inference.Q3",
    .title = "Serving LLaMA 3-405B under 15 ms",
    .statement =
        "Serve LLaMA 3-405B ({param_count}; L = {L}, K = {K}, H = {H}) with weights at "
        "{bytes_per_weight} and cache at {bytes_per_kv} per element, caches of {seq_len_tokens}, "
        "on {chip} slices ({hbm_per_chip_B} and {hbm_bw_Bps} per chip, {peak_bf16_flops_per_s} "
        "bf16 matmuls), with steps of at most {latency_limit_s}. What is the lowest step on a "
        "whole pod? What do the weights alone take on {n_chips_try}? Which is the smallest "
        "slice within the limit, the largest batch there, and its tokens per second per chip?",
    .kind = "numeric",
    .given = kQ3Given,
    .slots = kQ3Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const Given g = given_of(in, kModel | kMemory | kStep);
          const double b = in.num("bytes_per_weight"), S = in.num("seq_len_tokens");
          const double limit = in.num("latency_limit_s");
          const double kv = kv_tok_step(g, in.num("bytes_per_kv"), t);
          const double pod = t.value("The whole pod", inf::slices(g.machine).back().chips, "chips");
          Answers a;
          a["min_step_time_s_256_chips"] =
              t.step("The weights alone on it", inf::kTParam, {g.P, b, pod, g.W});
          a["weights_only_step_s_32_chips"] =
              t.step("On the slice tried", inf::kTParam, {g.P, b, in.num("n_chips_try"), g.W});
          const Q3Slice q = q3_slice(g, b, kv, S, limit);
          const double n = a["smallest_slice_meeting_limit_chips"] = t.value(
              "The smallest slice with room for a batch within the limit", q.chips, "chips");
          const double tp = t.step("Weights on it", inf::kTParam, {g.P, b, n, g.W});
          const double kv1 = t.step("One sequence's cache", inf::kTKv, {1, S, kv, n, g.W});
          const double f1 = t.step("One sequence's FLOPs", inf::kTFlops, {1, g.P, n, g.C});
          t.step("Batch while the weight loads count", kBatchLoads, {limit, tp, kv1});
          t.step("Batch once the FLOPs count", kBatchFlops, {limit, kv1, f1});
          a["max_batch_64_chips"] =
              t.value("The smaller of the two (and of what HBM holds)", q.B, "tokens");
          const double st =
              inf::step_time(inf::t_kv(q.B, S, kv, n, g.W), inf::t_flops(q.B, g.P, n, g.C), tp);
          a["throughput_tokens_per_s_per_chip"] =
              t.step("Tokens per second per chip", inf::kTokSChip, {q.B, n, st});
          const double st_bw = inf::step_time_bandwidth(q.B_loads, S, kv, g.P, b, n, g.W);
          a.book("max_batch_64_chips", q.B_loads, "counts the loads alone, not the FLOPs");
          a.book("throughput_tokens_per_s_per_chip", inf::tokens_per_s_chip(q.B_loads, n, st_bw),
                 "counts the loads alone, not the FLOPs");
          return a;
        },
};

}  // namespace

void add_problems_prefill(Registry& r) {
  static constexpr Problem kAll[] = {kS10, kS11, kS12, kQ1, kQ2, kQ3};
  r.add(kAll);
}

}  // namespace sb::applied_inference
