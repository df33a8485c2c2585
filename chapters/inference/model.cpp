// The chapter's equations (model.hpp says what each is and where it comes from). Counts come from
// the transformers chapter, times and intensities from the roofline chapter.
#include "chapters/inference/model.hpp"

#include <algorithm>
#include <cmath>

#include "chapters/gpus/cluster.hpp"
#include "chapters/gpus/collectives.hpp"
#include "chapters/inference/serving.hpp"
#include "chapters/roofline/model.hpp"
#include "chapters/tpus/model.hpp"
#include "chapters/transformers/model.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

namespace sb::inference {

namespace tf = transformers;

// ------------------------------------------------------------------ A.2, A.3

double critical_batch(double b_w, double C_peak, double W_hbm) {
  return roofline::critical_batch_approx(b_w, roofline::critical_intensity(C_peak, W_hbm));
}
double moe_critical_batch_book(double B_crit, double E, double k) { return B_crit * E / k; }
double moe_critical_batch(double B_crit, double P_total, double P_active) {
  return B_crit * P_total / P_active;
}
double attention_intensity(double S, double T) { return S * T / (S + T); }
double prefill_attention_threshold(double C_peak, double W_hbm) {
  return 2 * roofline::critical_intensity(C_peak, W_hbm);
}

// ------------------------------------------------------------------ A.4, A.5

double mlp_params(double L, double D, double F) { return L * tf::mlp_params(D, F, true); }
double expert_params(double L, double D, double F, double E) { return E * mlp_params(L, D, F); }
double attn_params(double L, double D, double N, double K, double H) {
  return L * tf::attention_params(D, N, K, H);
}
double vocab_params(double D, double V, double n_emb) { return n_emb * D * V; }
double params_total(double L, double D, double F, double N, double K, double H, double V, double E,
                    double n_emb) {
  return expert_params(L, D, F, E) + attn_params(L, D, N, K, H) + vocab_params(D, V, n_emb);
}
double params_over_dense(double P, double P_dense) { return P / P_dense; }
double layer_params(double n_mats, double D, double F) { return n_mats * D * F; }
double weight_bytes(double P_total, double b_w) { return tf::param_bytes(P_total, b_w); }
double activation_bytes(double T, double D, double b_a) { return T * D * b_a; }

double kv_bytes_per_token(double L, double K, double H, double b_kv) {
  return tf::kv_cache_bytes(1, L, K, H, b_kv);
}
double kv_bytes_per_sequence(double S, double kv_tok) { return S * kv_tok; }
double kv_bytes_batch(double B, double S, double kv_tok) { return B * S * kv_tok; }

// ------------------------------------------------------------------ A.6, A.7, A.8

double free_hbm(double n_chips, double M_hbm, double bytes_w) { return n_chips * M_hbm - bytes_w; }
double max_batch(double M_free, double S, double kv_tok) {
  return std::floor(M_free / (S * kv_tok));
}
double min_chips_raw(double bytes_w, double kv_batch, double M_hbm) {
  return (bytes_w + kv_batch) / M_hbm;
}

double flops_per_token(double P_active) { return 2 * P_active; }
double slice_bandwidth(double n_chips, double W_hbm) { return n_chips * W_hbm; }
double slice_peak(double n_chips, double C_peak) { return n_chips * C_peak; }

double t_kv(double B, double S, double kv_tok, double n_chips, double W_hbm) {
  return roofline::t_comms(kv_bytes_batch(B, S, kv_tok), n_chips * W_hbm);
}
double t_param(double P_total, double b_w, double n_chips, double W_hbm) {
  return roofline::t_comms(weight_bytes(P_total, b_w), n_chips * W_hbm);
}
double t_flops(double B, double P_active, double n_chips, double C_peak) {
  return roofline::t_math(B * flops_per_token(P_active), slice_peak(n_chips, C_peak));
}
double step_time(double T_kv, double T_flops, double T_param) {
  return T_kv + roofline::t_lower(T_flops, T_param);
}
double step_time_bandwidth(double B, double S, double kv_tok, double P_total, double b_w,
                           double n_chips, double W_hbm) {
  return roofline::t_comms(kv_bytes_batch(B, S, kv_tok) + weight_bytes(P_total, b_w),
                           n_chips * W_hbm);
}
double tokens_per_s(double B, double T_step) { return B / T_step; }
double tokens_per_s_chip(double B, double n_chips, double T_step) { return B / (n_chips * T_step); }
double reply_time(double len_decode, double T_step) { return len_decode * T_step; }
double qps_per_chip(double B, double T_step, double len_decode, double n_chips) {
  return B / (T_step * len_decode * n_chips);
}
double cost_per_million(double n_chips, double price, double T_step, double B) {
  return 1e6 * n_chips * price * T_step / (3600 * B);
}
double kv_flops_crossover(double P_active, double W_hbm, double C_peak, double kv_tok) {
  return 2 * P_active * W_hbm / (C_peak * kv_tok);
}
double full_hbm_step(double M_hbm, double W_hbm) { return roofline::t_comms(M_hbm, W_hbm); }
double flops_per_dollar(double C_peak, double price) { return C_peak * 3600 / price; }

double prefill_time(double P_active, double T, double n_chips, double C_peak, double MFU) {
  return roofline::t_math(2 * P_active * T, roofline::capped_peak(n_chips * C_peak, MFU));
}
double cost_per_million_input(double n_chips, double price, double T_prefill, double T) {
  return 1e6 * n_chips * price * T_prefill / (3600 * T);
}

// ------------------------------------------------------------------ the setting

namespace {

// A GPU's figures: HBM and price from the tables, NVLink and the scale-out network from the GPU
// chapter's node (cluster.hpp). A GPU the book gives no NVLink figures for (V100) serves alone.
Machine gpu_machine(const hw::Chip& chip, std::string_view field) {
  Machine t;
  t.kind = Machine::Kind::gpu;
  t.W_hbm = chip.get("hbm_bw", field);
  t.M_hbm = chip.get("hbm_bytes", field);
  t.torus_dims = 0;
  if (chip.has("nvlink_bw_per_gpu") && chip.has("gpus_per_node")) {
    const gpus::GpuNode n = gpus::gpu_node(chip.id, std::string(field));
    t.d_node = n.gpus_per_node;
    t.W_ici = n.w_gpu;
    t.w_node = n.w_node;
    t.max_nodes = n.w_node > 0 ? gpus::max_nodes(gpus::FatTree{}) : 1;
  }
  return t;
}

}  // namespace

Machine machine_of(const hw::Chip& chip, std::string_view field) {
  Machine t;
  if (chip.kind == "gpu") {
    t = gpu_machine(chip, field);
  } else {
    t.W_hbm = chip.get("hbm_bw", field);
    t.M_hbm = chip.get("hbm_bytes", field);
    t.W_ici = chip.get("ici_bw_bidi", field);
    t.W_ici_1way = chip.get("ici_bw_oneway", field);
    t.t_hop = tpus::hop_latency(chip);
    t.torus_dims = static_cast<int>(chip.get("torus_dims", field));
    t.max_pod_chips = chip.get("max_pod_chips", field);
  }
  t.id = chip.id;
  t.name = chip.name;
  t.chip = &chip;
  t.price = chip.has("price_per_hour") ? chip.get("price_per_hour", field) : 0;
  return t;
}

Machine tpu_of(const hw::Chip& chip, std::string_view field) {
  if (chip.kind != "tpu")
    fail(field,
         chip.name +
             " is a GPU: the book sets this problem on a TPU slice (its ICI torus and slice "
             "sizes); the calculators on this page take a GPU. Pick a TPU.",
         "no_figure");
  return machine_of(chip, field);
}

double peak_of(const Machine& t, std::string_view dtype, std::string_view field) {
  const std::string key = "peak_flops_" + std::string(dtype);
  if (!t.chip->has(key))
    fail(field,
         t.name + " has no " + std::string(dtype) + " matmul peak in the tables: pick bf16" +
             (t.chip->has("peak_flops_int8") ? " or int8" : ""),
         "no_figure");
  return t.chip->get(key, field);
}

double dtype_bytes(std::string_view dtype, std::string_view field) {
  if (dtype == "bf16") return 2;
  if (dtype == "fp8" || dtype == "int8") return 1;
  if (dtype == "int4") return 0.5;
  fail(field, "'" + std::string(dtype) + "' is not a serving dtype; use bf16, fp8, int8 or int4",
       "unknown_choice");
}

namespace {

// Axis lengths fit in the pod when, both sorted, each is at most the pod's.
bool fits_pod(std::vector<double> dims, std::vector<double> pod) {
  std::sort(dims.begin(), dims.end());
  std::sort(pod.begin(), pod.end());
  for (size_t i = 0; i < dims.size(); ++i)
    if (i >= pod.size() ? dims[i] > 1 : dims[i] > pod[i]) return false;
  return true;
}

// The chip's wraparound rule and torus rank, read once for all of a TPU's slices: building the
// rule (its words included) per slice was most of a slice list's time in wasm.
struct Wrapping {
  tpus::WrapRule rule;
  size_t rank;
};

Slice slice_from(const Wrapping& w, const std::vector<double>& dims) {
  Slice s;
  s.dims = dims;
  tpus::Dims td;
  for (double d : dims) {
    s.chips *= d;
    if (d > 1) ++s.n_axes;
    s.max_axis = std::max(s.max_axis, d);
    td.push_back(static_cast<int>(d));
  }
  s.shape = tpus::shape_text(td);
  s.wrap = tpus::wraps(w.rule, w.rank, td);
  return s;
}

// A GPU slice of n GPUs: inside one node, or whole nodes.
Slice gpu_slice(const Machine& t, double n) {
  Slice s;
  s.chips = n;
  const double in_node = std::min(n, std::max(1.0, t.d_node));
  const double nodes = n / in_node;
  s.dims = {in_node, nodes};
  s.n_axes = (in_node > 1) + (nodes > 1);
  s.max_axis = in_node;
  const std::string g = units::number(n) + "-GPU ";
  s.shape = nodes > 1       ? g + "cluster (" + units::number(nodes) + " nodes)"
            : n == t.d_node ? g + "node"
            : n == 1        ? std::string("single GPU")
                            : g + "group";
  return s;
}

std::vector<Slice> gpu_slices(const Machine& t) {
  std::vector<Slice> out;
  for (double n = 1; n < t.d_node; n *= 2) out.push_back(gpu_slice(t, n));
  if (t.d_node < 1) return {gpu_slice(t, 1)};
  for (double m = 1; m <= t.max_nodes; m *= 2) out.push_back(gpu_slice(t, m * t.d_node));
  return out;
}

// Why a GPU's sets stop where they do, for slice_of's error.
std::string gpu_why(const Machine& t) {
  if (!t.gpu()) return "";
  if (t.d_node < 1)
    return " (the book gives no NVLink figures for the " + t.name + ", so it serves on one GPU)";
  if (t.w_node <= 0)
    return " (the book gives no scale-out bandwidth for its nodes, so a set spans one node)";
  return " (within a node, or whole nodes up to the GPU chapter's two-tier fat tree)";
}

}  // namespace

std::vector<Slice> slices(const Machine& t) {
  if (t.gpu()) return gpu_slices(t);
  std::vector<double> pod;
  for (int d : tpus::topology_of(*t.chip, "chip").max_pod) pod.push_back(d);
  std::vector<Slice> out;
  const hw::Chip& chip = *t.chip;
  const Wrapping w{tpus::wrap_rule(chip), tpus::torus_rank(chip)};
  // The axes grow one at a time, the shortest that can still grow first, from 1x1 (2D) or 2x2x1
  // (3D): 2x2 -> 2x4 -> 4x4 on a v5e; 4x4x4 -> 4x4x8 -> ... on a TPU7x's 4x4x576.
  std::vector<double> dims =
      t.torus_dims == 3 ? std::vector<double>{2, 2, 1} : std::vector<double>{1, 1};
  if (t.torus_dims == 2) {
    out.push_back(slice_from(w, dims));
    dims = {2, 2};
  }
  while (fits_pod(dims, pod)) {
    out.push_back(slice_from(w, dims));
    std::vector<size_t> order(dims.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    // The shortest axes first; among equals the last, so 2x2 grows to 2x4.
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return dims[a] != dims[b] ? dims[a] < dims[b] : a > b;
    });
    bool grew = false;
    for (size_t i : order) {
      std::vector<double> next = dims;
      next[i] *= 2;
      if (fits_pod(next, pod)) {
        dims = next;
        grew = true;
        break;
      }
    }
    if (!grew) break;
  }
  return out;
}

const Slice* smallest_slice(const std::vector<Slice>& all, double chips) {
  for (const Slice& s : all)
    if (s.chips >= chips) return &s;
  return nullptr;
}

Slice slice_of(const Machine& t, double chips, std::string_view field) {
  const std::vector<Slice> all = slices(t);
  std::string sizes;
  for (const Slice& s : all) {
    if (s.chips == chips) return s;
    sizes += (sizes.empty() ? "" : ", ") + units::number(s.chips);
  }
  fail(field,
       "a " + t.name + " comes in " + (t.gpu() ? "sets" : "slices") + " of " + sizes +
           (t.gpu() ? " GPUs" : " chips") + ", not " + units::number(chips) + gpu_why(t),
       "out_of_range");
}

namespace {

// The nodes a GPU slice of n spans; InputError naming `field` on a TPU or a size it has not.
double gpu_nodes(const Machine& t, double n, std::string_view field) {
  if (!t.gpu())
    fail(field, "a " + t.name + " slice has no NVLink node: its collectives run over the ICI torus",
         "not_a_gpu");
  return slice_of(t, n, field).dims[1];
}

// A record's value at x, written as a step when there is a trace.
double at(const Formula& f, std::initializer_list<double> x, Trace* tr, std::string_view what) {
  return tr ? tr->step(what, f, x) : f.fn(x.begin());
}

}  // namespace

double gpu_allgather_time(const Machine& t, double bytes, double n, std::string_view field,
                          Trace* tr, std::string_view what) {
  const double m = gpu_nodes(t, n, field);
  if (m <= 1) return at(gpus::kAgRing, {bytes, n, t.W_ici}, tr, what);
  return at(gpus::kHierAg, {bytes, t.d_node, t.W_ici, m, t.w_node}, tr, what);
}

double gpu_allreduce_time(const Machine& t, double bytes, double n, std::string_view field,
                          Trace* tr, std::string_view what) {
  if (gpu_nodes(t, n, field) <= 1) return at(gpus::kArRing, {bytes, n, t.W_ici}, tr, what);
  // A ReduceScatter and an AllGather, each the hierarchical ring (A.4 (2), (8)).
  const double ag = gpu_allgather_time(t, bytes, n, field, tr,
                                       "Its ReduceScatter, like an AllGather: NVLink inside the "
                                       "node, then the nodes over the scale-out network");
  if (tr) return tr->sum(what, "T_AR", "s", {{"T_RS", ag}, {"T_AG", ag}});
  return 2 * ag;
}

double gpu_alltoall_time(const Machine& t, double bytes, double n, std::string_view field,
                         Trace* tr, std::string_view what) {
  const double m = gpu_nodes(t, n, field);
  if (m <= 1) return at(gpus::kA2A, {bytes, n, t.W_ici}, tr, what);
  return at(gpus::kA2ACross, {bytes, m, t.w_node}, tr, what);
}

// ------------------------------------------------------------------ the model

Served served(const tf::Config& c) {
  Served m;
  const tf::Params p = tf::params(c);
  m.P_total = p.total;
  m.P_active = p.active;
  m.L = c.L;
  m.D = c.D;
  m.N = c.N;
  m.K = c.K;
  m.H = c.H;
  m.moe = c.E > 0;
  m.E = c.E;
  m.k = c.k;
  m.F = tf::dense_layers(c) > 0 || c.E == 0 ? c.F : (c.F_e > 0 ? c.F_e : c.F);
  m.plain_kv = !c.mla && c.window_layers == 0;
  m.config = &c;
  return m;
}

double kv_tok_of(const Served& m, double b_kv, double S) {
  return tf::kv_bytes_per_token(*m.config, b_kv, S);
}

Decode decode(double P_total, double P_active, double b_w, double kv_tok, double C_peak,
              double W_hbm, double n_chips, double B, double S) {
  Decode d;
  d.kv_batch = kv_bytes_batch(B, S, kv_tok);
  d.bytes_w = weight_bytes(P_total, b_w);
  d.T_kv = t_kv(B, S, kv_tok, n_chips, W_hbm);
  d.T_param = t_param(P_total, b_w, n_chips, W_hbm);
  d.T_flops = t_flops(B, P_active, n_chips, C_peak);
  d.T_step = step_time(d.T_kv, d.T_flops, d.T_param);
  return d;
}

double gpu_step_comms(const Machine& t, const Served& m, double B, double b_a, double n) {
  if (!t.gpu() || n <= 1) return 0;
  return t_1d_step(m.L, gpu_allreduce_time(t, activation_msg(B, m.D, b_a), n, "chips"));
}

GpuComms gpu_comms_steps(const Machine& t, const Served& m, double B, double b_a, double n,
                         double T_step, Trace& tr) {
  GpuComms g;
  g.T_step = T_step;
  if (!t.gpu() || n <= 1) return g;
  const double msg = tr.step("Activation an AllReduce moves", kActMsg, {B, m.D, b_a});
  g.T_allreduce = gpu_allreduce_time(t, msg, n, "chips", &tr,
                                     "One AllReduce of it over the GPUs (NVLink inside a node)");
  g.T_comms =
      tr.step("Two per layer (attention and MLP), every layer", kT1dStep, {m.L, g.T_allreduce});
  g.T_step = tr.sum(
      "Step on GPUs: the book's step and the AllReduces, which NVLink and the scale-out "
      "network do not hide as a TPU's ICI does (beyond the book)",
      "T_step", "s", {{"T_step", T_step}, {"T_comms", g.T_comms}});
  return g;
}

Decode with_comms(Decode d, double T_comms) {
  d.T_comms = T_comms;
  d.T_step += T_comms;
  return d;
}

const char* regime(const Decode& d) {
  if (d.T_comms > std::max({d.T_kv, d.T_param, d.T_flops})) return "collective-bound";
  if (d.T_flops > d.T_param && d.T_flops >= d.T_kv) return "compute-bound";
  if (d.T_kv > d.T_param && d.T_kv > d.T_flops) return "KV-load bound";
  return "weight-load bound";
}

}  // namespace sb::inference
