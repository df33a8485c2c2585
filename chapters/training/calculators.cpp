// The training chapter's calculators as records: one strategy in full, the FSDP x TP split, the
// planner and the regime map. Model and chip come from the tables (data/models.json,
// data/chips.json); the arithmetic is in model.hpp and planner.hpp; each calculator's run function
// is in calculators_strategy.cpp or calculators_planner.cpp.
#include "chapters/training/calculators.hpp"

#include "core/registry.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::training {
namespace {

using namespace calc;

constexpr Text kStrategies = "DP|FSDP|TP|FSDP+TP|pipeline|DCN";

// ------------------------------------------------------------------ the records

constexpr Param kStrategyParams[] = {
    choice("strategy", "FSDP+TP", kStrategies,
           "DP, FSDP, TP, FSDP+TP, pipeline, or DCN (DP across pods, FSDP/TP inside)"),
    kModel,
    kL,
    kD,
    kF,
    kN,
    kK,
    kH,
    kV,
    kMlp,
    kChip,
    kChips,
    kBatch,
    kAxes,
    kMY,
    zero_ok(num("Y", "count", 0,
                "TP degree for FSDP+TP and DCN; 0 = X_opt rounded to a divisor of N (DCN: 1 = "
                "FSDP inside a pod)",
                0, 1e8, true)),
    count("Z", 4, "pipeline stages"),
    count("m", 16, "pipeline microbatches"),
    count("pods", 2, "pods for DP over DCN", {}, 1, 1e4)};

constexpr Param kSplitParams[] = {kModel, kL,   kD,    kF,     kN,     kK,    kH,
                                  kV,     kMlp, kChip, kChips, kBatch, kAxes, kMY};

constexpr Param kPlanParams[] = {
    kModel,
    kL,
    kD,
    kF,
    kN,
    kK,
    kH,
    kV,
    kChip,
    kChips,
    text("shape", "", "slice shape like 16x20x28; empty = every shape with that many chips"),
    kBatch,
    choice("layer", "book", "book|full",
           "book = the chapter's MLP layer; full = attention and MLP, the core at seq_len"),
    zero_ok(
        num("seq_len", "tokens", 4096, "sequence length (full layer: the attention core)", 0, 1e7)),
    choice("grad_buffers", "no", "no|yes", "count bf16 gradient buffers (12 B per parameter)"),
    choice("pipeline", "yes", "yes|no", "try pipeline stages too")};

constexpr Param kRegimeParams[] = {kModel, kL, kD, kF, kN, kK, kH, kV, kChip, kChips, kBatch};

constexpr Calculator kCalculators[] = {
    Calculator{.name = "training.strategy",
               .title = "One parallelism strategy, layer by layer",
               .doc = "DP, FSDP, TP, FSDP + TP, pipelining or DP across pods: what is sharded, the "
                      "collectives of each layer with their bytes, forward and backward T_math "
                      "against T_comms, the compute-bound conditions and memory per chip; the six "
                      "side by side.",
               .params = kStrategyParams,
               .run = strategy_calc},
    Calculator{.name = "training.split",
               .title = "FSDP x TP split",
               .doc = "For FSDP + TP on N chips: X_opt, the window of X that keeps both comm terms "
                      "under the math, the per-chip batch floor, and each term against X.",
               .params = kSplitParams,
               .run = split_calc},
    Calculator{.name = "training.plan",
               .title = "Training planner",
               .doc = "Every way to split a slice's axes into data (DP/FSDP), tensor and pipeline "
                      "parallelism, with memory per chip, step-time and MFU bounds; the best plan "
                      "and why each other strategy loses.",
               .params = kPlanParams,
               .run = plan_calc,
               .heavy = true},
    Calculator{.name = "training.regime",
               .title = "Regime map",
               .doc = "Chips against batch per chip: where DP, FSDP, TP and FSDP + TP are "
                      "compute-bound and fit, and where DP across pods keeps up over DCN.",
               .params = kRegimeParams,
               .run = regime_calc},
};

}  // namespace

void add_calculators(Registry& r) { r.add(kCalculators); }

}  // namespace sb::training
