// Pop quiz 3 (a two-axis AllGather inside an SU), Quiz 4 (switch traffic, SHARP, two nodes) and
// the collective examples of the running text (AllToAll over two nodes, SHARP, NCCL's bus
// bandwidth).
#include "chapters/gpus/problems.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::gpus {
namespace {

constexpr Param kPQ3Given[] = {dim("d", 8192, "D"),
                               dim("f", 32768, "F"),
                               elem_bytes(),
                               group("nodes_per_su", 32, "nodes per SU"),
                               dim("gpus_per_node", 8, "GPUs per node"),
                               bw("node_egress_Bps", 400e9, "node egress"),
                               bw("su_uplink_Bps", 12.8e12, "an SU's leaf capacity"),
                               dim("gpus_per_su", 256, "GPUs per SU")};
constexpr Slot kPQ3Slots[] = {derived(number("time_y_le_8", "s", "time for Y up to 8"), From::Link),
                              derived(number("time_y16", "s", "time for Y = 16"), From::Link),
                              derived(number("time_y32", "s", "time for Y = 32"), From::Link),
                              derived(number("time_y64", "s", "time for Y = 64"), From::Link)};
constexpr Problem kPQ3{
    .id = "gpus.PopQuiz3",
    .title = "Two-axis AllGather inside one SU",
    .statement =
        "Inside one SU ({gpus_per_su} GPUs: {nodes_per_su} nodes of {gpus_per_node}, each node "
        "with {node_egress_Bps} of egress, {su_uplink_Bps} of leaf capacity), AllGather_X("
        "bf16[D_X, F_Y]) with D = {d}, F = {f} ({bytes_per_elem} per element). How long does it "
        "take when the inner axis Y is at most one node, and when Y = 16, 32 and 64?",
    .kind = "formula",
    .given = kPQ3Given,
    .slots = kPQ3Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double v = tr.step("Array bytes", kArrayBytes,
                             {in.num("d"), in.num("f"), in.num("bytes_per_elem")});
          double w = in.num("node_egress_Bps"), m = in.num("nodes_per_su");
          double dn = in.num("gpus_per_node");
          auto at = [&](Text what, double y) {
            return tr.step(what, kSuTwoAxisAg, {v, w, m, dn, y});
          };
          double t8 = at("Y within a node: leaf-bound", dn);
          double t16 = at("Y = 16", 16), t32 = at("Y = 32", 32), t64 = at("Y = 64", 64);
          return Answers{
              {"time_y_le_8", t8}, {"time_y16", t16}, {"time_y32", t32}, {"time_y64", t64}};
        },
};

constexpr Param kQ41Given[] = {group("nodes_m", 32, "nodes in the SU"),
                               dim("gpus_per_node_n", 8, "GPUs per node"),
                               bw("gpu_egress_Bps", 450e9, "NVLink egress per GPU"),
                               bw("node_egress_Bps", 400e9, "node egress")};
constexpr Slot kQ41Slots[] = {
    number("node_switch_in_per_array_byte", "ratio", "into a node's switch, per array byte"),
    number("node_switch_out_per_array_byte", "ratio", "out of a node's switch, per array byte"),
    number("top_switch_in_per_array_byte", "ratio", "into the top switch, per array byte"),
    number("top_switch_out_per_array_byte", "ratio", "out of the top switch, per array byte"),
    number("node_level_bw", "B_per_s", "bandwidth the node level allows"),
    number("top_level_bw", "B_per_s", "bandwidth the top level allows")};
constexpr Problem kQ41{
    .id = "gpus.Quiz4.Q1",
    .title = "Switch byte counts for an SU AllGather",
    .statement =
        "An AllGather of B bytes runs over one SU of {nodes_m} nodes of {gpus_per_node_n} GPUs "
        "({gpu_egress_Bps} of NVLink per GPU, {node_egress_Bps} per node). Per byte of the "
        "array, how much goes into and out of a node's switch and the top switch, and what "
        "bandwidth does each level allow?",
    .kind = "formula",
    .given = kQ41Given,
    .slots = kQ41Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double m = in.num("nodes_m"), n = in.num("gpus_per_node_n");
          double ni = tr.step("Into a node's switch", kNodeSwitchIn, {m});
          double no = tr.step("Out of a node's switch", kNodeSwitchOut, {m, n});
          double ti = tr.step("Into the top switch", kTopSwitchIn, {m});
          double to = tr.step("Out of the top switch", kTopSwitchOut, {m});
          double tn = tr.step("Node level, per array byte", kNodeSwitchTime,
                              {1, no, n, in.num("gpu_egress_Bps")});
          double wn = tr.step("Node-level bandwidth", kEffectiveBw, {1, tn});
          double tt =
              tr.step("Top level: a ring of M nodes", kAgRing, {1, m, in.num("node_egress_Bps")});
          double wt = tr.step("Top-level bandwidth", kEffectiveBw, {1, tt});
          return Answers{{"node_switch_in_per_array_byte", ni},
                         {"node_switch_out_per_array_byte", no},
                         {"top_switch_in_per_array_byte", ti},
                         {"top_switch_out_per_array_byte", to},
                         {"node_level_bw", wn},
                         {"top_level_bw", wt}};
        },
};

constexpr Param kQ42Given[] = {group("n_gpus", 8, "GPUs on the switch")};
constexpr Slot kQ42Slots[] = {
    number("switch_in_per_array_byte", "ratio", "into the switch, per array byte"),
    number("switch_out_per_array_byte", "ratio", "out of the switch, per array byte")};
constexpr Problem kQ42{
    .id = "gpus.Quiz4.Q2",
    .title = "Switch byte counts for SHARP AllReduce",
    .statement =
        "In an in-network (SHARP) AllReduce of B bytes over {n_gpus} GPUs on one switch, how many "
        "bytes go into the switch and how many come out, per byte of the array?",
    .kind = "formula",
    .given = kQ42Given,
    .slots = kQ42Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double n = in.num("n_gpus");
          double i = tr.step("In: each GPU sends (N-1)/N, then its reduced 1/N", kSharpSwitch, {n});
          double o = tr.step("Out: each GPU gets its 1/N to reduce, then the (N-1)/N it lacks",
                             kSharpSwitch, {n});
          return Answers{{"switch_in_per_array_byte", i}, {"switch_out_per_array_byte", o}};
        },
};

}  // namespace

void add_problems_collectives_c(Registry& r);  // problems_collectives_c.cpp

void add_problems_collectives_b(Registry& r) {
  static constexpr Problem kAll[] = {kPQ3, kQ41, kQ42};
  r.add(kAll);
  add_problems_collectives_c(r);
}

}  // namespace sb::gpus
