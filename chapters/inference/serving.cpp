// The equations of serving.hpp: sharding limits, latency-bound collectives, 2D weight-stationary
// sharding, MoE placement, the engine and speculative decoding. Collectives come from the sharding
// chapter, times from the roofline chapter.
#include "chapters/inference/serving.hpp"

#include <algorithm>
#include <cmath>

#include "chapters/roofline/model.hpp"
#include "chapters/sharding/model.hpp"

namespace sb::inference {

// ------------------------------------------------------------------ A.10, A.11

double alpha_ici(double C_peak, double W_ici) {
  return roofline::critical_intensity(C_peak, W_ici);
}
double r_hbm_ici(double W_hbm, double W_ici) { return W_hbm / W_ici; }
double y_max_compute(double n_axes, double F, double alpha_ici) { return n_axes * F / alpha_ici; }
double y_max_decode(double F, double B, double r_hbm_ici) { return F / (B * r_hbm_ici); }
double mm_t_hbm(double b_w, double D, double F, double Y, double W_hbm) {
  return roofline::t_comms(b_w * D * F / Y, W_hbm);
}
double mm_t_ici(double b_a, double B, double D, double W_ici) {
  return roofline::t_comms(activation_msg(B, D, b_a), W_ici);
}
double mm_t_math(double B, double D, double F, double Y, double C_peak) {
  return roofline::t_math(roofline::matmul_flops({B, D, F}) / Y, C_peak);
}

double activation_msg(double B, double D, double b_a) { return B * D * b_a; }
double latency_bound_bytes(double Y, double W_ici_1way, double t_hop) {
  return Y * sharding::latency_bound_threshold(W_ici_1way, t_hop);
}
double y_latency_bound(double B, double D, double b_a, double W_ici_1way, double t_hop) {
  return activation_msg(B, D, b_a) / sharding::latency_bound_threshold(W_ici_1way, t_hop);
}
double latency_collective_time(double t_hop, double Y, double msg, double W_ici) {
  return std::max(t_hop * Y / 2, roofline::t_comms(msg, W_ici));
}

// ------------------------------------------------------------------ A.12

double t_ws_2d(double B, double D, double F, double X, double Y, double Z, double W_ici) {
  return 2 * B * D / (X * W_ici) + 4 * B * F / (Y * Z * W_ici);
}
double t_ws_1d(double B, double D, double n_axes, double W_ici) {
  return sharding::t_allgather_multi(4 * B * D, n_axes, W_ici);
}
double t_1d_step(double L, double T_1D) { return 2 * L * T_1D; }
double ws_2d_best_x(double n_chips, double D, double F) { return std::sqrt(n_chips * D / (2 * F)); }
double ws_2d_coefficient(double F, double D) { return std::sqrt(32 * F / D); }
double ws_2d_crossover(double F, double D, double n_axes) {
  return 32 * (F / D) * std::pow(n_axes / 4, 2);
}

// ------------------------------------------------------------------ A.14, beyond the book

double bytes_per_chip(double bytes_w, double n_chips) { return bytes_w / n_chips; }
double bytes_per_chip_split(double P_exp, double P_rest, double b_w, double Y, double Z) {
  return weight_bytes(P_exp, b_w) / (Y * Z) + weight_bytes(P_rest, b_w) / Y;
}
double a2a_bytes(double B, double k, double D, double b_a) { return B * k * D * b_a; }
double a2a_time(double V_a2a, double X_max, double n_chips, double W_ici) {
  return sharding::t_alltoall_per_device(V_a2a / n_chips, X_max, W_ici);
}
double kv_per_chip_dp(double B, double S, double kv_tok, double DP, double TP, double K) {
  return kv_bytes_batch(B, S, kv_tok) / (DP * std::min(K, TP));
}
double weights_per_chip_dp(double P_exp, double P_rest, double b_w, double n_chips, double TP) {
  return weight_bytes(P_exp, b_w) / n_chips + weight_bytes(P_rest, b_w) / TP;
}

double a2a_step_time(double L, double T_a2a) { return 2 * L * T_a2a; }
double t_read(double bytes, double W_hbm) { return roofline::t_comms(bytes, W_hbm); }

// ------------------------------------------------------------------ A.16, A.17

double prefill_servers_per_generate(double T_prefill, double B, double T_step, double len_decode) {
  return T_prefill * B / (T_step * len_decode);
}
double sequences_finished_per_step(double B, double len_decode) { return B / len_decode; }
double kv_tokens_freed_per_step(double B, double len_prompt, double len_decode) {
  return B * (len_prompt + len_decode) / len_decode;
}
double interleave_stall(double B, double len_decode, double T_prefill) {
  return sequences_finished_per_step(B, len_decode) * T_prefill;
}
double prefix_compute_fraction(double T, double T_cached) { return (T - T_cached) / T; }
double speculative_tokens(double a, double gamma) { return (1 - std::pow(a, gamma + 1)) / (1 - a); }
double draft_time(double c_draft, double T_step) { return c_draft * T_step; }
double speculative_time_per_token(double gamma, double T_draft, double T_verify, double n_tok) {
  return (gamma * T_draft + T_verify) / n_tok;
}

}  // namespace sb::inference
