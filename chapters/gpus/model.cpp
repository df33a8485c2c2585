// The GPU chapter's formulas (model.hpp, collectives.hpp, llm.hpp). Each function is what its
// record's expression says, in the same order of operations, so that the record test compares
// like with like.
#include "chapters/gpus/model.hpp"

#include <algorithm>
#include <cmath>

#include "chapters/gpus/collectives.hpp"
#include "chapters/gpus/llm.hpp"
#include "chapters/tpus/model.hpp"
#include "chapters/transformers/model.hpp"

namespace sb::gpus {

// ---- A.1 ----
double tc_peak(double n_sm, double n_sub, double f_clk, double f_tc) {
  return n_sm * n_sub * f_clk * f_tc;
}
double tc_flops_per_cycle(double peak, double n_sm, double n_sub, double f_clk) {
  return peak / (n_sm * n_sub * f_clk);
}
double cuda_cores(double n_sm, double n_sub, double n_lane) { return n_sm * n_sub * n_lane; }
double simd_units(double n_sm, double n_sub) { return n_sm * n_sub; }
double vector_flops(double n_cuda, double f_clk, double ops) { return n_cuda * f_clk * ops; }
double vector_flops_per_cycle(double n_cuda, double ops) { return n_cuda * ops; }
double clock_from_vector(double c_vec, double n_cuda, double ops) { return c_vec / (n_cuda * ops); }
double register_file(double n_sub, double n_reg, double b_reg) { return n_sub * n_reg * b_reg; }
double resident_warps(double rf, double n_thread, double regs, double b_reg, double warps_max) {
  return std::min(warps_max, std::floor(rf / (n_thread * regs * b_reg)));
}
double on_chip_total(double n_sm, double per_sm) { return n_sm * per_sm; }
double precision_peak(double speedup, double peak) { return speedup * peak; }
double elementwise_flops(double n_el, double ops) { return ops * n_el; }
double elementwise_bytes(double n_el, double n_in, double n_out, double b) {
  return (n_in + n_out) * b * n_el;
}
double busy_sms(double n_el, double lanes_per_sm) { return std::ceil(n_el / lanes_per_sm); }
double tpu_vector_alus(double cores, double sublanes, double lanes, double alus) {
  return cores * tpus::vpu_alus_per_core(sublanes, lanes, alus);
}
double ratio(double a, double a_ref) { return a / a_ref; }
double l2_over_hbm_bidi(double w_l2, double w_hbm) { return 2 * w_l2 / w_hbm; }

// ---- A.2, A.3 ----
double gpu_egress(double n_links, double w_link) { return n_links * w_link; }
double switch_capacity(double n_switch, double ports, double w_port) {
  return n_switch * ports * w_port;
}
double node_bandwidth(double w_switch, double n, double w_gpu) {
  return std::min(w_switch, n * w_gpu);
}
double bisection_both_ways(double n, double w_gpu) { return 2 * (n / 2) * w_gpu; }
double bisection_one_way(double n, double w_gpu) { return (n / 2) * w_gpu; }
double nvswitch_count(double nodes, double nvs) { return nodes * nvs; }
double node_egress(double n_nic, double w_nic) { return n_nic * w_nic; }
double leaf_capacity(double n_leaf, double n_down, double w_port) {
  return n_leaf * n_down * w_port;
}
double su_uplink(double n_leaf, double n_spine, double n_cable, double w_port) {
  return n_leaf * n_spine * n_cable * w_port;
}
double spine_capacity(double n_spine, double ports, double w_port) {
  return n_spine * ports * w_port;
}
double per_node_bisection(double w_node, double w_leaf, double w_up, double m_su, double w_spine,
                          double m_pod) {
  return std::min({w_node, w_leaf / m_su, w_up / m_su, w_spine / m_pod});
}
double switch_count(double nodes, double nvs, double leaves, double spines) {
  return nodes * nvs + leaves + spines;
}

// ---- A.4 ----
double array_bytes(double d, double f, double b) { return b * d * f; }
double ag_time(double bytes, double n, double w) { return bytes * (n - 1) / (n * w); }
double ag_time_approx(double bytes, double w) { return bytes / w; }
double ar_time(double bytes, double n, double w) { return 2 * bytes * (n - 1) / (n * w); }
double ring_hops(double n) { return n - 1; }
double tree_hops(double n) { return std::ceil(std::log2(n)); }
double a2a_time(double bytes, double n, double w) { return bytes * (n - 1) / (w * (n * n)); }
double a2a_time_approx(double bytes, double n, double w) { return bytes / (w * n); }
double a2a_ragged_time(double bytes, double n, double w, double k) {
  return std::min(k / n, 1.0) * bytes / (w * n);
}
double a2a_hit_fraction(double z, double k) { return (1 - std::pow((z - 1) / z, k)) * (z - 1) / z; }
double sharp_ar_time(double bytes, double w) { return bytes / w; }
// What SHARP saves is the ring's bytes per byte of the array, the same 2 (N - 1) / N that NCCL
// calls an AllReduce's bus factor: one expression, two names in the book.
double sharp_speedup(double n) { return allreduce_bus_factor(n); }
double sharp_switch_bytes(double n) { return n * ((n - 1) / n + 1 / n); }
double allreduce_bus_factor(double n) { return 2 * (n - 1) / n; }
double gather_bus_factor(double n) { return (n - 1) / n; }
double with_gain(double w_bus, double gain) { return w_bus * (1 + gain); }
double effective_bw(double bytes, double t) { return bytes / t; }
double two_level_ag_time(double bytes, double w_gpu, double w_node) {
  return std::max(bytes / w_gpu, bytes / w_node);
}
double level_ring_bw(double d, double w) { return d * w / (d - 1); }
double fat_tree_ring_bw(double d1, double w1, double d2, double w2, double d3, double w3) {
  return std::min({level_ring_bw(d1, w1), level_ring_bw(d2, w2), level_ring_bw(d3, w3)});
}
double fat_tree_sharp_bw(double w1, double w2, double w3) { return std::min({w1, w2, w3}); }
double a2a_cross_node_time(double bytes, double m, double w_node) {
  return bytes * (m - 1) / ((m * m) * w_node);
}
double expert_a2a_time(double bytes, double n, double n_node, double w_gpu, double w_out) {
  const double m = std::ceil(n / n_node);
  return std::max(a2a_time(bytes, n, w_gpu), a2a_cross_node_time(bytes, m, w_out));
}
double sharded_node_time(double bytes, double w_gpu, double y, double d_node) {
  return bytes / (w_gpu * std::min(y, d_node));
}
double sharded_scaleout_time(double bytes, double w_node, double y, double d_node) {
  return bytes / w_node * d_node / std::max(d_node, y);
}
double su_two_axis_ag_time(double bytes, double w_node, double m, double d_node, double y) {
  return bytes / w_node * std::min((m - 1) / m, d_node / y);
}
double sharp_sharded_time(double bytes, double y, double w) { return bytes / (y * w); }
double sharp_spine_time(double bytes, double w_spine, double n_su) {
  return bytes / (w_spine / n_su);
}
double group_scaleout_bw(double w_node, double n, double d_node) { return w_node * n / d_node; }
double hier_ag_time(double bytes, double n, double w_gpu, double m, double w_out) {
  // A level of one GPU (or one node) has no ring: it moves nothing.
  const double node = n > 1 ? ag_time(bytes, n, w_gpu) : 0;
  const double out = m > 1 ? ag_time(bytes, m, w_out) : 0;
  return std::max(node, out);
}
double node_switch_in(double m) { return 1 / m + (m - 1) / m; }
double node_switch_out(double m, double n) { return 1 / m + n * (1 - 1 / (m * n)); }
double top_switch_in(double m) { return m * (1 / m); }
double top_switch_out(double m) { return m * ((m - 1) / m); }
double node_switch_time(double bytes, double beta_out, double n, double w_gpu) {
  return beta_out * bytes / (n * w_gpu);
}

// ---- A.5 ----
double critical_ratio(double c, double w) { return c / w; }
double dp_moe_threshold(double e, double k, double alpha) { return e / k * alpha; }
double dp_small_x_threshold(double alpha, double x) { return alpha * (x - 1) / x; }
double dp_span_threshold(double alpha, double d_node, double y) {
  return alpha * d_node / std::max(d_node, y);
}
double dp_span_gain(double d_node, double y) { return std::max(d_node, y) / d_node; }
double dp_ring_gain(double x) { return x / (x - 1); }
double tp_max(double f, double alpha) { return f / alpha; }
double tp_max_spanning(double f, double alpha, double d_node) { return d_node + f / alpha; }
double ep_f_min(double alpha, double z, double k, double d_node) {
  return alpha * (z - d_node) / k * std::min(d_node * k / z, 1.0);
}
double ep_f_min_large_z(double d_node, double alpha) { return d_node * alpha; }
double pp_comms_time(double b, double d, double w, double n_mb, double n_stages) {
  return 2 * b * d / (w * n_mb) * (n_mb + n_stages - 2);
}
double train_bytes(double n_params, double bpp) { return n_params * bpp; }
double min_gpus(double m_train, double hbm) { return transformers::min_chips(m_train, hbm); }
double min_nodes(double n, double d_node) { return std::ceil(n / d_node); }
double bytes_per_gpu(double n_params, double bpp, double n_shard) {
  return n_params * bpp / n_shard;
}
double train_flops(double n_params, double tokens) { return 6 * n_params * tokens; }
double cluster_flops(double n, double c, double mfu) { return n * c * mfu; }
double model_parallel(double tp, double pp, double ep) { return tp * pp * ep; }
double gpu_count(double tp, double pp, double dp) { return tp * pp * dp; }
double span_bandwidth(double w_node, double d_node, double y) {
  return w_node * std::max(d_node, y) / d_node;
}

}  // namespace sb::gpus
