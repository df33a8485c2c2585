// The sharding chapter's problems on the memory, FLOPs and communication of sharded layers
// (sharding.Q7 to .Q9.c).
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

// Question 7: a memory-capped MLP layer on a v5e 2x2.

// Question 7's layouts: TP's two matmuls (In gathered over XY into H[B, F_XY], then H . W_out, a
// Case 3 finished by a ReduceScatter) with their derivations, and FSDP's first matmul, which
// gathers W_in whole.
struct Q7Layouts {
  MatmulAnalysis tp1, fsdp;
  Plan tp2;  // the second matmul's plan that ends in a ReduceScatter
};
Q7Layouts q7_layouts(const Inputs& in, double B, double D, double F, double w, double C,
                     Trace& tr) {
  Q7Layouts q;
  const MatmulInput m1 = matmul_of(in, in.text("tp_in"), in.text("tp_w_in"), B, D, F, "none", w, C,
                                   "tp_in", "tp_w_in");
  q.tp1 = analyze_as(m1, &tr, "tp_in", "tp_w_in");
  MatmulInput m2 = matmul_of(in, q.tp1.plan.out.text(), in.text("tp_w_out"), B, F, D, "none", w, C,
                             "tp_in", "tp_w_out");
  m2.a.name = "H";
  const MatmulAnalysis a2 = analyze_as(m2, &tr, "tp_in", "tp_w_out");
  q.tp2 = *find_plan(a2, "ReduceScatter");
  tr.note("TP keeps $Out$ sharded: its second matmul is " + plan_name_tex(q.tp2) + ".");
  const MatmulInput mf = matmul_of(in, in.text("fsdp_in"), in.text("fsdp_w_in"), B, D, F, "none", w,
                                   C, "fsdp_in", "fsdp_w_in");
  q.fsdp = analyze_as(mf, nullptr, "fsdp_in", "fsdp_w_in");
  return q;
}

constexpr double kQ7SizeB[] = {64, 128, 256};
constexpr double kQ7SizeD[] = {4096, 8192};
constexpr double kQ7SizeF[] = {16384, 32768};
constexpr double kQ7FreeMemPerChipB[] = {3e8, 6e8};
constexpr Param kQ7Given[] = {
    text("mesh", "{'X': 2, 'Y': 2}", "the mesh"),
    count("size_B", 128, "batch tokens", kQ7SizeB),
    count("size_D", 8192, "model dim", kQ7SizeD),
    count("size_F", 32768, "hidden dim", kQ7SizeF),
    memory("free_mem_per_chip_B", 3e8, "free memory per chip", kQ7FreeMemPerChipB),
    rate("peak_bf16_flops_per_s", "flop_per_s", 1.97e14, "bf16 FLOPs/s"),
    rate("w_ici_Bps", "B_per_s", 9e10, "bidirectional ICI bandwidth"),
    text("fsdp_in", "In[B_X, D]", "FSDP: input"),
    text("fsdp_w_in", "W_in[D_{XY}, F]", "FSDP: first weight"),
    text("tp_in", "In[B, D_{XY}]", "TP: input"),
    text("tp_w_in", "W_in[D, F_{XY}]", "TP: first weight"),
    text("tp_w_out", "W_out[F_{XY}, D]", "TP: second weight")};
constexpr Slot kQ7Slots[] = {
    number("weight_bytes_each", "B", "bytes of one weight"),
    number("input_bytes", "B", "bytes of the input"),
    number("tp_weight_bytes_per_chip", "B", "weight bytes per chip under TP"),
    boolean("tp_fits_in_cap", "TP fits in the cap?"),
    boolean("fsdp_full_weight_exceeds_cap", "FSDP's gathered weight exceeds the cap?"),
    number("flops_per_chip", "flop", "FLOPs per chip"),
    derived(number("t_math_s", "s", "FLOPs time per chip"), From::Flops)};
constexpr Problem kQ7{
    .id = "sharding.Q7",
    .title = "Memory-capped MLP layer on v5e 2x2",
    .statement =
        "In[B, D] ._D W_in[D, F] ._F W_out[F, D] -> Out[B, D] in bf16 with B = "
        "{size_B}, "
        "D = {size_D}, F = {size_F} on a v5e mesh {mesh}, with only "
        "{free_mem_per_chip_B} "
        "free per chip. How big is each weight and the input? Compare the FSDP layout "
        "({fsdp_in} . {fsdp_w_in}) with the tensor-parallel one ({tp_in} . {tp_w_in}, "
        "then "
        "{tp_w_out}): how many weight bytes does each chip hold under TP, does TP fit, "
        "does "
        "FSDP's gathered weight exceed the cap, and what are the FLOPs and FLOPs time "
        "per chip?",
    .kind = "numeric",
    .given = kQ7Given,
    .slots = kQ7Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double B = in.num("size_B"), D = in.num("size_D"), F = in.num("size_F");
          const double cap = in.num("free_mem_per_chip_B"), C = in.num("peak_bf16_flops_per_s");
          const double b = hw::dtype_bytes("bf16", "dtype");
          const double w = tr.step("One way of a link", kWUni, {in.num("w_ici_Bps")});
          const double wbytes = tr.product("One weight, $W_{in}[D, F]$ in bf16", "W_in", "B",
                                           {{"D", D}, {"F", F}, {"b", b}});
          const double ibytes = tr.product("The input, $In[B, D]$ in bf16", "In", "B",
                                           {{"B", B}, {"D", D}, {"b", b}});
          const Q7Layouts q = q7_layouts(in, B, D, F, w, C, tr);
          const double tpw =
              tr.sum("TP: weight bytes per chip", "W_chip", "B",
                     {{"W_in_chip", q.tp1.plan.peak_bytes_b}, {"W_out_chip", q.tp2.peak_bytes_b}});
          const double peak_tp = tr.sum(
              "TP: peak bytes per chip, the weights, the gathered input and $H$", "peak_TP", "B",
              {{"W_chip", tpw},
               {"In_chip", q.tp1.plan.peak_bytes_a},
               {"H_chip", q.tp2.peak_bytes_a}});
          tr.note(peak_tp <= cap
                      ? "TP fits: its peak is within the cap of " + units::format(cap, "B") + "."
                      : "TP does not fit: its peak is above the cap of " + units::format(cap, "B") +
                            ".");
          const double fsdp = tr.value("FSDP: $W_{in}$ gathered whole on every chip for the matmul",
                                       q.fsdp.plan.peak_bytes_b, "B");
          tr.note(fsdp > cap ? "FSDP's gathered weight is above the cap: that layout cannot work."
                             : "FSDP's gathered weight is within the cap.");
          const double flops =
              tr.sum("FLOPs per chip, both matmuls", "FLOPs", "flop",
                     {{"FLOPs_1", q.tp1.plan.flops_per_chip}, {"FLOPs_2", q.tp2.flops_per_chip}});
          const double tm = tr.step("$T_{math}$ per chip", roofline::kTMath, {flops, C});
          Answers a{{"weight_bytes_each", wbytes},
                    {"input_bytes", ibytes},
                    {"tp_weight_bytes_per_chip", tpw},
                    {"tp_fits_in_cap", peak_tp <= cap ? 1.0 : 0.0},
                    {"fsdp_full_weight_exceeds_cap", fsdp > cap ? 1.0 : 0.0},
                    {"flops_per_chip", flops},
                    {"t_math_s", tm}};
          // Power-of-two sizes called by their decimal names (2^29 B as 512 MB).
          for (const char* k : {"weight_bytes_each", "input_bytes", "tp_weight_bytes_per_chip"})
            a.book(k, units::decimal_name(a[k]), "writes " + units::decimal_name_text(a[k]));
          return a;
        },
    .hint =
        "Compare one whole weight with the cap: a layout that gathers it cannot "
        "work.",
};

constexpr Param kQ8Given[] = {text("mesh", "jax.make_mesh((4, 2), ('X', 'Y'))", "the mesh")};
constexpr Problem kQ8{
    .id = "sharding.Q8",
    .title = "Benchmark the four collectives",
    .statement =
        "With the mesh {mesh}, time AllGather, AllReduce, ReduceScatter and "
        "AllToAll on a "
        "sharded array and compare with the cost model.",
    .kind = "code",
    .given = kQ8Given,
    .slots = {},
    .solve =
        [](const Inputs& in, Trace& tr) {
          Mesh m = parse_mesh(in.text("mesh"), "mesh");
          tr.note("Mesh " + m.text() +
                  ": compare each measured time with the sharding.collective calculator.");
          return Answers{};
        },
    .model_answer =
        "Inside shard_map over the mesh, call jax.lax.all_gather, psum (AllReduce), "
        "psum_scatter "
        "(ReduceScatter) and all_to_all along one axis name on an array sharded like "
        "A[I_X, J]. "
        "Jit each function, run it once to compile, then time many calls with "
        "block_until_ready, for message sizes from a few kB to hundreds of MB. Plot "
        "time against "
        "bytes: small messages sit on a flat latency floor (hops x about 1 us), large "
        "ones on a "
        "line whose slope is 1 / bandwidth. Expect AllReduce near twice AllGather, "
        "ReduceScatter "
        "near AllGather, and AllToAll near a quarter of it on a wrapped axis. Divide "
        "bytes by "
        "time for the achieved bandwidth and compare it with the chip's ICI figure; a "
        "profile "
        "shows whether XLA split or fused the collectives.",
};

constexpr Problem kQ9a{
    .id = "sharding.Q9.a",
    .title = "Index-level local matmul then AllReduce",
    .statement =
        "A[I, J_X] ._J B[J, K] -> C[I, K] with B replicated on one axis X of D "
        "devices. "
        "Which products does each device compute, and how is the result finished?",
    .kind = "conceptual",
    .given = {},
    .slots = {},
    .solve =
        [](const Inputs&, Trace& tr) {
          tr.note(
              "Case 2 alternative: slice B along J to match A, multiply locally, "
              "$\\mathrm{AllReduce}_X$.");
          return Answers{};
        },
    .model_answer =
        "Device d owns one contiguous block of the contracting index j "
        "(with 16 values of j on 4 "
        "devices, device d holds j = 4d .. 4d+3). B is replicated, so the "
        "device simply reads the "
        "matching rows of B. For every output entry (i, k) it sums a[i, j] "
        "b[j, k] over its own "
        "j only, producing a full-shaped partial result C[I, K]{U_X}. The "
        "true C is the sum of "
        "these partials over the devices, which AllReduce_X computes and "
        "leaves on every device.",
};

constexpr Problem kQ9b{
    .id = "sharding.Q9.b",
    .title = "Sharded output allows a ReduceScatter",
    .statement =
        "In the same A[I, J_X] ._J B[J, K] with B replicated, the output may stay "
        "sharded. How does the algorithm change?",
    .kind = "conceptual",
    .given = {},
    .slots = {},
    .solve =
        [](const Inputs&, Trace& tr) {
          tr.note("A ReduceScatter costs half an AllReduce.");
          return Answers{};
        },
    .model_answer =
        "Keep the local multiply, but finish with ReduceScatter_X instead of "
        "AllReduce_X: each "
        "device ends with its summed slice, C[I_X, K] or C[I, K_X]. That moves half "
        "the bytes of "
        "the AllReduce (it is the AllReduce without its trailing AllGather), and the "
        "gather can be "
        "done later, or never, if the next operation wants the sharded layout.",
};

// Question 9.c: the comms ratio M/K.
constexpr Slot::Var kQ9cVars[] = {{"M", "contracting size", 128, 65536},
                                  {"K", "columns of B", 128, 65536}};
constexpr double kQ9cTestPointM[] = {2048, 8192, 16384};
constexpr double kQ9cTestPointK[] = {1024, 2048, 8192};
constexpr Param kQ9cGiven[] = {count("test_point_M", 8192, "M: contracting size", kQ9cTestPointM),
                               count("test_point_K", 2048, "K: columns of B", kQ9cTestPointK),
                               count("rows_N", 4096, "N: rows of A (cancels)"),
                               text("mesh", "{'X': 8}", "the ring (its size cancels)")};
constexpr Slot kQ9cSlots[] = {
    number("comm_ratio_at_test_point", "ratio", "gather-first / reduce-scatter comms"),
    formula(
        "formula", "ratio", "the ratio as a formula", kQ9cVars,
        [](const Vars& v) {
          return t_allgather_multi(at(v, "M"), 1, 1) / t_allgather_multi(at(v, "K"), 1, 1);
        },
        "\\frac{M}{K}")};
constexpr Problem kQ9c{
    .id = "sharding.Q9.c",
    .title = "Gather-first versus reduce-scatter-after comms",
    .statement =
        "For A[I, J_X] ._J B[J, K] with B replicated, compare the communication of "
        "gathering A first with that of multiplying locally and reduce-scattering C. "
        "What is the ratio at M = {test_point_M} (the contracting size) and K = "
        "{test_point_K}, and as a formula?",
    .kind = "formula",
    .given = kQ9cGiven,
    .slots = kQ9cSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          MatmulInput mi =
              matmul_of(in, "A[I, J_X]", "B[J, K]", in.num("rows_N"), in.num("test_point_M"),
                        in.num("test_point_K"), "all", 4.5e10, 1.97e14);
          if (mi.mesh.size("X") < 2)  // one device: no comms, and no ratio of them
            fail("mesh", "the axis X needs at least 2 devices to compare the strategies",
                 "out_of_range");
          MatmulAnalysis an = analyze_as(mi, &tr, "mesh", "mesh");
          const Plan* g = find_plan(an, "matmul", "AllGather");
          const Plan* rs = find_plan(an, "ReduceScatter");
          // The default plan's collectives are in the derivation already; the other's are costed.
          const auto comms = [&](const Plan* p, Text what) {
            return p == &an.plan ? p->t_comms : recost_comms(mi, *p, tr, what);
          };
          const double t_ag = comms(g, " when gathering $A$ first");
          const double t_rs = comms(rs, " when multiplying first");
          const double ratio =
              tr.step("Gather first over reduce-scatter after ($= M/K$)", kAgOverRs, {t_ag, t_rs});
          return Answers{{"comm_ratio_at_test_point", ratio}};
        },
};

constexpr Problem kMatmulCosts[] = {kQ7, kQ8, kQ9a, kQ9b, kQ9c};

}  // namespace

void add_problems_matmul_costs(Registry& r) { r.add(kMatmulCosts); }

}  // namespace sb::sharding
