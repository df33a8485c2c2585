// Which block of each array every device holds (write_blocks, model.hpp), for the blocks widget.
// The matmul and local-shape calculators write it on every call, a loop over devices x arrays x
// dimensions, so this file stays at -O2 while the chapter's other glue compiles at -Oz
// (CMakeLists.txt); a subscript's axes are found in the mesh once per dimension, not per device.
#include "chapters/sharding/model.hpp"

namespace sb::sharding {

void write_blocks(JsonWriter& w, const Mesh& m,
                  const std::vector<std::pair<std::string, Sharding>>& arrays,
                  const std::vector<std::vector<double>>& sizes) {
  const long long n = m.devices();
  w.obj().key("mesh").obj().key("names").strs(m.names).key("sizes").arr();
  for (long long v : m.sizes) w.integer(v);
  w.end().end().key("devices").integer(n);
  if (n > 1024) {
    w.key("omitted").str("more than 1024 devices: too many to draw").end();
    return;
  }
  // Each device's coordinates, row-major over the mesh axes (the first axis is the slowest).
  const std::size_t rank = m.sizes.size();
  std::vector<long long> coords(static_cast<std::size_t>(n) * rank);
  for (long long id = 0; id < n; ++id) {
    long long r = id;
    for (std::size_t k = rank; k-- > 0;) {
      coords[static_cast<std::size_t>(id) * rank + k] = r % m.sizes[k];
      r /= m.sizes[k];
    }
  }
  w.key("coords").arr();
  for (long long id = 0; id < n; ++id) {
    w.arr();
    for (std::size_t k = 0; k < rank; ++k)
      w.integer(coords[static_cast<std::size_t>(id) * rank + k]);
    w.end();
  }
  w.end().key("arrays").arr();
  std::vector<std::size_t> axis, per_dim;  // the mesh axes of each dimension's subscript, in order
  for (std::size_t ai = 0; ai < arrays.size(); ++ai) {
    const auto& [label, s] = arrays[ai];
    w.obj().key("label").str(label).key("text").str(s.text()).key("dims").arr();
    for (std::size_t d = 0; d < s.dims.size(); ++d)
      w.obj()
          .key("name")
          .str(s.dims[d].name)
          .key("axes")
          .strs(s.dims[d].axes)
          .key("size")
          .num(d < sizes[ai].size() ? sizes[ai][d] : 0.0)
          .key("blocks")
          .num(shards_of(s.dims[d], m))
          .end();
    axis.clear();
    per_dim.clear();
    for (const auto& dim : s.dims) {
      const std::size_t before = axis.size();
      for (const auto& a : dim.axes)
        for (std::size_t k = 0; k < rank; ++k)
          if (m.names[k] == a) axis.push_back(k);
      per_dim.push_back(axis.size() - before);
    }
    // A device's block along a dimension: its coordinates on the subscript's axes, read as one
    // number with the first axis the most significant.
    w.end().key("holds").arr();
    for (long long id = 0; id < n; ++id) {
      const long long* c = &coords[static_cast<std::size_t>(id) * rank];
      w.arr();
      std::size_t p = 0;
      for (std::size_t count : per_dim) {
        long long idx = 0;
        for (const std::size_t end = p + count; p < end; ++p)
          idx = idx * m.sizes[axis[p]] + c[axis[p]];
        w.integer(idx);
      }
      w.end();
    }
    w.end()
        .key("unreduced")
        .strs(s.unreduced)
        .key("replication")
        .num(replication_factor(s, m))
        .end();
  }
  w.end().end();
}

}  // namespace sb::sharding
