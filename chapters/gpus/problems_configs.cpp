// The two training configurations the chapter checks against its rooflines: DeepSeek-V3 on 2048
// H800s and LLaMA 3 on 16k H100s.
#include "chapters/gpus/problems.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::gpus {
namespace {

using roofline::kGlobalBatch;
using roofline::kLocalBatch;

constexpr Param kDSGiven[] = {chip_count("n_gpus", 2048, "GPUs"),
                              dim("ep", 64, "expert-parallel degree"),
                              dim("pp", 16, "pipeline-parallel degree"),
                              group("dp", 2, "data-parallel degree"),
                              dim("batch_seqs", 15360, "sequences per batch"),
                              dim("seq_len", 4096, "tokens per sequence"),
                              dim("gpus_per_node", 8, "GPUs per node"),
                              dim("k_active", 8, "active experts"),
                              dim("n_experts", 256, "experts")};
constexpr Slot kDSSlots[] = {number("global_batch_tokens", "tokens", "global batch"),
                             number("tokens_per_gpu", "tokens", "tokens per GPU", 0.03),
                             number("model_parallel_degree", "count", "model-parallel GPUs"),
                             number("dp_bandwidth_gain", "ratio", "DP bandwidth gain")};
constexpr Problem kDS{
    .id = "gpus.Ex.DeepSeek",
    .title = "DeepSeek-V3 sharding configuration check",
    .statement =
        "DeepSeek-V3 (E = {n_experts}, k = {k_active}) trained on {n_gpus} GPUs in nodes of "
        "{gpus_per_node}: {ep}-way EP x {pp}-way PP x {dp}-way ZeRO-1 DP, batches of "
        "{batch_seqs} sequences of {seq_len} tokens. What are the global and per-GPU batches, "
        "how many GPUs does the model-parallel group span, and what does a {dp}-way DP ring over "
        "the spine gain over the large-X bound?",
    .kind = "numeric",
    .given = kDSGiven,
    .slots = kDSSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double b =
              tr.step("Global batch", kGlobalBatch, {in.num("batch_seqs"), in.num("seq_len")});
          double per = tr.step("Per GPU", kLocalBatch, {b, in.num("n_gpus")});
          double y =
              tr.step("Model-parallel group", kModelParallel, {1, in.num("pp"), in.num("ep")});
          double g = tr.step("A ring of X nodes moves (X - 1)/X", kDpRingGain, {in.num("dp")});
          Answers a{{"global_batch_tokens", b},
                    {"tokens_per_gpu", per},
                    {"model_parallel_degree", y},
                    {"dp_bandwidth_gain", g}};
          a.book("tokens_per_gpu", units::round_sig(per, 1), "rounds to about 30k");
          return a;
        },
};

constexpr Param kL3Given[] = {
    tokens("batch_tokens", 16e6, "batch in tokens"), dim("tp", 8, "tensor-parallel degree"),
    dim("pp", 16, "pipeline-parallel degree"), dim("dp", 128, "data-parallel degree"),
    dim("gpus_per_node", 8, "GPUs per node")};
constexpr Slot kL3Slots[] = {number("tokens_per_gpu", "tokens", "tokens per GPU", 0.03),
                             number("dp_cost_reduction", "ratio", "how much cheaper DP gets")};
constexpr Problem kL3{
    .id = "gpus.Ex.LLaMA3",
    .title = "LLaMA-3 sharding configuration check",
    .statement =
        "LLaMA 3 trained with a batch of {batch_tokens} on {tp}-way TP x {pp}-way PP x {dp}-way "
        "ZeRO-1 DP, in nodes of {gpus_per_node} GPUs. How many tokens per GPU is that, and how "
        "much cheaper does the model-parallel group make the DP reduction?",
    .kind = "numeric",
    .given = kL3Given,
    .slots = kL3Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double n = tr.step("GPUs", kGpuCount, {in.num("tp"), in.num("pp"), in.num("dp")});
          double per = tr.step("Per GPU", kLocalBatch, {in.num("batch_tokens"), n});
          double y =
              tr.step("Model-parallel group", kModelParallel, {in.num("tp"), in.num("pp"), 1});
          double g = tr.step("DP runs over groups spanning $Y / D_{node}$ nodes", kDpSpanGain,
                             {in.num("gpus_per_node"), y});
          Answers a{{"tokens_per_gpu", per}, {"dp_cost_reduction", g}};
          a.book("tokens_per_gpu", units::round_sig(per, 1), "says about 1k");
          return a;
        },
};

}  // namespace

void add_problems_configs(Registry& r) {
  static constexpr Problem kAll[] = {kDS, kL3};
  r.add(kAll);
}

}  // namespace sb::gpus
