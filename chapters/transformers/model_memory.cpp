// Part 4, continued: the equations of model_memory.hpp (A.7-A.12).
#include <algorithm>
#include <cmath>

#include "chapters/sharding/model.hpp"
#include "chapters/transformers/model.hpp"

namespace sb::transformers {

// ------------------------------------------------------------------ A.7

double attention_intensity(double T, double S, double G, double b) {
  return 2 * T * S * G / (b * (T * G + S));
}

double attention_min_T_compute_bound(double i_hw, double G, double b) {
  return b / 2 * i_hw * (G + 1) / G;
}

double attention_min_T_large_G(double i_hw, double b) { return b / 2 * i_hw; }

double attention_decode_intensity_limit(double G, double b) { return 2 * G / b; }

// ------------------------------------------------------------------ A.8

double moe_intensity(double B, double E, double k, double bw) { return 2 * k * B / (E * bw); }
double moe_kb_over_e_threshold(double i_hw, double bw) { return bw * i_hw / 2; }
double moe_min_batch(double i_hw, double E, double k, double bw) {
  return moe_kb_over_e_threshold(i_hw, bw) * E / k;
}

double alltoall_over_allgather(double bytes, double w_ici) {
  return sharding::t_alltoall_1d(bytes, w_ici) / sharding::t_allgather_multi(bytes, 1, w_ici);
}

// ------------------------------------------------------------------ A.9

double saved_arrays_per_layer(Remat r) {
  switch (r) {
    case Remat::SaveAll:
      return 20;
    case Remat::BigMatmuls:
      return 7;
    case Remat::Block:
      return 1;
  }
  return 0;
}

double remat_flops_per_param_token(Remat r) {
  // Block remat replays the forward pass (2 per parameter per token) on top of 6.
  return r == Remat::Block
             ? flops_per_param_token(Pass::Train) + flops_per_param_token(Pass::Forward)
             : flops_per_param_token(Pass::Train);
}

double activation_bytes(double tokens, double D, double L, double c, double b) {
  return b * c * tokens * D * L;
}

double saved_elems_per_token_layer(double N, double K, double H_qk, double H_v, double D,
                                   double n_mats, double F_tok) {
  return N * H_qk + K * (H_qk + H_v) + D + (n_mats - 1) * F_tok + D;
}

double saved_elems_per_token_layer(const Config& c) {
  // MLA's K and V come out of its latent with a head per query head.
  return saved_elems_per_token_layer(c.N, c.mla ? c.N : c.K, head_dim_qk(c), head_dim_v(c), c.D,
                                     c.gated ? 3 : 2, mlp_width_per_token(c));
}

double saved_arrays_exact(double elems, double D) { return elems / D; }

double big_matmuls_recompute_flops(double B, double T, double N, double H) {
  return attention_core_flops(B, T, T, N, H, H, Pass::Forward);
}

double big_matmuls_recompute_flops(double L, double B, double T, double N, double H) {
  return L * big_matmuls_recompute_flops(B, T, N, H);
}

double recompute_share(double recompute_flops, double core_flops) {
  return recompute_flops / core_flops;
}

// ------------------------------------------------------------------ A.10

double kv_cache_bytes(double S, double L, double K, double H, double b) {
  return 2 * S * L * K * H * b;
}

double kv_bytes_per_token_mla(double L, double r_kv, double h_r, double b) {
  return L * (r_kv + h_r) * b;
}
double kv_sequence_bytes(double S, double per_token) { return S * per_token; }
double kv_sequence_bytes_windowed(double per_token, double L, double L_w, double S, double w) {
  return per_token / L * ((L - L_w) * S + L_w * std::min(S, w));
}
double kv_batch_bytes(double B, double per_sequence) { return B * per_sequence; }
double sequences_beside_weights(double hbm, double weights, double per_sequence) {
  return weights < hbm ? std::floor((hbm - weights) / per_sequence) : 0;
}

double kv_bytes_per_token(const Config& c, double b, double S) {
  if (S <= 0)
    return c.mla ? kv_bytes_per_token_mla(c.L, c.m.kv_lora_rank, c.m.qk_rope_head_dim, b)
                 : kv_cache_bytes(1, c.L, c.K, c.H, b);
  return kv_bytes_per_sequence(c, S, b) / S;
}

double kv_bytes_per_sequence(const Config& c, double S, double b) {
  const double per_token = kv_bytes_per_token(c, b);
  return c.window_layers > 0
             ? kv_sequence_bytes_windowed(per_token, c.L, c.window_layers, S, c.window)
             : kv_sequence_bytes(S, per_token);
}

double kv_bytes_per_batch(const Config& c, double B, double S, double b) {
  return kv_batch_bytes(B, kv_bytes_per_sequence(c, S, b));
}

// ------------------------------------------------------------------ A.11, Q7

double param_bytes(double P, double b) { return b * P; }
double grad_bytes(double P, double b) { return b * P; }
double optimizer_bytes(double P, double b) { return b * P; }
double state_bytes_per_param(double b_p, double b_opt) { return b_p + b_opt; }
double min_chips(double bytes, double hbm) { return std::ceil(bytes / hbm); }
double bytes_per_chip(double bytes, double chips) { return bytes / chips; }

double available_flops(double chip_hours, double peak) { return chip_hours * 3600 * peak; }
double mfu(double model_flops, double available) { return model_flops / available; }

}  // namespace sb::transformers
