// The ICI torus (A.10): which axes wrap on each chip, the slice a chip comes in, distances and
// routes between chips, neighbours, and the links and bandwidth across the cheapest halving.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "chapters/tpus/model.hpp"
#include "chapters/tpus/text.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace sb::tpus {

using text::clip;
using text::lower;
using text::trim;

WrapRule wrap_rule(const hw::Chip& chip) {
  WrapRule r;
  const char* key = nullptr;
  if (chip.has("wrap_if_all_axes_multiple_of")) {
    key = "wrap_if_all_axes_multiple_of";
    r.kind = WrapRule::Kind::AllMultiple;
  } else if (chip.has("wrap_if_axis_length")) {
    key = "wrap_if_axis_length";
    r.kind = WrapRule::Kind::AxisLength;
  } else {
    r.text = "the tables give " + chip.name + " no wraparound rule: no axis wraps";
    return r;
  }
  r.n = static_cast<int>(chip.get(key));
  r.assumed = chip.specs.at(key).source == "modelling choice";
  const std::string n = std::to_string(r.n);
  if (r.kind == WrapRule::Kind::AllMultiple) {
    const int rank = chip.has("torus_dims") ? static_cast<int>(chip.get("torus_dims")) : 3;
    std::string cube = n;
    for (int i = 1; i < rank; ++i) cube += "x" + n;
    r.text = std::to_string(rank) + "D slices built from " + cube +
             " cubes joined by optical switches: every axis wraps if and only if every axis is a "
             "multiple of " +
             n + " (whole cubes)";
    if (r.assumed)
      r.text +=
          "; the book states no rule for " + chip.name + ", so the cube rule is our assumption";
  } else {
    const std::string pod = chip.has("max_pod") ? chip.get_text("max_pod") + " " : "";
    r.text = "one fixed " + pod +
             "torus without optical switches: an axis wraps if and only if it spans the pod's "
             "side (" +
             n + ")";
    if (r.assumed)
      r.text += "; the book states no rule for " + chip.name + ", so this rule is our assumption";
  }
  return r;
}

size_t torus_rank(const hw::Chip& chip) {
  return chip.has("torus_dims") ? static_cast<size_t>(chip.get("torus_dims")) : 0;
}

std::vector<bool> wraps(const hw::Chip& chip, const Dims& dims) {
  return wraps(wrap_rule(chip), torus_rank(chip), dims);
}

std::vector<bool> wraps(const WrapRule& r, size_t rank, const Dims& dims) {
  std::vector<bool> w(dims.size(), false);
  if (r.kind == WrapRule::Kind::AllMultiple) {
    bool cubes = !dims.empty() && dims.size() >= rank;  // a missing axis has length 1
    for (int v : dims) cubes = cubes && v % r.n == 0;
    w.assign(dims.size(), cubes);
  } else if (r.kind == WrapRule::Kind::AxisLength) {
    for (size_t i = 0; i < dims.size(); ++i) w[i] = dims[i] == r.n;
  }
  for (size_t i = 0; i < dims.size(); ++i) w[i] = w[i] && dims[i] >= 3;
  return w;
}

double hop_latency(const hw::Chip& chip) {
  return chip.has("ici_hop_latency") ? chip.get("ici_hop_latency") : kTypicalHopLatency;
}

namespace {
// Whether a figure's source or note says the tables inferred it ("infer" in any case), read in
// place: every calculator that times a slice asks.
bool mentions_infer(std::string_view s) {
  constexpr std::string_view w = "infer";
  for (size_t i = 0; i + w.size() <= s.size(); ++i) {
    size_t k = 0;
    while (k < w.size() && std::tolower(static_cast<unsigned char>(s[i + k])) == w[k]) ++k;
    if (k == w.size()) return true;
  }
  return false;
}
}  // namespace

Topology topology_of(const hw::Chip& chip, const std::string& field) {
  if (chip.kind != "tpu")
    fail(field,
         "The " + chip.name +
             " is a GPU: it has no ICI torus (its GPUs talk over NVLink through switches). "
             "Slices and tori are a TPU notion: pick a TPU.",
         "bad_chip");
  Topology t;
  t.chip = chip.id;
  t.torus_dims = static_cast<int>(chip.get("torus_dims", field));
  t.max_pod = parse_shape(chip.get_text("max_pod", field), field);
  const auto& spec = chip.specs.at("torus_dims");
  t.inferred = mentions_infer(spec.source) || mentions_infer(spec.note);
  t.rule = wrap_rule(chip);
  return t;
}

Dims default_slice(const hw::Chip& chip) {
  return topology_of(chip).torus_dims >= 3 ? Dims{4, 4, 4} : Dims{4, 4};
}

bool fits_in_pod(const Topology& topo, const Dims& dims) {
  if (static_cast<int>(dims.size()) > topo.torus_dims) return false;
  // Fixed tori: axis by axis (sorted). Cube-built pods can be rewired by the optical switches, so
  // only the chip count and the longest axis are bounded.
  Dims d = dims, pod = topo.max_pod;
  d.resize(std::max(d.size(), pod.size()), 1);
  pod.resize(d.size(), 1);
  std::sort(d.rbegin(), d.rend());
  std::sort(pod.rbegin(), pod.rend());
  bool fits = chip_count(dims) <= chip_count(topo.max_pod) && d[0] <= pod[0];
  if (topo.rule.kind != WrapRule::Kind::AllMultiple)
    for (size_t i = 0; i < d.size(); ++i) fits = fits && d[i] <= pod[i];
  return fits;
}

Torus slice_torus(const hw::Chip& chip, const Dims& dims, const std::string& wrap_override,
                  const std::string& shape_field, const std::string& wrap_field) {
  Topology topo = topology_of(chip);
  if (static_cast<int>(dims.size()) > topo.torus_dims)
    fail(shape_field,
         chip.name + " has a " + std::to_string(topo.torus_dims) + "D torus, so '" +
             shape_text(dims) + "' has too many axes",
         "bad_shape");
  if (!fits_in_pod(topo, dims))
    fail(shape_field,
         "'" + shape_text(dims) + "' (" + units::number(chip_count(dims)) +
             " chips) does not fit in a " + chip.name + " pod, whose largest slice is " +
             shape_text(topo.max_pod) + " (" + units::number(chip_count(topo.max_pod)) + " chips)",
         "out_of_range");
  Torus t;
  t.dims = dims;
  std::string w = lower(trim(wrap_override));
  if (w.empty() || w == "auto") {
    t.wrap = wraps(topo.rule, static_cast<size_t>(topo.torus_dims), dims);
    return t;
  }
  if (w == "none") {
    t.wrap.assign(dims.size(), false);
  } else if (w == "all") {
    t.wrap.assign(dims.size(), true);
  } else {
    fail(wrap_field, wrap_field + " must be auto, none or all; got '" + clip(wrap_override) + "'",
         "bad_choice");
  }
  // A ring needs at least 3 chips to differ from a line; on 1 or 2 it adds no distinct link.
  for (size_t i = 0; i < dims.size(); ++i) t.wrap[i] = t.wrap[i] && dims[i] >= 3;
  return t;
}

int axis_distance(int a, int b, int n, bool wrap) {
  int d = std::abs(a - b);
  return wrap ? std::min(d, n - d) : d;
}

std::vector<int> hops_per_axis(const Torus& t, const Dims& a, const Dims& b) {
  std::vector<int> h;
  for (size_t i = 0; i < t.dims.size(); ++i)
    h.push_back(axis_distance(a[i], b[i], t.dims[i], t.wrap[i]));
  return h;
}

int hops(const Torus& t, const Dims& a, const Dims& b) {
  int s = 0;
  for (int h : hops_per_axis(t, a, b)) s += h;
  return s;
}

int axis_max_distance(int n, bool wrap) { return wrap ? n / 2 : n - 1; }

int max_distance(const Torus& t) {
  int s = 0;
  for (size_t i = 0; i < t.dims.size(); ++i) s += axis_max_distance(t.dims[i], t.wrap[i]);
  return s;
}

std::vector<Dims> route(const Torus& t, const Dims& from, const Dims& to) {
  std::vector<Dims> path{from};
  Dims cur = from;
  for (size_t i = 0; i < t.dims.size(); ++i) {
    int n = t.dims[i];
    int up = ((to[i] - cur[i]) % n + n) % n;  // steps going up (with wrap)
    int step;
    if (!t.wrap[i])
      step = to[i] > cur[i] ? 1 : -1;
    else
      step = up <= n - up ? 1 : -1;
    int count = axis_distance(cur[i], to[i], n, t.wrap[i]);
    for (int k = 0; k < count; ++k) {
      cur[i] = ((cur[i] + step) % n + n) % n;
      path.push_back(cur);
    }
  }
  return path;
}

std::vector<Dims> neighbours(const Torus& t, const Dims& c) {
  std::vector<Dims> out;
  for (size_t i = 0; i < t.dims.size(); ++i) {
    int n = t.dims[i];
    for (int step : {-1, 1}) {
      int v = c[i] + step;
      if (v < 0 || v >= n) {
        if (!t.wrap[i]) continue;
        v = (v + n) % n;
      }
      Dims d = c;
      d[i] = v;
      if (d != c && std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
    }
  }
  return out;
}

int ports_toward(const Torus& t, const Dims& a, const Dims& b) {
  int p = 0;
  for (int h : hops_per_axis(t, a, b)) p += h > 0;
  return p;
}

double bisection_links(const Torus& t) {
  double n = chip_count(t.dims), best = -1;
  for (size_t i = 0; i < t.dims.size(); ++i) {
    if (t.dims[i] < 2) continue;
    double links = n / t.dims[i] * (t.wrap[i] ? 2 : 1);
    if (best < 0 || links < best) best = links;
  }
  return best < 0 ? 0 : best;
}

double links_bw(double links, double bw) { return links * bw; }

double bisection_bw(const Torus& t, double bw) { return links_bw(bisection_links(t), bw); }

}  // namespace sb::tpus
