// Derivation steps the TPU chapter's calculators and problems share: a slice's chips, the hops
// between two chips axis by axis, the slice's largest distance, and a pipeline's stages with its
// two bounds. Every step is made from a formula record (model.hpp, or the roofline chapter's).
#pragma once
#include <initializer_list>
#include <span>
#include <stdexcept>
#include <string>

#include "chapters/roofline/model.hpp"
#include "chapters/tpus/model.hpp"
#include "core/trace.hpp"

namespace sb::tpus {

// tr.sum, or tr.max, over 1 to 6 terms known only at run time (Trace takes an initializer_list).
// Kept out of line: inlined, the compiler warns about the cases a caller's array cannot reach.
[[gnu::noinline]] inline double sum_or_max(Trace& tr, Text what, Text name, Text unit,
                                           std::span<const Trace::Term> t, bool is_max) {
  const auto go = [&](std::initializer_list<Trace::Term> l) {
    return is_max ? tr.max(what, name, unit, l) : tr.sum(what, name, unit, l);
  };
  switch (t.size()) {
    case 1:
      return go({t[0]});
    case 2:
      return go({t[0], t[1]});
    case 3:
      return go({t[0], t[1], t[2]});
    case 4:
      return go({t[0], t[1], t[2], t[3]});
    case 5:
      return go({t[0], t[1], t[2], t[3], t[4]});
    case 6:
      return go({t[0], t[1], t[2], t[3], t[4], t[5]});
    default:
      throw std::logic_error("sum_or_max takes 1 to 6 terms");
  }
}

// The chips of a slice, N = n_x n_y n_z, from the record of its rank (1 to 3 axes).
inline double chips_step(Trace& tr, Text what, const Dims& d) {
  if (d.size() == 1) return tr.step(what, kChips1, {double(d[0])});
  if (d.size() == 2) return tr.step(what, kChips2, {double(d[0]), double(d[1])});
  return tr.step(what, kChips3, {double(d[0]), double(d[1]), double(d[2])});
}

// "Axis 1 (a ring)": the words of an axis's step.
inline std::string axis_words(size_t i, bool wrap) {
  return "Axis " + std::to_string(i) + (wrap ? " (a ring)" : " (a line)");
}

// The hops from chip a to chip b: each axis's distance (round a ring the shorter way), then
// their sum h.
inline double hops_steps(Trace& tr, const Torus& t, const Dims& a, const Dims& b, Text what) {
  static constexpr Text kNames[] = {"d_0", "d_1", "d_2"};
  Trace::Term terms[3];
  for (size_t i = 0; i < t.dims.size() && i < 3; ++i) {
    const double ai = a[i], bi = b[i], n = t.dims[i];
    const std::string w = axis_words(i, t.wrap[i]) + ": the distance along it";
    terms[i] = {kNames[i],
                t.wrap[i] ? tr.step(w, kAxisRing, {ai, bi, n}) : tr.step(w, kAxisLine, {ai, bi})};
  }
  return sum_or_max(tr, what, "h", "count", {terms, t.dims.size()}, false);
}

// The largest distance in the slice: each axis's (floor(n/2) on a ring, n - 1 on a line), summed.
inline double max_distance_steps(Trace& tr, const Torus& t) {
  static constexpr Text kNames[] = {"m_0", "m_1", "m_2"};
  Trace::Term terms[3];
  for (size_t i = 0; i < t.dims.size() && i < 3; ++i) {
    const std::string w = axis_words(i, t.wrap[i]) + ": its largest distance";
    const double n = t.dims[i];
    terms[i] = {kNames[i], tr.step(w, t.wrap[i] ? kAxisMaxRing : kAxisMaxLine, {n})};
  }
  return sum_or_max(tr, "Largest distance in the slice", "h_max", "count", {terms, t.dims.size()},
                    false);
}

// Each stage's time from its record (compute: FLOPs / peak; a transfer: bytes / BW, plus its
// path's latency where it has one), then, for more than one stage, the two bounds: the slowest
// stage when they overlap fully, and their sum when they run one after another.
inline void pipeline_steps(Trace& tr, const Pipeline& p, Text lower_what, Text upper_what) {
  static constexpr Text kNames[] = {"T_1", "T_2", "T_3", "T_4", "T_5", "T_6"};
  Trace::Term terms[6];
  const size_t n = p.stages.size() < 6 ? p.stages.size() : 6;
  for (size_t i = 0; i < n; ++i) {
    const Stage& s = p.stages[i];
    terms[i] = {kNames[i],
                s.kind == "compute" ? tr.step(s.name, roofline::kTMath, {s.amount, s.rate})
                : s.latency > 0 ? tr.step(s.name, kTransferLatency, {s.amount, s.rate, s.latency})
                                : tr.step(s.name, roofline::kTComms, {s.amount, s.rate})};
  }
  if (n < 2) return;
  sum_or_max(tr, lower_what, "T_lower", "s", {terms, n}, true);
  sum_or_max(tr, upper_what, "T_upper", "s", {terms, n}, false);
}

}  // namespace sb::tpus
