// The case study's calculators and problems through the JSON entry point: the chapter's numbers
// for LLaMA 3-70B derived by hand (arithmetic in the comments), the chapter's recipe beside the
// planner's, held-out items (IQ9's rounding), and bad input naming its field.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/api.hpp"
#include "core/hardware.hpp"
#include "tests/support/chips.hpp"
#include "tests/support/support.hpp"

using namespace sb;
using namespace sb::test;

namespace {

// LLaMA 3-70B without norms (the chapter's table): 80 (3 * 8192 * 28672 + 2 * 8192 * 72 * 128)
// + 2 * 8192 * 128256 = 80 * (704,643,072 + 150,994,944) + 2,101,346,304 = 70,552,387,584.
constexpr double kParams = 70552387584.0;

}  // namespace

TEST(AppliedTrainingCase, Llama3_70bOnAPod) {
  const json r = calc("applied-training.case", json::object());
  near_rel(value_of(r, "params"), kParams);
  near_rel(value_of(r, "mlp_params"), 80 * 704643072.0);
  // The chapter's 6P per token, and the widget's 6 P_active: the input embedding (8192 x 128256 =
  // 1,050,673,152) is a look-up, so P_active = 69,501,714,432.
  near_rel(value_of(r, "flops_per_token_book"), 6 * kParams);
  near_rel(value_of(r, "flops_per_token"), 6 * 69501714432.0);
  near_rel(value_of(r, "total_flops"), 6 * 69501714432.0 * 15e12);
  // 6 P_active tokens / (8960 * 4.59e14 * 0.4) = 3,802,402 s (44 days); with the chapter's 6P,
  // 6.3497e24 / 1.645056e18 = 3,859,878 s (44.7 days).
  near_rel(value_of(r, "time"), 6 * 69501714432.0 * 15e12 / (8960 * 4.59e14 * 0.4));
  near_rel(value_of(r, "time_book"), 6 * kParams * 15e12 / (8960 * 4.59e14 * 0.4));
  // State with 4 checkpoints of [4,194,304, 8192] per layer: 10 P + 2 * 8192 * 4194304 * 4 * 80.
  const double state = 10 * kParams + 2.0 * 8192 * 4194304 * 4 * 80;
  near_rel(value_of(r, "state_bytes"), state);
  EXPECT_EQ(value_of(r, "min_chips"), std::ceil(state / 96e9));
  near_rel(value_of(r, "bytes_per_chip"), state / 8960);
  // 4194304 / 8960 = 468.1 per chip: FSDP needs 850 (no), FSDP + TP 2550^2 / (2 * 28672) = 113.4.
  near_rel(value_of(r, "per_chip_batch"), 4194304.0 / 8960);
  EXPECT_EQ(value_of(r, "fsdp_compute_bound"), 0);
  EXPECT_EQ(value_of(r, "mixed_compute_bound"), 1);
  near_rel(value_of(r, "mixed_threshold"), 2550.0 * 2550 / 57344);
  // X_opt = sqrt(4194304 / 28672 * 2 * 8960) = 1619.09 -> 2048 as the chapter rounds; 4-way TP
  // (8960 / 2048 = 4.375; 4 divides the 8 KV heads and D) on 8192 chips, 768 idle.
  near_rel(value_of(r, "x_opt"), std::sqrt(4194304.0 / 28672 * 2 * 8960));
  EXPECT_EQ(value_of(r, "fsdp_degree"), 2048);
  EXPECT_EQ(value_of(r, "tp_degree"), 4);
  EXPECT_EQ(value_of(r, "idle_chips"), 768);
  EXPECT_EQ(value_of(r, "recipe_compute_bound"), 1);
  EXPECT_EQ(value_of(r, "sequences"), 1024);
  // Counting the norms: 2 * 8192 * 80 + 8192 more parameters.
  near_rel(value_of(calc("applied-training.case", {{"norms", "model"}}), "params"),
           kParams + 2 * 8192 * 80 + 8192);
}

TEST(AppliedTrainingCase, FourPodsOverDcn) {
  // Q1: 4 pods, the same batch: 1,048,576 per pod > 73,440; 117 per chip > 113.4.
  const json r = calc("applied-training.case", {{"pods", 4}});
  EXPECT_EQ(value_of(r, "chips"), 35840);
  near_rel(value_of(r, "per_pod_batch"), 1048576);
  near_rel(value_of(r, "dcn_threshold"), 73440);
  EXPECT_EQ(value_of(r, "mixed_compute_bound"), 1);
  near_rel(value_of(r, "x_opt"), std::sqrt(1048576.0 / 28672 * 2 * 8960));
}

TEST(AppliedTrainingCase, BadInputNamesTheField) {
  EXPECT_EQ(error_field(calc("applied-training.case", {{"chip", "v100"}})), "chip");
  // A GPU cluster has no pods over DCN.
  EXPECT_EQ(error_field(calc("applied-training.case", {{"chip", "h100"}, {"pods", 2}})), "pods");
  EXPECT_EQ(error_field(calc("applied-training.case", {{"batch", 1000}})), "batch");
  EXPECT_EQ(error_field(calc("applied-training.case", {{"mfu", 1.5}})), "mfu");
  EXPECT_EQ(error_field(calc("applied-training.case", {{"pods", 0}})), "pods");
  EXPECT_EQ(error_field(calc("applied-training.case", {{"model", "llama-9"}})), "model");
  EXPECT_EQ(error_field(calc("applied-training.plan", {{"batch", 10}})), "batch");
  // Every TPU opens (its own full pod); values are numbers. A TPU whose pod the book does not
  // give (v2) is an error on the chip saying so.
  for (const auto& c : hw::chips()) {
    if (c.kind != "tpu") continue;
    for (const char* name : {"applied-training.case", "applied-training.plan"}) {
      const json r = calc(name, {{"chip", c.id}});
      if (c.unknown("max_pod_chips")) {
        EXPECT_FALSE(ok_or_not_known(r, c.name)) << name;
        continue;
      }
      ASSERT_TRUE(r["ok"].get<bool>()) << name << " " << c.id << r.dump().substr(0, 300);
      for (auto it = r["values"].begin(); it != r["values"].end(); ++it)
        EXPECT_TRUE(it.value()["value"].is_number()) << name << " " << c.id << " " << it.key();
    }
  }
}

TEST(AppliedTrainingCase, OnAnH100Cluster) {
  // The cluster: the 1024 H100s the fat tree takes (128 nodes of 8). FSDP alone: 8 GPUs a node,
  // 128 nodes; the nodes' ring moves 127/128 of a byte at the node's 400 GB/s, slower than NVLink's
  // 7/8 at 450 GB/s: M_X = (400e9 x 128 / 127) / 450e9 = 0.89589, and the floor
  // alpha / M_X = (990e12 / 450e9) / 0.89589 = 2200 / 0.89589 = 2455.7 tokens.
  const json r = calc("applied-training.case", {{"chip", "h100"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump().substr(0, 300);
  EXPECT_EQ(value_of(r, "chips"), 1024);
  near_rel(value_of(r, "fsdp_threshold"), 2200 / (400e9 * 128 / 127 / 450e9));
  // The recipe keeps TP in the node: F / alpha = 28672 / 2200 = 13.03, so Y = 8 and X = 128.
  EXPECT_EQ(value_of(r, "tp_degree"), 8);
  EXPECT_EQ(value_of(r, "fsdp_degree"), 128);
  // Beside the planner on the same cluster.
  const json p = calc("applied-training.plan", {{"chip", "h100"}});
  ASSERT_TRUE(p["ok"].get<bool>()) << p.dump().substr(0, 300);
  EXPECT_EQ(value_of(p, "book_X") * value_of(p, "book_Y"), 1024);
  // One A100 node (the book gives no A100 scale-out): 8 GPUs, every value a number.
  const json a = calc("applied-training.case", {{"chip", "a100"}});
  ASSERT_TRUE(a["ok"].get<bool>()) << a.dump().substr(0, 300);
  EXPECT_EQ(value_of(a, "chips"), 8);
}

TEST(AppliedTrainingPlan, ChapterBesidePlanner) {
  const json r = calc("applied-training.plan", json::object());
  // The chapter's 2048 x 4 (on 8192 chips) and the planner's best (on all 8960) are both
  // compute-bound: a step is 80 layers of 3 x 2 n B D F / (N C), with the gated layer's n = 3:
  // 80 x 3 x 6 x 4194304 x 8192 x 28672 / (N x 4.59e14).
  EXPECT_EQ(value_of(r, "book_X"), 2048);
  EXPECT_EQ(value_of(r, "book_Y"), 4);
  EXPECT_EQ(value_of(r, "book_idle"), 768);
  EXPECT_EQ(value_of(r, "book_compute_bound"), 1);
  EXPECT_EQ(value_of(r, "plan_compute_bound"), 1);
  const double work = 80 * 3 * 6.0 * 4194304 * 8192 * 28672 / 4.59e14;
  near_rel(value_of(r, "book_step"), work / 8192);
  near_rel(value_of(r, "plan_step"), work / 8960);
  EXPECT_GT(value_of(r, "configs"), 0);
}

TEST(AppliedTrainingProblems, HandDerivedAnswers) {
  // IQ1 (held out): the counts above; MLP share 56,371,445,760 / 70,552,387,584 = 0.799.
  json r = problem("applied-training.IQ1");
  near_rel(answer_of(r, "total_params"), kParams);
  near_rel(answer_of(r, "ffw_params"), 56371445760.0);
  near_rel(answer_of(r, "attention_params"), 12079595520.0);
  near_rel(answer_of(r, "vocab_params"), 2101346304.0);
  near_rel(answer_of(r, "mlp_fraction"), 56371445760.0 / kParams);
  // IQ5: 2P, 8P and 2 * 8192 * 4e6 * 4 * 80 = 2.097152e13 B; ceil(total / 96e9) = 226.
  r = problem("applied-training.IQ5");
  near_rel(answer_of(r, "checkpoint_bytes"), 2.097152e13);
  near_rel(answer_of(r, "total_bytes"), 10 * kParams + 2.097152e13);
  EXPECT_EQ(answer_of(r, "min_chips"), 226);
  // IQ7 (held out): 4194304 / 4096 = 1024 sequences, fewer than 8960 chips.
  r = problem("applied-training.IQ7");
  EXPECT_EQ(answer_of(r, "sequences_per_batch"), 1024);
  EXPECT_EQ(answer_of(r, "fits_8960_chips"), 0);
  // IQ9 (held out): 2550^2 / (2 * 28672) = 113.39; X_opt 1619.09 -> 2048 (log2 1619 = 10.66),
  // floor(8960 / 2048) = 4; window [8960 * 2550 / 28672, 4194304 * 2 / 2550] = [796.9, 3289.6].
  r = problem("applied-training.IQ9");
  near_rel(answer_of(r, "mixed_threshold"), 2550.0 * 2550 / 57344);
  EXPECT_EQ(answer_of(r, "compute_bound"), 1);
  EXPECT_EQ(answer_of(r, "fsdp_degree"), 2048);
  EXPECT_EQ(answer_of(r, "tp_degree"), 4);
  near_rel(answer_of(r, "x_min_compute_bound"), 796.875);
  near_rel(answer_of(r, "x_max_compute_bound"), 4194304.0 * 2 / 2550);
  // Q2.a (held out): 126 * 3 * 16384 * 53248 = 329,772,957,696 MLP; 126 * 2 * 16384 * 136 * 128
  // = 71,873,593,344 attention; 2 * 16384 * 128256 = 4,202,692,608 vocabulary.
  r = problem("applied-training.Q2.a");
  EXPECT_EQ(answer_of(r, "ffw_params"), 329772957696.0);
  EXPECT_EQ(answer_of(r, "attention_params"), 71873593344.0);
  EXPECT_EQ(answer_of(r, "vocab_params"), 4202692608.0);
  EXPECT_EQ(answer_of(r, "total_params"), 405849243648.0);
  near_rel(answer_of(r, "total_flops"), 6 * 405849243648.0 * 15e12);
  // Q2.b (held out): 2550^2 / (2 * 53248) = 61.06 per chip; x 71680 chips = 4,376,683 tokens;
  // 4194304 / 71680 = 58.5 < 61.06: comms-bound; TP limit 53248 / 2550 = 20.9.
  r = problem("applied-training.Q2.b");
  near_rel(answer_of(r, "mixed_threshold"), 2550.0 * 2550 / 106496);
  near_rel(answer_of(r, "min_global_batch"), 71680 * 2550.0 * 2550 / 106496);
  EXPECT_EQ(answer_of(r, "comms_bound_4M"), 1);
  near_rel(answer_of(r, "tp_limit"), 53248.0 / 2550);
  EXPECT_EQ(answer_of(r, "per_pod_batch_4M"), 524288);
  // Bad given names its field.
  EXPECT_EQ(error_field(problem("applied-training.IQ1", {{"K", 7}})), "K");  // K must divide N = 64
}
