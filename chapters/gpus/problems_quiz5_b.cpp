// Quiz 5, questions 2.3 and 3: sharding LLaMA-3 70B on 4096 H100s, and whether Megatron-LM's
// 16B, 70B and 314B configurations are compute-bound with DP outermost.
#include <algorithm>
#include <cmath>

#include "chapters/gpus/problems.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::gpus {
namespace {

using roofline::kGlobalBatch;
using roofline::kLocalBatch;

constexpr Param kQ23Given[] = {dim("d_ff", 28672, "F"),
                               flops_rate("bf16_flops_per_s", 9.9e14, "bf16 peak per GPU"),
                               bw("gpu_egress_Bps", 450e9, "NVLink egress per GPU"),
                               bw("node_egress_Bps", 400e9, "node egress"),
                               chip_count("n_gpus", 4096, "GPUs"),
                               dim("gpus_per_node", 8, "GPUs per node"),
                               tokens("batch_tokens", 4e6, "batch in tokens"),
                               param_count("n_params", 70e9, "parameters"),
                               per_param("bytes_per_param", 10, "bytes per parameter"),
                               memory("hbm_per_gpu_B", 80e9, "HBM per GPU"),
                               dim("tp", 8, "tensor-parallel degree"),
                               dim("pp", 8, "pipeline-parallel degree")};
constexpr Slot kQ23Slots[] = {
    number("max_tp_ratio_in_node", "ratio", "F / alpha inside a node"),
    number("tp_degree", "count", "TP degree"),
    number("pure_dp_mem_per_gpu", "B", "bytes per GPU with TP and pure DP"),
    boolean("pure_dp_fits", "does that fit in HBM?"),
    number("zero3_tokens_per_gpu", "tokens", "tokens per GPU"),
    boolean("zero3_compute_bound", "is TP + ZeRO-3 compute-bound?"),
    number("pp_effective_bw", "B_per_s", "DP bandwidth with PP added"),
    number("pp_threshold_tokens", "tokens", "DP threshold with PP added"),
    boolean("pp_compute_bound", "is TP + PP + DP compute-bound?")};

// The memory and roofline checks of the three layouts, after the TP degree is chosen.
Answers layouts(const Inputs& in, Trace& tr, double tp, double alpha) {
  double dn = in.num("gpus_per_node"), wn = in.num("node_egress_Bps");
  double mem = tr.step("TP shards the parameters, DP copies them", kBytesPerGpu,
                       {in.num("n_params"), in.num("bytes_per_param"), tp});
  double fits =
      verdict(tr, mem <= in.num("hbm_per_gpu_B"), "it fits in HBM", "it does not fit in HBM");
  double per = tr.step("Tokens per GPU", kLocalBatch, {in.num("batch_tokens"), in.num("n_gpus")});
  double th = tr.step("ZeRO-3 threshold: TP stays in a node", kDpSpan, {alpha, dn, tp});
  double z3 = verdict(tr, per > th, "ZeRO-3 with TP is compute-bound",
                      "ZeRO-3 with TP is communication-bound");
  double y = tr.step("TP x PP group", kModelParallel, {tp, in.num("pp"), 1});
  double w = tr.step("The group spans nodes: DP bandwidth grows", kSpanBandwidth, {wn, dn, y});
  double thp = tr.step("Threshold with PP", kDpSpan, {alpha, dn, y});
  double pp = verdict(tr, per > thp, "TP + PP + DP is compute-bound",
                      "TP + PP + DP is communication-bound");
  return Answers{{"pure_dp_mem_per_gpu", mem},  {"pure_dp_fits", fits},
                 {"zero3_tokens_per_gpu", per}, {"zero3_compute_bound", z3},
                 {"pp_effective_bw", w},        {"pp_threshold_tokens", thp},
                 {"pp_compute_bound", pp}};
}

constexpr Problem kQ23{
    .id = "gpus.Quiz5.Q2.3",
    .title = "Sharding LLaMA-3 70B on 4096 H100s",
    .statement =
        "Train LLaMA-3 70B ({n_params} parameters, {bytes_per_param} each with Adam, F = {d_ff}) "
        "on {n_gpus} H100s ({bf16_flops_per_s}, {hbm_per_gpu_B}, {gpu_egress_Bps} of NVLink, "
        "{node_egress_Bps} per node of {gpus_per_node}) with a batch of {batch_tokens}. How far "
        "can TP go inside a node? With {tp}-way TP, does pure DP fit in memory, is ZeRO-3 "
        "compute-bound, and is it once {pp}-way PP is added?",
    .kind = "numeric",
    .given = kQ23Given,
    .slots = kQ23Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double c = in.num("bf16_flops_per_s");
          double ai = tr.step("alpha inside a node", kAlpha, {c, in.num("gpu_egress_Bps")});
          double r =
              tr.step("TP is compute-bound while Y < F / alpha", kTpMax, {in.num("d_ff"), ai});
          double y = tr.value("TP degree: a node at most",
                              std::min(in.num("gpus_per_node"), std::floor(r)), "count");
          double an = tr.step("alpha across nodes", kAlpha, {c, in.num("node_egress_Bps")});
          Answers a = layouts(in, tr, in.num("tp"), an);
          a["max_tp_ratio_in_node"] = r;
          a["tp_degree"] = y;
          return a;
        },
};

constexpr Param kQ3Given[] = {dim("seq_len", 4096, "tokens per sequence"),
                              dim("seqs_16b", 192, "16B: sequences"),
                              chip_count("gpus_16b", 192, "16B: GPUs"),
                              dim("seqs_70b", 384, "70B: sequences"),
                              chip_count("gpus_70b", 768, "70B: GPUs"),
                              dim("mp_70b", 16, "70B: model-parallel GPUs"),
                              dim("seqs_314b", 1536, "314B: sequences"),
                              chip_count("gpus_314b", 3072, "314B: GPUs"),
                              dim("mp_314b", 64, "314B: model-parallel GPUs"),
                              dim("gpus_per_node", 8, "GPUs per node"),
                              flops_rate("bf16_flops_per_s", 9.9e14, "bf16 peak per GPU"),
                              bw("node_egress_Bps", 400e9, "node egress")};
constexpr Slot kQ3Slots[] = {number("tokens_per_gpu_16b", "tokens", "16B: tokens per GPU"),
                             number("tokens_per_gpu_70b", "tokens", "70B: tokens per GPU"),
                             number("tokens_per_gpu_314b", "tokens", "314B: tokens per GPU"),
                             number("dp_threshold", "tokens", "DP threshold, no model parallelism"),
                             number("threshold_70b", "tokens", "70B: DP threshold"),
                             number("threshold_314b", "tokens", "314B: DP threshold"),
                             boolean("compute_bound_16b", "is 16B compute-bound?"),
                             boolean("compute_bound_70b", "is 70B compute-bound?"),
                             boolean("compute_bound_314b", "is 314B compute-bound?")};

double per_gpu(const Inputs& in, Trace& tr, Text seqs, Text gpus) {
  double b = tr.step("Batch", kGlobalBatch, {in.num(seqs), in.num("seq_len")});
  return tr.step("Per GPU", kLocalBatch, {b, in.num(gpus)});
}

constexpr Problem kQ3{
    .id = "gpus.Quiz5.Q3",
    .title = "Megatron-LM per-GPU batch and rooflines",
    .statement =
        "Megatron-LM trains with sequences of {seq_len}: 16B on {gpus_16b} GPUs with {seqs_16b} "
        "sequences; 70B on {gpus_70b} with {seqs_70b} and {mp_70b}-way model parallelism; 314B on "
        "{gpus_314b} with {seqs_314b} and {mp_314b}-way. With DP outermost on H100 nodes of "
        "{gpus_per_node} ({bf16_flops_per_s}, {node_egress_Bps} per node), what is each per-GPU "
        "batch and DP threshold, and is each compute-bound?",
    .kind = "numeric",
    .given = kQ3Given,
    .slots = kQ3Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double t16 = per_gpu(in, tr, "seqs_16b", "gpus_16b");
          double t70 = per_gpu(in, tr, "seqs_70b", "gpus_70b");
          double t314 = per_gpu(in, tr, "seqs_314b", "gpus_314b");
          double dn = in.num("gpus_per_node");
          double a = tr.step("DP threshold", kAlpha,
                             {in.num("bf16_flops_per_s"), in.num("node_egress_Bps")});
          double th16 = tr.step("16B: no model parallelism across nodes", kDpSpan, {a, dn, 1});
          double th70 = tr.step("70B", kDpSpan, {a, dn, in.num("mp_70b")});
          double th314 = tr.step("314B", kDpSpan, {a, dn, in.num("mp_314b")});
          return Answers{
              {"tokens_per_gpu_16b", t16},
              {"tokens_per_gpu_70b", t70},
              {"tokens_per_gpu_314b", t314},
              {"dp_threshold", th16},
              {"threshold_70b", th70},
              {"threshold_314b", th314},
              {"compute_bound_16b",
               verdict(tr, t16 > th16, "16B: compute-bound", "16B: communication-bound")},
              {"compute_bound_70b",
               verdict(tr, t70 > th70, "70B: compute-bound", "70B: communication-bound")},
              {"compute_bound_314b",
               verdict(tr, t314 > th314, "314B: compute-bound", "314B: communication-bound")}};
        },
};

}  // namespace

void add_problems_quiz5_b(Registry& r) {
  static constexpr Problem kAll[] = {kQ23, kQ3};
  r.add(kAll);
}

}  // namespace sb::gpus
