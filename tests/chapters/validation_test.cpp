// The validation page's model: a run's bound and expected figure from the chapters' costs, worked
// by hand for a TPU and a GPU run, and bad scenarios, each an error naming its field.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "chapters/validation/model.hpp"
#include "core/api.hpp"
#include "core/error.hpp"
#include "tests/support/support.hpp"

using namespace sb;
using namespace sb::validation;
using sb::test::near_rel;
using sb::test::thrown;

namespace {

// A small model, no vocabulary: L 2, D 1024, F 4096 (plain MLP), 8 heads of 128.
// Per layer: attention 4 D N H = 4 x 1024 x 1024 = 4,194,304; MLP 2 D F = 8,388,608; together
// 12,582,912 matmul weights, and two norms of D = 2048. Model: 25,165,824 matmul weights,
// 25,169,920 stored.
const char* kTiny = R"({"base": "custom", "L": 2, "D": 1024, "F": 4096, "N": 8, "K": 8,
  "H": 128, "gated": false})";

Scenario tiny_training() {
  return read_scenario(json::parse(std::string(R"({"id": "T", "kind": "training", "model": )") +
                                   kTiny + R"(, "chip": "v5e", "chips": 1,
    "parallelism": {}, "batch": {"sequences": 16, "seq_len": 1024}, "remat": "big_matmuls",
    "measured": {"tokens_per_s_per_chip": 600000}})"));
}

}  // namespace

// One v5e (197 TFLOPs/s, 820 GB/s), 16 x 1024 = 16384 tokens a step, nothing to communicate.
// Forward FLOPs per token per layer: 2 x 12,582,912 + causal attention over 512 keys on average,
// 2 x 512 x 8 x (128 + 128) = 2,097,152: 27,262,976. T_math forward per layer:
// 27,262,976 x 16384 / 1.97e14 = 2.26739e-3 s (the weight load, 25.17 MB / 820 GB/s = 31 us, hides
// under it); backward twice that. Step: 2 layers x 3 x 2.26739e-3 = 1.36043e-2 s.
TEST(Validation, TpuTrainingStepByHand) {
  const Scenario s = tiny_training();
  const Prediction p = predict(s, kBound);
  const double t_fwd = 27262976.0 * 16384 / 1.97e14;
  near_rel(p.bound.step, 2 * 3 * t_fwd);
  near_rel(p.bound.tokens_per_s_chip, 16384 / (6 * t_fwd));
  EXPECT_TRUE(p.fits);
  // At half the MXU's peak the math takes twice as long; nothing else binds.
  Factors half = kBound;
  half.mxu_tpu = 0.5;
  const Prediction e = predict(s, half);
  near_rel(e.expected.step, 2 * p.bound.step);
  // measured 600000 tokens/s against 16384 / (12 t_fwd) = 602,163 expected: error 0.36%.
  near_rel(e.error, 16384 / (12 * t_fwd) / 600000 - 1);
  EXPECT_FALSE(e.above_bound);
}

// PaLM 540B prefill on 64 TPU v4 (275 TFLOPs/s): 512 prompts of 2048 tokens.
// Matmul weights: per layer D (N + 2K) H + N H D = 18432 x 256 x (50 + 48) = 462,422,016 for
// attention and 3 D F = 4,076,863,488 for the gated MLP; x 118 layers, plus the unembedding
// D V = 4,718,592,000 (tied): 540,354,281,472. FLOPs: 2 x that x 1,048,576 tokens = 1.13321e18;
// causal attention, L x B T S N (H_qk + H_v) = 118 x 512 x 2048 x 2048 x 48 x 512 = 6.2276e15.
// Time at peak: 1.13944e18 / (64 x 2.75e14) = 64.74 s (the weights stream in 540 GB /
// 76.8 TB/s = 14 ms).
TEST(Validation, TpuPrefillByHand) {
  const auto runs = read_scenarios(R"({"id": "P", "kind": "inference",
    "model": {"base": "custom", "L": 118, "D": 18432, "F": 73728, "N": 48, "K": 1, "H": 256,
              "V": 256000, "gated": true, "tied": true},
    "chip": "v4", "chips": 64, "parallelism": {"tensor": 64},
    "inference": {"phase": "prefill", "prompt": 2048, "batch": 512},
    "measured": {"latency_s": 85.2}})");
  const Prediction p = predict(runs.at(0), kBound);
  const double flops = 2 * 540354281472.0 * 1048576 + 118.0 * 512 * 2048 * 2048 * 48 * 512;
  near_rel(p.bound.latency, flops / (64 * 2.75e14));
  EXPECT_FALSE(p.above_bound);  // 85.2 s is slower than 64.74 s
  EXPECT_FALSE(p.higher_is_better);
}

// The small model decoding on one node of 8 H100 (3.35 TB/s, 990 TFLOPs/s each): 64 sequences,
// 1000-token prompts, 2 output tokens, so the caches hold S = 1001 tokens on average.
// KV per token 2 L K H 2 B = 8192 B: T_kv = 64 x 1001 x 8192 / (8 x 3.35e12) = 1.95825e-5 s.
// Weights 25,169,920 x 2 B / 2.68e13 B/s = 1.87835e-6 s. FLOPs 2 x 25,165,824 x 64 plus
// attention 2 x 2 x 64 x 1001 x 8 x 256 = 524,812,288, over 7.92e15: 4.73e-7 s, under the
// weights. Step: T_kv + max(T_flops, T_param) = 2.14609e-5 s; 64 / (8 step) tokens/s per GPU.
TEST(Validation, GpuDecodeByHand) {
  const auto runs = read_scenarios(std::string(R"({"id": "G", "kind": "inference", "model": )") +
                                   kTiny + R"(, "chip": "h100", "chips": 8,
    "parallelism": {"tensor": 8}, "inference": {"phase": "decode", "prompt": 1000, "output": 2,
    "batch": 64}, "measured": {"output_tokens_per_s_per_chip": 100000}})");
  const Prediction p = predict(runs.at(0), kBound);
  const double step = 64 * 1001 * 8192.0 / (8 * 3.35e12) + 25169920 * 2.0 / (8 * 3.35e12);
  near_rel(p.bound.tpot, step);
  near_rel(p.bound.out_per_s_chip, 64 / (8 * step));
  // With HBM at half its rate both loads take twice as long.
  Factors half = kBound;
  half.hbm = 0.5;
  near_rel(predict(runs.at(0), half).expected.tpot, 2 * step);
}

// A measured figure above the bound is flagged, not hidden.
TEST(Validation, AboveTheBoundIsSaid) {
  Scenario s = tiny_training();
  s.measured = 2e6;  // tokens/s per chip, above the 1.2e6 bound
  EXPECT_TRUE(predict(s, kBound).above_bound);
}

TEST(Validation, BadScenariosNameTheirField) {
  const std::string base = R"({"id": "B", "kind": "training", "chip": "v5e", "chips": 4,
    "batch": {"sequences": 8, "seq_len": 1024}, )";
  auto field = [&](const std::string& rest) {
    return thrown([&] { read_scenarios(base + rest); }).field;
  };
  EXPECT_EQ(field(R"("model": "no-such-model", "parallelism": {"fsdp": 4}})"),
            "scenarios.runs[0].model");
  EXPECT_EQ(field(R"("model": "llama-3-8b", "parallelism": {"fsdp": 3}})"),
            "scenarios.runs[0].parallelism.data");
  EXPECT_EQ(field(R"("model": "llama-3-8b", "parallelism": {"fsdp": 4, "microbatches": 3}})"),
            "scenarios.runs[0].batch.sequences");
  EXPECT_EQ(field(R"("model": "llama-3-8b", "parallelism": {"fsdp": 4, "tensor": 0}})"),
            "scenarios.runs[0].parallelism.tensor");
  EXPECT_EQ(thrown([] {
              read_scenarios(R"({"id": "B", "kind": "training", "model": "llama-3-8b",
                "chip": "tpu-v99", "chips": 1})");
            }).field,
            "scenarios.runs[0].chip");
  EXPECT_EQ(thrown([] { read_scenarios("{not json"); }).field, "scenarios");
  EXPECT_EQ(thrown([] { read_scenarios("  "); }).field, "scenarios");
}

// LLaMA 3 70B on one v5e (16 GB): 70.6e9 params x 10 B of weights and Adam is 706 GB. The
// prediction says it does not fit and still reports the memory, a finite step time with it.
TEST(Validation, NotFittingStillReportsMemory) {
  const auto runs = read_scenarios(R"({"id": "M", "kind": "training", "model": "llama-3-70b",
    "chip": "v5e", "chips": 1, "parallelism": {}, "batch": {"sequences": 1, "seq_len": 1024}})");
  const Prediction p = predict(runs.at(0), kFitted);
  EXPECT_FALSE(p.fits);
  EXPECT_GT(p.mem, 10 * 70e9);
  EXPECT_TRUE(std::isfinite(p.expected.step));
  EXPECT_EQ(p.error, 0);  // nothing measured
}

// The calculator behind `scaling validate` reads the same text and answers with the runs.
TEST(Validation, CalculatorAnswersEachRun) {
  const json r = api::handle(json{{"op", "calc"},
                                  {"name", "validation.runs"},
                                  {"inputs", {{"scenarios", R"([{"id": "x"}])"}}}});
  ASSERT_FALSE(r["ok"].get<bool>());
  EXPECT_EQ(r["error"]["field"], "scenarios.runs[0].kind");
  const json ok = api::handle(json{{"op", "calc"}, {"name", "validation.runs"}});
  ASSERT_TRUE(ok["ok"].get<bool>()) << ok.dump();
  EXPECT_EQ(ok["runs"].size(), 1u);
  EXPECT_TRUE(ok["runs"][0]["error"].is_number());
}
