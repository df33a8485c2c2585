// The transformers chapter's calculators as records: one model's accounting (parameters, FLOPs per
// token, KV bytes, training memory), the context-length explorer, the KV-cache sizer, saved
// activations per remat policy, and the model table. Every calculator that describes a model takes
// the one model input (model_input.hpp) before its own params; the run functions are in
// calculators_*.cpp.
#include "chapters/transformers/calculators.hpp"

#include <array>

#include "core/registry.hpp"

// Records are written with designated initializers; the members left out keep their defaults.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::transformers {
namespace {

using namespace calc;

constexpr Param zero_ok(Param p) {
  p.positive = false;
  return p;
}

constexpr std::array<Param, 8> kAccountingOwn = {
    num("T", "tokens", 4096, "context length T for the attention core's FLOPs", 1, 1e8, true),
    choice("causal", "no", "no|yes",
           "a causal kernel that skips the masked half of the attention core (the book does not)"),
    num("tokens", "tokens", 15e12, "training tokens (LLaMA 3: 15e12)", 1, 1e16),
    dtype_param("dtype_kv", "bf16", "element type of the KV cache"),
    dtype_param("dtype_params", "bf16", "element type of the parameters"),
    choice("grads", "no", "no|yes", "count a gradient buffer the size of the parameters"),
    zero_ok(
        num("optimizer_bytes", "B", 8, "optimizer bytes per parameter (Adam in fp32: 8)", 0, 64)),
    chip_param("v5p", "chip whose HBM holds the memory"),
};
constexpr auto kAccountingParams = join(kModelInput, kAccountingOwn);

constexpr std::array<Param, 4> kContextOwn = {
    num("T", "tokens", 32768, "context length T (S = T: self-attention)", 1, 1e8, true),
    choice("causal", "no", "no|yes",
           "a causal kernel that skips the masked half of the attention core (the book does not)"),
    chip_param("v5e", "chip for the attention core's roofline"),
    dtype_param("dtype", "bf16", "element type of Q, K, V and of the compute"),
};
constexpr auto kContextParams = join(kModelInput, kContextOwn);

constexpr std::array<Param, 7> kKvOwn = {
    num("S", "tokens", 8192, "tokens in each sequence's cache", 1, 1e9, true),
    num("B", "count", 1, "sequences in the batch", 1, 1e7, true),
    dtype_param("dtype", "bf16", "element type of the cache (int8: 1 byte)"),
    zero_ok(num("window", "tokens", 0, "sliding window in tokens (0: the model's)", 0, 1e9, true)),
    model_field("window_layers", "layers that use the window (0: the model's, else every layer)",
                1e4),
    chip_param("v5e", "chip whose HBM holds the weights and the cache"),
    dtype_param("dtype_params", "bf16", "element type of the weights"),
};
constexpr auto kKvParams = join(kModelInput, kKvOwn);

constexpr std::array<Param, 9> kActivationsOwn = {
    num("tokens", "tokens", 4e6, "tokens per batch B T (the book's example: 4M)", 1, 1e12),
    num("T", "tokens", 4096, "tokens per sequence T (for the attention recompute)", 1, 1e8, true),
    choice("policy", "block", "save_all|big_matmuls|block|exact|custom",
           "what the backward pass keeps: every intermediate (about 20 arrays per layer), the 7 "
           "big matmul outputs, each block's input (1), the big outputs at their exact shapes, or "
           "c arrays"),
    num("c", "count", 4, "arrays per layer for the custom policy", 0.001, 1000),
    dtype_param("dtype_act", "bf16", "element type of the saved activations"),
    dtype_param("dtype_params", "bf16", "element type of the parameters"),
    choice("grads", "no", "no|yes", "count a gradient buffer the size of the parameters"),
    zero_ok(
        num("optimizer_bytes", "B", 8, "optimizer bytes per parameter (Adam in fp32: 8)", 0, 64)),
    chip_param("v5p", "chip whose HBM holds it all"),
};
constexpr auto kActivationsParams = join(kModelInput, kActivationsOwn);

constexpr Param kModelsParams[] = {
    dtype_param("dtype_kv", "bf16", "element type of the KV cache"),
    num("T", "tokens", 8192, "context for the FLOPs per token and the windowed KV bytes", 1, 1e8,
        true),
};

constexpr Calculator kCalculators[] = {
    Calculator{
        .name = "transformers.accounting",
        .title = "Transformer accounting",
        .doc = "A model from the table or a configuration of your own: parameters by component, "
               "total and active, training FLOPs per token and where they go, KV bytes per token, "
               "and the memory of parameters, gradients and optimizer state.",
        .params = kAccountingParams,
        .run = accounting_calc},
    Calculator{
        .name = "transformers.context",
        .title = "Context length: attention against the matmuls",
        .doc = "How the attention core's FLOPs grow with the context T against the other matmuls "
               "(the book's 8D rule and this model's exact crossover), and the attention core's "
               "arithmetic intensity for prefill and decoding against the chip.",
        .params = kContextParams,
        .run = context_calc},
    Calculator{.name = "transformers.kv_cache",
               .title = "KV-cache sizer",
               .doc = "Bytes of the KV cache per token, per sequence and per batch for any element "
                      "type, with GQA, sliding windows and MLA as the model has them, and how many "
                      "sequences fit beside the weights on one chip.",
               .params = kKvParams,
               .run = kv_calc},
    Calculator{
        .name = "transformers.activations",
        .title = "Saved activations and rematerialisation",
        .doc = "What a training step keeps for the backward pass under each remat policy, beside "
               "the parameters and optimizer state; the FLOPs each policy costs; the chips whose "
               "HBM holds it all.",
        .params = kActivationsParams,
        .run = activations_calc},
    Calculator{.name = "transformers.models",
               .title = "The model table",
               .doc = "The book's models and popular open ones: each configuration with its "
                      "source, and what the chapter's formulas derive from it.",
               .params = kModelsParams,
               .run = models_calc,
               .command = "models"},
};

}  // namespace

void add_calculators(Registry& r) { r.add(kCalculators); }

}  // namespace sb::transformers
