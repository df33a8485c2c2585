// The roofline calculators' shared helpers (calculators.hpp): levels, the plot's grid and JSON,
// and text built in a buffer.
#include <algorithm>
#include <cmath>

#include "chapters/roofline/calculators.hpp"
#include "chapters/roofline/model.hpp"
#include "core/error.hpp"

namespace sb::roofline {
namespace {

// Intensities to draw the roofs over: 30x either side of the marks (the ridges and the
// operation). Each roof is straight in log-log space but at its ridge, which is on the grid.
std::vector<double> plot_intensities(double* marks, size_t n_marks) {
  double lo = marks[0], hi = marks[0];
  for (size_t i = 1; i < n_marks; ++i) {
    lo = std::min(lo, marks[i]);
    hi = std::max(hi, marks[i]);
  }
  return log_grid(std::max(lo / 30, 1e-3), hi * 30, marks, n_marks);
}

// {"intensity": x, "flops_per_s": y}
void put_point(Out& out, Text before, double x, double y) {
  out << before;
  put(out, "{\"intensity\":", x);
  put(out, ",\"flops_per_s\":", y);
  out << '}';
}

}  // namespace

LevelBw need_level(const hw::Chip& c, Level l, Text field) {
  LevelBw lv = level_bw(c, l);
  if (!(lv.bw > 0)) fail(field, lv.note, "no_figure");
  return lv;
}

std::vector<double> log_grid(double lo, double hi, double* marks, size_t n_marks) {
  for (size_t i = 1; i < n_marks; ++i)  // a handful of marks: insertion sort
    for (size_t j = i; j > 0 && marks[j] < marks[j - 1]; --j) std::swap(marks[j], marks[j - 1]);
  constexpr int kPoints = 49;
  const double step = std::pow(hi / lo, 1.0 / (kPoints - 1));
  std::vector<double> xs;
  xs.reserve(kPoints + n_marks);
  size_t m = 0;
  double x = lo;
  for (int i = 0; i < kPoints; ++i, x *= step) {
    if (i == kPoints - 1) x = hi;  // exactly, not as the product's rounding leaves it
    for (; m < n_marks && marks[m] <= x; ++m)
      if (xs.empty() || marks[m] > xs.back()) xs.push_back(marks[m]);
    if (xs.empty() || x > xs.back()) xs.push_back(x);
  }
  for (; m < n_marks; ++m)
    if (marks[m] > xs.back()) xs.push_back(marks[m]);
  return xs;
}

// The plot's JSON is written as text by these few functions, kept out of line: inlined at every
// use, the buffer's appends cost more module size than the plot's code itself.
[[gnu::noinline]] void put(Out& out, Text before, double v) {
  out << before;
  append_json(out, v);
}
[[gnu::noinline]] void put(Out& out, Text before, Text v) {
  out << before;
  append_json(out, v);
}
[[gnu::noinline]] void put(Out& out, Text before, const std::vector<double>& xs) {
  out << before << '[';
  for (size_t i = 0; i < xs.size(); ++i) put(out, i ? "," : "", xs[i]);
  out << ']';
}

void roofline_plot(Result& r, double peak, std::span<const Roof> roofs, double intensity,
                   double flops_per_s, Text memory, double full_peak) {
  double marks[8] = {intensity};
  size_t n_marks = 1;
  for (const Roof& roof : roofs.first(std::min<size_t>(roofs.size(), 7)))
    marks[n_marks++] = critical_intensity(peak, roof.bw);
  const std::vector<double> xs = plot_intensities(marks, n_marks);
  const double ridge = critical_intensity(peak, roofs[0].bw);
  Out& out = r.member("plot");
  put(out, "{\"peak\":", peak);
  put(out, ",\"bw\":", roofs[0].bw);
  put(out, ",\"ridge\":", ridge);
  put_point(out, ",\"point\":", intensity, flops_per_s);
  put(out, ",\"fraction_of_peak\":", fraction_of_peak(flops_per_s, peak));
  put_point(out, ",\"ridge_point\":", ridge, attainable_flops_per_s(ridge, peak, roofs[0].bw));
  put(out, ",\"intensity\":", xs);
  out << ",\"roofs\":[";
  std::vector<double> ys(xs.size());
  for (size_t k = 0; k < roofs.size(); ++k) {
    for (size_t i = 0; i < xs.size(); ++i) ys[i] = attainable_flops_per_s(xs[i], peak, roofs[k].bw);
    put(out, k ? ",{\"name\":" : "{\"name\":", roofs[k].name);
    put(out, ",\"bw\":", roofs[k].bw);
    put(out, ",\"ridge\":", critical_intensity(peak, roofs[k].bw));
    put(out, ",\"flops_per_s\":", ys);
    out << '}';
  }
  out << ']';
  if (!memory.empty()) put(out, ",\"memory\":", memory);
  if (full_peak > 0) put(out, ",\"full_peak\":", full_peak);
  out << '}';
}

[[gnu::noinline]] Text joined(Out& out, std::initializer_list<Text> parts) {
  out.clear();
  for (Text p : parts) out << p;
  return out.view();
}

[[gnu::noinline]] void put_number(Out& out, double v) {
  out.commit(units::write_number(out.room(units::kNumberRoom), v));
}

}  // namespace sb::roofline
