// The chapter's equations (see model.hpp for what each one is and where it comes from) and the
// local shape of a sharded array (A1).
#include "chapters/sharding/model.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/units.hpp"

namespace sb::sharding {

// ------------------------------------------------------------------ A1

double shards_of(const Dim& d, const Mesh& m) {
  double n = 1;
  for (const auto& a : d.axes) n *= static_cast<double>(m.size(a));
  return n;
}

double replication_factor(const Sharding& s, const Mesh& m) {
  double r = 1;
  const auto used = s.used_axes();
  for (std::size_t k = 0; k < m.names.size(); ++k)
    if (std::find(used.begin(), used.end(), m.names[k]) == used.end())
      r *= static_cast<double>(m.sizes[k]);
  return r;
}

double local_size(double n, double shards) { return n / shards; }
double total_bytes(double bytes_per_device, double devices) { return bytes_per_device * devices; }
double share_per_device(double copies, double devices) { return copies / devices; }

namespace {

// The sizes of the mesh axes in `axes` as terms N_X, N_Y of a product, their names kept in
// `names` (which the terms point into).
std::vector<Trace::Term> axis_terms(const std::vector<std::string>& axes, const Mesh& m,
                                    std::vector<std::string>& names) {
  names.clear();
  for (const auto& a : axes) names.push_back("N_" + a);
  std::vector<Trace::Term> terms;
  for (std::size_t k = 0; k < axes.size(); ++k)
    terms.push_back({names[k], static_cast<double>(m.size(axes[k]))});
  return terms;
}

// The product of the sizes of `axes` as a step named `name`, its words `what`.
double axes_product(const std::vector<std::string>& axes, const Mesh& m, Trace& tr,
                    const std::string& what, Text name) {
  std::vector<std::string> names;
  return tr.product(what, name, "count", axis_terms(axes, m, names));
}

// Each dimension's shards and local size, and the bytes per device (A1).
void trace_local_shape(const Sharding& s, const Mesh& m, const LocalShape& L, double bpe,
                       Trace& tr) {
  std::vector<std::string> names;
  for (std::size_t k = 0; k < s.dims.size(); ++k) {
    const Dim& d = s.dims[k];
    if (d.axes.empty()) {
      tr.value("Local size of $" + d.name + "$ (not split)", L.local[k], "count");
      continue;
    }
    const double shards = d.axes.size() == 1 ? L.shards[k] : trace_shards(d, m, tr);
    tr.step("Local size of $" + d.name + "$, split over $" + axes_text(d.axes) + "$", kLocalSize,
            {L.global[k], shards});
  }
  names.clear();
  for (const Dim& d : s.dims) names.push_back(d.name + "_loc");
  std::vector<Trace::Term> terms;
  for (std::size_t k = 0; k < s.dims.size(); ++k) terms.push_back({names[k], L.local[k]});
  terms.push_back({"b", bpe});
  tr.product("Bytes per device: the local sizes times $b$, the bytes per element", "bytes_dev", "B",
             terms);
}

}  // namespace

LocalShape local_shape(const Sharding& s, const Mesh& m, const std::vector<double>& sizes,
                       double bytes_per_elem, Text field, Trace* tr) {
  validate(s, m, field);
  if (sizes.size() != s.dims.size())
    fail(field, "the sharding names " + std::to_string(s.dims.size()) + " dimensions but " +
                    std::to_string(sizes.size()) + " sizes were given");
  for (double v : sizes)
    if (!(v >= 1) || !std::isfinite(v))
      fail(field, "every dimension size must be a positive number");
  check_divisible(s, m, sizes, field);
  LocalShape L;
  L.global = sizes;
  L.devices = static_cast<double>(m.devices());
  double global_elems = 1;
  for (std::size_t k = 0; k < s.dims.size(); ++k) {
    const double n = shards_of(s.dims[k], m);
    L.shards.push_back(n);
    L.local.push_back(local_size(sizes[k], n));
    L.local_elems *= L.local.back();
    global_elems *= sizes[k];
  }
  L.bytes_per_device = L.local_elems * bytes_per_elem;
  L.global_bytes = global_elems * bytes_per_elem;
  L.replication = replication_factor(s, m);
  L.total_bytes = total_bytes(L.bytes_per_device, L.devices);
  L.fraction = share_per_device(L.replication, L.devices);
  if (tr) trace_local_shape(s, m, L, bytes_per_elem, *tr);
  return L;
}

double trace_shards(const Dim& d, const Mesh& m, Trace& tr) {
  if (d.axes.empty()) return tr.value("Shards of $" + d.name + "$: not split, one", 1, "count");
  return axes_product(
      d.axes, m, tr,
      "Shards of $" + d.name + "$: the sizes of the axes $" + axes_text(d.axes) + "$ that split it",
      "S");
}

double trace_replication(const Sharding& s, const Mesh& m, Trace& tr) {
  std::vector<std::string> unused;
  const auto used = s.used_axes();
  for (const auto& a : m.names)
    if (std::find(used.begin(), used.end(), a) == used.end()) unused.push_back(a);
  if (unused.empty())
    return tr.value("Copies of the array: every mesh axis shards it, so one", 1, "count");
  return axes_product(
      unused, m, tr,
      "Copies of the array: the sizes of the axes $" + axes_text(unused) + "$ it does not use",
      "r");
}

void trace_copies(const Sharding& s, const Mesh& m, const LocalShape& L, Trace& tr) {
  trace_replication(s, m, tr);
  tr.step("Bytes over all devices", kTotalBytes, {L.bytes_per_device, L.devices});
}

double gather_volume(double bytes_per_device, const Mesh& m, const std::vector<std::string>& axes,
                     Trace* tr) {
  double n = 1;
  for (const auto& a : axes) n *= static_cast<double>(m.size(a));
  if (tr && axes.size() > 1)
    n = axes_product(axes, m, *tr, "Devices along $" + axes_text(axes) + "$", "N");
  return traced(tr, kGathered, {bytes_per_device, n}, [&] {
    return "$V$: the gathered array, a device's bytes times the devices along $" + axes_text(axes) +
           "$";
  });
}

// ------------------------------------------------------------------ A4 equations

double one_way_bw(double w_ici) { return w_ici / 2.0; }
double latency_bound_threshold(double w_uni, double t_hop) { return w_uni * t_hop; }
double gathered_size(double bytes_per_device, double devices) { return bytes_per_device * devices; }
double hop_time(double V, double n, double w_uni) { return V / (n * w_uni); }
double hops_ring(double n) { return tpus::axis_max_distance(static_cast<int>(n), true); }
double hops_line(double n) { return tpus::axis_max_distance(static_cast<int>(n), false); }
double latency_term(double hops, double t_hop) { return hops * t_hop; }
double collective_time(double t_bw, double t_lat) { return std::max(t_bw, t_lat); }
double t_allgather_ring(double V, double n, double w_uni) { return hops_ring(n) * V / (n * w_uni); }
double t_allgather_line(double V, double n, double w_uni) { return (n - 1.0) * V / (n * w_uni); }
double t_allgather_multi(double V, double n_axes, double w_ici) { return V / (w_ici * n_axes); }
double axis_bw_ring(double w_ici, double phys) { return w_ici * phys; }
double axis_bw_odd_ring(double w_ici, double phys, double n) { return w_ici * phys * n / (n - 1); }
double axis_bw_line(double w_uni, double phys, double n) { return w_uni * phys * n / (n - 1); }
double t_over_bandwidth(double V, double w_sum) { return V / w_sum; }
double t_allreduce_from_ag(double t_allgather) { return 2.0 * t_allgather; }
double t_alltoall_1d(double V, double w_ici) { return V / (4.0 * w_ici); }

double t_alltoall(double V, double max_axis, double n, double w_ici) {
  return V * max_axis / (4.0 * n * w_ici);
}

double t_alltoall_oneway(double V, double max_axis, double n, double w_uni) {
  return (max_axis - 1) * V / (2.0 * n * w_uni);
}

double t_alltoall_dcn(double V, double n, double w_dcn) { return (n - 1) * V / (n * n * w_dcn); }

double t_alltoall_nd(double v_total, const std::vector<double>& dims, double w_ici) {
  double n = 1, mx = 1;
  for (double d : dims) {
    n *= d;
    mx = std::max(mx, d);
  }
  return t_alltoall(v_total, mx, n, w_ici);
}

double t_alltoall_per_device(double v_per_device, double max_axis, double w_ici) {
  return v_per_device * max_axis / (4.0 * w_ici);
}

double alltoall_chunk_hops_bidi(long long n) {
  // Chunks for the devices 1..N/2 steps away one way and 1..N/2-1 steps the other way.
  double hops = 0;
  for (long long k = 1; k <= n / 2; ++k) hops += static_cast<double>(k);
  for (long long k = 1; k <= n / 2 - 1; ++k) hops += static_cast<double>(k);
  return hops;
}

double time_ratio(double t_a, double t_b) { return t_a / t_b; }
double ring_chunk_ag(double V, double n) { return V / n; }
double ring_chunk_a2a(double V, double n) { return V / (n * n); }
double achieved_bw(double fraction, double w_uni) { return fraction * w_uni; }

// ------------------------------------------------------------------ A3: Question 4

double strategy1_batch_threshold(double peak, double w_ici) { return peak / w_ici; }
double strategy2_width_threshold(double peak, double w_ici) { return 2.0 * peak / w_ici; }
double strategy2_max_axis(double d, double peak, double w_ici) { return d * w_ici / (2.0 * peak); }
double strategy2_min_width(double x, double peak, double w_ici) { return 2.0 * x * peak / w_ici; }

// ------------------------------------------------------------------ Question 10

double ag_link_scalars_oneway(double n, double d) { return (d - 1.0) * (n / d) * n; }
double a2a_link_blocks_oneway(double d) { return d * (d - 1.0) / 2.0; }
double a2a_link_scalars_oneway(double n, double d) {
  return (n / d) * (n / d) * a2a_link_blocks_oneway(d);
}
double ag_link_scalars_bidi(double n, double d) { return ag_link_scalars_oneway(n, d) / 2.0; }
double a2a_link_blocks_bidi(double d) { return (d / 2.0) * (d / 2.0 + 1.0) / 2.0; }
double a2a_link_scalars_bidi(double n, double d) {
  return (n / d) * (n / d) * a2a_link_blocks_bidi(d);
}
double per_d_squared(double h, double d) { return h / (d * d); }

}  // namespace sb::sharding
