// The inference chapter: its model (critical batch, counts, memory, the decode step, slices), its
// calculators through the JSON entry point with values derived by hand (arithmetic in the
// comments), the searches (frontier, planner) and their bounds, every problem against the book's
// numbers, grading of the book's printed answers and of its shortcuts, and bad input naming its
// field.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "chapters/inference/frontier.hpp"
#include "chapters/inference/model.hpp"
#include "chapters/inference/serving.hpp"
#include "chapters/transformers/models.hpp"
#include "core/api.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "tests/support/support.hpp"

using namespace sb;
using namespace sb::test;
namespace inf = sb::inference;

namespace {

// LLaMA 3-70B as the table has it (norms and a final norm):
// 80 (3 * 8192 * 28672 + 2 * 8192 * 128 * (64 + 8) + 2 * 8192) + 2 * 8192 * 128256 + 8192
// = 80 * 855,654,400 + 2,101,346,304 + 8192 = 70,553,706,496.
constexpr double kP70 = 70553706496.0;
// Its int8 KV per token: 2 * 80 * 8 * 128 * 1 = 163,840 B; per 8192-token sequence 1,342,177,280.
constexpr double kKv70 = 163840.0;

}  // namespace

// ---------------------------------------------------------------- the model --------------------

TEST(InferenceModel, CriticalBatchMovesWithQuantization) {
  // (b_w / 2) C / W on a v5e: bf16 1.97e14 / 8.2e11 = 240.24; int8 weights half: 120.12;
  // int8 x int8: (1/2) 3.94e14 / 8.2e11 = 240.24; int4: 60.06.
  near_rel(inf::critical_batch(2, 1.97e14, 8.2e11), 1.97e14 / 8.2e11);
  near_rel(inf::critical_batch(1, 1.97e14, 8.2e11), 0.5 * 1.97e14 / 8.2e11);
  near_rel(inf::critical_batch(1, 3.94e14, 8.2e11), 1.97e14 / 8.2e11);
  near_rel(inf::critical_batch(0.5, 1.97e14, 8.2e11), 0.25 * 1.97e14 / 8.2e11);
  // MoE: 240.24 * 16 / 2 = 1921.95.
  near_rel(inf::moe_critical_batch_book(1.97e14 / 8.2e11, 16, 2), 8 * 1.97e14 / 8.2e11);
}

TEST(InferenceModel, WorkedModelCounts) {
  // 64 (3 * 4096 * 16384 + 2 * 4096 * 256 * 40) + 4096 * 32128
  // = 64 * (201,326,592 + 83,886,080) + 131,596,288 = 18,385,207,296.
  near_rel(inf::params_total(64, 4096, 16384, 32, 8, 256, 32128, 1, 1), 18385207296.0);
  // 16 experts: 64 (16 * 201,326,592 + 83,886,080) + 131,596,288 = 211,658,735,616; top 2:
  // 64 (2 * 201,326,592 + 83,886,080) + 131,596,288 = 31,270,109,184.
  near_rel(inf::params_total(64, 4096, 16384, 32, 8, 256, 32128, 16, 1), 211658735616.0);
  near_rel(inf::params_total(64, 4096, 16384, 32, 8, 256, 32128, 2, 1), 31270109184.0);
  // KV int8: 2 * 64 * 8 * 256 = 262,144 B per token.
  near_rel(inf::kv_bytes_per_token(64, 8, 256, 1), 262144);
}

TEST(InferenceModel, DecodeStepTerms) {
  // LLaMA 3-70B, int8, 16 v5e chips, batch 32 at 8192 tokens:
  // T_kv = 32 * 8192 * 163840 / (16 * 8.2e11) = 42,949,672,960 / 1.312e13 = 3.2736e-3 s;
  // T_param = 70,553,706,496 / 1.312e13 = 5.3776e-3 s; T_flops = 2 * 32 * P / (16 * 1.97e14)
  // = 1.4326e-3 s; T_step = T_kv + T_param = 8.6512e-3 s (weight-load bound).
  const inf::Decode d = inf::decode(kP70, kP70, 1, kKv70, 1.97e14, 8.2e11, 16, 32, 8192);
  near_rel(d.T_kv, 32 * 8192 * kKv70 / 1.312e13);
  near_rel(d.T_param, kP70 / 1.312e13);
  near_rel(d.T_flops, 2 * 32 * kP70 / (16 * 1.97e14));
  near_rel(d.T_step, 32 * 8192 * kKv70 / 1.312e13 + kP70 / 1.312e13);
  EXPECT_STREQ(inf::regime(d), "weight-load bound");
  // At batch 138 the KV reads dominate: 138 * 1,342,177,280 / 1.312e13 = 1.4117e-2 s.
  EXPECT_STREQ(inf::regime(inf::decode(kP70, kP70, 1, kKv70, 1.97e14, 8.2e11, 16, 138, 8192)),
               "KV-load bound");
  // At 2048 tokens and batch 240: T_flops = 2 * 240 * P / 3.152e15 = 1.0744e-2 s > T_param and
  // T_kv = 240 * 2048 * 163840 / 1.312e13 = 6.138e-3 s: compute-bound.
  EXPECT_STREQ(inf::regime(inf::decode(kP70, kP70, 1, kKv70, 1.97e14, 8.2e11, 16, 240, 2048)),
               "compute-bound");
}

TEST(InferenceModel, SlicesOfA2dAndA3dTorus) {
  const inf::Machine v5e = inf::machine_of(hw::chip("v5e"));
  std::vector<double> sizes;
  std::vector<std::string> shapes;
  for (const auto& s : inf::slices(v5e)) {
    sizes.push_back(s.chips);
    shapes.push_back(s.shape);
  }
  EXPECT_EQ(sizes, (std::vector<double>{1, 4, 8, 16, 32, 64, 128, 256}));
  EXPECT_EQ(shapes[3], "4x4");
  EXPECT_EQ(shapes[7], "16x16");
  // Only the 16x16 wraps on a v5e; its longest axis is 16.
  EXPECT_EQ(inf::slices(v5e)[7].wrap, (std::vector<bool>{true, true}));
  EXPECT_EQ(inf::slices(v5e)[3].wrap, (std::vector<bool>{false, false}));
  // v5p: 2x2x1 (4 chips) doubling up to 4096 (16x16x16), under its 8960-chip pod.
  const auto v5p = inf::slices(inf::machine_of(hw::chip("v5p")));
  EXPECT_EQ(v5p.front().chips, 4);
  EXPECT_EQ(v5p.front().shape, "2x2x1");
  EXPECT_EQ(v5p.back().chips, 4096);  // 16x16x16: a 16x16x32 is longer than the pod's 28
  // TPU7x (a 4x4x576 pod): past the 4x4x4 cube the slices grow along the long axis only.
  const auto v7 = inf::slices(inf::machine_of(hw::chip("tpu7x")));
  EXPECT_EQ(v7[5].shape, "4x4x8");
  EXPECT_EQ(v7.back().shape, "4x4x512");
  // The smallest slice of at least 13.2 chips is 16; none holds 300.
  EXPECT_EQ(inf::smallest_slice(inf::slices(v5e), 13.2)->chips, 16);
  EXPECT_EQ(inf::smallest_slice(inf::slices(v5e), 300), nullptr);
}

TEST(InferenceModel, ShardingAndEngineFormulas) {
  // F / (B r) = 16384 / (32 * 8) = 64 (inference.E7).
  near_rel(inf::y_max_decode(16384, 32, 8), 64);
  // 8 * 4.5e10 * 1e-6 = 360,000 B; 16 * 8192 / 45,000 = 2.9127 (inference.E9).
  near_rel(inf::latency_bound_bytes(8, 4.5e10, 1e-6), 360000);
  near_rel(inf::y_latency_bound(16, 8192, 1, 4.5e10, 1e-6), 16.0 * 8192 / 45000);
  // 2D: sqrt(32 * 4) = 11.314; 32 * 4 * (3/4)^2 = 72 (inference.Q7).
  near_rel(inf::ws_2d_coefficient(32768, 8192), std::sqrt(128.0));
  near_rel(inf::ws_2d_crossover(32768, 8192, 3), 72);
  // At the best X = sqrt(n D / 2F) the 2D time is c B D / (sqrt(n) W): n = 128, D = 8192,
  // F = 32768: X = 4, YZ = 32: 2 B D / (4 W) + 4 B F / (32 W) = B D (0.5 + 0.5) / W.
  near_rel(inf::ws_2d_best_x(128, 8192, 32768), 4);
  near_rel(inf::t_ws_2d(1, 8192, 32768, 4, 32, 1, 1), std::sqrt(128.0) * 8192 / std::sqrt(128.0));
  // Churn: 32 / 4096 sequences and 32 (8192 + 4096) / 4096 = 96 KV tokens per step.
  near_rel(inf::sequences_finished_per_step(32, 4096), 0.0078125);
  near_rel(inf::kv_tokens_freed_per_step(32, 8192, 4096), 96);
  // Speculative: a = 0.5, gamma = 3: (1 - 0.5^4) / 0.5 = 1.875 tokens per pass.
  near_rel(inf::speculative_tokens(0.5, 3), 1.875);
}

// ---------------------------------------------------------------- inference.step -------------

TEST(InferenceStep, LlamaThreeSeventyOnAFourByFour) {
  // Defaults: LLaMA 3-70B, int8 weights and KV, bf16 matmuls, 16 v5e chips, B 32, S 8192.
  const json r = calc("inference.step");
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump().substr(0, 400);
  near_rel(value_of(r, "params"), kP70);
  near_rel(value_of(r, "kv_per_token"), kKv70);
  // Free HBM 16 * 16e9 - P = 185,446,293,504; B_max = floor(that / 1,342,177,280) = 138.
  near_rel(value_of(r, "hbm_free"), 256e9 - kP70);
  EXPECT_EQ(value_of(r, "b_max"), 138);
  near_rel(value_of(r, "t_step"), 32 * 8192 * kKv70 / 1.312e13 + kP70 / 1.312e13);
  // 32 / 8.6512e-3 s = 3699 tokens/s; per chip / 16 = 231.2.
  near_rel(value_of(r, "tokens_per_s_chip"), 32 / value_of(r, "t_step") / 16);
  near_rel(value_of(r, "b_crit"), 0.5 * 1.97e14 / 8.2e11);
  EXPECT_EQ(value_of(r, "compute_bound"), 0);
  // $1.20 per chip-hour: 1e6 * 16 * 1.2 * T_step / (3600 * 32) = 1.4419 $ per million tokens.
  near_rel(value_of(r, "cost_out"), 1e6 * 16 * 1.2 * value_of(r, "t_step") / (3600 * 32));
  // Prefill of 8192 tokens at 40%: 2 P 8192 / (16 * 1.97e14 * 0.4) = 0.91684 s.
  near_rel(value_of(r, "ttft"), 2 * kP70 * 8192 / (16 * 1.97e14 * 0.4));
  // The smallest slice for weights + 32 caches: (70.55e9 + 42.95e9) / 16e9 = 7.09: 8 chips.
  EXPECT_EQ(value_of(r, "smallest_slice"), 8);
  EXPECT_EQ(r["verdict"], "weight-load bound (TPU v5e 4x4)");
  ASSERT_EQ(r["quantization"].size(), 4u);
  near_rel(r["quantization"][3]["b_crit"].get<double>(), 0.25 * 1.97e14 / 8.2e11);
  EXPECT_TRUE(all_finite(r));
}

TEST(InferenceStep, PriceOverrideAndMissingPrice) {
  // A reader's $2 per chip-hour: the cost scales by 2 / 1.2.
  const json a = calc("inference.step");
  const json b = calc("inference.step", {{"price", 2}});
  near_rel(value_of(b, "cost_out"), value_of(a, "cost_out") * 2 / 1.2);
  // TPU7x has no price in the tables: no cost, a note asking for one.
  const json c = calc("inference.step", {{"chip", "tpu7x"}, {"chips", 16}});
  ASSERT_TRUE(c["ok"].get<bool>()) << c.dump().substr(0, 300);
  EXPECT_FALSE(c["values"].contains("cost_out"));
  EXPECT_NE(c["notes"].dump().find("no price"), std::string::npos);
}

TEST(InferenceStep, MoeOfTheTable) {
  // Mixtral 8x7B: every expert read, 2 of 8 used per token: the critical batch grows by
  // P_total / P_active.
  const json r = calc("inference.step", {{"model", "mixtral-8x7b"}, {"chips", 8}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump().substr(0, 300);
  near_rel(value_of(r, "b_crit_moe"),
           value_of(r, "b_crit") * value_of(r, "params") / value_of(r, "params_active"));
  EXPECT_GT(value_of(r, "b_crit_moe"), 2 * value_of(r, "b_crit"));
}

TEST(InferenceStep, BadInputNamesItsField) {
  expect_error_value(calc("inference.step", {{"chips", 0}}), "chips");
  expect_error_value(calc("inference.step", {{"chips", 12}}), "chips");  // no such slice
  // 70.55 GB of int8 weights do not fit in 4 chips (64 GB).
  const json w = calc("inference.step", {{"chips", 4}});
  expect_error_value(w, "chips");
  EXPECT_NE(w["error"]["message"].get<std::string>().find("8 chips"), std::string::npos);
  // One sequence of 2e6 tokens needs 327.7 GB of cache; 185,446,293,504 B is free:
  // floor(185,446,293,504 / 163,840) = 1,131,874 tokens fit.
  const json s = calc("inference.step", {{"S", 2000000}, {"B", 1}});
  expect_error_value(s, "S");
  EXPECT_NE(s["error"]["message"].get<std::string>().find("at most 1131874 tokens"),
            std::string::npos);
  // 139 sequences of 8192 tokens: one more than fits.
  const json b = calc("inference.step", {{"B", 139}});
  expect_error_value(b, "B");
  EXPECT_NE(b["error"]["message"].get<std::string>().find("at most 138"), std::string::npos);
  expect_error_value(calc("inference.step", {{"dtype_w", "fp16"}}), "dtype_w");
  expect_error_value(calc("inference.step", {{"model", "gpt-5"}}), "model");
  expect_error_value(calc("inference.step", {{"model", "custom"}}), "L");
  expect_error_value(calc("inference.step", {{"chip", "h300"}}), "chip");  // no such GPU
  expect_error_value(calc("inference.step", {{"dtype_matmul", "fp8"}}), "dtype_matmul");
  expect_error_value(calc("inference.step", {{"K", 7}}), "K");  // 64 heads over 7
}

// ---------------------------------------------------------------- the searches ---------------

TEST(InferenceFrontier, SweepsFitsAndMarksTheFront) {
  const json r = calc("inference.frontier");
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump().substr(0, 300);
  const json& pts = r["points"];
  ASSERT_GT(pts.size(), 50u);
  EXPECT_EQ(value_of(r, "configs"), static_cast<double>(pts.size()));
  // Sorted by latency; the front's throughput rises strictly along it.
  double last = 0, best = 0;
  int front = 0;
  for (const auto& p : pts) {
    EXPECT_GE(p["latency"].get<double>(), last);
    last = p["latency"].get<double>();
    if (p["pareto"].get<bool>()) {
      EXPECT_GT(p["tok_s_chip"].get<double>(), best);
      best = p["tok_s_chip"].get<double>();
      ++front;
    }
    EXPECT_LE(p["B"].get<double>(), p["B_max"].get<double>());
  }
  EXPECT_EQ(value_of(r, "front"), front);
  // LLaMA 3-70B in bf16 (141 GB) needs 16 chips: no bf16 point on 8 or fewer.
  for (const auto& p : pts)
    if (p["dtype_w"] == "bf16") EXPECT_GE(p["chips"].get<double>(), 16);
  EXPECT_TRUE(all_finite(r));
}

TEST(InferenceFrontier, BoundedByItsWork) {
  // 4 dtype sets x 9 slices x 200 batches would pass 20,000 configurations on a tiny model: cut.
  inf::SweepInput in;
  const transformers::Config c = transformers::model("llama-3-8b").config;
  const inf::Served m = inf::served(c);
  in.model = &m;
  in.machine = inf::machine_of(hw::chip("v5p"));
  in.dtypes = inf::dtype_sets(in.machine);
  in.batches = 1000;
  const inf::Sweep sw = inf::sweep(in);
  EXPECT_TRUE(sw.cut);
  EXPECT_EQ(sw.configs, inf::kMaxConfigs);
  EXPECT_EQ(static_cast<long>(sw.points.size()), inf::kMaxConfigs);
}

TEST(InferencePlan, CheapestThatMeetsTheTarget) {
  // LLaMA 3-70B on v5e, 30 ms per token, 10 requests/s of 2048 + 512 tokens.
  const json r = calc("inference.plan");
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump().substr(0, 400);
  EXPECT_TRUE(r["met"].get<bool>());
  EXPECT_LE(value_of(r, "tpot"), 0.03);
  // Replicas carry 10 * 512 = 5120 output tokens per second: B / T_step * replicas >= 5120.
  EXPECT_GE(value_of(r, "B") / value_of(r, "tpot") * value_of(r, "replicas"), 5120 * (1 - 1e-9));
  // The best option is the cheapest that meets it, and every other says why it loses.
  const json& opts = r["options"];
  ASSERT_TRUE(opts[0]["best"].get<bool>());
  for (size_t i = 1; i < opts.size(); ++i) {
    EXPECT_FALSE(opts[i]["why"].get<std::string>().empty()) << opts[i].dump();
    if (opts[i]["meets"].get<bool>())
      EXPECT_GE(opts[i]["chip_hours_per_m"].get<double>(),
                opts[0]["chip_hours_per_m"].get<double>());
  }
  near_rel(value_of(r, "cost_per_m"), value_of(r, "chip_hours_per_m") * 1.2);
}

TEST(InferencePlan, NothingMeetsSaysSoAndGivesTheClosest) {
  const json r = calc("inference.plan", {{"tpot", 1e-5}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump().substr(0, 300);
  EXPECT_FALSE(r["met"].get<bool>());
  EXPECT_EQ(r["verdict"].get<std::string>().rfind("Nothing meets the target", 0), 0u);
  // The closest is the lowest latency there is: the largest slice, batch 1.
  EXPECT_EQ(value_of(r, "chips"), 256);
  EXPECT_EQ(value_of(r, "B"), 1);
}

TEST(InferencePlan, AnMoeTheBookNeverUses) {
  const json r = calc("inference.plan", {{"model", "qwen3-235b-a22b"}, {"tpot", 0.05}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump().substr(0, 300);
  EXPECT_TRUE(r["met"].get<bool>());
  EXPECT_TRUE(all_finite(r));
  // DeepSeek-V3 (671B) fits on no v5e slice under 64 chips in bf16, but int4 fits; the plan
  // answers.
  const json d = calc("inference.plan", {{"model", "deepseek-v3"}, {"tpot", 0.1}});
  ASSERT_TRUE(d["ok"].get<bool>()) << d.dump().substr(0, 300);
  expect_error_value(calc("inference.plan", {{"model", "llama-3.1-405b"}, {"max_chips", 4}}),
                     "max_chips");
}

// ---------------------------------------------------------------- MoE, sharding, engine -----

TEST(InferenceMoe, MixtralOnSixtyFourChips) {
  // Mixtral 8x7B (L 32, D 4096, F 14336, K 8, H 128, E 8, k 2), 64 v5e chips, TP = K = 8 chips per
  // attention group, DP = 8 groups, B 256 of 8192 tokens, int8 KV (2 * 32 * 8 * 128 = 65,536 B
  // per token).
  const json r = calc("inference.moe", {{"model", "mixtral-8x7b"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump().substr(0, 400);
  EXPECT_EQ(value_of(r, "tp"), 8);
  EXPECT_EQ(value_of(r, "dp"), 8);
  // KV per chip: 256 * 8192 * 65536 / (8 * min(8, 8)) = 2,147,483,648 B.
  near_rel(value_of(r, "kv_chip"), 256.0 * 8192 * 65536 / 64);
  // One dispatch: 256 * 2 * 4096 * 2 B = 4,194,304 B; over an 8x8 slice:
  // 4,194,304 * 8 / (4 * 64 * 9e10) = 1.4564e-6 s.
  near_rel(value_of(r, "a2a_bytes"), 256.0 * 2 * 4096 * 2);
  near_rel(value_of(r, "a2a_time"), 256.0 * 2 * 4096 * 2 * 8 / (4 * 64 * 9e10));
  // Weights per chip: the experts (32 * 8 * 3 * 4096 * 14336 = 45,097,156,608) over 64, the rest
  // over 8, in int8.
  const double P =
      value_of(calc("inference.step", {{"model", "mixtral-8x7b"}, {"chips", 8}}), "params");
  near_rel(value_of(r, "weights_chip"), 45097156608.0 / 64 + (P - 45097156608.0) / 8);
  EXPECT_EQ(r["mesh"]["lines"].size(), 5u);
  EXPECT_TRUE(all_finite(r));
  expect_error_value(calc("inference.moe", {{"model", "llama-3-70b"}}), "model");
  expect_error_value(calc("inference.moe", {{"TP", 3}}), "TP");
  expect_error_value(calc("inference.moe", {{"B", 1e6}}), "B");
  // The page opens on an MoE the book never uses: Qwen3-235B-A22B, 4 KV heads, 16 groups of 4.
  const json q = calc("inference.moe");
  ASSERT_TRUE(q["ok"].get<bool>()) << q.dump().substr(0, 300);
  EXPECT_EQ(value_of(q, "tp"), 4);
  EXPECT_EQ(value_of(q, "dp"), 16);
  near_rel(value_of(q, "experts_per_chip"), 2);
}

TEST(InferenceSharding, LimitsOnAFourByFour) {
  // LLaMA 3-70B on 16 v5e chips, B 32: alpha = 1.97e14 / 9e10 = 2188.9; r = 8.2e11 / 9e10 = 9.11.
  const json r = calc("inference.sharding");
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump().substr(0, 300);
  near_rel(value_of(r, "alpha_ici"), 1.97e14 / 9e10);
  // Prefill: 2 axes * 28672 / 2188.9 = 26.2; decode: 28672 / (32 * 9.111) = 98.3.
  near_rel(value_of(r, "y_max_prefill"), 2 * 28672 / (1.97e14 / 9e10));
  near_rel(value_of(r, "y_max_decode"), 28672 / (32 * 8.2e11 / 9e10));
  // One matmul: int8 weights 8192 * 28672 / (16 * 8.2e11) = 1.790e-5 s; bf16 activations
  // 2 * 32 * 8192 / 9e10 = 5.825e-6 s: hidden.
  near_rel(value_of(r, "t_hbm"), 8192.0 * 28672 / (16 * 8.2e11));
  near_rel(value_of(r, "t_ici"), 2.0 * 32 * 8192 / 9e10);
  EXPECT_EQ(value_of(r, "ici_hidden"), 1);
  EXPECT_EQ(value_of(r, "kv_heads_split"), 8);
  EXPECT_EQ(value_of(r, "kv_batch_split"), 2);
  EXPECT_TRUE(all_finite(r));
}

TEST(InferenceEngine, DisaggregationChurnPrefixAndSpeculation) {
  // LLaMA 3-70B int8 on 16 v5e chips, B 32, prompts of 8192, replies of 512 (S = 8704).
  const json r = calc("inference.engine", {{"cached", 4096}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump().substr(0, 300);
  const double pre = 2 * kP70 * 8192 / (16 * 1.97e14 * 0.4);
  near_rel(value_of(r, "t_prefill"), pre);
  // Prefill servers per generate server: T_prefill B / (T_step 512).
  near_rel(value_of(r, "server_ratio"), pre * 32 / (value_of(r, "t_step") * 512));
  near_rel(value_of(r, "finished_per_step"), 32.0 / 512);
  near_rel(value_of(r, "kv_freed_per_step"), 32.0 * (8192 + 512) / 512);
  near_rel(value_of(r, "prefix_fraction"), 0.5);
  near_rel(value_of(r, "t_prefill_cached"), pre / 2);
  // gamma 4 at a = 0.7: (1 - 0.7^5) / 0.3 = 2.7731 tokens per pass.
  near_rel(value_of(r, "spec_tokens"), (1 - std::pow(0.7, 5)) / 0.3);
  EXPECT_GT(value_of(r, "spec_speedup"), 1);
  expect_error_value(calc("inference.engine", {{"cached", 8192}}), "cached");
  expect_error_value(calc("inference.engine", {{"B", 10000}}), "B");
}

// ---------------------------------------------------------------- problems -------------------

namespace {

double ans(const std::string& id, const std::string& slot, const json& given = json::object()) {
  return answer_of(problem(id, given), slot);
}

}  // namespace

TEST(InferenceProblems, TheBooksNumbers) {
  near_rel(ans("inference.E1", "b_crit_h100_bf16"), 9.9e14 / 3.35e12);
  near_rel(ans("inference.E2", "prefill_len_compute_bound"), 2 * 1.97e14 / 8.2e11);
  // PQ1.a: (4 * 819.2e6 + 30e9) / (16 * 8.2e11) = 2.5363e-3 s.
  near_rel(ans("inference.PQ1.a", "step_time_s"), (4 * 819.2e6 + 30e9) / 1.312e13);
  // PQ1.b: 256 * 819.2e6 / 1.312e13 + 2 * 256 * 30e9 / (16 * 1.97e14) = 0.015984 + 0.004873.
  near_rel(ans("inference.PQ1.b", "step_time_s"),
           256 * 819.2e6 / 1.312e13 + 2 * 256 * 30e9 / (16 * 1.97e14));
  near_rel(ans("inference.E3", "total_params"), 13015449600.0);
  // E5 batch 1: (26,030,899,200 + 6,710,886,400) / 6.56e12 = 4.9911e-3 s; 16 fits in 128 GiB.
  near_rel(ans("inference.E5", "step_time_s_b1"), (26030899200.0 + 6710886400.0) / 6.56e12);
  EXPECT_EQ(ans("inference.E5", "largest_table_batch_that_fits"), 16);
  EXPECT_EQ(ans("inference.E5", "max_batch_that_fits"), 16);
  // E6 batch 240: (26,030,899,200 + 240 * 1,342,177,280) / 6.56e12 = 5.3072e-2 s; 64 fits.
  near_rel(ans("inference.E6", "step_time_s_b240"), (26030899200.0 + 240 * 1342177280.0) / 6.56e12);
  EXPECT_EQ(ans("inference.E6", "largest_table_batch_that_fits"), 64);
  near_rel(ans("inference.E8", "min_layer_time_s"), 2.0 * 8192 * 32768 * 2 / 4 / 8.2e11);
  near_rel(ans("inference.Q5.2", "b_crit_moe_param_ratio"),
           1.97e14 / 8.2e11 * 211658735616.0 / 31270109184.0);
  near_rel(ans("inference.Q6.1", "weight_load_time_s_int8_attn_on_y_only"),
           (206158430208.0 / 128 + 5500305408.0 / 8) / 8.2e11);
  EXPECT_EQ(ans("inference.Q6.2", "smallest_slice_chips_bf16"), 32);
  near_rel(ans("inference.Q7", "crossover_chips"), 72);
}

TEST(InferenceProblems, HeldOutWorkedProblems) {
  // Q2: 128,000 * 262,144 = 33,554,432,000 B per sequence;
  // floor((16 * 16e9 - 18,385,207,296) / 33,554,432,000) = floor(7.08) = 7;
  // one KV head: 32,768 B per token: floor(237,614,792,704 / 4,194,304,000) = 56.
  near_rel(ans("inference.Q2", "kv_bytes_per_seq"), 33554432000.0);
  EXPECT_EQ(ans("inference.Q2", "max_batch"), 7);
  EXPECT_EQ(ans("inference.Q2", "max_batch_k1"), 56);
  // Q3: 18,385,207,296 / (16 * 8.2e11) = 1.4013e-3 s.
  near_rel(ans("inference.Q3", "weight_load_time_s"), 18385207296.0 / 1.312e13);
  // Q4: 16384 / (16 * 8.2e11 / 9e10) = 112.4 sequences; 7 x 128,000 tokens:
  // 7 * 128000 * 262144 / 1.312e13 + 1.4013e-3 = 0.019303 s.
  near_rel(ans("inference.Q4", "max_batch_for_16way_decode"), 16384 / (16 * 8.2e11 / 9e10));
  near_rel(ans("inference.Q4", "step_time_b7_128k_s"),
           7 * 128000 * 262144.0 / 1.312e13 + 18385207296.0 / 1.312e13);
  near_rel(ans("inference.Q4", "step_time_b32_8k_s"),
           32 * 8192 * 262144.0 / 1.312e13 + 18385207296.0 / 1.312e13);
}

TEST(InferenceProblems, PrintedAnswersAndShortcutsAreGraded) {
  // The H100's "about 280" is the B200's 281 rounded with it: correct, with a note.
  const json h = check("inference.E1", {{"b_crit_h100_bf16", "280"}});
  EXPECT_EQ(verdict_of(h, "b_crit_h100_bf16"), "correct");
  // The pop quiz's older 8.1e11 B/s: 2.567 ms is correct too.
  const json q = check("inference.PQ1.a", {{"step_time_s", "2.567 ms"}});
  EXPECT_EQ(verdict_of(q, "step_time_s"), "correct");
  // Weights only: 30e9 / 1.312e13 = 2.287 ms: a slip with its hint.
  const json s = check("inference.PQ1.a", {{"step_time_s", "2.287 ms"}});
  EXPECT_EQ(verdict_of(s, "step_time_s"), "wrong");
  EXPECT_NE(s["results"][1]["hint"].get<std::string>().find("KV cache"), std::string::npos);
  // 128e9 B read for the host's 128 GiB: 8 is the decimal slip.
  const json e = check("inference.E5", {{"largest_table_batch_that_fits", "8"}});
  EXPECT_EQ(verdict_of(e, "largest_table_batch_that_fits"), "wrong");
  // Q4 with the text's r = 8: 16384 / (16 * 8) = 128, accepted.
  EXPECT_EQ(verdict_of(check("inference.Q4", {{"max_batch_for_16way_decode", "128"}}),
                       "max_batch_for_16way_decode"),
            "correct");
}

TEST(InferenceProblems, EveryProblemSolvesWithItsDefaultsAndVariants) {
  int n = 0;
  for (const auto& p : Registry::get().problems()) {
    if (p.chapter != "inference") continue;
    ++n;
    const json r = problem(std::string(p.id));
    ASSERT_TRUE(r["ok"].get<bool>()) << p.id << r.dump().substr(0, 300);
    EXPECT_TRUE(all_finite(r)) << p.id;
    for (const auto& g : p.given) EXPECT_FALSE(g.doc.empty()) << p.id << " " << g.name;
    for (int seed = 1; seed <= 8; ++seed) {
      const json v = api::handle(json{{"op", "variant"}, {"id", p.id}, {"seed", seed}});
      if (!r["variable"].get<bool>()) break;
      ASSERT_TRUE(v["ok"].get<bool>()) << p.id << " " << v.dump();
      const json s = problem(std::string(p.id), v["given"]);
      expect_sound(s, {}, std::string(p.id) + " " + v["given"].dump());
    }
  }
  // inference.json: 23 items.
  EXPECT_EQ(n, 23);
}

TEST(InferenceProblems, GivensAtTheEndsOfTheirRanges) {
  for (const auto& p : Registry::get().problems()) {
    if (p.chapter != "inference") continue;
    std::vector<std::string> names;
    for (const Param& g : p.given) names.emplace_back(g.name);
    for (const Param& g : p.given) {
      if (g.kind != Param::Kind::Number) continue;
      for (double v : {g.min, g.max, g.positive && g.min <= 0 ? 5e-324 : g.min}) {
        const json r = problem(std::string(p.id), {{std::string(g.name), v}});
        expect_sound(r, names, std::string(p.id) + " " + std::string(g.name));
      }
    }
  }
}

// ---------------------------------------------------------------- GPUs -----------------------

TEST(InferenceGpu, SlicesOfAnNvlinkNodeAndBeyond) {
  // H100: 1, 2, 4 GPUs of a node, the 8-GPU node, then 2 ... 128 nodes (the GPU chapter's two-tier
  // fat tree takes floor(64 / (8 x 2)) x 32 = 128 nodes): 1024 GPUs at most, 11 sizes.
  const auto h = inf::slices(inf::machine_of(hw::chip("h100")));
  ASSERT_EQ(h.size(), 11u);
  EXPECT_EQ(h[2].chips, 4);
  EXPECT_EQ(h[2].shape, "4-GPU group");
  EXPECT_EQ(h[3].shape, "8-GPU node");
  EXPECT_EQ(h[4].shape, "16-GPU cluster (2 nodes)");
  EXPECT_EQ(h.back().chips, 1024);
  // GB200 NVL72: 1 ... 64 inside the node, the 72-GPU node, then 144, 288 ... 72 x 128 = 9216.
  const auto g = inf::slices(inf::machine_of(hw::chip("gb200")));
  ASSERT_EQ(g.size(), 15u);
  EXPECT_EQ(g[6].chips, 64);
  EXPECT_EQ(g[7].chips, 72);
  EXPECT_EQ(g[8].chips, 144);
  EXPECT_EQ(g.back().chips, 9216);
  // V100: the book gives no NVLink figures, so one GPU.
  EXPECT_EQ(inf::slices(inf::machine_of(hw::chip("v100"))).size(), 1u);
  // Collectives: inside the node a ring over NVLink, 2 x 1 MB x 7 / (8 x 450 GB/s) = 3.889 us;
  // over 2 nodes the hierarchical ring, max(1e6 x 7 / (8 x 4.5e11), 1e6 x 1 / (2 x 4e11)) =
  // max(1.944, 1.25) us per AllGather, twice for the AllReduce.
  const inf::Machine m = inf::machine_of(hw::chip("h100"));
  near_rel(inf::gpu_allreduce_time(m, 1e6, 8, "chips"), 2 * 1e6 * 7 / (8 * 4.5e11));
  near_rel(inf::gpu_allreduce_time(m, 1e6, 16, "chips"), 2 * 1e6 * 7 / (8 * 4.5e11));
  near_rel(inf::gpu_allgather_time(m, 1e6, 16, "chips"), 1e6 * 7 / (8 * 4.5e11));
  // AllToAll over 4 nodes: 1e6 x 3 / (16 x 4e11) = 0.469 us; in a node 1e6 x 7 / (4.5e11 x 64).
  near_rel(inf::gpu_alltoall_time(m, 1e6, 32, "chips"), 1e6 * 3 / (16 * 4e11));
  near_rel(inf::gpu_alltoall_time(m, 1e6, 8, "chips"), 1e6 * 7 / (4.5e11 * 64));
  expect_error([&] { inf::gpu_allgather_time(m, 1e6, 12, "chips"); }, "chips", "out_of_range",
               "comes in sets");
  expect_error([&] { inf::gpu_allgather_time(inf::machine_of(hw::chip("v5e")), 1e6, 4, "chips"); },
               "chips", "not_a_gpu", "NVLink");
  // The problems stay on TPUs.
  expect_error([&] { inf::tpu_of(hw::chip("h100")); }, "chip", "no_figure", "is a GPU");
}

TEST(InferenceGpu, LlamaThreeSeventyOnAnH100Node) {
  // LLaMA 3-70B, int8 weights and KV, bf16 matmuls, B 32, S 8192 on one 8-GPU H100 node
  // (80 GB HBM at 3.35 TB/s, 990 TFLOPs/s bf16, NVLink 450 GB/s each way, $10.80 per GPU-hour).
  const json r = calc("inference.step", {{"chip", "h100"}, {"chips", 8}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump().substr(0, 400);
  // Free HBM 8 x 80e9 - P = 569,446,293,504 B; B_max = floor(that / 1,342,177,280) = 424.
  near_rel(value_of(r, "hbm_free"), 640e9 - kP70);
  EXPECT_EQ(value_of(r, "b_max"), 424);
  // Weights / 8 over HBM: 70.55e9 / (8 x 3.35e12) = 2.633 ms; caches 32 x 8192 x 163,840 /
  // 2.68e13 = 1.603 ms; FLOPs 2 x 32 x P / (8 x 9.9e14) = 0.570 ms; the book's step 4.235 ms.
  near_rel(value_of(r, "t_param"), kP70 / (8 * 3.35e12));
  near_rel(value_of(r, "t_kv"), 32 * 8192 * kKv70 / (8 * 3.35e12));
  near_rel(value_of(r, "t_flops"), 2 * 32 * kP70 / (8 * 9.9e14));
  // The AllReduce of the [32, 8192] bf16 activation (524,288 B) over NVLink:
  // 2 x 524,288 x 7 / (8 x 4.5e11) = 2.039 us; two per layer, 160 per step: 0.326 ms, added to
  // the step: 4.235 + 0.326 = 4.561 ms.
  const double ar = 2 * 524288.0 * 7 / (8 * 4.5e11);
  near_rel(value_of(r, "t_allreduce"), ar);
  near_rel(value_of(r, "t_comms"), 160 * ar);
  near_rel(value_of(r, "t_step"), (32 * 8192 * kKv70 + kP70) / (8 * 3.35e12) + 160 * ar);
  // Critical batch, int8 weights at bf16: (1 / 2) 9.9e14 / 3.35e12 = 147.8.
  near_rel(value_of(r, "b_crit"), 0.5 * 9.9e14 / 3.35e12);
  near_rel(value_of(r, "cost_out"), 1e6 * 8 * 10.8 * value_of(r, "t_step") / (3600 * 32));
  EXPECT_EQ(r["verdict"], "weight-load bound (NVIDIA H100 SXM 8-GPU node)");
  EXPECT_TRUE(all_finite(r));
}

TEST(InferenceGpu, ShardingMoeEngineAndSearchesOnGpus) {
  // Sharding over 8 H100s: alpha = 9.9e14 / 4.5e11 = 2200; TP hides its collectives in prefill up
  // to F / alpha = 28672 / 2200 = 13.03; one decode matmul's AllGather of 524,288 B over 8 GPUs
  // takes 524,288 x 7 / (8 x 4.5e11) = 1.019 us.
  const json s = calc("inference.sharding", {{"chip", "h100"}, {"chips", 8}});
  ASSERT_TRUE(s["ok"].get<bool>()) << s.dump().substr(0, 400);
  near_rel(value_of(s, "alpha_ici"), 2200);
  near_rel(value_of(s, "y_max_prefill"), 28672.0 / 2200);
  near_rel(value_of(s, "t_ici"), 524288.0 * 7 / (8 * 4.5e11));
  EXPECT_NE(s.dump().find("not a torus"), std::string::npos);  // 2D sharding: what a GPU lacks
  EXPECT_TRUE(all_finite(s));
  // Qwen3-235B over 64 H100s (8 nodes): one dispatch moves B k D b_a = 256 x 8 x 4096 x 2 =
  // 16,777,216 B; across nodes 16,777,216 x 7 / (64 x 4e11) = 4.588 us.
  const json m = calc("inference.moe", {{"chip", "h100"}});
  ASSERT_TRUE(m["ok"].get<bool>()) << m.dump().substr(0, 400);
  near_rel(value_of(m, "a2a_time"), 16777216.0 * 7 / (64 * 4e11));
  EXPECT_TRUE(all_finite(m));
  EXPECT_TRUE(calc("inference.engine", {{"chip", "h100"}, {"chips", 8}})["ok"].get<bool>());
  // The planner answers on GPUs: its slice is one of the H100's sets.
  const json p = calc("inference.plan", {{"chip", "h100"}});
  ASSERT_TRUE(p["ok"].get<bool>()) << p.dump().substr(0, 400);
  std::set<double> sizes;
  for (const auto& x : inf::slices(inf::machine_of(hw::chip("h100")))) sizes.insert(x.chips);
  EXPECT_TRUE(sizes.count(value_of(p, "chips")));
  EXPECT_TRUE(calc("inference.frontier", {{"chip", "gb200"}, {"batches", 4}})["ok"].get<bool>());
}

TEST(InferenceGpu, BadGpuInputNamesItsField) {
  // 12 H100s is no set: inside a node 1, 2, 4, 8, then whole nodes.
  const json a = calc("inference.step", {{"chip", "h100"}, {"chips", 12}});
  expect_error_value(a, "chips");
  EXPECT_NE(a.dump().find("whole nodes"), std::string::npos);
  // 2048 GPUs is 256 nodes, more than the fat tree's 128.
  expect_error_value(calc("inference.step", {{"chip", "h100"}, {"chips", 2048}}), "chips");
  // The V100 has no NVLink figures: one GPU only.
  expect_error_value(calc("inference.sharding", {{"chip", "v100"}, {"chips", 8}}), "chips");
  expect_error_value(calc("inference.step", {{"chip", "h300"}}), "chip");
  // fp8 matmuls on an A100: the tables give it no fp8 peak.
  expect_error_value(
      calc("inference.step", {{"chip", "a100"}, {"chips", 8}, {"dtype_matmul", "fp8"}}),
      "dtype_matmul");
}
