// What the transformers chapter's problem files share: makers for their givens, and the book's
// habits of reading a number (rounded to a digit or two, "4M" read as 4 x 2^20), which the solvers
// apply to their inputs to compute the book's shortcut answers.
#pragma once
#include <cmath>

#include "chapters/transformers/model.hpp"
#include "core/registry.hpp"

namespace sb::transformers {

void add_problems_examples(Registry& r);   // problems_examples.cpp: the worked examples
void add_problems_counting(Registry& r);   // problems_counting.cpp: end-of-chapter Q1-Q3
void add_problems_questions(Registry& r);  // problems_questions.cpp: end-of-chapter Q4-Q8

namespace problems {

// A size of the model (layers, widths, heads, vocabulary): a whole number from 1 up.
constexpr Param dim(Text name, double def, Text doc, Variants variants = {}, double max = 1e7) {
  return count(name, def, doc, variants, 1, max);
}
// A token count (unit tokens).
constexpr Param token_count(Text name, double def, Text doc, Variants variants = {},
                            double max = 1e13) {
  Param p = count(name, def, doc, variants, 1, max);
  p.unit = "tokens";
  return p;
}
// Bytes per element: 0.5 (int4) to 8.
constexpr Param elem_bytes(Text name, double def, Text doc, Variants variants = {}) {
  return with_variants(num(name, "B", def, doc, 0.5, 8), variants);
}

// A chip figure or a run's total (a peak, a bandwidth, GPU-hours) in [lo, hi]: bounded away from 0
// and from overflow, so that their ratios stay finite.
constexpr Param figure(Text name, Text unit, double def, Text doc, Variants variants = {},
                       double lo = 1e6, double hi = 1e18) {
  return with_variants(num(name, unit, def, doc, lo, hi), variants);
}

// x rounded to `digits` significant digits (4096 -> 4000 with 1, 16384 -> 16000 with 2): the
// book's rounded factors.
inline double round_sig(double x, int digits) {
  if (x == 0 || !std::isfinite(x)) return x;
  const double scale = std::pow(10.0, digits - 1 - std::floor(std::log10(std::fabs(x))));
  return std::round(x * scale) / scale;
}

// A decimal-prefixed count read with binary prefixes: 4e6 ("4M") -> 4 x 2^20, 8e3 -> 8 x 2^10.
inline double binary_reading(double x) {
  int k = 0;
  while (k < 5 && std::fabs(x) >= std::pow(1e3, k + 1)) ++k;
  return x / std::pow(1e3, k) * std::pow(2.0, 10 * k);
}

// A dense configuration of the book's plain transformer (gated MLP, untied embeddings), validated:
// a variant whose K does not divide N is an InputError, and the variant is drawn again.
inline Config dense(double L, double D, double F, double N, double K, double H, double V = 0,
                    double norms_per_layer = 2) {
  Config c;
  c.L = L;
  c.D = D;
  c.F = F;
  c.N = N;
  c.K = K;
  c.H = H;
  c.V = V;
  c.norms_per_layer = norms_per_layer;
  return validated(c);
}

}  // namespace problems
}  // namespace sb::transformers
