// The inference chapter's calculators as records, and the readers they share (the model, the chip,
// the price, the counts of a model). Each calculator's run function is in a calculators_*.cpp
// file; every number comes from model.hpp, serving.hpp and frontier.hpp.
#include "chapters/inference/calculators.hpp"

#include <cmath>

#include "chapters/transformers/models.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/units.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::inference {
namespace calc {

namespace tf = transformers;

Chosen model_of(const Inputs& in) {
  tf::ChosenModel m = tf::chosen_model(in);
  return {m.config, m.id, m.name};
}

Machine machine_in(const Inputs& in) {
  return machine_of(hw::chip(in.text("chip"), "chip"), "chip");
}

double price_in(const Inputs& in, const Machine& t) {
  return in.num("price") > 0 ? in.num("price") : t.price;
}

std::string config_text(const Chosen& ch) {
  const tf::Config& c = ch.c;
  auto n = [](double v) { return units::number(v, 6); };
  std::string s = ch.name + ": L " + n(c.L) + ", D " + n(c.D) + ", F " + n(c.F) + ", N " + n(c.N) +
                  ", K " + n(c.K) + ", H " + n(c.H) + ", V " + n(c.V);
  if (c.E > 0)
    s += ", E " + n(c.E) + ", k " + n(c.k) + ", expert width " + n(c.F_e > 0 ? c.F_e : c.F);
  return s;
}

Counts count_steps(const Chosen& ch, const Served& m, double b_w, double b_kv, double S,
                   Trace& tr) {
  Counts k;
  tr.note(config_text(ch) + ".");
  k.P_total = tr.value(
      "Parameters stored, $P_{total}$ (the transformers chapter's count: attention, MLP or "
      "experts, norms and vocabulary)",
      m.P_total, "count");
  k.P_active = m.P_active;
  if (m.moe)
    k.P_active = tr.value("Parameters one token uses, $P_{active}$ ($k$ of the $E$ experts)",
                          m.P_active, "count");
  k.bytes_w = tr.step("Weight bytes: one copy, no optimizer state", kWeightBytes, {m.P_total, b_w});
  if (m.plain_kv)
    k.kv_tok = tr.step("KV-cache bytes per token: a key and a value per KV head per layer", kKvTok,
                       {m.L, m.K, m.H, b_kv});
  else
    k.kv_tok = tr.value(
        "KV-cache bytes per token at $S$ (the transformers chapter's count: MLA's latent, or "
        "sliding-window layers that keep at most their window)",
        kv_tok_of(m, b_kv, S), "B");
  return k;
}

}  // namespace calc

namespace {

using namespace calc;

constexpr std::array<Param, 12> kStepOwn = {
    kChip,
    num("chips", "chips", 16,
        "chips of one replica: a slice size (1, 4, 8, 16, ...; GPUs: 1, 2, 4 in a node, then whole "
        "nodes)",
        0, 1e5, true),
    num("B", "count", 32, "decode batch: sequences, each one token per step", 0, 1e7, true),
    kS,
    num("prompt", "tokens", 8192, "prompt tokens of one prefill (for the first token)", 0, 1e8,
        true),
    num("len_decode", "tokens", 512, "tokens generated per request", 0, 1e7, true),
    kDtypeW,
    kDtypeKv,
    kDtypeA,
    kDtypeMatmul,
    kMfu,
    kPrice,
};
constexpr auto kStepParams = join(kModelInput, kStepOwn);

constexpr Text kDtypeChoices = "all|bf16|int8|int8-int8|int4";
constexpr std::array<Param, 6> kFrontierOwn = {
    kChip,
    kS,
    choice("dtypes", "all", kDtypeChoices,
           "dtypes to sweep: all, or one set (int8-int8: int8 weights and KV with int8 matmuls)"),
    zero_ok(num("max_chips", "chips", 0, "largest slice to try (0: a whole pod)", 0, 1e5, true)),
    num("batches", "count", 32, "batch sizes per slice and dtype", 2, 64, true),
    kPrice,
};
constexpr auto kFrontierParams = join(kModelInput, kFrontierOwn);

constexpr std::array<Param, 10> kPlanOwn = {
    kChip,
    num("tpot", "s", 0.03, "target time per output token", 1e-6, 1e4),
    zero_ok(num("ttft", "s", 0, "target time to the first token (0: none)", 0, 1e5)),
    num("rps", "per_s", 10, "requests per second", 1e-6, 1e7),
    num("prompt", "tokens", 2048, "prompt tokens per request", 1, 1e8, true),
    num("len_decode", "tokens", 512, "output tokens per request", 1, 1e7, true),
    choice("dtypes", "all", kDtypeChoices, "dtypes to consider: all, or one set"),
    kMfu,
    kPrice,
    zero_ok(
        num("max_chips", "chips", 0, "largest slice to consider (0: a whole pod)", 0, 1e5, true)),
};
constexpr auto kPlanParams = join(kModelInput, kPlanOwn);

constexpr std::array<Param, 6> kShardingOwn = {
    kChip,
    num("chips", "chips", 16, "chips the weights are split over: a slice size", 0, 1e5, true),
    num("B", "count", 32, "decode batch (tokens per step)", 0, 1e7, true),
    kDtypeW,
    kDtypeA,
    kDtypeMatmul,
};
constexpr auto kShardingParams = join(kModelInput, kShardingOwn);

constexpr std::array<Param, 12> kMoeOwn = {
    kChip,
    num("chips", "chips", 64, "chips of one replica: a slice size", 0, 1e5, true),
    zero_ok(num("TP", "count", 0,
                "chips per attention group (its model parallelism); 0: the KV heads, at most the "
                "chips",
                0, 1e5, true)),
    num("B", "count", 256, "decode batch: sequences over the whole replica", 0, 1e7, true),
    kS,
    kDtypeW,
    kDtypeKv,
    kDtypeA,
    kDtypeMatmul,
    num("len_decode", "tokens", 512, "tokens generated per request", 0, 1e7, true),
    kMfu,
    kPrice,
};
constexpr auto kMoeParamsBase = join(kModelInput, kMoeOwn);
// The EP calculator opens on an MoE of the table.
constexpr auto kMoeParams = [] {
  auto p = kMoeParamsBase;
  p[0] = transformers::moe_model_param("qwen3-235b-a22b");
  return p;
}();

constexpr std::array<Param, 14> kEngineOwn = {
    kChip,
    num("chips", "chips", 16, "chips of a generate server (and of a prefill server)", 0, 1e5, true),
    num("B", "count", 32, "decode batch of a generate server", 0, 1e7, true),
    num("prompt", "tokens", 8192, "prompt tokens per request", 0, 1e8, true),
    num("len_decode", "tokens", 512, "output tokens per request", 0, 1e7, true),
    zero_ok(num("cached", "tokens", 0, "prompt tokens found in the prefix cache", 0, 1e8, true)),
    kDtypeW,
    kDtypeKv,
    kDtypeMatmul,
    kMfu,
    num("gamma", "count", 4, "speculative decoding: tokens drafted per step", 0, 64, true),
    num("accept", "ratio", 0.7, "speculative decoding: chance a drafted token is accepted", 0,
        0.999),
    num("draft_cost", "ratio", 0.05,
        "speculative decoding: a drafter step's time over the target model's step", 0, 1),
    kPrice,
};
constexpr auto kEngineParams = join(kModelInput, kEngineOwn);

constexpr Calculator kCalculators[] = {
    Calculator{.name = "inference.step",
               .title = "Inference calculator",
               .doc = "One replica on a TPU slice or a set of GPUs: the decode step as weight "
                      "loading, KV-cache loading and FLOPs with their shares, the verdict, the "
                      "critical batch and how "
                      "quantization moves it, the largest batch that fits, tokens per second, time "
                      "per output token, time to first token, and the cost per million tokens.",
               .params = kStepParams,
               .run = step_calc},
    Calculator{.name = "inference.frontier",
               .title = "Latency-throughput frontier",
               .doc = "Every slice, dtype set and batch that fits, at one context length: time per "
                      "token against tokens per second per chip, and the Pareto front.",
               .params = kFrontierParams,
               .heavy = true},  // a sweep; its run: add_heavy
    Calculator{.name = "inference.plan",
               .title = "Serving planner",
               .doc =
                   "For a traffic and a latency target: the cheapest slice, dtype and batch that "
                   "meet it, the replicas and prefill servers, the cost per million output "
                   "tokens, and why each alternative loses.",
               .params = kPlanParams,
               .heavy = true},  // a search; its run: add_heavy
    Calculator{
        .name = "inference.sharding",
        .title = "Sharding for inference",
        .doc = "Model parallelism over a slice or GPUs: its ICI or NVLink cost against the weight "
               "loads, the chapter's limits for prefill and decode, where collectives turn "
               "latency-bound, how the KV cache splits, and 2D weight-stationary sharding.",
        .params = kShardingParams,
        .heavy = true},  // the first module's budget (a TPU's and a GPU's limits); run: add_heavy
    Calculator{.name = "inference.moe",
               .title = "MoE: expert parallelism beside data-parallel attention",
               .doc = "An MoE on a slice with its experts spread over every chip and its attention "
                      "run by data-parallel groups: the AllToAll bytes and time, the KV cache and "
                      "weights per chip, the mesh, and the step against plain model parallelism.",
               .params = kMoeParams,
               .run = moe_calc},
    Calculator{.name = "inference.engine",
               .title = "Serving engine",
               .doc = "Disaggregated prefill and generation (prefill servers per generate server), "
                      "continuous batching (sequences done per step, the stall of interleaved "
                      "prefills), prefix caching and speculative decoding.",
               .params = kEngineParams,
               .run = engine_calc},
};

}  // namespace

void add_calculators(Registry& r) { r.add(kCalculators); }
void add_heavy(Registry& r) {
  r.add_run("inference.frontier", frontier_calc);
  r.add_run("inference.plan", plan_calc);
  r.add_run("inference.sharding", sharding_calc);
}

}  // namespace sb::inference
