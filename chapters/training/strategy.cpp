// One strategy of the chapter (strategy.hpp): its layout, its collectives in the chapter's order,
// the chapter's conditions, and its times and memory from costs.hpp.
#include "chapters/training/strategy.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "core/units.hpp"

namespace sb::training {

namespace tf = transformers;

const char* strategy_label(Strategy s) {
  switch (s) {
    case Strategy::DP:
      return "DP";
    case Strategy::FSDP:
      return "FSDP";
    case Strategy::TP:
      return "TP";
    case Strategy::FSDP_TP:
      return "FSDP+TP";
    case Strategy::Pipeline:
      return "pipeline";
    case Strategy::DCN:
      return "DP over DCN";
  }
  return "?";
}

namespace {

std::string num_text(double v) { return units::number(v, 10); }
bool whole(double v) { return v == std::floor(v); }

void positive(double v, const char* field, const std::string& what) {
  if (!(v > 0) || !std::isfinite(v)) fail(field, what, "out_of_range");
}

// The inputs every strategy needs; InputError naming the field.
void check_input(Strategy st, const StrategyInput& in) {
  positive(in.N, "chips", "the chip count must be positive");
  if (!whole(in.N) || in.N > 1e8)
    fail("chips", "the chip count must be a whole number, got " + num_text(in.N), "out_of_range");
  const bool gpu = in.gpu.d_node > 0;
  if (!gpu && !(in.axes >= 1 && in.axes <= 3))
    fail("axes", "a TPU slice has 1 to 3 ICI axes, got " + num_text(in.axes), "out_of_range");
  if (gpu && st == Strategy::DCN)
    fail("strategy",
         "DP over DCN joins TPU pods; a GPU cluster's nodes already share one fat tree, "
         "which DP and FSDP span, and the chapter joins no clusters over a DCN. Pick DP or FSDP, "
         "or a TPU",
         "bad_choice");
  for (double v : {in.hw.C, in.hw.W_ici, in.hw.hbm, in.hw.W_hbm, in.hw.w_uni})
    positive(v, "chip", "the chip needs a peak, ICI and HBM bandwidths and an HBM size");
  const double pods = st == Strategy::DCN ? in.pods : 1;
  if (st == Strategy::DCN) {
    if (!(pods >= 2) || !whole(pods) || pods > 1e4)
      fail("pods", "DP across pods needs a whole number of pods, from 2 to 10,000", "out_of_range");
    positive(in.hw.W_dcn, "chip", "the chip has no DCN bandwidth in the tables");
  }
  const double chips = in.N * pods;
  if (!(in.B >= chips) || !std::isfinite(in.B) || in.B > 1e15)
    fail("B",
         "the batch (" + num_text(in.B) + " tokens) is smaller than the chip count (" +
             num_text(chips) + "): every chip needs at least one token",
         "out_of_range");
}

// The weight matrices of the chapter's layer, in forward order, and their gradients.
struct Mats {
  const char* const* w;
  const char* const* dw;
  int n;
};
Mats mats_of(double n_mats) {
  static const char* const w2[] = {"W_in", "W_out"};
  static const char* const dw2[] = {"dW_in", "dW_out"};
  static const char* const w3[] = {"W_in1", "W_in2", "W_out"};
  static const char* const dw3[] = {"dW_in1", "dW_in2", "dW_out"};
  return n_mats == 3 ? Mats{w3, dw3, 3} : Mats{w2, dw2, 2};
}

// FSDP's collectives per layer (A.4 (2), (4)): each weight's Y shard gathered over X forward;
// backward, from the last matrix down, the gradient reduce-scattered and the weight gathered again.
void fsdp_collectives(const LayerCosts& lc, double n, const Split& s, const Hardware& h,
                      std::vector<Collective>& out) {
  const Mats m = mats_of(n);
  const double V = lc.w_bytes / n / s.Y;
  const double t = t_weight_gather(V * s.Y, s.Y, s.M_X, h);
  for (int i = 0; i < m.n; ++i) out.push_back({"forward", "AllGather", m.w[i], "X", V, t, false});
  for (int i = m.n - 1; i >= 0; --i) {
    out.push_back({"backward", "ReduceScatter", m.dw[i], "X", V, t, false});
    out.push_back({"backward", "AllGather", m.w[i], "X", V, t, false});
  }
}

// TP's collectives per layer (A.4 (3), (4)): In gathered and Out reduce-scattered over Y forward;
// dOut gathered and dIn reduce-scattered backward (the forward gather of In is reused). Each moves
// the X shard of the activations, 2 B D / X bytes.
void tp_collectives(const LayerCosts& lc, double B, const Split& s, const Hardware& h,
                    std::vector<Collective>& out) {
  const double V = lc.row * B / s.X;
  const double t = t_act_gather_scatter(V * s.X, s.X, s.M_Y, h) / 2;
  out.push_back({"forward", "AllGather", "In", "Y", V, t, true});
  out.push_back({"forward", "ReduceScatter", "Out", "Y", V, t, true});
  out.push_back({"backward", "AllGather", "dOut", "Y", V, t, true});
  out.push_back({"backward", "ReduceScatter", "dIn", "Y", V, t, true});
}

// The gradient all-reduce of each weight matrix, over X (DP) or across pods (DCN), backward.
void allreduce_collectives(const LayerCosts& lc, double n, const Split& s, bool dcn,
                           const Hardware& h, std::vector<Collective>& out) {
  const Mats m = mats_of(n);
  const double V = lc.w_bytes / n;
  const double t = dcn ? t_grad_allreduce_dcn(V, s.X * s.Y, h) : t_grad_allreduce(V, 1, s.M_X, h);
  for (int i = m.n - 1; i >= 0; --i)
    out.push_back({"backward", "AllReduce", m.dw[i], dcn ? "DCN" : "X", V, t, false});
}

// The collectives in the chapter's order: forward, In gathered over Y, the weights over X, Out
// scattered over Y; backward, dOut gathered over Y, the weights' reductions and gathers over X,
// dIn scattered over Y; then the all-reduces.
void collectives(Strategy st, const LayerCosts& lc, double n, double B_pod, const StrategyCost& c,
                 const Hardware& h, std::vector<Collective>& out) {
  std::vector<Collective> tp, fsdp;
  const Split& s = c.split;
  if (s.Y > 1) tp_collectives(lc, B_pod / c.m, s, h, tp);
  if (s.X > 1 && s.x_mode == XMode::FSDP) fsdp_collectives(lc, n, s, h, fsdp);
  for (const char* phase : {"forward", "backward"}) {
    const auto in_phase = [&](const Collective& k) { return std::string_view(k.phase) == phase; };
    std::vector<Collective> t;
    std::copy_if(tp.begin(), tp.end(), std::back_inserter(t), in_phase);
    if (!t.empty()) out.push_back(t.front());
    std::copy_if(fsdp.begin(), fsdp.end(), std::back_inserter(out), in_phase);
    if (t.size() > 1) out.push_back(t.back());
  }
  if (s.X > 1 && s.x_mode == XMode::DP) allreduce_collectives(lc, n, s, false, h, out);
  if (st == Strategy::DCN) allreduce_collectives(lc, n, s, true, h, out);
  if (st == Strategy::Pipeline) {
    const double V = lc.row * B_pod / c.m / s.X;
    out.push_back({"forward", "copy", "Out", "next stage", V, c.hop, true});
    out.push_back({"backward", "copy", "dIn", "previous stage", V, c.hop, true});
  }
}

}  // namespace

namespace {

double alpha_of(const StrategyInput& in) { return alpha_ici(in.hw); }

// The reader's TP degree, checked: a whole number that divides the chips, which the model takes.
double reader_y(const StrategyInput& in, const tf::Config& cfg) {
  if (!(in.Y >= 1) || !whole(in.Y) || !whole(in.N / in.Y))
    fail("Y",
         "the TP degree Y must be a whole number that divides the " + num_text(in.N) +
             " chips, got " + num_text(in.Y),
         "out_of_range");
  if (!tp_degree_fits(in.Y, cfg.D, cfg.N, cfg.K))
    fail("Y", "a TP degree of " + tp_degree_misfit(in.Y, cfg.D, cfg.N, cfg.K), "bad_layout");
  return in.Y;
}

// FSDP + TP (and DCN with Y > 1): TP over M_Y of the axes, FSDP over the rest; Y the reader's
// (dividing the chips and the model's heads) or the chapter's recipe, on a sub-slice when no
// power-of-two split uses every chip. DCN with Y = 1: FSDP alone inside each pod.
void mixed_layout(Strategy st, const StrategyInput& in, const tf::Config& cfg, const Layer& l,
                  StrategyCost& c) {
  const double pods = st == Strategy::DCN ? in.pods : 1, B_pod = in.B / pods;
  const bool two_d = st == Strategy::FSDP_TP || in.Y != 1;
  const double M_Y = two_d ? in.M_Y : 0, M_X = in.axes - M_Y;
  if (two_d && !(M_Y > 0 && M_X > 0))
    fail("M_Y",
         "TP takes some of the " + num_text(in.axes) +
             " axes and FSDP the rest: M_Y must lie strictly between 0 and the axes",
         "out_of_range");
  if (!two_d) {
    c.split = {in.N, 1, M_X, 0, XMode::FSDP, pods};
    return;
  }
  c.x_opt = x_opt(B_pod, l.F, in.N, M_X, M_Y);
  c.window = x_window(B_pod, l.F, in.N, alpha_of(in), M_X, M_Y);
  if (in.Y == 0) {
    c.recipe = mixed_recipe(c.x_opt, in.N, cfg.D, cfg.N, cfg.K);
    c.from_recipe = true;
  } else {
    c.recipe = {in.N / reader_y(in, cfg), in.Y, in.N, 0};
  }
  c.split = {c.recipe.X, c.recipe.Y, M_X, M_Y, XMode::FSDP, pods};
}

// The layout of each strategy on the reader's chips.
void layout_of(Strategy st, const StrategyInput& in, const tf::Config& cfg, const Layer& l,
               StrategyCost& c) {
  switch (st) {
    case Strategy::DP:
    case Strategy::FSDP:
      c.split = {in.N, 1, in.axes, 0, st == Strategy::DP ? XMode::DP : XMode::FSDP, 1};
      return;
    case Strategy::TP:
      if (!tp_degree_fits(in.N, cfg.D, cfg.N, cfg.K))
        fail("chips", "TP over every chip: " + tp_degree_misfit(in.N, cfg.D, cfg.N, cfg.K),
             "bad_layout");
      c.split = {1, in.N, 0, in.axes, XMode::FSDP, 1};
      return;
    case Strategy::Pipeline: {
      const double Z = in.Z, m = in.m;
      if (!(Z >= 1) || !whole(Z) || Z > cfg.L || !whole(in.N / Z))
        fail("Z",
             "the stages must be a whole number that divides the " + num_text(in.N) +
                 " chips and is at most the " + num_text(cfg.L) + " layers, got " + num_text(Z),
             "out_of_range");
      const double X = in.N / Z;
      if (!(m >= 1) || !whole(m) || m > 4096 || in.B / m < X)
        fail("m",
             "the microbatches must be a whole number up to 4096 with at least one token per chip "
             "of a stage (at most " +
                 num_text(std::min(4096.0, std::floor(in.B / X))) + ")",
             "out_of_range");
      c.split = {X, 1, in.axes, 0, XMode::FSDP, 1};
      c.Z = Z, c.m = m;
      return;
    }
    case Strategy::FSDP_TP:
    case Strategy::DCN:
      mixed_layout(st, in, cfg, l, c);
      return;
  }
}

// On a GPU cluster: the torus's degrees, with M_X and M_Y from where each group lies
// (planner_gpu.cpp). FSDP + TP takes the reader's Y or the gpus chapter's (TP inside the node,
// under F / alpha), and X_opt and the window on that layout's bandwidths.
void gpu_layout_of(Strategy st, const StrategyInput& in, const tf::Config& cfg, const Layer& l,
                   StrategyCost& c) {
  if (st == Strategy::FSDP_TP) {
    const double Y = in.Y == 0 ? gpu_tp_degree(in.gpu, in.N, l.F, alpha_of(in), cfg.D, cfg.N, cfg.K)
                               : reader_y(in, cfg);
    c.recipe = {in.N / Y, Y, in.N, 0};
    c.from_recipe = in.Y == 0;
    c.split = {in.N / Y, Y, 0, 0, XMode::FSDP, 1};
  } else {
    layout_of(st, in, cfg, l, c);
  }
  const GpuAxes a = gpu_axes(in.gpu, c.split.Y, c.Z, st == Strategy::TP ? "chips" : "Y", "Z");
  c.split.M_X = a.M_X, c.split.M_Y = a.M_Y;
  if (st == Strategy::FSDP_TP && a.M_X > 0 && a.M_Y > 0) {
    c.x_opt = x_opt(in.B, l.F, in.N, a.M_X, a.M_Y);
    c.window = x_window(in.B, l.F, in.N, alpha_of(in), a.M_X, a.M_Y);
  }
}

// The layout's times and memory from costs.hpp, with the remat policy the planner would pick: the
// fastest that fits, else the one with the least memory.
void evaluate(const StrategyInput& in, const LayerCosts& lc, StrategyCost& c) {
  const Split& s = c.split;
  Layout lay;
  lay.X = static_cast<int>(s.X), lay.Y = static_cast<int>(s.Y), lay.Z = static_cast<int>(c.Z);
  lay.M_X = s.M_X, lay.M_Y = s.M_Y;
  const double B_pod = in.B / s.pods;
  const SplitCosts k = split_costs(lc, in.hw, B_pod, s.pods, lay);
  const int mode = s.X > 1 ? (s.x_mode == XMode::DP ? kXDP : kXFSDP) : kXNone;
  const int m = static_cast<int>(c.m);
  int best = 0;
  StepCosts t = step_costs(lc, k, in.state, mode, 0, m);
  for (int r = 1; r < kRemats; ++r) {
    const StepCosts o = step_costs(lc, k, in.state, mode, r, m);
    if (ranks_before({o.mem() <= in.hw.hbm, o.t_step, o.mem()},
                     {t.mem() <= in.hw.hbm, t.t_step, t.mem()}))
      t = o, best = r;
  }
  c.remat = kRematOrder[best];
  c.t.fwd = Phase{t.math_f, t.fsdp_f, t.tp, 0, 0, t.hbm_f, t.ep};
  c.t.bwd = Phase{t.math_b, t.fsdp_b, t.tp, t.dp_b, t.dcn_b, t.hbm_b, t.ep};
  const double chips = s.X * s.Y * c.Z;
  c.per_chip_batch = in.B / (chips * s.pods);
  c.step = t.t_step;
  c.mfu = 3 * lc.flops * lc.L * B_pod / (t.t_step * chips * in.hw.C);
  c.hop = t.hop;
  c.stage_math = k.Ls * (t.math_f + t.math_b);
  if (c.Z > 1) c.bubble = pipeline_bubble(c.Z, c.m);
  c.memory = memory_bar(t);
  c.mem = t.mem();
  c.fits = c.mem <= in.hw.hbm;
  c.compute_bound = compute_bound(t, k);
  c.timeline = timeline(t, k, m);
}

// The chapter's closed forms for the strategy (A.4), on the chapter's layer.
void conditions_of(Strategy st, const StrategyInput& in, const Layer& l, StrategyCost& c) {
  const double alpha = alpha_of(in), F = l.F;
  const Split& s = c.split;
  const double B_pod = in.B / s.pods, used = s.X * s.Y;
  auto& out = c.conditions;
  if (st == Strategy::DP || st == Strategy::FSDP || (st == Strategy::DCN && s.Y == 1))
    out.push_back({"B/N > alpha / M_X", "$B/N > \\alpha / M_X$", "tokens", B_pod / used,
                   dp_min_batch_per_chip(alpha, s.M_X)});
  if (st == Strategy::TP)
    out.push_back({"Y < M_Y F / alpha", "$Y < M_Y F / \\alpha$", "count", s.Y,
                   tp_max_degree(F, alpha, s.M_Y), true});
  // A GPU cluster's FSDP + TP on one node may leave no data axis (M_X = 0): TP's bound alone.
  const bool mixed = st == Strategy::FSDP_TP || st == Strategy::DCN;
  if (mixed && s.M_Y > 0 && !(s.M_X > 0))
    out.push_back({"Y < M_Y F / alpha", "$Y < M_Y F / \\alpha$", "count", s.Y,
                   tp_max_degree(F, alpha, s.M_Y), true});
  if (mixed && s.M_Y > 0 && s.M_X > 0) {
    out.push_back({"B/N > alpha^2 / (M_X M_Y F)", "$B/N > \\alpha^2 / (M_X M_Y F)$", "tokens",
                   B_pod / used, mixed_min_batch_per_chip(alpha, F, s.M_X, s.M_Y)});
    out.push_back({"B/X > alpha / M_X", "$B/X > \\alpha / M_X$", "tokens", B_pod / s.X,
                   dp_min_batch_per_chip(alpha, s.M_X)});
    out.push_back({"Y < M_Y F / alpha", "$Y < M_Y F / \\alpha$", "count", s.Y,
                   tp_max_degree(F, alpha, s.M_Y), true});
  }
  if (st == Strategy::DCN)
    out.push_back({"B/pods > alpha_dcn", "$B/\\mathrm{pods} > \\alpha_{dcn}$", "tokens", B_pod,
                   alpha_dcn(in.hw)});
  if (st == Strategy::Pipeline) {
    out.push_back({"B/(m X) > alpha / M_X", "$B/(m X) > \\alpha / M_X$", "tokens", in.B / c.m / s.X,
                   dp_min_batch_per_chip(alpha, s.M_X)});
    out.push_back({"T_hop < T_stage (one microbatch)", "$T_{hop} < T_{stage}$ (one microbatch)",
                   "s", c.hop, c.stage_math, true});
  }
}

}  // namespace

StrategyCost strategy_cost(Strategy st, const StrategyInput& in) {
  check_input(st, in);
  const tf::Config cfg = tf::validated(in.model);
  const Layer l = layer_of(cfg, in.book_mlp);
  LayerChoice choice;
  choice.book_mlp = in.book_mlp;
  const LayerCosts lc = layer_costs(cfg, choice);
  StrategyCost c;
  c.strategy = st;
  if (in.gpu.d_node > 0)
    gpu_layout_of(st, in, cfg, l, c);
  else
    layout_of(st, in, cfg, l, c);
  evaluate(in, lc, c);
  conditions_of(st, in, l, c);
  collectives(st, lc, l.n_mats, in.B / c.split.pods, c, in.hw, c.collectives);
  return c;
}

}  // namespace sb::training
