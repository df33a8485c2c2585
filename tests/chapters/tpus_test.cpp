// The TPU chapter: values derived by hand (arithmetic in the comments), the wraparound rules of
// each generation, hop counts and routes, transfer stages, bad input naming its field, and the
// calculators and problems through the JSON entry point.
#include <gtest/gtest.h>

#include <string>

#include "chapters/tpus/model.hpp"
#include "core/api.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "tests/support/chips.hpp"
#include "tests/support/support.hpp"

using namespace sb;
using namespace sb::tpus;
using sb::test::calc;
using sb::test::expect_error_value;
using sb::test::field_of;
using sb::test::near_rel;
using sb::test::problem;
using sb::test::step_with;
using sb::test::value_of;

namespace {

Torus on(const std::string& chip, const std::string& shape, const std::string& wrap = "auto") {
  return slice_torus(hw::chip(chip), parse_shape(shape, "shape"), wrap);
}

}  // namespace

// ---------------------------------------------------------------- shapes ----------

TEST(TpusShape, ParsesTheUsualSpellings) {
  EXPECT_EQ(parse_shape("4x4x4", "shape"), (Dims{4, 4, 4}));
  EXPECT_EQ(parse_shape("16 x 16", "shape"), (Dims{16, 16}));
  EXPECT_EQ(parse_shape(" 2X2X1 ", "shape"), (Dims{2, 2, 1}));
  EXPECT_EQ(parse_shape("8", "shape"), (Dims{8}));
  EXPECT_EQ(shape_text({16, 20, 28}), "16x20x28");
}

TEST(TpusShape, BadShapesNameTheField) {
  for (const char* bad :
       {"", "4x", "x4", "4xa", "4.5x4", "0x4", "-2x4", "2x2x2x2", "4x4 x", "1e3x2"})
    EXPECT_EQ(field_of([&] { parse_shape(bad, "shape"); }), "shape") << bad;
  // Too many axes for the chip's torus: v5e is 2D.
  EXPECT_EQ(field_of([] { on("v5e", "4x4x4"); }), "shape");
  // Larger than the pod: v5e's pod is 16x16, so 32x16 (512 chips) cannot exist.
  EXPECT_EQ(field_of([] { on("v5e", "32x16"); }), "shape");
  // v5p's pod is 16x20x28 = 8960 chips; 32x32x32 = 32768 chips is too many.
  EXPECT_EQ(field_of([] { on("v5p", "32x32x32"); }), "shape");
  EXPECT_EQ(field_of([] { hw::chip("v99", "chip"); }), "chip");
  EXPECT_EQ(field_of([] { on("v5e", "4x4", "sometimes"); }), "wrap");
}

// ---------------------------------------------------------------- wraparound ----------

TEST(TpusWrap, CubeRuleOnV4V5pAndTpu7x) {
  // Whole 4x4x4 cubes wrap on every axis.
  EXPECT_EQ(on("v5p", "4x4x4").wrap, (std::vector<bool>{true, true, true}));
  EXPECT_EQ(on("v5p", "4x4x8").wrap, (std::vector<bool>{true, true, true}));
  EXPECT_EQ(on("v4p", "16x16x16").wrap, (std::vector<bool>{true, true, true}));
  // 2x2x4 has an axis of 4 but is not made of whole cubes: no wrap anywhere.
  EXPECT_EQ(on("v5p", "2x2x4").wrap, (std::vector<bool>{false, false, false}));
  EXPECT_EQ(on("v5p", "2x2x1").wrap, (std::vector<bool>{false, false, false}));
  EXPECT_EQ(on("v4p", "4x4x2").wrap, (std::vector<bool>{false, false, false}));
  // "16x16" on a 3D chip is 16x16x1: not whole cubes, so no wrap.
  EXPECT_EQ(on("v5p", "16x16").wrap, (std::vector<bool>{false, false}));
  // TPU7x: the cube rule is our assumption, flagged as inferred.
  EXPECT_EQ(on("tpu7x", "4x4x8").wrap, (std::vector<bool>{true, true, true}));
  EXPECT_TRUE(topology_of(hw::chip("tpu7x")).inferred);
  EXPECT_FALSE(topology_of(hw::chip("v5p")).inferred);
}

TEST(TpusWrap, FullSideRuleOnV5eV6eAndV3) {
  // v5e/v6e: an axis wraps iff it is 16 long (the pod side).
  EXPECT_EQ(on("v5e", "8x16").wrap, (std::vector<bool>{false, true}));
  EXPECT_EQ(on("v5e", "16x16").wrap, (std::vector<bool>{true, true}));
  EXPECT_EQ(on("v6e", "4x4").wrap, (std::vector<bool>{false, false}));
  // v3: one fixed 32x32 torus, so only a full side of 32 wraps.
  EXPECT_EQ(on("v3", "32x32").wrap, (std::vector<bool>{true, true}));
  EXPECT_EQ(on("v3", "16x32").wrap, (std::vector<bool>{false, true}));
  // Forced by hand.
  EXPECT_EQ(on("v5e", "16x16", "none").wrap, (std::vector<bool>{false, false}));
  EXPECT_EQ(on("v5e", "4x4", "all").wrap, (std::vector<bool>{true, true}));
}

// The rule is a field of data/chips.json, and the sharding chapter asks wraps() for it.
TEST(TpusWrap, RuleComesFromTheTables) {
  // v5p: wrap_if_all_axes_multiple_of = 4, from the book; TPU7x: the same, our assumption.
  const WrapRule v5p = wrap_rule(hw::chip("v5p"));
  EXPECT_EQ(v5p.kind, WrapRule::Kind::AllMultiple);
  EXPECT_EQ(v5p.n, 4);
  EXPECT_FALSE(v5p.assumed);
  EXPECT_TRUE(wrap_rule(hw::chip("tpu7x")).assumed);
  EXPECT_NE(wrap_rule(hw::chip("tpu7x")).text.find("our assumption"), std::string::npos);
  // v5e: wrap_if_axis_length = 16.
  const WrapRule v5e = wrap_rule(hw::chip("v5e"));
  EXPECT_EQ(v5e.kind, WrapRule::Kind::AxisLength);
  EXPECT_EQ(v5e.n, 16);
  // A mesh of more axes than the torus has (no pod check here): 4 axes of 4 on v5p are whole
  // cubes; a GPU has no rule, so nothing wraps.
  EXPECT_EQ(wraps(hw::chip("v5p"), {4, 4, 4, 4}), std::vector<bool>(4, true));
  EXPECT_EQ(wrap_rule(hw::chip("h100")).kind, WrapRule::Kind::None);
  EXPECT_EQ(wraps(hw::chip("h100"), {16, 16}), std::vector<bool>(2, false));
}

// The planner's search asks fits_in_pod of every shape instead of catching slice_torus's error:
// both must draw the line in the same place.
TEST(TpusWrap, FitsInPodIsSliceTorusWithoutTheError) {
  const Topology v5p = topology_of(hw::chip("v5p"));  // 3D, 16x20x28 = 8960 chips, cube-built
  const Topology v5e = topology_of(hw::chip("v5e"));  // 2D, one fixed 16x16 torus
  // v5p: 28x20x16 is the pod itself; 4x4x560 = 8960 chips but its longest axis 560 > 28; 32x16x16
  // = 8192 chips, under the pod's 8960, yet 32 > 28; 24x24x14 = 8064 chips: cube-built pods bound
  // only the count and the longest axis (24 <= 28), so it fits though 24 > 20 on the second axis;
  // four axes do not fit a 3D torus.
  EXPECT_TRUE(fits_in_pod(v5p, {28, 20, 16}));
  EXPECT_FALSE(fits_in_pod(v5p, {4, 4, 560}));
  EXPECT_FALSE(fits_in_pod(v5p, {32, 16, 16}));
  EXPECT_TRUE(fits_in_pod(v5p, {24, 24, 14}));
  EXPECT_FALSE(fits_in_pod(v5p, {4, 4, 4, 4}));
  // v5e, a fixed torus, axis by axis: 16x16 and 8x16 fit; 32x8 = 256 chips, the pod's count, but
  // 32 > 16; three axes do not fit a 2D torus.
  EXPECT_TRUE(fits_in_pod(v5e, {16, 16}));
  EXPECT_TRUE(fits_in_pod(v5e, {8, 16}));
  EXPECT_FALSE(fits_in_pod(v5e, {32, 8}));
  EXPECT_FALSE(fits_in_pod(v5e, {4, 4, 4}));
  for (const auto& [chip, dims] : {std::pair<const char*, Dims>{"v5p", {24, 24, 14}},
                                   {"v5p", {32, 16, 16}},
                                   {"v5e", {32, 8}},
                                   {"v5e", {8, 16}}}) {
    bool taken = true;
    try {
      slice_torus(hw::chip(chip), dims);
    } catch (const InputError& e) {
      taken = false;
      EXPECT_EQ(e.field, "shape");
    }
    EXPECT_EQ(taken, fits_in_pod(topology_of(hw::chip(chip)), dims)) << chip;
  }
  // With the rule in hand, the wraparound is the chip's: 8x8x8 on v5p wraps everywhere (whole
  // cubes of 4), 16x8 on v5e on its 16 axis only.
  EXPECT_EQ(wraps(v5p.rule, 3, {8, 8, 8}), wraps(hw::chip("v5p"), {8, 8, 8}));
  EXPECT_EQ(wraps(v5e.rule, 2, {16, 8}), (std::vector<bool>{true, false}));
}

TEST(TpusWrap, HopLatencyFromTheTables) {
  // v5e's table gives 1 us; v5p's gives none, so the book's typical 1 us stands in.
  EXPECT_EQ(hop_latency(hw::chip("v5e")), hw::chip("v5e").get("ici_hop_latency"));
  EXPECT_FALSE(hw::chip("v5p").has("ici_hop_latency"));
  EXPECT_EQ(hop_latency(hw::chip("v5p")), kTypicalHopLatency);
}

// ---------------------------------------------------------------- hops and routes ----------

TEST(TpusHops, DistancesFromTheNotes) {
  Torus pod = on("v5e", "16x16"), small = on("v5e", "4x4");
  // Ring of 16: min(15, 16 - 15) = 1 per axis, 1 + 1 = 2.
  EXPECT_EQ(hops(pod, {0, 0}, {15, 15}), 2);
  // min(8, 8) = 8 per axis: 16, the worst case.
  EXPECT_EQ(hops(pod, {0, 0}, {8, 8}), 16);
  // No wrap on 4x4: |1-0| + |2-0| = 3 and |3| + |3| = 6.
  EXPECT_EQ(hops(small, {0, 0}, {1, 2}), 3);
  EXPECT_EQ(hops(small, {0, 0}, {3, 3}), 6);
  EXPECT_EQ(hops_per_axis(on("v5e", "8x16"), {0, 0}, {7, 15}), (std::vector<int>{7, 1}));
}

TEST(TpusHops, MaxDistance) {
  // Rings: floor(16/2) + floor(16/2) = 16; lines: 3 + 3 = 6.
  EXPECT_EQ(max_distance(on("v5e", "16x16")), 16);
  EXPECT_EQ(max_distance(on("v5e", "4x4")), 6);
  // 4x4x4 wrapped: 2 + 2 + 2 = 6; 2x2x4 unwrapped: 1 + 1 + 3 = 5.
  EXPECT_EQ(max_distance(on("v5p", "4x4x4")), 6);
  EXPECT_EQ(max_distance(on("v5p", "2x2x4")), 5);
}

TEST(TpusHops, RoutesGoTheShortWayRound) {
  // Axis 0 first: 0 -> 15 wraps backwards in one hop, then axis 1 likewise.
  EXPECT_EQ(route(on("v5e", "16x16"), {0, 0}, {15, 15}),
            (std::vector<Dims>{{0, 0}, {15, 0}, {15, 15}}));
  EXPECT_EQ(route(on("v5e", "4x4"), {0, 0}, {1, 2}),
            (std::vector<Dims>{{0, 0}, {1, 0}, {1, 1}, {1, 2}}));
  // 3D, no wrap on 2x2x4: (1,1,3) -> (0,0,0) is 1 + 1 + 3 = 5 hops, 6 chips on the path.
  auto p = route(on("v5p", "2x2x4"), {1, 1, 3}, {0, 0, 0});
  EXPECT_EQ(p.size(), 6u);
  EXPECT_EQ(p.back(), (Dims{0, 0, 0}));
  EXPECT_EQ(route(on("v5e", "4x4"), {2, 2}, {2, 2}), (std::vector<Dims>{{2, 2}}));
}

TEST(TpusHops, NeighboursAndPorts) {
  // A corner of an unwrapped 4x4 has 2 neighbours; on the wrapped pod it has 4.
  EXPECT_EQ(neighbours(on("v5e", "4x4"), {0, 0}).size(), 2u);
  EXPECT_EQ(neighbours(on("v5e", "16x16"), {0, 0}).size(), 4u);
  // 3D torus: 6 links.
  EXPECT_EQ(neighbours(on("v5p", "4x4x4"), {0, 0, 0}).size(), 6u);
  // 2x2x1 on v5p: one neighbour along each of the two axes of length 2.
  EXPECT_EQ(neighbours(on("v5p", "2x2x1"), {0, 0, 0}).size(), 2u);
  // Both coordinates differ -> 2 ports; only one differs -> 1.
  EXPECT_EQ(ports_toward(on("v5e", "4x4"), {0, 0}, {3, 3}), 2);
  EXPECT_EQ(ports_toward(on("v5e", "4x4"), {0, 0}, {0, 3}), 1);
}

TEST(TpusHops, Coordinates) {
  Torus t = on("v5e", "4x4");
  EXPECT_EQ(parse_coord("(3, 3)", t, "to"), (Dims{3, 3}));
  EXPECT_EQ(parse_coord("TPU{0,0}", t, "to"), (Dims{0, 0}));
  EXPECT_EQ(parse_coord("1,2", t, "to"), (Dims{1, 2}));
  EXPECT_EQ(field_of([&] { parse_coord("0,0,0", t, "to"); }), "to");  // 3 numbers on a 2D slice
  EXPECT_EQ(field_of([&] { parse_coord("4,0", t, "to"); }), "to");    // axis runs 0..3
  EXPECT_EQ(field_of([&] { parse_coord("-1,0", t, "from"); }), "from");
  EXPECT_EQ(field_of([&] { parse_coord("a,0", t, "from"); }), "from");
  EXPECT_EQ(field_of([&] { parse_coord("(0,0", t, "from"); }), "from");
}

TEST(TpusHops, Bisection) {
  // 16x16 rings: cut across either axis, 256/16 = 16 chips per plane x 2 (wrap) = 32 links;
  // 32 x 4.5e10 = 1.44e12 B/s one way.
  EXPECT_DOUBLE_EQ(bisection_links(on("v5e", "16x16")), 32);
  EXPECT_DOUBLE_EQ(bisection_bw(on("v5e", "16x16"), 4.5e10), 1.44e12);
  // 8x16: axis 0 (line) 128/8 = 16 links; axis 1 (ring) 128/16 x 2 = 16 links: min 16.
  EXPECT_DOUBLE_EQ(bisection_links(on("v5e", "8x16")), 16);
  // 4x4 lines: 16/4 = 4 links. 4x4x4 rings: 64/4 x 2 = 32.
  EXPECT_DOUBLE_EQ(bisection_links(on("v5e", "4x4")), 4);
  EXPECT_DOUBLE_EQ(bisection_links(on("v5p", "4x4x4")), 32);
  // One chip cannot be halved.
  EXPECT_DOUBLE_EQ(bisection_links(on("v5e", "1x1")), 0);
}

// ---------------------------------------------------------------- counting ----------

TEST(TpusInventory, FullPods) {
  Inventory e = inventory(hw::chip("v5e"), {16, 16});
  EXPECT_DOUBLE_EQ(e.chips, 256);                   // 16 x 16
  EXPECT_DOUBLE_EQ(e.hosts, 32);                    // 256 / 8
  EXPECT_DOUBLE_EQ(e.cores, 256);                   // 256 x 1
  EXPECT_DOUBLE_EQ(e.flops.at("bf16"), 5.0432e16);  // 256 x 1.97e14
  EXPECT_DOUBLE_EQ(e.hbm_bytes, 4.096e12);          // 256 x 16e9
  Inventory p = inventory(hw::chip("v5p"), {16, 20, 28});
  EXPECT_DOUBLE_EQ(p.chips, 8960);   // 16 x 20 x 28
  EXPECT_DOUBLE_EQ(p.hosts, 2240);   // 8960 / 4
  EXPECT_DOUBLE_EQ(p.cores, 17920);  // 8960 x 2
  EXPECT_TRUE(p.megacore);
  EXPECT_NEAR(p.flops.at("bf16"), 4.11264e18, 1e6);  // 8960 x 4.59e14
  // A 2x2 v5e fills half a host: ceil(4/8) = 1.
  EXPECT_DOUBLE_EQ(inventory(hw::chip("v5e"), {2, 2}).hosts, 1);
  EXPECT_EQ(field_of([] { inventory(hw::chip("h100"), {2, 2}); }), "chip");
}

TEST(TpusInventory, DecodeFloor) {
  // 2e11 params x 2 B / 32 chips = 1.25e10 B per chip; / 1.2e12 B/s = 10.4167 ms.
  EXPECT_NEAR(decode_step_floor(2e11, 2, 32, 1.2e12), 1.25e10 / 1.2e12, 1e-15);
  EXPECT_NEAR(decode_step_floor(2e11, 2, 32, 1.2e12), 0.0104167, 1e-6);
}

// ---------------------------------------------------------------- MXU / VPU ----------

TEST(TpusMxu, Throughput) {
  // 2 x 8 x 128^2 / 8 = 32768 FLOPs/cycle; x 1.5e9 = 4.9152e13 per MXU.
  EXPECT_DOUBLE_EQ(mxu_flops_per_cycle(128), 32768);
  EXPECT_DOUBLE_EQ(mxu_flops_per_s(128, 1.5e9), 4.9152e13);
  // v5e: 1 core x 4 MXUs x 4.9152e13 = 1.96608e14.
  EXPECT_DOUBLE_EQ(chip_mxu_flops_per_s(1, 4, 128, 1.5e9), 1.96608e14);
  // 256 vs 128: (256/128)^2 = 4x per cycle; 2 x 256^2 = 131072.
  EXPECT_DOUBLE_EQ(mxu_flops_per_cycle(256) / mxu_flops_per_cycle(128), 4);
  EXPECT_DOUBLE_EQ(mxu_flops_per_cycle(256), 131072);
  EXPECT_DOUBLE_EQ(mxu_cells(128), 16384);
}

TEST(TpusMxu, Padding) {
  // 200 -> 256, 4096 stays, 1000 -> 1024: 200*4096*1000 / (256*4096*1024) = 200000/262144.
  EXPECT_DOUBLE_EQ(padded_dim(200, 128), 256);
  EXPECT_DOUBLE_EQ(padded_dim(4096, 128), 4096);
  EXPECT_DOUBLE_EQ(mxu_utilisation({200, 4096, 1000}, 128), 200000.0 / 262144.0);
  // On a 256 MXU, 128-wide operands are a quarter used in 2D: 128*128 / (256*256) = 0.25.
  EXPECT_DOUBLE_EQ(mxu_utilisation({128, 128}, 256), 0.25);
}

TEST(TpusMxu, VpuAndRegisters) {
  // 8 x 128 x 4 = 4096 ALUs; x 1.75e9 = 7.168e12 FLOPs/s per v5p core.
  EXPECT_DOUBLE_EQ(vpu_alus_per_core(8, 128, 4), 4096);
  EXPECT_DOUBLE_EQ(vpu_flops_per_s_core(4096, 1.75e9), 7.168e12);
  // 64 x 8 x 128 x 4 B = 262144 B.
  EXPECT_DOUBLE_EQ(vreg_bytes_per_core(64), 262144);
  // log2(8) = 3 rotate-and-add rounds.
  EXPECT_EQ(sublane_reduction_steps(8), 3);
  EXPECT_EQ(field_of([] { sublane_reduction_steps(6); }), "sublanes");
  // 22 x 8.2e11 = 1.804e13.
  EXPECT_DOUBLE_EQ(vmem_bw(8.2e11), 1.804e13);
}

// The chapter's roofline questions, on the roofline chapter's equations (its base).
TEST(TpusRoofline, CriticalBatches) {
  namespace rl = sb::roofline;
  // Q4: I = 3.94e14/8.2e11 = 480.49; 2DF/I = 2*67108864/480.49 = 279335.6; - 20480 = 258855.6;
  // 67108864 / 258855.6 = 259.25.
  double I = rl::critical_intensity(3.94e14, 8.2e11);
  EXPECT_NEAR(rl::critical_batch_exact(4096, 16384, {1, 1, 1}, I).value(), 259.25, 0.01);
  // Q3: weights only, 2 x (9.2e14 / 1.6e10) / 2 = 57500; D_min = 57500 (2 + 2*4) / 8 = 71875.
  EXPECT_DOUBLE_EQ(rl::critical_batch_approx(2, rl::critical_intensity(9.2e14, 1.6e10)), 57500);
  EXPECT_DOUBLE_EQ(d_min_compute_bound(57500, 2, 2, 4), 71875);
  // Never compute-bound: D = F = 1000 bf16 over PCIe: 2e6/57500 = 34.8 < 2000 + 2000.
  EXPECT_FALSE(rl::critical_batch_exact(1000, 1000, {2, 2, 2}, 57500).has_value());
  // T at B=1 memory-bound: (67108864 + 20480)/8.2e11 = 8.1865e-5 s.
  EXPECT_NEAR(rl::matmul_t_lower({1, 4096, 16384}, {1, 1, 1}, 3.94e14, 8.2e11), 67129344 / 8.2e11,
              1e-15);
}

// ---------------------------------------------------------------- transfers ----------

TEST(TpusTransfer, PointToPoint) {
  // Q5: 2^24 B over 2 links of 4.5e10: 16777216 / 9e10 = 1.86414e-4 s; + 6 hops x 1 us.
  EXPECT_DOUBLE_EQ(ici_first_byte(6, 1e-6), 6e-6);
  EXPECT_DOUBLE_EQ(ici_bulk(16777216, 2, 4.5e10), 16777216 / 9e10);
  EXPECT_DOUBLE_EQ(ici_p2p_time(16777216, 2, 4.5e10, 6, 1e-6), 16777216 / 9e10 + 6e-6);
  // A ring pushes both ways: 2 x 4.5e10 = 9e10; a line 4.5e10.
  EXPECT_DOUBLE_EQ(axis_bw(4.5e10, true), 9e10);
  EXPECT_DOUBLE_EQ(axis_bw(4.5e10, false), 4.5e10);
}

TEST(TpusTransfer, PipelineOfQuestion6) {
  const double A = 17179869184.0;  // 2^34 B
  // PCIe: 2^34/16 = 2^30 B at 1.6e10 -> 67.108864 ms.
  EXPECT_DOUBLE_EQ(pcie_sharded_time(A, 16, 1.6e10), 1073741824 / 1.6e10);
  // ICI: 15/16 of 2^34 = 16106127360 B into 2 links of 4.5e10 -> 0.178957 s.
  EXPECT_DOUBLE_EQ(gather_time(A * 15 / 16, 2, 4.5e10), 16106127360.0 / 9e10);
  // v5e host DCN: 8 x 3.125e9 = 2.5e10.
  EXPECT_DOUBLE_EQ(host_dcn_bw(8, 3.125e9), 2.5e10);
  Pipeline p = pipeline({make_stage("PCIe", "pcie", A / 16, 1.6e10),
                         make_stage("ICI", "ici", A * 15 / 16, 9e10),
                         make_stage("HBM", "hbm", A + 2097152, 8.2e11),
                         make_stage("compute", "compute", 2.0 * 8 * 131072 * 131072, 1.97e14)});
  // Stages: 0.067109 + 0.178957 + 0.020954 (17182 MB / 8.2e11) + 0.001395 (2.749e11 / 1.97e14).
  EXPECT_EQ(p.bottleneck, 1);
  EXPECT_DOUBLE_EQ(p.t_lower, 16106127360.0 / 9e10);
  EXPECT_NEAR(p.t_upper, 0.067109 + 0.178957 + 0.020954 + 0.001395, 2e-6);
  // Latency adds to a stage: 1e9 B / 1e10 B/s + 5 us.
  EXPECT_DOUBLE_EQ(make_stage("x", "ici", 1e9, 1e10, 5e-6).seconds, 0.1 + 5e-6);
}

TEST(TpusArrays, Parse) {
  // 8 x 128 x 8192 = 2^23 elements x 2 B = 2^24 B.
  EXPECT_DOUBLE_EQ(parse_array("bf16[8, 128, 8192]", "array").bytes, 16777216);
  // (128*1024)^2 x 1 B = 2^34 B.
  EXPECT_DOUBLE_EQ(parse_array("int8[128*1024, 128*1024]", "a").bytes, 17179869184.0);
  EXPECT_EQ(field_of([] { parse_array("bf17[8]", "array"); }), "array");
  EXPECT_EQ(field_of([] { parse_array("bf16[B, 8]", "array"); }), "array");
  EXPECT_EQ(field_of([] { parse_array("bf16 8", "array"); }), "array");
}

// ---------------------------------------------------------------- through the JSON API ----------

TEST(TpusApi, InventoryDrawsWrap) {
  json r = calc("tpus.inventory", {{"chip", "v5p"}, {"shape", "4x4x4"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(r["torus"]["wrap"], json({true, true, true}));
  EXPECT_DOUBLE_EQ(r["values"]["chips"]["value"].get<double>(), 64);  // 4^3
  EXPECT_DOUBLE_EQ(r["values"]["hosts"]["value"].get<double>(), 16);  // 64 / 4
  r = calc("tpus.inventory", {{"chip", "TPU v5p"}, {"shape", "2x2x4"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(r["torus"]["wrap"], json({false, false, false}));
  EXPECT_FALSE(r["trace"].empty());
}

TEST(TpusApi, TopologyPath) {
  json r = calc("tpus.topology",
                {{"chip", "v5e"}, {"shape", "16x16"}, {"from", "0,0"}, {"to", "15,15"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_DOUBLE_EQ(r["values"]["hops"]["value"].get<double>(), 2);  // 1 + 1 round the rings
  EXPECT_EQ(r["path"], json({{0, 0}, {15, 0}, {15, 15}}));
  EXPECT_EQ(r["torus"]["dims"], json({16, 16}));
  EXPECT_EQ(r["hops_per_axis"], json({1, 1}));
}

TEST(TpusApi, TopologyDefaultsAreTheCornersOfAnyShape) {
  // No from/to: corner to opposite corner, whatever the rank. v5p 2x2x4 does not wrap (not every
  // axis is a multiple of 4): 1 + 1 + 3 = 5 hops.
  json r = calc("tpus.topology", {{"chip", "v5p"}, {"shape", "2x2x4"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(r["torus"]["from"], json({0, 0, 0}));
  EXPECT_EQ(r["torus"]["to"], json({1, 1, 3}));
  EXPECT_DOUBLE_EQ(r["values"]["hops"]["value"].get<double>(), 5);
  // v5p 4x4x4 wraps every axis: (0,0,0) to (3,3,3) is one hop back round each ring, 3 in all.
  r = calc("tpus.topology", {{"chip", "v5p"}, {"shape", "4x4x4"}});
  EXPECT_DOUBLE_EQ(r["values"]["hops"]["value"].get<double>(), 3);
  // Only one end given: the other is still a corner. v5e 4x4 has no wraparound: |1-3| + |2-3| = 3.
  r = calc("tpus.topology", {{"chip", "v5e"}, {"shape", "4x4"}, {"from", "1,2"}});
  EXPECT_DOUBLE_EQ(r["values"]["hops"]["value"].get<double>(), 3);
}

TEST(TpusApi, TransferNamesBottleneck) {
  // Q6 route 1 through the calculator: ICI gather is the slowest stage (0.179 s).
  json r = calc("tpus.transfer", {{"chip", "v5e"},
                                  {"route", "host_gather_ici"},
                                  {"bytes", 17179869184.0},
                                  {"shape", "4x4"},
                                  {"to", "0,0"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(r["bottleneck"]["kind"], "ici");
  // 16106127360 / 9e10 + 6 hops x 1 us (path latency of the far corner).
  EXPECT_NEAR(r["values"]["t_lower"]["value"].get<double>(), 16106127360.0 / 9e10 + 6e-6, 1e-12);
  // Route 2: DCN then a single PCIe link: 2^34 / 1.6e10 = 1.0737 s is the bottleneck.
  r = calc("tpus.transfer", {{"chip", "v5e"},
                             {"route", "host_gather_dcn"},
                             {"bytes", 17179869184.0},
                             {"shape", "4x4"},
                             {"to", "0,0"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(r["bottleneck"]["kind"], "pcie");
  EXPECT_NEAR(r["values"]["t_lower"]["value"].get<double>(), 17179869184.0 / 1.6e10, 1e-9);
  // Plain HBM: 8.2e11 B at 8.2e11 B/s = 1 s.
  r = calc("tpus.transfer", {{"chip", "v5e"}, {"route", "hbm"}, {"bytes", "820 GB"}});
  EXPECT_NEAR(r["values"]["t_lower"]["value"].get<double>(), 1.0, 1e-12);
}

TEST(TpusApi, BadInputsNameTheField) {
  auto field = [](const json& r) { return r["error"]["field"].get<std::string>(); };
  EXPECT_EQ(field(calc("tpus.inventory", {{"chip", "v5e"}, {"shape", "0x4"}})), "shape");
  EXPECT_EQ(field(calc("tpus.inventory", {{"chip", "v5e"}, {"shape", "4x4x4x4"}})), "shape");
  EXPECT_EQ(field(calc("tpus.inventory", {{"chip", "v5e"}, {"shape", "64x64"}})), "shape");
  EXPECT_EQ(field(calc("tpus.inventory", {{"chip", "nope"}, {"shape", "4x4"}})), "chip");
  EXPECT_EQ(field(calc("tpus.topology",
                       {{"chip", "v5e"}, {"shape", "4x4"}, {"from", "0,0"}, {"to", "9,9"}})),
            "to");
  EXPECT_EQ(field(calc("tpus.transfer", {{"route", "carrier pigeon"}})), "route");
  EXPECT_EQ(field(calc("tpus.transfer", {{"bytes", -5}})), "bytes");
  EXPECT_EQ(field(calc("tpus.mxu", {{"chip", "v5e"}, {"M", 0}})), "M");
  // A clock is 0 (the chip's) or at least 1 MHz: below it the times run to infinity.
  json r = calc("tpus.mxu", {{"chip", "v5e"}, {"clock_hz", 0.5}});
  EXPECT_EQ(field(r), "clock_hz");
  EXPECT_EQ(r["error"]["code"], "out_of_range");
  EXPECT_EQ(field(calc("tpus.mxu", {{"chip", "v5e"}, {"clock_hz", 5e-324}})), "clock_hz");
  // At 1 MHz, v5e (4 MXUs of 128): 4 * 2 * 128^2 * 1e6 = 1.31072e11 FLOPs/s.
  r = calc("tpus.mxu", {{"chip", "v5e"}, {"clock_hz", 1e6}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(r["values"]["chip_mxu_flops_per_s"]["value"], 1.31072e11);
}

// Every TPU opens each calculator at its defaults with a result, or (a TPU that states figures
// unknown, v2) an error on the chip naming the figure; a GPU, which has no ICI torus and no MXU,
// gets an error on the chip that says so in words.
TEST(TpusApi, EveryChipOpensAtTheDefaults) {
  for (const auto& c : hw::chips()) {
    const bool partial = c.unknown("hbm_bw") || c.unknown("max_pod");
    for (const char* name :
         {"tpus.inventory", "tpus.topology", "tpus.transfer", "tpus.mxu", "tpus.decode"}) {
      json r = calc(name, {{"chip", c.id}});
      if (partial) {
        sb::test::ok_or_not_known(r, c.name);
        continue;
      }
      if (c.kind == "tpu" || std::string(name) == "tpus.decode") {
        EXPECT_TRUE(r["ok"].get<bool>()) << name << " " << c.id << ": " << r.dump();
        continue;
      }
      expect_error_value(r, "chip");
      EXPECT_NE(r["error"]["message"].get<std::string>().find("The " + c.name + " is a GPU"),
                std::string::npos)
          << r.dump();
    }
  }
}

TEST(TpusApi, InventoryShapeFollowsTheChip) {
  // No shape: a 4x4 on the 2D v5e (16 chips on 16 / 8 = 2 hosts), a 4x4x4 cube on the 3D v5p
  // (64 chips on 64 / 4 = 16 hosts, every axis a ring).
  json r = calc("tpus.inventory", {{"chip", "v5e"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(value_of(r, "chips"), 16);
  EXPECT_EQ(value_of(r, "hosts"), 2);
  EXPECT_EQ(r["torus"]["dims"], json({4, 4}));
  EXPECT_EQ(r["notes"][0],
            "No shape given: 4x4, a slice every TPU v5e comes in. Type another "
            "shape to change it.");
  r = calc("tpus.inventory", {{"chip", "v5p"}});
  EXPECT_EQ(value_of(r, "chips"), 64);
  EXPECT_EQ(value_of(r, "hosts"), 16);
  EXPECT_EQ(r["torus"]["wrap"], json({true, true, true}));
  // A shape given is kept, and a wrong one for the chip is still an error on the shape.
  EXPECT_EQ(value_of(calc("tpus.inventory", {{"chip", "v5e"}, {"shape", "16x16"}}), "chips"), 256);
  expect_error_value(calc("tpus.inventory", {{"chip", "v5e"}, {"shape", "4x4x4"}}), "shape");
}

TEST(TpusApi, MxuWithoutTheTablesFigures) {
  // v6e: S = 256 but no MXU count. M=200, K=4096, N=1000 pad to 256, 4096, 1024:
  // utilisation 200*4096*1000 / (256*4096*1024) = 819,200,000 / 1,073,741,824 = 0.76294.
  json r = calc("tpus.mxu", {{"chip", "v6e"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  near_rel(value_of(r, "utilisation"), 819200000.0 / 1073741824.0);
  EXPECT_FALSE(r["values"].contains("chip_mxu_flops_per_s"));
  EXPECT_EQ(r["notes"][0],
            "The book gives no MXU count per core for the TPU v6e (Trillium): enter "
            "mxus_per_core to see what depends on it.");
  // Given the count (4): 1 core x 4 x 2*256^2 x 1.75476e9 = 9.2e14, the table's peak.
  r = calc("tpus.mxu", {{"chip", "v6e"}, {"mxus_per_core", 4}});
  near_rel(value_of(r, "chip_mxu_flops_per_s"), 4 * 2 * 65536 * 1754760742.1875);
  // TPU7x: no MXU size at all; the FLOPs 2*200*4096*1000 = 1.6384e9 and the 8 sublanes' 3
  // reduction steps are still there.
  r = calc("tpus.mxu", {{"chip", "tpu7x"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(value_of(r, "flops"), 1.6384e9);
  EXPECT_EQ(value_of(r, "sublane_reduction_steps"), 3);
  EXPECT_FALSE(r["values"].contains("utilisation"));
  EXPECT_EQ(r["verdict"], "No MXU size for the TPU7x: enter mxu_size to pad the matmul");
  // v3: S = 128 and 2 MXUs but no clock: utilisation (padding to 256, 4096, 1024:
  // 819,200,000 / 1,073,741,824), no rates.
  r = calc("tpus.mxu", {{"chip", "v3"}});
  near_rel(value_of(r, "utilisation"), 819200000.0 / 1073741824.0);
  EXPECT_FALSE(r["values"].contains("mxu_flops_per_s"));
}

TEST(TpusApi, BandwidthLadder) {
  // v5e, 1e9 bytes: VMEM 1.804e13 > HBM 8.2e11 > ICI 4.5e10 > PCIe 1.6e10 > DCN 3.125e9; each
  // time 1e9 / BW, each step down 1.804e13 / 8.2e11 = 22, 8.2e11 / 4.5e10 = 18.2,
  // 4.5e10 / 1.6e10 = 2.81, 1.6e10 / 3.125e9 = 5.12 times slower.
  json r = calc("tpus.ladder");
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  const json& l = r["ladder"];
  ASSERT_EQ(l.size(), 5u);
  const char* keys[] = {"vmem", "hbm", "ici", "pcie", "dcn"};
  const double bws[] = {1.804e13, 8.2e11, 4.5e10, 1.6e10, 3.125e9};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(l[i]["key"], keys[i]);
    near_rel(l[i]["bw"].get<double>(), bws[i]);
    near_rel(l[i]["seconds"].get<double>(), 1e9 / bws[i]);
    if (i < 4) near_rel(l[i]["faster_than_next"].get<double>(), bws[i] / bws[i + 1]);
  }
  EXPECT_FALSE(l[4].contains("faster_than_next"));
  near_rel(value_of(r, "hbm_time"), 1e9 / 8.2e11);
  EXPECT_EQ(r["verdict"], "VMEM (22x) > HBM (18x) > ICI (2.8x) > PCIe (5.1x) > DCN");
  // An H100: HBM 3.35e12 > NVLink 4.5e11 (7.4x) > scale-out 5e10 (9x); its missing VMEM and PCIe,
  // and its stand-ins for ICI and DCN, said in words.
  r = calc("tpus.ladder", {{"chip", "h100"}, {"bytes", 2e9}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(r["verdict"], "HBM (7.4x) > NVLink (9x) > scale-out network");
  EXPECT_EQ(r["notes"].size(), 4u);
  near_rel(value_of(r, "ici_time"), 2e9 / 4.5e11);
  // v6e has no VMEM figure: four rungs, the first HBM.
  EXPECT_EQ(calc("tpus.ladder", {{"chip", "v6e"}})["ladder"][0]["key"], "hbm");
  expect_error_value(calc("tpus.ladder", {{"bytes", 0}}), "bytes");
  expect_error_value(calc("tpus.ladder", {{"bytes", 1e19}}), "bytes");
  expect_error_value(calc("tpus.ladder", {{"chip", "v9"}}), "chip");
}

TEST(TpusApi, StagesInSequenceAndOverlapped) {
  // v5e 4x4, 2^24 B offloaded to the hosts, gathered onto (3,3): PCIe 2^24/16 / 1.6e10 = 65.54 us,
  // ICI 2^24 * 15/16 / (2 links x 4.5e10) + 6 hops x 1 us = 180.76 us, HBM 2^24 / 8.2e11 = 20.46
  // us. In sequence they start at 0, 65.54 and 246.3 us and end at 266.8 us; overlapped, 180.76 us.
  json r = calc("tpus.transfer", {{"route", "host_gather_ici"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  const double pcie = 16777216.0 / 16 / 1.6e10, ici = 16777216.0 * 15 / 16 / 9e10 + 6e-6,
               hbm = 16777216.0 / 8.2e11;
  const json& st = r["stages"];
  ASSERT_EQ(st.size(), 3u);
  EXPECT_EQ(st[0]["start_serial"], 0);
  near_rel(st[1]["start_serial"].get<double>(), pcie);
  near_rel(st[2]["start_serial"].get<double>(), pcie + ici);
  near_rel(r["t_serial"].get<double>(), pcie + ici + hbm);
  near_rel(r["t_overlapped"].get<double>(), ici);
}

TEST(TpusApi, ProblemsSolveAndGrade) {
  json r = api::handle(json{{"op", "problem"}, {"id", "tpus.Q5.b"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  // 2^24 / 9e10 + 6e-6 = 1.924135e-4 s.
  EXPECT_NEAR(r["answers"]["t_transfer"]["value"].get<double>(), 16777216 / 9e10 + 6e-6, 1e-12);
  r = api::handle(
      json{{"op", "check"}, {"id", "tpus.Q2.a"}, {"answers", {{"chips", "256"}, {"hosts", "32"}}}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  for (const auto& x : r["results"])
    if (x["slot"] == "chips" || x["slot"] == "hosts")
      EXPECT_EQ(x["verdict"], "correct") << x.dump();
  // A variant: wraparound forced on a 16x16 pod makes the Q5 corner-to-corner trip 2 hops.
  r = api::handle(
      json{{"op", "problem"},
           {"id", "tpus.Q5.a"},
           {"given", {{"slice", "16x16"}, {"wraparound", "auto"}, {"dst", "(15,15)"}}}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_DOUBLE_EQ(r["answers"]["hops"]["value"].get<double>(), 2);
  // Q1 fits: 1.25e10 B per chip <= 3.2e10; with 2 chips, 2e11 B > 3.2e10 does not.
  r = api::handle(json{{"op", "problem"}, {"id", "tpus.Q1"}, {"given", {{"n_chips", 2}}}});
  EXPECT_DOUBLE_EQ(r["answers"]["fits_in_hbm"]["value"].get<double>(), 0);
  // Bad slice in a problem names its field.
  r = api::handle(json{{"op", "problem"}, {"id", "tpus.Q5.a"}, {"given", {{"src", "(0,0,0)"}}}});
  EXPECT_EQ(r["error"]["field"], "src");
  // Every tpus problem solves with its defaults.
  json list = api::handle(json{{"op", "list"}});
  int n = 0;
  for (const auto& p : list["problems"]) {
    if (p["chapter"] != "tpus") continue;
    ++n;
    json s = api::handle(json{{"op", "problem"}, {"id", p["id"]}});
    EXPECT_TRUE(s["ok"].get<bool>()) << p["id"] << s.dump();
  }
  // tpus.json: E1-E10, PQ1, Q1, Q2.a-b, Q3, Q4.a-b, Q5.a-b, Q6.a-f = 10 + 1 + 1 + 2 + 1 + 2 + 2 + 6
  // = 25.
  EXPECT_EQ(n, 25);
}

// ---------------------------------------------------------------- derivations ----------

namespace {

bool says(const json& r, const std::string& words) {
  for (const json& st : r["trace"])
    if (st.value("what", "").find(words) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST(TpusDerivation, HopsAreASumOfTheAxes) {
  // v5e 16x16 (both axes rings), (0,0) to (15,15): min(15, 16 - 15) = 1 hop per axis, 2 in all;
  // the largest distance is floor(16/2) = 8 per axis, 16 in all.
  const json r = calc("tpus.topology");
  const json axis = step_with(r, "min(abs(a_i - b_i), n_i - abs(a_i - b_i))");
  EXPECT_EQ(axis["values"]["b_i"], 15);
  EXPECT_EQ(axis["value"], 1);
  const json h = step_with(r, "d_0 + d_1");
  EXPECT_EQ(h["value"], 2);
  EXPECT_EQ(h["formula"], "h = d_{0} + d_{1}");
  EXPECT_EQ(step_with(r, "m_0 + m_1")["value"], 16);
  // The cheapest halving of a 16x16 torus cuts 256 / 16 x 2 = 32 links: 32 x 4.5e10 B/s.
  EXPECT_EQ(step_with(r, "n_links * W")["value"], 1.44e12);
}

TEST(TpusDerivation, PipelineBoundsAreMaxAndSumOfTheStages) {
  // 16 MiB held on the hosts of a v5e 4x4 slice, gathered onto (3,3), a corner with 2 links:
  //   PCIe: 2^24 / 16 = 1,048,576 B at 1.6e10 B/s = 6.554e-5 s;
  //   ICI: 2^24 * 15/16 = 15,728,640 B over 2 x 4.5e10 B/s plus 6 hops x 1 us = 1.808e-4 s;
  //   HBM: 2^24 B at 8.2e11 B/s = 2.046e-5 s.
  const json r = calc("tpus.transfer", {{"route", "host_gather_ici"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(step_with(r, "A / N")["value"], 1048576);
  EXPECT_EQ(step_with(r, "A * (N - 1) / N")["value"], 15728640);
  EXPECT_EQ(step_with(r, "n_in * W")["value"], 9e10);
  const double ici = 15728640 / 9e10 + 6e-6;
  near_rel(step_with(r, "bytes / BW + t_lat")["value"].get<double>(), ici);
  const json lo = step_with(r, "max(T_1, T_2, T_3)");
  near_rel(lo["value"].get<double>(), ici);
  near_rel(step_with(r, "T_1 + T_2 + T_3")["value"].get<double>(),
           1048576 / 1.6e10 + ici + 16777216 / 8.2e11);
}

TEST(TpusDerivation, OffloadRoutesCompareTheirSlowestStages) {
  // Q6.a, A = 2^34 B over 16 chips on 2 hosts. Route 1: PCIe 2^30 / 1.6e10 = 0.0671 s, ICI
  // 2^34 * 15/16 / (2 x 4.5e10) = 0.179 s. Route 2: DCN 2^33 / (8 x 3.125e9) = 0.344 s, then
  // the whole 2^34 B down one PCIe link, 1.074 s.
  const json r = problem("tpus.Q6.a");
  near_rel(step_with(r, "max(T_PCIe, T_ICI)")["value"].get<double>(), 16106127360.0 / 9e10);
  near_rel(step_with(r, "max(T_DCN, T_PCIe)")["value"].get<double>(), 17179869184.0 / 1.6e10);
}

TEST(TpusDerivation, VerdictsInTheWordsFollowTheValues) {
  // Q4.a on v5e: B_crit = 2^26 / (2^27 / 480.5 - 20480) = 261 tokens, so B = 1024 is
  // compute-bound.
  EXPECT_TRUE(says(problem("tpus.Q4.a"), "T at B = 1024 (compute-bound)"));
  // A v6e-like chip (1.84e15 OPs/s, 1.6e12 B/s: I = 1150) with 2-byte elements, D = 2048,
  // F = 8192: B_crit = 2^25 / (2^25 / 1150 - 20480) = 3858 tokens, so B = 1024 is memory-bound.
  const json r = problem("tpus.Q4.a", {{"peak_int8_ops_per_s", 1.84e15},
                                       {"hbm_bw_Bps", 1.6e12},
                                       {"d_contract", 2048},
                                       {"f_out", 8192},
                                       {"bytes_per_elem", 2}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  near_rel(sb::test::answer_of(r, "b_crit"), 33554432.0 / (33554432.0 / 1150 - 20480));
  EXPECT_TRUE(says(r, "T at B = 1024 (memory-bound)"));
  // Q3: v6e's PCIe ridge 9.2e14 / 1.6e10 = 57500 puts D_min at 57500 * 10 / 8 = 71875, beyond
  // real widths; a peak of 1.4e14 puts the ridge at 8750 and D_min at 8750 * 10 / 8 = 10938,
  // within them.
  EXPECT_TRUE(says(problem("tpus.Q3"), "are below $D_{min}$"));
  EXPECT_TRUE(says(problem("tpus.Q3", {{"peak_bf16_flops_per_s", 1.4e14}}), "Only a D above"));
}
