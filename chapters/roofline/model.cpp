// Part 1 (Rooflines): the equations of model.hpp. Inputs are validated by the callers (the
// registry's Param ranges); these functions only do the arithmetic.
#include "chapters/roofline/model.hpp"

#include <algorithm>
#include <cmath>

namespace sb::roofline {

double t_math(double flops, double peak_flops_per_s) { return flops / peak_flops_per_s; }
double t_comms(double bytes, double bw_bytes_per_s) { return bytes / bw_bytes_per_s; }
double t_lower(double tm, double tc) { return std::max(tm, tc); }
double t_upper(double tm, double tc) { return tm + tc; }
double overlap_ratio(double t_upper, double t_lower) { return t_upper / t_lower; }

Bound verdict(double tm, double tc) { return tm > tc ? Bound::Compute : Bound::Comms; }
const char* bound_name(Bound b) {
  return b == Bound::Compute ? "compute-bound" : "communication-bound";
}

double arithmetic_intensity(double flops, double bytes) { return flops / bytes; }
double bytes_at_intensity(double flops, double intensity) { return flops / intensity; }
double critical_intensity(double peak, double bw) { return peak / bw; }
double attainable_flops_per_s(double intensity, double peak, double bw) {
  return std::min(peak, intensity * bw);
}
double achieved_flops_per_s(double flops, double tm, double tc) { return flops / t_lower(tm, tc); }
double fraction_of_peak(double achieved, double peak) { return achieved / peak; }
double capped_peak(double peak, double mfu) { return mfu * peak; }
double vpu_chip_flops_per_s(double vpu_per_core, double cores) { return cores * vpu_per_core; }

double dot_flops(double n) { return 2 * n - 1; }
double dot_bytes(double n, double b) { return 2 * b * n + b; }
double dot_intensity(double n, double b) { return dot_flops(n) / dot_bytes(n, b); }
double dot_intensity_limit(double b) { return 2 / (2 * b); }

double MatmulCost::intensity() const { return arithmetic_intensity(flops, bytes()); }

double matmul_flops(const MatmulShape& s) { return 2 * s.B * s.D * s.F; }

MatmulCost matmul_cost(const MatmulShape& s, const OperandBytes& b, bool per_example_weights) {
  MatmulCost c;
  c.flops = matmul_flops(s);
  c.bytes_x = b.x * s.B * s.D;
  // Per-example weights: one [D,F] matrix per batch row, so the weight traffic grows with B.
  c.bytes_w = b.w * s.D * s.F * (per_example_weights ? s.B : 1);
  c.bytes_o = b.o * s.B * s.F;
  return c;
}
double matmul_bytes_read(const MatmulShape& s, const OperandBytes& b) {
  return matmul_cost(s, b).bytes_read();
}
double matmul_bytes_written(const MatmulShape& s, const OperandBytes& b) {
  return matmul_cost(s, b).bytes_written();
}
double matmul_bytes(const MatmulShape& s, const OperandBytes& b, bool per_example_weights) {
  return matmul_cost(s, b, per_example_weights).bytes();
}
double matmul_intensity(const MatmulShape& s, const OperandBytes& b, bool per_example_weights) {
  return matmul_cost(s, b, per_example_weights).intensity();
}

double matmul_t_math(const MatmulShape& s, double peak) { return t_math(matmul_flops(s), peak); }
double matmul_t_comms(const MatmulShape& s, const OperandBytes& b, double bw) {
  return t_comms(matmul_bytes(s, b), bw);
}
double matmul_t_lower(const MatmulShape& s, const OperandBytes& b, double peak, double bw) {
  return t_lower(matmul_t_math(s, peak), matmul_t_comms(s, b, bw));
}
double matmul_achieved_flops_per_s(const MatmulShape& s, const OperandBytes& b, double peak,
                                   double bw) {
  return achieved_flops_per_s(matmul_flops(s), matmul_t_math(s, peak), matmul_t_comms(s, b, bw));
}

double matmul_flops_per_token(double D, double F) { return matmul_flops({1, D, F}); }
double matmul_weight_bytes(double D, double F, double w) { return w * D * F; }
double matmul_io_bytes_per_token(double D, double F, double x, double o) { return x * D + o * F; }

double critical_batch_approx(double weight_bytes, double i_hw) { return weight_bytes * i_hw / 2; }

std::optional<double> critical_batch_exact(double D, double F, const OperandBytes& b, double i_hw) {
  // 2BDF / I_hw = b_x BD + b_w DF + b_o BF  =>  B (2DF / I_hw - b_x D - b_o F) = b_w DF.
  return critical_batch_from_costs(matmul_flops_per_token(D, F), matmul_weight_bytes(D, F, b.w),
                                   matmul_io_bytes_per_token(D, F, b.x, b.o), i_hw);
}

std::optional<double> critical_batch_from_costs(double flops_per_token, double weight_bytes,
                                                double io_bytes_per_token, double i_hw) {
  const double denom = flops_per_token / i_hw - io_bytes_per_token;
  if (!(denom > 0)) return std::nullopt;  // activation+output traffic alone outpaces the MXU
  return weight_bytes / denom;
}

double global_batch_tokens(double sequences, double tokens_per_sequence) {
  return sequences * tokens_per_sequence;
}
double local_batch_tokens(double global_tokens, double n_devices) {
  return global_tokens / n_devices;
}
double dense_peak(double sparse_peak, double sparsity_factor) {
  return sparse_peak / sparsity_factor;
}

double critical_batch_ratio(double b_small, double b_large) { return b_small / b_large; }

double tiles(double dim, double block) { return std::ceil(dim / block); }
double tile_count(double tm, double tk, double tn) { return tm * tk * tn; }

double tiled_flops(double tm, double tn, double tk, double bm, double bn, double bk) {
  return 2 * tm * tn * tk * bm * bn * bk;
}
double tiled_flops(const Tiling& t) {
  return tiled_flops(tiles(t.m, t.bm), tiles(t.n, t.bn), tiles(t.k, t.bk), t.bm, t.bn, t.bk);
}
double tiled_bytes(double tm, double tn, double tk, double bm, double bk, double bn, double b) {
  return b * tm * tn * (tk * (bm * bk + bk * bn) + bm * bn);
}
double tiled_bytes(const Tiling& t, double b) {
  return tiled_bytes(tiles(t.m, t.bm), tiles(t.n, t.bn), tiles(t.k, t.bk), t.bm, t.bk, t.bn, b);
}
double tiled_intensity(const Tiling& t, double b) {
  return arithmetic_intensity(tiled_flops(t), tiled_bytes(t, b));
}
double tiled_intensity_approx(double bm, double bn, double b) {
  // 2 bm bn bk / (b (bm bk + bk bn)) = (2/b) bm bn / (bm + bn).
  return (2 / b) * bm * bn / (bm + bn);
}

double network_flops_per_chip(const MatmulShape& s) { return 2 * s.B * (s.D / 2) * s.F; }
double network_t_math(const MatmulShape& s, double peak) {
  return t_math(network_flops_per_chip(s), peak);
}
double network_t_comms(const MatmulShape& s, double link_bw, double out_bytes) {
  return t_comms(out_bytes * s.B * s.F, link_bw);
}
double network_intensity(double D, double out_bytes) { return D / out_bytes; }
double network_d_crit(double peak, double link_bw, double out_bytes) {
  return out_bytes * critical_intensity(peak, link_bw);
}

}  // namespace sb::roofline
