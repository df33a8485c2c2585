// What the roofline chapter's calculators_*.cpp files share: the chip's levels a calculation
// needs, the roofline plot's JSON, text built without temporaries, and the parameter makers.
#pragma once
#include <initializer_list>
#include <span>
#include <vector>

#include "chapters/roofline/levels.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/units.hpp"

namespace sb::roofline {

void add_figure_calculators(Registry& r);  // calculators_figures.cpp: roofs, batch, dot

// The largest tensor sizes we accept: far beyond any real model, small enough that every product
// stays a finite double.
inline constexpr double kMaxTokens = 1e9;
inline constexpr double kMaxDim = 1e7;

inline constexpr Text kComputeDtypes = "fp32|bf16|fp8|int8|int4";

// A tensor dimension: a whole number from 1 up to max.
constexpr Param size(Text name, Text unit, double def, Text doc, double max) {
  return num(name, unit, def, doc, 1, max, true);
}
// A number where 0 means "take it from elsewhere".
constexpr Param zero_ok(Param p) {
  p.positive = false;
  return p;
}

// A level of the chip (levels.hpp) the calculation needs: its bandwidth, or an error naming
// `field` that says in words why the chip has none.
LevelBw need_level(const hw::Chip& c, Level l, Text field);

// A roof of the plot: a memory level or link, by name, with its bandwidth.
struct Roof {
  Text name;
  double bw = 0;
};

// A log-spaced grid from lo to hi with the marks themselves (sorted here) in increasing order.
// A curve made of straight pieces in log-log space, kinked only at marks, is exact between them.
std::vector<double> log_grid(double lo, double hi, double* marks, size_t n_marks);

// What the page's roofline plot draws, written as the response's "plot": each roof's attainable
// FLOPs/s over a grid of intensities (roofs[0] is the one the operation runs against), its ridge,
// and the operation as a point with its fraction of the peak.
// {"peak", "bw", "ridge", "point", "fraction_of_peak", "ridge_point", "intensity": [x...],
//  "roofs": [{"name", "bw", "ridge", "flops_per_s": [y...]}], "memory"?, "full_peak"?}
void roofline_plot(Result& r, double peak, std::span<const Roof> roofs, double intensity,
                   double flops_per_s, Text memory = {}, double full_peak = 0);

// JSON written as text: `before` then the value (a number, a string, an array of numbers).
void put(Out& out, Text before, double v);
void put(Out& out, Text before, Text v);
void put(Out& out, Text before, const std::vector<double>& xs);

// Text built in a buffer (cleared first), for labels and notes: no std::string temporaries, each
// of which costs module size. The view lasts until `out` is used again.
Text joined(Out& out, std::initializer_list<Text> parts);
inline Text joined(Out& out, Text a, Text b) { return joined(out, {a, b}); }
// A number appended as the core writes it (4 significant digits).
void put_number(Out& out, double v);
// A number as text for joined(): Number(240.2).text.
struct Number {
  char buf[units::kNumberRoom];
  Text text;
  explicit Number(double v) : text(buf, units::write_number(buf, v)) {}
};

}  // namespace sb::roofline
