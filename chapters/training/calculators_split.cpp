// training.split: FSDP x TP on N chips (A.4 (4)): X_opt, the window of X that keeps both comm
// terms under the math (or why there is none), the per-chip floor, the chapter's recipe (X_opt
// rounded to a power of two, Y the largest TP degree the model takes, on a sub-slice when some
// chips must idle), and each forward term against X.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "chapters/gpus/llm.hpp"
#include "chapters/training/calculators.hpp"

namespace sb::training::calc {
namespace {

// FSDP over M_X axes and TP over M_Y of N chips at batch B. On a GPU cluster the M's are those of
// the gpus chapter's layout (TP inside the node: Y_gpu), where each group lies.
struct SplitRun {
  Layer l;
  tf::Config cfg;
  Hardware h;
  Machine mc;
  double N = 0, B = 0, M_X = 0, M_Y = 0, alpha = 0;
  double Y_gpu = 0;  // a GPU cluster's TP degree (gpu_tp_degree); 0 on a TPU
};

bool on_gpu(const SplitRun& u) { return u.mc.gpu.d_node > 0; }

// The closed forms' M_X and M_Y on a GPU cluster: those of the recipe's layout (gpu_mixed_axes).
void gpu_axes_of(SplitRun& u) {
  const GpuCluster& g = u.mc.gpu;
  u.Y_gpu = gpu_tp_degree(g, u.N, u.l.F, u.alpha, u.cfg.D, u.cfg.N, u.cfg.K);
  const GpuAxes a = gpu_mixed_axes(g, u.Y_gpu);
  u.M_X = a.M_X, u.M_Y = a.M_Y;
}

SplitRun split_run(const Inputs& in) {
  SplitRun u;
  u.mc = machine_of(in);
  u.h = u.mc.h;
  u.cfg = config_of(in);
  u.l = layer_of(u.cfg, book_mlp(in));
  u.N = u.mc.N;
  u.B = in.num("B");
  u.alpha = alpha_ici(u.h);
  if (on_gpu(u)) {
    gpu_axes_of(u);
  } else {
    u.M_Y = in.num("M_Y");
    u.M_X = u.mc.axes - u.M_Y;
    if (!(u.M_X > 0))
      fail("M_Y", "TP takes M_Y of the " + n_text(u.mc.axes) + " axes and FSDP the rest",
           "out_of_range");
  }
  if (!(u.B >= u.N))
    fail("B",
         "the batch (" + n_text(u.B) + " tokens) is smaller than the chip count (" + n_text(u.N) +
             ")",
         "out_of_range");
  return u;
}

// A layout's split: on a GPU cluster with its own M's (gpu_axes), on a torus the run's.
Split split_at(const SplitRun& u, double X, double Y) {
  if (!on_gpu(u)) return {X, Y, u.M_X, u.M_Y, XMode::FSDP, 1};
  const GpuAxes a = gpu_axes(u.mc.gpu, Y, 1);
  return {X, Y, a.M_X, a.M_Y, XMode::FSDP, 1};
}

// The X of every layout a GPU cluster holds: TP on a divisor of the node or on whole nodes, a
// degree the model takes.
std::vector<std::pair<double, bool>> gpu_layout_xs(const SplitRun& u) {
  const GpuCluster& g = u.mc.gpu;
  std::vector<std::pair<double, bool>> xs;
  for (double Y = 1; Y <= u.N; ++Y) {
    const bool placed = Y <= g.d_node
                            ? std::fmod(g.d_node, Y) == 0
                            : std::fmod(Y, g.d_node) == 0 && std::fmod(g.nodes, Y / g.d_node) == 0;
    if (placed && tp_degree_fits(Y, u.cfg.D, u.cfg.N, u.cfg.K)) xs.push_back({u.N / Y, true});
    if (Y >= g.d_node) Y += g.d_node - 1;  // beyond the node, whole nodes only
  }
  return xs;
}

// Each forward term against X, log-spaced from 1 to N with Y = N / X real as in the chapter, and
// at the layouts the mesh can hold (X = N / Y for a TP degree Y the model takes), X_opt and the
// chapter's X; `layout` marks the layouts.
json split_plot(const SplitRun& u, double xo, const XWindow& w, const Recipe& rc) {
  std::vector<std::pair<double, bool>> xs;
  const int points = 41;
  if (on_gpu(u)) {
    xs = gpu_layout_xs(u);  // M_X and M_Y change with the layout: the layouts alone
  } else {
    for (int i = 0; i < points; ++i) xs.push_back({std::pow(u.N, double(i) / (points - 1)), false});
    for (double Y = 1; Y <= u.N && xs.size() < points + 64; ++Y)
      if (std::fmod(u.N, Y) == 0 && tp_degree_fits(Y, u.cfg.D, u.cfg.N, u.cfg.K))
        xs.push_back({u.N / Y, true});
    for (double X : {xo, rc.X})
      if (X >= 1 && X <= u.N) xs.push_back({X, false});
  }
  std::sort(xs.begin(), xs.end());
  json x = json::array(), fsdp = json::array(), tp = json::array(), math = json::array(),
       layout = json::array();
  for (const auto& [X, is_layout] : xs) {
    const LayerTimes t = layer_times(u.l, u.B, split_at(u, X, u.N / X), u.h);
    x.push_back(X);
    fsdp.push_back(t.fwd.fsdp);
    tp.push_back(t.fwd.tp);
    math.push_back(t.fwd.math);
    layout.push_back(is_layout);
  }
  return {{"x", std::move(x)},
          {"fsdp", std::move(fsdp)},
          {"tp", std::move(tp)},
          {"math", std::move(math)},
          {"layout", std::move(layout)},
          {"x_opt", xo},
          {"lo", w.lo},
          {"hi", w.hi},
          {"X", rc.X},
          {"Y", rc.Y},
          {"used", rc.used},
          {"idle", rc.idle}};
}

void split_values(const SplitRun& u, double xo, const XWindow& w, double floor, const Recipe& rc,
                  const LayerTimes& t, Result& r) {
  r.value("x_opt", xo, "count", "X_opt");
  r.value("y_opt", u.N / xo, "count", "Y at X_opt");
  r.value("x_min", w.lo, "count", "smallest compute-bound X");
  r.value("x_max", w.hi, "count", "largest compute-bound X");
  r.value("per_chip_batch", u.B / u.N, "tokens", "batch per chip B/N");
  r.value("min_batch_per_chip", floor, "tokens", "per-chip floor alpha^2/(M_X M_Y F)");
  r.value("ratio_at_opt", mixed_ratio(u.B, u.l.F, u.N, u.alpha, u.M_X, u.M_Y), "ratio",
          "T_math / T_comms at X_opt");
  r.value("X", rc.X, "count",
          on_gpu(u) ? "X: FSDP over the GPUs TP leaves"
                    : "X: X_opt rounded to a power of two, as the chapter does");
  r.value("Y", rc.Y, "count",
          on_gpu(u) ? "Y: TP inside a node, the largest degree under F / alpha"
                    : "Y: the largest TP degree the model takes");
  r.value("chips_used", rc.used, "chips", "chips the split uses");
  r.value("idle_chips", rc.idle, "chips", "chips left idle");
  r.value("t_math", t.fwd.math, "s", "forward T_math per layer");
  r.value("t_fsdp", t.fwd.fsdp, "s", "forward FSDP gathers per layer");
  r.value("t_tp", t.fwd.tp, "s", "forward TP collectives per layer");
  r.value("compute_bound", t.fwd.compute_bound() ? 1 : 0, "bool", "compute-bound at X, Y");
}

}  // namespace

// On a GPU cluster: the intensity over NVLink, the gpus chapter's TP degree and the layout's M's.
void gpu_split_trace(const SplitRun& u, Trace& tr) {
  tr.step("NVLink intensity (W_GPU inside a node)", gpus::kAlpha, {u.h.C, u.h.W_ici});
  tr.step("The largest TP degree that stays compute-bound inside a node", gpus::kTpMax,
          {u.l.F, u.alpha});
  tr.value("M_X: the data axis' AllGather bandwidth over NVLink's, at the layout", u.M_X, "count");
  tr.value("M_Y: TP's AllGather bandwidth over NVLink's, at the layout", u.M_Y, "count");
}

// The GPU cluster's notes: its nodes, a snapped count, and where the recipe comes from.
void gpu_split_notes(const SplitRun& u, Result& r) {
  r.note(gpu_words(u.mc));
  if (!u.mc.snapped.empty()) r.note(u.mc.snapped);
  r.note(
      "On a GPU cluster M_X and M_Y change with the layout, so the closed forms hold at the "
      "recipe's layout and the plot shows the layouts the cluster holds, each at its own "
      "bandwidths. The recipe is the gpus chapter's (A.5 (2)): TP on NVLink inside a node, the "
      "largest degree under F / alpha that the node and the model take, FSDP over the rest.");
}

void split_calc(const Inputs& in, Trace& tr, Result& r) {
  const SplitRun u = split_run(in);
  const double N = u.N, B = u.B, F = u.l.F, M_X = u.M_X, M_Y = u.M_Y, alpha = u.alpha;
  if (on_gpu(u))
    gpu_split_trace(u, tr);
  else
    tr.step("ICI intensity", kAlpha, {u.h.C, u.h.W_ici});
  const double xo = tr.step("Optimal FSDP degree", kXOpt, {B, F, M_X, M_Y, N});
  const XWindow w{tr.step("Smallest compute-bound X (TP term)", kXWindowLo, {N, alpha, F, M_Y}),
                  tr.step("Largest compute-bound X (FSDP term)", kFsdpMaxChips, {B, M_X, alpha})};
  const double floor = tr.step("Per-chip batch floor", kMixedFloor, {alpha, M_X, M_Y, F});
  Recipe rc{N / u.Y_gpu, u.Y_gpu, N, 0};
  if (!on_gpu(u)) {
    tr.step("$X_{opt}$ rounded to a power of two, as the chapter does", kRoundPow2, {xo});
    rc = mixed_recipe(xo, N, u.cfg.D, u.cfg.N, u.cfg.K);
  }
  const LayerTimes t = layer_times(u.l, B, split_at(u, rc.X, rc.Y), u.h);
  split_values(u, xo, w, floor, rc, t, r);
  if (on_gpu(u))
    gpu_split_notes(u, r);
  else
    r.note("The chapter's recipe: " + recipe_words(rc, xo) + ".");
  r.note(w.empty() ? "No compute-bound split: " + window_words(w, B / N, floor) + "."
                   : "The window: " + window_words(w, B / N, floor) + ".");
  r.extra["verdict"] =
      "X = " + n_text(rc.X) + ", Y = " + n_text(rc.Y) +
      (rc.idle > 0 ? " on " + units::format(rc.used, "chips") + " (" + n_text(rc.idle) + " idle)"
                   : "") +
      ": " + (t.fwd.compute_bound() ? "compute-bound" : "comms-bound") +
      (w.empty() ? "; no X is compute-bound on all " + units::format(N, "chips")
                 : "; every X from " + n_text(w.lo) + " to " + n_text(w.hi) + " is compute-bound");
  r.extra["plot"] = split_plot(u, xo, w, rc);
}

}  // namespace sb::training::calc
