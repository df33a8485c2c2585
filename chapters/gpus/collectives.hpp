// Part 12, A.4: collectives on GPUs, inside a node (NVLink through the switches) and across nodes
// (the fat tree), ring and tree, SHARP in-network reduction, and the bus-bandwidth convention of
// NCCL. `bytes` is the size of the whole array; W is the bandwidth per GPU, each way.
#pragma once
#include "chapters/gpus/symbols.hpp"

namespace sb::gpus {

// A.4: bytes of a 2-D array [D, F] of b-byte elements, b D F.
double array_bytes(double d, double f, double b);
inline constexpr Formula kArrayBytes =
    record("bytes", "b * D * F", "B", "A.4", "D F b", kSymbols,
           [](const double* x) { return array_bytes(x[0], x[1], x[2]); });
// A.4 (1): AllGather or ReduceScatter on a ring of N, bytes (N - 1) / (N W).
double ag_time(double bytes, double n, double w);
inline constexpr Formula kAgRing =
    record("T_AG", "bytes * (N - 1) / (N * W)", "s", "A.4 (1)", "bytes N W", kSymbols,
           [](const double* x) { return ag_time(x[0], x[1], x[2]); });
// A.4 (1) and (8): the large-N limit, bytes / W.
double ag_time_approx(double bytes, double w);
inline constexpr Formula kAgApprox =
    record("T_AG", "bytes / W", "s", "A.4 (1)", "bytes W", kSymbols,
           [](const double* x) { return ag_time_approx(x[0], x[1]); });
// A.4 (2): AllReduce without SHARP = ReduceScatter + AllGather.
double ar_time(double bytes, double n, double w);
inline constexpr Formula kArRing =
    record("T_AR", "2 * bytes * (N - 1) / (N * W)", "s", "A.4 (2)", "bytes N W", kSymbols,
           [](const double* x) { return ar_time(x[0], x[1], x[2]); });
// A.4 (3): hops of a ring, N - 1 ...
double ring_hops(double n);
inline constexpr Formula kRingHops = record("hops", "N - 1", "count", "A.4 (3)", "N", kSymbols,
                                            [](const double* x) { return ring_hops(x[0]); });
// ... and of a tree (recursive doubling), ceil(log2 N): less latency, the same bandwidth term.
double tree_hops(double n);
inline constexpr Formula kTreeHops =
    record("hops", "ceil(log2(N))", "count", "A.4 (3)", "N", kSymbols,
           [](const double* x) { return tree_hops(x[0]); });
// A.4 (4): dense AllToAll, bytes (N - 1) / (W N^2).
double a2a_time(double bytes, double n, double w);
inline constexpr Formula kA2A =
    record("T_A2A", "bytes * (N - 1) / (W * N ^ 2)", "s", "A.4 (4)", "bytes N W", kSymbols,
           [](const double* x) { return a2a_time(x[0], x[1], x[2]); });
// A.4 (4): its approximation bytes / (W N).
double a2a_time_approx(double bytes, double n, double w);
inline constexpr Formula kA2AApprox =
    record("T_A2A", "bytes / (W * N)", "s", "A.4 (4)", "bytes N W", kSymbols,
           [](const double* x) { return a2a_time_approx(x[0], x[1], x[2]); });
// A.4 (5): ragged AllToAll where a token needs k of N shards, min(k/N, 1) bytes / (W N).
double a2a_ragged_time(double bytes, double n, double w, double k);
inline constexpr Formula kA2ARagged =
    record("T_A2A", "min(k / N, 1) * bytes / (W * N)", "s", "A.4 (5)", "bytes N W k", kSymbols,
           [](const double* x) { return a2a_ragged_time(x[0], x[1], x[2], x[3]); });
// A.4 (5): expected share of Z shards hit by K random picks, without the own shard.
double a2a_hit_fraction(double z, double k);
inline constexpr Formula kA2AHit =
    record("phi", "(1 - ((Z - 1) / Z) ^ K) * (Z - 1) / Z", "ratio", "A.4 (5)", "Z K", kSymbols,
           [](const double* x) { return a2a_hit_fraction(x[0], x[1]); });
// A.4 (6): SHARP AllReduce, bytes / W exactly (the switch reduces and multicasts).
double sharp_ar_time(double bytes, double w);
inline constexpr Formula kSharpAr =
    record("T_AR", "bytes / W", "s", "A.4 (6)", "bytes W", kSymbols,
           [](const double* x) { return sharp_ar_time(x[0], x[1]); });
// A.4 (6): what SHARP saves over a ring AllReduce, 2 (N - 1) / N.
double sharp_speedup(double n);
inline constexpr Formula kSharpSpeedup =
    record("speedup", "2 * (N - 1) / N", "ratio", "A.4 (6)", "N", kSymbols,
           [](const double* x) { return sharp_speedup(x[0]); });
// A.4 (6): bytes through the switch per byte of the array in a SHARP AllReduce, each way: every
// GPU sends (N - 1)/N of it and then its reduced 1/N.
double sharp_switch_bytes(double n);
inline constexpr Formula kSharpSwitch =
    record("beta", "N * ((N - 1) / N + 1 / N)", "ratio", "A.4 (6)", "N", kSymbols,
           [](const double* x) { return sharp_switch_bytes(x[0]); });
// A.4 (7): NCCL's bus bandwidth of an AllReduce, algbw * 2 (N - 1) / N: the factor.
double allreduce_bus_factor(double n);
inline constexpr Formula kArBusFactor =
    record("f_bus", "2 * (N - 1) / N", "ratio", "A.4 (7)", "N", kSymbols,
           [](const double* x) { return allreduce_bus_factor(x[0]); });
// A.4 (7): AllGather, ReduceScatter and AllToAll move (N - 1) / N of the array per GPU.
double gather_bus_factor(double n);
inline constexpr Formula kAgBusFactor =
    record("f_bus", "(N - 1) / N", "ratio", "A.4 (7)", "N", kSymbols,
           [](const double* x) { return gather_bus_factor(x[0]); });
// A.4 (7): a measured gain on a measured bandwidth, W_bus (1 + g).
double with_gain(double w_bus, double gain);
inline constexpr Formula kWithGain =
    record("W_eff", "W_bus * (1 + g)", "B_per_s", "A.4 (7)", "W_bus g", kSymbols,
           [](const double* x) { return with_gain(x[0], x[1]); });
// The bandwidth a transfer of `bytes` in time T achieved, bytes / T.
double effective_bw(double bytes, double t);
inline constexpr Formula kEffectiveBw =
    record("W_eff", "bytes / T", "B_per_s", "A.4 (7)", "bytes T", kSymbols,
           [](const double* x) { return effective_bw(x[0], x[1]); });
// A.4 (8): across nodes, the narrower of NVLink and the node's egress.
double two_level_ag_time(double bytes, double w_gpu, double w_node);
inline constexpr Formula kTwoLevelAg =
    record("T_AG", "max(bytes / W_GPU, bytes / W_node)", "s", "A.4 (8)", "bytes W_GPU W_node",
           kSymbols, [](const double* x) { return two_level_ag_time(x[0], x[1], x[2]); });
// A.4 (9): one level's ring, D_i children of bandwidth W_i: D_i W_i / (D_i - 1).
double level_ring_bw(double d, double w);
inline constexpr Formula kLevelRingBw =
    record("W_ring", "D_1 * W_1 / (D_1 - 1)", "B_per_s", "A.4 (9)", "D_1 W_1", kSymbols,
           [](const double* x) { return level_ring_bw(x[0], x[1]); });
// A.4 (9): the fat tree's ring bandwidth, the narrowest of its three levels.
double fat_tree_ring_bw(double d1, double w1, double d2, double w2, double d3, double w3);
inline constexpr Formula kFatTreeRingBw =
    record("W_ring", "min(D_1 * W_1 / (D_1 - 1), D_2 * W_2 / (D_2 - 1), D_3 * W_3 / (D_3 - 1))",
           "B_per_s", "A.4 (9)", "D_1 W_1 D_2 W_2 D_3 W_3", kSymbols,
           [](const double* x) { return fat_tree_ring_bw(x[0], x[1], x[2], x[3], x[4], x[5]); });
// A.4 (9): a SHARP AllReduce has no (D - 1)/D factor: the narrowest level's W_i.
double fat_tree_sharp_bw(double w1, double w2, double w3);
inline constexpr Formula kFatTreeSharpBw =
    record("W_SHARP", "min(W_1, W_2, W_3)", "B_per_s", "A.4 (9)", "W_1 W_2 W_3", kSymbols,
           [](const double* x) { return fat_tree_sharp_bw(x[0], x[1], x[2]); });
// A.4 (10): AllToAll across M nodes gains nothing from the node: bytes (M - 1) / (M^2 W_node).
double a2a_cross_node_time(double bytes, double m, double w_node);
inline constexpr Formula kA2ACross =
    record("T_A2A", "bytes * (M - 1) / (M ^ 2 * W_node)", "s", "A.4 (10)", "bytes M W_node",
           kSymbols, [](const double* x) { return a2a_cross_node_time(x[0], x[1], x[2]); });
// A.4 (4) and (10): an expert parallelism AllToAll over a group of N GPUs, N_node of them in each
// node: inside one node NVLink's (N - 1) / (W_GPU N^2); across M = ceil(N / N_node) nodes the
// group's scale-out share (M - 1) / (M^2 W_out), which gains nothing from the node. The levels
// overlap, so the larger sets the time (across nodes, the scale-out one for every GPU of the
// tables, whose NIC is slower than its NVLink).
double expert_a2a_time(double bytes, double n, double n_node, double w_gpu, double w_out);
inline constexpr Formula kExpertA2A =
    record("T_A2A",
           "max(bytes * (N - 1) / (W_GPU * N ^ 2), "
           "bytes * (ceil(N / N_node) - 1) / (ceil(N / N_node) ^ 2 * W_out))",
           "s", "A.4 (10)", "bytes N N_node W_GPU W_out", kSymbols,
           [](const double* x) { return expert_a2a_time(x[0], x[1], x[2], x[3], x[4]); });
// A.4 (11): reducing an array already sharded Y ways: the node part ...
double sharded_node_time(double bytes, double w_gpu, double y, double d_node);
inline constexpr Formula kShardedNode =
    record("T_node", "bytes / (W_GPU * min(Y, D_node))", "s", "A.4 (11)", "bytes W_GPU Y D_node",
           kSymbols, [](const double* x) { return sharded_node_time(x[0], x[1], x[2], x[3]); });
// ... and the scale-out part, which shrinks once Y spans nodes.
double sharded_scaleout_time(double bytes, double w_node, double y, double d_node);
inline constexpr Formula kShardedScaleOut = record(
    "T_out", "bytes / W_node * D_node / max(D_node, Y)", "s", "A.4 (11)", "bytes W_node Y D_node",
    kSymbols, [](const double* x) { return sharded_scaleout_time(x[0], x[1], x[2], x[3]); });
// A.4 (11) inside one SU of M nodes: leaf-bound (M - 1)/M until Y spans nodes, then D_node / Y.
double su_two_axis_ag_time(double bytes, double w_node, double m, double d_node, double y);
inline constexpr Formula kSuTwoAxisAg =
    record("T_AG", "bytes / W_node * min((M - 1) / M, D_node / Y)", "s", "A.4 (11)",
           "bytes W_node M D_node Y", kSymbols,
           [](const double* x) { return su_two_axis_ag_time(x[0], x[1], x[2], x[3], x[4]); });
// A.4 (6) and (11): SHARP AllReduce of an array sharded Y ways inside a node, bytes / (Y W).
double sharp_sharded_time(double bytes, double y, double w);
inline constexpr Formula kSharpSharded =
    record("T_AR", "bytes / (Y * W)", "s", "A.4 (11)", "bytes Y W", kSymbols,
           [](const double* x) { return sharp_sharded_time(x[0], x[1], x[2]); });
// A.4 (11): at the spine the SUs share its capacity: bytes / (W_spine / n_SU).
double sharp_spine_time(double bytes, double w_spine, double n_su);
inline constexpr Formula kSharpSpine =
    record("T_AR", "bytes / (W_spine / n_SU)", "s", "A.4 (11)", "bytes W_spine n_SU", kSymbols,
           [](const double* x) { return sharp_spine_time(x[0], x[1], x[2]); });
// A.4 (12): bytes in and out of a node's switch per byte of an AllGather over M nodes of N GPUs:
// in, its own 1/M plus the (M - 1)/M from the other nodes ...
double node_switch_in(double m);
inline constexpr Formula kNodeSwitchIn =
    record("beta_in", "1 / M + (M - 1) / M", "ratio", "A.4 (12)", "M", kSymbols,
           [](const double* x) { return node_switch_in(x[0]); });
// ... out, its 1/M up and to each of its N GPUs what that GPU lacks.
double node_switch_out(double m, double n);
inline constexpr Formula kNodeSwitchOut =
    record("beta_out", "1 / M + N * (1 - 1 / (M * N))", "ratio", "A.4 (12)", "M N", kSymbols,
           [](const double* x) { return node_switch_out(x[0], x[1]); });
// A.4 (12): the top switch takes 1/M from each node and sends each node the other (M - 1)/M.
double top_switch_in(double m);
inline constexpr Formula kTopSwitchIn =
    record("beta_in", "M * (1 / M)", "ratio", "A.4 (12)", "M", kSymbols,
           [](const double* x) { return top_switch_in(x[0]); });
double top_switch_out(double m);
inline constexpr Formula kTopSwitchOut =
    record("beta_out", "M * ((M - 1) / M)", "ratio", "A.4 (12)", "M", kSymbols,
           [](const double* x) { return top_switch_out(x[0]); });
// A.4 (12): the node switch's time is its egress spread over its N GPUs' links.
double node_switch_time(double bytes, double beta_out, double n, double w_gpu);
inline constexpr Formula kNodeSwitchTime =
    record("T_node", "beta_out * bytes / (N * W_GPU)", "s", "A.4 (12)", "bytes beta_out N W_GPU",
           kSymbols, [](const double* x) { return node_switch_time(x[0], x[1], x[2], x[3]); });

// A.3 and A.4 (8): the share of a node's scale-out egress that N of its D_node GPUs have (one
// NIC per GPU): W_node N / D_node. A group of a layout that holds N GPUs of each node runs at it.
double group_scaleout_bw(double w_node, double n, double d_node);
inline constexpr Formula kGroupScaleOut =
    record("W_out", "W_node * N / D_node", "B_per_s", "A.3", "W_node N D_node", kSymbols,
           [](const double* x) { return group_scaleout_bw(x[0], x[1], x[2]); });
// A.4 (8) and (9): a hierarchical AllGather of a group of N GPUs in each of M nodes: a ring inside
// the node over NVLink and a ring over the nodes at the group's scale-out bandwidth, the two
// overlapped (the narrower level sets the time).
double hier_ag_time(double bytes, double n, double w_gpu, double m, double w_out);
inline constexpr Formula kHierAg =
    record("T_AG", "max(bytes * (N - 1) / (N * W_GPU), bytes * (M - 1) / (M * W_out))", "s",
           "A.4 (8)", "bytes N W_GPU M W_out", kSymbols,
           [](const double* x) { return hier_ag_time(x[0], x[1], x[2], x[3], x[4]); });

}  // namespace sb::gpus
