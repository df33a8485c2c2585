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

Bound verdict(double tm, double tc) { return tm > tc ? Bound::Compute : Bound::Comms; }
const char* bound_name(Bound b) {
  return b == Bound::Compute ? "compute-bound" : "communication-bound";
}

double arithmetic_intensity(double flops, double bytes) { return flops / bytes; }
double critical_intensity(double peak, double bw) { return peak / bw; }
double attainable_flops_per_s(double intensity, double peak, double bw) {
  return std::min(peak, intensity * bw);
}
double achieved_flops_per_s(double flops, double tm, double tc) { return flops / t_lower(tm, tc); }
double fraction_of_peak(double achieved, double peak) { return achieved / peak; }

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
double matmul_bytes(const MatmulShape& s, const OperandBytes& b, bool per_example_weights) {
  return matmul_cost(s, b, per_example_weights).bytes();
}
double matmul_intensity(const MatmulShape& s, const OperandBytes& b, bool per_example_weights) {
  return matmul_cost(s, b, per_example_weights).intensity();
}

double matmul_t_lower(const MatmulShape& s, const OperandBytes& b, double peak, double bw) {
  const MatmulCost c = matmul_cost(s, b);
  return t_lower(t_math(c.flops, peak), t_comms(c.bytes(), bw));
}

double critical_batch_approx(double weight_bytes, double i_hw) { return weight_bytes * i_hw / 2; }

std::optional<double> critical_batch_exact(double D, double F, const OperandBytes& b, double i_hw) {
  // 2BDF / I_hw = b_x BD + b_w DF + b_o BF  =>  B (2DF / I_hw - b_x D - b_o F) = b_w DF.
  const double denom = 2 * D * F / i_hw - b.x * D - b.o * F;
  if (!(denom > 0)) return std::nullopt;  // activation+output traffic alone outpaces the MXU
  return b.w * D * F / denom;
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

double tiles(double dim, double block) { return std::ceil(dim / block); }

double tiled_flops(const Tiling& t) {
  const double tm = tiles(t.m, t.bm), tn = tiles(t.n, t.bn), tk = tiles(t.k, t.bk);
  return 2 * tm * tn * tk * t.bm * t.bn * t.bk;
}
double tiled_bytes(const Tiling& t, double b) {
  const double tm = tiles(t.m, t.bm), tn = tiles(t.n, t.bn), tk = tiles(t.k, t.bk);
  return b * tm * tn * (tk * (t.bm * t.bk + t.bk * t.bn) + t.bm * t.bn);
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
