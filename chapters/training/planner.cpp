// The planner's search (planner.hpp). For each way to factor the slice's axes into X, Y and Z it
// computes the layout's per-layer terms once (costs.hpp's split_costs); the inner loops over the
// X mode, the remat policy and the microbatch count are arithmetic on those terms (step_costs).
#include "chapters/training/planner.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "chapters/sharding/model.hpp"
#include "chapters/training/planner_detail.hpp"
#include "chapters/transformers/model.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "core/work.hpp"

namespace sb::training {

namespace tf = transformers;
using namespace detail;

namespace {

constexpr int kMaxMicro = 4096;

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
  if (!(in.state.total() > 0) || !std::isfinite(in.state.total()))
    fail("grad_buffers", "bytes per parameter must be positive", "out_of_range");
  if (!(in.layer.seq_len >= 0) || !std::isfinite(in.layer.seq_len))
    fail("seq_len", "the sequence length must be 0 or more tokens", "out_of_range");
}

}  // namespace

namespace detail {

Ctx make_ctx(const PlanInput& in) {
  const tf::Config c = tf::validated(in.model);
  check_plan_input(in);
  Ctx x;
  x.lc = layer_costs(c, in.layer);
  x.h = in.hw;
  x.state = in.state;
  x.D = c.D, x.heads = c.N, x.kv = c.K;
  x.pods = in.topo.pods;
  x.B_slice = in.B / in.topo.pods;
  x.gpu = in.topo.gpu;
  x.budget = static_cast<long long>(work_bound(in.max_configs));
  return x;
}

}  // namespace detail

namespace {

// The microbatch counts' limit for a layout: 1 without pipelining, else at least one token per X
// group.
int micro_limit(const Ctx& c, const Layout& lay) {
  if (lay.Z == 1) return 1;
  return static_cast<int>(std::min<double>(kMaxMicro, std::floor(c.B_slice / lay.X)));
}
int micro_count(int limit, int step) {
  int n = 0;
  for (long long m = 1; m <= limit; m *= step) ++n;
  return n;
}

uint8_t strategy_bits(const Layout& lay, int mode, double pods) {
  uint8_t s = mode == kXDP || mode == kXDPEP ? kDP : fsdp_mode(mode) ? kFSDP : 0;
  if (ep_mode(mode)) s |= kEP;
  if (lay.Y > 1) s |= kTP;
  if (lay.Z > 1) s |= kPP;
  if (pods > 1) s |= kDCN;
  return s;
}

// The term with the largest time over both phases (a comms-bound plan's bottleneck).
Term worst_term(const StepCosts& t, const SplitCosts& k) {
  const double hop_stage = t.hop / k.Ls;  // per layer, comparable with the layer terms
  struct {
    Term term;
    double v;
  } all[] = {{Term::Hbm, t.hbm_f + t.hbm_b},
             {Term::Fsdp, t.fsdp_f + t.fsdp_b},
             {Term::Tp, 2 * t.tp},
             {Term::Ep, 2 * t.ep},
             {Term::Dp, t.dp_b},
             {Term::Dcn, t.dcn_b},
             {Term::Hop, 2 * hop_stage}};
  Term worst = Term::Hbm;
  double worst_v = -1;
  for (const auto& e : all)
    if (e.v > worst_v) worst = e.term, worst_v = e.v;
  return worst;
}

Plan make_plan(const Ctx& c, const SplitCosts& k, int slice, const AxisOpt* o, int n_axes, int mode,
               int r, int m) {
  const StepCosts t = step_costs(c.lc, k, c.state, mode, r, m);
  Plan p;
  p.slice = slice;
  for (int i = 0; i < n_axes; ++i) p.x[i] = o[i].x, p.y[i] = o[i].y, p.z[i] = o[i].z;
  const Layout& lay = k.lay;
  p.X = lay.X, p.Y = lay.Y, p.Z = lay.Z, p.m = m, p.M_X = lay.M_X, p.M_Y = lay.M_Y;
  p.ep_degree = ep_mode(mode) ? k.ep_degree : 1;
  p.strategy = strategy_bits(lay, mode, c.pods);
  p.remat = kRematOrder[r];
  p.memory = memory_bar(t);
  p.mem = t.mem();
  p.fits = p.mem <= c.h.hbm;
  p.t_step = t.t_step;
  const double useful = 3 * c.lc.flops * c.lc.L * c.B_slice;
  p.mfu = useful / (t.t_step * double(lay.X) * lay.Y * lay.Z * c.h.C);
  p.comms_ratio = comms_ratio(t);
  p.compute_bound = compute_bound(t, k);
  p.bottleneck = p.compute_bound ? Term::Math : worst_term(t, k);
  p.timeline = timeline(t, k, m);
  return p;
}

// What the search ranks configurations by: costs.hpp's ranking (fits, then the step time), with
// a tie going to the simpler strategy (DP and FSDP rank alike: ZeRO-3 costs DP's comms, A.4 (2)),
// then to less memory per chip, then to more comms headroom.
struct Key {
  bool fits = false;
  double t = 0, mem = 0, ratio = 0;
  int rank = 0;
};

bool better(const Key& a, const Key& b) {
  if (a.fits != b.fits) return a.fits;
  if (!a.fits) return a.mem < b.mem;
  if (!same_time(a.t, b.t)) return a.t < b.t;
  if (a.rank != b.rank) return a.rank < b.rank;
  if (std::fabs(a.mem - b.mem) > kTie * std::max(a.mem, b.mem)) return a.mem < b.mem;
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
      case Term::Ep:
        return Reason::CommsEp;
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

}  // namespace

// ------------------------------------------------------------------ the search

namespace {

// The microbatch steps the search may take, finest first: 1, 4, 16, ... up to the coarsest, 1 and
// 4096 alone.
constexpr int kSteps[] = {4, 16, 64, kMaxMicro};
constexpr int kNumSteps = 4;

// The configurations of one slice's search for each microbatch step, counted without costing
// them (one pass over its assignments).
void count_configs(const Ctx& c, const AxisOpts& opts, long long (&n)[kNumSteps]) {
  for (const AxisOpt& o0 : opts[0]) {
    if (n[kNumSteps - 1] > c.budget) return;  // even the coarsest search passes the bound
    if (!partial_ok(c, o0.y, o0.z)) continue;
    for (const AxisOpt& o1 : opts[1]) {
      if (!partial_ok(c, o0.y * o1.y, o0.z * o1.z)) continue;
      for (const AxisOpt& o2 : opts[2]) {
        const AxisOpt o[3] = {o0, o1, o2};
        const Layout lay = layout_of(c, o);
        if (!allowed(c, lay)) continue;
        int modes[4];
        const long long per = static_cast<long long>(x_modes(c, lay.X, modes)) * kRemats;
        const int limit = micro_limit(c, lay);
        for (int i = 0; i < kNumSteps; ++i) n[i] += per * micro_count(limit, kSteps[i]);
      }
    }
  }
}

// The search's running state: the best plan of each strategy class, and the best of all.
struct Search {
  Ctx& c;
  PlanResult& res;
  std::vector<Plan>* all;
  bool have_best = false;
  Key best_key{};
  std::array<Key, kStrategyClasses> class_key{};

  // One configuration: kept when it beats its class's best.
  void config(int s, const AxisOpt* o, int n_axes, const SplitCosts& k, const ModeCosts& mc, int r,
              int m, int cls, int rank) {
    ++res.configs;
    const int mode = mc.mode;
    const StepCosts t = step_costs(c.lc, k, mc, r, m);
    if (all) all->push_back(make_plan(c, k, s, o, n_axes, mode, r, m));
    const bool fits = t.mem() <= c.h.hbm;
    if (res.has[cls]) {
      // Most configurations lose on fitting or on time: reject those before the tie-breaks.
      const Key& held = class_key[cls];
      if (held.fits && !fits) return;
      if (held.fits == fits && (fits ? t.t_step > held.t * (1 + kTie) : t.mem() >= held.mem))
        return;
    }
    const Key key{fits, t.t_step, t.mem(), comms_ratio(t), rank};
    if (res.has[cls] && !better(key, class_key[cls])) return;
    res.by_strategy[cls] = make_plan(c, k, s, o, n_axes, mode, r, m);
    res.has[cls] = true;
    class_key[cls] = key;
    if (!have_best || better(key, best_key)) {
      res.best = res.by_strategy[cls];
      best_key = key;
      have_best = true;
    }
  }

  // Every X mode, remat policy and microbatch count of one way to factor the axes.
  void assignment(int s, const AxisOpt* o, int n_axes) {
    const Layout lay = layout_of(c, o);
    if (!allowed(c, lay)) return;
    ++res.assignments;
    const SplitCosts k = split_costs(c.lc, c.h, c.B_slice, c.pods, lay);
    const int m_max = micro_limit(c, lay);
    int modes[4];
    const int n_modes = x_modes(c, lay.X, modes);
    for (int i = 0; i < n_modes; ++i) {
      const int mode = modes[i];
      if (ep_mode(mode) && k.ep_degree < 2) continue;
      const int cls = strategy_class(strategy_bits(lay, mode, 1));
      // Simpler plans win ties: fewer kinds of parallelism.
      const int rank = 16 * (lay.Z > 1) + 8 * ep_mode(mode) + 4 * (lay.Y > 1) + (lay.X > 1);
      const ModeCosts mc = mode_costs(c.lc, k, c.state, mode);
      for (int r = 0; r < kRemats; ++r)
        for (long long m = 1; m <= m_max; m *= c.micro_step) {
          if (res.configs >= c.budget) {
            res.cut = true;
            return;
          }
          config(s, o, n_axes, k, mc, r, static_cast<int>(m), cls, rank);
        }
    }
  }

  // Every way to factor each axis of slice s into X, Y and Z.
  void slice(int s, const Slice& sl, const AxisOpts& opts) {
    const int n_axes = static_cast<int>(sl.dims.size());
    for (const AxisOpt& o0 : opts[0]) {
      if (!partial_ok(c, o0.y, o0.z)) continue;
      for (const AxisOpt& o1 : opts[1]) {
        if (!partial_ok(c, o0.y * o1.y, o0.z * o1.z)) continue;
        for (const AxisOpt& o2 : opts[2]) {
          if (res.cut) return;
          const AxisOpt o[3] = {o0, o1, o2};
          assignment(s, o, n_axes);
        }
      }
    }
  }
};

// The options of each axis of each slice.
std::vector<AxisOpts> all_opts(const PlanInput& in, const Ctx& c) {
  if (c.gpu.d_node > 0) return {gpu_axis_opts(c.gpu, in.pipeline)};
  std::vector<AxisOpts> out;
  for (const Slice& sl : in.topo.slices) {
    AxisOpts o;
    const int n = static_cast<int>(sl.dims.size());
    for (int i = 0; i < 3; ++i)
      o[i] = i < n ? axis_opts(sl.dims[i], sl.wrap[i], in.pipeline, c.h)
                   : std::vector<AxisOpt>{AxisOpt{}};
    out.push_back(std::move(o));
  }
  return out;
}

// The microbatch step that keeps the search within its bound (the coarsest when none does), and
// the size of the unbounded search.
// The counting itself stops once even the coarsest search passes the bound: `full` is then a
// lower bound.
int micro_step_for(const Ctx& c, const std::vector<AxisOpts>& opts, long long* full) {
  long long n[kNumSteps] = {};
  for (const AxisOpts& o : opts) count_configs(c, o, n);
  *full = n[0];
  for (int i = 0; i < kNumSteps; ++i)
    if (n[i] <= c.budget) return kSteps[i];
  return kSteps[kNumSteps - 1];
}

}  // namespace

std::string bound_words(const PlanResult& r) {
  std::string s;
  if (r.micro_step > 4) {
    std::string counts;
    for (long long m = 1; m <= kMaxMicro; m *= r.micro_step)
      counts += (counts.empty() ? "" : ", ") + std::to_string(m);
    s = "To stay within its bound of work, the search tried the microbatch counts " + counts +
        " only (the full search has " + (r.cut ? "more than " : "") +
        units::number(static_cast<double>(r.full), 3) + " configurations).";
  }
  if (r.cut)
    s += std::string(s.empty() ? "" : " ") + "It stopped at its bound of " +
         units::number(static_cast<double>(r.configs), 3) +
         " configurations: the best plan is the best of those it reached. Fewer chips, fewer "
         "layers or no pipelining let it search in full.";
  return s;
}

PlanResult plan(const PlanInput& in, std::vector<Plan>* all) {
  Ctx c = make_ctx(in);
  PlanResult res;
  res.pods = in.topo.pods;
  const auto opts = all_opts(in, c);
  c.micro_step = micro_step_for(c, opts, &res.full);
  res.micro_step = c.micro_step;
  const size_t first_all = all ? all->size() : 0;
  Search search{c, res, all};
  for (size_t s = 0; s < in.topo.slices.size() && !res.cut; ++s) {
    search.slice(static_cast<int>(s), in.topo.slices[s], opts[s]);
  }
  if (!search.have_best)
    fail("chips", "no layout of the slice takes this model's heads", "bad_layout");
  res.fits = res.best.fits;
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
  for (int i = 0; i < 3; ++i) {
    const int a = i < n_axes ? sl.dims[i] : 1;
    if (x[i] < 1 || y[i] < 1 || z[i] < 1 || static_cast<long long>(x[i]) * y[i] * z[i] != a)
      fail("layout",
           "axis " + std::to_string(i) + ": " + std::to_string(x[i]) + " x " +
               std::to_string(y[i]) + " x " + std::to_string(z[i]) + " does not make its " +
               std::to_string(a) + " chips",
           "bad_input");
    o[i] = c.gpu.d_node > 0 ? AxisOpt{x[i], y[i], z[i], 0, 0}
                            : axis_opt(x[i], y[i], z[i], a, i < n_axes && sl.wrap[i], c.h);
  }
  const Layout lay = layout_of(c, o);
  if (!lay.valid)
    fail("layout",
         "on a GPU cluster, pipeline stages run across nodes, and TP spans nodes only when it "
         "holds whole nodes and the plan allows it",
         "bad_layout");
  if (lay.Z > c.lc.L) fail("layout", "more pipeline stages than layers", "out_of_range");
  if (lay.Y > 1 && !tp_degree_fits(lay.Y, c.D, c.heads, c.kv))
    fail("layout", "a TP degree of " + tp_degree_misfit(lay.Y, c.D, c.heads, c.kv), "bad_layout");
  if (m < 1 || m > micro_limit(c, lay) || (lay.Z == 1 && m != 1))
    fail("m", "microbatches must be 1 without pipelining, and at most one per token of an X group",
         "out_of_range");
  const SplitCosts k = split_costs(c.lc, c.h, c.B_slice, c.pods, lay);
  const bool ep = (x_mode & kEP) && k.ep_degree >= 2;
  const int mode = lay.X == 1       ? kXNone
                   : (x_mode & kDP) ? (ep ? kXDPEP : kXDP)
                                    : (ep ? kXFSDPEP : kXFSDP);
  Plan p = make_plan(c, k, slice, o, n_axes, mode, remat_index(remat), m);
  p.reason = Reason::Tie;
  return p;
}

}  // namespace sb::training
