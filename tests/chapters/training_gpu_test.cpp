// The training planner on a GPU cluster (chapters/training/planner_gpu.cpp): the cluster the chip
// count builds, each layout's collective bandwidths from the gpus chapter's hierarchical
// AllGather, the per-layer times and the memory per GPU (arithmetic in the comments), TP kept
// inside the NVLink node, and bad input.
#include <gtest/gtest.h>

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
tf::Config small_model() {
  tf::Config c;
  c.L = 4, c.D = 1024, c.F = 4096, c.N = 8, c.K = 8, c.H = 128, c.V = 0, c.gated = false;
  return c;
}

tr::PlanInput gpu_input(double gpus, double B, bool cross_tp = false) {
  tr::PlanInput in;
  in.model = small_model();
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
  const json bad = calc("training.plan", {{"chip", "h100"}, {"chips", 12}});
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
