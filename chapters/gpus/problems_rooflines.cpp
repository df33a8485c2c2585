// The data-parallel examples of the LLM-rooflines section (critical batch inside and across nodes,
// LLaMA 3, DeepSeek-V3, an MoE, two nodes, SHARP) and the tensor-, expert- and pipeline-parallel
// examples.
#include <cmath>

#include "chapters/gpus/problems.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::gpus {
namespace {

constexpr Param kDP1Given[] = {flops_rate("bf16_flops_per_s", 9.9e14, "bf16 peak per GPU"),
                               bw("gpu_egress_Bps", 450e9, "NVLink egress per GPU"),
                               bw("node_egress_Bps", 400e9, "node egress")};
constexpr Slot kDP1Slots[] = {number("tokens_per_gpu_in_node", "tokens", "inside a node"),
                              number("tokens_per_gpu_cross_node", "tokens", "across nodes")};
constexpr Problem kDP1{
    .id = "gpus.Ex.DP1",
    .title = "Critical per-GPU batch for DP on H100",
    .statement =
        "An H100 does {bf16_flops_per_s} of bf16, with {gpu_egress_Bps} of NVLink and "
        "{node_egress_Bps} of egress per node. How many tokens per GPU must a pure data-parallel "
        "(or FSDP) batch have to stay compute-bound inside a node, and across nodes?",
    .kind = "numeric",
    .given = kDP1Given,
    .slots = kDP1Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double c = in.num("bf16_flops_per_s");
          double a = tr.step("Inside a node", kAlpha, {c, in.num("gpu_egress_Bps")});
          double x = tr.step("Across nodes", kAlpha, {c, in.num("node_egress_Bps")});
          tr.note("compute-bound while $B / X > C / W$");
          Answers ans{{"tokens_per_gpu_in_node", a}, {"tokens_per_gpu_cross_node", x}};
          ans.slip(
              "tokens_per_gpu_cross_node", c / (in.num("node_egress_Bps") / 8),
              "divides by one GPU's share of the node's egress; the ring runs at the whole W_node");
          return ans;
        },
};

constexpr Param kDP2Given[] = {chip_count("n_gpus", 16000, "GPUs"),
                               flops_rate("bf16_flops_per_s", 9.9e14, "bf16 peak per GPU"),
                               bw("node_egress_Bps", 400e9, "node egress")};
constexpr Slot kDP2Slots[] = {number("global_batch_tokens", "tokens", "global batch")};
constexpr Problem kDP2{
    .id = "gpus.Ex.DP2",
    .title = "LLaMA-3 batch needed under pure DP",
    .statement =
        "LLaMA 3 trained on {n_gpus} H100s ({bf16_flops_per_s} each, {node_egress_Bps} of egress "
        "per node). What global batch in tokens would pure data parallelism across nodes need to "
        "stay compute-bound?",
    .kind = "numeric",
    .given = kDP2Given,
    .slots = kDP2Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double a = tr.step("Tokens per GPU", kAlpha,
                             {in.num("bf16_flops_per_s"), in.num("node_egress_Bps")});
          double b = tr.step("Global batch", roofline::kGlobalBatch, {in.num("n_gpus"), a});
          Answers ans{{"global_batch_tokens", b}};
          ans.book("global_batch_tokens", units::round_sig(b, 1), "rounds to 40M tokens");
          return ans;
        },
};

constexpr Param kDP3Given[] = {chip_count("n_gpus", 2048, "GPUs"),
                               flops_rate("bf16_flops_per_s", 9.9e14, "bf16 peak per GPU"),
                               bw("link_bw_Bps", 300e9, "H800 NVLink egress per GPU")};
constexpr Slot kDP3Slots[] = {number("tokens_per_gpu", "tokens", "tokens per GPU"),
                              number("global_batch_tokens", "tokens", "global batch")};
constexpr Problem kDP3{
    .id = "gpus.Ex.DP3",
    .title = "DeepSeek-V3 on H800 under pure DP",
    .statement =
        "DeepSeek-V3 trained on {n_gpus} H800s ({bf16_flops_per_s} each) whose links run at "
        "{link_bw_Bps}. Taking that as the DP bandwidth, how many tokens per GPU, and how many in "
        "all, would pure data parallelism need?",
    .kind = "numeric",
    .given = kDP3Given,
    .slots = kDP3Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double a = tr.step("Tokens per GPU", kAlpha,
                             {in.num("bf16_flops_per_s"), in.num("link_bw_Bps")});
          double b = tr.step("Global batch", roofline::kGlobalBatch, {in.num("n_gpus"), a});
          tr.note(
              "the book notes DeepSeek used far fewer tokens per step here, and that "
              "300 GB/s is an NVLink figure; across nodes $W_{node}$ applies");
          return Answers{{"tokens_per_gpu", a}, {"global_batch_tokens", b}};
        },
};

constexpr Param kDP4Given[] = {dim("n_experts", 128, "experts E"),
                               dim("k_active", 4, "active experts k"),
                               flops_rate("bf16_flops_per_s", 9.9e14, "bf16 peak per GPU"),
                               bw("node_egress_Bps", 400e9, "node egress")};
constexpr Slot kDP4Slots[] = {number("tokens_per_gpu", "tokens", "tokens per GPU")};
constexpr Problem kDP4{
    .id = "gpus.Ex.DP4",
    .title = "MoE DP threshold for gpt-oss",
    .statement =
        "An MoE with E = {n_experts} experts, k = {k_active} active per token, trains with pure "
        "data parallelism across H100 nodes ({bf16_flops_per_s} per GPU, {node_egress_Bps} per "
        "node). How many tokens per GPU keep it compute-bound?",
    .kind = "numeric",
    .given = kDP4Given,
    .slots = kDP4Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double a = tr.step("Dense threshold", kAlpha,
                             {in.num("bf16_flops_per_s"), in.num("node_egress_Bps")});
          double b = tr.step("Every expert's weights move, k compute", kDpMoe,
                             {in.num("n_experts"), in.num("k_active"), a});
          Answers ans{{"tokens_per_gpu", b}};
          ans.slip("tokens_per_gpu", a, "an MoE moves all E experts' weights but computes with k");
          return ans;
        },
};

constexpr Param kDP5Given[] = {group("x_nodes", 2, "nodes X"),
                               dim("gpus_per_node", 8, "GPUs per node"),
                               flops_rate("bf16_flops_per_s", 9.9e14, "bf16 peak per GPU"),
                               bw("node_egress_Bps", 400e9, "node egress")};
constexpr Slot kDP5Slots[] = {number("tokens_per_gpu", "tokens", "tokens per GPU")};
constexpr Problem kDP5{
    .id = "gpus.Ex.DP5",
    .title = "Two-node data-parallel threshold",
    .statement =
        "Data parallelism spans only X = {x_nodes} nodes of {gpus_per_node} H100s "
        "({bf16_flops_per_s} each, {node_egress_Bps} per node). Keeping the ring's (X - 1)/X, "
        "what tokens per GPU keep it compute-bound?",
    .kind = "numeric",
    .given = kDP5Given,
    .slots = kDP5Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double a = tr.step("Many nodes", kAlpha,
                             {in.num("bf16_flops_per_s"), in.num("node_egress_Bps")});
          double b = tr.step("X nodes", kDpSmallX, {a, in.num("x_nodes")});
          return Answers{{"tokens_per_gpu", b}};
        },
};

constexpr Param kDP6Given[] = {text("sharp", "yes", "switches reduce in the network"),
                               ranged("measured_gain", "ratio", 0.3, "gain measured", 0, 10),
                               flops_rate("bf16_flops_per_s", 9.9e14, "bf16 peak per GPU"),
                               bw("gpu_egress_Bps", 450e9, "NVLink egress per GPU"),
                               group("n_gpus", 8, "GPUs in the node")};
constexpr Problem kDP6{
    .id = "gpus.Ex.DP6",
    .title = "SHARP effect on DP thresholds",
    .statement =
        "On {n_gpus} H100s ({bf16_flops_per_s}, {gpu_egress_Bps} of NVLink each) with in-network "
        "reduction (SHARP: {sharp}), how do the pure-DP critical batches change, in theory and "
        "given the {measured_gain} gain measured?",
    .kind = "conceptual",
    .given = kDP6Given,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double a = tr.step("Inside a node, without SHARP", kAlpha,
                             {in.num("bf16_flops_per_s"), in.num("gpu_egress_Bps")});
          double s = tr.step("SHARP's saving in theory", kSharpSpeedup, {in.num("n_gpus")});
          tr.step("The threshold falls by it", kRatio, {a, s});
          tr.note("measured, SHARP gains far less than that");
          return Answers{};
        },
    .model_answer =
        "SHARP does an AllReduce in bytes / W instead of about 2 bytes / W, so in theory the "
        "weight traffic halves and both critical batches halve (about 1100 tokens per GPU inside "
        "a node, about 1240 across nodes). Measured, SHARP gains only about 30%, and pure data "
        "parallelism is rare at scale, so in practice the thresholds move little.",
};

}  // namespace

void add_problems_rooflines_b(Registry& r);  // problems_rooflines_b.cpp

void add_problems_rooflines(Registry& r) {
  static constexpr Problem kAll[] = {kDP1, kDP2, kDP3, kDP4, kDP5, kDP6};
  r.add(kAll);
  add_problems_rooflines_b(r);
}

}  // namespace sb::gpus
