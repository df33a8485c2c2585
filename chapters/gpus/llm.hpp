// Part 12, A.5: LLM rooflines on GPUs (the MLP block): when data, tensor, expert and pipeline
// parallelism are compute-bound, with alpha = C / W_collective (W_GPU inside a node, W_node
// across nodes), and the training-memory and training-time helpers.
#pragma once
#include "chapters/gpus/symbols.hpp"

namespace sb::gpus {

// A.5: the critical ratio alpha = C / W: tokens per GPU a DP axis needs.
double critical_ratio(double c, double w);
inline constexpr Formula kAlpha =
    record("alpha", "C / W", "tokens", "A.5", "C W", kSymbols,
           [](const double* x) { return critical_ratio(x[0], x[1]); });
// A.5 (1): an MoE's DP threshold, (E / k) alpha: every expert's weights move, k of them compute.
double dp_moe_threshold(double e, double k, double alpha);
inline constexpr Formula kDpMoe =
    record("B_crit", "E / k * alpha", "tokens", "A.5 (1)", "E k alpha", kSymbols,
           [](const double* x) { return dp_moe_threshold(x[0], x[1], x[2]); });
// A.5 (1): over few nodes the ring's (X - 1)/X matters: alpha (X - 1) / X.
double dp_small_x_threshold(double alpha, double x);
inline constexpr Formula kDpSmallX =
    record("B_crit", "alpha * (X - 1) / X", "tokens", "A.5 (1)", "alpha X", kSymbols,
           [](const double* x) { return dp_small_x_threshold(x[0], x[1]); });
// A.5 (1): model parallelism spanning Y > D_node GPUs divides the DP threshold by Y / D_node.
double dp_span_threshold(double alpha, double d_node, double y);
inline constexpr Formula kDpSpan =
    record("B_crit", "alpha * D_node / max(D_node, Y)", "tokens", "A.5 (1)", "alpha D_node Y",
           kSymbols, [](const double* x) { return dp_span_threshold(x[0], x[1], x[2]); });
// A.5 (1): what that relief is, max(D_node, Y) / D_node.
double dp_span_gain(double d_node, double y);
inline constexpr Formula kDpSpanGain =
    record("gain", "max(D_node, Y) / D_node", "ratio", "A.5 (1)", "D_node Y", kSymbols,
           [](const double* x) { return dp_span_gain(x[0], x[1]); });
// A.5 (1), DeepSeek: a DP ring of X over the spine gains X / (X - 1) over the (X-1)/X-free bound.
double dp_ring_gain(double x);
inline constexpr Formula kDpRingGain =
    record("gain", "X / (X - 1)", "ratio", "A.5 (1)", "X", kSymbols,
           [](const double* x) { return dp_ring_gain(x[0]); });
// A.5 (2): TP stays compute-bound while Y < F / alpha.
double tp_max(double f, double alpha);
inline constexpr Formula kTpMax =
    record("Y_max", "F / alpha", "count", "A.5 (2)", "F alpha", kSymbols,
           [](const double* x) { return tp_max(x[0], x[1]); });
// A.5 (2): spanning nodes, F > alpha (Y - D_node), i.e. Y < D_node + F / alpha.
double tp_max_spanning(double f, double alpha, double d_node);
inline constexpr Formula kTpMaxSpanning =
    record("Y_max", "D_node + F / alpha", "count", "A.5 (2)", "F alpha D_node", kSymbols,
           [](const double* x) { return tp_max_spanning(x[0], x[1], x[2]); });
// A.5 (3): the smallest F for which Z-way EP over k active experts is compute-bound.
double ep_f_min(double alpha, double z, double k, double d_node);
inline constexpr Formula kEpFMin = record(
    "F_min", "alpha * (Z - D_node) / k * min(D_node * k / Z, 1)", "count", "A.5 (3)",
    "alpha Z k D_node", kSymbols, [](const double* x) { return ep_f_min(x[0], x[1], x[2], x[3]); });
// A.5 (3): its large-Z limit, D_node alpha (8 alpha on an 8-GPU node).
double ep_f_min_large_z(double d_node, double alpha);
inline constexpr Formula kEpFMinLargeZ =
    record("F_min", "D_node * alpha", "count", "A.5 (3)", "D_node alpha", kSymbols,
           [](const double* x) { return ep_f_min_large_z(x[0], x[1]); });
// A.5 (4): activations a pipeline sends, 2BD / (W N_MB) per hop over N_MB + N_stages - 2 hops.
double pp_comms_time(double b, double d, double w, double n_mb, double n_stages);
inline constexpr Formula kPpComms = record(
    "T_PP", "2 * B * D / (W * N_MB) * (N_MB + N_stages - 2)", "s", "A.5 (4)", "B D W N_MB N_stages",
    kSymbols, [](const double* x) { return pp_comms_time(x[0], x[1], x[2], x[3], x[4]); });
// A.5 (5): bytes of weights and Adam state, N_params * bytes per parameter (2 + 8 = 10).
double train_bytes(double n_params, double bytes_per_param);
inline constexpr Formula kTrainBytes =
    record("M_train", "N_params * b_p", "B", "A.5 (5)", "N_params b_p", kSymbols,
           [](const double* x) { return train_bytes(x[0], x[1]); });
// A.5 (5): the fewest GPUs that hold them, ceil(M_train / M_HBM).
double min_gpus(double m_train, double hbm);
inline constexpr Formula kMinGpus =
    record("n", "ceil(M_train / M_HBM)", "chips", "A.5 (5)", "M_train M_HBM", kSymbols,
           [](const double* x) { return min_gpus(x[0], x[1]); });
// A.5 (5): the nodes they fill, ceil(n / D_node).
double min_nodes(double n, double d_node);
inline constexpr Formula kMinNodes =
    record("M", "ceil(n / D_node)", "count", "A.5 (5)", "n D_node", kSymbols,
           [](const double* x) { return min_nodes(x[0], x[1]); });
// A.5 (5): per-GPU bytes when the parameters are sharded n_shard ways.
double bytes_per_gpu(double n_params, double bytes_per_param, double n_shard);
inline constexpr Formula kBytesPerGpu =
    record("M_GPU", "N_params * b_p / n_shard", "B", "A.5 (5)", "N_params b_p n_shard", kSymbols,
           [](const double* x) { return bytes_per_gpu(x[0], x[1], x[2]); });
// A.5 (5): training FLOPs, 6 N_params tokens.
double train_flops(double n_params, double tokens);
inline constexpr Formula kTrainFlops =
    record("FLOPs", "6 * N_params * T_tok", "flop", "A.5 (5)", "N_params T_tok", kSymbols,
           [](const double* x) { return train_flops(x[0], x[1]); });
// A.5 (5): what the cluster delivers, n C MFU.
double cluster_flops(double n, double c, double mfu);
inline constexpr Formula kClusterFlops =
    record("C_cluster", "n * C * MFU", "flop_per_s", "A.5 (5)", "n C MFU", kSymbols,
           [](const double* x) { return cluster_flops(x[0], x[1], x[2]); });
// A.5: the model-parallel group, TP * PP * EP GPUs.
double model_parallel(double tp, double pp, double ep);
inline constexpr Formula kModelParallel =
    record("Y", "n_TP * n_PP * n_EP", "count", "A.5 (1)", "n_TP n_PP n_EP", kSymbols,
           [](const double* x) { return model_parallel(x[0], x[1], x[2]); });

// A.5: GPUs of a TP x PP x DP layout.
double gpu_count(double tp, double pp, double dp);
inline constexpr Formula kGpuCount =
    record("n", "n_TP * n_PP * n_DP", "chips", "A.5 (6)", "n_TP n_PP n_DP", kSymbols,
           [](const double* x) { return gpu_count(x[0], x[1], x[2]); });
// A.5 (1): the bandwidth a DP axis effectively gets when model parallelism spans Y GPUs.
double span_bandwidth(double w_node, double d_node, double y);
inline constexpr Formula kSpanBandwidth =
    record("W_eff", "W_node * max(D_node, Y) / D_node", "B_per_s", "A.5 (1)", "W_node D_node Y",
           kSymbols, [](const double* x) { return span_bandwidth(x[0], x[1], x[2]); });

}  // namespace sb::gpus
