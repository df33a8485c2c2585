// "Thinking about throughput": the critical batch for three precision pairs (S4), the smallest
// slice per dtype (S5), the step at the largest batch (S6), queries per second per chip (S7), the
// same on twice the chips (S8), how far model parallelism goes (S9), and the frontier's claims
// (E1). Every expected answer is computed by the models from the problem's givens.
#include <array>
#include <cmath>

#include "chapters/applied_inference/problems.hpp"
#include "chapters/inference/serving.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::applied_inference {
namespace {

namespace inf = inference;

// The chapter's three dtypes for weights and caches, their bytes per element.
constexpr std::array<double, 3> kDtypeBytes = {2, 1, 0.5};

constexpr Param kS4Given[] = {kChipGiven, kPeakBf16, kPeakInt8, kHbmBw};
constexpr Slot kS4Slots[] = {
    number("b_crit_bf16_w_bf16_matmul", "tokens", "bf16 weights, bf16 matmuls"),
    number("b_crit_int8_w_bf16_matmul", "tokens", "int8 weights, bf16 matmuls"),
    number("b_crit_int8_w_int8_matmul", "tokens", "int8 weights, int8 matmuls")};
constexpr Problem kS4{
    .id = "applied-inference.S4",
    .title = "Compute-bound batch for three precision pairs",
    .statement =
        "On a {chip} ({peak_bf16_flops_per_s} in bf16, {peak_int8_flops_per_s} in int8, HBM "
        "{hbm_bw_Bps}), how many tokens must a decode batch hold before LLaMA 3-70B's matmuls "
        "are compute-bound, with bf16 weights in bf16 matmuls, int8 weights in bf16 matmuls, and "
        "int8 weights in int8 matmuls?",
    .kind = "numeric",
    .given = kS4Given,
    .slots = kS4Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const double C = in.num("peak_bf16_flops_per_s"), C8 = in.num("peak_int8_flops_per_s");
          const double W = in.num("hbm_bw_Bps");
          Answers a;
          a["b_crit_bf16_w_bf16_matmul"] =
              t.step("bf16 weights, bf16 matmuls", inf::kBCrit, {2, C, W});
          a["b_crit_int8_w_bf16_matmul"] =
              t.step("int8 weights, bf16 matmuls", inf::kBCrit, {1, C, W});
          a["b_crit_int8_w_int8_matmul"] =
              t.step("int8 weights, int8 matmuls", inf::kBCrit, {1, C8, W});
          a.slip("b_crit_int8_w_bf16_matmul", inf::critical_batch(2, C, W),
                 "int8 weights are 1 byte: half the bytes per FLOP, so half the batch.");
          a.slip("b_crit_int8_w_int8_matmul", inf::critical_batch(2, C8, W),
                 "With the int8 peak the weights are 1 byte, not 2: B_crit = (1/2) C_int8 / W.");
          return a;
        },
    .hint =
        "A weight-streaming matmul does 2 FLOPs per weight per token and loads b_w bytes per "
        "weight: compare 2B / b_w with C / W_hbm.",
};

constexpr Param kS5Given[] = {kL70, kK70, kH70, kP70, kChipGiven, kHbmBytes, kSeq8k};
constexpr Slot kS5Slots[] = {number("weight_bytes_bf16", "B", "bf16: weight bytes"),
                             number("kv_bytes_per_token_bf16", "B", "bf16: KV bytes per token"),
                             number("min_chips_raw_bf16", "ratio", "bf16: chips the weights fill"),
                             number("smallest_slice_chips_bf16", "chips", "bf16: smallest slice"),
                             number("hbm_left_for_kv_bf16", "B", "bf16: HBM left"),
                             number("kv_caches_8k_bf16", "count", "bf16: caches that fit"),
                             number("weight_bytes_int8", "B", "int8: weight bytes"),
                             number("kv_bytes_per_token_int8", "B", "int8: KV bytes per token"),
                             number("min_chips_raw_int8", "ratio", "int8: chips the weights fill"),
                             number("smallest_slice_chips_int8", "chips", "int8: smallest slice"),
                             number("hbm_left_for_kv_int8", "B", "int8: HBM left"),
                             number("kv_caches_8k_int8", "count", "int8: caches that fit"),
                             number("weight_bytes_int4", "B", "int4: weight bytes"),
                             number("kv_bytes_per_token_int4", "B", "int4: KV bytes per token"),
                             number("min_chips_raw_int4", "ratio", "int4: chips the weights fill"),
                             number("smallest_slice_chips_int4", "chips", "int4: smallest slice"),
                             number("hbm_left_for_kv_int4", "B", "int4: HBM left"),
                             number("kv_caches_8k_int4", "count", "int4: caches that fit")};
constexpr std::array<std::array<Text, 6>, 3> kS5Names = {{
    {"weight_bytes_bf16", "kv_bytes_per_token_bf16", "min_chips_raw_bf16",
     "smallest_slice_chips_bf16", "hbm_left_for_kv_bf16", "kv_caches_8k_bf16"},
    {"weight_bytes_int8", "kv_bytes_per_token_int8", "min_chips_raw_int8",
     "smallest_slice_chips_int8", "hbm_left_for_kv_int8", "kv_caches_8k_int8"},
    {"weight_bytes_int4", "kv_bytes_per_token_int4", "min_chips_raw_int4",
     "smallest_slice_chips_int4", "hbm_left_for_kv_int4", "kv_caches_8k_int4"},
}};
constexpr Problem kS5{
    .id = "applied-inference.S5",
    .title = "Smallest slice per dtype, 8k caches",
    .statement =
        "Hold LLaMA 3-70B ({param_count}; L = {L}, K = {K}, H = {H}) with weights and caches in "
        "bf16, in int8 and in int4. For each: the weight bytes, the KV bytes per token, the chips "
        "of {hbm_per_chip_B} the weights fill, the smallest {chip} slice that holds them, the HBM "
        "left there, and how many caches of {seq_len_tokens} fit in it.",
    .kind = "numeric",
    .given = kS5Given,
    .slots = kS5Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const Given g = given_of(in, kModel | kMemory);
          Answers a;
          for (size_t i = 0; i < kDtypeBytes.size(); ++i) {
            const Row r = row_steps(g, kDtypeBytes[i], in.num("seq_len_tokens"), 1, t);
            const auto& n = kS5Names[i];
            a[std::string(n[0])] = r.bytes_w;
            a[std::string(n[1])] = r.kv_tok;
            a[std::string(n[2])] = r.raw;
            a[std::string(n[3])] = r.chips;
            a[std::string(n[4])] = r.left;
            a[std::string(n[5])] = r.B;
            if (std::ceil(r.raw) != r.chips)
              a.slip(n[3], std::ceil(r.raw),
                     "That is the chips the weights need; round up to a slice that exists (1, 4, "
                     "8, 16, ...).");
          }
          t.note(
              "Every dtype holds the same number of caches: halving the bytes halves both the "
              "slice and the KV per token.");
          return a;
        },
    .erratum =
        "For int4 the book prints 2.81 chips' worth of weights, left from an older 45 GB "
        "figure; 35e9 B / 16e9 B is 2.19 (the slice, 2x2, is the same).",
};

constexpr Param kS6Given[] = {kL70,      kK70,   kH70,      kP70,   kChipGiven,
                              kPeakBf16, kHbmBw, kHbmBytes, kSeq8k, kLenDecode};
constexpr Slot kS6Slots[] = {
    number("step_time_s_full_hbm", "s", "step at the largest batch"),
    number("reply_time_s_512_tokens", "s", "time for a reply", 0.105),
    number("step_time_s_int4_weights_only", "s", "int4: the weights alone")};
constexpr Problem kS6{
    .id = "applied-inference.S6",
    .title = "Step latency at the largest batch",
    .statement =
        "Serve LLaMA 3-70B ({param_count}; L = {L}, K = {K}, H = {H}) in bf16, int8 or int4 on "
        "the smallest {chip} slice for each ({hbm_per_chip_B} and {hbm_bw_Bps} per chip, "
        "{peak_bf16_flops_per_s} bf16 matmuls), with as many caches of {seq_len_tokens} as fit. "
        "How long is a decode step, how long a reply of {decode_len_tokens}, and how short can "
        "the int4 step be with the weights alone?",
    .kind = "numeric",
    .given = kS6Given,
    .slots = kS6Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const Given g = given_of(in, kModel | kMemory | kStep);
          const double S = in.num("seq_len_tokens");
          const Row r = row_steps(g, 2, S, 1, t);
          Answers a;
          a["step_time_s_full_hbm"] = r.d.T_step;
          a["reply_time_s_512_tokens"] =
              t.step("A reply", inf::kReply, {in.num("decode_len_tokens"), r.d.T_step});
          t.note("int4 on its smallest slice:");
          const Row r4 = row_steps(g, 0.5, S, 1, t);
          a["step_time_s_int4_weights_only"] =
              t.step("The weights alone", inf::kTParam, {g.P, 0.5, r4.chips, g.W});
          a.book("step_time_s_full_hbm", inf::full_hbm_step(g.M, g.W),
                 "takes the whole HBM of every chip as read each step, M_hbm / W_hbm");
          a.slip("step_time_s_full_hbm", r.d.T_param, kSlipNoKvRead);
          t.note(
              "The caches fill what the weights leave, so every chip reads about its whole HBM "
              "per step on any of the three slices.");
          return a;
        },
    .hint = "When the caches fill HBM, a step reads nearly all of each chip's HBM.",
};

constexpr Param kS7Given[] = {kL70,      kK70,   kH70,      kP70,   kChipGiven,
                              kPeakBf16, kHbmBw, kHbmBytes, kSeq8k, kLenDecode};
constexpr Slot kS7Slots[] = {
    number("sequences_per_s_per_replica", "per_s", "replies per second of a replica"),
    number("qps_per_chip_bf16", "per_s", "bf16: queries per second per chip"),
    number("qps_per_chip_int8", "per_s", "int8: queries per second per chip"),
    number("qps_per_chip_int4", "per_s", "int4: queries per second per chip")};
constexpr std::array<Text, 3> kS7Names = {"qps_per_chip_bf16", "qps_per_chip_int8",
                                          "qps_per_chip_int4"};
constexpr Problem kS7{
    .id = "applied-inference.S7",
    .title = "Queries per second per chip",
    .statement =
        "With each dtype on its smallest {chip} slice at its largest batch of {seq_len_tokens} "
        "caches (LLaMA 3-70B, {param_count}; L = {L}, K = {K}, H = {H}; {hbm_per_chip_B} and "
        "{hbm_bw_Bps} per chip, {peak_bf16_flops_per_s} bf16 matmuls), how many replies of "
        "{decode_len_tokens} does a replica finish per second, and how many queries per second "
        "does each chip answer for bf16, int8 and int4?",
    .kind = "numeric",
    .given = kS7Given,
    .slots = kS7Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const Given g = given_of(in, kModel | kMemory | kStep);
          const double S = in.num("seq_len_tokens"), len = in.num("decode_len_tokens");
          Answers a;
          for (size_t i = 0; i < kDtypeBytes.size(); ++i) {
            const Row r = row_steps(g, kDtypeBytes[i], S, 1, t);
            if (i == 0) {
              a["sequences_per_s_per_replica"] =
                  t.step("Replies per second", kSequencesPerS, {r.B, r.d.T_step, len});
              a.book("sequences_per_s_per_replica",
                     sequences_per_s(r.B, units::round_sig(r.d.T_step, 2), len),
                     "rounds the step to two digits (19 ms)");
            }
            a[std::string(kS7Names[i])] =
                t.step("Per chip", inf::kQps, {r.B, r.d.T_step, len, r.chips});
            a.book(kS7Names[i],
                   inf::qps_per_chip(r.B, units::round_sig(r.d.T_step, 2), len, r.chips),
                   "rounds the step to two digits (19 ms)");
          }
          t.note("The book adds that real servers reach about half of these.");
          return a;
        },
};

constexpr Param kS8Given[] = {kL70,
                              kK70,
                              kH70,
                              kP70,
                              kChipGiven,
                              kPeakBf16,
                              kHbmBw,
                              kHbmBytes,
                              kSeq8k,
                              kLenDecode,
                              count("slice_factor", 2, "the slice over the smallest", {}, 1, 16)};
constexpr Slot kS8Slots[] = {
    number("hbm_left_for_kv_bf16_32chips", "B", "bf16: HBM left"),
    number("max_batch_bf16_32chips", "tokens", "bf16: largest batch"),
    number("sequences_per_s_bf16_32chips", "per_s", "bf16: replies per second"),
    number("qps_per_chip_bf16_32chips", "per_s", "bf16: queries per second per chip"),
    number("qps_per_chip_int8_16chips", "per_s", "int8: queries per second per chip"),
    number("qps_per_chip_int8_16chips_memory_only", "per_s", "int8, loads alone"),
    number("qps_per_chip_int4_8chips", "per_s", "int4: queries per second per chip"),
    number("qps_per_chip_int4_8chips_memory_only", "per_s", "int4, loads alone")};
constexpr std::array<std::array<Text, 2>, 2> kS8Names = {{
    {"qps_per_chip_int8_16chips", "qps_per_chip_int8_16chips_memory_only"},
    {"qps_per_chip_int4_8chips", "qps_per_chip_int4_8chips_memory_only"},
}};
constexpr Problem kS8{
    .id = "applied-inference.S8",
    .title = "Throughput after doubling each slice",
    .statement =
        "Give each dtype {slice_factor} times its smallest {chip} slice (LLaMA 3-70B, "
        "{param_count}; L = {L}, K = {K}, H = {H}; {hbm_per_chip_B} and {hbm_bw_Bps} per chip, "
        "{peak_bf16_flops_per_s} bf16 matmuls; caches of {seq_len_tokens}, replies of "
        "{decode_len_tokens}). For bf16: the HBM left, the largest batch, the replies per second "
        "and the queries per chip. For int8 and int4: the queries per chip, with the full step and "
        "with the loads alone.",
    .kind = "numeric",
    .given = kS8Given,
    .slots = kS8Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const Given g = given_of(in, kModel | kMemory | kStep);
          const double S = in.num("seq_len_tokens"), len = in.num("decode_len_tokens");
          const double f = in.num("slice_factor");
          Answers a;
          const Row r = row_steps(g, 2, S, f, t);
          a["hbm_left_for_kv_bf16_32chips"] = r.left;
          a["max_batch_bf16_32chips"] = r.B;
          a["sequences_per_s_bf16_32chips"] =
              t.step("Replies per second", kSequencesPerS, {r.B, r.d.T_step, len});
          a["qps_per_chip_bf16_32chips"] =
              t.step("Per chip", inf::kQps, {r.B, r.d.T_step, len, r.chips});
          a.book("sequences_per_s_bf16_32chips",
                 sequences_per_s(r.B, units::round_sig(r.d.T_step, 2), len),
                 "rounds the step to two digits (19 ms)");
          for (size_t i = 0; i < kS8Names.size(); ++i) {
            const Row q = row_steps(g, kDtypeBytes[i + 1], S, f, t);
            const double bw = t.step("The loads alone", inf::kTStepBw,
                                     {q.B, S, q.kv_tok, g.P, q.b, q.chips, g.W});
            const auto& n = kS8Names[i];
            a[std::string(n[0])] = t.step("Per chip", inf::kQps, {q.B, q.d.T_step, len, q.chips});
            a[std::string(n[1])] =
                t.step("Per chip, loads alone", inf::kQps, {q.B, bw, len, q.chips});
            const double round_step = units::round_sig(bw, 2);
            a.book(n[1], inf::qps_per_chip(q.B, round_step, len, q.chips),
                   "rounds the step to two digits (19 ms)");
            if (q.d.T_flops > q.d.T_param) {
              t.note("The batch is above the critical batch: the FLOPs set the step.");
              a.slip(n[0], inf::qps_per_chip(q.B, round_step, len, q.chips), kSlipBookStep);
              a.slip(n[0], a[std::string(n[1])], kSlipBookStep);
            }
          }
          return a;
        },
    .erratum =
        "For int8 and int4 the book keeps the 19 ms step of the smaller slices (0.9 and "
        "1.8 queries per chip), but a batch of 138 is above their critical batches (120 "
        "and 60): the FLOPs outlast the weight loads, which gives 0.83 and 1.28.",
};

constexpr Param kS9Given[] = {kD70,
                              kF70,
                              kChipGiven,
                              kPeakBf16,
                              kHbmBw,
                              kIciBidi,
                              ranged("hbm_to_ici_bw_ratio", "ratio", 8,
                                     "HBM over ICI bandwidth, as the text rounds it", 0.5, 100),
                              count("n_axes", 2, "ICI axes the model parallelism spans", {}, 1, 3),
                              chip_count("n_chips", 32, "chips of the slice (4x8)"),
                              count("batch_tokens", 64, "sequences in the decode batch"),
                              bytes_per("bytes_per_weight", 2, "bytes per weight (bf16)"),
                              bytes_per("bytes_per_activation", 2, "bytes per activation (bf16)")};
constexpr Slot kS9Slots[] = {
    number("tp_limit_compute_bound_two_axes", "count", "limit in the compute-bound view"),
    number("tp_slice_chips_compute_bound", "chips", "the slice that stays within it"),
    number("tp_limit_bandwidth_bound_b64", "count", "limit in the bandwidth-bound view"),
    number("t_ici_per_matmul_s", "s", "ICI time per matmul"),
    number("t_hbm_per_matmul_s", "s", "HBM time per matmul"),
    number("t_math_per_matmul_s", "s", "FLOPs time per matmul"),
    boolean("hbm_bound_on_4x8", "the matmul is HBM-bound on the slice")};
constexpr Problem kS9{
    .id = "applied-inference.S9",
    .title = "Sharding bf16 LLaMA 3-70B on 4x8",
    .statement =
        "Split LLaMA 3-70B's matmuls (D = {D}, F = {F}) model-parallel over {n_axes} ICI "
        "{n_axes|axis|axes} of a {chip} slice ({peak_bf16_flops_per_s}, HBM {hbm_bw_Bps}, ICI "
        "{ici_bw_bidi_Bps}; HBM about {hbm_to_ici_bw_ratio} times ICI). How many ways can it go "
        "before ICI binds when compute-bound, and which slice is that? And when bandwidth-bound "
        "at a batch of {batch_tokens}? On {n_chips}, with weights at {bytes_per_weight} and "
        "activations at {bytes_per_activation}, how long do a matmul's ICI, HBM and FLOPs take?",
    .kind = "numeric",
    .given = kS9Given,
    .slots = kS9Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const double D = in.num("D"), F = in.num("F"), C = in.num("peak_bf16_flops_per_s");
          const double W = in.num("hbm_bw_Bps"), Wi = in.num("ici_bw_bidi_Bps");
          const double B = in.num("batch_tokens"), Y = in.num("n_chips");
          Answers a;
          const double alpha = t.step("ICI intensity", inf::kAlphaIci, {C, Wi});
          const double lim = a["tp_limit_compute_bound_two_axes"] =
              t.step("Compute-bound limit", inf::kYMaxCompute, {in.num("n_axes"), F, alpha});
          const Given g = given_of(in, 0);
          double best = 0;
          for (const inf::Slice& s : inf::slices(g.machine))
            if (s.chips <= lim) best = s.chips;
          a["tp_slice_chips_compute_bound"] = t.value("The largest slice within it", best, "chips");
          a["tp_limit_bandwidth_bound_b64"] = t.step("Bandwidth-bound limit", inf::kYMaxDecode,
                                                     {F, B, in.num("hbm_to_ici_bw_ratio")});
          const double ti = a["t_ici_per_matmul_s"] =
              t.step("ICI", inf::kMmTIci, {in.num("bytes_per_activation"), B, D, Wi});
          const double th = a["t_hbm_per_matmul_s"] =
              t.step("HBM", inf::kMmTHbm, {in.num("bytes_per_weight"), D, F, Y, W});
          const double tm = a["t_math_per_matmul_s"] =
              t.step("FLOPs", inf::kMmTMath, {B, D, F, Y, C});
          a["hbm_bound_on_4x8"] = th > ti && th > tm ? 1 : 0;
          a.book("tp_limit_compute_bound_two_axes", inf::y_max_compute(in.num("n_axes"), F, 2200),
                 "rounds the ICI intensity to 2200");
          a.slip("tp_limit_compute_bound_two_axes", inf::y_max_compute(1, F, alpha),
                 "That is one axis: over n_axes axes the collectives run n_axes times faster.");
          return a;
        },
};

constexpr Param kE1Given[] = {kL70,
                              kK70,
                              kH70,
                              kP70,
                              bytes_per("bytes_per_weight", 1, "bytes per weight (int8)"),
                              bytes_per("bytes_per_kv", 1, "bytes per KV element (int8)"),
                              kChipGiven,
                              kPeakBf16,
                              kHbmBw,
                              kHbmBytes,
                              chip_count("n_chips", 16, "chips (a 4x4)"),
                              kSeq8k,
                              tokens("short_seq_len_tokens", 2048, "the short context")};
constexpr Slot kE1Slots[] = {
    number("latency_s_b1_8k", "s", "step at batch 1"),
    number("latency_s_bmax_8k", "s", "step at the largest batch"),
    number("plateau_throughput_tokens_per_s_per_chip_2k", "tokens_per_s",
           "tokens per second per chip at the short context", 0.13),
    number("kv_over_flops_crossover_seq_tokens", "tokens", "context where KV reads pass FLOPs")};
constexpr Problem kE1{
    .id = "applied-inference.E1",
    .title = "Latency-throughput frontier claims, 70B on 4x4",
    .statement =
        "LLaMA 3-70B ({param_count}; L = {L}, K = {K}, H = {H}) with weights at "
        "{bytes_per_weight} and cache at {bytes_per_kv} per element runs on {n_chips} "
        "({chip}: {hbm_per_chip_B} and {hbm_bw_Bps} each, {peak_bf16_flops_per_s} bf16 matmuls). "
        "With caches of {seq_len_tokens}: the step at batch 1 and at the largest batch that fits. "
        "With caches of {short_seq_len_tokens}: the tokens per second per chip at the largest "
        "batch. Above what context does reading a sequence's cache take longer than its FLOPs?",
    .kind = "numeric",
    .given = kE1Given,
    .slots = kE1Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const Given g = given_of(in, kModel | kMemory | kStep);
          const double bw = in.num("bytes_per_weight"), n = in.num("n_chips");
          const double kv = kv_tok_step(g, in.num("bytes_per_kv"), t);
          const double w = t.step("Weight bytes", inf::kWeightBytes, {g.P, bw});
          const double free = t.step("HBM left for caches", inf::kFreeHbm, {n, g.M, w});
          if (free <= 0) fail("n_chips", "the weights do not fit", "out_of_range");
          auto step = [&](double B, double S) {
            const double tk = t.step("Reading the caches", inf::kTKv, {B, S, kv, n, g.W});
            const double tp = t.step("Reading the weights", inf::kTParam, {g.P, bw, n, g.W});
            const double tf = t.step("The FLOPs", inf::kTFlops, {B, g.P, n, g.C});
            return t.step("The step", inf::kTStep, {tk, tf, tp});
          };
          auto most = [&](double S) {
            const double B = t.step("Largest batch", inf::kMaxBatch, {free, S, kv});
            if (B < 1) fail("seq_len_tokens", "no cache fits", "out_of_range");
            return B;
          };
          const double S = in.num("seq_len_tokens"), S2 = in.num("short_seq_len_tokens");
          Answers a;
          a["latency_s_b1_8k"] = step(1, S);
          a["latency_s_bmax_8k"] = step(most(S), S);
          const double B2 = most(S2);
          a["plateau_throughput_tokens_per_s_per_chip_2k"] =
              t.step("Tokens per second per chip", inf::kTokSChip, {B2, n, step(B2, S2)});
          a["kv_over_flops_crossover_seq_tokens"] =
              t.step("KV reads pass FLOPs above", inf::kKvCrossover, {g.P, g.W, g.C, kv});
          t.note("The book reads about 1 token per ms per chip off its plot for the plateau.");
          return a;
        },
};

}  // namespace

void add_problems_throughput(Registry& r) {
  static constexpr Problem kAll[] = {kS4, kS5, kS6, kS7, kS8, kS9, kE1};
  r.add(kAll);
}

}  // namespace sb::applied_inference
