// What the sharding chapter's problems_*.cpp files share: the section adders and the helpers
// that turn a problem's inputs into the model's (links, axes, wraparound, matmuls, plans).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "chapters/sharding/model.hpp"
#include "chapters/sharding/notation.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/units.hpp"

namespace sb::sharding {

void add_problems_notation(Registry& r);      // problems_notation.cpp
void add_problems_collectives(Registry& r);   // problems_collectives.cpp
void add_problems_matmuls(Registry& r);       // problems_matmuls.cpp
void add_problems_matmul_costs(Registry& r);  // problems_matmul_costs.cpp
void add_problems_ring_traffic(Registry& r);  // problems_ring_traffic.cpp

using Vars = std::map<std::string, double>;

inline double at(const Vars& v, const char* k) { return v.at(k); }

// A link given by the problem: one-way bandwidth and per-hop latency.
inline Link link_of(double w_uni, double t_hop) {
  Link l;
  l.w_uni = w_uni;
  l.t_hop = t_hop;
  return l;
}

inline std::vector<Axis> axes_of(const Mesh& m, const std::vector<std::string>& names,
                                 const std::vector<bool>& wrap) {
  std::vector<Axis> out;
  for (const auto& n : names) {
    if (m.size(n) < 1)  // the problems' meshes come from their "mesh" given
      fail("mesh", "the mesh has no axis " + n + ", which this problem communicates over");
    Axis a;
    a.name = n;
    a.size = static_cast<double>(m.size(n));
    for (std::size_t k = 0; k < m.names.size(); ++k)
      if (m.names[k] == n) a.wrap = wrap[k];
    out.push_back(a);
  }
  return out;
}

// The mesh's axes wired as a slice of that shape on the chip (the tpus chapter's rule).
inline std::vector<bool> chip_wraps(const std::string& chip, const Mesh& m) {
  return tpus::wraps(hw::chip(chip), tpus::Dims(m.sizes.begin(), m.sizes.end()));
}

// "(8, 2048)" -> {8, 2048}
inline std::vector<double> shape_of(const std::string& t, const std::string& field) {
  std::vector<double> out;
  std::string cur;
  for (char c : t + ",") {
    if (c == ',') {
      auto b = cur.find_first_not_of(" ()[]"), e = cur.find_last_not_of(" ()[]");
      if (b != std::string::npos)
        out.push_back(units::parse(cur.substr(b, e - b + 1), "count", field));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (out.empty()) fail(field, "give the shape as (rows, cols)");
  return out;
}

// The problem's matmul: parsed shardings on a parsed mesh, on a link with the given bandwidth.
inline MatmulInput matmul_of(const Inputs& in, const std::string& a, const std::string& b, double I,
                             double J, double K, const std::string& wrap, double w_uni, double peak,
                             const std::string& fa = "sharding_A",
                             const std::string& fb = "sharding_B") {
  MatmulInput mi;
  mi.mesh = parse_mesh(in.text("mesh"), "mesh");
  mi.a = parse_sharding(a, fa);
  mi.b = parse_sharding(b, fb);
  mi.I = I;
  mi.J = J;
  mi.K = K;
  mi.bytes_per_elem = 2;
  mi.peak_flops = peak;
  mi.link = link_of(w_uni, 0);  // bandwidth terms only: the answers scale with the sizes
  mi.wrap.assign(mi.mesh.names.size(), wrap == "all");
  return mi;
}

// analyze_matmul with its errors named by the problem's givens: the model names its operands
// "a" and "b", which a problem states as `fa` and `fb` (a sharding given, or the mesh when the
// shardings are fixed and only the mesh can make them not fit).
inline MatmulAnalysis analyze_as(const MatmulInput& mi, Trace* tr, const std::string& fa,
                                 const std::string& fb) {
  try {
    return analyze_matmul(mi, tr);
  } catch (const InputError& e) {
    if (e.field == "a") fail(fa, e.what(), e.code);
    if (e.field == "b") fail(fb, e.what(), e.code);
    throw;
  }
}

inline const Plan* find_plan(const MatmulAnalysis& an, const std::string& last_kind,
                             const std::string& first_kind = "") {
  auto match = [&](const Plan& p) {
    return !p.steps.empty() && p.steps.back().kind == last_kind &&
           (first_kind.empty() || p.steps.front().kind == first_kind);
  };
  if (match(an.plan)) return &an.plan;
  for (const auto& p : an.alternatives)
    if (match(p)) return &p;
  fail("sharding_A", "the analysis found no plan ending in " + last_kind);
}

}  // namespace sb::sharding
