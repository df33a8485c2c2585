// The training chapter's calculators as records: one strategy in full, the FSDP x TP split, the
// planner and the regime map. Model and chip come from the tables (data/models.json,
// data/chips.json); the arithmetic is in model.hpp, costs.hpp and planner.hpp; each calculator's
// run function is in its calculators_*.cpp.
#include "chapters/training/calculators.hpp"

#include <array>

#include "core/registry.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::training {

namespace calc {

void write_memory(JsonWriter& w, const MemoryBar& m, double hbm) {
  w.obj().key("weights").num(m.weights).key("grads").num(m.grads);
  w.key("optimizer").num(m.optimizer).key("activations").num(m.activations);
  w.key("total").num(m.total()).key("hbm").num(hbm).end();
}

void write_timeline(JsonWriter& w, const Timeline& t) {
  w.obj().key("step").num(t.step).key("compute").num(t.compute).key("hbm").num(t.hbm);
  w.key("fsdp").num(t.fsdp).key("tp").num(t.tp).key("ep").num(t.ep).key("dp").num(t.dp);
  w.key("dcn").num(t.dcn).key("hop").num(t.hop).key("bubble").num(t.bubble);
  w.key("overlap").num(t.overlap).end();
}

// The same payloads as trees, for the planner's results (read back from the writers' text, so
// that each payload is written by one function).
json memory_json(const MemoryBar& m, double hbm) {
  Out o;
  JsonWriter w(o);
  write_memory(w, m, hbm);
  return parse_json(o.view(), kNoLimits);
}

json timeline_json(const Timeline& t) {
  Out o;
  JsonWriter w(o);
  write_timeline(w, t);
  return parse_json(o.view(), kNoLimits);
}

Machine machine_of(const Inputs& in) {
  Machine m;
  const hw::Chip& chip = hw::chip(in.text("chip"), "chip");
  m.chip = &chip;
  if (chip.kind != "gpu") {
    m.chip = &tpu(in);
    m.h = hardware_of(chip);
    m.N = chips_of(in, chip);
    m.axes = axes_of(in, chip);
    return m;
  }
  if (in.num("axes") > 0)
    fail("axes",
         "a GPU cluster has no ICI torus axes (its GPUs sit in NVLink nodes under a fat "
         "tree); leave it at 0, or pick a TPU",
         "not_tpu");
  if (in.num("M_Y") != 1)
    fail("M_Y",
         "a GPU cluster has no torus axes to give TP; where TP lies (NVLink inside a node, "
         "the fat tree across nodes) sets its bandwidth. Leave it at 1, or pick a TPU",
         "not_tpu");
  m.h = gpu_hardware(chip);
  const double asked = in.num("chips") > 0 ? in.num("chips") : gpu_counts(chip).back();
  m.N = buildable_gpus(chip, asked);
  m.gpu = topology_for_gpus(chip, m.N, true, "chips").gpu;
  m.snapped = snapped_words(chip, asked, m.N);
  return m;
}

std::string gpu_words(const Machine& m) {
  return units::number(m.gpu.nodes) + (m.gpu.nodes == 1 ? " node" : " nodes") + " of " +
         units::number(m.gpu.d_node) + " " + m.chip->name +
         " GPUs: NVLink inside a node, the fat tree across nodes. M_X and M_Y are each group's "
         "AllGather bandwidth over NVLink's (the gpus chapter's hierarchical AllGather), not "
         "counts of axes.";
}

}  // namespace calc

namespace {

using namespace calc;

constexpr Text kStrategies = "DP|FSDP|TP|FSDP+TP|pipeline|DCN";

// ------------------------------------------------------------------ the records

constexpr auto kStrategyParams = params(std::to_array<Param>(
    {choice("strategy", "FSDP+TP", kStrategies,
            "DP, FSDP, TP, FSDP+TP, pipeline, or DCN (DP across pods, FSDP and TP inside)"),
     kMlp, kMeshChip, kChips, kBatch, kAxes, kMY,
     zero_ok(num("Y", "count", 0,
                 "TP degree for FSDP+TP and DCN (0: the chapter's recipe, X_opt rounded to a power "
                 "of two; for DCN 1 is FSDP alone inside a pod)",
                 0, 1e8, true)),
     count("Z", 4, "pipeline stages"), count("m", 16, "pipeline microbatches", {}, 1, 4096),
     count("pods", 2, "pods for DP over DCN", {}, 1, 1e4), kGradBuffers}));

constexpr auto kSplitParams =
    params(std::to_array<Param>({kMlp, kMeshChip, kChips, kBatch, kAxes, kMY}));

constexpr auto kPlanParams = params(std::to_array<Param>(
    {kMlp, kLayer, kSeqLen,
     chip_param("v5p",
                "a TPU or a GPU (a TPU's mesh lies on its slice's ICI torus, a GPU's on NVLink "
                "nodes under a fat tree)"),
     zero_ok(num("chips", "chips", 0,
                 "chips N (per pod for DP over DCN); 0: the most the chip comes in (a full pod, "
                 "or the GPUs the fat tree takes)",
                 0, 1e8, true)),
     text("shape", "", "slice shape like 16x20x28; empty: every shape with that many chips"),
     kBatch, kGradBuffers, choice("pipeline", "yes", "yes|no", "try pipeline stages too"),
     choice("tp_span", "node", "node|nodes",
            "where a GPU cluster's TP may lie: one node (the chapter's advice), or nodes")}));

constexpr auto kVersusParams = params(std::to_array<Param>(
    {kMlp, kLayer, kSeqLen,
     chip_param("h100", "the page's chip: a GPU or a TPU, one of the two columns"),
     text("other", "",
          "the chip of the other column (empty: TPU v5p beside a GPU, NVIDIA H100 beside a TPU)"),
     count("chips", 1024, "chips in each column (GPUs, or the TPU slice's chips)", {}, 1, 1e8),
     kBatch, kGradBuffers, choice("pipeline", "yes", "yes|no", "try pipeline stages too")}));

constexpr auto kRegimeParams =
    params(std::to_array<Param>({kMlp, kLayer, kSeqLen, kChip, kChips, kBatch, kGradBuffers}));

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
                      "under the math, the per-chip batch floor, the chapter's recipe, and each "
                      "term against X.",
               .params = kSplitParams,
               .heavy = true},  // each term against X over the cluster's layouts; run: add_heavy
    Calculator{.name = "training.plan",
               .title = "Training planner",
               .doc = "Every way to split a TPU slice's axes (or a GPU cluster's NVLink nodes and "
                      "fat tree) into data (DP/FSDP), tensor, pipeline and "
                      "(for a mixture of experts) expert parallelism, with memory per chip, "
                      "step-time and MFU bounds; the best plan, its memory and its step's "
                      "timeline, and why each other strategy loses.",
               .params = kPlanParams,
               .heavy = true},  // its run: add_heavy
    Calculator{.name = "training.versus",
               .title = "A GPU cluster beside a TPU slice",
               .doc = "The planner's best plan for one model on the same number of GPUs (NVLink "
                      "nodes under a fat tree) and TPU chips (a slice's ICI torus), side by side: "
                      "layout, memory per chip, step time, MFU bound and what bounds it.",
               .params = kVersusParams,
               .heavy = true},  // its run: add_heavy
    Calculator{.name = "training.regime",
               .title = "Regime map",
               .doc = "Chips against batch per chip: where DP, FSDP, TP, FSDP + TP (and expert "
                      "parallelism) have a layout that is compute-bound and fits, as the planner "
                      "costs it, and where DP across pods keeps up over DCN.",
               .params = kRegimeParams,
               .heavy = true},  // a sweep: the planner's question in every cell; run: add_heavy
};

}  // namespace

void add_calculators(Registry& r) { r.add(kCalculators); }
void add_heavy(Registry& r) {
  r.add_run("training.plan", plan_calc);
  r.add_run("training.regime", regime_calc);
  r.add_run("training.versus", versus_calc);
  r.add_run("training.split", split_calc);
}

}  // namespace sb::training
