// Reading a run in the scenario format (docs/VALIDATION.md): every field checked, every error an
// InputError naming the field's path ("scenarios.runs[3].parallelism.tensor": the input, then the
// place in it).
#include <cmath>
#include <sstream>
#include <string>

#include "chapters/gpus/model.hpp"
#include "chapters/training/model.hpp"
#include "chapters/transformers/model_input.hpp"
#include "chapters/validation/model.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/units.hpp"

namespace sb::validation {

namespace tf = transformers;

namespace {

// A number at j[key]: positive and finite; `def` when absent (a negative def: required).
double num(const json& j, const char* key, const std::string& path, double def) {
  const std::string f = path + key;
  if (!j.is_object() || !j.contains(key)) {
    if (def < 0) fail(f, f + " is missing", "missing");
    return def;
  }
  const json& v = j[key];
  if (!v.is_number()) fail(f, f + " must be a number", "bad_value");
  const double x = v.get<double>();
  if (!std::isfinite(x) || x <= 0) fail(f, f + " must be a positive number", "out_of_range");
  return x;
}
double whole(const json& j, const char* key, const std::string& path, double def) {
  const double x = num(j, key, path, def);
  if (x != std::floor(x)) fail(path + key, path + key + " must be a whole number", "out_of_range");
  return x;
}
std::string str(const json& j, const char* key, const std::string& path, const char* def) {
  const std::string f = path + key;
  if (!j.is_object() || !j.contains(key)) {
    if (!def) fail(f, f + " is missing", "missing");
    return def;
  }
  if (!j[key].is_string()) fail(f, f + " must be a text", "bad_value");
  return j[key].get<std::string>();
}
const json& obj(const json& j, const char* key, const std::string& path) {
  static const json kEmpty = json::object();
  if (!j.contains(key)) return kEmpty;
  if (!j[key].is_object()) fail(path + key, path + key + " must be an object", "bad_value");
  return j[key];
}
std::string one_of(const std::string& v, const std::string& field, std::string_view choices) {
  std::string c(choices);
  std::istringstream in(c);
  for (std::string w; std::getline(in, w, '|');)
    if (w == v) return v;
  fail(field, field + " must be one of " + c + ", got \"" + v + "\"", "bad_value");
}

// The model: an id of the table, or {"base": id or "custom", L, D, ...} laid over it.
void read_model(const json& j, const std::string& p, Scenario& s) {
  if (!j.contains("model")) fail(p + "model", p + "model is missing", "missing");
  const json& m = j["model"];
  tf::ModelFields f;
  std::string id;
  if (m.is_string()) {
    id = m.get<std::string>();
  } else if (m.is_object()) {
    const std::string q = p + "model.";
    id = str(m, "base", q, "custom");
    f.L = whole(m, "L", q, 0), f.D = whole(m, "D", q, 0), f.F = whole(m, "F", q, 0);
    f.N = whole(m, "N", q, 0), f.K = whole(m, "K", q, 0), f.H = whole(m, "H", q, 0);
    f.V = whole(m, "V", q, 0), f.E = whole(m, "E", q, 0), f.k = whole(m, "k", q, 0);
    f.F_e = whole(m, "F_e", q, 0), f.n_shared = whole(m, "n_shared", q, 0);
    f.n_dense = whole(m, "n_dense", q, 0);
    for (const char* b : {"gated", "tied"}) {
      if (!m.contains(b)) continue;
      if (!m[b].is_boolean()) fail(q + b, q + b + " must be true or false", "bad_value");
      (std::string(b) == "gated" ? f.gated : f.tied) = m[b].get<bool>() ? 1 : 0;
    }
  } else {
    fail(p + "model", p + "model must be a model id or an object", "bad_value");
  }
  const tf::ChosenModel cm = tf::choose_model(id, f, p + "model");
  s.model = cm.config, s.model_id = cm.id;
  s.model_name = str(m.is_object() ? m : json::object(), "name", p + "model.", cm.name.c_str());
}

// The chip and the figures a scenario overrides (each named in s.overridden).
void read_chip(const json& j, const std::string& p, Scenario& s) {
  const hw::Chip& c = hw::chip(str(j, "chip", p, nullptr), p + "chip");
  s.chip_id = c.id, s.chip_name = c.name, s.family = c.kind == "tpu" ? "TPU" : "GPU";
  s.compute = one_of(str(obj(j, "dtypes", p), "compute", p + "dtypes.", "bf16"),
                     p + "dtypes.compute", "bf16|fp8|fp4|int8");
  const std::string peak = "peak_flops_" + s.compute;
  const json& o = obj(j, "chip_overrides", p);
  // A peak the table lacks (TPU7x's FP8) may come from the overrides alone: the chip's bf16 stands
  // in until the override below replaces it.
  const std::string dtype = o.contains(peak) ? "bf16" : s.compute;
  training::Hardware& h = s.hw;
  if (s.family == "TPU") {
    h = training::hardware_of(c, dtype, p + "chip");
    s.torus_dims = c.get("torus_dims", p + "chip");
    s.host_bw = c.has("pcie_bw") ? c.get("pcie_bw") : 0;
  } else {
    h.C = c.peak(dtype, p + "dtypes.compute");
    h.W_ici = c.get("nvlink_bw_per_gpu", p + "chip");
    h.W_hbm = c.get("hbm_bw", p + "chip"), h.hbm = c.get("hbm_bytes", p + "chip");
    h.W_dcn = c.has("scaleout_bw_per_gpu") ? c.get("scaleout_bw_per_gpu") : 0;
    h.w_uni = h.W_dcn;
    s.gpus_per_node = c.get("gpus_per_node", p + "chip");
    // A.1 (2): the CUDA cores' fp32 rate, an FMA counted as two FLOPs.
    const double sub = c.get("subpartitions_per_sm", p + "chip");
    s.C_vec = gpus::vector_flops(gpus::cuda_cores(c.get("sms", p + "chip"), sub,
                                                  c.get("cuda_cores_per_sm", p + "chip") / sub),
                                 c.get("clock_hz", p + "chip"), 2);
  }
  const std::string q = p + "chip_overrides.";
  struct Key {
    const char* name;
    double* to;
  } keys[] = {{"hbm_bytes", &h.hbm},
              {"hbm_bw", &h.W_hbm},
              {"nvlink_bw_per_gpu", &h.W_ici},
              {"ici_bw_bidi", &h.W_ici},
              {"scaleout_bw_per_gpu", &h.W_dcn},
              {"dcn_bw", &h.W_dcn},
              {"gpus_per_node", &s.gpus_per_node},
              {peak.c_str(), &h.C}};
  for (auto it = o.begin(); it != o.end(); ++it) {
    if (it.key() == "source") continue;
    bool known = false;
    for (const Key& k : keys)
      if (it.key() == k.name) known = true, *k.to = num(o, k.name, q, -1);
    if (!known)
      fail(q + it.key(),
           q + it.key() + ": a scenario overrides hbm_bytes, hbm_bw, nvlink_bw_per_gpu, " +
               "ici_bw_bidi, scaleout_bw_per_gpu, dcn_bw, gpus_per_node or " + peak,
           "unknown_key");
    s.overridden.push_back(it.key() + " = " + units::number(o[it.key()].get<double>()));
  }
  if (!o.empty() && !o.contains("source"))
    fail(q + "source", q + "source must say where the overriding figures come from", "missing");
  if (s.family == "GPU") h.w_uni = h.W_dcn > 0 ? h.W_dcn : h.W_ici;
}

}  // namespace

void read_layout(const json& j, const std::string& p, Scenario& s);    // scenario_layout.cpp
void read_measured(const json& j, const std::string& p, Scenario& s);  // scenario_layout.cpp

Scenario read_scenario(const json& j, const std::string& p) {
  if (!j.is_object())
    fail(p.empty() ? "scenario" : p, "a scenario must be a JSON object", "bad_value");
  Scenario s;
  s.id = str(j, "id", p, nullptr);
  s.title = str(j, "title", p, s.id.c_str());
  s.kind = one_of(str(j, "kind", p, nullptr), p + "kind", "training|inference");
  const json& src = obj(j, "source", p);
  s.source_ref = str(src, "ref", p + "source.", "");
  s.source_url = str(src, "url", p + "source.", "");
  s.source_where = str(src, "where", p + "source.", "");
  read_model(j, p, s);
  read_chip(j, p, s);
  read_layout(j, p, s);
  read_measured(j, p, s);
  return s;
}

std::vector<Scenario> read_scenarios(std::string_view text, std::string_view field) {
  std::vector<Scenario> out;
  std::vector<json> docs;
  const std::string f(field);
  std::istringstream in{std::string(text)};
  while (true) {
    in >> std::ws;
    if (in.peek() == EOF) break;
    try {
      json v;
      in >> v;
      docs.push_back(std::move(v));
    } catch (const json::exception& e) {
      fail(f, "not JSON (" + std::string(e.what()) + ")", "bad_json");
    }
  }
  for (const json& d : docs) {
    const json* list = &d;
    if (d.is_object() && d.contains("runs")) list = &d["runs"];
    if (list->is_array()) {
      for (size_t i = 0; i < list->size(); ++i)
        out.push_back(read_scenario((*list)[i], f + ".runs[" + std::to_string(out.size()) + "]."));
    } else {
      out.push_back(read_scenario(*list, f + ".runs[" + std::to_string(out.size()) + "]."));
    }
  }
  if (out.empty()) fail(f, "no scenario in the text", "missing");
  return out;
}

}  // namespace sb::validation
