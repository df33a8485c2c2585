// The training planner on a GPU cluster (chapters/training/planner_gpu.cpp): the cluster the chip
// count builds, each layout's collective bandwidths from the gpus chapter's hierarchical
// AllGather, the per-layer times and the memory per GPU (arithmetic in the comments), TP kept
// inside the NVLink node, and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "chapters/training/costs.hpp"
#include "chapters/training/planner.hpp"
#include "chapters/training/planner_detail.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "tests/support/support.hpp"

namespace tr = sb::training;
namespace tf = sb::transformers;

namespace {

using sb::json;
using sb::test::calc;
using sb::test::expect_error;
using sb::test::near_rel;

const sb::hw::Chip& h100() { return sb::hw::chip("h100"); }

// A small plain (2-matrix) model: L 4, D 1024, F 4096, MHA 8 x 128, no vocabulary.
tf::Config small_plain_model() {
  tf::Config c;
  c.L = 4, c.D = 1024, c.F = 4096, c.N = 8, c.K = 8, c.H = 128, c.V = 0, c.gated = false;
  return c;
}

tr::PlanInput gpu_input(double gpus, double B, bool cross_tp = false) {
  tr::PlanInput in;
  in.model = small_plain_model();
  in.hw = tr::gpu_hardware(h100());
  in.topo = tr::topology_for_gpus(h100(), gpus, cross_tp);
  in.B = B;
  return in;
}

}  // namespace

TEST(TrainingGpu, ClusterOfWholeNodes) {
  // 1024 H100s = 128 nodes of 8: the node axis first, the nodes second, one pod.
  const tr::Topology t = tr::topology_for_gpus(h100(), 1024);
  ASSERT_EQ(t.slices.size(), 1u);
  EXPECT_EQ(t.slices[0].dims, (std::vector<int>{8, 128}));
  EXPECT_EQ(t.pods, 1);
  EXPECT_EQ(t.gpu.d_node, 8);
  EXPECT_EQ(t.gpu.nodes, 128);
  near_rel(t.gpu.w_gpu, 450e9);   // 18 NVLinks x 25 GB/s
  near_rel(t.gpu.w_node, 400e9);  // 8 x 400 Gbps NICs
  // The hardware: C, HBM from the chip; W_ici read as W_GPU; stage copies at a NIC's 50 GB/s.
  const tr::Hardware h = tr::gpu_hardware(h100());
  near_rel(h.C, 990e12);
  near_rel(h.hbm, 80e9);
  near_rel(h.W_ici, 450e9);
  near_rel(h.w_uni, 50e9);  // 400e9 * 1 / 8
  // A slider offers a node, then powers of two of nodes up to the tree's 128.
  const std::vector<double> counts = tr::gpu_counts(h100());
  EXPECT_EQ(counts.front(), 8);
  EXPECT_EQ(counts.back(), 1024);
  EXPECT_EQ(counts.size(), 8u);  // 8, 16, ..., 1024
  // GB200 NVL72: 72 GPUs per NVLink domain.
  EXPECT_EQ(tr::topology_for_gpus(sb::hw::chip("gb200"), 144).slices[0].dims,
            (std::vector<int>{72, 2}));
}

TEST(TrainingGpu, CollectiveBandwidthsFromTheGpuChapter) {
  const tr::PlanInput in = gpu_input(16, 65536);
  tr::detail::Ctx c = tr::detail::make_ctx(in);
  // FSDP over all 16 GPUs (8 per node x 2 nodes): the node ring moves 7/8 of a byte over
  // 450 GB/s = 1.944e-12 s, the nodes' ring 1/2 over the node's 400 GB/s = 1.25e-12 s; the node
  // binds, M_X = 1 / (450e9 x 1.944e-12) = 8/7.
  tr::detail::AxisOpt all_x[3] = {{8, 1, 1, 0, 0}, {2, 1, 1, 0, 0}, {}};
  const tr::Layout fsdp = tr::detail::gpu_layout(c, all_x);
  EXPECT_EQ(fsdp.X, 16);
  near_rel(fsdp.M_X, 8.0 / 7);
  // TP 8 inside the node, the data axis across the 2 nodes: one GPU per node, at its NIC's
  // 400e9 x 1/8 = 50 GB/s: 1/2 / 50e9 = 1e-11 s per byte, M_X = 1 / (450e9 x 1e-11) = 2/9;
  // TP's node ring M_Y = 8/7.
  tr::detail::AxisOpt tp8[3] = {{1, 8, 1, 0, 0}, {2, 1, 1, 0, 0}, {}};
  const tr::Layout mixed = tr::detail::gpu_layout(c, tp8);
  EXPECT_EQ(mixed.X, 2);
  EXPECT_EQ(mixed.Y, 8);
  near_rel(mixed.M_X, 2.0 / 9);
  near_rel(mixed.M_Y, 8.0 / 7);
  // The per-layer terms at B = 65536 tokens. The MLP's weights: 2 matrices of D F bf16,
  // 2 x 2 x 1024 x 4096 = 16,777,216 B.
  const tr::LayerCosts& lc = c.lc;
  near_rel(lc.w_bytes, 16777216);
  const tr::SplitCosts k = tr::split_costs(lc, c.h, 65536, 1, mixed);
  // FSDP gathers V_w / (Y W M_X) = 16777216 / (8 x 450e9 x 2/9) = 2.097e-5 s, which is the book's
  // A.4 (11) scale-out part: V_w / W_node x D_node / max(D_node, Y) x (M - 1)/M
  // = 16777216 / 400e9 x 1 x 1/2 = 2.097152e-5 s.
  near_rel(k.fsdp, 2.097152e-5);
  // TP: 2 V_a / (X W M_Y) with V_a = 2 D B = 2 x 1024 x 65536 = 134,217,728 B:
  // 2 x 134217728 / (2 x 450e9 x 8/7) = 2.6096e-4 s, i.e. an AG and an RS of V_a / X over the
  // node's ring, 2 x 67108864 x 7/8 / 450e9.
  near_rel(k.tp, 2 * 67108864.0 * 7 / 8 / 450e9);
  // T_math: 2 x 2 D F per token x B / (16 x 990e12) = 2 x 8388608 x 65536 / 1.584e16 = 6.941e-5 s.
  near_rel(k.math, 2.0 * 8388608 * 65536 / (16 * 990e12));
}

TEST(TrainingGpu, MemoryPerGpuFromItsHbm) {
  // FSDP over 16 GPUs (no pipeline, save the big matmuls): weights and Adam state over 16.
  // Parameters: per layer attention 4 D N H = 4 x 1024 x 1024 = 4,194,304, MLP 2 D F = 8,388,608
  // and two norms of D = 2048, so 12,584,960 x 4 layers = 50,339,840 (no vocabulary).
  const tr::PlanInput in = gpu_input(16, 65536);
  const tr::Plan p =
      tr::evaluate(in, 0, {8, 2, 1}, {1, 1, 1}, {1, 1, 1}, tr::kFSDP, tf::Remat::BigMatmuls);
  EXPECT_EQ(p.X, 16);
  near_rel(p.memory.weights, 2.0 * 50339840 / 16);    // 6,292,480 B
  near_rel(p.memory.optimizer, 8.0 * 50339840 / 16);  // 25,169,920 B
  EXPECT_EQ(p.memory.grads, 0);
  EXPECT_TRUE(p.fits);  // far below the H100's 80 GB
  near_rel(p.M_X, 8.0 / 7);
}

TEST(TrainingGpu, TensorParallelismStaysInTheNode) {
  // 64 GPUs, a small batch: the search may not lay TP over more than one node's 8 GPUs ...
  tr::PlanInput in = gpu_input(64, 65536);
  std::vector<tr::Plan> all;
  tr::plan(in, &all);
  ASSERT_FALSE(all.empty());
  for (const tr::Plan& p : all) {
    EXPECT_LE(p.Y, 8);
    EXPECT_EQ(p.z[0], 1);  // and no pipeline stage inside a node
  }
  // ... unless the request allows it: then some layout holds TP over 2 nodes (16 GPUs).
  all.clear();
  tr::plan(gpu_input(64, 65536, true), &all);
  bool wide = false;
  for (const tr::Plan& p : all) wide = wide || p.Y == 16;
  EXPECT_FALSE(wide);  // the small model's 8 heads take TP up to 8 only
  in.model.N = in.model.K = 16, in.model.H = 64;
  in.topo = tr::topology_for_gpus(h100(), 64, true);
  all.clear();
  tr::plan(in, &all);
  for (const tr::Plan& p : all) wide = wide || p.Y == 16;
  EXPECT_TRUE(wide);
  // A layout with TP across nodes that does not hold whole nodes is refused.
  expect_error(
      [&] {
        tr::evaluate(in, 0, {2, 2, 1}, {4, 2, 1}, {1, 2, 1}, tr::kFSDP, tf::Remat::BigMatmuls);
      },
      "layout", "whole nodes");
}

TEST(TrainingGpu, BadInput) {
  // 1001 GPUs is not a whole number of 8-GPU nodes.
  expect_error([] { tr::topology_for_gpus(h100(), 1001); }, "chips", "whole number of");
  // 2048 H100s = 256 nodes, beyond the two-tier tree's 64 / (8 x 2) x 32 = 128 nodes.
  expect_error([] { tr::topology_for_gpus(h100(), 2048); }, "chips", "fat tree");
  expect_error([] { tr::topology_for_gpus(h100(), 0); }, "chips", "whole number");
  // A100 nodes have no scale-out figure in the book: one node at most.
  expect_error([] { tr::topology_for_gpus(sb::hw::chip("a100"), 16); }, "chips", "scale-out");
  EXPECT_EQ(tr::topology_for_gpus(sb::hw::chip("a100"), 8).gpu.nodes, 1);
  // V100: no NVLink figures (nor bf16 FLOPs) in the book.
  expect_error([] { tr::gpu_hardware(sb::hw::chip("v100")); }, "chip", "V100");
  // An unknown GPU; a TPU is no GPU cluster.
  expect_error([] { tr::gpu_hardware(sb::hw::chip("h999")); }, "chip", "h999");
  expect_error([] { tr::topology_for_gpus(sb::hw::chip("v5p"), 8); }, "chip", "TPU");
}

TEST(TrainingGpu, PlanCalculatorTakesAnH100Cluster) {
  const json r =
      calc("training.plan", {{"chip", "h100"}, {"chips", 1024}, {"model", "llama-3-70b"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(r["values"]["chips"]["value"].get<double>(), 1024);
  EXPECT_EQ(r["values"]["hbm"]["value"].get<double>(), 80e9);
  EXPECT_EQ(r["best"]["slice"].get<std::string>(), "128 nodes of 8 GPUs");
  // 12 GPUs are 1.5 nodes: the nearest cluster, 2 nodes, 16 GPUs, with a note; 2048 are more
  // than the fat tree takes.
  const json twelve = calc("training.plan", {{"chip", "h100"}, {"chips", 12}});
  ASSERT_TRUE(twelve["ok"].get<bool>()) << twelve.dump().substr(0, 300);
  EXPECT_EQ(twelve["values"]["chips"]["value"].get<double>(), 16);
  const json bad = calc("training.plan", {{"chip", "h100"}, {"chips", 2048}});
  ASSERT_FALSE(bad["ok"].get<bool>());
  EXPECT_EQ(bad["error"]["field"].get<std::string>(), "chips");
  const json shape = calc("training.plan", {{"chip", "h100"}, {"shape", "8x128"}});
  EXPECT_EQ(shape["error"]["field"].get<std::string>(), "shape");
  // Side by side: the same model on 1024 H100s and a 1024-chip v5p slice.
  const json v = calc("training.versus", {{"chip", "v5p"}});
  ASSERT_TRUE(v["ok"].get<bool>()) << v.dump();
  EXPECT_EQ(v["columns"][0]["chip"].get<std::string>(), "h100");
  EXPECT_EQ(v["columns"][1]["chip"].get<std::string>(), "v5p");
  EXPECT_EQ(v["values"]["a_chips"]["value"].get<double>(), 1024);
  EXPECT_EQ(v["values"]["b_chips"]["value"].get<double>(), 1024);
}

TEST(TrainingGpu, BuildableClusters) {
  const sb::hw::Chip& gb200 = sb::hw::chip("gb200");
  // 1024 / 72 = 14.2 racks: the nearest, 14 racks of 72 = 1008 GPUs; 30 GPUs: one rack at least.
  EXPECT_EQ(tr::buildable_gpus(gb200, 1024), 1008);
  EXPECT_EQ(tr::buildable_gpus(gb200, 30), 72);
  EXPECT_EQ(tr::buildable_gpus(gb200, 144), 144);
  EXPECT_EQ(tr::buildable_gpus(h100(), 1024), 1024);
  EXPECT_EQ(tr::buildable_gpus(h100(), 12), 16);  // 1.5 nodes round to 2
  // Not a count, or a TPU: as it is, for topology_for_gpus / the slice to refuse.
  EXPECT_EQ(tr::buildable_gpus(h100(), 0), 0);
  EXPECT_EQ(tr::buildable_gpus(sb::hw::chip("v5p"), 1000), 1000);
  EXPECT_NE(tr::snapped_words(gb200, 1024, 1008).find("14 nodes, 1008 GPUs"), std::string::npos);
  EXPECT_EQ(tr::snapped_words(h100(), 1024, 1024), "");
}

TEST(TrainingGpu, AxesOfALayoutByHand) {
  const tr::GpuCluster g = tr::topology_for_gpus(h100(), 16, true).gpu;  // 2 nodes of 8
  // Y = 8 in the node: TP's ring 7/8 of a byte at 450 GB/s, M_Y = 8/7. The data axis is one GPU a
  // node over 2 nodes, at its NIC's 400e9 x 1/8 = 50 GB/s: 1/2 byte / 50e9 = 1e-11 s, so
  // M_X = 1 / (450e9 x 1e-11) = 0.2222.
  tr::GpuAxes a = tr::gpu_axes(g, 8, 1);
  near_rel(a.M_Y, 8.0 / 7);
  near_rel(a.M_X, 1 / 4.5);
  // Y = 16, whole nodes: max(7/8 / 450e9, 1/2 / 400e9) = 1.944e-12 s: M_Y = 8/7; no data axis.
  a = tr::gpu_axes(g, 16, 1);
  near_rel(a.M_Y, 8.0 / 7);
  EXPECT_EQ(a.M_X, 0);
  // Y = 2 and 2 stages (one node each): 4 data GPUs in the node, 3/4 byte / 450e9: M_X = 4/3;
  // TP's pair 1/2 byte: M_Y = 2.
  a = tr::gpu_axes(g, 2, 2);
  near_rel(a.M_X, 4.0 / 3);
  near_rel(a.M_Y, 2);
  // On one node, FSDP + TP's closed forms take TP over half the node: X = 2 (M_X = 2), Y = 4
  // (3/4 byte: M_Y = 4/3).
  const tr::GpuCluster one = tr::topology_for_gpus(h100(), 8, true).gpu;
  a = tr::gpu_mixed_axes(one, 8);
  near_rel(a.M_X, 2);
  near_rel(a.M_Y, 4.0 / 3);
  // Layouts the cluster cannot hold: TP on 3 or 2.5 GPUs, on 3 nodes of the 2; 4 or half a stage.
  expect_error([&] { tr::gpu_axes(g, 3, 1); }, "Y", "divisor of 8");
  expect_error([&] { tr::gpu_axes(g, 2.5, 1); }, "Y", "divisor of 8");
  expect_error([&] { tr::gpu_axes(g, 24, 1); }, "Y", "whole nodes");
  expect_error([&] { tr::gpu_axes(g, 8, 4); }, "Z", "whole nodes");
  expect_error([&] { tr::gpu_axes(g, 8, 0.5); }, "Z", "whole nodes");
}

TEST(TrainingGpu, TpDegreeInsideTheNode) {
  // LLaMA 3-70B (F 28672, D 8192, 64 heads, 8 KV heads) on H100s: alpha = 990e12 / 450e9 = 2200,
  // F / alpha = 13.03: the largest divisor of 8 under it, 8.
  const tr::GpuCluster g = tr::topology_for_gpus(h100(), 1024).gpu;
  EXPECT_EQ(tr::gpu_tp_degree(g, 1024, 28672, 2200, 8192, 64, 8), 8);
  // The small model's F / alpha = 4096 / 2200 = 1.86: no TP.
  EXPECT_EQ(tr::gpu_tp_degree(g, 1024, 4096, 2200, 1024, 8, 8), 1);
  // An NVL72 rack under F / alpha = 11.5: 11 and 10 do not divide 72, 9 does not divide D 8192;
  // 8 does.
  const tr::GpuCluster r = tr::topology_for_gpus(sb::hw::chip("gb200"), 1008).gpu;
  EXPECT_EQ(tr::gpu_tp_degree(r, 1008, 28672, 2500, 8192, 64, 8), 8);
}

TEST(TrainingGpu, StrategyAndSplitOnAnH100Cluster) {
  const json base = {{"chip", "h100"}, {"model", "llama-3-70b"}};
  auto with = [&](json extra) {
    json in = base;
    in.update(extra);
    return in;
  };
  // FSDP over 1024 H100s: its step is the planner's FSDP plan's, costed the same way.
  const json f = calc("training.strategy", with({{"strategy", "FSDP"}}));
  ASSERT_TRUE(f["ok"].get<bool>()) << f.dump().substr(0, 300);
  EXPECT_EQ(f["values"]["X"]["value"].get<double>(), 1024);
  const json p = calc("training.plan", base);
  double fsdp_step = 0;
  for (const json& row : p["plans"])
    if (row["strategy"] == "FSDP") fsdp_step = row["t_step"].get<double>();
  near_rel(f["values"]["step"]["value"].get<double>(), fsdp_step);
  // FSDP + TP, the recipe: TP on the node (F / alpha = 13.03: Y = 8), X = 1024 / 8 = 128.
  const json m = calc("training.strategy", with({{"strategy", "FSDP+TP"}}));
  ASSERT_TRUE(m["ok"].get<bool>()) << m.dump().substr(0, 300);
  EXPECT_EQ(m["values"]["Y"]["value"].get<double>(), 8);
  EXPECT_EQ(m["values"]["X"]["value"].get<double>(), 128);
  // The split: M_X = 50e9 x 128/127 / 450e9 = 0.11199 (one GPU a node at its NIC's share), M_Y =
  // 8/7; X_opt = sqrt(B/F x M_X/M_Y x N) = sqrt(4194304/28672 x 0.11199/1.14286 x 1024) = 121.15.
  const json s = calc("training.split", base);
  ASSERT_TRUE(s["ok"].get<bool>()) << s.dump().substr(0, 300);
  const double M_X = 50e9 * 128 / 127 / 450e9, M_Y = 8.0 / 7;
  near_rel(s["values"]["x_opt"]["value"].get<double>(),
           std::sqrt(4194304.0 / 28672 * M_X / M_Y * 1024));
  EXPECT_EQ(s["values"]["Y"]["value"].get<double>(), 8);
  // TP over two nodes, the reader's Y = 16: it runs, and says it leaves the node.
  const json t = calc("training.strategy", with({{"strategy", "FSDP+TP"}, {"Y", 16}}));
  ASSERT_TRUE(t["ok"].get<bool>()) << t.dump().substr(0, 300);
  EXPECT_NE(t.dump().find("TP spans 2 nodes"), std::string::npos);
}

TEST(TrainingGpu, Gb200AtTheDefaultCountSnapsToWholeRacks) {
  // 1024 GB200s: 14 racks of 72 = 1008 GPUs, said in a note; the v5p column keeps 1024.
  const json v = calc("training.versus", {{"chip", "gb200"}});
  ASSERT_TRUE(v["ok"].get<bool>()) << v.dump().substr(0, 300);
  EXPECT_EQ(v["values"]["a_chips"]["value"].get<double>(), 1008);
  EXPECT_EQ(v["values"]["b_chips"]["value"].get<double>(), 1024);
  EXPECT_NE(v.dump().find("14 nodes, 1008 GPUs"), std::string::npos);
  const json s = calc("training.split", {{"chip", "gb200"}, {"chips", 1024}});
  ASSERT_TRUE(s["ok"].get<bool>()) << s.dump().substr(0, 300);
  EXPECT_EQ(s["values"]["chips_used"]["value"].get<double>(), 1008);
  const json st = calc("training.strategy", {{"chip", "gb200"}, {"chips", 1024}});
  ASSERT_TRUE(st["ok"].get<bool>()) << st.dump().substr(0, 300);
}

TEST(TrainingGpu, TorusOnlyInputsNameTheirField) {
  auto field = [](json in) { return calc("training.strategy", in)["error"]["field"]; };
  EXPECT_EQ(field({{"chip", "h100"}, {"strategy", "DCN"}}), "strategy");
  EXPECT_EQ(field({{"chip", "h100"}, {"axes", 2}}), "axes");
  EXPECT_EQ(field({{"chip", "h100"}, {"M_Y", 2}}), "M_Y");
  // 16 GPUs are 2 nodes: 4 stages cannot each hold whole nodes.
  EXPECT_EQ(field({{"chip", "h100"}, {"chips", 16}, {"strategy", "pipeline"}, {"Z", 4}}), "Z");
  EXPECT_EQ(field({{"chip", "h100"}, {"strategy", "FSDP+TP"}, {"Y", 3}}), "Y");
  EXPECT_EQ(field({{"chip", "h100"}, {"chips", 4096}}), "chips");  // beyond the fat tree
  EXPECT_EQ(calc("training.split", {{"chip", "h100"}, {"axes", 3}})["error"]["field"], "axes");
}

TEST(TrainingGpu, OneNodeFsdpTpHasNoDataAxisCondition) {
  // 8 A100s are one node (the book gives no A100 scale-out): TP over all 8 leaves X = 1, no data
  // axis (M_X = 0), so the only condition is TP's, Y = 8 < M_Y F / alpha, with M_Y = 8/7 (7/8 of
  // a byte over NVLink) and alpha = 310e12 / 300e9 = 1033.3: 8/7 x 28672 / 1033.3 = 31.711.
  const json r = calc("training.strategy", {{"chip", "a100"},
                                            {"chips", 8},
                                            {"strategy", "FSDP+TP"},
                                            {"Y", 8},
                                            {"model", "llama-3-70b"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump().substr(0, 300);
  ASSERT_EQ(r["conditions"].size(), 1u);
  near_rel(r["conditions"][0]["rhs"].get<double>(), 8.0 / 7 * 28672 / (310e12 / 300e9));
}
