// The training chapter's planner (training.plan: every way to split a slice's axes, the best plan
// and why each other strategy loses) and its regime map (training.regime).
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "chapters/training/calculators.hpp"
#include "chapters/training/model.hpp"
#include "chapters/training/planner.hpp"
#include "chapters/transformers/models.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

namespace sb::training::calc {
namespace {

// ------------------------------------------------------------------ training.plan

std::string factors_text(const std::array<int, 3>& f, size_t axes) {
  std::string s;
  for (size_t i = 0; i < axes; ++i) s += (i ? "x" : "") + std::to_string(f[i]);
  return s;
}

json plan_json(const Plan& p, const Slice& sl) {
  const size_t n = sl.dims.size();
  return {{"strategy", strategy_name(p.strategy)},
          {"X", p.X},
          {"Y", p.Y},
          {"Z", p.Z},
          {"m", p.m},
          {"x", factors_text(p.x, n)},
          {"y", factors_text(p.y, n)},
          {"z", factors_text(p.z, n)},
          {"M_X", p.M_X},
          {"M_Y", p.M_Y},
          {"remat", p.remat == tf::Remat::Block     ? "block"
                    : p.remat == tf::Remat::SaveAll ? "save all"
                                                    : "big matmuls"},
          {"mem", p.mem},
          {"fits", p.fits},
          {"t_step", p.t_step},
          {"mfu", p.mfu},
          {"comms_ratio", p.comms_ratio},
          {"bottleneck", term_name(p.bottleneck)},
          {"compute_bound", p.compute_bound},
          {"reason", reason_name(p.reason)},
          {"why", reason_text(p.reason)},
          {"slice", tpus::shape_text(tpus::Dims(sl.dims.begin(), sl.dims.end()))}};
}

PlanInput plan_input(const Inputs& in, const hw::Chip& chip) {
  PlanInput pi;
  pi.model = config_of(in);
  pi.hw = hardware_of(chip);
  const std::string shape = in.text("shape");
  pi.topo = shape.empty() ? topology_for_chips(chip, chips_of(in, chip), "chips")
                          : topology_for_shape(chip, shape, 1, "shape");
  pi.B = in.num("B");
  pi.layer = in.text("layer") == "full" ? LayerModel::Full : LayerModel::Book;
  pi.seq_len = in.num("seq_len");
  pi.state_bytes_per_param = in.text("grad_buffers") == "yes" ? 12 : 10;
  pi.pipeline = in.text("pipeline") == "yes";
  return pi;
}

// The best plan of each strategy: the best first, then those that fit, fastest first.
json plan_rows(const PlanResult& res, const Topology& topo) {
  json plans = json::array();
  for (int i = 0; i < kStrategyClasses; ++i)
    if (res.has[i])
      plans.push_back(plan_json(res.by_strategy[i], topo.slices[res.by_strategy[i].slice]));
  std::sort(plans.begin(), plans.end(), [](const json& a, const json& c) {
    if (a["reason"] == "best" || c["reason"] == "best") return a["reason"] == "best";
    if (a["fits"] != c["fits"]) return a["fits"].get<bool>();
    return a["t_step"].get<double>() < c["t_step"].get<double>();
  });
  return plans;
}

std::string plan_verdict(const PlanResult& res, double chips, double hbm) {
  const Plan& b = res.best;
  const std::string name = strategy_name(b.strategy);
  if (!res.fits)
    return "Fits nowhere: even the plan with the least memory (" + name + ") needs " +
           units::format(b.mem, "B") + " per chip, above " + units::format(hbm, "B") + " of HBM.";
  return "Best: " + name + " (X " + std::to_string(b.X) + ", Y " + std::to_string(b.Y) + ", Z " +
         std::to_string(b.Z) + ") on " + n_text(chips) + " chips, " + units::format(b.t_step, "s") +
         " per step, MFU bound " + units::number(b.mfu * 100, 3) + "%, " +
         (b.compute_bound ? "compute-bound" : std::string("bound by ") + term_name(b.bottleneck));
}

// The chip counts the page's slider offers. They depend on the chip only, and finding them tries
// every slice shape: once per chip.
const std::vector<double>& slider_counts(const hw::Chip& chip) {
  static std::map<std::string, std::vector<double>, std::less<>> counts;
  auto it = counts.find(chip.id);
  if (it == counts.end()) it = counts.emplace(chip.id, chip_counts(chip)).first;
  return it->second;
}

void run_plan(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& chip = tpu(in);
  const PlanInput pi = plan_input(in, chip);
  const PlanResult res = plan(pi);
  const Plan& b = res.best;
  const Slice& sl = pi.topo.slices[b.slice];
  const double chips = sl.chips() * res.pods;
  tr.note("Searched " + std::to_string(res.assignments) +
          " ways to split the axes into X, Y and Z (" + std::to_string(res.configs) +
          " configurations with the X mode, remat policy and microbatches).");
  r.value("chips", chips, "chips", "chips");
  r.value("per_chip_batch", pi.B / chips, "tokens", "batch per chip");
  r.value("X", b.X, "count", "best X (data / FSDP)");
  r.value("Y", b.Y, "count", "best Y (tensor parallel)");
  r.value("Z", b.Z, "count", "best Z (pipeline stages)");
  r.value("m", b.m, "count", "microbatches");
  r.value("mem", b.mem, "B", "memory per chip");
  r.value("hbm", pi.hw.hbm, "B", "HBM per chip");
  r.value("step", b.t_step, "s", "step-time bound");
  r.value("mfu", b.mfu, "ratio", "MFU bound");
  r.value("fits", res.fits ? 1 : 0, "bool", "some plan fits");
  r.value("configs", static_cast<double>(res.configs), "count", "configurations evaluated");
  r.value("assignments", static_cast<double>(res.assignments), "count", "axis assignments");
  if (!res.fits)
    r.note(
        "No layout of this model fits on these chips: more chips, a smaller batch, or a chip "
        "with more HBM.");
  r.note(pi.layer == LayerModel::Book
             ? "Layer model: the chapter's MLP (attention and embeddings left out of the time)."
             : "Layer model: the whole transformer layer (attention projections, MLP, TP around "
               "both blocks, the attention core at the sequence length).");
  r.extra["verdict"] = plan_verdict(res, chips, pi.hw.hbm);
  r.extra["fits"] = res.fits;
  r.extra["chip_counts"] = slider_counts(chip);
  r.extra["best"] = plan_json(b, sl);
  r.extra["plans"] = plan_rows(res, pi.topo);
}

// ------------------------------------------------------------------ training.regime

void run_regime(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& chip = tpu(in);
  const Hardware h = hardware_of(chip);
  const tf::Config cfg = config_of(in);
  const Layer l = layer_of(cfg);
  const tpus::Topology topo = tpus::topology_of(chip);
  const double pod = tpus::chip_count(topo.max_pod);
  const double alpha = alpha_ici(h);
  const double axes = topo.torus_dims;
  // Rows: 4 chips to 8 pods, two per octave; columns: 8 to 32768 tokens per chip, four per octave.
  std::vector<double> rows, cols;
  for (double n = 4; n <= 8 * pod * 1.0001; n *= std::sqrt(2.0)) rows.push_back(std::round(n));
  for (double b = 8; b <= 32768 * 1.0001; b *= std::pow(2.0, 0.25)) cols.push_back(b);
  const RegimeMap map = regime_map(cfg, h, topo.torus_dims, pod, rows, cols);
  tr.step("FSDP floor on every axis", "\\alpha / M_X", "\\frac{#}{#}", {alpha, axes},
          dp_min_batch_per_chip(alpha, axes), "tokens");
  tr.step("FSDP + TP floor", "\\alpha^2 / (M_X M_Y F)", "\\frac{#^2}{# \\cdot 1 \\cdot #}",
          {alpha, axes - 1, l.F}, mixed_min_batch_per_chip(alpha, l.F, axes - 1, 1), "tokens");
  r.value("fsdp_floor", dp_min_batch_per_chip(alpha, axes), "tokens",
          "DP/FSDP floor on every axis, alpha / M_X");
  if (axes >= 2)
    r.value("mixed_floor", mixed_min_batch_per_chip(alpha, l.F, axes - 1, 1), "tokens",
            "FSDP + TP floor, alpha^2 / (M_X M_Y F)");
  r.value("tp_max_chips", tp_max_degree(l.F, alpha, axes), "count",
          "TP over every axis: chips below M_Y F / alpha");
  if (h.W_dcn > 0) r.value("alpha_dcn", alpha_dcn(h), "tokens", "batch per pod for DCN, alpha_dcn");
  r.value("pod_chips", pod, "chips", "chips in a pod");
  const double B = in.num("B"), N = chips_of(in, chip);
  r.value("per_chip_batch", B / N, "tokens", "your batch per chip");
  json cells = json::array();
  for (uint8_t c : map.cells) cells.push_back(c);
  const std::string name = in.text("model") == kCustomModel ? std::string("custom model")
                                                            : tf::model(in.text("model")).name;
  r.extra["verdict"] = chip.name + ", " + name +
                       ": which strategies are compute-bound and fit, by chips and batch per chip";
  r.extra["map"] = {{"chips", map.chips},
                    {"batch_per_chip", map.batch_per_chip},
                    {"cells", std::move(cells)},
                    {"bits",
                     {{"DP", kRegimeDP},
                      {"FSDP", kRegimeFSDP},
                      {"TP", kRegimeTP},
                      {"FSDP+TP", kRegimeMixed},
                      {"DCN", kRegimeDCN},
                      {"multi_pod", kRegimeMultiPod}}},
                    {"point", {{"chips", N}, {"batch_per_chip", B / N}}}};
}

}  // namespace

void plan_calc(const Inputs& in, Trace& tr, Result& r) { run_plan(in, tr, r); }
void regime_calc(const Inputs& in, Trace& tr, Result& r) { run_regime(in, tr, r); }

}  // namespace sb::training::calc
