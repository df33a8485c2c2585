// Roofline chapter: model values, calculators through the JSON entry point, and every problem's
// solve(). Expected values are derived by hand in the comments, never copied from the catalogue.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "chapters/roofline/model.hpp"
#include "core/api.hpp"
#include "core/error.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "tests/support/support.hpp"

namespace rl = sb::roofline;
using sb::json;
using namespace sb::test;

// ---- model.hpp ------------------------------------------------------------------------------

TEST(RooflineModel, TimeModel) {
  // 1e12 FLOPs at 9.89e14 FLOPs/s: 1e12 / 9.89e14 = 1.011122e-3 s.
  near_rel(rl::t_math(1e12, 9.89e14), 1.0111223458e-3, 1e-9);
  // 2e9 bytes at 8e11 B/s: 2e9 / 8e11 = 2.5e-3 s.
  near_rel(rl::t_comms(2e9, 8e11), 2.5e-3);
  // max(3, 5) = 5; 3 + 5 = 8; and the sum never exceeds twice the max: 8 <= 10.
  EXPECT_EQ(rl::t_lower(3, 5), 5);
  EXPECT_EQ(rl::t_upper(3, 5), 8);
  EXPECT_LE(rl::t_upper(3, 5), 2 * rl::t_lower(3, 5));
  // 5 > 3: compute-bound; 3 < 5: communication-bound; a tie is not compute-bound.
  EXPECT_EQ(rl::verdict(5, 3), rl::Bound::Compute);
  EXPECT_EQ(rl::verdict(3, 5), rl::Bound::Comms);
  EXPECT_EQ(rl::verdict(4, 4), rl::Bound::Comms);
  EXPECT_STREQ(rl::bound_name(rl::Bound::Compute), "compute-bound");
}

TEST(RooflineModel, IntensityAndRidge) {
  // 48 FLOPs over 52 bytes = 0.923077 FLOPs/B.
  near_rel(rl::arithmetic_intensity(48, 52), 48.0 / 52.0);
  // v5e: 1.97e14 / 8.2e11 = 240.2439 FLOPs/B (197000 / 820 = 240.24...).
  near_rel(rl::critical_intensity(1.97e14, 8.2e11), 240.24390243902, 1e-12);
  // Roofline: peak 1000, BW 5. At I = 100: min(1000, 500) = 500; at I = 300: min(1000, 1500).
  EXPECT_EQ(rl::attainable_flops_per_s(100, 1000, 5), 500);
  EXPECT_EQ(rl::attainable_flops_per_s(300, 1000, 5), 1000);
  // 100 FLOPs with T_math = 1, T_comms = 4: 100 / max(1, 4) = 25 FLOPs/s.
  EXPECT_EQ(rl::achieved_flops_per_s(100, 1, 4), 25);
}

TEST(RooflineModel, DotProduct) {
  // N = 1024: FLOPs 2*1024 - 1 = 2047; bytes 4*1024 + 2 = 4098; I = 2047/4098 = 0.499512.
  EXPECT_EQ(rl::dot_flops(1024), 2047);
  EXPECT_EQ(rl::dot_bytes(1024), 4098);
  near_rel(rl::dot_intensity(1024), 2047.0 / 4098.0);
  // Limit 2 / (2 * 2) = 0.5 for bf16; fp32 (4 B): 2 / 8 = 0.25.
  EXPECT_EQ(rl::dot_intensity_limit(), 0.5);
  EXPECT_EQ(rl::dot_intensity_limit(4), 0.25);
  // N = 1: one multiply, no add: 1 FLOP over 2 + 2 + 2 = 6 bytes.
  near_rel(rl::dot_intensity(1), 1.0 / 6.0);
}

TEST(RooflineModel, MatmulCounts) {
  // B=2, D=3, F=4, all bf16: FLOPs 2*2*3*4 = 48; bytes 2*6 + 2*12 + 2*8 = 12 + 24 + 16 = 52.
  const rl::MatmulShape s{2, 3, 4};
  EXPECT_EQ(rl::matmul_flops(s), 48);
  EXPECT_EQ(rl::matmul_bytes(s, {2, 2, 2}), 52);
  near_rel(rl::matmul_intensity(s, {2, 2, 2}), 48.0 / 52.0);
  // Mixed dtypes x=2 (bf16), w=1 (int8), o=4 (fp32): 2*6 + 1*12 + 4*8 = 12 + 12 + 32 = 56.
  const rl::MatmulCost c = rl::matmul_cost(s, {2, 1, 4});
  EXPECT_EQ(c.bytes_x, 12);
  EXPECT_EQ(c.bytes_w, 12);
  EXPECT_EQ(c.bytes_o, 32);
  EXPECT_EQ(c.bytes_read(), 24);
  EXPECT_EQ(c.bytes_written(), 32);
  EXPECT_EQ(c.bytes(), 56);
  // Per-example weights W[B,D,F], int8: 6 + 2*3*4 + 8 = 38 bytes, FLOPs still 48.
  EXPECT_EQ(rl::matmul_bytes(s, {1, 1, 1}, true), 38);
  EXPECT_EQ(rl::matmul_cost(s, {1, 1, 1}, true).flops, 48);
  // All int8 at B=256, D=8192, F=32768: read 256*8192 + 8192*32768 = 2,097,152 + 268,435,456
  // = 270,532,608; write 256*32768 = 8,388,608.
  const rl::MatmulCost q = rl::matmul_cost({256, 8192, 32768}, {1, 1, 1});
  EXPECT_EQ(q.bytes_read(), 270532608);
  EXPECT_EQ(q.bytes_written(), 8388608);
}

TEST(RooflineModel, CriticalBatch) {
  // Approximation: b_w I_hw / 2. bf16 weights at I_hw = 240: 2*240/2 = 240; int8: 120.
  EXPECT_EQ(rl::critical_batch_approx(2, 240), 240);
  EXPECT_EQ(rl::critical_batch_approx(1, 240), 120);
  // Exact, D = F = 4096, bf16 X and Z, int8 W, I_hw = 256:
  //   denominator 2*4096*4096/256 - 2*4096 - 2*4096 = 131072 - 16384 = 114688;
  //   B = 1*4096*4096 / 114688 = 16777216 / 114688 = 146.2857 (= 1024/7).
  auto b = rl::critical_batch_exact(4096, 4096, {2, 1, 2}, 256);
  ASSERT_TRUE(b.has_value());
  near_rel(*b, 1024.0 / 7.0);
  // D = F = 256 at I_hw = 256, all bf16: 2*65536/256 - 512 - 512 = 512 - 1024 < 0: never.
  EXPECT_FALSE(rl::critical_batch_exact(256, 256, {2, 2, 2}, 256).has_value());
  // D = F = 512: 2*262144/256 - 1024 - 1024 = 2048 - 2048 = 0: still never (no finite B).
  EXPECT_FALSE(rl::critical_batch_exact(512, 512, {2, 2, 2}, 256).has_value());
  // The exact crossover sits above the approximation (activations add bytes): 146.3 > 128.
  EXPECT_GT(*b, rl::critical_batch_approx(1, 256));
  // 512 sequences * 4096 tokens = 2,097,152 tokens; over 2048 devices = 1024 each.
  EXPECT_EQ(rl::global_batch_tokens(512, 4096), 2097152);
  EXPECT_EQ(rl::local_batch_tokens(2097152, 2048), 1024);
  // 1.979e15 sparse / 2 = 9.895e14 dense.
  near_rel(rl::dense_peak(1.979e15), 9.895e14);
}

TEST(RooflineModel, Tiled) {
  // m = k = n = 8192 with 512-tiles: 16 tiles per axis.
  const rl::Tiling t{8192, 8192, 8192, 512, 512, 512};
  EXPECT_EQ(rl::tiles(8192, 512), 16);
  EXPECT_EQ(rl::tiles(1000, 512), 2);  // 1000/512 = 1.95 -> 2 (the last tile is padded)
  // FLOPs 2 * 16^3 * 512^3 = 2 * 4096 * 134,217,728 = 1,099,511,627,776 (= 2 * 8192^3 = 2^40).
  EXPECT_EQ(rl::tiled_flops(t), 1099511627776.0);
  // Bytes 2 * 16 * 16 * (16 * (512*512 + 512*512) + 512*512) = 512 * (8,388,608 + 262,144)
  //   = 512 * 8,650,752 = 4,429,185,024.
  EXPECT_EQ(rl::tiled_bytes(t), 4429185024.0);
  // Intensity 1,099,511,627,776 / 4,429,185,024 = 248.2424 (= 8192/33).
  near_rel(rl::tiled_intensity(t), 8192.0 / 33.0);
  // Without the write: 512*512 / (512 + 512) = 256; with 256 x 1024 tiles: 262144/1280 = 204.8.
  EXPECT_EQ(rl::tiled_intensity_approx(512, 512), 256);
  near_rel(rl::tiled_intensity_approx(256, 1024), 204.8);
}

TEST(RooflineModel, Network) {
  // Per chip T_math = 2 B (D/2) F / peak: B=1, D=2, F=1, peak 1 -> 2 s; FLOPs 2*1*1*1 = 2.
  EXPECT_EQ(rl::network_flops_per_chip({1, 2, 1}), 2);
  EXPECT_EQ(rl::network_t_math({1, 2, 1}, 1), 2);
  // T_comms = 2 B F / BW: B = 3, F = 5, BW = 10 -> 30 / 10 = 3 s.
  EXPECT_EQ(rl::network_t_comms({3, 7, 5}, 10), 3);
  // Intensity D/2: 8192 / 2 = 4096.
  EXPECT_EQ(rl::network_intensity(8192), 4096);
  // D_crit = 2 peak / BW = 2 * 1.97e14 / 4.5e10 = 8755.56 (1.97e14/4.5e10 = 4377.78).
  near_rel(rl::network_d_crit(1.97e14, 4.5e10), 2 * 197000.0 / 45.0);
}

// ---- calculators through the JSON entry point --------------------------------------------------

TEST(RooflineCalc, MatmulDefaultsV5e) {
  // v5e, all bf16, B=512, D=8192, F=32768.
  const json r = calc("roofline.matmul", json::object());
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  // FLOPs 2*512*8192*32768 = 2^1 * 2^9 * 2^13 * 2^15 = 2^38 = 274,877,906,944.
  EXPECT_EQ(value_of(r, "flops"), 274877906944.0);
  // Bytes 2*512*8192 + 2*8192*32768 + 2*512*32768 = 8,388,608 + 536,870,912 + 33,554,432
  //   = 578,813,952 (= 69 * 2^23).
  EXPECT_EQ(value_of(r, "bytes"), 578813952.0);
  // I = 2^38 / (69 * 2^23) = 32768 / 69 = 474.90 FLOPs/B; ridge 1.97e14 / 8.2e11 = 240.24.
  near_rel(value_of(r, "intensity"), 32768.0 / 69.0);
  near_rel(value_of(r, "i_crit"), 1.97e14 / 8.2e11);
  // T_math = 2^38 / 1.97e14 = 1.3953 ms; T_comms = 578,813,952 / 8.2e11 = 0.70587 ms.
  near_rel(value_of(r, "t_math"), 274877906944.0 / 1.97e14);
  near_rel(value_of(r, "t_comms"), 578813952.0 / 8.2e11);
  near_rel(value_of(r, "t_lower"), 274877906944.0 / 1.97e14);
  near_rel(value_of(r, "t_upper"), 274877906944.0 / 1.97e14 + 578813952.0 / 8.2e11);
  EXPECT_EQ(r["verdict"], "compute-bound");
  // Compute-bound, so it achieves the full peak 1.97e14 FLOPs/s.
  near_rel(value_of(r, "achieved_flops_per_s"), 1.97e14);
  // B_crit approx = 2 * 240.24 / 2 = 240.24; exact = 2*8192*32768 /
  //   (2*8192*32768 / 240.24 - 2*8192 - 2*32768) = 536,870,912 / (2,234,687.5 - 81,920) = 249.39.
  near_rel(value_of(r, "b_crit_approx"), 1.97e14 / 8.2e11);
  near_rel(value_of(r, "b_crit_exact"),
           536870912.0 / (536870912.0 * 8.2e11 / 1.97e14 - 2 * 8192 - 2 * 32768));
  // The plot: roof at the peak, ridge at I_hw, the point at (I, achieved).
  const json& plot = r["plot"];
  EXPECT_EQ(plot["peak"].get<double>(), 1.97e14);
  EXPECT_EQ(plot["bw"].get<double>(), 8.2e11);
  near_rel(plot["ridge"].get<double>(), 1.97e14 / 8.2e11);
  near_rel(plot["point"]["intensity"].get<double>(), 32768.0 / 69.0);
  near_rel(plot["point"]["flops_per_s"].get<double>(), 1.97e14);
  EXPECT_EQ(plot["fraction_of_peak"].get<double>(), 1.0);  // on the flat roof
  EXPECT_FALSE(r["trace"].empty());
  EXPECT_TRUE(r["trace"][0].contains("formula"));
}

TEST(RooflineCalc, MatmulMixedDtypesAndVmem) {
  // int8 weights, bf16 activations and output, int8 arithmetic, B=64, D=F=4096, v5e.
  json r =
      calc("roofline.matmul",
           {{"dtype_w", "int8"}, {"dtype_compute", "int8"}, {"B", 64}, {"D", 4096}, {"F", 4096}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  // Bytes 2*64*4096 + 1*4096*4096 + 2*64*4096 = 524,288 + 16,777,216 + 524,288 = 17,825,792.
  EXPECT_EQ(value_of(r, "bytes"), 17825792.0);
  // int8 peak 3.94e14: ridge 3.94e14 / 8.2e11 = 480.49; B_crit approx = 1 * 480.49 / 2 = 240.24.
  near_rel(value_of(r, "i_crit"), 3.94e14 / 8.2e11);
  near_rel(value_of(r, "b_crit_approx"), 3.94e14 / 8.2e11 / 2);
  // I = 2*64*4096^2 / 17,825,792 = 2,147,483,648 / 17,825,792 = 120.47 < 480: memory-bound,
  // achieving I * BW = 120.47 * 8.2e11 = 9.879e13 FLOPs/s.
  EXPECT_EQ(r["verdict"], "memory-bound (HBM)");
  near_rel(value_of(r, "achieved_flops_per_s"), 2147483648.0 / 17825792.0 * 8.2e11);
  // Same shape against VMEM (v5e vmem_bw 1.804e13 = 22 x 8.2e11): ridge 3.94e14 / 1.804e13 = 21.84.
  r = calc("roofline.matmul", {{"dtype_w", "int8"},
                               {"dtype_compute", "int8"},
                               {"B", 64},
                               {"D", 4096},
                               {"F", 4096},
                               {"memory", "vmem"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  near_rel(value_of(r, "i_crit"), 3.94e14 / (22 * 8.2e11));
  EXPECT_EQ(r["verdict"], "compute-bound");
  EXPECT_EQ(r["plot"]["roofs"].size(), 2u);  // VMEM, the one it runs against, then HBM
  EXPECT_EQ(r["plot"]["roofs"][0]["name"], "VMEM");
}

// The plot's curves are the module's: each roof's attainable FLOPs/s over the plot's intensities.
TEST(RooflineCalc, PlotCurvesComeFromTheModel) {
  // v5e, int8 weights and arithmetic, B=64, D=F=4096 (as above): I = 120.47 < 480.49 = the ridge.
  json r =
      calc("roofline.matmul",
           {{"dtype_w", "int8"}, {"dtype_compute", "int8"}, {"B", 64}, {"D", 4096}, {"F", 4096}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  const json& plot = r["plot"];
  const std::vector<double> xs = plot["intensity"].get<std::vector<double>>();
  ASSERT_GE(xs.size(), 40u);
  EXPECT_TRUE(std::is_sorted(xs.begin(), xs.end()));
  // The grid spans 30x beyond the extreme marks: VMEM's ridge 3.94e14 / 1.804e13 = 21.84 below,
  // HBM's ridge 480.49 above: from 21.84 / 30 = 0.728 to 480.49 * 30 = 14415.
  near_rel(xs.front(), 3.94e14 / 1.804e13 / 30, 1e-9);
  near_rel(xs.back(), 3.94e14 / 8.2e11 * 30, 1e-9);
  // The ridge and the operation are points of the grid, so the page can mark them.
  const double ridge = plot["ridge"].get<double>(), I = plot["point"]["intensity"].get<double>();
  EXPECT_NE(std::find(xs.begin(), xs.end(), ridge), xs.end());
  EXPECT_NE(std::find(xs.begin(), xs.end(), I), xs.end());
  EXPECT_EQ(plot["ridge_point"]["intensity"].get<double>(), ridge);
  EXPECT_EQ(plot["ridge_point"]["flops_per_s"].get<double>(), 3.94e14);
  // HBM first (the chosen memory): below the ridge x * 8.2e11, above it the peak 3.94e14.
  const json& hbm = plot["roofs"][0];
  EXPECT_EQ(hbm["name"], "HBM");
  const std::vector<double> ys = hbm["flops_per_s"].get<std::vector<double>>();
  ASSERT_EQ(ys.size(), xs.size());
  for (size_t i = 0; i < xs.size(); ++i)
    near_rel(ys[i], xs[i] < ridge ? xs[i] * 8.2e11 : 3.94e14, 1e-12);
  // The operation runs at I * BW = 9.879e13, a fraction 9.879e13 / 3.94e14 = 0.2507 of the peak.
  near_rel(plot["fraction_of_peak"].get<double>(), 2147483648.0 / 17825792.0 * 8.2e11 / 3.94e14);
  // The network calculator draws its link's roof the same way.
  json n = calc("roofline.network", {{"link", "pcie"}});
  ASSERT_TRUE(n["ok"].get<bool>()) << n.dump();
  ASSERT_EQ(n["plot"]["roofs"].size(), 1u);
  EXPECT_EQ(n["plot"]["roofs"][0]["name"], "PCIe");
}

TEST(RooflineCalc, MatmulNeverAndPerExample) {
  // D = F = 128 all bf16 on v5e: 2*128*128/240.24 - 2*128 - 2*128 = 136.4 - 512 < 0: never.
  json r = calc("roofline.matmul", {{"D", 128}, {"F", 128}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_FALSE(r["values"].contains("b_crit_exact"));  // none: left out, and said in words
  ASSERT_EQ(r["notes"].size(), 1u);
  EXPECT_NE(r["notes"][0].get<std::string>().find("Never"), std::string::npos);
  // D = 1 at the default F = 32768: 2*32768/240.24 - 2 - 2*32768 < 0: never, and no number of
  // the answer (values, plot, derivation) is null.
  r = calc("roofline.matmul", {{"D", 1}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_FALSE(r["values"].contains("b_crit_exact"));
  EXPECT_EQ(r.dump().find("null"), std::string::npos) << r.dump();
  // Per-example int8 weights, B=256, D=8192, F=32768: I = 2DF / (D + DF + F)
  //   = 536,870,912 / (8192 + 268,435,456 + 32768) = 1.99969, far below the ridge; no B_crit.
  r = calc("roofline.matmul", {{"dtype_x", "int8"},
                               {"dtype_w", "int8"},
                               {"dtype_o", "int8"},
                               {"B", 256},
                               {"per_example_weights", "yes"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  near_rel(value_of(r, "intensity"), 536870912.0 / (8192.0 + 268435456.0 + 32768.0));
  EXPECT_FALSE(r["values"].contains("b_crit_approx"));
  EXPECT_FALSE(r["values"].contains("b_crit_exact"));
  EXPECT_NE(r["notes"][0].get<std::string>().find("no batch size"), std::string::npos);
  EXPECT_EQ(r.dump().find("null"), std::string::npos) << r.dump();
}

TEST(RooflineCalc, MatmulBadInput) {
  expect_error_value(calc("roofline.matmul", {{"B", 0}}), "B");
  expect_error_value(calc("roofline.matmul", {{"B", -5}}), "B");
  expect_error_value(calc("roofline.matmul", {{"B", 1e12}}), "B");  // above the 1e9 cap
  expect_error_value(calc("roofline.matmul", {{"B", 1.5}}), "B");   // tokens are whole
  expect_error_value(calc("roofline.matmul", {{"D", "abc"}}), "D");
  expect_error_value(calc("roofline.matmul", {{"F", 1e8}}), "F");  // above the 1e7 cap
  expect_error_value(calc("roofline.matmul", {{"chip", "tpu-v99"}}), "chip");
  expect_error_value(calc("roofline.matmul", {{"dtype_x", "bf17"}}), "dtype_x");
  expect_error_value(calc("roofline.matmul", {{"dtype_compute", "fp16"}}), "dtype_compute");
  // v5e has no fp8 peak in the tables: the compute dtype is what to fix.
  expect_error_value(calc("roofline.matmul", {{"dtype_compute", "fp8"}}), "dtype_compute");
  // v6e has no VMEM bandwidth in the tables.
  expect_error_value(calc("roofline.matmul", {{"chip", "v6e"}, {"memory", "vmem"}}), "memory");
  expect_error_value(calc("roofline.matmul", {{"per_example_weights", "maybe"}}),
                     "per_example_weights");
  expect_error_value(calc("roofline.matmul", {{"Q", 3}}), "Q");  // unknown input
}

TEST(RooflineCalc, Network) {
  // v5e over ICI (4.5e10 one way), B=512, D=8192, F=32768.
  json r = calc("roofline.network", json::object());
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  // Per chip T_math = 512*8192*32768 / 1.97e14 = 137,438,953,472 / 1.97e14 = 0.6977 ms.
  near_rel(value_of(r, "t_math"), 137438953472.0 / 1.97e14);
  // T_comms = 2*512*32768 / 4.5e10 = 33,554,432 / 4.5e10 = 0.7457 ms.
  near_rel(value_of(r, "t_comms"), 33554432.0 / 4.5e10);
  // Intensity D/2 = 4096 < I_link = 1.97e14/4.5e10 = 4377.78; D_crit = 8755.56.
  EXPECT_EQ(value_of(r, "intensity"), 4096);
  near_rel(value_of(r, "i_crit_link"), 197000.0 / 45.0);
  near_rel(value_of(r, "d_crit"), 2 * 197000.0 / 45.0);
  EXPECT_EQ(r["verdict"], "communication-bound (ICI (one way))");
  // D = 16384: D/2 = 8192 > 4377.78: compute-bound.
  r = calc("roofline.network", {{"D", 16384}});
  EXPECT_EQ(r["verdict"], "compute-bound");
  // PCIe on v5e: 1.6e10, so D_crit = 2 * 1.97e14 / 1.6e10 = 24,625.
  r = calc("roofline.network", {{"link", "pcie"}});
  near_rel(value_of(r, "d_crit"), 24625);
  // DCN on v5e: 3.125e9, so I_link = 1.97e14 / 3.125e9 = 63,040.
  r = calc("roofline.network", {{"link", "dcn"}});
  near_rel(value_of(r, "i_crit_link"), 63040);
  // Bad input: unknown link; D = 0.
  expect_error_value(calc("roofline.network", {{"link", "nvlink"}}), "link");
  expect_error_value(calc("roofline.network", {{"D", 0}}), "D");
}

TEST(RooflineCalc, NetworkOnAGpuCrossesNvlink) {
  // An H100 has no ICI: the link is NVLink, 4.5e11 B/s per GPU one way. B=512, D=8192, F=32768:
  // T_comms = 2*512*32768 / 4.5e11 = 33,554,432 / 4.5e11 = 74.57 us; I_link = 9.9e14 / 4.5e11
  // = 2200, D_crit = 4400; D/2 = 4096 > 2200: compute-bound.
  json r = calc("roofline.network", {{"chip", "h100"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  near_rel(value_of(r, "t_comms"), 33554432.0 / 4.5e11);
  near_rel(value_of(r, "i_crit_link"), 2200);
  near_rel(value_of(r, "d_crit"), 4400);
  EXPECT_EQ(r["verdict"], "compute-bound");
  EXPECT_EQ(r["plot"]["roofs"][0]["name"], "NVLink");
  ASSERT_EQ(r["notes"].size(), 1u);
  EXPECT_EQ(r["notes"][0], "The NVIDIA H100 SXM has no ICI: NVLink instead (per GPU, one way).");
  // Its DCN is the scale-out network, 5e10 per GPU: I_link = 9.9e14 / 5e10 = 19,800.
  r = calc("roofline.network", {{"chip", "h100"}, {"link", "dcn"}});
  near_rel(value_of(r, "i_crit_link"), 19800);
  // The tables give an H100 no PCIe figure, and a V100 no NVLink one: said in words.
  json e = calc("roofline.network", {{"chip", "h100"}, {"link", "pcie"}});
  expect_error_value(e, "link");
  EXPECT_EQ(e["error"]["message"], "The book gives no PCIe bandwidth for the NVIDIA H100 SXM.");
  e = calc("roofline.network", {{"chip", "v100"}});
  expect_error_value(e, "link");
  EXPECT_EQ(e["error"]["message"], "The book gives no NVLink figure for the NVIDIA V100.");
}

TEST(RooflineCalc, RoofsOfTheChapterFigure) {
  // v5e, the default operation: 2.75e11 FLOPs over 5.79e8 B, I = 2.75e11 / 5.79e8 = 474.96 FLOPs/B,
  // against HBM (8.2e11: ridge 1.97e14 / 8.2e11 = 240.2), VMEM (1.804e13: 10.92), ICI (4.5e10:
  // 4378), PCIe (1.6e10: 12,312.5) and DCN (3.125e9: 63,040).
  json r = calc("roofline.roofs");
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  near_rel(value_of(r, "intensity"), 2.75e11 / 5.79e8);
  near_rel(value_of(r, "hbm_ridge"), 1.97e14 / 8.2e11);
  near_rel(value_of(r, "vmem_ridge"), 1.97e14 / 1.804e13);
  near_rel(value_of(r, "ici_ridge"), 1.97e14 / 4.5e10);
  near_rel(value_of(r, "pcie_ridge"), 12312.5);
  near_rel(value_of(r, "dcn_ridge"), 63040);
  // T_math = 2.75e11 / 1.97e14 = 1.396 ms; over HBM 5.79e8 / 8.2e11 = 0.7061 ms.
  near_rel(value_of(r, "t_math"), 2.75e11 / 1.97e14);
  near_rel(value_of(r, "hbm_time"), 5.79e8 / 8.2e11);
  EXPECT_EQ(r["verdict"], "compute-bound against HBM, VMEM; bandwidth-bound on ICI, PCIe, DCN");
  ASSERT_EQ(r["plot"]["roofs"].size(), 5u);
  EXPECT_EQ(r["plot"]["roofs"][2]["name"], "ICI");
  EXPECT_FALSE(r["plot"].contains("full_peak"));
  // Every ridge is a point of the grid, where its roof bends.
  const json& xs = r["plot"]["intensity"];
  for (const auto& roof : r["plot"]["roofs"])
    EXPECT_NE(std::find(xs.begin(), xs.end(), roof["ridge"]), xs.end()) << roof["name"];
  // An MFU cap of 0.5 halves the flat roof: 9.85e13, HBM ridge 9.85e13 / 8.2e11 = 120.1; the
  // plot also carries the full peak.
  r = calc("roofline.roofs", {{"mfu", 0.5}, {"levels", "hbm"}});
  near_rel(value_of(r, "peak"), 9.85e13);
  near_rel(value_of(r, "hbm_ridge"), 9.85e13 / 8.2e11);
  EXPECT_EQ(r["plot"]["full_peak"], 1.97e14);
  EXPECT_EQ(r["plot"]["roofs"].size(), 1u);
  // A typed intensity of 10: bytes = 2.75e11 / 10, over HBM 2.75e10 / 8.2e11 = 33.54 ms.
  r = calc("roofline.roofs", {{"intensity", 10}, {"levels", "hbm"}});
  near_rel(value_of(r, "hbm_time"), 2.75e11 / 10 / 8.2e11);
  EXPECT_EQ(r["verdict"], "bandwidth-bound on HBM");
  // The VPU of a v5e: 6.144e12 FLOPs/s (one core), ridge 6.144e12 / 8.2e11 = 7.493 FLOPs/B.
  r = calc("roofline.roofs", {{"unit", "vpu"}, {"levels", "hbm"}});
  near_rel(value_of(r, "hbm_ridge"), 6.144e12 / 8.2e11);
  // An H100: no VMEM or PCIe in the tables, NVLink for ICI and the scale-out network for DCN,
  // each said in words.
  r = calc("roofline.roofs", {{"chip", "h100"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(r["notes"].size(), 4u);
  EXPECT_EQ(r["plot"]["roofs"][1]["name"], "NVLink");
  near_rel(value_of(r, "ici_ridge"), 9.9e14 / 4.5e11);
  // Bad input names its field.
  expect_error_value(calc("roofline.roofs", {{"levels", "hbm, l2"}}), "levels");
  expect_error_value(calc("roofline.roofs", {{"levels", " , "}}), "levels");
  expect_error_value(calc("roofline.roofs", {{"levels", "hbm hbm hbm hbm hbm hbm"}}), "levels");
  expect_error_value(calc("roofline.roofs", {{"chip", "h100"}, {"levels", "pcie vmem"}}), "levels");
  expect_error_value(calc("roofline.roofs", {{"chip", "v6e"}, {"unit", "vpu"}}), "unit");
  expect_error_value(calc("roofline.roofs", {{"intensity", 1e-4}}), "intensity");
  expect_error_value(calc("roofline.roofs", {{"intensity", -1}}), "intensity");
  expect_error_value(calc("roofline.roofs", {{"mfu", 0}}), "mfu");
  expect_error_value(calc("roofline.roofs", {{"mfu", 1.5}}), "mfu");
  expect_error_value(calc("roofline.roofs", {{"flops", 0}}), "flops");
  expect_error_value(calc("roofline.roofs", {{"bytes", 1e26}}), "bytes");
  expect_error_value(calc("roofline.roofs", {{"dtype", "fp8"}}), "dtype");  // no v5e fp8 peak
}

TEST(RooflineCalc, AchievedAgainstBatch) {
  // All bf16 on v5e, I_hw = 1.97e14 / 8.2e11 = 240.24. Exact crossovers
  // B = 2DF / (2DF / I_hw - 2D - 2F): 8192x32768 -> 249.4, 1024x1024 -> 2,097,152 / (8729.6 -
  // 4096) = 452.6, 512x512 -> 524,288 / (2182.34 - 2048) = 3903.4.
  json r = calc("roofline.batch");
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  const double ihw = 1.97e14 / 8.2e11;
  const auto crit = [&](double D, double F) {
    return 2 * D * F / (2 * D * F / ihw - 2 * D - 2 * F);
  };
  near_rel(value_of(r, "b_crit_1"), crit(8192, 32768));
  near_rel(value_of(r, "b_crit_2"), crit(1024, 1024));
  near_rel(value_of(r, "b_crit_3"), crit(512, 512));
  EXPECT_NEAR(value_of(r, "b_crit_1"), 249.4, 0.05);
  EXPECT_NEAR(value_of(r, "b_crit_2"), 452.6, 0.05);
  EXPECT_NEAR(value_of(r, "b_crit_3"), 3903.4, 0.05);
  const json& p = r["plot"];
  ASSERT_EQ(p["curves"].size(), 3u);
  const json& bs = p["batch"];
  EXPECT_EQ(bs.front(), 1);
  EXPECT_EQ(bs.back(), 16384);
  // Each crossover is on the grid, where its curve reaches the peak.
  for (const auto& c : p["curves"]) {
    const auto at = std::find(bs.begin(), bs.end(), c["b_crit"]);
    ASSERT_NE(at, bs.end());
    near_rel(c["flops_per_s"][at - bs.begin()].get<double>(), 1.97e14, 1e-9);
  }
  // At B = 1, 8192x32768 is memory-bound: 2DF / ((2D + 2DF + 2F) / 8.2e11) FLOPs/s.
  near_rel(p["curves"][0]["flops_per_s"][0].get<double>(),
           2.0 * 8192 * 32768 / ((2.0 * 8192 + 2.0 * 8192 * 32768 + 2.0 * 32768) / 8.2e11));
  // 128x128 never turns compute-bound (2*128*128/240.24 - 512 < 0): no crossover, said in words.
  r = calc("roofline.batch", {{"shapes", "128x128"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_FALSE(r["values"].contains("b_crit_1"));
  EXPECT_FALSE(r["plot"]["curves"][0].contains("b_crit"));
  EXPECT_EQ(r["notes"][0],
            "128 x 128: never compute-bound. Reading X and writing Z alone take "
            "longer than the arithmetic, whatever the batch.");
  EXPECT_EQ(r.dump().find("null"), std::string::npos);
  // Bad input names its field.
  expect_error_value(calc("roofline.batch", {{"shapes", "8192"}}), "shapes");
  expect_error_value(calc("roofline.batch", {{"shapes", "0x4096"}}), "shapes");
  expect_error_value(calc("roofline.batch", {{"shapes", "8192x1e8"}}), "shapes");
  expect_error_value(calc("roofline.batch", {{"shapes", "1.5x8"}}), "shapes");
  expect_error_value(calc("roofline.batch", {{"shapes", "abcxdef"}}), "shapes");
  expect_error_value(calc("roofline.batch", {{"shapes", ""}}), "shapes");
  expect_error_value(calc("roofline.batch", {{"shapes", "1x1 2x2 3x3 4x4 5x5 6x6 7x7"}}), "shapes");
  expect_error_value(calc("roofline.batch", {{"b_max", 1}}), "b_max");
  expect_error_value(calc("roofline.batch", {{"chip", "v6e"}, {"memory", "vmem"}}), "memory");
}

TEST(RooflineCalc, Tiled) {
  // 8192^3 in 512^3 tiles (see RooflineModel.Tiled): 4096 tiles, 2^40 FLOPs, 4,429,185,024 B.
  json r = calc("roofline.tiled", json::object());
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(value_of(r, "tiles"), 4096);
  EXPECT_EQ(value_of(r, "flops"), 1099511627776.0);
  EXPECT_EQ(value_of(r, "bytes"), 4429185024.0);
  near_rel(value_of(r, "intensity"), 8192.0 / 33.0);
  EXPECT_EQ(value_of(r, "intensity_approx"), 256);
  // 248.24 > 240.24 (v5e ridge): the tiles are large enough.
  EXPECT_EQ(r["verdict"], "compute-bound: the tiles are large enough");
  // 128 x 128 output tiles: 128*128/256 = 64 < 240: memory-bound.
  r = calc("roofline.tiled", {{"bm", 128}, {"bn", 128}});
  EXPECT_EQ(value_of(r, "intensity_approx"), 64);
  EXPECT_NE(r["verdict"].get<std::string>().find("memory-bound"), std::string::npos);
  // m = 1000 with bm = 512: ceil(1000/512) = 2 tiles, padded, with a note.
  r = calc("roofline.tiled", {{"m", 1000}});
  EXPECT_EQ(value_of(r, "tiles"), 2 * 16 * 16);
  EXPECT_FALSE(r["notes"].empty());
  expect_error_value(calc("roofline.tiled", {{"bm", 16384}}), "bm");  // tile larger than m
  expect_error_value(calc("roofline.tiled", {{"bk", 0}}), "bk");
  expect_error_value(calc("roofline.tiled", {{"dtype", "fp3"}}), "dtype");
}

TEST(RooflineCalc, Dot) {
  // N = 1024 bf16: 2047 FLOPs, 4098 B, I = 0.4995, limit 0.5.
  json r = calc("roofline.dot", json::object());
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(value_of(r, "flops"), 2047);
  EXPECT_EQ(value_of(r, "bytes"), 4098);
  near_rel(value_of(r, "intensity"), 2047.0 / 4098.0);
  EXPECT_EQ(value_of(r, "intensity_limit"), 0.5);
  // v5e VPU: 6.144e12 FLOPs/s x 1 core / 8.2e11 = 7.49 FLOPs/B, still far above 0.5.
  near_rel(value_of(r, "i_crit_vpu"), 6.144e12 / 8.2e11);
  EXPECT_EQ(r["verdict"], "memory-bound (HBM)");
  expect_error_value(calc("roofline.dot", {{"N", 0}}), "N");
  expect_error_value(calc("roofline.dot", {{"N", 1e16}}), "N");
  expect_error_value(calc("roofline.dot", {{"dtype", "x"}}), "dtype");
}

// ---- problems -----------------------------------------------------------------------------------

TEST(RooflineProblems, EveryCatalogueItemIsRegistered) {
  for (const char* id : {"roofline.E1", "roofline.E2", "roofline.E3", "roofline.E4", "roofline.E5",
                         "roofline.E6", "roofline.E6b", "roofline.E7", "roofline.E8",
                         "roofline.Q1.a", "roofline.Q1.b", "roofline.Q1.c", "roofline.Q1.d",
                         "roofline.Q2", "roofline.Q3", "roofline.Q4", "roofline.Q5"}) {
    const sb::Problem& p = sb::Registry::get().problem(id);
    EXPECT_EQ(p.chapter, "roofline");
    EXPECT_FALSE(p.statement.empty()) << id;
    if (p.kind == "conceptual") {
      EXPECT_FALSE(p.model_answer.empty()) << id;
      EXPECT_TRUE(p.slots.empty()) << id;
    } else {
      EXPECT_FALSE(p.slots.empty()) << id;
    }
    // Every statement renders through the API with the defaults.
    const json r = sb::api::handle(json{{"op", "problem"}, {"id", id}});
    EXPECT_TRUE(r["ok"].get<bool>()) << id << r.dump();
  }
}

TEST(RooflineProblems, Examples) {
  // E1: 1e12 / 9.89e14 = 1.0111 ms; 1e12 / 9.1e14 = 1.0989 ms.
  auto a = solve("roofline.E1");
  near_rel(a["t_math_h100"], 1e12 / 9.89e14);
  near_rel(a["t_math_v6e"], 1e12 / 9.1e14);
  // E2: 1.97e14 / 8.2e11 = 240.24.
  near_rel(solve("roofline.E2")["i_crit"], 197000.0 / 820.0);
  // E3: limit 2/(2*2) = 0.5; at N = 1024, 2047/4098; 0.5 < VPU ridge 7e12/2.8e12 = 2.5: false.
  a = solve("roofline.E3");
  EXPECT_EQ(a["intensity_limit"], 0.5);
  near_rel(a["intensity_at_sample_n"], 2047.0 / 4098.0);
  EXPECT_EQ(a["compute_bound"], 0);
  // E4: bf16 weights, B_crit = I_hw: 1.97e14/8.2e11 = 240.24; 9.89e14/3.35e12 = 295.22.
  a = solve("roofline.E4");
  near_rel(a["b_crit_v5e"], 1.97e14 / 8.2e11);
  near_rel(a["b_crit_gpu"], 9.89e14 / 3.35e12);
  // E5: 512 * 4096 = 2,097,152 tokens; / 2048 = 1024.
  a = solve("roofline.E5");
  EXPECT_EQ(a["global_batch_tokens"], 2097152);
  EXPECT_EQ(a["local_batch_tokens"], 1024);
  // E6: 1.97e14 / 4.5e10 = 4377.78; D_crit = 2 * 4377.78 = 8755.56.
  a = solve("roofline.E6");
  near_rel(a["i_crit_link"], 197000.0 / 45.0);
  near_rel(a["d_crit"], 394000.0 / 45.0);
  // E7: see RooflineModel.Tiled: 2^40 FLOPs, 4,429,185,024 B, 8192/33 = 248.24, 256.
  a = solve("roofline.E7");
  EXPECT_EQ(a["flops"], 1099511627776.0);
  EXPECT_EQ(a["bytes"], 4429185024.0);
  near_rel(a["intensity_full"], 8192.0 / 33.0);
  EXPECT_EQ(a["intensity_approx"], 256);
  EXPECT_FALSE(sb::Registry::get().problem("roofline.E7").erratum.empty());
  // E8 has no answer slots; its trace shows (1 + 0.6) / 1 = 1.6 between 1 and 2.
  EXPECT_TRUE(solve("roofline.E8").empty());
}

TEST(RooflineProblems, Question1) {
  // Q1.a: int8, B=256, D=8192, F=32768: read 2,097,152 + 268,435,456 = 270,532,608; write
  // 256*32768 = 8,388,608.
  auto a = solve("roofline.Q1.a");
  EXPECT_EQ(a["bytes_read"], 270532608);
  EXPECT_EQ(a["bytes_written"], 8388608);
  // Q1.b: 2*256*8192*32768 = 2^1 * 2^8 * 2^13 * 2^15 = 2^37 = 137,438,953,472.
  EXPECT_EQ(solve("roofline.Q1.b")["ops"], 137438953472.0);
  // Q1.c: 3.94e14 / 8.2e11 = 480.49; B_crit = 1 * 480.49 / 2 = 240.24.
  a = solve("roofline.Q1.c");
  near_rel(a["i_hw_int8"], 394000.0 / 820.0);
  near_rel(a["b_crit"], 394000.0 / 820.0 / 2);
  // Q1.d: T_math = 2^37 / 3.94e14 = 0.34883 ms; T_comms = (270,532,608 + 8,388,608) / 8.2e11
  //   = 278,921,216 / 8.2e11 = 0.34015 ms; lower = the larger, T_math; upper = the sum.
  a = solve("roofline.Q1.d");
  near_rel(a["t_math"], 137438953472.0 / 3.94e14);
  near_rel(a["t_comms"], 278921216.0 / 8.2e11);
  near_rel(a["t_lower"], 137438953472.0 / 3.94e14);
  near_rel(a["t_upper"], 137438953472.0 / 3.94e14 + 278921216.0 / 8.2e11);
}

TEST(RooflineProblems, Questions2to5) {
  // Q2: int8 weights, B_crit = 1 * (1.97e14 / 8.2e11) / 2 = 120.12; int4 weights: 0.5 * 240.24
  // / 2 = 60.06.
  near_rel(solve("roofline.Q2")["b_crit"], 1.97e14 / 8.2e11 / 2);
  near_rel(solve("roofline.Q2", {{"dtype_w", "int4"}})["b_crit"], 1.97e14 / 8.2e11 / 4);
  // Q3 (held out): bf16 X and Z, int8 W, I_hw = 1.97e14 / 8.2e11 = 240.24.
  const double ih = 1.97e14 / 8.2e11;
  auto a = solve("roofline.Q3");
  // D = F = 4096: B = 4096^2 / (2*4096^2/240.24 - 4*4096) = 16,777,216 / (139,674.4 - 16,384)
  //   = 136.09. D = F = 1024: 1,048,576 / (8,729.4 - 4,096) = 226.31. Ratio 1.663.
  near_rel(a["b_crit_d4096"], 16777216.0 / (2 * 16777216.0 / ih - 4 * 4096));
  near_rel(a["b_crit_d1024"], 1048576.0 / (2 * 1048576.0 / ih - 4 * 1024));
  near_rel(a["b_crit_ratio_small_to_large"], a["b_crit_d1024"] / a["b_crit_d4096"]);
  // Below the crossover the achieved rate is I * BW with I = 2BDF / (4BD + D^2) (D = F):
  //   B=64, D=4096: 2,147,483,648 / 17,825,792 = 120.47 -> 9.879e13 FLOPs/s.
  //   B=64, D=1024: 134,217,728 / 1,310,720 = 102.4 -> 8.397e13.
  //   B=128, D=4096: 4,294,967,296 / 18,874,368 = 227.56 -> 1.866e14.
  //   B=128, D=1024: 268,435,456 / 1,572,864 = 170.67 -> 1.399e14.
  //   B=200, D=1024: 419,430,400 / 1,867,776 = 224.56 -> 1.841e14.
  near_rel(a["flops_per_s_b64_d4096"], 2147483648.0 / 17825792.0 * 8.2e11);
  near_rel(a["flops_per_s_b64_d1024"], 102.4 * 8.2e11);
  near_rel(a["flops_per_s_b128_d4096"], 4294967296.0 / 18874368.0 * 8.2e11);
  near_rel(a["flops_per_s_b128_d1024"], 268435456.0 / 1572864.0 * 8.2e11);
  near_rel(a["flops_per_s_b200_d1024"], 419430400.0 / 1867776.0 * 8.2e11);
  // Above it the peak: B=200, D=4096: I = 6,710,886,400 / 20,054,016 = 334.6 > 240.24; B=511,
  // D=1024: 1,071,644,672 / 3,141,632 = 341.1 > 240.24. Both run at 1.97e14.
  near_rel(a["flops_per_s_b200_d4096"], 1.97e14);
  near_rel(a["flops_per_s_b511_d1024"], 1.97e14);
  // Q4: per-example int8 weights: FLOPs 2^37; bytes 2,097,152 + 256*268,435,456 + 8,388,608 =
  //   2,097,152 + 68,719,476,736 + 8,388,608 = 68,729,962,496; I = 2^37 / that = 1.99969.
  a = solve("roofline.Q4");
  EXPECT_EQ(a["flops"], 137438953472.0);
  EXPECT_EQ(a["bytes"], 68729962496.0);
  near_rel(a["intensity"], 137438953472.0 / 68729962496.0);
  // Q5 (held out): dense peak 1.979e15 / 2 = 9.895e14; B_crit = 9.895e14 / 3.35e12 = 295.37.
  a = solve("roofline.Q5");
  near_rel(a["peak_dense"], 9.895e14);
  near_rel(a["b_crit"], 9.895e14 / 3.35e12);
}

TEST(RooflineProblems, FormulaSlots) {
  using V = std::map<std::string, double>;
  // E3 at N = 1: (2 - 1) / (4 + 2) = 1/6.
  near_rel(slot("roofline.E3", "intensity").formula(V{{"N", 1}}), 1.0 / 6.0);
  // E7 at bm = 256, bn = 1024: 262,144 / 1280 = 204.8.
  near_rel(slot("roofline.E7", "intensity_formula").formula(V{{"bm", 256}, {"bn", 1024}}), 204.8);
  // Q1.a at B=2, D=3, F=4: 6 + 12 + 8 = 26 bytes; Q1.b: 2*2*3*4 = 48.
  const V s{{"B", 2}, {"D", 3}, {"F", 4}};
  EXPECT_EQ(slot("roofline.Q1.a", "bytes_total").formula(s), 26);
  EXPECT_EQ(slot("roofline.Q1.b", "ops_formula").formula(s), 48);
  // Q1.d at B=2, D=3, F=4, P=24, W=26: max(48/24, 26/26) = max(2, 1) = 2.
  EXPECT_EQ(slot("roofline.Q1.d", "t_lower_formula")
                .formula(V{{"B", 2}, {"D", 3}, {"F", 4}, {"P", 24}, {"W", 26}}),
            2);
  // Q4 at B=2, D=3, F=4: 48 / (6 + 24 + 8) = 48/38.
  near_rel(slot("roofline.Q4", "intensity_formula").formula(s), 48.0 / 38.0);
}

TEST(RooflineProblems, GradingAndHints) {
  auto check = [](const std::string& id, json answers, json given = json::object()) {
    return sb::api::handle(
        json{{"op", "check"}, {"id", id}, {"answers", std::move(answers)}, {"given", given}});
  };
  // 240 is within 2% of 240.24.
  json r = check("roofline.E2", {{"i_crit", "240 FLOPs/B"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(r["results"][0]["verdict"], "correct");
  // Forgetting the multiply-add factor: BDF = 68,719,476,736 is half of 2BDF.
  r = check("roofline.Q1.b", {{"ops", "68719476736"}, {"ops_formula", "B*D*F"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  for (const auto& res : r["results"]) {
    EXPECT_EQ(res["verdict"], "wrong");
    EXPECT_NE(res["hint"].get<std::string>().find("multiply and one add"), std::string::npos)
        << res.dump();
  }
  r = check("roofline.Q1.b", {{"ops_formula", "2*B*D*F"}});
  EXPECT_EQ(r["results"][1]["verdict"], "correct");
  // Q2 answered with the all-bf16 240: off by 2, the weights hint.
  r = check("roofline.Q2", {{"b_crit", "240"}});
  EXPECT_EQ(r["results"][0]["verdict"], "wrong");
  EXPECT_NE(r["results"][0]["hint"].get<std::string>().find("1-byte weights"), std::string::npos);
  // A variant: the given override changes the expected value (int4: 60.06).
  r = check("roofline.Q2", {{"b_crit", "60"}}, {{"dtype_w", "int4"}});
  EXPECT_EQ(r["results"][0]["verdict"], "correct");
  // Q1.d's formula with both branches of the max.
  r = check("roofline.Q1.d", {{"t_lower_formula", "max(2*B*D*F/P, (B*D + D*F + B*F)/W)"}});
  EXPECT_EQ(r["results"][4]["verdict"], "correct") << r.dump();
  // "new variant" draws inputs for which every answer is finite.
  r = sb::api::handle(json{{"op", "variant"}, {"id", "roofline.Q3"}, {"seed", 3}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_FALSE(r["given"].empty());
}

TEST(RooflineProblems, BadGiven) {
  auto problem = [](const std::string& id, json given) {
    return sb::api::handle(json{{"op", "problem"}, {"id", id}, {"given", std::move(given)}});
  };
  expect_error_value(problem("roofline.Q1.b", {{"sample_d", 0}}), "sample_d");
  expect_error_value(problem("roofline.Q1.b", {{"sample_b_tokens", 2.5}}), "sample_b_tokens");
  expect_error_value(problem("roofline.E7", {{"sample_bm", 16384}}), "sample_bm");
  expect_error_value(problem("roofline.Q3", {{"b_min", 600}}), "b_min");
  expect_error_value(problem("roofline.Q2", {{"dtype_w", "int3"}}), "dtype_w");
  expect_error_value(problem("roofline.E2", {{"hbm_bw_Bps", -1}}), "hbm_bw_Bps");
  expect_error_value(problem("roofline.E2", {{"hbm_bw_Bps", "fast"}}), "hbm_bw_Bps");
  expect_error_value(problem("roofline.Q5", {{"sparsity_factor", 0}}), "sparsity_factor");
}

TEST(RooflineProblems, VariantsSolve) {
  // "New variant" on every roofline problem with variable inputs: the drawn inputs must give a
  // problem whose number slots are all finite (the variant op retries draws until they are).
  for (const auto& p : sb::Registry::get().problems()) {
    if (p.chapter != "roofline") continue;
    bool variable = false;
    for (const auto& g : p.given)
      variable = variable || !g.variants.empty() || !g.chip_spec.empty();
    if (!variable) continue;
    for (int seed = 1; seed <= 6; ++seed) {
      const json v = sb::api::handle(json{{"op", "variant"}, {"id", p.id}, {"seed", seed}});
      ASSERT_TRUE(v["ok"].get<bool>()) << p.id << v.dump();
      EXPECT_FALSE(v["given"].empty()) << p.id << " seed " << seed;
      const json r = sb::api::handle(json{{"op", "problem"}, {"id", p.id}, {"given", v["given"]}});
      ASSERT_TRUE(r["ok"].get<bool>()) << p.id << r.dump();
      for (const auto& s : p.slots) {
        if (s.kind == sb::Slot::Kind::Formula) continue;
        EXPECT_TRUE(r["answers"][s.name]["value"].is_number()) << p.id << " " << s.name;
      }
    }
  }
}

// ---- Derivations made from formula records -------------------------------------------------

namespace {

json roofline_tiled() { return calc("roofline.tiled"); }

}  // namespace

TEST(RooflineDerivation, RecordsRenderAsTheBookWrites) {
  // The matmul's bytes as the book writes them, and a fraction for the intensity.
  const json r = calc("roofline.matmul");
  EXPECT_EQ(step_with(r, "b_x * B * D + b_w * D * F + b_o * B * F")["formula"],
            "\\mathrm{bytes} = b_{x}\\,BD + b_{w}\\,DF + b_{o}\\,BF");
  EXPECT_EQ(step_with(r, "2 * B * D * F")["formula"], "\\mathrm{FLOPs} = 2BDF");
  EXPECT_EQ(step_with(roofline_tiled(), "2 * bm * bn / (b * (bm + bn))")["formula"],
            "I = \\frac{2\\,b_m\\,b_n}{b\\,\\left(b_m + b_n\\right)}");
}

TEST(RooflineDerivation, NetworkStepsCarryTheirValues) {
  // v5e, B = 512, D = 8192, F = 32768, bf16 partial sums (b_o = 2) over ICI at 4.5e10 B/s:
  // I = D / b_o = 4096; D_crit = b_o peak / BW = 2 * 1.97e14 / 4.5e10 = 8755.6.
  const json r = calc("roofline.network");
  const json i = step_with(r, "D / b_o");
  EXPECT_EQ(i["values"]["D"], 8192);
  EXPECT_EQ(i["values"]["b_o"], 2);
  EXPECT_EQ(i["value"], 4096);
  near_rel(step_with(r, "b_o * peak / BW")["value"].get<double>(), 2 * 1.97e14 / 4.5e10);
  // T_lower and T_upper are steps too: max and sum of 2*512*4096*32768 / 1.97e14 = 6.977e-4 s
  // and 2*512*32768 / 4.5e10 = 7.456e-4 s.
  near_rel(step_with(r, "max(T_math, T_comms)")["value"].get<double>(), 33554432.0 / 4.5e10);
  near_rel(step_with(r, "T_math + T_comms")["value"].get<double>(),
           512.0 * 8192 * 32768 / 1.97e14 + 33554432.0 / 4.5e10);
}

TEST(RooflineDerivation, TiledCountsAreStepsOfTheirOwn) {
  // 8192^3 in 512^3 tiles: 16 tiles along each axis, 16^3 = 4096 in all; FLOPs
  // 2 * 16^3 * 512^3 = 2^40 = 1.0995e12.
  const json r = roofline_tiled();
  EXPECT_EQ(step_with(r, "ceil(m / bm)")["value"], 16);
  EXPECT_EQ(step_with(r, "t_m * t_k * t_n")["value"], 4096);
  EXPECT_EQ(step_with(r, "2 * t_m * t_n * t_k * bm * bn * bk")["value"], 1099511627776.0);
}

TEST(RooflineDerivation, SumsAndVerdictsInTheProblems) {
  // Q1.a: read 270,532,608 B plus written 8,388,608 B: 278,921,216 B, a sum of the two steps.
  const json q1a = problem("roofline.Q1.a");
  const json total = step_with(q1a, "bytes_read + bytes_written");
  EXPECT_EQ(total["value"], 278921216);
  EXPECT_EQ(total["values"]["bytes_written"], 8388608);
  // Q1.d: T_math = 2^37 / 3.94e14 = 3.488e-4 s, T_comms = 278921216 / 8.2e11 = 3.401e-4 s:
  // compute-bound, the shorter 97.5% of the longer, which the note calls close.
  const json q1d = problem("roofline.Q1.d");
  bool close = false;
  for (const json& st : q1d["trace"])
    close = close || st.value("what", "").find("98% of the longer, so the two are close") !=
                         std::string::npos;
  EXPECT_TRUE(close) << q1d["trace"].dump();
  // At B = 1024 the compute time is 4x as long: the note no longer says close.
  const json far = problem("roofline.Q1.d", {{"sample_b_tokens", 1024}});
  for (const json& st : far["trace"])
    EXPECT_EQ(st.value("what", "").find("close"), std::string::npos) << st.dump();
}
