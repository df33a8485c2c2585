// The sharding chapter's problem 10: the traffic on one link of a ring (sharding.Q10.a to .Q10.f).
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

// Question 10: one ring, six questions.
constexpr double kQ10Ds[] = {4, 8, 16, 64};
constexpr Param kQ10Given[] = {
    count("ring_D", 8, "D: devices in the ring", kQ10Ds, 2),
    count("matrix_N", 1024, "N: matrix side (cancels)"),
    count("large_D", 1e6, "a ring size standing in for D -> infinity", {}, 2, 1e9)};
constexpr Slot::Var vN{"N", "matrix side", 16, 65536}, vD{"D", "devices in the ring", 2, 256};
constexpr Slot::Var kQ10ND[] = {vN, vD};
constexpr Slot::Var kQ10D[] = {vD};

constexpr Slot kQ10aSlots[] = {
    number("large_D_coefficient_of_N2", "ratio", "coefficient of N^2 for large D"),
    formula(
        "formula", "count", "scalars per link", kQ10ND,
        [](const Vars& v) { return ag_link_scalars_oneway(at(v, "N"), at(v, "D")); },
        "N^2 (1 - 1/D)")};
constexpr Problem kQ10a{
    .id = "sharding.Q10.a",
    .title = "Per-link traffic of a one-way AllGather",
    .statement =
        "An N x N array is sharded A[I_X, J] on a one-way ring of D devices. How many "
        "scalars cross one link during an AllGather (or ReduceScatter)? Give the formula "
        "and its coefficient of N^2 when D is large.",
    .kind = "formula",
    .given = kQ10Given,
    .slots = kQ10aSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          tr.step("Scalars over one link at the chosen $N$ and $D$", kAgLinkOneway,
                  {in.num("matrix_N"), in.num("ring_D")});
          return Answers{{"large_D_coefficient_of_N2",
                          tr.step("Coefficient of $N^2$ as $D$ grows: the load at $N = 1$",
                                  kAgLinkOneway, {1, in.num("large_D")})}};
        },
};

constexpr Slot kQ10bSlots[] = {
    number("large_D_coefficient_of_N2", "ratio", "coefficient of N^2 for large D"),
    formula(
        "formula", "count", "scalars per link", kQ10ND,
        [](const Vars& v) { return a2a_link_scalars_oneway(at(v, "N"), at(v, "D")); },
        "\\frac{N^2}{2} (1 - 1/D)")};
constexpr Problem kQ10b{
    .id = "sharding.Q10.b",
    .title = "Per-link traffic of a one-way AllToAll",
    .statement =
        "Same ring: how many scalars cross one link during an AllToAll that moves the "
        "sharding from I to J? Give the formula and its coefficient of N^2 for large D.",
    .kind = "formula",
    .given = kQ10Given,
    .slots = kQ10bSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          tr.step("Scalars over one link at the chosen $N$ and $D$", kA2aLinkOneway,
                  {in.num("matrix_N"), in.num("ring_D")});
          return Answers{{"large_D_coefficient_of_N2",
                          tr.step("Coefficient of $N^2$ as $D$ grows: the load at $N = 1$",
                                  kA2aLinkOneway, {1, in.num("large_D")})}};
        },
};

constexpr Slot kQ10cSlots[] = {
    number("a2a_to_ag_ratio_unidirectional", "ratio", "AllToAll / AllGather")};
constexpr Problem kQ10c{
    .id = "sharding.Q10.c",
    .title = "AllToAll to AllGather ratio, one-way",
    .statement =
        "On the one-way ring of {ring_D}, what is the ratio of an AllToAll's per-link "
        "traffic to an AllGather's?",
    .kind = "numeric",
    .given = kQ10Given,
    .slots = kQ10cSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double n = in.num("matrix_N"), d = in.num("ring_D");
          const double ag = tr.step("AllGather: scalars over one link", kAgLinkOneway, {n, d});
          const double a2a = tr.step("AllToAll: scalars over one link", kA2aLinkOneway, {n, d});
          return Answers{{"a2a_to_ag_ratio_unidirectional",
                          tr.step("AllToAll over AllGather", kA2aOverAgLink, {a2a, ag})}};
        },
};

constexpr Slot kQ10dSlots[] = {number("ag_speedup_bidirectional", "ratio", "speed-up")};
constexpr Problem kQ10d{
    .id = "sharding.Q10.d",
    .title = "Bidirectional links speed up AllGather",
    .statement = "If the ring's links carry traffic both ways, how much faster is the AllGather?",
    .kind = "numeric",
    .given = kQ10Given,
    .slots = kQ10dSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double n = in.num("matrix_N"), d = in.num("ring_D");
          const double one = tr.step("One way: scalars over one link", kAgLinkOneway, {n, d});
          const double two =
              tr.step("Both ways: each strip split over the two directions", kAgLinkBidi, {n, d});
          return Answers{{"ag_speedup_bidirectional",
                          tr.step("One way over two ways", kOneWayOverTwo, {one, two})}};
        },
};

constexpr Slot kQ10eSlots[] = {number("a2a_speedup_bidirectional", "ratio", "speed-up for large D"),
                               number("large_D_coefficient_of_D2", "ratio", "coefficient of D^2"),
                               formula(
                                   "formula", "count", "hop-sum per link (blocks)", kQ10D,
                                   [](const Vars& v) { return a2a_link_blocks_bidi(at(v, "D")); },
                                   "\\frac{D}{2}\\left(\\frac{D}{2} + 1\\right) / 2")};
constexpr Problem kQ10e{
    .id = "sharding.Q10.e",
    .title = "Bidirectional links speed up AllToAll",
    .statement =
        "With both directions, blocks take the shorter way round. How much faster is the "
        "AllToAll for large D, what is the coefficient of D^2 in the busier direction's "
        "hop-sum, and what is that hop-sum as a formula (in units of (N/D)^2 blocks)?",
    .kind = "formula",
    .given = kQ10Given,
    .slots = kQ10eSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double d = in.num("large_D");
          const double one =
              tr.step("One way: blocks over one link, hop by hop", kA2aBlocksOneway, {d});
          const double two =
              tr.step("Both ways: blocks on the busier direction", kA2aBlocksBidi, {d});
          const double s =
              tr.step("One way over two ways, for large $D$", kHopSumOneWayOverTwo, {one, two});
          const double c = tr.step("Coefficient of $D^2$", kPerDSquared, {two, d});
          return Answers{{"a2a_speedup_bidirectional", s}, {"large_D_coefficient_of_D2", c}};
        },
};

constexpr Slot kQ10fSlots[] = {
    number("ag_to_a2a_time_ratio_bidirectional", "ratio", "AllGather / AllToAll")};
constexpr Problem kQ10f{
    .id = "sharding.Q10.f",
    .title = "AllGather to AllToAll ratio, bidirectional",
    .statement =
        "On a bidirectional ring, how many times longer does an AllGather take than an "
        "AllToAll, for large D?",
    .kind = "numeric",
    .given = kQ10Given,
    .slots = kQ10fSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double d = in.num("large_D");
          const double ag = tr.step("AllGather, both ways: scalars over one link at $N = 1$",
                                    kAgLinkBidi, {1, d});
          const double a2a = tr.step("AllToAll, both ways: scalars over one link at $N = 1$",
                                     kA2aLinkBidi, {1, d});
          return Answers{
              {"ag_to_a2a_time_ratio_bidirectional",
               tr.step("AllGather over AllToAll, for large $D$", kAgOverA2aLink, {ag, a2a})}};
        },
};

constexpr Problem kQ10[] = {kQ10a, kQ10b, kQ10c, kQ10d, kQ10e, kQ10f};

}  // namespace

void add_problems_ring_traffic(Registry& r) { r.add(kQ10); }

}  // namespace sb::sharding
