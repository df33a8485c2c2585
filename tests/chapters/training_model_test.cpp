// Training chapter (Part 5) model: per-layer times and thresholds against the book's closed forms
// (arithmetic in the comments), memory and time.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "chapters/training/model.hpp"
#include "chapters/transformers/models.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"

namespace tr = sb::training;
namespace tf = sb::transformers;

namespace {

void near_rel(double got, double want, double rel = 1e-12) {
  EXPECT_NEAR(got, want, std::fabs(want) * rel) << "got " << got << ", want " << want;
}

template <class F>
void expect_error(F f, const std::string& field, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one naming " << field;
  } catch (const sb::InputError& e) {
    EXPECT_EQ(e.field, field) << e.what();
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

const sb::hw::Chip& v5p() { return sb::hw::chip("v5p"); }
tr::Hardware v5p_hw() { return tr::hardware_of(v5p()); }

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
  EXPECT_EQ(tr::round_split(tr::x_opt(48000, 32768, 64, 2, 1), 64), 16);
  // Q3: sqrt((3e6 / 13824) * 2 * 4096) = 1333.33 -> 1024.
  near_rel(tr::x_opt(3e6, 13824, 4096, 2, 1), std::sqrt(3e6 / 13824 * 2 * 4096));
  EXPECT_EQ(tr::round_split(1333.33, 4096), 1024);
  // On a 16x20x28 pod no power of two near 1619 divides 8960: the nearest divisor is 1792.
  EXPECT_EQ(tr::round_split(1619.0, 8960), 1792);
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
  near_rel(tr::memory_per_chip(13e9, 7.86432e12, {4096, 1, 3, 0, tr::XMode::FSDP, 1}),
           1951738281.25);
  // Pure DP replicates the 1.3e11: more than 96 GB.
  EXPECT_GT(tr::memory_per_chip(13e9, 7.86432e12, {4096, 1, 3, 0, tr::XMode::DP, 1}), 96e9);
  near_rel(tr::max_params_pure_dp(96e9), 9.6e9);  // Ex2
  near_rel(tr::sequences(3e6, 32768), 3e6 / 32768);
  // Step at 40% MFU with C = 4.6e14: 6 * 3e6 * 13e9 / (4096 * 4.6e14 * 0.4) = 0.310483 s.
  near_rel(tr::step_time_at_mfu(3e6, 13e9, 4096, 4.6e14, 0.4), 2.34e17 / (4096 * 4.6e14 * 0.4));
  // Ex6: 16e6 / 850 = 18,823.5 chips; 6.3e24 / (18823.5 * 4.59e14 * 0.5) = 1,458,333 s.
  const double chips = tr::fsdp_max_chips(16e6, 2550, 3);
  near_rel(chips, 16e6 * 3 / 2550);
  near_rel(tr::train_time(6.3e24, chips, 4.59e14, 0.5), 6.3e24 / (chips * 4.59e14 * 0.5));
}
