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
    num("vector", "ratio", kFitted.vector,
        "share of the CUDA cores' fp32 rate a decode attention kernel on them reaches", 0.01, 1),
    choice("fit", "no", "no|yes",
           "fit the factors to the runs first (least squares on log error)")};

std::string figure(double v, const std::string& unit) {
  return unit == "s" ? units::format(v, "s") : units::number(v, 4);
}

// A number, or null where the run has no measured figure.
void num_or_null(JsonWriter& w, bool has, double v) {
  if (has)
    w.num(v);
  else
    w.value(nullptr);
}

// Written as text, not through `r.extra`: a run is some 60 members and the page sends 21 of them.
void write_run(JsonWriter& w, const Scenario& s, const Prediction& p) {
  w.obj().key("id").str(s.id).key("title").str(s.title).key("kind").str(s.kind);
  w.key("family").str(s.family).key("chip").str(s.chip_name).key("chips").num(s.chips);
  w.key("model").str(s.model_name).key("source").str(s.source_ref).key("url").str(s.source_url);
  w.key("measured_key").str(s.measured_key).key("unit").str(p.unit);
  w.key("higher_is_better").boolean(p.higher_is_better);
  auto figs = [&](const char* key, const Figures& f) {
    w.key(key).obj();
    if (s.kind == "training") {
      w.key("step_s").num(f.step).key("tokens_per_s_chip").num(f.tokens_per_s_chip);
      w.key("mfu").num(f.mfu);
    } else {
      w.key("ttft_s").num(f.ttft).key("tpot_s").num(f.tpot).key("latency_s").num(f.latency);
      w.key("out_per_s_chip").num(f.out_per_s_chip);
    }
    w.key("primary").num(f.primary).end();
  };
  figs("bound", p.bound), figs("expected", p.expected);
  const bool m = p.measured > 0;
  w.key("measured"), num_or_null(w, m, p.measured);
  w.key("ratio"), num_or_null(w, m, p.measured / p.expected.primary);
  w.key("error"), num_or_null(w, m, p.error);
  w.key("above_bound").boolean(p.above_bound).key("mem_bytes").num(p.mem);
  w.key("hbm_bytes").num(p.hbm).key("fits").boolean(p.fits).key("bottleneck").str(p.bottleneck);
  w.key("config"), write_config(w, s);
  w.key("notes").strs(s.notes).key("overridden").strs(s.overridden).end();
}

void write_row(JsonWriter& w, const Scenario& s, const Prediction& p) {
  const bool m = p.measured > 0;
  w.arr().str(s.id).str(s.chip_name + " x" + units::number(s.chips, 10));
  w.str(figure(p.bound.primary, p.unit)).str(figure(p.expected.primary, p.unit));
  w.str(m ? figure(p.measured, p.unit) : "-");
  w.str(m ? units::number(p.measured / p.expected.primary, 3) : "-");
  w.str(m ? units::number(100 * p.error, 3) + "%" : "-");
  w.str(units::format(p.mem, "B") + (p.fits ? "" : " (does not fit)")).str(p.unit).end();
}

void runs_calc(const Inputs& in, Trace& tr, Result& r) {
  const std::vector<Scenario> runs = read_scenarios(in.text("scenarios"), "scenarios");
  Factors f{in.num("mxu_tpu"), in.num("mxu_gpu"), in.num("mxu_fp8"), in.num("link"),
            in.num("hbm"),     in.num("moe"),     in.num("vector")};
  if (in.text("fit") == "yes") f = fit(runs);
  std::vector<Prediction> preds;
  preds.reserve(runs.size());
  for (const Scenario& s : runs) {
    preds.push_back(predict(s, f));
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
      {"MoE expert matmuls, share of the dense rate", f.moe},
      {"Decode attention on CUDA cores, share of their rate", f.vector}};
  for (const auto& [what, v] : shown) tr.value(what, v, "ratio");
  JsonWriter w = r.writer();
  w.key("factors").obj().key("mxu_tpu").num(f.mxu_tpu).key("mxu_gpu").num(f.mxu_gpu);
  w.key("mxu_fp8").num(f.mxu_fp8).key("link").num(f.link).key("hbm").num(f.hbm);
  w.key("moe").num(f.moe).key("vector").num(f.vector).end();
  w.key("summary").obj().key("median").num(sum.median).key("worst").num(sum.worst);
  w.key("worst_id").str(sum.worst_id).end();
  w.key("runs").arr();
  for (size_t i = 0; i < runs.size(); ++i) write_run(w, runs[i], preds[i]);
  w.end().key("table").arr().arr();
  for (const char* head : {"run", "chips", "bound", "expected", "measured", "measured/expected",
                           "error", "memory per chip", "unit"})
    w.str(head);
  w.end();
  for (size_t i = 0; i < runs.size(); ++i) write_row(w, runs[i], preds[i]);
  w.end();
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
