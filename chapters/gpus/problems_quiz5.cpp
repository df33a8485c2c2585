// Quiz 5 (LLM rooflines on GPUs): a B200 DGX pod, LLaMA-3 70B's memory, training time and
// sharding on 4096 H100s, and Megatron-LM's configurations.
#include <algorithm>
#include <cmath>

#include "chapters/gpus/problems.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::gpus {
namespace {

using roofline::kGlobalBatch;
using roofline::kLocalBatch;

constexpr Param kQ1Given[] = {flops_rate("h100_bf16_flops_per_s", 9.9e14, "H100 bf16 peak"),
                              flops_rate("b200_bf16_flops_per_s", 2.25e15, "B200 bf16 peak"),
                              bw("b200_gpu_egress_Bps", 900e9, "B200 NVLink egress"),
                              bw("b200_node_egress_Bps", 400e9, "B200 DGX node egress")};
constexpr Slot kQ1Slots[] = {number("flops_increase", "ratio", "B200 FLOPs over H100"),
                             number("tp_critical_ratio", "flop_per_B", "C / W_GPU"),
                             number("dp_critical_tokens_per_gpu", "tokens", "C / W_node")};
constexpr Problem kQ1{
    .id = "gpus.Quiz5.Q1",
    .title = "B200 DGX data and tensor rooflines",
    .statement =
        "A B200 DGX SuperPod (8-GPU nodes, not NVL72) has {b200_bf16_flops_per_s} per GPU against "
        "the H100's {h100_bf16_flops_per_s}, {b200_gpu_egress_Bps} of NVLink per GPU and "
        "{b200_node_egress_Bps} of egress per node. How much do the FLOPs grow, and what are the "
        "critical ratios for TP inside a node and for DP across nodes?",
    .kind = "numeric",
    .given = kQ1Given,
    .slots = kQ1Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double c = in.num("b200_bf16_flops_per_s");
          double g = tr.step("FLOPs growth", kRatio, {c, in.num("h100_bf16_flops_per_s")});
          double tp = tr.step("TP: $C / W_{GPU}$", kAlpha, {c, in.num("b200_gpu_egress_Bps")});
          double dp = tr.step("DP: $C / W_{node}$", kAlpha, {c, in.num("b200_node_egress_Bps")});
          tr.note(
              "the node's egress stays at 400 GB/s, so cross-node DP needs more tokens per GPU");
          return Answers{
              {"flops_increase", g}, {"tp_critical_ratio", tp}, {"dp_critical_tokens_per_gpu", dp}};
        },
};

constexpr Param kQ21Given[] = {param_count("n_params", 70e9, "parameters"),
                               per_param("bytes_per_param_weights", 2, "bytes per weight (bf16)"),
                               per_param("bytes_per_param_adam", 8, "bytes of Adam state (fp32)"),
                               memory("hbm_per_gpu_B", 80e9, "HBM per GPU"),
                               dim("gpus_per_node", 8, "GPUs per node")};
constexpr Slot kQ21Slots[] = {number("total_bytes", "B", "weights and optimiser state"),
                              number("min_gpus", "chips", "fewest GPUs"),
                              number("min_nodes", "count", "fewest nodes")};
constexpr Problem kQ21{
    .id = "gpus.Quiz5.Q2.1",
    .title = "Minimum H100s to hold 70B + Adam",
    .statement =
        "LLaMA-3 70B has {n_params} parameters, kept as {bytes_per_param_weights} of weights and "
        "{bytes_per_param_adam} of Adam state each. With {hbm_per_gpu_B} of HBM per GPU and "
        "{gpus_per_node} GPUs per node, how many bytes is that, and how few GPUs and nodes can "
        "hold it?",
    .kind = "numeric",
    .given = kQ21Given,
    .slots = kQ21Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double bp = tr.sum("Bytes per parameter", "b_p", "B",
                             {{"b_w", in.num("bytes_per_param_weights")},
                              {"b_opt", in.num("bytes_per_param_adam")}});
          double m = tr.step("Total", kTrainBytes, {in.num("n_params"), bp});
          double n = tr.step("GPUs", kMinGpus, {m, in.num("hbm_per_gpu_B")});
          double nodes = tr.step("Nodes", kMinNodes, {n, in.num("gpus_per_node")});
          Answers a{{"total_bytes", m}, {"min_gpus", n}, {"min_nodes", nodes}};
          a.slip("min_gpus", m / in.num("hbm_per_gpu_B"), "round up: a GPU is whole");
          return a;
        },
};

constexpr Param kQ22Given[] = {
    param_count("n_params", 70e9, "parameters"), tokens("tokens", 15e12, "training tokens"),
    chip_count("n_gpus", 4096, "GPUs"), flops_rate("bf16_flops_per_s", 9.9e14, "bf16 peak per GPU"),
    mfu_given(0.45)};
constexpr Slot kQ22Slots[] = {number("training_flops", "flop", "training FLOPs"),
                              number("cluster_flops_per_s", "flop_per_s", "the cluster's FLOPs/s"),
                              number("training_time", "s", "training time")};
constexpr Problem kQ22{
    .id = "gpus.Quiz5.Q2.2",
    .title = "LLaMA-3 70B training time on 4096 H100s",
    .statement =
        "How long does training LLaMA-3 70B ({n_params} parameters) on {tokens} take with "
        "{n_gpus} H100s of {bf16_flops_per_s} at an MFU of {mfu}?",
    .kind = "numeric",
    .given = kQ22Given,
    .slots = kQ22Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double f = tr.step("FLOPs", kTrainFlops, {in.num("n_params"), in.num("tokens")});
          double c = tr.step("Cluster", kClusterFlops,
                             {in.num("n_gpus"), in.num("bf16_flops_per_s"), in.num("mfu")});
          double t = tr.step("Time", roofline::kTMath, {f, c});
          Answers a{{"training_flops", f}, {"cluster_flops_per_s", c}, {"training_time", t}};
          a.slip("training_time", t * in.num("mfu"), "the MFU divides the peak: the time grows");
          return a;
        },
};

}  // namespace

void add_problems_quiz5_b(Registry& r);  // problems_quiz5_b.cpp

void add_problems_quiz5(Registry& r) {
  static constexpr Problem kAll[] = {kQ1, kQ21, kQ22};
  r.add(kAll);
  add_problems_quiz5_b(r);
}

}  // namespace sb::gpus
