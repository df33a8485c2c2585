// Part 5: the equations of model.hpp, built on the transformers (FLOPs, memory), sharding
// (collective times) and roofline (T_math, intensities) models.
#include "chapters/training/model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "chapters/roofline/model.hpp"
#include "chapters/sharding/model.hpp"
#include "chapters/tpus/model.hpp"
#include "chapters/transformers/model.hpp"
#include "chapters/transformers/model_input.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"

namespace sb::training {

namespace tf = transformers;

// ------------------------------------------------------------------ A.1

Hardware hardware_of(const hw::Chip& chip, std::string_view dtype, std::string_view field) {
  Hardware h;
  h.C = chip.peak(dtype, field);
  h.w_uni = chip.get("ici_bw_oneway", field);
  h.W_ici = tpus::axis_bw(h.w_uni, true);
  h.W_dcn = chip.has("dcn_bw") ? chip.get("dcn_bw", field) : 0;
  h.W_hbm = chip.get("hbm_bw", field);
  h.hbm = chip.get("hbm_bytes", field);
  return h;
}

double alpha_ici(const Hardware& h) { return roofline::critical_intensity(h.C, h.W_ici); }
double alpha_dcn(const Hardware& h) { return roofline::critical_intensity(h.C, h.W_dcn); }
double w_dcn_per_chip(double host_bw, double chips_per_host) { return host_bw / chips_per_host; }

// ------------------------------------------------------------------ the model trained

tf::Config model_config(std::string_view id, const ModelFields& f) {
  tf::ModelFields t;
  t.L = f.L;
  t.D = f.D;
  t.F = f.F;
  t.N = f.N;
  t.K = f.K;
  t.H = f.H;
  t.V = f.V;
  return tf::choose_model(id, t).config;
}

// ------------------------------------------------------------------ A.2

Layer layer_of(const tf::Config& c) {
  return {c.D, tf::mlp_width_per_token(c), c.gated ? 3.0 : 2.0};
}

double layer_flops_fwd(const Layer& l, double B) {
  return l.n_mats * tf::matmul_flops(B, l.D, l.F, tf::Pass::Forward);
}
double layer_flops_bwd(const Layer& l, double B) {
  return l.n_mats * tf::matmul_flops(B, l.D, l.F, tf::Pass::Backward);
}
double layer_weight_bytes(const Layer& l, double b) {
  return tf::param_bytes(l.n_mats * l.D * l.F, b);
}
double activation_row_bytes(const Layer& l, double b) { return b * l.D; }

// ------------------------------------------------------------------ A.3, A.4

double Phase::comms() const { return std::max({fsdp, tp, dp, dcn}); }
double Phase::time() const { return roofline::t_lower(math, comms()); }
bool Phase::compute_bound() const {
  return roofline::verdict(math, comms()) == roofline::Bound::Compute;
}

double t_math_fwd(const Layer& l, double B, double chips, const Hardware& h) {
  return roofline::t_math(layer_flops_fwd(l, B) / chips, h.C);
}

double t_weight_gather(double weight_bytes, double Y, double M_X, const Hardware& h) {
  return sharding::t_allgather_multi(weight_bytes / Y, M_X, h.W_ici);
}

double t_act_gather_scatter(double act_bytes, double X, double M_Y, const Hardware& h) {
  // The AllGather and the ReduceScatter move the same bytes.
  return 2 * sharding::t_allgather_multi(act_bytes / X, M_Y, h.W_ici);
}

double t_grad_allreduce(double weight_bytes, double Y, double M_X, const Hardware& h) {
  return sharding::t_allreduce_from_ag(sharding::t_allgather_multi(weight_bytes / Y, M_X, h.W_ici));
}

double t_grad_allreduce_dcn(double weight_bytes, double chips_per_pod, const Hardware& h) {
  // Each of the pod's M chips reduces its 1/M of the gradients over its own DCN link: the
  // all-gather formula with M lanes of W_dcn.
  return sharding::t_allreduce_from_ag(
      sharding::t_allgather_multi(weight_bytes, chips_per_pod, h.W_dcn));
}

double t_pipeline_hop(double act_bytes, double Y, const Hardware& h) {
  return roofline::t_comms(act_bytes / Y, h.w_uni);
}

double pipeline_slots(double Z, double m) { return m + Z - 1; }
double pipeline_in_flight(double Z, double m) { return std::min(m, Z) / m; }
double pipeline_bubble(double Z, double m) { return (Z - 1) / pipeline_slots(Z, m); }

double t_fsdp_fwd(const Layer& l, double Y, double M_X, const Hardware& h) {
  return t_weight_gather(layer_weight_bytes(l), Y, M_X, h);
}

double t_tp_fwd(const Layer& l, double B, double X, double M_Y, const Hardware& h) {
  return t_act_gather_scatter(activation_row_bytes(l) * B, X, M_Y, h);
}

double t_dp_bwd(const Layer& l, double Y, double M_X, const Hardware& h) {
  return t_grad_allreduce(layer_weight_bytes(l), Y, M_X, h);
}

double t_dcn_bwd(const Layer& l, double chips_per_pod, const Hardware& h) {
  return t_grad_allreduce_dcn(layer_weight_bytes(l), chips_per_pod, h);
}

LayerTimes layer_times(const Layer& l, double B, const Split& s, const Hardware& h) {
  LayerTimes t;
  const double chips = s.X * s.Y;
  const double B_pod = B / s.pods;
  t.fwd.math = t_math_fwd(l, B_pod, chips, h);
  t.bwd.math = 2 * t.fwd.math;
  if (s.X > 1 && s.x_mode == XMode::FSDP) {
    t.fwd.fsdp = t_fsdp_fwd(l, s.Y, s.M_X, h);
    t.bwd.fsdp = 2 * t.fwd.fsdp;
  }
  if (s.X > 1 && s.x_mode == XMode::DP) t.bwd.dp = t_dp_bwd(l, s.Y, s.M_X, h);
  if (s.Y > 1) t.fwd.tp = t.bwd.tp = t_tp_fwd(l, B_pod, s.X, s.M_Y, h);
  if (s.pods > 1) t.bwd.dcn = t_dcn_bwd(l, chips, h);
  return t;
}

double dp_min_batch_per_chip(double alpha, double M_X) { return alpha / M_X; }
double fsdp_max_chips(double B, double alpha, double M_X) {
  return B / dp_min_batch_per_chip(alpha, M_X);
}
double tp_max_degree(double F, double alpha, double M_Y) { return M_Y * F / alpha; }
double tp_min_F(double Y, double alpha, double M_Y) { return Y * alpha / M_Y; }
double mixed_min_batch_per_chip(double alpha, double F, double M_X, double M_Y) {
  return alpha * alpha / (M_X * M_Y * F);
}
double mixed_min_batch_per_chip_additive(double alpha, double F, double M_X, double M_Y) {
  // X alpha / (M_X B) + Y alpha / (M_Y F) < 1 is easiest where both terms are 1/2: at the
  // optimum each term is twice the overlapped model's, so the floor is four times higher.
  return 4 * mixed_min_batch_per_chip(alpha, F, M_X, M_Y);
}
double mixed_min_batch(double N, double alpha, double F, double M_X, double M_Y) {
  return N * mixed_min_batch_per_chip(alpha, F, M_X, M_Y);
}
double mixed_max_chips(double B, double alpha, double F, double M_X, double M_Y) {
  return B / mixed_min_batch_per_chip(alpha, F, M_X, M_Y);
}
double x_opt(double B, double F, double N, double M_X, double M_Y) {
  return std::sqrt(B / F * (M_X / M_Y) * N);
}
XWindow x_window(double B, double F, double N, double alpha, double M_X, double M_Y) {
  // Lower end: Y = N/X below the TP limit; upper end: B/X above the FSDP floor.
  return {N / tp_max_degree(F, alpha, M_Y), fsdp_max_chips(B, alpha, M_X)};
}
double mixed_ratio(double B, double F, double N, double alpha, double M_X, double M_Y) {
  return std::sqrt(B * F * M_X * M_Y) / (alpha * std::sqrt(N));
}
bool dcn_compute_bound(double B, double pods, const Hardware& h) { return B / pods > alpha_dcn(h); }

double round_pow2(double x) { return std::exp2(std::round(std::log2(x))); }

double round_split(double x, double N) {
  double best = 1, best_dist = std::fabs(std::log(x));
  const long long n = static_cast<long long>(N);
  for (long long d = 1; d * d <= n; ++d) {
    if (n % d) continue;
    for (double c : {static_cast<double>(d), static_cast<double>(n / d)}) {
      const double dist = std::fabs(std::log(c / x));
      if (dist < best_dist) best = c, best_dist = dist;
    }
  }
  return best;
}

// ------------------------------------------------------------------ A.4 one strategy, whole

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

bool StrategyCost::compute_bound() const {
  return t.compute_bound() && (strategy != Strategy::Pipeline || hop < stage_math);
}

namespace {

std::string num_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

bool whole(double v) { return v == std::floor(v); }

// The weight matrices of the chapter's layer, in forward order, and their gradients.
struct Mats {
  const char* const* w;
  const char* const* dw;
  int n;
};
Mats mats_of(const Layer& l) {
  static const char* const w2[] = {"W_in", "W_out"};
  static const char* const dw2[] = {"dW_in", "dW_out"};
  static const char* const w3[] = {"W_in1", "W_in2", "W_out"};
  static const char* const dw3[] = {"dW_in1", "dW_in2", "dW_out"};
  return l.n_mats == 3 ? Mats{w3, dw3, 3} : Mats{w2, dw2, 2};
}

// FSDP's collectives per layer (A.4 (2), (4)): each weight's Y shard gathered over X forward;
// backward, from the last matrix down, the gradient reduce-scattered and the weight gathered again.
void fsdp_collectives(const Layer& l, double Y, double M_X, const Hardware& h,
                      std::vector<Collective>& out) {
  const Mats m = mats_of(l);
  const double V = layer_weight_bytes(l) / l.n_mats / Y;
  const double t = t_weight_gather(V * Y, Y, M_X, h);
  for (int i = 0; i < m.n; ++i) out.push_back({"forward", "AllGather", m.w[i], "X", V, t, false});
  for (int i = m.n - 1; i >= 0; --i) {
    out.push_back({"backward", "ReduceScatter", m.dw[i], "X", V, t, false});
    out.push_back({"backward", "AllGather", m.w[i], "X", V, t, false});
  }
}

// TP's collectives per layer (A.4 (3), (4)): In gathered and Out reduce-scattered over Y forward;
// dOut gathered and dIn reduce-scattered backward (the forward gather of In is reused). Each moves
// the X shard of the activations, 2 B D / X bytes.
void tp_collectives(const Layer& l, double B, double X, double M_Y, const Hardware& h,
                    std::vector<Collective>& out) {
  const double V = activation_row_bytes(l) * B / X;
  const double t = t_act_gather_scatter(V * X, X, M_Y, h) / 2;
  out.push_back({"forward", "AllGather", "In", "Y", V, t, true});
  out.push_back({"forward", "ReduceScatter", "Out", "Y", V, t, true});
  out.push_back({"backward", "AllGather", "dOut", "Y", V, t, true});
  out.push_back({"backward", "ReduceScatter", "dIn", "Y", V, t, true});
}

// X_opt rounded to a divisor of N (A.4 (4)), or the reader's Y checked against N.
double tp_degree(double Y, double B, double F, double N, double M_X, double M_Y) {
  if (Y == 0) {
    if (!whole(N) || N > 1e9)
      fail("chips", "the optimal split needs a whole number of chips, got " + num_text(N),
           "out_of_range");
    return N / round_split(x_opt(B, F, N, M_X, M_Y), N);
  }
  if (!(Y >= 1) || !whole(Y) || !whole(N / Y))
    fail("Y",
         "the TP degree Y must be a whole number that divides the " + num_text(N) + " chips, got " +
             num_text(Y),
         "out_of_range");
  return Y;
}

}  // namespace

namespace {

void positive(double v, const char* field, const std::string& what) {
  if (!(v > 0) || !std::isfinite(v)) fail(field, what, "out_of_range");
}

// The inputs every strategy needs; InputError naming the field.
void check_strategy_input(Strategy st, const StrategyInput& in) {
  const Layer& l = in.layer;
  positive(l.D, "D", "D must be a positive width");
  positive(l.F, "F", "F must be a positive width");
  if (l.n_mats != 2 && l.n_mats != 3)
    fail("mlp", "the MLP has 2 matrices (plain) or 3 (gated)", "out_of_range");
  positive(in.L, "L", "the model needs at least one layer");
  positive(in.P, "P", "the parameter count must be positive");
  positive(in.N, "chips", "the chip count must be positive");
  if (!(in.axes >= 1 && in.axes <= 3))
    fail("axes", "a TPU slice has 1 to 3 ICI axes, got " + num_text(in.axes), "out_of_range");
  for (double v : {in.hw.C, in.hw.W_ici, in.hw.hbm})
    positive(v, "chip", "the chip needs a peak, an ICI bandwidth and an HBM size");
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

// The gradient all-reduce of each weight matrix, over X (DP) or across pods (DCN), backward.
void allreduce_collectives(const StrategyInput& in, const char* axis, double M_X,
                           std::vector<Collective>& out) {
  const Mats m = mats_of(in.layer);
  const double V = layer_weight_bytes(in.layer) / in.layer.n_mats;
  const bool dcn = std::string_view(axis) == "DCN";
  const double t = dcn ? t_grad_allreduce_dcn(V, in.N, in.hw) : t_grad_allreduce(V, 1, M_X, in.hw);
  for (int i = m.n - 1; i >= 0; --i)
    out.push_back({"backward", "AllReduce", m.dw[i], axis, V, t, false});
}

// A.4 (1), (2): DP or FSDP over every chip and axis.
void data_parallel(Strategy st, const StrategyInput& in, StrategyCost& c) {
  c.split = {in.N, 1, in.axes, 0, st == Strategy::DP ? XMode::DP : XMode::FSDP, 1};
  c.t = layer_times(in.layer, in.B, c.split, in.hw);
  if (st == Strategy::DP)
    allreduce_collectives(in, "X", in.axes, c.collectives);
  else
    fsdp_collectives(in.layer, 1, in.axes, in.hw, c.collectives);
  c.conditions.push_back({"B/N > alpha / M_X", "$B/N > \\alpha / M_X$", "tokens", in.B / in.N,
                          dp_min_batch_per_chip(alpha_ici(in.hw), in.axes)});
}

// A.4 (3): TP over every chip and axis.
void tensor_parallel(const StrategyInput& in, StrategyCost& c) {
  c.split = {1, in.N, 0, in.axes, XMode::FSDP, 1};
  c.t = layer_times(in.layer, in.B, c.split, in.hw);
  tp_collectives(in.layer, in.B, 1, in.axes, in.hw, c.collectives);
  c.conditions.push_back({"Y < M_Y F / alpha", "$Y < M_Y F / \\alpha$", "count", in.N,
                          tp_max_degree(in.layer.F, alpha_ici(in.hw), in.axes), true});
}

// The TP and FSDP collectives in the chapter's order: forward, In gathered over Y, the weights over
// X, Out scattered over Y; backward, dOut gathered over Y, the weights' reductions and gathers over
// X, dIn scattered over Y.
void mixed_collectives(const StrategyInput& in, double B_pod, const Split& s,
                       std::vector<Collective>& out) {
  std::vector<Collective> tp, fsdp;
  if (s.Y > 1) tp_collectives(in.layer, B_pod, s.X, s.M_Y, in.hw, tp);
  if (s.X > 1) fsdp_collectives(in.layer, s.Y, s.M_X, in.hw, fsdp);
  for (const char* phase : {"forward", "backward"}) {
    const auto in_phase = [&](const Collective& k) { return std::string_view(k.phase) == phase; };
    std::vector<Collective> t;
    std::copy_if(tp.begin(), tp.end(), std::back_inserter(t), in_phase);
    if (!t.empty()) out.push_back(t.front());
    std::copy_if(fsdp.begin(), fsdp.end(), std::back_inserter(out), in_phase);
    if (t.size() > 1) out.push_back(t.back());
  }
}

// A.4 (4), (6): FSDP + TP on a pod (FSDP alone inside pods for DCN with Y = 1), DP across pods.
void mixed(Strategy st, const StrategyInput& in, StrategyCost& c) {
  const double pods = st == Strategy::DCN ? in.pods : 1, B_pod = in.B / pods;
  const double alpha = alpha_ici(in.hw), F = in.layer.F;
  const bool two_d = st == Strategy::FSDP_TP || in.Y != 1;
  const double M_Y = two_d ? in.M_Y : 0, M_X = in.axes - M_Y;
  if (two_d && !(M_Y > 0 && M_X > 0))
    fail("M_Y",
         "TP takes some of the " + num_text(in.axes) +
             " axes and FSDP the rest: M_Y must lie strictly between 0 and the axes",
         "out_of_range");
  const double Y = two_d ? tp_degree(in.Y, B_pod, F, in.N, M_X, M_Y) : 1;
  c.split = {in.N / Y, Y, M_X, M_Y, XMode::FSDP, pods};
  c.t = layer_times(in.layer, in.B, c.split, in.hw);
  mixed_collectives(in, B_pod, c.split, c.collectives);
  if (two_d) {
    c.x_opt = x_opt(B_pod, F, in.N, M_X, M_Y);
    c.window = x_window(B_pod, F, in.N, alpha, M_X, M_Y);
    c.conditions.push_back({"B/N > alpha^2 / (M_X M_Y F)", "$B/N > \\alpha^2 / (M_X M_Y F)$",
                            "tokens", B_pod / in.N, mixed_min_batch_per_chip(alpha, F, M_X, M_Y)});
    c.conditions.push_back({"B/X > alpha / M_X", "$B/X > \\alpha / M_X$", "tokens",
                            B_pod / c.split.X, dp_min_batch_per_chip(alpha, M_X)});
    c.conditions.push_back({"Y < M_Y F / alpha", "$Y < M_Y F / \\alpha$", "count", Y,
                            tp_max_degree(F, alpha, M_Y), true});
  } else {
    c.conditions.push_back({"B/N > alpha / M_X", "$B/N > \\alpha / M_X$", "tokens", B_pod / in.N,
                            dp_min_batch_per_chip(alpha, M_X)});
  }
  if (st == Strategy::DCN) {
    allreduce_collectives(in, "DCN", 0, c.collectives);
    c.conditions.push_back({"B/pods > alpha_dcn", "$B/\\mathrm{pods} > \\alpha_{dcn}$", "tokens",
                            B_pod, alpha_dcn(in.hw)});
  }
}

// A.4 (5): Z stages of N / Z chips, FSDP inside each, m microbatches (one layer, one microbatch).
void pipelined(const StrategyInput& in, StrategyCost& c) {
  const double Z = in.Z, m = in.m;
  if (!(Z >= 1) || !whole(Z) || Z > in.L || !whole(in.N / Z))
    fail("Z",
         "the stages must be a whole number that divides the " + num_text(in.N) +
             " chips and is at most the " + num_text(in.L) + " layers, got " + num_text(Z),
         "out_of_range");
  const double X = in.N / Z;
  if (!(m >= 1) || !whole(m) || in.B / m < X)
    fail("m",
         "the microbatches must be a whole number with at least one token per chip of a stage "
         "(at most " +
             num_text(std::floor(in.B / X)) + ")",
         "out_of_range");
  c.split = {X, 1, in.axes, 0, XMode::FSDP, 1};
  c.t = layer_times(in.layer, in.B / m, c.split, in.hw);
  if (X > 1) fsdp_collectives(in.layer, 1, in.axes, in.hw, c.collectives);
  const double V = activation_row_bytes(in.layer) * in.B / m / X;
  c.hop = t_pipeline_hop(V, 1, in.hw);
  c.collectives.push_back({"forward", "copy", "Out", "next stage", V, c.hop, true});
  c.collectives.push_back({"backward", "copy", "dIn", "previous stage", V, c.hop, true});
  c.bubble = pipeline_bubble(Z, m);
  c.stage_math = in.L / Z * (c.t.fwd.math + c.t.bwd.math);
  c.conditions.push_back({"B/(m X) > alpha / M_X", "$B/(m X) > \\alpha / M_X$", "tokens",
                          in.B / m / X, dp_min_batch_per_chip(alpha_ici(in.hw), in.axes)});
  c.conditions.push_back({"T_hop < T_stage (one microbatch)",
                          "$T_{hop} < T_{stage}$ (one microbatch)", "s", c.hop, c.stage_math,
                          true});
}

// A.6, A.7: the step-time and MFU bounds, and memory per chip.
void step_and_memory(const StrategyInput& in, StrategyCost& c) {
  const double act = checkpoint_bytes(in.layer, in.L, in.B);
  if (c.strategy == Strategy::Pipeline) {
    // (m + Z - 1) slots of one stage's work on one microbatch; each copy overlaps the stage's
    // work in its direction.
    const double Ls = in.L / in.Z;
    const double slot = std::max(Ls * c.t.fwd.time(), c.hop) + std::max(Ls * c.t.bwd.time(), c.hop);
    c.step = slot * pipeline_slots(in.Z, in.m);
    c.mfu = in.m * c.stage_math / c.step;
    c.mem = memory_per_chip(in.P, act * pipeline_in_flight(in.Z, in.m),
                            {in.N, 1, in.axes, 0, XMode::FSDP, 1});
  } else {
    c.step = in.L * c.t.time();
    c.mfu = (c.t.fwd.math + c.t.bwd.math) / c.t.time();
    c.mem = memory_per_chip(in.P, act, c.split);
  }
  c.fits = c.mem <= in.hw.hbm;
}

}  // namespace

StrategyCost strategy_cost(Strategy st, const StrategyInput& in) {
  check_strategy_input(st, in);
  StrategyCost c;
  c.strategy = st;
  switch (st) {
    case Strategy::DP:
    case Strategy::FSDP:
      data_parallel(st, in, c);
      break;
    case Strategy::TP:
      tensor_parallel(in, c);
      break;
    case Strategy::FSDP_TP:
    case Strategy::DCN:
      mixed(st, in, c);
      break;
    case Strategy::Pipeline:
      pipelined(in, c);
      break;
  }
  c.per_chip_batch = in.B / (in.N * c.split.pods);
  step_and_memory(in, c);
  return c;
}

// ------------------------------------------------------------------ A.6, A.7

double params_optimizer_bytes(double P) { return tf::param_bytes(P) + tf::optimizer_bytes(P); }
double max_params_pure_dp(double hbm, double bytes_per_param) { return hbm / bytes_per_param; }
double checkpoint_bytes(const Layer& l, double L, double B) {
  return 2 * L * B * (l.D + (l.n_mats - 1) * l.F);
}
double memory_per_chip(double P, double act, const Split& s) {
  const double param_shards = s.x_mode == XMode::FSDP ? s.X * s.Y : s.Y;
  return params_optimizer_bytes(P) / param_shards + act / (s.pods * s.X * s.Y);
}
double sequences(double B, double T) { return B / T; }

double step_time_at_mfu(double B, double P, double chips, double C, double mfu) {
  return train_time(tf::six_p_tokens(P, B), chips, C, mfu);
}
double train_time(double flops, double chips, double C, double mfu) {
  return flops / (chips * C * mfu);
}

}  // namespace sb::training
