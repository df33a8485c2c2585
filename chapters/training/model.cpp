// Part 5: the equations of model.hpp, built on the transformers (FLOPs, memory), sharding
// (collective times) and roofline (T_math, intensities) models.
#include "chapters/training/model.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "chapters/roofline/model.hpp"
#include "chapters/sharding/model.hpp"
#include "chapters/tpus/model.hpp"
#include "chapters/transformers/model.hpp"
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

// ------------------------------------------------------------------ A.2

Layer layer_of(const tf::Config& c) {
  const double F = tf::moe_layers(c) > 0 ? (c.k + c.n_shared) * (c.F_e > 0 ? c.F_e : c.F) : c.F;
  return {c.D, F, c.gated ? 3.0 : 2.0};
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

double pipeline_bubble(double Z, double m) { return (Z - 1) / (m + Z - 1); }

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
