// Part 10's problems (ids and slots as in shared/book/problems/jax-stuff.json), by section;
// problems.hpp holds what they share, defined here.
#include "chapters/jax_stuff/problems.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "chapters/tpus/torus.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"

namespace sb::jax_stuff {

Mesh mesh_of(const std::string& sizes, const std::string& axes) {
  Mesh m = sharding::parse_mesh(sizes, "mesh");
  if (axes.empty()) return m;
  std::vector<std::string> names;
  std::string cur;
  for (char c : axes + ",") {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      cur += c;
    } else if (!cur.empty()) {
      names.push_back(cur);
      cur.clear();
    }
  }
  if (names.size() != m.names.size())
    fail("axes",
         "the mesh has " + std::to_string(m.names.size()) + " axes, " +
             std::to_string(names.size()) + " names are given",
         "bad_mesh");
  for (std::size_t k = 0; k < names.size(); ++k)
    for (std::size_t l = 0; l < k; ++l)
      if (names[k] == names[l]) fail("axes", "'" + names[k] + "' is named twice", "bad_mesh");
  m.names = names;
  return m;
}

CmInput cm_of(const Inputs& in, CmKind kind, bool bidirectional) {
  const hw::Chip& c = hw::chip(in.text("chip"));
  const Mesh m = mesh_of(in.text("mesh"), in.text("axes"));
  if (m.sizes.size() != 2)
    fail("mesh", "the collective matmul runs on a mesh of two axes, X and the ring Y", "bad_mesh");
  // The model names its ring Y; here the mesh's second axis sets it.
  if (m.sizes[1] < 2)
    fail("mesh", "the ring (the second axis) needs at least 2 devices", "out_of_range");
  CmInput x;
  x.kind = kind;
  x.B = in.num("B");
  x.D = in.num("D");
  x.F = in.num("F");
  x.X = static_cast<double>(m.sizes[0]);
  x.Y = static_cast<double>(m.sizes[1]);
  const std::string dt = in.text("dtype");
  x.s = hw::dtype_bytes(dt, "dtype");
  x.peak = peak_for(c, dt, nullptr);
  x.bidirectional = bidirectional;
  x.link = ici_link(c, 0, tpus::hop_latency(c), bidirectional);
  x.wrap = tpus::wraps(c, {static_cast<int>(m.sizes[0]), static_cast<int>(m.sizes[1])})[1];
  return x;
}

// The sections in the book's order.
void add_problems(Registry& r) {
  add_problems_walkthroughs(r);
  add_problems_questions(r);
}

}  // namespace sb::jax_stuff
