// Training chapter (Part 5) model and planner, and the Part 6 case study: per-layer times and
// thresholds against the book's closed forms (arithmetic in the comments), the planner against the
// per-layer model on whole axes, its enumeration counts, "fits nowhere", reasons, the regime map,
// and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "chapters/applied_training/model.hpp"
#include "chapters/training/model.hpp"
#include "chapters/training/planner.hpp"
#include "chapters/transformers/models.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "tests/support/support.hpp"

namespace tr = sb::training;
namespace tf = sb::transformers;
namespace at = sb::applied_training;

namespace {

using sb::test::expect_error;
using sb::test::near_rel;

const sb::hw::Chip& v5p() { return sb::hw::chip("v5p"); }
tr::Hardware v5p_hw() { return tr::hardware_of(v5p()); }

// A small plain (2-matrix) model: L 4, D 1024, F 4096, MHA 8 x 128, no vocabulary.
tf::Config small_model() {
  tf::Config c;
  c.L = 4, c.D = 1024, c.F = 4096, c.N = 8, c.K = 8, c.H = 128, c.V = 0, c.gated = false;
  return c;
}

tr::PlanInput input(const tf::Config& m, const std::string& shape, double B, double pods = 1) {
  tr::PlanInput in;
  in.model = m;
  in.hw = v5p_hw();
  in.topo = tr::topology_for_shape(v5p(), shape, pods);
  in.B = B;
  return in;
}

}  // namespace

// ---- A.1 hardware
// --------------------------------------------------------------------------------

TEST(TrainingHardware, V5pFromTheChipTable) {
  const tr::Hardware h = v5p_hw();
  near_rel(h.C, 4.59e14);
  near_rel(h.W_ici, 1.8e11);  // 2 x 9e10
  near_rel(h.W_dcn, 6.25e9);
  near_rel(h.hbm, 96e9);
  near_rel(tr::alpha_ici(h), 2550);               // 4.59e14 / 1.8e11
  near_rel(tr::alpha_dcn(h), 73440);              // 4.59e14 / 6.25e9
  near_rel(tr::w_dcn_per_chip(25e9, 4), 6.25e9);  // Ex14
}

// ---- A.2 - A.4 per-layer times and thresholds
// -------------------------------------------------------

TEST(TrainingLayer, FlopsAndBytes) {
  const tr::Layer l{8192, 32768, 2};
  near_rel(tr::layer_flops_fwd(l, 10), 4.0 * 10 * 8192 * 32768);  // 4BDF
  near_rel(tr::layer_flops_bwd(l, 10), 8.0 * 10 * 8192 * 32768);  // 8BDF
  near_rel(tr::layer_weight_bytes(l), 4.0 * 8192 * 32768);        // 2 matrices of 2DF bytes
  EXPECT_EQ(tr::layer_of(tf::model("llama-3-70b").config).n_mats, 3);
  // Mixtral: a token uses 2 experts of 14336: the layer's F is 28,672.
  EXPECT_EQ(tr::layer_of(tf::model("mixtral-8x7b").config).F, 2 * 14336);
}

TEST(TrainingLayer, DataParallelBreaksEvenAtAlphaOverM) {
  // D 8192, F 32768, 2 matrices, X = 4096 over M_X = 3 axes, B/X = 850 = 2550/3:
  // backward T_math = 8 B D F / (X C) = 8 * 850 * 8192 * 32768 / 4.59e14 = 3.97683e-3 s;
  // DP all-reduce 8 D F / (M_X W) = 8 * 8192 * 32768 / 5.4e11 = 3.97683e-3 s: equal.
  const tr::Layer l{8192, 32768, 2};
  const tr::Hardware h = v5p_hw();
  const double B = 850.0 * 4096;
  const tr::LayerTimes dp = tr::layer_times(l, B, {4096, 1, 3, 0, tr::XMode::DP, 1}, h);
  near_rel(dp.bwd.math, 8.0 * 850 * 8192 * 32768 / 4.59e14);
  near_rel(dp.bwd.dp, 8.0 * 8192 * 32768 / 5.4e11);
  near_rel(dp.bwd.math, dp.bwd.dp, 1e-12);
  EXPECT_EQ(dp.fwd.comms(), 0);
  // FSDP: forward gathers 4DF / (W M_X) against 4 B D F / (X C): equal at the same batch.
  const tr::LayerTimes fsdp = tr::layer_times(l, B, {4096, 1, 3, 0, tr::XMode::FSDP, 1}, h);
  near_rel(fsdp.fwd.fsdp, 4.0 * 8192 * 32768 / 5.4e11);
  near_rel(fsdp.fwd.math, fsdp.fwd.fsdp, 1e-12);
  near_rel(fsdp.bwd.fsdp, 2 * fsdp.fwd.fsdp);
  EXPECT_NEAR(tr::dp_min_batch_per_chip(2550, 3), 850, 1e-9);
  // One token more per chip: compute-bound.
  EXPECT_TRUE(tr::layer_times(l, B + 4096, {4096, 1, 3, 0, tr::XMode::FSDP, 1}, h).compute_bound());
}

TEST(TrainingLayer, TensorParallelLimit) {
  // TP over Y chips (X = 1, one axis): 4 B D / W against 4 B D F / (Y C): equal at Y = F / alpha.
  // F = 2550 * 8 = 20,400 makes Y = 8 the break-even degree (Ex7's d_ff for 8-way TP).
  const tr::Hardware h = v5p_hw();
  const tr::Layer l{8192, 20400, 2};
  const tr::LayerTimes t = tr::layer_times(l, 1e6, {1, 8, 0, 1, tr::XMode::FSDP, 1}, h);
  near_rel(t.fwd.tp, 4.0 * 1e6 * 8192 / 1.8e11);
  near_rel(t.fwd.math, t.fwd.tp, 1e-12);
  near_rel(tr::tp_min_F(8, 2550, 1), 20400);
  // Ex7: F = 30000: Y < 11.76, so 8-way is compute-bound and 16-way is not.
  near_rel(tr::tp_max_degree(30000, 2550, 1), 30000.0 / 2550);
  // Ex8: Gemma 7B's F = 50000: 19.6.
  near_rel(tr::tp_max_degree(50000, 2550, 1), 50000.0 / 2550);
}

TEST(TrainingLayer, MixedShardingOptimum) {
  // Ex10: sqrt((48000 / 32768) * 2 * 64) = sqrt(187.5) = 13.693; rounded to 16 (Y = 4).
  near_rel(tr::x_opt(48000, 32768, 64, 2, 1), std::sqrt(187.5));
  tr::Recipe r = tr::mixed_recipe(tr::x_opt(48000, 32768, 64, 2, 1), 64, 0, 0, 0);
  EXPECT_EQ(r.X, 16);
  EXPECT_EQ(r.Y, 4);
  EXPECT_EQ(r.idle, 0);
  // Q3: sqrt((3e6 / 13824) * 2 * 4096) = 1333.33 -> 1024, Y = 4 (LLaMA-2 13B: D 5120, 40 heads).
  near_rel(tr::x_opt(3e6, 13824, 4096, 2, 1), std::sqrt(3e6 / 13824 * 2 * 4096));
  r = tr::mixed_recipe(1333.33, 4096, 5120, 40, 40);
  EXPECT_EQ(r.X, 1024);
  EXPECT_EQ(r.Y, 4);
  EXPECT_EQ(tr::round_pow2(13.693), 16);
  EXPECT_EQ(tr::round_pow2(1333.33), 1024);
  EXPECT_EQ(tr::round_pow2(1619.0), 2048);  // log2 1619 = 10.66
  // IQ9 on a 16x20x28 pod: 8960 / 2048 = 4.375, so 4-way TP (it divides the 8 KV heads and D =
  // 8192) on 8192 chips, 768 idle; no power of two uses all 8960 = 2^8 x 35.
  r = tr::mixed_recipe(1619.0, 8960, 8192, 64, 8);
  EXPECT_EQ(r.X, 2048);
  EXPECT_EQ(r.Y, 4);
  EXPECT_EQ(r.used, 8192);
  EXPECT_EQ(r.idle, 768);
  // TP degrees LLaMA 3-70B's layers take: 8 divides the 8 KV heads; 16 the 64 query heads (KV
  // replicated); 5 divides neither, nor D.
  EXPECT_TRUE(tr::tp_degree_fits(8, 8192, 64, 8));
  EXPECT_TRUE(tr::tp_degree_fits(16, 8192, 64, 8));
  EXPECT_FALSE(tr::tp_degree_fits(5, 8192, 64, 8));
  EXPECT_FALSE(tr::tp_degree_fits(128, 8192, 64, 8));
  EXPECT_NE(tr::tp_degree_misfit(5, 8192, 64, 8).find("does not divide the model width"),
            std::string::npos);
  // A window that is empty says why.
  EXPECT_NE(tr::window_words({796.9, 98.0}, 13.95, 113.4).find("below FSDP + TP's floor"),
            std::string::npos);
  // Ex11: 2550^2 / (2 * 32768) = 99.2203; Ex12: x 4096 = 406,406.25; Ex15.c: 2e6 / 108.375.
  near_rel(tr::mixed_min_batch_per_chip(2550, 32768, 2, 1), 2550.0 * 2550 / 65536);
  near_rel(tr::mixed_min_batch(4096, 2550, 32768, 2, 1), 406406.25);
  near_rel(tr::mixed_max_chips(2e6, 2550, 30000, 2, 1), 2e6 / (2550.0 * 2550 / 60000));
  // IQ9's window: [8960 * 2550 / 28672, 4194304 * 2 / 2550] = [796.875, 3289.65].
  const tr::XWindow w = tr::x_window(4194304, 28672, 8960, 2550, 2, 1);
  near_rel(w.lo, 796.875);
  near_rel(w.hi, 4194304.0 * 2 / 2550);
  EXPECT_FALSE(w.empty());
  // At the floor B/N = alpha^2/(M_X M_Y F) the ratio at X_opt is 1.
  const double B = tr::mixed_min_batch(4096, 2550, 32768, 2, 1);
  near_rel(tr::mixed_ratio(B, 32768, 4096, 2550, 2, 1), 1, 1e-12);
  // And at X_opt the FSDP and TP terms are equal (the max model's optimum).
  const tr::Layer l{8192, 32768, 2};
  const double X = tr::x_opt(B, 32768, 4096, 2, 1);
  const tr::LayerTimes t = tr::layer_times(l, B, {X, 4096 / X, 2, 1, tr::XMode::FSDP, 1}, v5p_hw());
  near_rel(t.fwd.fsdp, t.fwd.tp, 1e-12);
  near_rel(t.fwd.fsdp, t.fwd.math, 1e-12);
}

TEST(TrainingLayer, AcrossPods) {
  // Ex15.e: 2M tokens over 2 pods: 1e6 per pod > 73,440.
  const tr::Hardware h = v5p_hw();
  EXPECT_TRUE(tr::dcn_compute_bound(2e6, 2, h));
  EXPECT_FALSE(tr::dcn_compute_bound(1.4e5, 2, h));  // 70,000 per pod
  // 8 D F / (M W_dcn) for 2 matrices: 8 * 8192 * 32768 / (8960 * 6.25e9).
  near_rel(tr::t_dcn_bwd({8192, 32768, 2}, 8960, h), 8.0 * 8192 * 32768 / (8960 * 6.25e9));
}

// ---- A.6, A.7 memory and time
// --------------------------------------------------------------------

TEST(TrainingMemory, Question3) {
  // Q3: 10 B x 13e9 = 1.3e11 B; checkpoints 2 * 40 * 3e6 * (5120 + 2 * 13824) = 7.86432e12 B;
  // over 4096 chips with FSDP: (7.86432e12 + 1.3e11) / 4096 = 1,951,738,281.25 B.
  near_rel(tr::params_optimizer_bytes(13e9), 1.3e11);
  const tr::Layer l{5120, 13824, 3};
  near_rel(tr::checkpoint_bytes(l, 40, 3e6), 7.86432e12);
  near_rel(tr::memory_per_chip(1.3e11, 7.86432e12, {4096, 1, 3, 0, tr::XMode::FSDP, 1}),
           1951738281.25);
  // Pure DP replicates the 1.3e11: more than 96 GB.
  EXPECT_GT(tr::memory_per_chip(1.3e11, 7.86432e12, {4096, 1, 3, 0, tr::XMode::DP, 1}), 96e9);
  near_rel(tr::max_params_pure_dp(96e9), 9.6e9);  // Ex2
  near_rel(tr::sequences(3e6, 32768), 3e6 / 32768);
  // Step at 40% MFU with C = 4.6e14: 6 * 3e6 * 13e9 / (4096 * 4.6e14 * 0.4) = 0.310483 s.
  near_rel(tr::step_time_at_mfu(3e6, 13e9, 4096, 4.6e14, 0.4), 2.34e17 / (4096 * 4.6e14 * 0.4));
  // Ex6: 16e6 / 850 = 18,823.5 chips; 6.3e24 / (18823.5 * 4.59e14 * 0.5) = 1,458,333 s.
  const double chips = tr::fsdp_max_chips(16e6, 2550, 3);
  near_rel(chips, 16e6 * 3 / 2550);
  near_rel(tr::train_time(6.3e24, chips, 4.59e14, 0.5), 6.3e24 / (chips * 4.59e14 * 0.5));
}

// ---- the planner
// -----------------------------------------------------------------------------------

TEST(TrainingPlanner, WholeAxesMatchThePerLayerModel) {
  // 4x4x4 v5p (every axis wraps), B = 2048 tokens per chip.
  const tf::Config m = small_model();
  const tr::PlanInput in = input(m, "4x4x4", 64 * 2048.0);
  const tr::Layer l = tr::layer_of(tf::validated(m));
  const tr::Hardware h = v5p_hw();
  // FSDP over the three axes: M_X = 3. Forward T_math = 4 * 2048 * 1024 * 4096 / 4.59e14 =
  // 7.48578e-5 s; compute-bound, so a step is L (1 + 2) T_math = 12 * 7.48578e-5 s.
  const tr::Plan f =
      tr::evaluate(in, 0, {4, 4, 4}, {1, 1, 1}, {1, 1, 1}, tr::kFSDP, tf::Remat::BigMatmuls);
  EXPECT_EQ(f.M_X, 3);
  EXPECT_TRUE(f.compute_bound);
  near_rel(f.t_step, 12 * 4.0 * 2048 * 1024 * 4096 / 4.59e14, 1e-12);
  near_rel(f.t_step, 4 * tr::layer_times(l, in.B, {64, 1, 3, 0, tr::XMode::FSDP, 1}, h).time(),
           1e-12);
  near_rel(f.mfu, 1, 1e-12);
  // Memory: 10 P / 64 + 2 (D + F) B L / 64, P = 4 (2DF + 4D^2 + 2D) = 50,339,840:
  // 7,865,600 + 83,886,080 = 91,751,680 B.
  near_rel(f.mem, 91751680);
  near_rel(f.mem, tr::memory_per_chip(10 * tf::params(tf::validated(m)).total,
                                      tr::checkpoint_bytes(l, 4, in.B),
                                      {64, 1, 3, 0, tr::XMode::FSDP, 1}));
  near_rel(f.memory.weights + f.memory.optimizer, 7865600);
  near_rel(f.memory.activations, 83886080);
  // FSDP x TP with two axes to X and one to TP (M_X = 2, M_Y = 1): TP moves 2 x 2 D B / X =
  // 2 * 16,777,216 B per phase over 1.8e11 B/s = 1.864e-4 s > T_math: comms-bound on TP.
  const tr::Plan ft =
      tr::evaluate(in, 0, {4, 4, 1}, {1, 1, 4}, {1, 1, 1}, tr::kFSDP, tf::Remat::BigMatmuls);
  EXPECT_EQ(ft.M_X, 2);
  EXPECT_EQ(ft.M_Y, 1);
  EXPECT_FALSE(ft.compute_bound);
  EXPECT_EQ(ft.bottleneck, tr::Term::Tp);
  near_rel(ft.t_step, 4 * 2 * (2 * 16777216.0 / 1.8e11), 1e-12);
  near_rel(ft.t_step, 4 * tr::layer_times(l, in.B, {16, 4, 2, 1, tr::XMode::FSDP, 1}, h).time(),
           1e-12);
  EXPECT_EQ(tr::strategy_name(ft.strategy), "FSDP+TP");
}

TEST(TrainingPlanner, FullLayerModel) {
  // LLaMA 3-70B (HF norms) as whole layers: 855,638,016 matmul weights per layer (attention
  // 150,994,944 + MLP 704,643,072), 855,654,400 stored with the two norms, and the output matmul
  // shared out, D V / L = 8192 * 128256 / 80 = 13,133,414.4 per layer. FSDP over the pod's three
  // axes gathers 2 (855,654,400 + 13,133,414.4) = 1,737,575,628.8 B per layer: / (1.8e11 * 3) =
  // 3.2177e-3 s, against a forward T_math of (2 (855,638,016 + 13,133,414.4) + 4 * 4096 * 64 *
  // 128 (the core at 4096)) * 468.1 / 4.59e14 = 1.909e-3 s: comms-bound; a step is 80 (1 + 2)
  // gathers.
  tr::PlanInput in = input(tf::model("llama-3-70b").config, "16x20x28", 4194304);
  in.layer.full = true;
  in.layer.seq_len = 4096;
  const tr::Plan p =
      tr::evaluate(in, 0, {16, 20, 28}, {1, 1, 1}, {1, 1, 1}, tr::kFSDP, tf::Remat::BigMatmuls);
  EXPECT_FALSE(p.compute_bound);
  EXPECT_EQ(p.bottleneck, tr::Term::Fsdp);
  const double V_w = 2 * (855654400.0 + 8192.0 * 128256 / 80);
  near_rel(p.t_step, 80 * 3 * V_w / 5.4e11, 1e-12);
  // MFU bound: useful 3 x forward FLOPs over the step.
  const double f = 2 * (855638016.0 + 8192.0 * 128256 / 80) + 4.0 * 4096 * 64 * 128;
  near_rel(p.mfu, 3 * 80 * f * 4194304 / (p.t_step * 8960 * 4.59e14), 1e-12);
  // The timeline: 80 layers of FSDP gathers (forward) and gathers and reduce-scatters (backward)
  // fill the step; the math overlaps them.
  near_rel(p.timeline.fsdp, p.t_step, 1e-12);
  near_rel(p.timeline.compute, 80 * 3 * f * 4194304 / (8960 * 4.59e14), 1e-12);
  near_rel(p.timeline.overlap, p.timeline.compute + p.timeline.hbm, 1e-9);
}

TEST(TrainingPlanner, SplitAxisBandwidth) {
  // 16x16x16, X = 16 * 16 * 4 (the last axis strided by the 4 TP chips), Y = 4 contiguous:
  // M_X = 1 + 1 + 1/4 (a 4-ring sharing its links with 4 groups) = 2.25;
  // M_Y = an open segment of 4: (V / W_ici) / (3 V / (4 w_uni)) = 4 / 6.
  const tr::PlanInput in = input(small_model(), "16x16x16", 3e6);
  const tr::Plan p =
      tr::evaluate(in, 0, {16, 16, 4}, {1, 1, 4}, {1, 1, 1}, tr::kFSDP, tf::Remat::BigMatmuls);
  near_rel(p.M_X, 2.25);
  near_rel(p.M_Y, 4.0 / 6);
  EXPECT_EQ(p.X, 1024);
  EXPECT_EQ(p.Y, 4);
}

TEST(TrainingPlanner, EnumerationCounts) {
  // 16x20x28 with pipelining, a model of 8 heads (D 1024): the TP degree Y = y0 y1 y2 must divide
  // 8, so y_i = 2^e_i with e0 + e1 + e2 <= 3 (e0 <= 3 on the 16, e1, e2 <= 2 on the 20 and 28).
  // For each y the axis splits its rest a / y into x z in d(a / y) ways: d(16 / 2^e) = 5, 4, 3, 2;
  // d(20 / 2^e) = d(28 / 2^e) = 6, 4, 2. Summed over the e: 5 (36 + 48 + 40 + 16) + 4 (36 + 48 +
  // 40) + 3 (36 + 48) + 2 (36) = 700 + 496 + 252 + 72 = 1520 assignments (every Z below L).
  tf::Config deep = small_model();
  deep.L = 10000;
  tr::PlanInput in = input(deep, "16x20x28", 8960 * 64.0);
  EXPECT_EQ(tr::plan(in).assignments, 1520);
  // Without pipelining one split per y: 8 + 6 + 3 + 1 = 18 (e0 = 0..3); X > 1 in all of them
  // (X = 1 would need Y = 8960), each with two X modes (DP, FSDP) and 3 remat policies: 108.
  in.pipeline = false;
  const tr::PlanResult r = tr::plan(in);
  EXPECT_EQ(r.assignments, 18);
  EXPECT_EQ(r.configs, 108);
}

TEST(TrainingPlanner, Llama3_70bOnAPod) {
  tr::PlanInput in = input(tf::model("llama-3-70b").config, "16x20x28", 4194304);
  in.pipeline = false;
  std::vector<tr::Plan> all;
  const tr::PlanResult r = tr::plan(in, &all);
  ASSERT_EQ(all.size(), static_cast<size_t>(r.configs));
  EXPECT_TRUE(r.fits);
  // 468 tokens per chip: FSDP alone (850 on three axes) is comms-bound, FSDP + TP is not.
  EXPECT_EQ(tr::strategy_name(r.best.strategy), "FSDP+TP");
  EXPECT_TRUE(r.best.compute_bound);
  near_rel(r.best.mfu, 1, 1e-12);
  int best = 0;
  for (const tr::Plan& p : all) {
    best += p.reason == tr::Reason::Best;
    if (p.X == 8960 && p.remat == tf::Remat::BigMatmuls) {
      // Whole pod as one data axis: FSDP loses on its gathers, DP does not fit (10 P = 706 GB).
      if (p.strategy == tr::kFSDP) EXPECT_EQ(p.reason, tr::Reason::CommsFsdp);
      if (p.strategy == tr::kDP) EXPECT_EQ(p.reason, tr::Reason::OutOfMemory);
    }
    if (p.Y == 8960) EXPECT_EQ(p.reason, tr::Reason::CommsTp);
    if (p.fits && p.compute_bound && p.reason != tr::Reason::Best) {
      EXPECT_TRUE(p.reason == tr::Reason::Tie || p.reason == tr::Reason::Recompute)
          << tr::reason_name(p.reason);
    }
  }
  EXPECT_EQ(best, 1);
  // Each class's best carries a reason too.
  const int fsdp = tr::strategy_class(tr::kFSDP);
  ASSERT_TRUE(r.has[fsdp]);
  EXPECT_EQ(r.by_strategy[fsdp].reason, tr::Reason::CommsFsdp);
}

TEST(TrainingPlanner, FitsNowhereIsAResult) {
  // 405B on 4 chips: 10 P = 4.06e12 B, more than 4 x 96 GB however it is split.
  const tr::PlanResult r = tr::plan(input(tf::model("llama-3.1-405b").config, "2x2x1", 4096));
  EXPECT_FALSE(r.fits);
  EXPECT_FALSE(r.best.fits);
  EXPECT_GT(r.configs, 0);
  for (int i = 0; i < tr::kStrategyClasses; ++i)
    if (r.has[i] && r.by_strategy[i].reason != tr::Reason::Best)
      EXPECT_EQ(r.by_strategy[i].reason, tr::Reason::OutOfMemory);
}

TEST(TrainingPlanner, Topologies) {
  const tr::Topology pod = tr::topology_for_shape(v5p(), "16x20x28");
  ASSERT_EQ(pod.slices.size(), 1u);
  EXPECT_EQ(pod.slices[0].wrap, (std::vector<bool>{true, true, true}));
  // Not whole cubes: no wraparound.
  EXPECT_EQ(tr::topology_for_shape(v5p(), "4x4x5").slices[0].wrap,
            (std::vector<bool>{false, false, false}));
  const tr::Topology two = tr::topology_for_chips(v5p(), 17920);
  EXPECT_EQ(two.pods, 2);
  EXPECT_EQ(two.slices[0].chips(), 8960);
  // 64 chips: 4x4x4 is one of the shapes.
  bool cube = false;
  for (const tr::Slice& s : tr::topology_for_chips(v5p(), 64).slices)
    cube = cube || s.dims == std::vector<int>{4, 4, 4};
  EXPECT_TRUE(cube);
}

TEST(TrainingPlanner, BadInput) {
  expect_error([] { tr::topology_for_shape(v5p(), "16x20x32"); }, "shape", "does not fit");
  expect_error([] { tr::topology_for_shape(v5p(), "4x4x4x4"); }, "shape", "at most 3");
  expect_error([] { tr::topology_for_shape(sb::hw::chip("v5e"), "4x4x4"); }, "shape",
               "too many axes");
  expect_error([] { tr::topology_for_chips(v5p(), 9000); }, "chips", "whole number of pods");
  expect_error([] { tr::topology_for_chips(v5p(), 0); }, "chips", "at least 1");
  expect_error([] { tr::plan(input(small_model(), "16x20x28", 8959)); }, "B",
               "smaller than the chip count");
  tr::PlanInput empty = input(small_model(), "4x4x4", 1e6);
  empty.topo.slices[0].dims = {4, 0, 4};
  expect_error([&] { tr::plan(empty); }, "shape", "at least 1 chip");
  tf::Config zero = small_model();
  zero.L = 0;
  expect_error([&] { tr::plan(input(zero, "4x4x4", 1e6)); }, "L", "at least 1");
  tf::Config bad_k = small_model();
  bad_k.K = 3;
  expect_error([&] { tr::plan(input(bad_k, "4x4x4", 1e6)); }, "K", "divide N");
  expect_error(
      [] {
        tr::evaluate(input(small_model(), "4x4x4", 1e6), 0, {4, 4, 2}, {1, 1, 1}, {1, 1, 1},
                     tr::kFSDP, tf::Remat::Block);
      },
      "layout", "does not make");
}

TEST(TrainingPlanner, RegimeMap) {
  // LLaMA 3-70B on v5p as the planner costs it: FSDP over the pod's three axes needs b > 850
  // tokens per chip (its gathers 2 x 3 x 8192 x 28672 = 1.409e9 B / 5.4e11 B/s = 2.61e-3 s against
  // a T_math of 1.409e9 b / 4.59e14); FSDP + TP's floor is 2550^2 / (2 * 28672) = 113.4.
  tr::PlanInput base;
  base.model = tf::model("llama-3-70b").config;
  base.hw = v5p_hw();
  const tr::RegimeMap map =
      tr::regime_map(base, v5p(), {16, 1024, 8960, 17920}, {40, 468.11, 900, 16384});
  // 40 tokens per chip: below 2550^2 / (M_X M_Y 28672) for any M_X M_Y under 5.67 (three axes give
  // the planner's split layouts at most about 3).
  EXPECT_EQ(map.at(2, 0), 0);
  EXPECT_EQ(map.at(2, 1), tr::kRegimeMixed);                    // 468: only mixed
  EXPECT_EQ(map.at(2, 2), tr::kRegimeMixed | tr::kRegimeFSDP);  // 900 > 850; DP never fits
  // Two pods: 468 x 8960 = 4.19e6 tokens per pod, above alpha_dcn = 73,440.
  EXPECT_EQ(map.at(3, 1), tr::kRegimeMixed | tr::kRegimeDCN | tr::kRegimeMultiPod);
  // 16 chips: TP over all of them is compute-bound and (10 P + checkpoints) / 16 fits.
  EXPECT_TRUE(map.at(0, 0) & tr::kRegimeTP);
  // 1024 chips at 16384 tokens per chip: FSDP saving the big matmuls' outputs holds 131,072 B
  // per token per layer (2 (8192 + 2 x 28672)), 172 GB per chip: too much; block remat keeps 2 D
  // = 16,384 B, 21.5 GB, and 10 P / 1024 = 0.69 GB more: FSDP fits and is compute-bound.
  EXPECT_TRUE(map.at(1, 3) & tr::kRegimeFSDP);
}

TEST(TrainingPlanner, MixtureOfExpertsTriesExpertParallelism) {
  // Mixtral 8x7B on a 4x4x4 slice: its 8 experts split over a data axis of 8 or more chips.
  tr::PlanInput in = input(tf::model("mixtral-8x7b").config, "4x4x4", 64 * 4096.0);
  in.pipeline = false;
  const tr::PlanResult r = tr::plan(in);
  bool ep = false;
  for (int i = 0; i < tr::kStrategyClasses; ++i)
    ep = ep || (r.has[i] && (r.by_strategy[i].strategy & tr::kEP));
  EXPECT_TRUE(ep);
  // FSDP with EP over X = 64: gcd(64, 8) = 8 chips hold distinct experts, each 1 of the 8.
  const tr::Plan p = tr::evaluate(in, 0, {4, 4, 4}, {1, 1, 1}, {1, 1, 1}, tr::kFSDP | tr::kEP,
                                  tf::Remat::BigMatmuls);
  EXPECT_EQ(p.ep_degree, 8);
  EXPECT_EQ(tr::strategy_name(p.strategy), "FSDP+EP");
  EXPECT_GT(p.timeline.ep, 0);
}

TEST(TrainingPlanner, SearchIsBounded) {
  // A deep model on a pod: the full search has more configurations than the bound, so the
  // microbatch counts thin out or the search stops at the bound, and the result says so.
  tf::Config deep = small_model();
  deep.L = 1000;
  tr::PlanInput in = input(deep, "16x20x28", 8960 * 4096.0);
  in.max_configs = 20000;
  const tr::PlanResult r = tr::plan(in);
  EXPECT_LE(r.configs, 20000);
  EXPECT_GT(r.full, 20000);
  EXPECT_TRUE(r.micro_step > 4 || r.cut);
  EXPECT_FALSE(tr::bound_words(r).empty());
  in.max_configs = 1e9;
  EXPECT_TRUE(tr::bound_words(tr::plan(in)).empty());
}

// ---- Part 6: the case study
// ------------------------------------------------------------------------

TEST(AppliedTraining, Llama3_70bCaseStudy) {
  at::CaseInput in;
  in.model = tf::model("llama-3-70b").config;
  in.model.norms_per_layer = 0;  // the book's table
  in.model.final_norm = false;
  in.hw = v5p_hw();
  const at::CaseStudy s = at::case_study(in);
  // IQ2-IQ4 (the chapter's 6P): 6P = 423,314,325,504; x 15e12 = 6.34971e24.
  near_rel(s.flops_per_token_book, 423314325504.0);
  near_rel(s.total_flops_book, 423314325504.0 * 15e12);
  // The widget's 6 P_active: the input embedding (8192 x 128256 = 1,050,673,152) is a look-up,
  // so P_active = 69,501,714,432 and 6 P_active = 417,010,286,592; on 8960 chips at 40%:
  // 417,010,286,592 x 15e12 / (8960 x 4.59e14 x 0.4) = 3,802,402 s.
  near_rel(s.flops_per_token, 417010286592.0);
  near_rel(s.time, 417010286592.0 * 15e12 / (8960 * 4.59e14 * 0.4));
  // IQ5: 2P + 8P + 2 * 8192 * 4194304 * 4 * 80 = 141,104,775,168 + 564,419,100,672 +
  // 21,990,232,555,520 = 22,695,756,431,360 B: 237 chips (the book reads 4M as 4e6: 226).
  near_rel(s.state.checkpoints, 2.0 * 8192 * 4194304 * 4 * 80);
  near_rel(s.state.total(), 22695756431360.0);
  EXPECT_EQ(s.min_chips, 237);
  EXPECT_TRUE(s.fits);
  near_rel(at::training_state(70552387584.0, 4e6, 8192, 80, 4).total(), 21677043875840.0);
  EXPECT_EQ(at::min_chips(21677043875840.0, 96e9), 226);
  // IQ7, IQ8: 1024 sequences of 4096; 468.11 tokens per chip < 850.
  near_rel(s.sequences, 1024);
  near_rel(s.per_chip_batch, 4194304.0 / 8960);
  near_rel(s.fsdp_threshold, 850);
  EXPECT_FALSE(s.fsdp_compute_bound);
  EXPECT_FALSE(s.fsdp_costed_bound);
  // IQ9: 113.39 < 468: compute-bound; X_opt = sqrt(4194304 / 28672 * 2 * 8960) = 1619.1 -> 2048,
  // 4-way TP on 8192 chips, 768 idle; as the planner costs it, compute-bound too.
  near_rel(s.mixed_threshold, 2550.0 * 2550 / (2 * 28672));
  EXPECT_TRUE(s.mixed_compute_bound);
  near_rel(s.x_opt, std::sqrt(4194304.0 / 28672 * 2 * 8960));
  EXPECT_EQ(s.recipe.X, 2048);
  EXPECT_EQ(s.recipe.Y, 4);
  EXPECT_EQ(s.recipe.idle, 768);
  EXPECT_TRUE(s.recipe_costed_bound);
  near_rel(s.dcn_threshold, 73440);
}

TEST(AppliedTraining, MixtureOfExpertsCountsTheActiveWeights) {
  // DeepSeek-V3: about 37B of its 671B weights are used per token; the widget's FLOPs use them.
  at::CaseInput in;
  in.model = tf::model("deepseek-v3").config;
  in.hw = v5p_hw();
  const at::CaseStudy s = at::case_study(in);
  EXPECT_NEAR(s.params.matmul_active / 1e9, 37, 1);
  EXPECT_NEAR(s.params.total / 1e9, 671, 2);
  near_rel(s.flops_per_token, 6 * s.params.matmul_active);
  near_rel(s.flops_per_token_book, 6 * s.params.total);
  // The closed forms call FSDP + TP compute-bound; FSDP gathers every expert's weights, so the
  // recipe costed as the planner does is not, and the verdict says so.
  EXPECT_TRUE(s.mixed_compute_bound);
  EXPECT_FALSE(s.recipe_costed_bound);
  EXPECT_NE(at::case_recipe_words(s).find("every expert"), std::string::npos);
}

TEST(AppliedTraining, BadInput) {
  at::CaseInput in;
  in.model = tf::model("llama-3-70b").config;
  in.hw = v5p_hw();
  at::CaseInput a = in;
  a.mfu = 0;
  expect_error([&] { at::case_study(a); }, "mfu", "above 0");
  a = in;
  a.batch = 100;
  expect_error([&] { at::case_study(a); }, "batch", "one token per chip");
  a = in;
  a.pods = 1.5;
  expect_error([&] { at::case_study(a); }, "pods", "whole number");
  a = in;
  a.model.L = 0;
  expect_error([&] { at::case_study(a); }, "L", "at least 1");
}
