// Part 8: the chapter's own formulas, and its questions for one dtype, from Part 7's model.
#include "chapters/applied_inference/model.hpp"

#include <algorithm>
#include <cmath>

namespace sb::applied_inference {

namespace inf = inference;

double min_chips(double bytes_w, double kv_batch, double M_hbm) {
  return std::ceil(inf::min_chips_raw(bytes_w, kv_batch, M_hbm));
}
double sequences_per_s(double B, double T_step, double len_decode) {
  return inf::qps_per_chip(B, T_step, len_decode, 1);
}
double batch_under_limit_loads(double T_limit, double T_param, double T_kv1) {
  return std::floor((T_limit - T_param) / T_kv1);
}
double batch_under_limit_flops(double T_limit, double T_kv1, double T_flops1) {
  return std::floor(T_limit / (T_kv1 + T_flops1));
}

double slice_at_least(const inf::Machine& t, double chips, std::string* shape) {
  const std::vector<inf::Slice> all = inf::slices(t);
  const inf::Slice* s = inf::smallest_slice(all, chips);
  if (!s) return 0;
  if (shape) *shape = s->shape;
  return s->chips;
}

inference::Served layers_of(const Setting& s) {
  inference::Served m;
  m.L = s.L;
  m.D = s.D;
  return m;
}

DtypeRow dtype_row(const Setting& s, const std::string& dtype) {
  DtypeRow r;
  r.dtype = dtype;
  r.b = inf::dtype_bytes(dtype, "dtype");
  const double M = s.machine.M_hbm, W = s.machine.W_hbm;
  r.bytes_w = inf::weight_bytes(s.P_total, r.b);
  r.kv_tok = s.kv_tok_bf16 * r.b / 2;
  r.chips_raw = inf::min_chips_raw(r.bytes_w, 0, M);
  // The smallest slice that holds the weights and one cache (for LLaMA 3-70B at 8k, the one that
  // holds the weights: the chapter's rule).
  r.smallest = slice_at_least(s.machine, min_chips(r.bytes_w, s.S * r.kv_tok, M));
  r.B_crit = inf::critical_batch(r.b, s.C_bf16, W);
  if (r.smallest == 0) return r;
  r.chips = slice_at_least(s.machine, r.smallest * s.slice_factor, &r.shape);
  if (r.chips == 0) return r;
  r.hbm_left = inf::free_hbm(r.chips, M, r.bytes_w);
  r.B_max = inf::max_batch(r.hbm_left, s.S, r.kv_tok);
  r.fits = r.B_max >= 1;
  if (!r.fits) return r;
  r.step = inf::with_comms(
      inf::decode(s.P_total, s.P_active, r.b, r.kv_tok, s.C_bf16, W, r.chips, r.B_max, s.S),
      inf::gpu_step_comms(s.machine, layers_of(s), r.B_max, 2, r.chips));
  r.seq_s = sequences_per_s(r.B_max, r.step.T_step, s.len_decode);
  r.qps_chip = inf::qps_per_chip(r.B_max, r.step.T_step, s.len_decode, r.chips);
  r.tok_s_chip = inf::tokens_per_s_chip(r.B_max, r.chips, r.step.T_step);
  if (s.price > 0) r.cost_per_m = inf::cost_per_million(r.chips, s.price, r.step.T_step, r.B_max);
  return r;
}

}  // namespace sb::applied_inference
