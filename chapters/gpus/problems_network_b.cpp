// Quiz 3, question 2 (growing the pod), and the pod examples of the running text: the switch
// count, the GB200 NVL72 rack and the per-level ring bandwidth of the fat tree.
#include <cmath>

#include "chapters/gpus/problems.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::gpus {
namespace {

constexpr Param kQ32Given[] = {dim("base_pod_gpus", 1024, "GPUs of the reference pod"),
                               dim("leaf_ports", 64, "ports per IB switch"),
                               dim("nodes_per_su", 32, "nodes per SU"),
                               dim("leaf_switches_per_su", 8, "leaf switches per SU"),
                               dim("spine_switches", 16, "spine switches of the reference pod")};

constexpr double kGpusPerNode = 8;  // an H100 DGX node

// Spine ports a two-tier tree of `gpus` needs, against what `spines` switches offer.
void two_tier(Trace& tr, const Inputs& in, double gpus) {
  double su_gpus = in.num("nodes_per_su") * kGpusPerNode;
  double sus = std::ceil(gpus / su_gpus);
  double leaves = sus * in.num("leaf_switches_per_su");
  double up = leaves * (in.num("leaf_ports") / 2);  // half of a leaf's ports face up
  tr.value("SUs", sus, "count");
  tr.value("Leaf ports facing up, in all", up, "count");
  double spines = std::ceil(up / in.num("leaf_ports"));
  tr.value("Spine switches that many ports fill", spines, "count");
  tr.note(spines <= in.num("leaf_ports") / 2
              ? "each leaf reaches every spine with a whole number of cables: two tiers suffice"
              : "a leaf has fewer up-facing ports than there are spines: a third (core) tier is "
                "needed");
}

constexpr Problem kQ32{
    .id = "gpus.Quiz3.Q2",
    .title = "Growing the DGX pod to 2048/4096",
    .statement =
        "The reference pod has {base_pod_gpus} GPUs: SUs of {nodes_per_su} nodes under "
        "{leaf_switches_per_su} leaf switches, and {spine_switches} spine switches, every switch "
        "with {leaf_ports} ports. How would you grow it to 2048 GPUs, and to 4096, as cheaply as "
        "possible?",
    .kind = "conceptual",
    .given = kQ32Given,
    .solve =
        [](const Inputs& in, Trace& tr) {
          tr.note("2048 GPUs");
          two_tier(tr, in, 2 * in.num("base_pod_gpus"));
          tr.note("4096 GPUs");
          two_tier(tr, in, 4 * in.num("base_pod_gpus"));
          return Answers{};
        },
    .model_answer =
        "For 2048 GPUs keep the 32-node SUs and take 8 of them (64 leaves) under 32 spine "
        "switches: each leaf's 32 up-facing ports then reach every spine with one cable instead "
        "of two, and the 32 spines' 2048 ports take exactly the 64 x 32 uplinks, so the tree "
        "keeps full bisection with two tiers. For 4096 GPUs the 128 leaves would need 64 spines, "
        "more than a leaf has up-facing ports: the ports run out, and a third tier of core "
        "switches goes above the spines (NVIDIA's design uses 128 spine and 64 core switches).",
};

constexpr Param kPodGiven[] = {
    dim("nodes", 128, "nodes"), dim("nvswitches_per_node", 4, "NVSwitches per node"),
    dim("leaf_switches", 32, "leaf switches"), dim("spine_switches", 16, "spine switches")};
constexpr Slot kPodSlots[] = {number("nvswitches", "count", "NVSwitches"),
                              number("total_switches", "count", "switches in all")};
constexpr Problem kPod{
    .id = "gpus.Ex.Pod",
    .title = "Switch count of the 1024-GPU SuperPod",
    .statement =
        "The pod has {nodes} nodes of {nvswitches_per_node} NVSwitches, {leaf_switches} leaf "
        "switches and {spine_switches} spine switches. How many NVSwitches, and how many "
        "switches in all?",
    .kind = "numeric",
    .given = kPodGiven,
    .slots = kPodSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double nodes = in.num("nodes"), nvs = in.num("nvswitches_per_node");
          double n = tr.step("NVSwitches", kNvSwitchCount, {nodes, nvs});
          double all = tr.step("All switches", kSwitchCount,
                               {nodes, nvs, in.num("leaf_switches"), in.num("spine_switches")});
          return Answers{{"nvswitches", n}, {"total_switches", all}};
        },
};

constexpr Param kGbGiven[] = {dim("gb200_node_egress_links", 72, "400 Gbps links out of a rack"),
                              bw("link_bw_Bps", 50e9, "bandwidth per link"),
                              bw("h100_node_egress_Bps", 400e9, "H100 node egress"),
                              flops_rate("b200_bf16_flops_per_s", 2.25e15, "B200 bf16 peak"),
                              flops_rate("h100_bf16_flops_per_s", 9.9e14, "H100 bf16 peak")};
constexpr Slot kGbSlots[] = {
    number("node_egress", "B_per_s", "egress of an NVL72 rack"),
    number("egress_over_h100_node", "ratio", "over an H100 node's"),
    number("cross_node_alpha", "tokens", "cross-node critical ratio of the rack", 0.03),
    number("cross_node_roofline_gain", "ratio", "how much lower than the H100's", 0.03)};
constexpr Problem kGb{
    .id = "gpus.Ex.GB200",
    .title = "GB200 NVL72 node egress and rooflines",
    .statement =
        "A GB200 NVL72 rack leaves through {gb200_node_egress_links} links of {link_bw_Bps}; an "
        "H100 node through {h100_node_egress_Bps}. What is the rack's egress and its ratio to an "
        "H100 node's? With {b200_bf16_flops_per_s} per B200 against {h100_bf16_flops_per_s} per "
        "H100, what is the rack's cross-node critical ratio C / W_node, and how many times lower "
        "is it than the H100's?",
    .kind = "numeric",
    .given = kGbGiven,
    .slots = kGbSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double w = tr.step("Rack egress", kNodeEgress,
                             {in.num("gb200_node_egress_links"), in.num("link_bw_Bps")});
          double wh = in.num("h100_node_egress_Bps");
          double q = tr.step("Over an H100 node", kRatio, {w, wh});
          double ag = tr.step("GB200 NVL72", kAlpha, {in.num("b200_bf16_flops_per_s"), w});
          double ah = tr.step("H100", kAlpha, {in.num("h100_bf16_flops_per_s"), wh});
          double g = tr.step("Gain", kRatio, {ah, ag});
          Answers a{{"node_egress", w},
                    {"egress_over_h100_node", q},
                    {"cross_node_alpha", ag},
                    {"cross_node_roofline_gain", g}};
          a.book("cross_node_roofline_gain", units::round_sig(g, 1), "says about 4x");
          return a;
        },
};

constexpr Param kFabGiven[] = {dim("node_degree", 8, "children of the node level (GPUs)"),
                               bw("node_link_Bps", 450e9, "bandwidth of one GPU"),
                               dim("leaf_degree", 32, "children of the leaf level (nodes)"),
                               bw("leaf_link_Bps", 400e9, "bandwidth of one node"),
                               dim("spine_degree", 4, "children of the spine level (SUs)"),
                               bw("spine_link_Bps", 12.8e12, "bandwidth of one SU")};
constexpr Slot kFabSlots[] = {number("node_bw", "B_per_s", "ring bandwidth at the node level"),
                              number("leaf_bw", "B_per_s", "at the leaf level"),
                              number("spine_bw", "B_per_s", "at the spine level"),
                              number("overall_bw", "B_per_s", "of the whole tree"),
                              number("sharp_allreduce_bw", "B_per_s", "of a SHARP AllReduce")};
constexpr Problem kFab{
    .id = "gpus.Ex.Fabric1",
    .title = "Per-level ring bandwidth of the SuperPod",
    .statement =
        "Each level of the fat tree runs its own ring: {node_degree} GPUs of {node_link_Bps} in a "
        "node, {leaf_degree} nodes of {leaf_link_Bps} under a leaf, {spine_degree} SUs of "
        "{spine_link_Bps} under the spine. What AllGather bandwidth does each level allow, what "
        "does the whole tree, and what does a SHARP AllReduce reach?",
    .kind = "numeric",
    .given = kFabGiven,
    .slots = kFabSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double d1 = in.num("node_degree"), w1 = in.num("node_link_Bps");
          double d2 = in.num("leaf_degree"), w2 = in.num("leaf_link_Bps");
          double d3 = in.num("spine_degree"), w3 = in.num("spine_link_Bps");
          if (d1 < 2) fail("node_degree", "a ring needs at least 2", "out_of_range");
          if (d2 < 2) fail("leaf_degree", "a ring needs at least 2", "out_of_range");
          if (d3 < 2) fail("spine_degree", "a ring needs at least 2", "out_of_range");
          double n = tr.step("Node", kLevelRingBw, {d1, w1});
          double l = tr.step("Leaf", kLevelRingBw, {d2, w2});
          double s = tr.step("Spine", kLevelRingBw, {d3, w3});
          double all = tr.step("The narrowest level", kFatTreeRingBw, {d1, w1, d2, w2, d3, w3});
          double sharp = tr.step("SHARP: no (D - 1)/D", kFatTreeSharpBw, {w1, w2, w3});
          return Answers{{"node_bw", n},
                         {"leaf_bw", l},
                         {"spine_bw", s},
                         {"overall_bw", all},
                         {"sharp_allreduce_bw", sharp}};
        },
};

}  // namespace

void add_problems_network_b(Registry& r) {
  static constexpr Problem kAll[] = {kQ32, kPod, kGb, kFab};
  r.add(kAll);
}

}  // namespace sb::gpus
