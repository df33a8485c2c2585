// The sharding chapter's problems on sharded matmul strategies and layouts (sharding.Q4 to .Q6.c).
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "chapters/sharding/model.hpp"
#include "chapters/sharding/notation.hpp"
#include "chapters/sharding/problems.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

// Problems are written with designated initializers; the members left out keep their defaults,
// which is what this warning is about.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::sharding {
namespace {

// Question 4: the two strategies' times.
constexpr Slot::Var kQ4Math1[] = {{"B", "batch", 1, 1e5},
                                  {"D", "model dim", 128, 65536},
                                  {"F", "output dim", 128, 65536},
                                  {"C", "FLOPs/s", 1e14, 3e15}};
constexpr Slot::Var kQ4Comms1[] = {{"D", "model dim", 128, 65536},
                                   {"F", "output dim", 128, 65536},
                                   {"W", "W_ici, B/s", 1e10, 1e12}};
constexpr Slot::Var kQ4Math2[] = {{"B", "batch", 1, 1e5},
                                  {"D", "model dim", 128, 65536},
                                  {"F", "output dim", 128, 65536},
                                  {"X", "axis size", 2, 64},
                                  {"C", "FLOPs/s", 1e14, 3e15}};
constexpr Slot::Var kQ4Comms2[] = {
    {"B", "batch", 1, 1e5}, {"F", "output dim", 128, 65536}, {"W", "W_ici, B/s", 1e10, 1e12}};

// Question 6: three layouts of the same matmul on a v5e 4x4.
constexpr Param kQ6Chip = chip_param("v5e", "chip (its wraparound rule)");
constexpr Param kQ6Mesh = text("mesh", "{'X': 4, 'Y': 4}", "the mesh");
constexpr Param kQ6Peak = chip_spec(
    rate("peak_bf16_flops_per_s", "flop_per_s", 1.97e14, "C: bf16 FLOPs/s"), "peak_flops_bf16");
constexpr Param kQ6WUni =
    chip_spec(rate("w_uni_Bps", "B_per_s", 4.5e10, "one-way ICI link bandwidth"), "ici_bw_oneway");
// The chip's wraparound rule, as a spec: a variant draws a chip of a 2-D torus, whose axes of 4
// do not wrap (as the statements say).
constexpr Param kQ6Wrap =
    chip_spec(count("wrap_axis_length", 16, "an axis of the torus wraps when its length is"),
              "wrap_if_axis_length");
constexpr Param kQ6I = count("size_I", 8192, "reference I (answers are per unit)");
constexpr Param kQ6J = count("size_J", 8192, "reference J (answers are per unit)");
constexpr Param kQ6K = count("size_K", 8192, "reference K (answers are per unit)");
constexpr Param kQ6aGiven[] = {kQ6Chip,
                               kQ6Mesh,
                               text("sharding_A", "A[I_X, J_Y]", "sharding of A"),
                               text("sharding_B", "B[J_Y, K]", "sharding of B"),
                               kQ6Peak,
                               kQ6WUni,
                               kQ6Wrap,
                               kQ6I,
                               kQ6J,
                               kQ6K};
constexpr Param kQ6bGiven[] = {kQ6Chip,
                               kQ6Mesh,
                               text("sharding_A", "A[I_X, J]", "sharding of A"),
                               text("sharding_B", "B[J_X, K_Y]", "sharding of B"),
                               kQ6Peak,
                               kQ6WUni,
                               kQ6Wrap,
                               kQ6I,
                               kQ6J,
                               kQ6K};
constexpr Param kQ6cGiven[] = {kQ6Chip,
                               kQ6Mesh,
                               text("sharding_A", "A[I_X, J]", "sharding of A"),
                               text("sharding_B", "B[J, K_Y]", "sharding of B"),
                               kQ6Peak,
                               kQ6WUni,
                               kQ6Wrap,
                               kQ6I,
                               kQ6J,
                               kQ6K};
// Runs the analysis as wired and on a full ring, bandwidth terms only (per-unit answers).
struct Q6 {
  MatmulAnalysis open, ring;
  double I, J, K;
};
Q6 q6(const Inputs& in, Trace& tr) {
  Q6 q;
  q.I = in.num("size_I");
  q.J = in.num("size_J");
  q.K = in.num("size_K");
  const double C = in.num("peak_bf16_flops_per_s"), w = in.num("w_uni_Bps");
  MatmulInput mi =
      matmul_of(in, in.text("sharding_A"), in.text("sharding_B"), q.I, q.J, q.K, "all", w, C);
  mi.wrap = chip_wraps(in.text("chip"), mi.mesh);
  q.open = analyze_as(mi, &tr, "sharding_A", "sharding_B");
  mi.wrap.assign(mi.wrap.size(), true);
  q.ring = analyze_as(mi, nullptr, "sharding_A", "sharding_B");
  recost_comms(mi, q.ring.plan, tr, " on full rings (for comparison)");
  return q;
}
constexpr Slot::Var vIK[] = {{"I", "rows of A", 128, 65536},
                             {"K", "cols of B", 128, 65536},
                             {"X", "mesh axis X size", 2, 16},
                             {"Y", "mesh axis Y size", 2, 16},
                             {"W_uni", "one-way ICI bandwidth, B/s", 1e10, 2e11}};
constexpr Slot::Var vJK[] = {{"J", "contracting dim", 128, 65536},
                             {"K", "cols of B", 128, 65536},
                             {"X", "mesh axis X size", 2, 16},
                             {"Y", "mesh axis Y size", 2, 16},
                             {"W_uni", "one-way ICI bandwidth, B/s", 1e10, 2e11}};
constexpr Slot::Var vIJK[] = {
    {"I", "rows of A", 128, 65536},   {"J", "contracting dim", 128, 65536},
    {"K", "cols of B", 128, 65536},   {"X", "mesh axis X size", 2, 16},
    {"Y", "mesh axis Y size", 2, 16}, {"C", "bf16 FLOPs/s", 1e14, 3e15}};

constexpr double kQ4DModelTypical[] = {4096, 8192, 16384};
constexpr Param kQ4Given[] = {
    chip_spec(rate("peak_bf16_flops_per_s", "flop_per_s", 4.59e14, "C: bf16 FLOPs/s"),
              "peak_flops_bf16"),
    chip_spec(rate("w_ici_Bps", "B_per_s", 1.8e11, "W_ici: bidirectional ICI bandwidth"),
              "ici_bw_bidi"),
    count("d_model_typical", 8192, "D for the X bound", kQ4DModelTypical),
    text("mesh", "{'X': 4}", "a reference mesh axis (the thresholds do not depend on it)"),
    count("ref_size", 8192, "reference B = D = F the thresholds are scaled from")};
constexpr Slot kQ4Slots[] = {
    at_most(number("b_threshold_strategy1_comms_bound", "tokens",
                   "B below which strategy 1 is comms-bound")),
    at_least(
        number("d_threshold_strategy2_wins_large_batch", "count", "D above which strategy 2 wins")),
    at_most(number("x_max_strategy2_compute_bound", "count",
                   "largest X with strategy 2 compute-bound")),
    derived(formula(
                "t_math_strategy1", "s", "T_math of strategy 1", kQ4Math1,
                [](const Vars& v) {
                  return roofline::t_math(
                      roofline::matmul_flops({at(v, "B"), at(v, "D"), at(v, "F")}), at(v, "C"));
                },
                "\\frac{2BDF}{C}"),
            From::Flops),
    derived(formula(
                "t_comms_strategy1", "s", "T_comms of strategy 1", kQ4Comms1,
                [](const Vars& v) {
                  return t_allgather_multi(2 * at(v, "D") * at(v, "F"), 1, at(v, "W"));
                },
                "\\frac{2DF}{W}"),
            From::Link),
    derived(formula(
                "t_math_strategy2", "s", "T_math of strategy 2", kQ4Math2,
                [](const Vars& v) {
                  return roofline::t_math(
                      roofline::matmul_flops({at(v, "B"), at(v, "D"), at(v, "F")}) / at(v, "X"),
                      at(v, "C"));
                },
                "\\frac{2BDF}{XC}"),
            From::Flops),
    derived(formula(
                "t_comms_strategy2", "s", "T_comms of strategy 2", kQ4Comms2,
                [](const Vars& v) {
                  return t_allreduce_from_ag(
                      t_allgather_multi(2 * at(v, "B") * at(v, "F"), 1, at(v, "W")));
                },
                "\\frac{4BF}{W}"),
            From::Link)};
constexpr Problem kQ4{
    .id = "sharding.Q4",
    .title = "Gather-first versus local matmul plus AllReduce",
    .statement =
        "X[B, D] ._D Y[D_X, F] -> Z[B, F] on one mesh axis X. Strategy 1 gathers Y and "
        "multiplies replicated; strategy 2 slices X along D, multiplies locally and "
        "AllReduces Z. With C = {peak_bf16_flops_per_s} and W_ici = {w_ici_Bps}: below "
        "which batch B is strategy 1 communication-bound, above which D does strategy "
        "2 "
        "win at large batch, and up to which X is strategy 2 compute-bound when D = "
        "{d_model_typical}? Give each strategy's T_math and T_comms as formulas.",
    .kind = "formula",
    .given = kQ4Given,
    .slots = kQ4Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double C = in.num("peak_bf16_flops_per_s"), W = in.num("w_ici_Bps"),
                       n0 = in.num("ref_size");
          // The two strategies, as the model plans them on the reference sizes.
          const MatmulInput mi =
              matmul_of(in, "X[B, D]", "Y[D_X, F]", n0, n0, n0, "all", one_way_bw(W), C);
          if (mi.mesh.sizes.at(0) < 2)  // one device: no AllReduce, nothing to compare
            fail("mesh", "the axis X needs at least 2 devices to compare the strategies",
                 "out_of_range");
          const MatmulAnalysis an = analyze_as(mi, nullptr, "mesh", "mesh");
          tr.note("Strategy 1: " + plan_name_tex(*find_plan(an, "matmul", "AllGather")) +
                  ". Strategy 2: " + plan_name_tex(*find_plan(an, "AllReduce")) + ".");
          // Strategy 1's gather does not depend on B, strategy 2's AllReduce not on D.
          const double b =
              tr.step("Strategy 1 is comms-bound while $2BDF/C < 2DF/W$", kBStar, {C, W});
          const double d =
              tr.step("Strategy 2 wins at large $B$ when $4BF/W < 2BDF/C$", kDStar, {C, W});
          const double x = tr.step("Strategy 2 is compute-bound while $2BDF/(XC) > 4BF/W$", kXStar,
                                   {in.num("d_model_typical"), C, W});
          tr.note(x < 2 ? "So strategy 2 is compute-bound only for $X$ below 2: in "
                          "practice it is almost always "
                          "communication-bound, though it still beats a replicated "
                          "matmul when $D > 2C/W$."
                        : "Strategy 2 stays compute-bound up to that $X$.");
          return Answers{{"b_threshold_strategy1_comms_bound", b},
                         {"d_threshold_strategy2_wins_large_batch", d},
                         {"x_max_strategy2_compute_bound", x}};
        },
    .hint =
        "Strategy 1's gather does not depend on B; strategy 2's AllReduce does not "
        "depend on D.",
};

constexpr Param kQ5Given[] = {chip_param("v4p", "chip"),
                              text("mesh", "{'X': 4, 'Y': 4, 'Z': 4}", "the mesh")};
constexpr Problem kQ5{
    .id = "sharding.Q5",
    .title = "Lowest-latency sharding for a replicated output",
    .statement =
        "On a {chip} cube {mesh}, compute A[I, J] ._J B[J, K] -> C[I, K] with C fully "
        "replicated at the end. How would you shard the inputs to finish soonest?",
    .kind = "conceptual",
    .given = kQ5Given,
    .slots = {},
    .solve =
        [](const Inputs& in, Trace& tr) {
          Mesh m = parse_mesh(in.text("mesh"), "mesh");
          tr.note("Mesh " + m.text() + ": " + std::to_string(m.devices()) +
                  " devices; using every axis splits the FLOPs N ways.");
          return Answers{};
        },
    .model_answer =
        "Use all three axes so that each chip does 1/64 of the 2IJK FLOPs, and pay a "
        "collective "
        "over all three axes at once, which gets three links' worth of bandwidth. Two "
        "layouts do "
        "that. (a) Shard the contracting dim: A[I, J_{XYZ}] . B[J_{XYZ}, K] gives C[I, "
        "K]{U_XYZ}, "
        "then AllReduce_{XYZ}: about 2 x 2IK / (3 W_ici) of comms, and the inputs are "
        "not "
        "replicated. (b) Shard a free dim: A[I_{XYZ}, J] . B[J, K] gives C[I_{XYZ}, "
        "K], then "
        "AllGather_{XYZ}: about 2IK / (3 W_ici), half of (a), but B must be fully "
        "replicated on "
        "every chip. Which is faster depends on whether that memory is available and, "
        "for small "
        "C, on latency: both collectives cross sum(|X_i|)/2 = 6 hops, and the "
        "AllReduce makes "
        "that trip twice. Never pick a layout that shards I and K on the same axis.",
};

constexpr Slot kQ6aSlots[] = {
    derived(number("comm_time_per_IK_open_line_s", "s", "comms time per I*K, open line"),
            From::Link),
    derived(number("comm_time_per_IK_full_ring_s", "s", "comms time per I*K, full ring"),
            From::Link),
    derived(number("math_time_per_IJK_s", "s", "FLOPs time per I*J*K"), From::Flops),
    number("flops_fraction_per_chip", "ratio", "share of the FLOPs per chip"),
    derived(formula(
                "formula", "s", "communication time (open line)", vIK,
                [](const Vars& v) {
                  return t_allreduce_from_ag(t_allgather_line(
                      2 * at(v, "I") * at(v, "K") / at(v, "X"), at(v, "Y"), at(v, "W_uni")));
                },
                "2 \\cdot \\frac{Y-1}{Y} \\cdot \\frac{2IK/X}{W_{uni}}"),
            From::Link)};
constexpr Problem kQ6a{
    .id = "sharding.Q6.a",
    .title = "Contraction sharded on Y in both operands",
    .statement =
        "On a {chip} mesh {mesh} (no wraparound on axes of 4), multiply "
        "{sharding_A} by "
        "{sharding_B}. Which collective is needed? Give its time per unit I*K "
        "on the open "
        "line and on an ideal ring, the FLOPs time per unit I*J*K and each "
        "chip's share "
        "of the FLOPs, and the communication time as a formula.",
    .kind = "formula",
    .given = kQ6aGiven,
    .slots = kQ6aSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Q6 q = q6(in, tr);
          return Answers{{"comm_time_per_IK_open_line_s", q.open.plan.t_comms / (q.I * q.K)},
                         {"comm_time_per_IK_full_ring_s", q.ring.plan.t_comms / (q.I * q.K)},
                         {"math_time_per_IJK_s", q.open.plan.t_math / (q.I * q.J * q.K)},
                         {"flops_fraction_per_chip",
                          q.open.plan.flops_per_chip / roofline::matmul_flops({q.I, q.J, q.K})}};
        },
};

constexpr Slot kQ6bSlots[] = {
    derived(number("comm_time_per_JK_open_line_s", "s", "comms time per J*K, open line"),
            From::Link),
    derived(number("comm_time_per_JK_full_ring_s", "s", "comms time per J*K, full ring"),
            From::Link),
    derived(number("math_time_per_IJK_s", "s", "FLOPs time per I*J*K"), From::Flops),
    number("flops_fraction_per_chip", "ratio", "share of the FLOPs per chip"),
    derived(formula(
                "formula", "s", "communication time (open line)", vJK,
                [](const Vars& v) {
                  return t_allgather_line(2 * at(v, "J") * at(v, "K") / at(v, "Y"), at(v, "X"),
                                          at(v, "W_uni"));
                },
                "\\frac{X-1}{X} \\cdot \\frac{2JK/Y}{W_{uni}}"),
            From::Link)};
constexpr Problem kQ6b{
    .id = "sharding.Q6.b",
    .title = "Data plus tensor plus FSDP training layout",
    .statement =
        "On a {chip} mesh {mesh}, multiply {sharding_A} by {sharding_B}. Which "
        "collective "
        "is needed? Give its time per unit J*K on the open line and on an ideal ring, "
        "the FLOPs time per unit I*J*K, each chip's share of the FLOPs, and the "
        "communication time as a formula.",
    .kind = "formula",
    .given = kQ6bGiven,
    .slots = kQ6bSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Q6 q = q6(in, tr);
          return Answers{{"comm_time_per_JK_open_line_s", q.open.plan.t_comms / (q.J * q.K)},
                         {"comm_time_per_JK_full_ring_s", q.ring.plan.t_comms / (q.J * q.K)},
                         {"math_time_per_IJK_s", q.open.plan.t_math / (q.I * q.J * q.K)},
                         {"flops_fraction_per_chip",
                          q.open.plan.flops_per_chip / roofline::matmul_flops({q.I, q.J, q.K})}};
        },
};

constexpr Slot kQ6cSlots[] = {
    derived(number("comm_time_s", "s", "communication time"), From::Link),
    derived(number("math_time_per_IJK_s", "s", "FLOPs time per I*J*K"), From::Flops),
    number("flops_fraction_per_chip", "ratio", "share of the FLOPs per chip"),
    derived(formula(
                "formula", "s", "compute time", vIJK,
                [](const Vars& v) {
                  return roofline::t_math(
                      roofline::matmul_flops({at(v, "I"), at(v, "J"), at(v, "K")}) /
                          (at(v, "X") * at(v, "Y")),
                      at(v, "C"));
                },
                "\\frac{2IJK}{XYC}"),
            From::Flops)};
constexpr Problem kQ6c{
    .id = "sharding.Q6.c",
    .title = "Inference layout with no contracting sharding",
    .statement =
        "On a {chip} mesh {mesh}, multiply {sharding_A} by {sharding_B}. Which "
        "collective "
        "is needed, what does it cost, what is the FLOPs time per unit I*J*K and each "
        "chip's share of the FLOPs? Give the compute time as a formula.",
    .kind = "formula",
    .given = kQ6cGiven,
    .slots = kQ6cSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Q6 q = q6(in, tr);
          return Answers{{"comm_time_s", q.open.plan.t_comms},
                         {"math_time_per_IJK_s", q.open.plan.t_math / (q.I * q.J * q.K)},
                         {"flops_fraction_per_chip",
                          q.open.plan.flops_per_chip / roofline::matmul_flops({q.I, q.J, q.K})}};
        },
};

constexpr Problem kMatmuls[] = {kQ4, kQ5, kQ6a, kQ6b, kQ6c};

}  // namespace

void add_problems_matmuls(Registry& r) { r.add(kMatmuls); }

}  // namespace sb::sharding
