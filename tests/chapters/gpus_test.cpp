// The GPU chapter: the chip, node, fat-tree, collective and LLM-roofline formulas on values worked
// by hand (arithmetic in the comments), its problems and calculators through the JSON entry
// point, bad input naming its field, and the nccl-tests reader on every variant of a log (the logs
// below are made up for these tests, in the formats the tool prints).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "chapters/gpus/cluster.hpp"
#include "chapters/gpus/formulas.hpp"
#include "chapters/gpus/nccl.hpp"
#include "chapters/gpus/nccl_sample.hpp"
#include "core/api.hpp"
#include "core/error.hpp"
#include "tests/support/support.hpp"

using namespace sb;
using namespace sb::gpus;
using sb::test::calc;
using sb::test::expect_error_value;
using sb::test::field_of;
using sb::test::near_rel;
using sb::test::value_of;

// ---------------------------------------------------------------- the chip ----------

TEST(GpusChip, CoresPeaksAndRegistersByHand) {
  // H100: 132 SMs x 4 sub-partitions x 32 lanes = 16,896 CUDA cores.
  EXPECT_EQ(cuda_cores(132, 4, 32), 16896);
  // 16,896 x 1.98e9 Hz x 1 FLOP = 3.3454e13 FLOPs/s (FMA not counted).
  near_rel(vector_flops(16896, 1.98e9, 1), 3.345408e13);
  // 990e12 / (132 x 4 x 1.76e9) = 990e12 / 9.2928e11 = 1065.34 FLOPs per TC per cycle.
  near_rel(tc_flops_per_cycle(990e12, 132, 4, 1.76e9), 1065.3409, 1e-6);
  // 4 x 16384 x 4 B = 262,144 B; 262,144 / (32 x 256 x 4) = 8 warps of the 64 an SM holds.
  EXPECT_EQ(register_file(4, 16384, 4), 262144);
  EXPECT_EQ(resident_warps(262144, 32, 256, 4, 64), 8);
  EXPECT_EQ(resident_warps(262144, 32, 16, 4, 64), 64);  // 128 fit, capped at 64
  // B200 clock from 80 TFLOPs/s: 148 x 128 = 18,944 cores x 2 = 37,888 FLOPs per cycle; 2.1115 GHz.
  near_rel(clock_from_vector(80e12, 18944, 2), 80e12 / 37888);
  // A vector add of 1024 fp32: (2 + 1) x 4 B x 1024 = 12,288 B; ceil(1024 / 128) = 8 SMs.
  EXPECT_EQ(elementwise_bytes(1024, 2, 1, 4), 12288);
  EXPECT_EQ(busy_sms(1024, 128), 8);
  EXPECT_EQ(busy_sms(1025, 128), 9);
  // TPU v5p: 2 cores x 8 x 128 x 4 = 8192 vector ALUs.
  EXPECT_EQ(tpu_vector_alus(2, 8, 128, 4), 8192);
}

// ---------------------------------------------------------------- the networks ----------

TEST(GpusNetwork, NodeAndFatTreeByHand) {
  // 18 links x 25 GB/s = 450 GB/s; 4 switches x 64 ports x 25 GB/s = 6.4 TB/s; min(6.4, 8 x 0.45).
  EXPECT_EQ(gpu_egress(18, 25e9), 450e9);
  EXPECT_EQ(switch_capacity(4, 64, 25e9), 6.4e12);
  EXPECT_EQ(node_bandwidth(6.4e12, 8, 450e9), 3.6e12);
  EXPECT_EQ(bisection_both_ways(8, 450e9), 3.6e12);
  EXPECT_EQ(bisection_one_way(8, 450e9), 1.8e12);
  // Leaves 8 x 32 x 50 GB/s = 12.8 TB/s; uplinks 8 x 16 x 2 x 50 GB/s = 12.8 TB/s; spine 16 x 64
  // x 50 GB/s = 51.2 TB/s; per node min(400, 12.8T/32, 12.8T/32, 51.2T/128) = 400 GB/s.
  EXPECT_EQ(leaf_capacity(8, 32, 50e9), 12.8e12);
  EXPECT_EQ(su_uplink(8, 16, 2, 50e9), 12.8e12);
  EXPECT_EQ(spine_capacity(16, 64, 50e9), 51.2e12);
  EXPECT_EQ(per_node_bisection(400e9, 12.8e12, 12.8e12, 32, 51.2e12, 128), 400e9);
  // The older Appendix B spine (25.6 TB/s) would bind at 200 GB/s per node.
  EXPECT_EQ(per_node_bisection(400e9, 12.8e12, 12.8e12, 32, 25.6e12, 128), 200e9);
  EXPECT_EQ(switch_count(128, 4, 32, 16), 560);
}

TEST(GpusNetwork, PortBudgetAndNodeCount) {
  FatTree t;  // the reference pod: 64 / (8 leaves x 2 cables) = 4 SUs of 32 nodes
  EXPECT_EQ(max_nodes(t), 128);
  EXPECT_NO_THROW(check_tree(t));
  t.nodes = 129;
  EXPECT_EQ(field_of([&] { check_tree(t); }), "nodes");
  // One cable per pair and 32 spines: 64 / 8 = 8 SUs, 256 nodes (2048 GPUs).
  t.cables = 1, t.spines = 32, t.nodes = 256;
  EXPECT_EQ(max_nodes(t), 256);
  EXPECT_NO_THROW(check_tree(t));
  // 33 spines x 1 cable + 32 nodes > 64 ports per leaf.
  t.spines = 33;
  EXPECT_EQ(field_of([&] { check_tree(t); }), "spines");
}

TEST(GpusNetwork, NodesFromTheTables) {
  GpuNode h = gpu_node("h100");
  EXPECT_EQ(h.gpus_per_node, 8);
  EXPECT_EQ(h.w_gpu, 450e9);
  EXPECT_EQ(h.w_node, 400e9);
  GpuNode g = gpu_node("nvl72");
  EXPECT_EQ(g.gpus_per_node, 72);
  EXPECT_EQ(g.w_node, 3.6e12);
  EXPECT_EQ(field_of([] { gpu_node("v5p"); }), "chip");    // a TPU has no NVLink node
  EXPECT_EQ(field_of([] { gpu_node("v100"); }), "chip");   // the book gives no NVLink figures
  EXPECT_EQ(field_of([] { gpu_node("h800x"); }), "chip");  // unknown
}

// ---------------------------------------------------------------- collectives ----------

TEST(GpusCollectives, TimesByHand) {
  // 2^29 B over 8 GPUs at 450 GB/s: 2^29 x 7 / (8 x 450e9) = 1.0439e-3 s; limit 2^29 / 450e9.
  const double v = 536870912;
  near_rel(ag_time(v, 8, 450e9), v * 7 / 3.6e12);
  near_rel(ag_time_approx(v, 450e9), v / 450e9);
  near_rel(ar_time(v, 8, 450e9), 2 * v * 7 / 3.6e12);
  EXPECT_EQ(ring_hops(8), 7);
  EXPECT_EQ(tree_hops(8), 3);
  EXPECT_EQ(tree_hops(9), 4);
  // Dense AllToAll: v x 7 / (450e9 x 64); ragged with k = 4 of 8: half of v / (450e9 x 8).
  near_rel(a2a_time(v, 8, 450e9), v * 7 / (450e9 * 64));
  near_rel(a2a_ragged_time(v, 8, 450e9, 4), 0.5 * v / 3.6e12);
  // (1 - (7/8)^8) x 7/8 = (1 - 0.34361) x 0.875 = 0.57434.
  near_rel(a2a_hit_fraction(8, 8), (1 - std::pow(0.875, 8)) * 0.875);
  // SHARP: 2 x 7 / 8 = 1.75 faster; every GPU sends 7/8 + 1/8 of the array, 8 GPUs: 8 per byte.
  EXPECT_EQ(sharp_speedup(8), 1.75);
  EXPECT_EQ(sharp_switch_bytes(8), 8);
  // Levels: 8 x 450 / 7 = 514.29 GB/s; 32 x 400 / 31 = 412.90 GB/s; 4 x 12.8T / 3 = 17.07 TB/s.
  near_rel(level_ring_bw(8, 450e9), 8 * 450e9 / 7);
  near_rel(fat_tree_ring_bw(8, 450e9, 32, 400e9, 4, 12.8e12), 32 * 400e9 / 31);
  EXPECT_EQ(fat_tree_sharp_bw(450e9, 400e9, 12.8e12), 400e9);
  // AllToAll over 2 nodes, exact: (1/(4 x 400e9)) / (7/(64 x 450e9)) = 2.8800e13 / 1.12e13.
  near_rel(a2a_cross_node_time(1, 2, 400e9) / a2a_time(1, 8, 450e9), 28.8 / 11.2);
  // The expert AllToAll: 8 GPUs in one node, NVLink's 8 x 7 / (450e9 x 64) = 1.9444e-12 s; 16
  // GPUs, 8 a node, on ceil(16 / 8) = 2 nodes: the larger of NVLink's 16 x 15 / (450e9 x 256) =
  // 2.0833e-12 s and the scale-out's 16 x 1 / (4 x 400e9) = 1e-11 s.
  near_rel(expert_a2a_time(8, 8, 8, 450e9, 50e9), 56 / (450e9 * 64));
  near_rel(expert_a2a_time(16, 16, 8, 450e9, 400e9), 1e-11);
  near_rel(expert_a2a_time(16, 16, 8, 450e9, 400e9), a2a_cross_node_time(16, 2, 400e9));
  // Sharded on Y = 16 > 8: the scale-out part halves, bytes / 400e9 x 8/16.
  near_rel(sharded_scaleout_time(v, 400e9, 16, 8), v / 400e9 / 2);
  near_rel(sharded_node_time(v, 450e9, 16, 8), v / (450e9 * 8));
  // One SU: leaf-bound 31/32 up to Y = 8, then 8/Y.
  near_rel(su_two_axis_ag_time(v, 400e9, 32, 8, 8), v / 400e9 * 31 / 32);
  near_rel(su_two_axis_ag_time(v, 400e9, 32, 8, 64), v / 400e9 / 8);
  // Switch bytes per array byte, one SU of 32 nodes of 8: in 1, out 1/32 + 8 x (1 - 1/256) = 8.
  near_rel(node_switch_in(32), 1);
  near_rel(node_switch_out(32, 8), 8);
  near_rel(top_switch_out(32), 31);
}

// ---------------------------------------------------------------- LLM rooflines ----------

TEST(GpusRooflines, ThresholdsByHand) {
  EXPECT_EQ(critical_ratio(990e12, 450e9), 2200);
  EXPECT_EQ(critical_ratio(990e12, 400e9), 2475);
  EXPECT_EQ(dp_moe_threshold(128, 4, 2475), 79200);       // 32 x 2475
  EXPECT_EQ(dp_small_x_threshold(2475, 2), 1237.5);       // 2475 / 2
  EXPECT_EQ(dp_span_threshold(2475, 8, 64), 2475.0 / 8);  // 64 GPUs span 8 nodes
  EXPECT_EQ(dp_span_threshold(2475, 8, 4), 2475);         // inside a node: no relief
  near_rel(tp_max(28000, 2475), 11.313131, 1e-6);
  near_rel(tp_max_spanning(28000, 2475, 8), 19.313131, 1e-6);
  EXPECT_EQ(ep_f_min_large_z(8, 2475), 19800);
  // Z = 16, k = 8: 2475 x 8 / 8 x min(64/16, 1) = 2475.
  EXPECT_EQ(ep_f_min(2475, 16, 8, 8), 2475);
  // 2 x 1e6 x 8192 / (400e9 x 32) x (32 + 16 - 2) = 1.28e-3 x 46 = 0.05888 s.
  near_rel(pp_comms_time(1e6, 8192, 400e9, 32, 16), 0.05888);
  EXPECT_EQ(min_gpus(7e11, 8e10), 9);  // 8.75 rounds up
  EXPECT_EQ(min_nodes(9, 8), 2);
  near_rel(train_flops(70e9, 15e12), 6.3e24);
}

// ---------------------------------------------------------------- problems ----------

TEST(GpusProblems, HeldOutItemsComputed) {
  // Quiz 1 Q5: 132 x 256 kB = 33.792 MB each, 67.584 MB together.
  auto q5 = sb::test::solve("gpus.Quiz1.Q5");
  EXPECT_EQ(q5["smem_plus_registers"], 67.584e6);
  // Quiz 2 Q1: 6.4 TB/s of switches, 3.6 TB/s usable.
  auto q21 = sb::test::solve("gpus.Quiz2.Q1");
  EXPECT_EQ(q21["node_bandwidth"], 3.6e12);
  // Quiz 5 Q1: 2.25e15 / 900e9 = 2500 and / 400e9 = 5625.
  auto q51 = sb::test::solve("gpus.Quiz5.Q1");
  EXPECT_EQ(q51["tp_critical_ratio"], 2500);
  EXPECT_EQ(q51["dp_critical_tokens_per_gpu"], 5625);
  // Quiz 5 Q2.3: 70e9 x 10 / 8 = 87.5 GB > 80 GB; 4e6 / 4096 = 976.6 < 2475; with PP the 64-GPU
  // group spans 8 nodes: 3.2 TB/s and a threshold of 309.4 < 976.6.
  auto q = sb::test::solve("gpus.Quiz5.Q2.3");
  EXPECT_EQ(q["pure_dp_mem_per_gpu"], 87.5e9);
  EXPECT_EQ(q["pure_dp_fits"], 0);
  EXPECT_EQ(q["zero3_compute_bound"], 0);
  EXPECT_EQ(q["pp_effective_bw"], 3.2e12);
  EXPECT_EQ(q["pp_compute_bound"], 1);
  // Quiz 5 Q3: 384 x 4096 / 768 = 2048 tokens > 2475 x 8 / 16 = 1237.5.
  auto q3 = sb::test::solve("gpus.Quiz5.Q3");
  EXPECT_EQ(q3["tokens_per_gpu_70b"], 2048);
  EXPECT_EQ(q3["threshold_70b"], 1237.5);
  EXPECT_EQ(q3["compute_bound_314b"], 1);
}

TEST(GpusProblems, PrintedRoundingsAcceptedAndSlipsHinted) {
  // The book's "~1024" FLOPs per Tensor Core per cycle for 1065: correct, with a note.
  json r = sb::test::check("gpus.Ex.Chip1", {{"h100_flops_per_tc_cycle", "1024"}});
  EXPECT_EQ(sb::test::verdict_of(r, "h100_flops_per_tc_cycle"), "correct");
  // The memory prose's 9 TB/s for B200: 2.25e15 / 9e12 = 250, a slip with its hint.
  json s = sb::test::check("gpus.Quiz1.Q3", {{"b200_bf16_crit_intensity", "250"}});
  EXPECT_EQ(sb::test::verdict_of(s, "b200_bf16_crit_intensity"), "wrong");
  EXPECT_NE(s.dump().find("9 TB/s"), std::string::npos);
}

TEST(GpusProblems, BadGivensNameTheirField) {
  json r = sb::test::problem("gpus.Quiz3.Q1", {{"cables_per_leaf_spine", 3}});
  expect_error_value(r, "cables_per_leaf_spine");
  json z = sb::test::problem("gpus.Quiz2.Q3", {{"n_gpus", 0}});
  expect_error_value(z, "n_gpus");
  json n = sb::test::problem("gpus.Ex.Fabric1", {{"leaf_link_Bps", -1}});
  expect_error_value(n, "leaf_link_Bps");
}

// ---------------------------------------------------------------- calculators ----------

TEST(GpusCalculators, DefaultsAnswer) {
  json c = calc("gpus.chip");
  EXPECT_EQ(value_of(c, "cuda_cores"), 16896);
  near_rel(value_of(c, "gpu_crit_intensity"), 990e12 / 3.35e12);
  json n = calc("gpus.network");
  EXPECT_EQ(value_of(n, "per_node_bw"), 400e9);
  EXPECT_EQ(value_of(n, "switches"), 560);
  EXPECT_EQ(value_of(n, "gpus"), 1024);
  json col = calc("gpus.collective");
  near_rel(value_of(col, "time"), 1073741824.0 * 7 / (8 * 450e9));
  json l = calc("gpus.llm");
  EXPECT_EQ(value_of(l, "dp_threshold"), 309.375);  // TP 8 x PP 8 spans 8 nodes: 2475 x 8 / 64
  json f = calc("gpus.fit");
  EXPECT_GT(value_of(f, "line_rate_fraction"), 0.7);
  EXPECT_LT(value_of(f, "line_rate_fraction"), 0.9);
}

// The side-by-side TPU is an aside: a TPU whose pod shape the tables lack (v2) leaves out only
// the TPU side, with a note saying why, and the GPUs keep their answer (the default's, by hand:
// 1 GiB x 7 / (8 x 450 GB/s)). It was the whole calculator's error before.
TEST(GpusCalculators, ATpuWithNoPodLeavesOutOnlyItsSide) {
  const json r = calc("gpus.collective", {{"tpu", "v2"}});
  ASSERT_TRUE(r.value("ok", false)) << r.dump().substr(0, 400);
  near_rel(value_of(r, "time"), 1073741824.0 * 7 / (8 * 450e9));
  EXPECT_FALSE(r["values"].contains("tpu_time"));
  bool said = false;
  for (const json& n : r["notes"])
    said = said || (n.get<std::string>().find("no TPU side") != std::string::npos &&
                    n.get<std::string>().find("pod") != std::string::npos);
  EXPECT_TRUE(said) << r["notes"].dump();
  EXPECT_TRUE(calc("gpus.collective")["values"].contains("tpu_time"));
}

TEST(GpusCalculators, BadInputNamesTheField) {
  expect_error_value(calc("gpus.network", {{"chip", "v5p"}}), "chip");
  expect_error_value(calc("gpus.network", {{"chip", "b300"}}), "chip");
  expect_error_value(calc("gpus.network", {{"nodes", 129}}), "nodes");
  expect_error_value(calc("gpus.network", {{"nodes", 0}}), "nodes");
  expect_error_value(calc("gpus.collective", {{"gpus", 12}}), "gpus");
  expect_error_value(calc("gpus.collective", {{"bytes", -5}}), "bytes");
  expect_error_value(calc("gpus.collective", {{"bytes", 0}}), "bytes");
  expect_error_value(calc("gpus.llm", {{"gpus", 100}}), "gpus");
  expect_error_value(calc("gpus.llm", {{"model", "custom"}}), "D");
  expect_error_value(calc("gpus.fit", {{"log", "hello\nworld\n"}}), "log");
  expect_error_value(calc("gpus.chip", {{"chip", "v5e"}}), "chip");
}
