// A.8: what a shard_map function returns on each device: the chapter's slice_and_average, each
// device's block of arange(n), its first k elements, and a pmean (or psum) over mesh axes.
#include <algorithm>
#include <string>
#include <vector>

#include "chapters/jax_stuff/model.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace sb::jax_stuff {

namespace {

namespace sh = sharding;

bool has_axis(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Each device's coordinates, the devices in mesh order (the last axis fastest).
std::vector<std::vector<long long>> device_coords(const Mesh& m) {
  std::vector<std::vector<long long>> out;
  const long long n = m.devices();
  for (long long d = 0; d < n; ++d) {
    std::vector<long long> c(m.sizes.size());
    long long r = d;
    for (std::size_t k = m.sizes.size(); k-- > 0;) {
      c[k] = r % m.sizes[k];
      r /= m.sizes[k];
    }
    out.push_back(c);
  }
  return out;
}

// Index along `axes` (major to minor) of a device's coordinates.
long long index_along(const Mesh& m, const std::vector<long long>& c,
                      const std::vector<std::string>& axes) {
  long long idx = 0;
  for (const auto& a : axes) {
    const auto k =
        static_cast<std::size_t>(std::find(m.names.begin(), m.names.end(), a) - m.names.begin());
    idx = idx * m.sizes[k] + c[k];
  }
  return idx;
}

void check_reduce(const ShardMapInput& in) {
  for (std::size_t k = 0; k < in.reduce.size(); ++k) {
    if (!in.mesh.has(in.reduce[k]))
      fail("reduce", "the mesh " + in.mesh.text() + " has no axis '" + in.reduce[k] + "'",
           "unknown_axis");
    for (std::size_t l = 0; l < k; ++l)
      if (in.reduce[l] == in.reduce[k])
        fail("reduce", "axis '" + in.reduce[k] + "' is named twice", "axis_reused");
  }
}

// The result's axes: shard_map's out_specs must name every axis the result varies along.
std::vector<std::string> out_axes(const ShardMapInput& in, const std::vector<std::string>& varies) {
  const Sharding o = sh::spec_sharding(in.out_spec, in.mesh, "out", {"K"}, "out_spec");
  const auto& axes = o.dims[0].axes;
  for (const auto& v : varies)
    if (!has_axis(axes, v))
      fail("out_spec",
           sh::spec_text(in.out_spec) +
               " says the result is the same on every "
               "device along '" +
               v + "', but it differs along it: reduce over '" + v +
               "' too, or name it in out_specs",
           "varying_output");
  return axes;
}

// The derivation: the element values of the mean where the group holds every block once or
// more (the chapter's case, a record); else device 0's values as they come.
void trace_means(const ShardMapInput& in, const ShardMapResult& r,
                 const std::vector<std::string>& axes, double blocks, Trace& tr) {
  const bool whole = r.varies.empty() && !in.sum;
  const std::string op = in.sum ? "psum" : "pmean";
  if (in.reduce.empty()) {
    tr.note("No collective: each device returns its own slice.");
    return;
  }
  tr.note(op + " over " + sh::axes_text(in.reduce) + ": an AllReduce over the devices along " +
          (in.reduce.size() > 1 ? "those axes" : "that axis") +
          (in.sum ? "" : ", then a division by their count"));
  const std::size_t shown = std::min<std::size_t>(r.device_out[0].size(), 8);
  for (std::size_t j = 0; j < shown; ++j) {
    const std::string what = "Element " + std::to_string(j) + " of the result";
    if (whole && !axes.empty())
      tr.step(
          what + ", the mean of $x[b \\cdot n_{loc} + " + std::to_string(j) + "]$ over the blocks",
          kArangeMean, {r.local_len, blocks, static_cast<double>(j)});
    else
      tr.value(what + " on device 0", r.device_out[0][j], "count");
  }
}

}  // namespace

ShardMapResult shard_map_slice_mean(const ShardMapInput& in, Trace* tr) {
  if (in.in_spec.entries.size() > 1)
    fail(in.spec_field,
         in.spec_field + ": arange gives a 1-D array; its PartitionSpec has one entry at most",
         "too_many_entries");
  const Sharding s = sh::spec_sharding(in.in_spec, in.mesh, "x", {"N"}, in.spec_field);
  sh::check_divisible(s, in.mesh, {in.n}, in.n_field);
  check_reduce(in);
  const auto& axes = s.dims[0].axes;
  const double blocks = sh::shards_of(s.dims[0], in.mesh);
  ShardMapResult r;
  r.local_len = tr ? tr->step("Elements on each device", sh::kLocalSize, {in.n, blocks})
                   : sh::local_size(in.n, blocks);
  if (in.k > r.local_len)
    fail(in.k_field,
         "each device holds " + units::number(r.local_len, 15) + " elements, fewer than " +
             units::number(in.k, 15),
         "out_of_range");
  for (const auto& a : axes)
    if (!has_axis(in.reduce, a)) r.varies.push_back(a);
  const auto oa = out_axes(in, r.varies);
  const auto coords = device_coords(in.mesh);
  for (const auto& c : coords) {
    std::vector<double> vals(static_cast<std::size_t>(in.k), 0.0);
    double g = 0;
    for (const auto& o : coords) {  // the devices of c's group: equal off the reduced axes
      bool same = true;
      for (std::size_t k = 0; k < c.size(); ++k)
        same = same && (has_axis(in.reduce, in.mesh.names[k]) || o[k] == c[k]);
      if (!same) continue;
      g += 1;
      const double blk = static_cast<double>(index_along(in.mesh, o, axes));
      for (std::size_t j = 0; j < vals.size(); ++j) vals[j] += blk * r.local_len + j;
    }
    if (!in.sum)
      for (auto& v : vals) v /= g;
    r.device_out.push_back(vals);
  }
  // The global result: each device's values laid end to end along the out spec's axes.
  Mesh om;
  for (const auto& a : oa) {
    om.names.push_back(a);
    om.sizes.push_back(in.mesh.size(a));
  }
  for (long long b = 0; b < om.devices(); ++b)
    for (std::size_t d = 0; d < coords.size(); ++d) {
      if (index_along(in.mesh, coords[d], oa) != b) continue;
      r.out.insert(r.out.end(), r.device_out[d].begin(), r.device_out[d].end());
      break;
    }
  if (tr) trace_means(in, r, axes, blocks, *tr);
  return r;
}

}  // namespace sb::jax_stuff
