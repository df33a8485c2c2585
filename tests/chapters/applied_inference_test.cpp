// The serving case study through the JSON entry point: its calculators for LLaMA 3-70B on a v5e
// (counted from the config, norms included), its problems on the chapter's givens (70e9
// parameters), the book's printed answers and its errata, and bad input naming its field. The
// arithmetic is in the comments.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/api.hpp"
#include "tests/support/support.hpp"

using namespace sb;
using namespace sb::test;

namespace {

// LLaMA 3-70B from its config with its norms: 70,552,387,584 (the chapter's table) + 2 x 8192 x 80
// + 8192 = 70,553,706,496.
constexpr double kP = 70553706496.0;
// 2 L K H = 2 x 80 x 8 x 128 = 163,840 B per token in int8.
constexpr double kKvInt8 = 163840.0;

}  // namespace

TEST(AppliedInferenceKv, Llama70bInt8At32k) {
  const json r = calc("applied-inference.kv");
  EXPECT_EQ(value_of(r, "kv_tok"), kKvInt8);
  // 163,840 x 32,768 = 5,368,709,120 B per sequence; x 240 = 1,288,490,188,800 B.
  EXPECT_EQ(value_of(r, "kv_seq"), 5368709120.0);
  EXPECT_EQ(value_of(r, "kv_batch"), 1288490188800.0);
  // (70,553,706,496 + 1,288,490,188,800) / 16e9 = 84.94 -> 85 chips -> the 128-chip slice.
  near_rel(value_of(r, "chips_raw"), (kP + 1288490188800.0) / 16e9);
  EXPECT_EQ(value_of(r, "min_chips"), 85);
  EXPECT_EQ(value_of(r, "slice"), 128);
  // bf16 cache at batch 32, 8k: 327,680 x 8192 x 32 = 85,899,345,920 B.
  const json b = calc("applied-inference.kv", {{"dtype_kv", "bf16"}, {"B", 32}, {"S", 8192}});
  EXPECT_EQ(value_of(b, "kv_batch"), 85899345920.0);
}

TEST(AppliedInferenceSlices, ThreeDtypesOnTheirSlices) {
  const json r = calc("applied-inference.slices");
  // bf16: 141.1e9 B / 16e9 = 8.82 -> 16 chips; 256e9 - 141,107,412,992 = 114,892,587,008 left;
  // / (327,680 x 8192 = 2,684,354,560) = 42.8 -> 42 caches.
  EXPECT_EQ(value_of(r, "chips_bf16"), 16);
  EXPECT_EQ(value_of(r, "B_bf16"), 42);
  // Its step: 42 x 2,684,354,560 / (16 x 8.2e11) = 8.594 ms of caches + 141.1e9 / 1.312e13 =
  // 10.755 ms of weights (FLOPs 2 x 42 x P / (16 x 1.97e14) = 1.88 ms hide under them).
  const double step = 42 * 2684354560.0 / (16 * 8.2e11) + 2 * kP / (16 * 8.2e11);
  near_rel(value_of(r, "step_bf16"), step);
  near_rel(value_of(r, "qps_bf16"), 42 / (step * 512 * 16));
  // int8 on 8 chips and int4 on 4 hold 42 caches too (every size halves).
  EXPECT_EQ(value_of(r, "chips_int8"), 8);
  EXPECT_EQ(value_of(r, "chips_int4"), 4);
  EXPECT_EQ(value_of(r, "B_int8"), 42);
  EXPECT_EQ(value_of(r, "B_int4"), 42);
  ASSERT_EQ(r["rows"].size(), 3u);
  EXPECT_EQ(r["rows"][2]["shape"], "2x2");
  // Twice the slice: bf16 on 32 chips holds floor((512e9 - 141.1e9) / 2,684,354,560) = 138.
  EXPECT_EQ(value_of(calc("applied-inference.slices", {{"slice_factor", 2}}), "B_bf16"), 138);
}

TEST(AppliedInferenceServers, RatioAndChurn) {
  const json r = calc("applied-inference.servers");
  // bf16 on 16 chips: prefill 2 x P x 8192 / (16 x 1.97e14 x 0.4) = 0.9168 s; step at B = 32:
  // 32 x 2,684,354,560 / 1.312e13 + 141.1e9 / 1.312e13 = 6.547 + 10.755 = 17.30 ms.
  const double pre = 2 * kP * 8192 / (16 * 1.97e14 * 0.4);
  const double step = (32 * 2684354560.0 + 2 * kP) / (16 * 8.2e11);
  near_rel(value_of(r, "prefill"), pre);
  near_rel(value_of(r, "step"), step);
  // 0.9168 x 32 / (0.01730 x 512) = 3.31 prefill servers per generate server.
  near_rel(value_of(r, "ratio"), pre * 32 / (step * 512));
  // Churn with replies of 4096: 32 / 4096 sequences and 32 x (8192 + 4096) / 4096 = 96 tokens.
  near_rel(value_of(r, "done"), 32.0 / 4096);
  near_rel(value_of(r, "freed"), 96);
}

TEST(AppliedInferenceCost, Int8OnItsSlice) {
  const json r = calc("applied-inference.cost");
  // int8 on 8 chips at B = 42 (as in the slices test): step = (42 x 1,342,177,280 + P) /
  // (8 x 8.2e11) = 8.594 + 10.755 ms; $ = 1e6 x 8 x 1.2 x step / (3600 x 42).
  const double step = (42 * 1342177280.0 + kP) / (8 * 8.2e11);
  near_rel(value_of(r, "cost_out"), 1e6 * 8 * 1.2 * step / (3600 * 42));
  // 1.97e14 x 3600 / 1.2 = 5.91e17 FLOPs per dollar.
  near_rel(value_of(r, "flops_per_usd"), 5.91e17);
  bool h100 = false;
  for (const auto& c : r["chips"])
    h100 = h100 || c["chip"].get<std::string>().find("H100") != std::string::npos;
  EXPECT_TRUE(h100);
}

TEST(AppliedInferenceCalcs, BadInputNamesItsField) {
  expect_error_value(calc("applied-inference.kv", {{"chip", "h300"}}), "chip");  // no such GPU
  expect_error_value(calc("applied-inference.servers", {{"chip", "h100"}, {"chips", 12}}), "chips");
  expect_error_value(calc("applied-inference.kv", {{"dtype_w", "fp4"}}), "dtype_w");
  expect_error_value(calc("applied-inference.kv", {{"B", 0}}), "B");
  expect_error_value(calc("applied-inference.servers", {{"chips", 12}}), "chips");
  // 400 bf16 caches of 8k do not fit beside the weights on 16 chips (at most 42); the smallest
  // slice that holds them: (141.1e9 + 400 x 2,684,354,560) / 16e9 = 75.9 -> 76 -> 128 chips.
  expect_error_value(calc("applied-inference.servers", {{"B", 400}, {"chips", 16}}), "B");
  EXPECT_EQ(value_of(calc("applied-inference.servers", {{"B", 400}}), "chips"), 128);
  // No slice of a v5e pod holds 10,000 of them.
  expect_error_value(calc("applied-inference.servers", {{"B", 10000}}), "B");
  expect_error_value(calc("applied-inference.slices", {{"slice_factor", 0}}), "slice_factor");
  expect_error_value(calc("applied-inference.cost", {{"mfu", 2}}), "mfu");
}

// ------------------------------------------------------------------ the problems

TEST(AppliedInferenceProblems, HeldOutStoryAndThroughput) {
  // S3: B_crit = (1/2) 1.97e14 / 8.2e11 = 120.1; on 8 chips the caches take 32 x 8192 x 163,840 /
  // 6.56e12 = 6.547 ms and the weights 70e9 / 6.56e12 = 10.671 ms: 17.22 ms, 1858 tokens/s.
  const Answers s3 = solve("applied-inference.S3");
  near_rel(s3.at("b_crit_int8_w_bf16"), 0.5 * 1.97e14 / 8.2e11);
  EXPECT_EQ(s3.at("memory_bound"), 1);
  const double st = (32 * 8192 * kKvInt8 + 70e9) / (8 * 8.2e11);
  near_rel(s3.at("step_time_s_4x2"), st);
  near_rel(s3.at("throughput_tokens_per_s_4x2"), 32 / st);
  near_rel(s3.at("throughput_tokens_per_s_per_chip_4x2"), 32 / (8 * st));
  // F / (B r) = 28672 / (32 x 8.2e11 / 9e10) = 98.3 (the book's r = 8 gives 112).
  near_rel(s3.at("ici_bound_model_parallel_degree"), 28672 / (32 * 8.2e11 / 9e10));
  near_rel(s3.at("step_time_s_4x4"), st / 2);
  // S4: 240.2, 120.1 and (1/2) 3.94e14 / 8.2e11 = 240.2.
  const Answers s4 = solve("applied-inference.S4");
  near_rel(s4.at("b_crit_int8_w_int8_matmul"), 0.5 * 3.94e14 / 8.2e11);
  // S9: 2 x 28672 / (1.97e14 / 9e10) = 26.2 -> the 16-chip slice; 28672 / (64 x 8) = 56;
  // ICI 2 x 64 x 8192 / 9e10 = 11.65 us, HBM 2 x 8192 x 28672 / (32 x 8.2e11) = 17.9 us, FLOPs
  // 2 x 64 x 8192 x 28672 / (32 x 1.97e14) = 4.77 us: HBM-bound.
  const Answers s9 = solve("applied-inference.S9");
  near_rel(s9.at("tp_limit_compute_bound_two_axes"), 2 * 28672 / (1.97e14 / 9e10));
  EXPECT_EQ(s9.at("tp_slice_chips_compute_bound"), 16);
  near_rel(s9.at("tp_limit_bandwidth_bound_b64"), 56);
  near_rel(s9.at("t_ici_per_matmul_s"), 2.0 * 64 * 8192 / 9e10);
  near_rel(s9.at("t_hbm_per_matmul_s"), 2.0 * 8192 * 28672 / (32 * 8.2e11));
  near_rel(s9.at("t_math_per_matmul_s"), 2.0 * 64 * 8192 * 28672 / (32 * 1.97e14));
  EXPECT_EQ(s9.at("hbm_bound_on_4x8"), 1);
}

TEST(AppliedInferenceProblems, HeldOutWorkedProblems) {
  const double P405 = 405849243648.0;
  // Q1: 2 P = 8.117e11 FLOPs per token; 8.117e11 / 1.97e14 = 4.12 ms x n; 2P / 8.2e11 = 0.99 s x
  // n in bf16, P / 8.2e11 = 0.495 s x n in int8.
  const Answers q1 = solve("applied-inference.Q1");
  near_rel(q1.at("flops_per_token"), 2 * P405);
  near_rel(q1.at("t_flops_bound_times_n_chips_s"), 2 * P405 / 1.97e14);
  near_rel(q1.at("t_hbm_bound_times_n_chips_s_bf16"), 2 * P405 / 8.2e11);
  near_rel(q1.at("t_hbm_bound_times_n_chips_s_int8"), P405 / 8.2e11);
  // Q2: 8,029,995,008 B of int8 weights; 2 x 32 x 8 x 128 = 65,536 B per token, x 8192 x 240 =
  // 128,849,018,880 B; (8.03e9 + 128.85e9) / 16e9 = 8.55 -> 9 chips -> the 16-chip slice.
  const Answers q2 = solve("applied-inference.Q2");
  EXPECT_EQ(q2.at("weight_bytes"), 8029995008.0);
  EXPECT_EQ(q2.at("kv_bytes_total"), 128849018880.0);
  EXPECT_EQ(q2.at("smallest_slice_chips"), 16);
  // Q3: weights on the 256-chip pod 405.85e9 / (256 x 8.2e11) = 1.93 ms; on 32 chips 15.47 ms
  // (over 15 ms). On 64 chips: weights 7.73 ms; a sequence's cache 8192 x 258,048 / (64 x 8.2e11)
  // = 40.28 us and its FLOPs 2P / (64 x 1.97e14) = 64.38 us: the loads allow 180, the FLOPs
  // floor(15 ms / 104.66 us) = 143; HBM holds 292.
  const Answers q3 = solve("applied-inference.Q3");
  near_rel(q3.at("min_step_time_s_256_chips"), P405 / (256 * 8.2e11));
  near_rel(q3.at("weights_only_step_s_32_chips"), P405 / (32 * 8.2e11));
  EXPECT_EQ(q3.at("smallest_slice_meeting_limit_chips"), 64);
  const double kv1 = 8192 * 258048.0 / (64 * 8.2e11), f1 = 2 * P405 / (64 * 1.97e14);
  EXPECT_EQ(q3.at("max_batch_64_chips"), std::floor(0.015 / (kv1 + f1)));
  EXPECT_EQ(q3.at("max_batch_64_chips"), 143);
  near_rel(q3.at("throughput_tokens_per_s_per_chip"), 143 / (64 * 143 * (kv1 + f1)));
}

TEST(AppliedInferenceProblems, BookRoundingsAreAccepted) {
  // S1: the book adds 70e9 to the caches rounded to 1.3e12 and gets 86 chips (exact: 85).
  const json s1 = check("applied-inference.S1",
                        {{"kv_bytes_per_token", "160000"}, {"chips_to_hold_weights_and_kv", "86"}});
  EXPECT_EQ(verdict_of(s1, "kv_bytes_per_token"), "correct");
  EXPECT_EQ(verdict_of(s1, "chips_to_hold_weights_and_kv"), "correct");
  // S7: 43 / (0.019 x 512) = 4.42, the step rounded to 19 ms (exact 4.31).
  EXPECT_EQ(verdict_of(check("applied-inference.S7", {{"sequences_per_s_per_replica", "4.42"}}),
                       "sequences_per_s_per_replica"),
            "correct");
  // S6: 16e9 / 8.2e11 = 19.5 ms, the whole HBM read per step.
  EXPECT_EQ(verdict_of(check("applied-inference.S6", {{"step_time_s_full_hbm", "19.5 ms"}}),
                       "step_time_s_full_hbm"),
            "correct");
}

TEST(AppliedInferenceProblems, ErrataAndSlipsAreWrong) {
  // S8: the book's 0.9 queries per chip for int8 keeps the 19 ms step; with 138 > 120 caches the
  // FLOPs count: 14.12 ms of caches + 2 x 138 x 70e9 / (16 x 1.97e14) = 6.13 ms, so 0.832.
  const json s8 = check("applied-inference.S8", {{"qps_per_chip_int8_16chips", "0.9"}});
  EXPECT_EQ(verdict_of(s8, "qps_per_chip_int8_16chips"), "wrong");
  // S5: int4 weights fill 35e9 / 16e9 = 2.1875 chips, not the printed 2.81.
  EXPECT_EQ(verdict_of(check("applied-inference.S5", {{"min_chips_raw_int4", "2.81"}}),
                       "min_chips_raw_int4"),
            "wrong");
  near_rel(solve("applied-inference.S5").at("min_chips_raw_int4"), 35e9 / 16e9);
  // S1 with keys only: 81,920 B per token is the slip that halves the cache.
  const json k = check("applied-inference.S1", {{"kv_bytes_per_token", "81920"}});
  EXPECT_EQ(verdict_of(k, "kv_bytes_per_token"), "wrong");
  EXPECT_NE(k.dump().find("keys or values alone"), std::string::npos);
}

TEST(AppliedInferenceProblems, BadGivensNameTheirField) {
  expect_error_value(problem("applied-inference.S5", {{"chip", "h100"}}), "chip");
  // A latency below what a whole pod can reach for the weights alone.
  expect_error_value(problem("applied-inference.Q3", {{"latency_limit_s", 1e-4}}),
                     "latency_limit_s");
  // Four chips of 16 GB cannot hold 70 GB of int8 weights.
  expect_error_value(problem("applied-inference.E1", {{"n_chips", 4}}), "n_chips");
}

TEST(AppliedInferenceCalcs, AnH100ClusterServes) {
  // LLaMA 3-70B, 240 int8 caches of 32k on H100s (80 GB each): (70,553,706,496 +
  // 1,288,490,188,800) / 80e9 = 16.99 -> 17 GPUs; the smallest set of at least that: 32 GPUs, four
  // 8-GPU nodes.
  const json k = calc("applied-inference.kv", {{"chip", "h100"}});
  ASSERT_TRUE(k["ok"].get<bool>()) << k.dump().substr(0, 400);
  near_rel(value_of(k, "chips_raw"), (kP + 1288490188800.0) / 80e9);
  EXPECT_EQ(value_of(k, "slice"), 32);
  EXPECT_EQ(k["shape"], "32-GPU cluster (4 nodes)");
  for (const char* name :
       {"applied-inference.slices", "applied-inference.servers", "applied-inference.cost"}) {
    const json r = calc(name, {{"chip", "h100"}});
    EXPECT_TRUE(r["ok"].get<bool>()) << name << r.dump().substr(0, 300);
    EXPECT_TRUE(all_finite(r)) << name;
  }
}

TEST(AppliedInferenceCalcs, AGpuSliceStepsAsTheInferenceChapterDoes) {
  // LLaMA 3-70B in bf16 on H100s: 141.1 GB of weights take 2 GPUs, which leave 2 x 80e9 -
  // 141,107,412,992 = 18.89 GB for caches of 8192 tokens x 327,680 B (2 x 80 x 8 x 128 x 2): 7 of
  // them. The book's step reads weights and caches over both GPUs' HBM: (7 x 8192 x 327,680 +
  // 141,107,412,992) / (2 x 3.35e12) = 23.865 ms; on GPUs the inference chapter adds two
  // AllReduces per layer of the activation, 7 x 8192 x 2 = 114,688 B, each a 2-GPU ring over
  // NVLink: 114,688 / 4.5e11 = 254.9 ns, x 160 = 40.78 us. 23.906 ms in all.
  const double kv = 7 * 8192 * 327680.0, msg = 7 * 8192 * 2.0;
  const double step = (kv + 2 * kP) / (2 * 3.35e12) + 160 * msg / 4.5e11;
  const json s = calc("applied-inference.slices", {{"chip", "h100"}});
  ASSERT_TRUE(s["ok"].get<bool>()) << s.dump().substr(0, 400);
  EXPECT_EQ(value_of(s, "chips_bf16"), 2);
  EXPECT_EQ(value_of(s, "B_bf16"), 7);
  near_rel(value_of(s, "step_bf16"), step);
  // The inference page's step at the same inputs says the same.
  const json i =
      calc("inference.step",
           {{"chip", "h100"}, {"chips", 2}, {"B", 7}, {"dtype_w", "bf16"}, {"dtype_kv", "bf16"}});
  ASSERT_TRUE(i["ok"].get<bool>()) << i.dump().substr(0, 400);
  near_rel(value_of(i, "tpot"), value_of(s, "step_bf16"));
  // On one GPU (int8 fits) there is nothing to AllReduce: the book's step alone.
  EXPECT_EQ(value_of(s, "chips_int8"), 1);
}
