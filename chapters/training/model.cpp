// Part 5: the equations of model.hpp, built on the transformers (FLOPs, memory), sharding
// (collective times) and roofline (T_math, intensities) models.
#include "chapters/training/model.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <string_view>

#include "chapters/roofline/model.hpp"
#include "chapters/sharding/model.hpp"
#include "chapters/tpus/model.hpp"
#include "chapters/transformers/model.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/units.hpp"

namespace sb::training {

namespace tf = transformers;

// ------------------------------------------------------------------ A.1

const hw::Chip& tpu_chip(std::string_view id, std::string_view field) {
  const hw::Chip& c = hw::chip(id, field);
  if (c.kind != "tpu")
    fail(field,
         c.name +
             " is a GPU: this calculator lays its mesh on the ICI torus axes of a TPU slice (M_X "
             "and M_Y, pods over DCN), and a GPU cluster has none (NVLink nodes under a switched "
             "fat tree). The training planner takes a GPU cluster; here, pick a TPU.",
         "not_tpu");
  return c;
}

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

Layer layer_of(const tf::Config& c, bool book) {
  return {c.D, tf::mlp_width_per_token(c), book ? 2.0 : c.gated ? 3.0 : 2.0};
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
double t_math_layer(double f, double B, double chips, double C) {
  return roofline::t_math(f * B / chips, C);
}
double t_weight_load(double weight_bytes, double Y, const Hardware& h) {
  return roofline::t_comms(weight_bytes / Y, h.W_hbm);
}

// ------------------------------------------------------------------ A.3, A.4

double Phase::comms() const { return std::max({fsdp, tp, dp, dcn, hbm, ep}); }
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

double stage_copy_bytes(double D, double B, double m, double X, double b) {
  return b * D * B / (m * X);
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

double t_expert_alltoall(double act_bytes_per_chip, double max_axis, const Hardware& h) {
  // Dispatch to the experts and return: two AllToAlls of the chip's routed rows.
  return 2 * sharding::t_alltoall_per_device(act_bytes_per_chip, max_axis, h.W_ici);
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

// ------------------------------------------------------------------ A.4 conditions

double per_chip_batch(double B, double chips) { return B / chips; }
double per_pod_batch(double B, double pods) { return B / pods; }
double global_batch(double per_chip, double chips) { return per_chip * chips; }
double total_chips(double pod_chips, double pods) { return pod_chips * pods; }
double pods_of(double chips, double pod_chips) { return chips / pod_chips; }
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
double x_window_lo(double N, double alpha, double F, double M_Y) {
  return N / tp_max_degree(F, alpha, M_Y);
}
XWindow x_window(double B, double F, double N, double alpha, double M_X, double M_Y) {
  // Lower end: Y = N/X below the TP limit; upper end: B/X above the FSDP floor.
  return {x_window_lo(N, alpha, F, M_Y), fsdp_max_chips(B, alpha, M_X)};
}
std::string window_words(const XWindow& w, double per_chip, double floor) {
  if (!w.empty())
    return "every FSDP degree X from " + units::number(w.lo, 4) + " to " + units::number(w.hi, 4) +
           " keeps both comm terms under the math";
  return "no FSDP degree keeps both comm terms under the math, because the batch per chip (" +
         units::number(per_chip, 4) + " tokens) is below FSDP + TP's floor of " +
         units::number(floor, 4) + " tokens: TP needs an FSDP degree above " +
         units::number(w.lo, 4) + " while FSDP needs one below " + units::number(w.hi, 4);
}
double mixed_ratio(double B, double F, double N, double alpha, double M_X, double M_Y) {
  return std::sqrt(B * F * M_X * M_Y) / (alpha * std::sqrt(N));
}
double floor_gain(double fsdp_floor, double mixed_floor) { return fsdp_floor / mixed_floor; }
bool dcn_compute_bound(double B, double pods, const Hardware& h) {
  return per_pod_batch(B, pods) > alpha_dcn(h);
}
double round_pow2(double x) { return std::exp2(std::round(std::log2(x))); }
double mlp_width_4d(double D) { return 4 * D; }

// ------------------------------------------------------------------ layouts a mesh can hold

namespace {
bool divides(double d, double n) { return n > 0 && std::fmod(n, d) == 0; }
}  // namespace

bool tp_degree_fits(double Y, double D, double N_heads, double K_heads) {
  if (!(Y >= 1) || Y != std::floor(Y)) return false;
  if (N_heads <= 0) return true;  // the chapter's MLP alone: no heads to split
  return divides(Y, D) && (divides(Y, K_heads) || divides(Y, N_heads));
}

std::string tp_degree_misfit(double Y, double D, double N_heads, double K_heads) {
  const std::string y = units::number(Y, 6);
  if (!divides(Y, D)) return y + " does not divide the model width D = " + units::number(D, 8);
  return y + " divides neither the " + units::number(K_heads, 6) + " KV heads nor the " +
         units::number(N_heads, 6) + " query heads";
}

Recipe mixed_recipe(double xo, double N, double D, double N_heads, double K_heads) {
  Recipe r;
  r.X = std::min(round_pow2(xo), std::exp2(std::floor(std::log2(N))));
  r.X = std::max(r.X, 1.0);
  for (double y = std::floor(N / r.X); y >= 1; --y)
    if (tp_degree_fits(y, D, N_heads, K_heads)) {
      r.Y = y;
      break;
    }
  r.used = r.X * r.Y;
  r.idle = N - r.used;
  return r;
}

std::string recipe_words(const Recipe& r, double xo) {
  std::string s = units::number(r.X, 6) + "-way FSDP x " + units::number(r.Y, 6) + "-way TP";
  if (r.idle > 0)
    s += " on " + units::number(r.used, 8) + " of the " + units::number(r.used + r.idle, 8) +
         " chips, " + units::number(r.idle, 8) + " idle";
  return s + " (the optimal FSDP degree, " + units::number(xo, 4) +
         ", rounded to a power of two, as the chapter does)";
}

// ------------------------------------------------------------------ A.6, A.7

double state_bytes(double P, double b_w, double b_opt) {
  return tf::param_bytes(P, b_w) + tf::optimizer_bytes(P, b_opt);
}
double params_optimizer_bytes(double P) { return state_bytes(P); }
double max_params_pure_dp(double hbm, double bytes_per_param) { return hbm / bytes_per_param; }
double checkpoint_bytes(const Layer& l, double L, double B) {
  return 2 * L * B * (l.D + (l.n_mats - 1) * l.F);
}
double memory_per_chip(double state, double act, const Split& s) {
  const double param_shards = s.x_mode == XMode::FSDP ? s.X * s.Y : s.Y;
  return state / param_shards + act / (s.pods * s.X * s.Y);
}
double slice_hbm(double chips, double hbm) { return chips * hbm; }
double sequences(double B, double T) { return B / T; }

double step_time_at_mfu(double B, double P, double chips, double C, double mfu) {
  return train_time(tf::six_p_tokens(P, B), chips, C, mfu);
}
double train_time(double flops, double chips, double C, double mfu) {
  return flops / (chips * C * mfu);
}

}  // namespace sb::training
