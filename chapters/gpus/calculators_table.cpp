// The table of the GPU chapter's calculators and their inputs.
#include "chapters/gpus/calculators.hpp"
#include "chapters/gpus/nccl_sample.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::gpus {
namespace {

constexpr Param zero_ok(Param p) {
  p.positive = false;
  return p;
}
// The pasted log: core's long text (up to 16 MiB), with a sample log as its default.
constexpr Param with_default(Param p, Text def) {
  p.def_text = def;
  return p;
}
constexpr Param tpu_param() {
  Param p = chip_param("v5p", "the TPU beside it");
  p.name = "tpu";
  return p;
}
constexpr Param kChipParams[] = {chip_param("h100", "the GPU"), tpu_param(),
                                 dtype_param("dtype", "bf16", "compute dtype of the peak")};
constexpr Param kNetworkParams[] = {
    chip_param("h100", "the GPU (its NVLink node and scale-out figures)"),
    num("nodes", "count", 128, "nodes in the cluster", 1, 1e5, true),
    num("nodes_per_su", "count", 32, "nodes per scalable unit", 1, 1024, true),
    num("leaves_per_su", "count", 8, "leaf switches per SU (one per NIC of a node)", 1, 1024, true),
    num("spines", "count", 16, "spine switches", 1, 4096, true),
    num("cables", "count", 2, "cables per leaf-spine pair", 1, 64, true),
    num("ports", "count", 64, "ports per InfiniBand switch", 2, 1024, true),
    num("port_bw", "B_per_s", 50e9, "bandwidth per port, each way", 1e6, 1e13)};
constexpr Param kCollectiveParams[] = {
    chip_param("h100", "the GPU"),
    choice("collective", "all_gather", "all_gather|reduce_scatter|all_reduce|all_to_all",
           "the collective"),
    num("bytes", "B", 1073741824, "bytes of the whole array", 1, 1e16),
    num("gpus", "count", 8, "GPUs taking part", 1, 1e6, true),
    choice("algorithm", "ring", "ring|tree", "ring, or a tree (fewer hops, same bandwidth)"),
    choice("sharp", "no", "no|yes", "in-network reduction (SHARP / NVLS)"),
    tpu_param()};
constexpr Param kLlmParams[] = {
    chip_param("h100", "the GPU"),
    choice("model", "llama-3-70b",
           "llama-3-70b|llama-2-7b|llama-2-13b|llama-2-70b|llama-3-8b|llama-3.1-405b|mistral-7b|"
           "mixtral-8x7b|mixtral-8x22b|gemma-7b|gemma-2-9b|gemma-2-27b|qwen2.5-7b|qwen2.5-72b|"
           "qwen3-32b|qwen3-235b-a22b|deepseek-v3|gpt-oss-20b|gpt-oss-120b|book-q1|custom",
           "model from the table, or custom: the fields below"),
    zero_ok(num("D", "count", 0, "model width; 0 = the model's", 0, 1e6, true)),
    zero_ok(num("F", "count", 0, "MLP width (MoE: one expert's); 0 = the model's", 0, 1e7, true)),
    zero_ok(num("E", "count", 0, "experts; 0 = the model's (dense: none)", 0, 4096, true)),
    zero_ok(num("k", "count", 0, "active experts; 0 = the model's", 0, 4096, true)),
    zero_ok(num("n_params", "params", 0, "parameters; 0 = the model's", 0, 1e15)),
    num("batch", "tokens", 4e6, "global batch in tokens", 1, 1e12),
    // 4608 = 64 NVL72 racks = 576 nodes of 8: whole nodes on every GPU of the tables.
    num("gpus", "count", 4608, "GPUs", 1, 1e6, true),
    num("tp", "count", 8, "tensor-parallel degree", 1, 1024, true),
    num("pp", "count", 8, "pipeline-parallel degree", 1, 1024, true),
    num("ep", "count", 1, "expert-parallel degree", 1, 4096, true)};
constexpr Param kFitParams[] = {
    with_default(long_text("log", "the output of an nccl-tests binary, as printed"), kSampleLog),
    text("source", "", "where the log comes from, for messages (empty: the pasted log)"),
    choice("collective", "auto",
           "auto|all_reduce|all_gather|reduce_scatter|alltoall|sendrecv|broadcast|reduce",
           "the collective, where the log does not say (auto: from the log)"),
    zero_ok(num("ranks", "count", 0, "ranks, where the log does not say (0: from the log)", 0, 1e6,
                true)),
    text("gpu", "", "the GPU for the line rate, where the log names none (empty: from the log)"),
    zero_ok(num("nodes", "count", 0, "nodes, where the log does not say (0: from the log)", 0, 1e5,
                true))};

constexpr Calculator kTableCalculators[] = {
    {.name = "gpus.chip",
     .title = "GPU chip explorer",
     .doc = "SMs, Tensor and CUDA cores, on-chip memory and the roofline of a GPU, term by term "
            "beside a TPU.",
     .params = kChipParams,
     .run = chip_calc},
    {.name = "gpus.network",
     .title = "NVLink node and fat tree",
     .doc =
         "The NVLink node and the InfiniBand fat tree above it: capacity at each level, per node "
         "and per GPU, bisection, switches, and whether the ports allow the node count.",
     .params = kNetworkParams,
     .run = network_calc},
    {.name = "gpus.collective",
     .title = "Collectives on GPUs",
     .doc = "AllGather, ReduceScatter, AllReduce or AllToAll inside a node or across nodes, with "
            "or without SHARP, beside a TPU slice of as many chips.",
     .params = kCollectiveParams,
     .run = collective_calc},
    {.name = "gpus.llm",
     .title = "LLM rooflines on GPUs",
     .doc =
         "When data, tensor, expert and pipeline parallelism are compute-bound on a GPU cluster, "
         "for a model and a layout.",
     .params = kLlmParams,
     .run = llm_calc},
    {.name = "gpus.fit",
     .title = "Measured collectives (nccl-tests)",
     .doc = "An nccl-tests log read row by row, time = latency + size / bandwidth fitted to it, "
            "and the share of the link's line rate.",
     .params = kFitParams,
     // A log of up to 16 MiB: read in a page's worker. Its run: add_heavy.
     .heavy = true},
};

}  // namespace

void add_calculators(Registry& r) { r.add(kTableCalculators); }
void add_heavy(Registry& r) { r.add_run("gpus.fit", fit_calc); }

}  // namespace sb::gpus
