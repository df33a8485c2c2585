// Quiz 2 (the node), Quiz 3 (the fat tree) and the pod examples of the running text: switch
// capacity, bisection, per-level bandwidth, the switch count, the NVL72 rack and the per-level
// ring bandwidth.
#include <cmath>
#include <string>

#include "chapters/gpus/problems.hpp"
#include "core/error.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::gpus {
namespace {

constexpr Param kQ21Given[] = {dim("n_nvswitches", 4, "NVSwitches in the node"),
                               dim("ports_per_switch", 64, "ports per NVSwitch"),
                               bw("port_bw_Bps", 25e9, "bandwidth per port, each way"),
                               dim("n_gpus", 8, "GPUs in the node"),
                               bw("gpu_egress_Bps", 450e9, "NVLink egress per GPU")};
constexpr Slot kQ21Slots[] = {number("switch_capacity", "B_per_s", "what the switches carry"),
                              number("node_bandwidth", "B_per_s", "what the node can use")};
constexpr Problem kQ21{
    .id = "gpus.Quiz2.Q1",
    .title = "Total bandwidth of an 8xH100 node",
    .statement =
        "An H100 node has {n_nvswitches} NVSwitches of {ports_per_switch} ports at {port_bw_Bps} "
        "each, and {n_gpus} GPUs with {gpu_egress_Bps} of NVLink egress each. How much can the "
        "switches carry, and how much of it can the node use?",
    .kind = "numeric",
    .given = kQ21Given,
    .slots = kQ21Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double sw =
              tr.step("Switch capacity", kSwitchCapacity,
                      {in.num("n_nvswitches"), in.num("ports_per_switch"), in.num("port_bw_Bps")});
          double node = tr.step("The GPUs' links or the switches, whichever is less",
                                kNodeBandwidth, {sw, in.num("n_gpus"), in.num("gpu_egress_Bps")});
          tr.note(node < sw ? "the GPUs' links are the limit, not the switches"
                            : "the switches are the limit");
          Answers a{{"switch_capacity", sw}, {"node_bandwidth", node}};
          a.slip("node_bandwidth", sw, "the GPUs' own links cap what the switches can carry");
          return a;
        },
};

constexpr Param kQ22Given[] = {
    dim("n_gpus", 8, "GPUs in the node"), bw("gpu_egress_Bps", 450e9, "NVLink egress per GPU"),
    choice("count_both_directions", "both", "both|one", "directions counted")};
constexpr Slot kQ22Slots[] = {number("bisection_bandwidth", "B_per_s", "bisection bandwidth")};
constexpr Problem kQ22{
    .id = "gpus.Quiz2.Q2",
    .title = "Bisection bandwidth of an 8xH100 node",
    .statement =
        "Split a node of {n_gpus} GPUs ({gpu_egress_Bps} of NVLink egress each) into two even "
        "halves. How much bandwidth crosses the split? Directions counted: "
        "{count_both_directions}.",
    .kind = "numeric",
    .given = kQ22Given,
    .slots = kQ22Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double n = in.num("n_gpus"), w = in.num("gpu_egress_Bps");
          const bool both = in.text("count_both_directions") == "both";
          double b = both ? tr.step("Both ways", kBisection, {n, w})
                          : tr.step("One way", kBisectionOneWay, {n, w});
          Answers a{{"bisection_bandwidth", b}};
          a.slip("bisection_bandwidth", both ? b / 2 : b * 2,
                 both ? "counts one direction; the question counts both"
                      : "counts both directions; the question counts one");
          return a;
        },
};

constexpr Param kQ31Given[] = {dim("nics_per_node", 8, "NICs per node"),
                               bw("nic_bw_Bps", 50e9, "bandwidth per NIC"),
                               dim("leaf_switches_per_su", 8, "leaf switches per SU"),
                               dim("leaf_ports", 64, "ports per IB switch"),
                               dim("leaf_down_ports", 32, "down-facing ports per leaf"),
                               dim("nodes_per_su", 32, "nodes per SU"),
                               dim("n_su", 4, "SUs"),
                               dim("spine_switches", 16, "spine switches"),
                               dim("cables_per_leaf_spine", 2, "cables per leaf-spine pair"),
                               bw("port_bw_Bps", 50e9, "bandwidth per IB port")};
constexpr Slot kQ31Slots[] = {
    number("node_to_leaf", "B_per_s", "a node's egress to its leaves"),
    number("leaf_down_capacity_per_su", "B_per_s", "an SU's down-facing leaf capacity"),
    number("su_uplink", "B_per_s", "an SU's cables to the spine"),
    number("spine_capacity", "B_per_s", "the spine's capacity"),
    number("bisection_per_node", "B_per_s", "bandwidth per node across the pod")};

// The leaves' up-facing ports must take every cable to the spines.
void check_ports(const Inputs& in) {
  double up = in.num("leaf_ports") - in.num("leaf_down_ports");
  if (up < 0) fail("leaf_down_ports", "more than the switch's ports", "bad_value");
  if (in.num("spine_switches") * in.num("cables_per_leaf_spine") > up)
    fail("cables_per_leaf_spine",
         "the leaves have only " + units::format(up, "count") +
             " up-facing ports for spine_switches x cables_per_leaf_spine cables",
         "infeasible");
}

constexpr Problem kQ31{
    .id = "gpus.Quiz3.Q1",
    .title = "Full bisection of the 1024-GPU SuperPod",
    .statement =
        "Each node has {nics_per_node} NICs of {nic_bw_Bps}. An SU is {nodes_per_su} nodes under "
        "{leaf_switches_per_su} leaf switches of {leaf_ports} ports ({leaf_down_ports} facing "
        "down) at {port_bw_Bps}; {n_su} SUs sit under {spine_switches} spine switches with "
        "{cables_per_leaf_spine} cables per leaf-spine pair. What is the bandwidth at each level, "
        "and what can every node send across the pod at once?",
    .kind = "numeric",
    .given = kQ31Given,
    .slots = kQ31Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          check_ports(in);
          double port = in.num("port_bw_Bps"), leaves = in.num("leaf_switches_per_su");
          double node = tr.step("Node to leaves", kNodeEgress,
                                {in.num("nics_per_node"), in.num("nic_bw_Bps")});
          double leaf = tr.step("Leaves, facing down", kLeafCapacity,
                                {leaves, in.num("leaf_down_ports"), port});
          double up =
              tr.step("Leaves to spine", kSuUplink,
                      {leaves, in.num("spine_switches"), in.num("cables_per_leaf_spine"), port});
          double spine = tr.step("Spine", kSpineCapacity,
                                 {in.num("spine_switches"), in.num("leaf_ports"), port});
          double m_su = in.num("nodes_per_su");
          double per = tr.step("Per node, the narrowest level", kPerNodeBisection,
                               {node, leaf, up, m_su, spine, m_su * in.num("n_su")});
          Answers a{{"node_to_leaf", node},
                    {"leaf_down_capacity_per_su", leaf},
                    {"su_uplink", up},
                    {"spine_capacity", spine},
                    {"bisection_per_node", per}};
          a.slip("bisection_per_node", per / in.num("nics_per_node"),
                 "that is per GPU; the question asks per node");
          return a;
        },
};

}  // namespace

void add_problems_network_b(Registry& r);  // problems_network_b.cpp

void add_problems_network(Registry& r) {
  static constexpr Problem kAll[] = {kQ21, kQ22, kQ31};
  r.add(kAll);
  add_problems_network_b(r);
}

}  // namespace sb::gpus
