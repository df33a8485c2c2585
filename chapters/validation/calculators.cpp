// The validation calculator: every run of a scenario text predicted (bound and expected figure)
// beside what its source measured. It runs in the page's worker (heavy: the text may be long, and
// the fit runs the model a few thousand times); `scaling validate FILE...` is the same calculator.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "chapters/validation/model.hpp"
#include "core/registry.hpp"
#include "core/units.hpp"

namespace sb::validation {

namespace {

// A one-run example for the calculator's defaults (the page sends data/validation/published.json).
constexpr const char* kSample = R"sb({"id": "P11", "kind": "training",
 "title": "Llama 3.1 70B on 256 TPU v6e (MaxText recipe)",
 "source": {"ref": "tpu-recipes, Llama3.1-70B-MaxText v6e-256", "url": "https://github.com/AI-Hypercomputer/tpu-recipes"},
 "model": "llama-3-70b", "chip": "v6e", "chips": 256,
 "parallelism": {"fsdp": 256}, "batch": {"sequences": 1280, "seq_len": 8192},
 "remat": "big_matmuls", "conventions": {"attention": "full", "params": "matmul"},
 "measured": {"step_time_s": 42.656}})sb";

constexpr Param scenarios_param() {
  Param p = long_text("scenarios", "runs in the scenario format (docs/VALIDATION.md)");
  p.def_text = kSample;
  return p;
}

constexpr Param kParams[] = {
    scenarios_param(),
    num("mxu_tpu", "ratio", kFitted.mxu_tpu, "share of peak FLOPs/s a TPU's large matmuls reach",
        0.01, 1),
    num("mxu_gpu", "ratio", kFitted.mxu_gpu, "share of peak FLOPs/s a GPU's large matmuls reach",
        0.01, 1),
    num("mxu_fp8", "ratio", kFitted.mxu_fp8, "share of their own peak FP8 and FP4 matmuls reach",
        0.01, 1),
    num("link", "ratio", kFitted.link, "share of the line rate a collective reaches", 0.01, 1),
    num("hbm", "ratio", kFitted.hbm, "share of the HBM bandwidth a weight or KV stream reaches",
        0.01, 1),
    num("moe", "ratio", kFitted.moe,
        "share of the dense matmuls' rate an MoE's routed-expert matmuls reach", 0.01, 1),
    choice("fit", "no", "no|yes",
           "fit the factors to the runs first (least squares on log error)")};

std::string figure(double v, const std::string& unit) {
  return unit == "s" ? units::format(v, "s") : units::number(v, 4);
}

json run_json(const Scenario& s, const Prediction& p) {
  json j = {{"id", s.id},
            {"title", s.title},
            {"kind", s.kind},
            {"family", s.family},
            {"chip", s.chip_name},
            {"chips", s.chips},
            {"model", s.model_name},
            {"source", s.source_ref},
            {"url", s.source_url},
            {"measured_key", s.measured_key},
            {"unit", p.unit},
            {"higher_is_better", p.higher_is_better}};
  auto figs = [&](const Figures& f) {
    if (s.kind == "training")
      return json{{"step_s", f.step},
                  {"tokens_per_s_chip", f.tokens_per_s_chip},
                  {"mfu", f.mfu},
                  {"primary", f.primary}};
    return json{{"ttft_s", f.ttft},
                {"tpot_s", f.tpot},
                {"latency_s", f.latency},
                {"out_per_s_chip", f.out_per_s_chip},
                {"primary", f.primary}};
  };
  j["bound"] = figs(p.bound), j["expected"] = figs(p.expected);
  j["measured"] = p.measured > 0 ? json(p.measured) : json(nullptr);
  j["ratio"] = p.measured > 0 ? json(p.measured / p.expected.primary) : json(nullptr);
  j["error"] = p.measured > 0 ? json(p.error) : json(nullptr);
  j["above_bound"] = p.above_bound;
  j["mem_bytes"] = p.mem, j["hbm_bytes"] = p.hbm, j["fits"] = p.fits;
  j["bottleneck"] = p.bottleneck;
  j["config"] = config_json(s);
  j["notes"] = s.notes;
  j["overridden"] = s.overridden;
  return j;
}

json table_row(const Scenario& s, const Prediction& p) {
  const bool m = p.measured > 0;
  return json::array({s.id, s.chip_name + " x" + units::number(s.chips, 10),
                      figure(p.bound.primary, p.unit), figure(p.expected.primary, p.unit),
                      m ? figure(p.measured, p.unit) : "-",
                      m ? units::number(p.measured / p.expected.primary, 3) : "-",
                      m ? units::number(100 * p.error, 3) + "%" : "-",
                      units::format(p.mem, "B") + (p.fits ? "" : " (does not fit)"), p.unit});
}

void runs_calc(const Inputs& in, Trace& tr, Result& r) {
  const std::vector<Scenario> runs = read_scenarios(in.text("scenarios"), "scenarios");
  Factors f{in.num("mxu_tpu"), in.num("mxu_gpu"), in.num("mxu_fp8"),
            in.num("link"),    in.num("hbm"),     in.num("moe")};
  if (in.text("fit") == "yes") f = fit(runs);
  std::vector<Prediction> preds;
  json rows = json::array(), table = json::array();
  table.push_back(json::array({"run", "chips", "bound", "expected", "measured", "measured/expected",
                               "error", "memory per chip", "unit"}));
  for (const Scenario& s : runs) {
    preds.push_back(predict(s, f));
    rows.push_back(run_json(s, preds.back()));
    table.push_back(table_row(s, preds.back()));
    if (!preds.back().fits)
      r.note(s.id + ": the configuration does not fit in memory (" +
             units::format(preds.back().mem, "B") + " per chip, the chip has " +
             units::format(preds.back().hbm, "B") + ")");
    if (preds.back().above_bound)
      r.note(s.id + ": the measured figure beats the roofline bound; see its notes");
  }
  const Summary sum = summarize(preds, runs);
  r.value("median_error", sum.median, "ratio", "median |expected / measured - 1|");
  r.value("worst_error", sum.worst, "ratio", "worst |expected / measured - 1|");
  tr.value("Runs read", static_cast<double>(runs.size()), "count");
  const std::pair<const char*, double> shown[] = {
      {"TPU matmuls, share of the bf16 peak", f.mxu_tpu},
      {"GPU matmuls, share of the bf16 peak", f.mxu_gpu},
      {"FP8 and FP4 matmuls, share of their peak", f.mxu_fp8},
      {"Collectives, share of the line rate", f.link},
      {"HBM streams, share of the bandwidth", f.hbm},
      {"MoE expert matmuls, share of the dense rate", f.moe}};
  for (const auto& [what, v] : shown) tr.value(what, v, "ratio");
  r.extra["factors"] = {{"mxu_tpu", f.mxu_tpu}, {"mxu_gpu", f.mxu_gpu}, {"mxu_fp8", f.mxu_fp8},
                        {"link", f.link},       {"hbm", f.hbm},         {"moe", f.moe}};
  r.extra["summary"] = {{"median", sum.median}, {"worst", sum.worst}, {"worst_id", sum.worst_id}};
  r.extra["runs"] = std::move(rows);
  r.extra["table"] = std::move(table);
}

constexpr Calculator kCalculators[] = {
    {.name = "validation.runs",
     .title = "Predictions beside published runs",
     .doc = "Each run of a scenario text costed by the chapters' models at peak (the bound) and "
            "at the efficiency factors (the expected figure), beside what its source measured.",
     .params = kParams,
     .heavy = true,
     .command = "validate"},
};

}  // namespace

void add_calculators(Registry& r) { r.add(kCalculators); }
void add_heavy(Registry& r) { r.add_run("validation.runs", runs_calc); }

}  // namespace sb::validation
