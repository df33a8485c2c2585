// The planner of planner.hpp. The search precomputes, for each way to factor the slice's axes into
// X, Y and Z, the per-layer terms that depend on the factors only (one call of each collective);
// the inner loops over the X mode, the remat policy and the microbatch count are arithmetic on
// those terms, which scale as 1/m with the microbatch.
#include "chapters/training/planner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "chapters/roofline/model.hpp"
#include "chapters/sharding/model.hpp"
#include "chapters/tpus/model.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"

namespace sb::training {

namespace tf = transformers;

namespace {

constexpr int kRemats = 3;
constexpr tf::Remat kRematOrder[kRemats] = {tf::Remat::BigMatmuls, tf::Remat::SaveAll,
                                            tf::Remat::Block};
constexpr int kMaxMicro = 4096;  // microbatch counts 1, 4, ..., 4096
constexpr double kTie = 1e-9;    // relative: step times closer than this are equal
constexpr double kMaxPods = 1e4;

int remat_index(tf::Remat r) {
  for (int i = 0; i < kRemats; ++i)
    if (kRematOrder[i] == r) return i;
  return 0;
}

std::string count_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

// Everything the search needs about the model and the chip, once.
struct Ctx {
  Hardware h;
  double L = 0;
  double fl = 0;                    // forward FLOPs per token per layer
  double wb = 0;                    // bytes of one layer's weights (what FSDP gathers, DP reduces)
  double row = 0;                   // bytes of one token's activation row (what TP gathers)
  double tp_blocks = 1;             // blocks with a TP gather/scatter pair per layer
  double act[kRemats] = {};         // saved bytes per token per layer, per policy
  double bwd_factor[kRemats] = {};  // backward FLOPs over forward: 2, or 3 with block remat
  double state = 0;                 // bytes of parameters and optimizer state
  double B_slice = 0;               // tokens per pod
  double pods = 1;
};

// The inputs the search needs; InputError naming the field.
void check_plan_input(const PlanInput& in) {
  for (auto [v, field] : {std::pair{in.hw.C, "C"},
                          {in.hw.W_ici, "W_ici"},
                          {in.hw.W_hbm, "W_hbm"},
                          {in.hw.hbm, "hbm"},
                          {in.hw.w_uni, "w_uni"}})
    if (!(v > 0) || !std::isfinite(v))
      fail(field, std::string(field) + " must be a positive number", "out_of_range");
  if (in.topo.slices.empty()) fail("shape", "no slice to plan on", "bad_shape");
  for (const Slice& sl : in.topo.slices) {
    bool ok = !sl.dims.empty() && sl.dims.size() <= 3 && sl.wrap.size() == sl.dims.size();
    for (int d : sl.dims) ok = ok && d >= 1 && d <= 100000;
    if (!ok) fail("shape", "a slice has 1 to 3 axes of at least 1 chip each", "bad_shape");
  }
  if (!(in.topo.pods >= 1) || in.topo.pods != std::floor(in.topo.pods) || in.topo.pods > kMaxPods)
    fail("pods", "pods must be a whole number from 1 to 10,000", "out_of_range");
  const double chips = in.topo.slices.front().chips() * in.topo.pods;
  if (!std::isfinite(in.B) || in.B > 1e15)
    fail("B", "the batch must be a finite number of tokens", "out_of_range");
  if (!(in.B >= chips))
    fail("B",
         "the batch (" + count_text(in.B) + " tokens) is smaller than the chip count (" +
             count_text(chips) + "): every chip needs at least one token",
         "out_of_range");
  if (in.topo.pods > 1 && !(in.hw.W_dcn > 0))
    fail("pods", "more than one pod needs the chip's DCN bandwidth", "no_figure");
  if (!(in.state_bytes_per_param > 0) || !std::isfinite(in.state_bytes_per_param))
    fail("state_bytes_per_param", "bytes per parameter must be positive", "out_of_range");
  if (!(in.seq_len >= 0) || !std::isfinite(in.seq_len))
    fail("seq_len", "the sequence length must be 0 or more tokens", "out_of_range");
}

// The per-token terms of one layer: the chapter's MLP (Book), or the whole transformer layer
// averaged over the stack (Full: DeepSeek's dense first layers differ from the rest).
void layer_terms(const tf::Config& c, const PlanInput& in, Ctx& x) {
  const double b = 2;  // bf16 weights and activations
  if (in.layer == LayerModel::Book) {
    const Layer l = layer_of(c);
    x.fl = layer_flops_fwd(l, 1);
    x.wb = layer_weight_bytes(l, b);
    x.row = activation_row_bytes(l, b);
    x.act[0] = checkpoint_bytes(l, 1, 1);
    return;
  }
  const double nd = tf::dense_layers(c), nm = tf::moe_layers(c);
  const tf::LayerParams d = nd > 0 ? tf::dense_layer_params(c) : tf::LayerParams{};
  const tf::LayerParams e = nm > 0 ? tf::moe_layer_params(c) : tf::LayerParams{};
  const double active = (nd * d.matmul_active() + nm * e.matmul_active()) / c.L;
  const double stored = (nd * d.total() + nm * e.total()) / c.L;
  const double core = in.seq_len > 0
                          ? tf::attention_core_flops(1, 1, in.seq_len, c.N, tf::head_dim_qk(c),
                                                     tf::head_dim_v(c), tf::Pass::Forward)
                          : 0;
  x.fl = tf::flops_per_param_token(tf::Pass::Forward) * active + core;
  x.wb = tf::param_bytes(stored, b);
  x.row = b * c.D;
  x.tp_blocks = 2;
  x.act[0] = b * tf::saved_elems_per_token_layer(c);
}

Ctx make_ctx(const PlanInput& in) {
  const tf::Config c = tf::validated(in.model);
  check_plan_input(in);
  Ctx x;
  x.h = in.hw;
  x.L = c.L;
  x.pods = in.topo.pods;
  x.B_slice = in.B / in.topo.pods;
  x.state = in.state_bytes_per_param * tf::params(c).total;
  layer_terms(c, in, x);
  const double b = 2;
  x.act[1] = tf::activation_bytes(1, c.D, 1, tf::saved_arrays_per_layer(tf::Remat::SaveAll), b);
  x.act[2] = tf::activation_bytes(1, c.D, 1, tf::saved_arrays_per_layer(tf::Remat::Block), b);
  const double fwd = tf::flops_per_param_token(tf::Pass::Forward);
  for (int r = 0; r < kRemats; ++r)
    x.bwd_factor[r] = (tf::remat_flops_per_param_token(kRematOrder[r]) - fwd) / fwd;
  return x;
}

// One way to factor an axis: x to X, y to Y, z to Z, and the share of the axis' bandwidth X and Y
// get (planner.hpp: the weight of a sub-axis).
struct AxisOpt {
  int x = 1, y = 1, z = 1;
  double wx = 0, wy = 0;
};

double ag_weight(int n, bool ring, const Hardware& h) {
  if (n <= 1) return 0;
  const double t =
      ring ? sharding::t_allgather_ring(1, n, h.w_uni) : sharding::t_allgather_line(1, n, h.w_uni);
  return 1 / (h.W_ici * t);
}

AxisOpt axis_opt(int x, int y, int z, int a, bool wrap, const Hardware& h) {
  AxisOpt o{x, y, z, 0, 0};
  o.wy = ag_weight(y, wrap && y == a, h);
  o.wx = ag_weight(x, wrap, h) / (y * z);
  return o;
}

std::vector<AxisOpt> axis_opts(int a, bool wrap, bool pipeline, const Hardware& h) {
  std::vector<AxisOpt> out;
  for (int x = 1; x <= a; ++x) {
    if (a % x) continue;
    const int rest = a / x;
    for (int y = 1; y <= rest; ++y) {
      if (rest % y) continue;
      const int z = rest / y;
      if (z > 1 && !pipeline) continue;
      out.push_back(axis_opt(x, y, z, a, wrap, h));
    }
  }
  return out;
}

// The per-layer terms of one factorisation, for the whole pod batch (m = 1).
struct Combo {
  int X = 1, Y = 1, Z = 1;
  double M_X = 0, M_Y = 0;
  double Ls = 0;  // layers per stage
  double math = 0, hbm = 0, fsdp = 0, tp = 0, dp = 0, dcn = 0, hop = 0;
  double tokens_per_chip = 0;
};

Combo make_combo(const Ctx& c, int X, int Y, int Z, double M_X, double M_Y) {
  Combo k;
  k.X = X, k.Y = Y, k.Z = Z, k.M_X = M_X, k.M_Y = M_Y;
  k.Ls = std::ceil(c.L / Z);
  k.math = roofline::t_math(c.fl * c.B_slice / (double(X) * Y), c.h.C);
  k.hbm = roofline::t_comms(c.wb / Y, c.h.W_hbm);
  if (X > 1) {
    k.fsdp = t_weight_gather(c.wb, Y, M_X, c.h);
    k.dp = t_grad_allreduce(c.wb, Y, M_X, c.h);
  }
  if (Y > 1) k.tp = c.tp_blocks * t_act_gather_scatter(c.row * c.B_slice, X, M_Y, c.h);
  if (c.pods > 1) k.dcn = t_grad_allreduce_dcn(c.wb, double(X) * Y, c.h);
  if (Z > 1) k.hop = t_pipeline_hop(c.row * c.B_slice / X, Y, c.h);
  k.tokens_per_chip = c.B_slice / (double(X) * Y);
  return k;
}

// X's mode: 0 none (X = 1), 1 DP, 2 FSDP.
uint8_t strategy_bits(const Combo& k, int mode, double pods) {
  uint8_t s = mode == 1 ? kDP : mode == 2 ? kFSDP : 0;
  if (k.Y > 1) s |= kTP;
  if (k.Z > 1) s |= kPP;
  if (pods > 1) s |= kDCN;
  return s;
}

// The phase terms of one configuration. The per-step gradient reductions (DP, DCN) overlap the
// m microbatches' backward passes, so each microbatch carries 1/m of them.
struct Terms {
  double math_f, math_b, hbm_f, hbm_b, fsdp_f, fsdp_b, tp, dp_b, dcn_b, hop;
  double T_f, T_b, t_step, mem;
};

inline Terms terms(const Ctx& c, const Combo& k, int mode, int r, int m) {
  Terms t;
  const double inv_m = 1.0 / m;
  t.math_f = k.math * inv_m;
  t.math_b = t.math_f * c.bwd_factor[r];
  t.hbm_f = k.hbm;
  t.hbm_b = 2 * k.hbm;
  t.fsdp_f = mode == 2 ? k.fsdp : 0;
  t.fsdp_b = 2 * t.fsdp_f;
  t.tp = k.tp * inv_m;
  t.dp_b = mode == 1 ? k.dp * inv_m : 0;
  t.dcn_b = k.dcn * inv_m;
  t.hop = k.hop * inv_m;
  t.T_f = std::max(std::max(t.math_f, t.hbm_f), std::max(t.fsdp_f, t.tp));
  t.T_b = std::max(std::max(std::max(t.math_b, t.hbm_b), std::max(t.fsdp_b, t.tp)),
                   std::max(t.dp_b, t.dcn_b));
  const double micro = std::max(k.Ls * t.T_f, t.hop) + std::max(k.Ls * t.T_b, t.hop);
  t.t_step = pipeline_slots(k.Z, m) * micro;
  // Parameters and optimizer over the chips that shard them; activations of the microbatches a
  // stage holds at once (1F1B: at most Z) over the stage's chips.
  const double param_shards = double(k.Y) * k.Z * (mode == 2 ? k.X : 1);
  const double in_flight = pipeline_in_flight(k.Z, m);
  t.mem = c.state / param_shards + c.act[r] * k.tokens_per_chip * in_flight * k.Ls;
  return t;
}

double comms_ratio(const Terms& t) {
  const double f = std::max(std::max(t.hbm_f, t.fsdp_f), t.tp);
  const double b = std::max(std::max(std::max(t.hbm_b, t.fsdp_b), std::max(t.tp, t.dp_b)), t.dcn_b);
  return std::max(f / t.math_f, b / t.math_b);
}

Plan make_plan(const Ctx& c, const Combo& k, int slice, const AxisOpt* o, int n_axes, int mode,
               int r, int m) {
  const Terms t = terms(c, k, mode, r, m);
  Plan p;
  p.slice = slice;
  for (int i = 0; i < n_axes; ++i) p.x[i] = o[i].x, p.y[i] = o[i].y, p.z[i] = o[i].z;
  p.X = k.X, p.Y = k.Y, p.Z = k.Z, p.m = m, p.M_X = k.M_X, p.M_Y = k.M_Y;
  p.strategy = strategy_bits(k, mode, c.pods);
  p.remat = kRematOrder[r];
  p.mem = t.mem;
  p.fits = t.mem <= c.h.hbm;
  p.t_step = t.t_step;
  const double useful = 3 * c.fl * c.L * c.B_slice;
  p.mfu = useful / (t.t_step * double(k.X) * k.Y * k.Z * c.h.C);
  p.comms_ratio = comms_ratio(t);
  const double hop_stage = t.hop / k.Ls;  // per layer, comparable with the layer terms
  p.compute_bound = t.T_f == t.math_f && t.T_b == t.math_b && hop_stage <= t.math_f;
  // The bottleneck: the term with the largest time over both phases; when a phase is comms-bound,
  // the largest term other than the math.
  struct {
    Term term;
    double v;
  } all[] = {{Term::Hbm, t.hbm_f + t.hbm_b}, {Term::Fsdp, t.fsdp_f + t.fsdp_b},
             {Term::Tp, 2 * t.tp},           {Term::Dp, t.dp_b},
             {Term::Dcn, t.dcn_b},           {Term::Hop, 2 * hop_stage}};
  Term worst = Term::Hbm;
  double worst_v = -1;
  for (const auto& e : all)
    if (e.v > worst_v) worst = e.term, worst_v = e.v;
  p.bottleneck = p.compute_bound ? Term::Math : worst;
  return p;
}

// What the search ranks configurations by: fits first; then the step time; then the simpler
// strategy (DP and FSDP rank alike: ZeRO-3 costs DP's comms, A.4 (2)); then less memory per chip;
// then more comms headroom. When nothing fits, the least memory.
struct Key {
  bool fits = false;
  double t = 0, mem = 0, ratio = 0;
  int rank = 0;
};

bool close(double a, double b) { return std::fabs(a - b) <= kTie * std::max(a, b); }

bool better(const Key& a, const Key& b) {
  if (a.fits != b.fits) return a.fits;
  if (!a.fits) return a.mem < b.mem;
  if (!close(a.t, b.t)) return a.t < b.t;
  if (a.rank != b.rank) return a.rank < b.rank;
  if (!close(a.mem, b.mem)) return a.mem < b.mem;
  return a.ratio < b.ratio;
}

bool same_layout(const Plan& a, const Plan& b) {
  return a.slice == b.slice && a.x == b.x && a.y == b.y && a.z == b.z && a.m == b.m &&
         a.strategy == b.strategy && a.remat == b.remat;
}

Reason reason_for(const Plan& p, const Plan& best, bool any_fits) {
  if (same_layout(p, best)) return Reason::Best;
  if (!p.fits) return Reason::OutOfMemory;
  if (!p.compute_bound) {
    switch (p.bottleneck) {
      case Term::Hbm:
        return Reason::HbmBound;
      case Term::Fsdp:
        return Reason::CommsFsdp;
      case Term::Tp:
        return Reason::CommsTp;
      case Term::Dp:
        return Reason::CommsDp;
      case Term::Dcn:
        return Reason::CommsDcn;
      case Term::Hop:
        return Reason::PipelineHop;
      case Term::Math:
        break;
    }
  }
  if (any_fits && p.t_step > best.t_step * (1 + kTie)) {
    if (p.Z > 1) return Reason::PipelineBubble;
    if (p.remat == tf::Remat::Block) return Reason::Recompute;
  }
  return Reason::Tie;
}

// The microbatch counts for a factorisation: 1, 4, ..., with at least one token per X group.
int micro_limit(const Ctx& c, const Combo& k) {
  if (k.Z == 1) return 1;
  return static_cast<int>(std::min<double>(kMaxMicro, std::floor(c.B_slice / k.X)));
}

}  // namespace

// ------------------------------------------------------------------ topology

double Slice::chips() const {
  double n = 1;
  for (int d : dims) n *= d;
  return n;
}

Topology topology_for_shape(const hw::Chip& chip, std::string_view shape, double pods,
                            std::string_view field) {
  const std::string f(field);
  const tpus::Dims dims = tpus::parse_shape(std::string(shape), f);
  const tpus::Torus t = tpus::slice_torus(chip, dims, "auto", f);
  if (!(pods >= 1) || pods != std::floor(pods) || pods > kMaxPods)
    fail("pods", "pods must be a whole number from 1 to 10,000", "out_of_range");
  Topology topo;
  topo.slices.push_back({t.dims, t.wrap});
  topo.pods = pods;
  return topo;
}

Topology topology_for_chips(const hw::Chip& chip, double chips, std::string_view field) {
  const std::string f(field);
  if (!(chips >= 1) || chips != std::floor(chips) || chips > 1e8)
    fail(field, f + " must be a whole number of chips of at least 1", "out_of_range");
  const tpus::Topology info = tpus::topology_of(chip, f);
  const double pod = tpus::chip_count(info.max_pod);
  Topology topo;
  if (chips == pod) {
    // A full pod is the pod's own shape (16x20x28 for v5p), not every shape of as many chips.
    const tpus::Torus t = tpus::slice_torus(chip, info.max_pod, "auto", f);
    topo.slices.push_back({t.dims, t.wrap});
    return topo;
  }
  if (chips > pod) {
    if (std::fmod(chips, pod) != 0)
      fail(field,
           count_text(chips) + " chips is more than one " + chip.name + " pod (" + count_text(pod) +
               " chips) but not a whole number of pods",
           "out_of_range");
    if (chips / pod > kMaxPods)
      fail(field,
           count_text(chips) + " chips is more than " + count_text(kMaxPods) + " " + chip.name +
               " pods",
           "out_of_range");
    const tpus::Torus t = tpus::slice_torus(chip, info.max_pod, "auto", f);
    topo.slices.push_back({t.dims, t.wrap});
    topo.pods = chips / pod;
    return topo;
  }
  // Every shape a <= b (<= c) of that many chips the chip comes in.
  const long long n = static_cast<long long>(chips);
  const int rank = info.torus_dims;
  for (long long a = 1; a * a <= n || (rank == 1 && a == 1); ++a) {
    if (n % a) continue;
    std::vector<tpus::Dims> shapes;
    if (rank == 1) shapes.push_back({static_cast<int>(n)});
    if (rank == 2) shapes.push_back({static_cast<int>(a), static_cast<int>(n / a)});
    if (rank >= 3)
      for (long long b = a; b * b <= n / a; ++b)
        if ((n / a) % b == 0)
          shapes.push_back({static_cast<int>(a), static_cast<int>(b), static_cast<int>(n / a / b)});
    for (const tpus::Dims& d : shapes) {
      try {
        const tpus::Torus t = tpus::slice_torus(chip, d, "auto", f);
        topo.slices.push_back({t.dims, t.wrap});
      } catch (const InputError&) {
        // A shape the chip does not come in: not a candidate.
      }
    }
    if (rank == 1) break;
  }
  if (topo.slices.empty())
    fail(field, "no " + chip.name + " slice has " + count_text(chips) + " chips", "bad_shape");
  return topo;
}

std::vector<double> chip_counts(const hw::Chip& chip, double max_pods) {
  const tpus::Topology info = tpus::topology_of(chip);
  const double pod = tpus::chip_count(info.max_pod);
  std::vector<double> out;
  for (double n = 1; n < pod; n *= 2) {
    try {
      topology_for_chips(chip, n);
      out.push_back(n);
    } catch (const InputError&) {
      // No slice of this many chips.
    }
  }
  for (double k = 1; k <= max_pods; ++k) out.push_back(k * pod);
  return out;
}

// ------------------------------------------------------------------ names

std::string strategy_name(uint8_t s) {
  std::string out;
  auto add = [&](const char* part) { out += (out.empty() ? "" : "+") + std::string(part); };
  if (s & kDP) add("DP");
  if (s & kFSDP) add("FSDP");
  if (s & kTP) add("TP");
  if (s & kPP) add("PP");
  if (out.empty()) out = "single chip";
  if (s & kDCN) out += " (DP across pods)";
  return out;
}

int strategy_class(uint8_t s) {
  const int mode = s & kFSDP ? 2 : s & kDP ? 1 : 0;
  return mode * 4 + (s & kTP ? 2 : 0) + (s & kPP ? 1 : 0);
}

const char* term_name(Term t) {
  switch (t) {
    case Term::Math:
      return "compute";
    case Term::Hbm:
      return "HBM weight loads";
    case Term::Fsdp:
      return "FSDP weight gathers";
    case Term::Tp:
      return "TP activation collectives";
    case Term::Dp:
      return "DP gradient all-reduce";
    case Term::Dcn:
      return "DCN all-reduce across pods";
    case Term::Hop:
      return "pipeline stage copies";
  }
  return "?";
}

const char* reason_name(Reason r) {
  switch (r) {
    case Reason::Best:
      return "best";
    case Reason::OutOfMemory:
      return "out_of_memory";
    case Reason::CommsFsdp:
      return "comms_fsdp";
    case Reason::CommsTp:
      return "comms_tp";
    case Reason::CommsDp:
      return "comms_dp";
    case Reason::CommsDcn:
      return "comms_dcn";
    case Reason::HbmBound:
      return "hbm_bound";
    case Reason::PipelineHop:
      return "pipeline_hop";
    case Reason::PipelineBubble:
      return "pipeline_bubble";
    case Reason::Recompute:
      return "recompute";
    case Reason::Tie:
      return "tie";
  }
  return "?";
}

const char* reason_text(Reason r) {
  switch (r) {
    case Reason::Best:
      return "The fastest plan that fits (ties go to the simpler plan, then the one with more "
             "comms headroom, then the one with less memory).";
    case Reason::OutOfMemory:
      return "Needs more memory per chip than the chip's HBM.";
    case Reason::CommsFsdp:
      return "Comms-bound: gathering the FSDP-sharded weights takes longer than the matmuls.";
    case Reason::CommsTp:
      return "Comms-bound: the tensor-parallel activation gathers and reduce-scatters take longer "
             "than the matmuls.";
    case Reason::CommsDp:
      return "Comms-bound: the data-parallel gradient all-reduce takes longer than the backward "
             "matmuls.";
    case Reason::CommsDcn:
      return "Comms-bound: the gradient all-reduce across pods over DCN takes longer than the "
             "backward matmuls.";
    case Reason::HbmBound:
      return "Memory-bandwidth-bound: each chip's local batch is too small to hide loading its "
             "weights from HBM.";
    case Reason::PipelineHop:
      return "Comms-bound: copying activations between pipeline stages takes longer than a "
             "stage's work.";
    case Reason::PipelineBubble:
      return "Compute-bound, but the pipeline's stages sit idle while it fills and drains.";
    case Reason::Recompute:
      return "Compute-bound, but block rematerialisation replays the forward pass (8 instead of "
             "6 FLOPs per parameter per token).";
    case Reason::Tie:
      return "As fast as the best plan; it loses the tie on simplicity, comms headroom or "
             "memory.";
  }
  return "?";
}

// ------------------------------------------------------------------ the search

namespace {

// The search's running state: the best plan of each strategy class, and the best of all.
struct Search {
  const Ctx& c;
  PlanResult& res;
  std::vector<Plan>* all;
  bool have_best = false;
  Key best_key{};
  std::array<Key, kStrategyClasses> class_key{};

  // Every X mode, remat policy and microbatch count of one way to factor the axes.
  void assignment(int s, const AxisOpt (&o)[3], int n_axes) {
    const int X = o[0].x * o[1].x * o[2].x, Y = o[0].y * o[1].y * o[2].y,
              Z = o[0].z * o[1].z * o[2].z;
    if (Z > c.L) return;  // a stage needs at least one layer
    ++res.assignments;
    const Combo k =
        make_combo(c, X, Y, Z, o[0].wx + o[1].wx + o[2].wx, o[0].wy + o[1].wy + o[2].wy);
    const int m_max = micro_limit(c, k);
    const int rank = 8 * (Z > 1) + 4 * (Y > 1) + (X > 1);  // simpler plans win ties
    for (int mode = X > 1 ? 1 : 0; mode <= (X > 1 ? 2 : 0); ++mode) {
      const int cls = strategy_class(strategy_bits(k, mode, 1));
      for (int r = 0; r < kRemats; ++r)
        for (int m = 1; m <= m_max; m *= 4) {
          ++res.configs;
          const Terms t = terms(c, k, mode, r, m);
          if (all) all->push_back(make_plan(c, k, s, o, n_axes, mode, r, m));
          const bool fits = t.mem <= c.h.hbm;
          if (res.has[cls]) {
            // Most configurations lose on fitting or on time: reject those before the tie-breaks.
            const Key& held = class_key[cls];
            if (held.fits && !fits) continue;
            if (held.fits == fits && (fits ? t.t_step > held.t * (1 + kTie) : t.mem >= held.mem))
              continue;
          }
          const Key key{fits, t.t_step, t.mem, comms_ratio(t), rank};
          if (res.has[cls] && !better(key, class_key[cls])) continue;
          res.by_strategy[cls] = make_plan(c, k, s, o, n_axes, mode, r, m);
          res.has[cls] = true;
          class_key[cls] = key;
          if (!have_best || better(key, best_key)) {
            res.best = res.by_strategy[cls];
            best_key = key;
            have_best = true;
          }
        }
    }
  }

  // Every way to factor each axis of slice s into X, Y and Z.
  void slice(int s, const Slice& sl, bool pipeline) {
    const int n_axes = static_cast<int>(sl.dims.size());
    std::vector<AxisOpt> opts[3];
    for (int i = 0; i < 3; ++i)
      opts[i] = i < n_axes ? axis_opts(sl.dims[i], sl.wrap[i], pipeline, c.h)
                           : std::vector<AxisOpt>{AxisOpt{}};
    for (const AxisOpt& o0 : opts[0])
      for (const AxisOpt& o1 : opts[1])
        for (const AxisOpt& o2 : opts[2]) {
          const AxisOpt o[3] = {o0, o1, o2};
          assignment(s, o, n_axes);
        }
  }
};

}  // namespace

PlanResult plan(const PlanInput& in, std::vector<Plan>* all) {
  const Ctx c = make_ctx(in);
  PlanResult res;
  res.pods = in.topo.pods;
  const size_t first_all = all ? all->size() : 0;
  Search search{c, res, all};
  for (size_t s = 0; s < in.topo.slices.size(); ++s)
    search.slice(static_cast<int>(s), in.topo.slices[s], in.pipeline);
  res.fits = search.have_best && res.best.fits;
  res.best.reason = Reason::Best;
  for (int i = 0; i < kStrategyClasses; ++i)
    if (res.has[i]) res.by_strategy[i].reason = reason_for(res.by_strategy[i], res.best, res.fits);
  if (all)
    for (size_t i = first_all; i < all->size(); ++i)
      (*all)[i].reason = reason_for((*all)[i], res.best, res.fits);
  return res;
}

Plan evaluate(const PlanInput& in, int slice, std::array<int, 3> x, std::array<int, 3> y,
              std::array<int, 3> z, uint8_t x_mode, tf::Remat remat, int m) {
  const Ctx c = make_ctx(in);
  if (slice < 0 || slice >= static_cast<int>(in.topo.slices.size()))
    fail("slice", "no such slice", "out_of_range");
  const Slice& sl = in.topo.slices[slice];
  const int n_axes = static_cast<int>(sl.dims.size());
  AxisOpt o[3];
  int X = 1, Y = 1, Z = 1;
  double M_X = 0, M_Y = 0;
  for (int i = 0; i < 3; ++i) {
    const int a = i < n_axes ? sl.dims[i] : 1;
    if (x[i] < 1 || y[i] < 1 || z[i] < 1 || static_cast<long long>(x[i]) * y[i] * z[i] != a)
      fail("layout",
           "axis " + std::to_string(i) + ": " + std::to_string(x[i]) + " x " +
               std::to_string(y[i]) + " x " + std::to_string(z[i]) + " does not make its " +
               std::to_string(a) + " chips",
           "bad_input");
    o[i] = axis_opt(x[i], y[i], z[i], a, i < n_axes && sl.wrap[i], c.h);
    X *= x[i], Y *= y[i], Z *= z[i];
    M_X += o[i].wx, M_Y += o[i].wy;
  }
  if (Z > c.L) fail("layout", "more pipeline stages than layers", "out_of_range");
  const Combo k = make_combo(c, X, Y, Z, M_X, M_Y);
  if (m < 1 || m > micro_limit(c, k) || (Z == 1 && m != 1))
    fail("m", "microbatches must be 1 without pipelining, and at most one per token of an X group",
         "out_of_range");
  const int mode = X == 1 ? 0 : (x_mode & kDP) ? 1 : 2;
  Plan p = make_plan(c, k, slice, o, n_axes, mode, remat_index(remat), m);
  p.reason = Reason::Tie;
  return p;
}

// ------------------------------------------------------------------ the regime map

RegimeMap regime_map(const tf::Config& model, const Hardware& h, int rank, double pod_chips,
                     const std::vector<double>& chips, const std::vector<double>& per_chip) {
  const tf::Config cfg = tf::validated(model);
  const Layer l = layer_of(cfg);
  const double P = tf::params(cfg).total;
  const double alpha = alpha_ici(h);
  RegimeMap map;
  map.chips = chips;
  map.batch_per_chip = per_chip;
  map.cells.assign(chips.size() * per_chip.size(), 0);
  for (size_t i = 0; i < chips.size(); ++i) {
    const double N = chips[i];
    if (!(N >= 1) || !std::isfinite(N))
      fail("chips", "chip counts must be at least 1", "out_of_range");
    const double pods = N > pod_chips ? N / pod_chips : 1;
    const double N_pod = N / pods;
    const double axes = N_pod >= 2 ? std::min<double>(rank, std::floor(std::log2(N_pod))) : 0;
    for (size_t j = 0; j < per_chip.size(); ++j) {
      const double b = per_chip[j];
      if (!(b > 0) || !std::isfinite(b))
        fail("batch_per_chip", "per-chip batches must be positive", "out_of_range");
      const double B = b * N;
      const double act = checkpoint_bytes(l, cfg.L, B);
      const bool fits_sharded = (params_optimizer_bytes(P) + act) / N <= h.hbm;
      const bool fits_dp = params_optimizer_bytes(P) + act / N <= h.hbm;
      uint8_t bits = pods > 1 ? kRegimeMultiPod : 0;
      if (axes >= 1 && b > dp_min_batch_per_chip(alpha, axes)) {
        if (fits_dp) bits |= kRegimeDP;
        if (fits_sharded) bits |= kRegimeFSDP;
      }
      if (axes >= 1 && N_pod < tp_max_degree(l.F, alpha, axes) && fits_sharded) bits |= kRegimeTP;
      if (axes >= 2 && b > mixed_min_batch_per_chip(alpha, l.F, axes - 1, 1) && fits_sharded)
        bits |= kRegimeMixed;
      if (pods > 1 && h.W_dcn > 0 && dcn_compute_bound(B, pods, h)) bits |= kRegimeDCN;
      map.cells[i * per_chip.size() + j] = bits;
    }
  }
  return map;
}

}  // namespace sb::training
