// Sharding chapter: the notation and mesh parsers (good input and every error kind, with the
// character they point at), collective costs derived by hand, the four matmul cases, and the
// calculators and problems through the JSON entry point.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "chapters/sharding/model.hpp"
#include "chapters/sharding/notation.hpp"
#include "core/api.hpp"
#include "core/error.hpp"
#include "core/registry.hpp"
#include "tests/support/support.hpp"

namespace sh = sb::sharding;
using sb::json;
using sb::test::calc;
using sb::test::expect_error;
using sb::test::expect_error_value;
using sb::test::near_rel;
using sb::test::value_of;
using sb::test::verdict_of;

namespace {

sh::Mesh mesh(const std::string& t) { return sh::parse_mesh(t, "mesh"); }
sh::Sharding parse_spec(const std::string& t) { return sh::parse_sharding(t, "a"); }

std::vector<std::string> v(std::initializer_list<const char*> xs) { return {xs.begin(), xs.end()}; }

}  // namespace

// ---- notation: good input ----------------------------------------------------------------------

TEST(ShardingNotation, ParsesTheBooksForms) {
  auto a = parse_spec("A[I_X, J]");
  EXPECT_EQ(a.name, "A");
  ASSERT_EQ(a.dims.size(), 2u);
  EXPECT_EQ(a.dims[0].name, "I");
  EXPECT_EQ(a.dims[0].axes, v({"X"}));
  EXPECT_TRUE(a.dims[1].axes.empty());

  // Run-together letters and the braced form are the same sharding: J over X then Y.
  EXPECT_EQ(parse_spec("B[J_XY, K]").dims[0].axes, v({"X", "Y"}));
  EXPECT_EQ(parse_spec("A[I_{XY}, J]").dims[0].axes, v({"X", "Y"}));
  EXPECT_EQ(parse_spec("A[I_{XY}, J]").text(), "A[I_{XY}, J]");

  auto nameless = parse_spec("[B_X, D_Y]");
  EXPECT_EQ(nameless.name, "");
  EXPECT_EQ(nameless.dims[1].axes, v({"Y"}));

  auto u = parse_spec("C[I, K]{U_X}");
  EXPECT_EQ(u.unreduced, v({"X"}));
  // The displayed-equation spelling with escaped braces and spaces is the same marker.
  EXPECT_EQ(parse_spec("C[I, K] \\{ U_X \\}").unreduced, v({"X"}));
  EXPECT_EQ(parse_spec("C[I, K]{U_XYZ}").unreduced, v({"X", "Y", "Z"}));

  auto e = parse_spec("A[I_X, J, K, ...]");
  EXPECT_TRUE(e.ellipsis);
  EXPECT_EQ(e.dims.size(), 3u);

  // Longer axis names go comma-separated in braces; W_in keeps its underscore as a name.
  EXPECT_EQ(parse_spec("W_in[D_{data,model}, F]").dims[0].axes, v({"data", "model"}));
  EXPECT_EQ(parse_spec("W_in[D_{data,model}, F]").name, "W_in");
  EXPECT_EQ(parse_spec("  A [ I_X ,J_Y ]  ").text(), "A[I_X, J_Y]");
}

// ---- notation: every error kind, with its position ---------------------------------------------

TEST(ShardingNotation, EachDimensionHasItsOwnName) {
  // "A[I_X, I]": the second I starts at character 8 and repeats the one at character 3.
  expect_error([] { sb::sharding::parse_sharding("A[I_X, I]", "a"); }, "a", "dim_reused",
               "at character 8: dimension I is already named at character 3");
  expect_error([] { sb::sharding::parse_sharding("[J, K, J_Y]", "b"); }, "b", "dim_reused",
               "dimension J is already named at character 2");
}

TEST(ShardingNotation, ErrorsPointAtTheCharacter) {
  expect_error([] { parse_spec(""); }, "a", "bad_sharding", "empty");
  // A=1 [=2 I=3 _=4 X=5 ,=6 ' '=7 J=8: the second use of X is on J at character 8.
  expect_error([] { parse_spec("A[I_X, J_X]"); }, "a", "axis_reused", "at character 8");
  expect_error([] { parse_spec("A[I_X, J_X]"); }, "a", "axis_reused",
               "already used at character 3");
  // A[I_{XX}]: the same axis twice inside one subscript is also a reuse.
  expect_error([] { parse_spec("A[I_{XX}, J]"); }, "a", "axis_reused", "mesh axis X");
  // A1 [2 I3 _4 X5 ' '6 J7: a space is not a separator.
  expect_error([] { parse_spec("A[I_X J]"); }, "a", "bad_sharding",
               "at character 7 ('J'): expected ',' or ']'");
  // "A[I_X, J" is 8 characters: the error is at character 9, the end of input.
  expect_error([] { parse_spec("A[I_X, J"); }, "a", "bad_sharding",
               "at character 9 (end of input)");
  // A1 [2 I3 _4 ,5: nothing after the underscore.
  expect_error([] { parse_spec("A[I_, J]"); }, "a", "bad_sharding", "at character 5");
  expect_error([] { parse_spec("A[I_{}, J]"); }, "a", "bad_sharding", "empty");
  // A1 [2 I3 _4 X5 ,6 ' '7 J8 ]9 x10.
  expect_error([] { parse_spec("A[I_X, J]x"); }, "a", "bad_sharding",
               "at character 10 ('x'): expected '{U_X}'");
  expect_error([] { parse_spec("A(I, J)"); }, "a", "bad_sharding",
               "at character 2 ('('): expected '['");
  expect_error([] { parse_spec("A[I, J]{U_X, U_X}"); }, "a", "axis_reused",
               "twice in the unreduced marker");
  expect_error([] { parse_spec("A[I_1, J]"); }, "a", "bad_sharding", "at character 5");
  expect_error([] { parse_spec("A[..., I]"); }, "a", "bad_sharding",
               "at least one named dimension");
  expect_error([] { parse_spec("A[I, ..., J]"); }, "a", "bad_sharding", "must be the last entry");
  expect_error([] { parse_spec("A[I, J]{V_X}"); }, "a", "bad_sharding", "expected 'U_'");
  expect_error([] { parse_spec("A[I_{X,}]"); }, "a", "bad_sharding", "expected a mesh axis name");
  expect_error([] { parse_spec("A[\x01]"); }, "a", "bad_sharding",
               "a non-ASCII or control character");
  expect_error([] { parse_spec(std::string(1001, '[')); }, "a", "too_long", "at most 1000");
  // Deep brackets are not recursion: the parser refuses at the second '['.
  expect_error([] { parse_spec(std::string(900, '[')); }, "a", "bad_sharding", "at character 2");
}

TEST(ShardingNotation, ValidityAgainstTheMesh) {
  auto m = mesh("X=4,Y=4");
  // A1 [2 I3: axis Z is not in the mesh.
  expect_error([&] { sh::validate(parse_spec("A[I_Z, J]"), m, "a"); }, "a", "unknown_axis",
               "at character 3");
  expect_error([&] { sh::validate(parse_spec("C[I_X, K]{U_X}"), m, "a"); }, "a", "axis_reused",
               "unreduced");
  expect_error([&] { sh::validate(parse_spec("C[I, K]{U_Q}"), m, "a"); }, "a", "unknown_axis", "Q");
  // 6 rows do not split 4 ways: 6 / 4 = 1.5.
  expect_error(
      [&] {
        sh::check_divisible(parse_spec("A[I_X, J]"), m, {6, 8}, "a");
      },
      "a", "not_divisible",
      "at character 3 (dimension I): size 6 does not divide evenly into 4 shards");
  // 8 over XY = 16 does not divide either.
  expect_error(
      [&] {
        sh::check_divisible(parse_spec("A[I, J_{XY}]"), m, {4, 8}, "a");
      },
      "a", "not_divisible", "16 shards");
  EXPECT_NO_THROW(sh::validate(parse_spec("A[I_X, J_Y]"), m, "a"));
}

// ---- meshes ---------------------------------------------------------------------------------

TEST(ShardingMesh, AcceptsEverySpelling) {
  for (const char* t :
       {"X=4,Y=4", "X = 4, Y = 4", "X:4,Y:4", "{X: 4, Y: 4}", "{'X': 4, 'Y': 4}",
        "{\"X\": 4, \"Y\": 4}", "Mesh({'X': 4, 'Y': 4})", "4x4", "4 x 4",
        "Mesh(mesh_shape=(4, 4), axis_names=('X','Y'))", "jax.make_mesh((4, 4), ('X', 'Y'))",
        "jax.make_mesh(axis_shapes=(4, 4), axis_names=('X', 'Y'), axis_types=(Auto, Auto))"}) {
    auto m = mesh(t);
    EXPECT_EQ(m.names, v({"X", "Y"})) << t;
    EXPECT_EQ(m.sizes, (std::vector<long long>{4, 4})) << t;
  }
  // Device ids: rows run along X, columns along Y: ((0, 1), (2, 3)) is 2x2.
  auto d = mesh("Mesh(devices=((0, 1), (2, 3)), axis_names=('X', 'Y'))");
  EXPECT_EQ(d.sizes, (std::vector<long long>{2, 2}));
  // 2 x 8 x 2 = 32 devices.
  EXPECT_EQ(mesh("Mesh({'X': 2, 'Y': 8, 'Z': 2})").devices(), 32);
  EXPECT_EQ(mesh("4x4x4").names, v({"X", "Y", "Z"}));
  EXPECT_EQ(mesh("{data: 8, model: 2}").text(), "{data: 8, model: 2}");
}

TEST(ShardingMesh, ErrorsPointAtTheCharacter) {
  // X1 =2 03.
  expect_error([] { mesh("X=0"); }, "mesh", "out_of_range",
               "at character 3 ('0'): size of mesh axis X must be a positive");
  expect_error([] { mesh("X=-2"); }, "mesh", "out_of_range", "at character 3");
  expect_error([] { mesh("X=4.5"); }, "mesh", "out_of_range", "whole number");
  expect_error([] { mesh("{X: 4, X: 2}"); }, "mesh", "bad_mesh", "named twice");
  // "{X: 4, Y: 4" has 11 characters: the missing '}' is at character 12.
  expect_error([] { mesh("{X: 4, Y: 4"); }, "mesh", "bad_mesh", "at character 12 (end of input)");
  expect_error([] { mesh("Mesh(devices=((0, 1), (2,)), axis_names=('X','Y'))"); }, "mesh",
               "bad_mesh", "not rectangular");
  expect_error([] { mesh("Mesh(devices=((0, 1), (1, 3)), axis_names=('X','Y'))"); }, "mesh",
               "bad_mesh", "appears twice");
  expect_error([] { mesh("Mesh(mesh_shape=(4, 8), axis_names=('X',))"); }, "mesh", "bad_mesh",
               "1 axis names for a 2-dimensional");
  expect_error([] { mesh(""); }, "mesh", "bad_mesh", "empty");
  expect_error([] { mesh("   "); }, "mesh", "bad_mesh", "empty");
  expect_error([] { mesh("{X: 1048577}"); }, "mesh", "out_of_range", "larger than");
  expect_error([] { mesh("{X: 1024, Y: 1024, Z: 1024}"); }, "mesh", "out_of_range", "more than");
  // M1 e2 s3 h4 (5 f6: the unknown keyword starts at character 6.
  expect_error([] { mesh("Mesh(foo=3)"); }, "mesh", "bad_mesh",
               "at character 6 ('f'): unknown mesh argument 'foo'");
  expect_error([] { mesh("{'X: 4}"); }, "mesh", "bad_mesh", "at character 2 (''')");
  expect_error([] { mesh("4x4x4x4"); }, "mesh", "bad_mesh", "at most 3 axes");
  expect_error([] { mesh("4y4"); }, "mesh", "bad_mesh", "at character 2 ('y')");
  expect_error([] { mesh("{X: 4} trailing"); }, "mesh", "bad_mesh", "unexpected text");
  expect_error([] { mesh("{1X: 4}"); }, "mesh", "bad_mesh", "expected an axis name");
  expect_error([] { mesh("{X: 4, Y: 4} \xc3\xa9"); }, "mesh", "bad_mesh", "at character 14");
  // Nesting is capped: 200 '(' are refused with a message, not a stack overflow.
  expect_error([] { mesh("Mesh(devices=" + std::string(200, '(') + ")"); }, "mesh", "bad_mesh",
               "nested too deeply");
  expect_error([] { mesh(std::string(2000, '{')); }, "mesh", "too_long", "at most 1000");
}

// ---- local shapes ------------------------------------------------------------------------------

TEST(ShardingModel, LocalShapeAndMemory) {
  // fp32[1024, 4096] as A[I_{XY}, J] on {X: 8, Y: 2}: I splits 16 ways -> 64 rows;
  // 64 * 4096 * 4 = 1,048,576 B per device; every axis used -> 1 copy.
  auto L =
      sh::local_shape(parse_spec("A[I_{XY}, J]"), mesh("{'X': 8, 'Y': 2}"), {1024, 4096}, 4, "a");
  EXPECT_EQ(L.local[0], 64);
  EXPECT_EQ(L.local[1], 4096);
  EXPECT_EQ(L.bytes_per_device, 1048576);
  EXPECT_EQ(L.replication, 1);
  // int8[128, 2048] on 2x8x2: 8 rows, 8 * 2048 = 16,384 B; Z unused -> 2 copies;
  // 32 devices * 16,384 = 524,288 B in all.
  auto P =
      sh::local_shape(parse_spec("A[I_{XY}, J]"), mesh("{X: 2, Y: 8, Z: 2}"), {128, 2048}, 1, "a");
  EXPECT_EQ(P.bytes_per_device, 16384);
  EXPECT_EQ(P.replication, 2);
  EXPECT_EQ(P.total_bytes, 524288);
  // A[I_X, J, K, ...] on 4x8x2: Y and Z unused -> 8 * 2 = 16 copies.
  EXPECT_EQ(sh::replication_factor(parse_spec("A[I_X, J, K, ...]"), mesh("{X: 4, Y: 8, Z: 2}")),
            16);
  expect_error([] { sh::local_shape(parse_spec("A[I_X, J]"), mesh("X=4"), {1024}, 2, "a"); }, "a",
               "bad_input", "2 dimensions but 1 sizes");
}

// ---- collective costs --------------------------------------------------------------------------

namespace {
sh::Link link(double w_uni, double t_hop = 0, bool bidi = true) {
  sh::Link l;
  l.w_uni = w_uni;
  l.t_hop = t_hop;
  l.bidirectional = bidi;
  return l;
}
std::vector<sh::Axis> ring(std::initializer_list<double> sizes, bool wrap = true) {
  std::vector<sh::Axis> out;
  int k = 0;
  for (double s : sizes) out.push_back({std::string(1, static_cast<char>('X' + k++)), s, wrap, 1});
  return out;
}
}  // namespace

TEST(ShardingModel, AllGatherOneAxis) {
  using sh::Op;
  // Wrapped ring of 4, W_uni = 9e10 (W_ici = 1.8e11), V = 1.8e11 B:
  // floor(4/2) = 2 hops of V/(4 W_uni) = 0.5 s each -> 1 s = V / W_ici.
  auto c = sh::collective_cost(Op::AllGather, 1.8e11, ring({4}), link(9e10));
  near_rel(c.t, 1.0);
  EXPECT_EQ(c.hops, 2);
  // Odd ring of 5: 2 hops of 1.8e11/(5 * 9e10) = 0.4 s -> 0.8 s = (4/5) V / W_ici.
  near_rel(sh::collective_cost(Op::AllGather, 1.8e11, ring({5}), link(9e10)).t, 0.8);
  // Open line of 4: 3 hops of 0.5 s = 1.5 s, i.e. 2(N-1)/N = 1.5 times the ring.
  auto line = sh::collective_cost(Op::AllGather, 1.8e11, ring({4}, false), link(9e10));
  near_rel(line.t, 1.5);
  EXPECT_EQ(line.hops, 3);
  // A one-way ring is the same count as a line: (N-1) V/(N W_uni) = 1.5 s.
  near_rel(sh::collective_cost(Op::AllGather, 1.8e11, ring({4}), link(9e10, 0, false)).t, 1.5);
  // Each chip receives (N-1)/N of V: 0.75 * 1.8e11 = 1.35e11 B.
  near_rel(c.bytes_per_chip, 1.35e11);
  // One device: nothing to do.
  EXPECT_EQ(sh::collective_cost(Op::AllGather, 1e9, ring({1}), link(9e10)).t, 0);
}

TEST(ShardingModel, MultiAxisReduceAndAllToAll) {
  using sh::Op;
  // Two wrapped axes of 4: V / (2 W_ici) = 1.8e11 / 3.6e11 = 0.5 s; hops 4/2 + 4/2 = 4.
  auto xy = sh::collective_cost(Op::AllGather, 1.8e11, ring({4, 4}), link(9e10, 1e-6));
  near_rel(xy.t, 0.5);
  EXPECT_EQ(xy.hops, 4);
  near_rel(xy.t_lat, 4e-6);
  // ReduceScatter costs what AllGather does; AllReduce twice: 2 * 1 s = 2 s, 2 * 2 = 4 hops.
  near_rel(sh::collective_cost(Op::ReduceScatter, 1.8e11, ring({4}), link(9e10)).t, 1.0);
  auto ar = sh::collective_cost(Op::AllReduce, 1.8e11, ring({4}), link(9e10));
  near_rel(ar.t, 2.0);
  EXPECT_EQ(ar.hops, 4);
  // AllToAll on a wrapped ring of 4: V / (4 W_ici) = 1.8e11 / 7.2e11 = 0.25 s.
  near_rel(sh::collective_cost(Op::AllToAll, 1.8e11, ring({4}), link(9e10)).t, 0.25);
  // 4x4x4 torus, V = 2^30 B over all 64 devices, W_ici = 1.8e11:
  // 2^30 * 4 / (4 * 64 * 1.8e11) = 1073741824 / 1.152e13 = 9.3207e-5 s.
  near_rel(sh::collective_cost(Op::AllToAll, 1073741824.0, ring({4, 4, 4}), link(9e10)).t,
           1073741824.0 / 1.152e13);
  near_rel(sh::t_alltoall_nd(1073741824.0, {4, 4, 4}, 1.8e11), 1073741824.0 / 1.152e13);
  // Per-device form: (2^30 / 64) * 4 / (4 * 1.8e11) = 16777216 / 1.8e11, the same number.
  near_rel(sh::t_alltoall_per_device(1073741824.0 / 64, 4, 1.8e11), 1073741824.0 / 1.152e13);
  // DCN: ring of 4 chips at 6.25e9 B/s each: (3/4) * 1e9 / 6.25e9 = 0.12 s.
  sh::Link dcn = link(6.25e9);
  dcn.dcn = true;
  near_rel(sh::collective_cost(Op::AllGather, 1e9, ring({4}), dcn).t, 0.12);
  expect_error([] { sh::collective_cost(sh::Op::AllGather, -1, ring({4}), link(9e10)); }, "bytes",
               "bad_input", "non-negative");
  expect_error([] { sh::collective_cost(sh::Op::AllGather, 1, ring({4}), link(0)); }, "bandwidth",
               "bad_input", "positive");
  expect_error([] { sh::collective_cost(sh::Op::AllGather, 1, ring({2.5}), link(1)); }, "axes",
               "bad_input", "whole");
  expect_error([] { sh::parse_op("Broadcast", "op"); }, "op", "bad_choice", "unknown collective");
  EXPECT_EQ(sh::parse_op("all-gather", "op"), sh::Op::AllGather);
}

TEST(ShardingModel, LatencyRegime) {
  using sh::Op;
  // Threshold on v5e: 4.5e10 B/s * 1e-6 s = 45,000 B per hop.
  near_rel(sh::latency_bound_threshold(4.5e10, 1e-6), 45000);
  // 256 B over a wrapped ring of 4 at W_uni 4.5e10: bandwidth 2 * 256/(4 * 4.5e10) = 2.844e-9 s,
  // latency 2 hops * 1 us = 2e-6 s: latency-bound, T = 2 us.
  auto c = sh::collective_cost(Op::AllGather, 256, ring({4}), link(4.5e10, 1e-6));
  near_rel(c.t_bw, 512.0 / 1.8e11);
  near_rel(c.t, 2e-6);
  EXPECT_TRUE(c.latency_bound);
  EXPECT_STREQ(c.regime, "latency-bound");
  // 32 KiB shards on an open line of 4: 3 hops * max(1 us, 32768/4.5e10 = 0.73 us) = 3 us.
  auto small =
      sh::collective_cost(Op::AllGather, 4 * 32768.0, ring({4}, false), link(4.5e10, 1e-6));
  near_rel(small.t, 3e-6);
  // 8 MiB shards: 3 * 8388608 / 4.5e10 = 5.5924e-4 s, bandwidth-bound.
  auto big =
      sh::collective_cost(Op::AllGather, 4 * 8388608.0, ring({4}, false), link(4.5e10, 1e-6));
  near_rel(big.t, 3 * 8388608.0 / 4.5e10);
  EXPECT_FALSE(big.latency_bound);
}

TEST(ShardingModel, RingTrafficCounts) {
  // Footnote count on a ring of 8: (1+2+3+4) + (1+2+3) = 16 = 8^2/4.
  EXPECT_EQ(sh::alltoall_chunk_hops_bidi(8), 16);
  // Bisection of a wrapped 4x4x4 (the tpus chapter's): 2 * 64 / 4 = 32 links.
  EXPECT_EQ(sb::tpus::bisection_links({{4, 4, 4}, {true, true, true}}), 32);
  // Q10, N = 8, D = 4: AllGather sends D-1 = 3 strips of (8/4)*8 = 16 scalars: 48.
  EXPECT_EQ(sh::ag_link_scalars_oneway(8, 4), 48);
  // AllToAll: blocks of (8/4)^2 = 4 scalars times 1+2+3 = 6 hops: 24, half of 48.
  EXPECT_EQ(sh::a2a_link_scalars_oneway(8, 4), 24);
  // Both ways, the busier direction of a ring of 8 carries 1+2+3+4 = 10 blocks = (8/2)(8/2+1)/2.
  EXPECT_EQ(sh::a2a_link_blocks_bidi(8), 10);
  // One way: 8 * 7 / 2 = 28 blocks.
  EXPECT_EQ(sh::a2a_link_blocks_oneway(8), 28);
}

// ---- the four matmul cases -----------------------------------------------------------------

namespace {
sh::MatmulInput mm(const std::string& a, const std::string& b, const std::string& m = "X=4,Y=4") {
  sh::MatmulInput in;
  in.a = parse_spec(a);
  in.b = sh::parse_sharding(b, "b");
  in.mesh = mesh(m);
  in.I = in.J = in.K = 1024;
  in.bytes_per_elem = 2;
  in.peak_flops = 1e14;
  in.link = link(4.5e10);
  in.wrap.assign(in.mesh.names.size(), true);
  return in;
}
}  // namespace

TEST(ShardingMatmul, Case1NoCommunication) {
  auto an = sh::analyze_matmul(mm("A[I_X, J]", "B[J, K_Y]"));
  EXPECT_EQ(an.case_no, 1);
  EXPECT_EQ(an.plan.out.text(), "C[I_X, K_Y]");
  EXPECT_EQ(an.plan.t_comms, 0);
  // 2 * (1024/4) * 1024 * (1024/4) = 134,217,728 FLOPs; / 1e14 = 1.342e-6 s.
  EXPECT_EQ(an.plan.flops_per_chip, 134217728.0);
  near_rel(an.plan.t_math, 134217728.0 / 1e14);
  EXPECT_EQ(an.plan.verdict, "no communication: compute-bound");
  EXPECT_EQ(sh::analyze_matmul(mm("A[I, J]", "B[J, K]")).plan.out.text(), "C[I, K]");
}

TEST(ShardingMatmul, Case2GatherFirst) {
  auto an = sh::analyze_matmul(mm("A[I, J_X]", "B[J, K]"));
  EXPECT_EQ(an.case_no, 2);
  EXPECT_EQ(an.contracting, "J");
  ASSERT_EQ(an.plan.steps.size(), 2u);
  EXPECT_EQ(an.plan.steps[0].kind, "AllGather");
  EXPECT_EQ(an.plan.steps[0].when, "before");
  EXPECT_EQ(an.plan.steps[0].axes, v({"X"}));
  EXPECT_EQ(an.plan.steps[0].to, "A[I, J]");
  EXPECT_EQ(an.plan.out.text(), "C[I, K]");
  // V = 1024 * 1024 * 2 B = 2,097,152 B gathered on a ring of 4: V / (2 * 4.5e10) = 2.33e-5 s.
  near_rel(an.plan.t_comms, 2097152.0 / 9e10);
  // The alternative: slice B along J, multiply locally, then AllReduce_X (or ReduceScatter).
  bool saw_ar = false, saw_rs = false;
  for (const auto& p : an.alternatives) {
    if (p.steps.back().kind == "AllReduce") {
      saw_ar = true;
      EXPECT_EQ(p.steps[0].kind, "slice");
      EXPECT_EQ(p.out.text(), "C[I, K]");
      // FLOPs split 4 ways: 2 * 1024 * 256 * 1024 = 536,870,912.
      EXPECT_EQ(p.flops_per_chip, 536870912.0);
    }
    if (p.steps.back().kind == "ReduceScatter" && p.out.text() == "C[I, K_X]") saw_rs = true;
  }
  EXPECT_TRUE(saw_ar);
  EXPECT_TRUE(saw_rs);
  // Question 6b: A[I_X, J] . B[J_X, K_Y]: gather B over X; slicing A along J is illegal (A uses X).
  auto q6b = sh::analyze_matmul(mm("A[I_X, J]", "B[J_X, K_Y]"));
  EXPECT_EQ(q6b.case_no, 2);
  EXPECT_EQ(q6b.plan.steps[0].array, "B");
  EXPECT_EQ(q6b.plan.out.text(), "C[I_X, K_Y]");
  for (const auto& p : q6b.alternatives) EXPECT_NE(p.steps[0].kind, "slice");
}

TEST(ShardingMatmul, Case3ReduceAfter) {
  auto an = sh::analyze_matmul(mm("A[I, J_X]", "B[J_X, K]"));
  EXPECT_EQ(an.case_no, 3);
  ASSERT_EQ(an.plan.steps.size(), 2u);
  EXPECT_EQ(an.plan.steps[0].kind, "matmul");
  EXPECT_EQ(an.plan.steps[0].to, "C[I, K]{U_X}");
  EXPECT_EQ(an.plan.steps[1].kind, "AllReduce");
  EXPECT_EQ(an.plan.steps[1].when, "after");
  EXPECT_EQ(an.plan.out.text(), "C[I, K]");
  // AllReduce of the 2,097,152-B partial sums: 2 V / W_ici = 4,194,304 / 9e10 = 4.66e-5 s.
  near_rel(an.plan.t_comms, 4194304.0 / 9e10);
  // The ReduceScatter alternative ends sharded at half the cost.
  bool found = false;
  for (const auto& p : an.alternatives)
    if (p.out.text() == "C[I, K_X]") {
      found = true;
      near_rel(p.t_comms, 2097152.0 / 9e10);
    }
  EXPECT_TRUE(found);
  // Question 6a on v5e 4x4, no wraparound: AllReduce_Y of C[I_X, K]{U_Y}, 2 * 1024/4 * 1024 =
  // 524,288 B: 2 * (3/4) * 524288 / 4.5e10 = 1.7476e-5 s.
  auto q6a = mm("A[I_X, J_Y]", "B[J_Y, K]");
  q6a.wrap = {false, false};
  auto a6 = sh::analyze_matmul(q6a);
  EXPECT_EQ(a6.case_no, 3);
  near_rel(a6.plan.t_comms, 2 * 0.75 * 524288 / 4.5e10);
}

TEST(ShardingMatmul, Case4GatherOneSide) {
  auto an = sh::analyze_matmul(mm("A[I_X, J]", "B[J, K_X]"));
  EXPECT_EQ(an.case_no, 4);
  EXPECT_EQ(an.conflicts, v({"X"}));
  EXPECT_EQ(an.case_text.rfind("Case 4: axis X", 0), 0u) << an.case_text;
  // Equal costs: gather A (the book's first choice) -> C[I, K_X]; the other gathers B -> C[I_X, K].
  EXPECT_EQ(an.plan.steps[0].kind, "AllGather");
  EXPECT_EQ(an.plan.steps[0].array, "A");
  EXPECT_EQ(an.plan.out.text(), "C[I, K_X]");
  ASSERT_FALSE(an.alternatives.empty());
  EXPECT_EQ(an.alternatives[0].out.text(), "C[I_X, K]");
  // V = 2,097,152 B over a ring of 4: 2.33e-5 s.
  near_rel(an.plan.t_comms, 2097152.0 / 9e10);
  // A cheaper side wins: with I = 256 gathering A moves 256 * 1024 * 2 = 524,288 B only.
  auto small = mm("A[I_X, J]", "B[J, K_X]");
  small.I = 256;
  EXPECT_EQ(sh::analyze_matmul(small).plan.steps[0].array, "A");
  small.I = 4096;
  EXPECT_EQ(sh::analyze_matmul(small).plan.steps[0].array, "B");
}

TEST(ShardingMatmul, BadOperands) {
  expect_error([] { sh::analyze_matmul(mm("A[I, J]", "B[K, L]")); }, "b", "no_contracting_dim",
               "share no dimension");
  expect_error([] { sh::analyze_matmul(mm("A[I, J]", "B[J, I]")); }, "b",
               "ambiguous_contracting_dim", "both dimension names");
  expect_error([] { sh::analyze_matmul(mm("A[I, J, K]", "B[J, K]")); }, "a", "bad_input",
               "2-D operands");
  expect_error([] { sh::analyze_matmul(mm("A[I, J]{U_X}", "B[J, K]")); }, "a", "bad_input",
               "fully reduced");
  expect_error([] { sh::analyze_matmul(mm("A[I_Q, J]", "B[J, K]")); }, "a", "unknown_axis",
               "not in the mesh");
  auto odd = mm("A[I_X, J]", "B[J, K]");
  odd.I = 1022;  // 1022 / 4 = 255.5
  expect_error([&] { sh::analyze_matmul(odd); }, "a", "not_divisible", "does not divide");
}

// ---- calculators and problems through the JSON entry point -----------------------------------

TEST(ShardingApi, MatmulCalculator) {
  json r = sb::api::handle(json{{"op", "calc"},
                                {"name", "sharding.matmul"},
                                {"inputs",
                                 {{"a", "A[I, J_X]"},
                                  {"b", "B[J_X, K]"},
                                  {"mesh", "X=16"},
                                  {"chip", "v5e"},
                                  {"I", 1024},
                                  {"J", 1024},
                                  {"K", 1024}}}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(r["case"], 3);
  EXPECT_EQ(r["output_sharding"], "C[I, K]");
  // v5e wraps an axis of 16: AllReduce of 2 MiB = 2 * 2097152 / 9e10 = 4.66e-5 s.
  EXPECT_TRUE(r["wrap"]["X"].get<bool>());
  near_rel(r["values"]["t_comms"]["value"].get<double>(), 4194304.0 / 9e10);
  // FLOPs per chip: 2 * 1024 * 64 * 1024 = 134,217,728; / 1.97e14.
  near_rel(r["values"]["t_math"]["value"].get<double>(), 134217728.0 / 1.97e14);
  EXPECT_EQ(r["blocks"]["devices"], 16);
  // Device 5 holds block 5 of A's J (16 blocks) and block 0 of its unsplit I.
  EXPECT_EQ(r["blocks"]["arrays"][0]["holds"][5], json::array({0, 5}));
  EXPECT_FALSE(r["alternatives"].empty());
  EXPECT_FALSE(r["trace"].empty());

  json bad = sb::api::handle(
      json{{"op", "calc"}, {"name", "sharding.matmul"}, {"inputs", {{"a", "A[I_X J]"}}}});
  EXPECT_FALSE(bad["ok"].get<bool>());
  EXPECT_EQ(bad["error"]["field"], "a");
  EXPECT_NE(bad["error"]["message"].get<std::string>().find("at character 7"), std::string::npos);
  json badmesh = sb::api::handle(
      json{{"op", "calc"}, {"name", "sharding.matmul"}, {"inputs", {{"mesh", "X=0"}}}});
  EXPECT_EQ(badmesh["error"]["field"], "mesh");
  json nodiv =
      sb::api::handle(json{{"op", "calc"}, {"name", "sharding.matmul"}, {"inputs", {{"I", 1001}}}});
  EXPECT_EQ(nodiv["error"]["field"], "a");
  json badchip = sb::api::handle(
      json{{"op", "calc"}, {"name", "sharding.matmul"}, {"inputs", {{"chip", "v99"}}}});
  EXPECT_EQ(badchip["error"]["field"], "chip");
}

// The wraparound rule is the tpus chapter's: sharding.collective and tpus.topology agree on it.
TEST(ShardingApi, WraparoundIsTheTpusChaptersRule) {
  auto calc = [](const std::string& name, const json& inputs) {
    return sb::api::handle(json{{"op", "calc"}, {"name", name}, {"inputs", inputs}});
  };
  struct Case {
    std::string chip, axes;
    bool wraps;  // by the chip's rule in data/chips.json
  };
  for (const Case& c : std::vector<Case>{
           // v5p 4x4 is 4x4x1: not whole 4x4x4 cubes, so no axis wraps; 4x4x4 is one cube.
           {"v5p", "4x4", false},
           {"v5p", "4x4x4", true},
           {"v5p", "2x2x4", false},
           // v5e: an axis wraps iff it spans the pod's side, 16.
           {"v5e", "16x16", true},
           {"v5e", "4x16", false},
       }) {
    json col = calc("sharding.collective", {{"chip", c.chip}, {"axes", c.axes}});
    json top = calc("tpus.topology", {{"chip", c.chip}, {"shape", c.axes}});
    ASSERT_TRUE(col["ok"].get<bool>() && top["ok"].get<bool>()) << col.dump() << top.dump();
    std::vector<bool> from_sharding, from_tpus = top["wrap"].get<std::vector<bool>>();
    for (const auto& [axis, w] : col["wrap"].items()) from_sharding.push_back(w.get<bool>());
    EXPECT_EQ(from_sharding, from_tpus) << c.chip << " " << c.axes;
    // 4x16 on v5e: only the axis of 16 wraps.
    if (c.axes == "4x16")
      EXPECT_EQ(from_tpus, (std::vector<bool>{false, true}));
    else
      EXPECT_EQ(from_tpus, std::vector<bool>(from_tpus.size(), c.wraps)) << c.chip << c.axes;
  }
  // On the v5p 4x4 both therefore count open-line hops: (4 - 1) + (4 - 1) = 6.
  json top = calc("tpus.topology", {{"chip", "v5p"}, {"shape", "4x4"}});
  EXPECT_EQ(top["values"]["max_hops"]["value"], 6.0);
  json col = calc("sharding.collective", {{"chip", "v5p"}, {"axes", "4x4"}});
  EXPECT_EQ(col["values"]["hops"]["value"], 6.0);
}

TEST(ShardingApi, CollectiveAndLocalCalculators) {
  json r = sb::api::handle(
      json{{"op", "calc"},
           {"name", "sharding.collective"},
           {"inputs", {{"op", "AllGather"}, {"bytes", 33554432}, {"axes", "4"}, {"chip", "v5e"}}}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  // v5e axis of 4 has no wraparound: 3 * 33554432 / (4 * 4.5e10) = 5.5924e-4 s.
  near_rel(r["values"]["t"]["value"].get<double>(), 3 * 33554432.0 / 1.8e11);
  EXPECT_EQ(r["regime"], "bandwidth-bound");
  EXPECT_EQ(r["plot"]["x"].size(), 81u);
  // Knee: latency 3 us equals bandwidth 3 V / (4 * 4.5e10) at V = 3e-6 * 1.8e11 / 3 = 180,000 B.
  near_rel(r["values"]["knee_bytes"]["value"].get<double>(), 180000, 1e-9);
  json two = sb::api::handle(json{{"op", "calc"},
                                  {"name", "sharding.collective"},
                                  {"inputs",
                                   {{"op", "AllReduce"},
                                    {"bytes", 1.8e11},
                                    {"axes", "4,4"},
                                    {"chip", "v5p"},
                                    {"wrap", "all"}}}});
  // v5p W_uni 9e10: two wrapped axes, AllReduce = 2 * V / (2 * 1.8e11) = 1 s.
  near_rel(two["values"]["t"]["value"].get<double>(), 1.0);
  json bad = sb::api::handle(
      json{{"op", "calc"}, {"name", "sharding.collective"}, {"inputs", {{"axes", "4x"}}}});
  EXPECT_EQ(bad["error"]["field"], "axes");
  json badop = sb::api::handle(
      json{{"op", "calc"}, {"name", "sharding.collective"}, {"inputs", {{"op", "Gather"}}}});
  EXPECT_EQ(badop["error"]["field"], "op");

  json l =
      sb::api::handle(json{{"op", "calc"}, {"name", "sharding.local"}, {"inputs", json::object()}});
  ASSERT_TRUE(l["ok"].get<bool>()) << l.dump();
  // Defaults: fp32[1024, 4096] as A[I_{XY}, J] on 8x2 -> 64 * 4096 * 4 = 1,048,576 B.
  EXPECT_EQ(l["values"]["bytes_per_device"]["value"], 1048576.0);
  EXPECT_EQ(l["values"]["local_I"]["value"], 64.0);
  json ls = sb::api::handle(
      json{{"op", "calc"}, {"name", "sharding.local"}, {"inputs", {{"sizes", "1024"}}}});
  EXPECT_EQ(ls["error"]["field"], "sizes");
}

// A GPU has no ICI torus: the collective costs say so on the chip, unless the reader gives the
// bandwidth of the ring to cost.
TEST(ShardingApi, GpuHasNoTorus) {
  for (const char* name : {"sharding.matmul", "sharding.collective"}) {
    json r = calc(name, {{"chip", "h100"}});
    ASSERT_FALSE(r["ok"].get<bool>()) << r.dump();
    EXPECT_EQ(r["error"]["field"], "chip");
    EXPECT_NE(r["error"]["message"].get<std::string>().find("The NVIDIA H100 SXM is a GPU"),
              std::string::npos);
  }
  // With w_uni = 4.5e11 on an axis of 4 (a GPU has no wraparound rule: an open line):
  // 3 * 33,554,432 / (4 * 4.5e11) = 5.5924e-5 s.
  json r = calc("sharding.collective", {{"chip", "h100"}, {"w_uni", 4.5e11}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  near_rel(value_of(r, "t"), 3 * 33554432.0 / 1.8e12);
}

// Every result stays a finite number: a bandwidth given is at least 1 B/s, an array at most 1e24
// elements, and each dimension has its own name.
TEST(ShardingApi, RangesKeepResultsFinite) {
  for (const char* name : {"sharding.collective", "sharding.matmul"}) {
    json r = calc(name, {{"w_uni", 0.5}});
    EXPECT_EQ(r["error"]["field"], "w_uni") << r.dump();
    EXPECT_EQ(r["error"]["code"], "out_of_range");
    EXPECT_EQ(calc(name, {{"w_uni", 5e-324}})["error"]["field"], "w_uni");
  }
  // The slowest case allowed: 1e15 B at 1 B/s over an open line of 4 (v5e):
  // 3 * 1e15 / (4 * 1) = 7.5e14 s, a finite number of seconds.
  json r = calc("sharding.collective", {{"w_uni", 1}, {"bytes", 1e15}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(value_of(r, "t"), 7.5e14);
  EXPECT_EQ(r.dump().find("null"), std::string::npos);
  // 60 dimensions of 1e6: 1e360 elements, far past 1e24. 24 dimensions of 10: exactly 1e24, fine:
  // 4e24 bytes of fp32 on one device.
  std::string dims, sizes;
  for (int i = 0; i < 60; ++i) {
    dims += (i ? ",D" : "A[D") + std::to_string(i);
    sizes += i ? ",1e6" : "1e6";
  }
  r = calc("sharding.local", {{"sharding", dims + "]"}, {"sizes", sizes}, {"mesh", "X=2"}});
  EXPECT_EQ(r["error"]["field"], "sizes") << r.dump();
  EXPECT_EQ(r["error"]["message"], "the array has more than 1e24 elements");
  dims.clear();
  sizes.clear();
  for (int i = 0; i < 24; ++i) {
    dims += (i ? ",D" : "A[D") + std::to_string(i);
    sizes += i ? ",10" : "10";
  }
  r = calc("sharding.local", {{"sharding", dims + "]"}, {"sizes", sizes}, {"mesh", "X=2"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  near_rel(value_of(r, "bytes_per_device"), 4e24);
  // A[I_X, I]: the second I is another name for the first.
  r = calc("sharding.local", {{"sharding", "A[I_X, I]"}, {"sizes", "8, 8"}, {"mesh", "X=2"}});
  EXPECT_EQ(r["error"]["field"], "sharding");
  EXPECT_EQ(r["error"]["code"], "dim_reused");
}

TEST(ShardingModel, RingSchedules) {
  using sb::sharding::Op;
  using sb::sharding::ring_schedule;
  // AllGather, two ways, N = 8: floor(8/2) = 4 steps, one shard each way but in the last (the
  // farthest shard needs one way): 4 shards clockwise, 3 back over each link.
  auto ag = ring_schedule(Op::AllGather, 8, true, true);
  ASSERT_EQ(ag.load.size(), 4u);
  EXPECT_EQ(ag.load[3], std::make_pair(1.0, 0.0));
  EXPECT_EQ(ag.link_cw, 4);
  EXPECT_EQ(ag.link_ccw, 3);
  EXPECT_EQ(ag.steps[0].size(), 16u);  // 8 devices x 2 directions
  EXPECT_EQ(ag.steps[3].size(), 8u);
  // One way: N - 1 = 7 steps of one shard per link (Question 10: D - 1 strips).
  EXPECT_EQ(ring_schedule(Op::AllGather, 8, false, false).link_cw, 7);
  // AllToAll, two ways, N = 8: pieces 1..4 hops clockwise, 1..3 back; in step s a link carries
  // the pieces still s or more hops from home: (4,3), (3,2), (2,1), (1,0). Clockwise in all
  // 4 + 3 + 2 + 1 = 10 = (N/2)(N/2 + 1)/2, the book's count (a2a_link_blocks_bidi).
  auto a2a = ring_schedule(Op::AllToAll, 8, true, true);
  ASSERT_EQ(a2a.load.size(), 4u);
  EXPECT_EQ(a2a.load[0], std::make_pair(4.0, 3.0));
  EXPECT_EQ(a2a.link_cw, sb::sharding::a2a_link_blocks_bidi(8));
  EXPECT_EQ(a2a.link_ccw, 6);
  // Every move is one chunk-hop: 8 devices x ((1+2+3+4) + (1+2+3)) = 8 x 16 = 128.
  size_t moves = 0;
  for (const auto& st : a2a.steps) moves += st.size();
  EXPECT_EQ(moves, 8 * sb::sharding::alltoall_chunk_hops_bidi(8));
  // One way, N = 4: 3 + 2 + 1 = 6 = D(D - 1)/2 (a2a_link_blocks_oneway).
  EXPECT_EQ(ring_schedule(Op::AllToAll, 4, false, false).link_cw,
            sb::sharding::a2a_link_blocks_oneway(4));
  // Time: steps of max(T_min, busiest link x chunk / W_uni).
  near_rel(sb::sharding::ring_time(a2a, 1000, 1e9, 1e-6), 10 * 1000 / 1e9);
  near_rel(sb::sharding::ring_time(a2a, 1, 1e9, 1e-6), 4e-6);  // latency-bound: 4 steps x 1 us
}

TEST(ShardingApi, RingStepByStep) {
  // AllGather of V = 2^25 B on a ring of 8 v5e (W_uni 4.5e10), both ways: shards of 2^22 B,
  // 4 steps of 2^22 / 4.5e10 = 93.2 us each: 372.8 us = V / W_ici, the book's formula.
  json r = calc("sharding.ring");
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(value_of(r, "chunk_bytes"), 4194304);
  near_rel(value_of(r, "t"), 33554432.0 / 9e10);
  near_rel(value_of(r, "t_book"), 33554432.0 / 9e10);
  // Before any step each device holds its own shard; after the last, all eight.
  const json& held = r["ring"]["held"];
  ASSERT_EQ(held.size(), 5u);
  EXPECT_EQ(held[0][3], json({3}));
  EXPECT_EQ(held[4][3], json({0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(r["ring"]["sent"][3], json({4, 3}));
  // N = 5 (odd): 2 steps of 2^25/5 / 4.5e10 = (4/5) V / W_ici, as the book's odd case.
  r = calc("sharding.ring", {{"n", 5}});
  near_rel(value_of(r, "t"), 0.8 * 33554432.0 / 9e10);
  near_rel(value_of(r, "t_book"), 0.8 * 33554432.0 / 9e10);
  // AllToAll on 8: pieces of 2^25 / 64 = 2^19 B; the busiest link carries 10 of them:
  // 10 x 524,288 / 4.5e10 = 116.5 us, above the book's large-N V / (4 W_ici) = 93.2 us.
  r = calc("sharding.ring", {{"op", "AllToAll"}});
  near_rel(value_of(r, "t"), 10 * 524288.0 / 4.5e10);
  near_rel(value_of(r, "t_book"), 33554432.0 / (4 * 9e10));
  // Each device ends with the pieces for it: device 2 the pieces o x 8 + 2.
  EXPECT_EQ(r["ring"]["held"][4][2], json({2, 10, 18, 26, 34, 42, 50, 58}));
  // The curve, N = 2 .. 64, holds this ring's time at N = 8.
  const json& c = r["curve"];
  EXPECT_EQ(c["n"].front(), 2);
  EXPECT_EQ(c["n"].back(), 64);
  near_rel(c["alltoall"][6].get<double>(), 10 * 524288.0 / 4.5e10);
  // Bad input names its field.
  expect_error_value(calc("sharding.ring", {{"n", 1}}), "n");
  expect_error_value(calc("sharding.ring", {{"n", 17}}), "n");
  expect_error_value(calc("sharding.ring", {{"op", "AllReduce"}}), "op");
  expect_error_value(calc("sharding.ring", {{"bytes", 0}}), "bytes");
  expect_error_value(calc("sharding.ring", {{"w_uni", 0.5}}), "w_uni");
  expect_error_value(calc("sharding.ring", {{"chip", "h100"}}), "chip");
}

TEST(ShardingApi, StrategyPhaseDiagram) {
  // v5p: C = 4.59e14, W_ici = 1.8e11. B* = C / W_ici = 2550; D* = 2C / W_ici = 5100; strategy 2
  // compute-bound above |X| D* = 4 x 5100 = 20,400.
  json r = calc("sharding.strategies");
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  near_rel(value_of(r, "b_star"), 2550);
  near_rel(value_of(r, "d_star"), 5100);
  near_rel(value_of(r, "d_compute_bound_2"), 20400);
  // At B = 1024, D = 8192, F = 32768, X = 4, overlapped:
  // strategy 1: max(2*1024*8192*32768 / 4.59e14, 2*8192*32768 / 1.8e11) = max(1.198, 2.983) ms;
  // strategy 2: max(1.198 ms / 4, 2 x 2*1024*32768 / 1.8e11) = max(0.299, 0.7457) ms: 2 wins.
  near_rel(value_of(r, "t_strategy1"), 2.0 * 8192 * 32768 / 1.8e11);
  near_rel(value_of(r, "t_strategy2"), 2 * 2.0 * 1024 * 32768 / 1.8e11);
  EXPECT_EQ(r["phase"]["point"]["winner"], 2);
  EXPECT_EQ(r["verdict"], "Strategy 2 is faster at B = 1024, D = 8192");
  const json& p = r["phase"];
  ASSERT_EQ(p["cells"].size(), 48u);
  ASSERT_EQ(p["cells"][0].size(), 48u);
  EXPECT_EQ(p["b"].front(), 1);
  EXPECT_EQ(p["b"].back(), 100000);
  EXPECT_EQ(p["d"].front(), 8);  // 2 |X|: D splits over X
  // Large B, small D: strategy 1, compute-bound (0). Small B, large D: strategy 2, bound by its
  // AllReduce (3). Large B, large D (65536 > 20,400): strategy 2 compute-bound (2).
  EXPECT_EQ(p["cells"][0][47], 0);
  EXPECT_EQ(p["cells"][47][0], 3);
  EXPECT_EQ(p["cells"][47][47], 2);
  // Without overlap the times add: 1.198 + 2.983 ms for strategy 1.
  r = calc("sharding.strategies", {{"overlap", "sum"}});
  near_rel(value_of(r, "t_strategy1"),
           2.0 * 1024 * 8192 * 32768 / 4.59e14 + 2.0 * 8192 * 32768 / 1.8e11);
  // The page chip picks C and W: v5e 1.97e14 / 9e10 = 2189.
  near_rel(value_of(calc("sharding.strategies", {{"chip", "v5e"}}), "b_star"), 1.97e14 / 9e10);
  expect_error_value(calc("sharding.strategies", {{"X", 1}}), "X");
  expect_error_value(calc("sharding.strategies", {{"X", 64}, {"d_max", 100}}), "d_max");
  expect_error_value(calc("sharding.strategies", {{"overlap", "both"}}), "overlap");
  expect_error_value(calc("sharding.strategies", {{"b_max", 1}}), "b_max");
  expect_error_value(calc("sharding.strategies", {{"chip", "h100"}}), "chip");
}

TEST(ShardingApi, ProblemsSolveAndGrade) {
  // Every sharding problem solves with its defaults.
  for (const auto& p : sb::Registry::get().problems()) {
    if (p.chapter != "sharding") continue;
    json r = sb::api::handle(json{{"op", "problem"}, {"id", p.id}});
    EXPECT_TRUE(r["ok"].get<bool>()) << p.id << ": " << r.dump().substr(0, 300);
    if (p.kind == "conceptual" || p.kind == "code") EXPECT_FALSE(p.model_answer.empty()) << p.id;
  }
  // PQ0: 64 * 4096 * 4 B = 1,048,576 B.
  json g = sb::api::handle(json{
      {"op", "check"}, {"id", "sharding.PQ0"}, {"answers", {{"bytes_per_device", "1048576"}}}});
  ASSERT_TRUE(g["ok"].get<bool>()) << g.dump();
  EXPECT_EQ(verdict_of(g, "bytes_per_device"), "correct");
  // Formula slot: the one-way AllGather per-link traffic N^2 (1 - 1/D).
  json f = sb::api::handle(
      json{{"op", "check"}, {"id", "sharding.Q10.a"}, {"answers", {{"formula", "N^2*(1-1/D)"}}}});
  ASSERT_TRUE(f["ok"].get<bool>()) << f.dump();
  EXPECT_EQ(verdict_of(f, "formula"), "correct");
  json wrong = sb::api::handle(
      json{{"op", "check"}, {"id", "sharding.Q10.a"}, {"answers", {{"formula", "N^2"}}}});
  EXPECT_EQ(verdict_of(wrong, "formula"), "wrong");
  json ex6 = sb::api::handle(json{
      {"op", "check"}, {"id", "sharding.EX6"}, {"answers", {{"formula", "V*max(A,B,C)/(4*N*W)"}}}});
  EXPECT_EQ(verdict_of(ex6, "formula"), "correct") << ex6.dump().substr(0, 400);
  // Q4's strategy-2 comms 4BF/W, and a factor-2 slip (an AllGather's 2BF/W) is not accepted.
  json q4 = sb::api::handle(
      json{{"op", "check"},
           {"id", "sharding.Q4"},
           {"answers", {{"t_comms_strategy2", "4*B*F/W"}, {"t_comms_strategy1", "2*D*F/W"}}}});
  EXPECT_EQ(verdict_of(q4, "t_comms_strategy2"), "correct");
  EXPECT_EQ(verdict_of(q4, "t_comms_strategy1"), "correct");
  json q4w = sb::api::handle(json{
      {"op", "check"}, {"id", "sharding.Q4"}, {"answers", {{"t_comms_strategy2", "2*B*F/W"}}}});
  EXPECT_EQ(verdict_of(q4w, "t_comms_strategy2"), "wrong");
  // Q2.c: AllReduce_Z of 2 * 1024 * 4096 / 16 = 524,288 B: 2 * 524288 / 9e10 = 1.165e-5 s. Half of
  // it (one gather, 5.825e-6 s) is wrong, with the hint that an AllReduce is two passes.
  json half = sb::api::handle(json{
      {"op", "check"}, {"id", "sharding.Q2.c"}, {"answers", {{"t_allreduce_z_s", "5.8254e-6 s"}}}});
  EXPECT_EQ(verdict_of(half, "t_allreduce_z_s"), "wrong");
  std::string hint;
  for (const auto& x : half["results"])
    if (x["slot"] == "t_allreduce_z_s") hint = x.value("hint", "");
  EXPECT_NE(hint.find("ReduceScatter followed by an AllGather"), std::string::npos) << hint;
  json full = sb::api::handle(json{
      {"op", "check"}, {"id", "sharding.Q2.c"}, {"answers", {{"t_allreduce_z_s", "11.65 us"}}}});
  EXPECT_EQ(verdict_of(full, "t_allreduce_z_s"), "correct");
  // A variant with a mesh that does not divide is refused, naming the field.
  json bad = sb::api::handle(
      json{{"op", "problem"}, {"id", "sharding.PQ1"}, {"given", {{"size_I", 100}}}});
  EXPECT_FALSE(bad["ok"].get<bool>());
  EXPECT_EQ(bad["error"]["field"], "sharding");
  json badmesh = sb::api::handle(json{{"op", "problem"},
                                      {"id", "sharding.EX1"},
                                      {"given", {{"mesh", "Mesh(devices=((0, 1), (2,)))"}}}});
  EXPECT_EQ(badmesh["error"]["field"], "mesh");
}
