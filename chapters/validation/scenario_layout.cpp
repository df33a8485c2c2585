// The layout, batch, inference lengths, FLOP conventions and measured figures of a scenario.
#include <cmath>
#include <numeric>
#include <string>

#include "chapters/validation/model.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/units.hpp"

namespace sb::validation {

namespace tf = transformers;

namespace {

double whole_or(const json& j, const char* key, const std::string& path, double def) {
  const std::string f = path + key;
  if (!j.is_object() || !j.contains(key)) {
    if (def < 0) fail(f, f + " is missing", "missing");
    return def;
  }
  const json& v = j[key];
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 1 ||
      v.get<double>() != std::floor(v.get<double>()))
    fail(f, f + " must be a whole number of at least 1", "out_of_range");
  return v.get<double>();
}
double positive(const json& j, const char* key, const std::string& path) {
  const std::string f = path + key;
  const json& v = j[key];
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() <= 0)
    fail(f, f + " must be a positive number", "out_of_range");
  return v.get<double>();
}
std::string text_or(const json& j, const char* key, const std::string& path, const char* def) {
  if (!j.is_object() || !j.contains(key)) return def;
  if (!j[key].is_string()) fail(path + key, path + key + " must be a text", "bad_value");
  return j[key].get<std::string>();
}
const json& member(const json& j, const char* key, const std::string& path, bool required) {
  static const json kEmpty = json::object();
  if (!j.contains(key)) {
    if (required) fail(path + key, path + key + " is missing", "missing");
    return kEmpty;
  }
  if (!j[key].is_object()) fail(path + key, path + key + " must be an object", "bad_value");
  return j[key];
}
std::string count(double v) { return units::number(v, 10); }

void read_degrees(const json& j, const std::string& p, Scenario& s) {
  const json& par = member(j, "parallelism", p, true);
  const std::string q = p + "parallelism.";
  s.data = whole_or(par, "data", q, 1), s.fsdp = whole_or(par, "fsdp", q, 1);
  s.tensor = whole_or(par, "tensor", q, 1), s.pipeline = whole_or(par, "pipeline", q, 1);
  s.expert = whole_or(par, "expert", q, 1), s.context = whole_or(par, "context", q, 1);
  s.micro = whole_or(par, "microbatches", q, 1);
  s.virtual_stages = whole_or(par, "virtual_stages", q, 1);
  s.tp_overlap = s.family == "TPU";
  if (par.contains("tp_overlap")) {
    if (!par["tp_overlap"].is_boolean())
      fail(q + "tp_overlap", q + "tp_overlap must be true or false", "bad_value");
    s.tp_overlap = par["tp_overlap"].get<bool>();
  }
  const double product = s.data * s.fsdp * s.tensor * s.pipeline * s.context;
  if (product != s.chips)
    fail(p + "chips",
         p + "chips: parallelism's data x fsdp x tensor x pipeline x context is " + count(product) +
             ", not the " + count(s.chips) + " chips of the run",
         "out_of_range");
  if (std::fmod(s.data * s.fsdp, s.expert) != 0)
    fail(q + "expert",
         q + "expert: the experts shard over the data axis (data x fsdp = " +
             count(s.data * s.fsdp) + "), which " + count(s.expert) + " does not divide",
         "out_of_range");
  if (std::fmod(s.data, s.pods) != 0)
    fail(p + "pods", p + "pods must divide parallelism.data (data parallelism spans the pods)",
         "out_of_range");
  if (s.pipeline > s.model.L)
    fail(q + "pipeline",
         q + "pipeline: more stages than the model's " + count(s.model.L) + " layers",
         "out_of_range");
}

// `attention_kernel`: how the stack computes attention (the default, fused, is what the chapters
// assume).
void read_attention_kernel(const json& j, const std::string& p, Scenario& s) {
  const std::string a = text_or(j, "attention_kernel", p, "fused");
  if (a != "fused" && a != "unfused" && a != "cuda_cores")
    fail(p + "attention_kernel", p + "attention_kernel must be fused, unfused or cuda_cores",
         "bad_value");
  if (a == "cuda_cores" && (s.kind != "inference" || s.family != "GPU"))
    fail(p + "attention_kernel",
         p + "attention_kernel: cuda_cores is a GPU's decode kernel, for inference runs on a GPU",
         "bad_value");
  s.unfused_attention = a == "unfused";
  s.vector_attention = a == "cuda_cores";
  if (s.unfused_attention && s.kind == "inference")
    s.notes.push_back(
        "attention_kernel unfused is charged in training runs only; this prediction leaves it "
        "out.");
}

void read_training(const json& j, const std::string& p, Scenario& s) {
  const json& b = member(j, "batch", p, true);
  const std::string q = p + "batch.";
  s.sequences = whole_or(b, "sequences", q, -1), s.seq_len = whole_or(b, "seq_len", q, -1);
  const double groups = s.data * s.fsdp * s.micro;
  if (std::fmod(s.sequences, groups) != 0)
    fail(q + "sequences",
         q + "sequences: " + count(s.sequences) + " sequences do not divide into data x fsdp x " +
             "microbatches = " + count(groups) + " equal parts",
         "out_of_range");
  const std::string r = text_or(j, "remat", p, "big_matmuls");
  if (r == "block")
    s.remat = tf::Remat::Block;
  else if (r == "save_all")
    s.remat = tf::Remat::SaveAll;
  else if (r == "big_matmuls")
    s.remat = tf::Remat::BigMatmuls;
  else
    fail(p + "remat", p + "remat must be block, big_matmuls or save_all", "bad_value");
  const std::string o = text_or(j, "offload", p, "none");
  if (o != "none" && o != "activations")
    fail(p + "offload", p + "offload must be none or activations", "bad_value");
  s.offload = o == "activations";
  if (s.offload && !(s.host_bw > 0))
    fail(p + "offload",
         p + "offload: the " + s.chip_name + " has no host-link figure in data/chips.json",
         "unknown_key");
}

void read_inference(const json& j, const std::string& p, Scenario& s) {
  const json& in = member(j, "inference", p, true);
  const std::string q = p + "inference.";
  s.phase = text_or(in, "phase", q, "");
  if (s.phase != "prefill" && s.phase != "static" && s.phase != "serve" && s.phase != "decode")
    fail(q + "phase", q + "phase must be prefill, static, serve or decode", "bad_value");
  s.prompt = whole_or(in, "prompt", q, -1);
  s.output = whole_or(in, "output", q, s.phase == "prefill" ? 1 : -1);
  s.batch = whole_or(in, "batch", q, -1);
  if (std::fmod(s.batch, replicas(s)) != 0)
    fail(q + "batch",
         q + "batch: " + count(s.batch) + " sequences do not divide over the " +
             count(replicas(s)) + " data-parallel replicas (data / gcd(data, expert))",
         "out_of_range");
  const json& d = member(j, "dtypes", p, false);
  const std::string w = text_or(d, "weights", p + "dtypes.", "bf16");
  const std::string kv = text_or(d, "kv", p + "dtypes.", "bf16");
  s.b_w = hw::dtype_bytes(w, p + "dtypes.weights"), s.b_kv = hw::dtype_bytes(kv, p + "dtypes.kv");
  s.dtype_w = w, s.dtype_kv = kv;
}

}  // namespace

void read_layout(const json& j, const std::string& p, Scenario& s) {
  s.chips = whole_or(j, "chips", p, -1), s.pods = whole_or(j, "pods", p, 1);
  s.topology = text_or(j, "topology", p, "");
  read_degrees(j, p, s);
  read_attention_kernel(j, p, s);
  if (s.kind == "training")
    read_training(j, p, s);
  else
    read_inference(j, p, s);
  const json& c = member(j, "conventions", p, false);
  const std::string q = p + "conventions.";
  s.conv_attention = text_or(c, "attention", q, "causal");
  if (s.conv_attention != "causal" && s.conv_attention != "full" && s.conv_attention != "none")
    fail(q + "attention", q + "attention must be causal, full or none", "bad_value");
  s.conv_params = text_or(c, "params", q, "matmul");
  if (s.conv_params != "matmul" && s.conv_params != "all")
    fail(q + "params", q + "params must be matmul or all", "bad_value");
  s.conv_peak = s.hw.C;
  if (c.contains("peak_flops")) s.conv_peak = positive(c, "peak_flops", q);
  if (c.contains("recompute")) {
    if (!c["recompute"].is_boolean())
      fail(q + "recompute", q + "recompute must be true or false", "bad_value");
    s.conv_recompute = c["recompute"].get<bool>();
  }
  if (j.contains("notes") && j["notes"].is_array())
    for (const auto& n : j["notes"])
      if (n.is_string()) s.notes.push_back(n.get<std::string>());
}

// The measured figures: the first key of `measured` the format knows is the one the error is
// taken on (a training run's TFLOP/s per chip becomes tokens/s under its own FLOP count).
void read_measured(const json& j, const std::string& p, Scenario& s) {
  const json& m = member(j, "measured", p, false);
  s.measured_all = m;
  static const char* kKnown[] = {"tokens_per_s_per_chip",
                                 "tokens_per_s",
                                 "step_time_s",
                                 "tflops_per_chip",
                                 "mfu",
                                 "latency_s",
                                 "output_tokens_per_s_per_chip",
                                 "output_tokens_per_s",
                                 "tpot_s",
                                 "ttft_s",
                                 "memory_bytes_per_chip",
                                 "source"};
  for (auto it = m.begin(); it != m.end(); ++it) {
    bool known = false;
    for (const char* k : kKnown) known = known || it.key() == k;
    if (!known)
      fail(p + "measured." + it.key(),
           p + "measured." + it.key() + " is not a figure the format knows (docs/VALIDATION.md)",
           "unknown_key");
    if (it.key() == "source") continue;
    positive(m, it.key().c_str(), p + "measured.");
    if (s.measured_key.empty() && it.key() != "memory_bytes_per_chip") {
      s.measured_key = it.key();
      s.measured = it.value().get<double>();
    }
  }
  const std::string& k = s.measured_key;
  const bool inference_figure =
      k == "latency_s" || k == "tpot_s" || k == "ttft_s" || k.rfind("output_tokens_per_s", 0) == 0;
  if (!k.empty() && (s.kind == "inference") != inference_figure)
    fail(p + "measured." + k,
         p + "measured." + k + ": " +
             (inference_figure ? "an inference figure on a training run"
                               : "a training figure on an inference run"),
         "bad_value");
  if (k == "mfu" && s.measured > 1)
    fail(p + "measured.mfu", p + "measured.mfu is a fraction of the peak (0.46 for 46%)",
         "out_of_range");
}

double decode_context(const Scenario& s) { return s.prompt + s.output / 2; }

double replicas(const Scenario& s) {
  return s.data / std::gcd(static_cast<long long>(s.data), static_cast<long long>(s.expert));
}

void write_config(JsonWriter& w, const Scenario& s) {
  w.obj().key("model").str(s.model_id);
  if (s.model_id == "custom") {
    // A model the table lacks goes to the planner or the step calculator by its sizes.
    const tf::Config& m = s.model;
    w.key("sizes").obj().key("L").num(m.L).key("D").num(m.D).key("F").num(m.F).key("N").num(m.N);
    w.key("K").num(m.K).key("H").num(m.H).key("V").num(m.V).key("E").num(m.E).key("k").num(m.k);
    w.key("F_e").num(m.F_e).key("n_shared").num(m.n_shared).key("n_dense").num(m.n_dense);
    w.key("gated").str(m.gated ? "yes" : "no").key("tied").str(m.tied ? "yes" : "no");
    w.key("norms").num(m.norms_per_layer).end();
  }
  w.key("chip").str(s.chip_id).key("chips").num(s.chips).key("pod_chips").num(s.chips / s.pods);
  w.key("pods").num(s.pods).key("data").num(s.data).key("fsdp").num(s.fsdp);
  w.key("tensor").num(s.tensor).key("pipeline").num(s.pipeline).key("expert").num(s.expert);
  w.key("context").num(s.context).key("microbatches").num(s.micro);
  w.key("virtual_stages").num(s.virtual_stages).key("compute").str(s.compute);
  w.key("attention_kernel")
      .str(s.unfused_attention  ? "unfused"
           : s.vector_attention ? "cuda_cores"
                                : "fused");
  if (s.kind == "training") {
    w.key("sequences").num(s.sequences).key("seq_len").num(s.seq_len);
    w.key("remat").str(s.remat == tf::Remat::Block     ? "block"
                       : s.remat == tf::Remat::SaveAll ? "save_all"
                                                       : "big_matmuls");
  } else {
    w.key("phase").str(s.phase).key("prompt").num(s.prompt).key("output").num(s.output);
    w.key("batch").num(s.batch).key("weights").str(s.dtype_w).key("kv").str(s.dtype_kv);
    const double r = replicas(s);
    w.key("replica_chips").num(s.chips / r).key("replica_batch").num(s.batch / r);
    w.key("step_context").num(std::floor(decode_context(s)));
    w.key("bytes_per_weight").num(s.b_w).key("bytes_per_kv").num(s.b_kv);
  }
  w.end();
}

}  // namespace sb::validation
