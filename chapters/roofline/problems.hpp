// What the roofline chapter's problems_*.cpp files share: the section adders, input makers,
// the book's symbols for formula slots, hint texts and variant values.
#pragma once
#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "chapters/roofline/model.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"

namespace sb::roofline {

void add_problems_examples(Registry& r);   // problems_examples.cpp
void add_problems_questions(Registry& r);  // problems_questions.cpp

using Vars = std::map<std::string, double>;

constexpr Param tokens(Text name, double def, Text doc, Variants variants = {}) {
  Param p = count(name, def, doc, variants, 1, 1e9);
  p.unit = "tokens";
  return p;
}
// Element size in bytes: one of the sizes the book uses (fp32 4 ... int4 0.5).
constexpr Param elem_bytes(double def, Text doc) {
  return num("bytes_per_elem", "B", def, doc, 0.5, 8);
}

inline double at(const Vars& v, const char* k) { return v.at(k); }

// Sampling ranges for the book's symbols (log-uniform).
inline constexpr Slot::Var kB{"B", "batch tokens", 1, 4096};
inline constexpr Slot::Var kD{"D", "contracting dimension", 128, 65536};
inline constexpr Slot::Var kF{"F", "output dimension", 128, 65536};
inline constexpr Slot::Var kBDF[] = {kB, kD, kF};
inline constexpr Slot::Var kN[] = {{"N", "vector length", 1, 1e6}};
inline constexpr Slot::Var kBmBn[] = {{"bm", "output-tile rows", 8, 4096},
                                      {"bn", "output-tile columns", 8, 4096}};
inline constexpr Slot::Var kBDFPW[] = {
    kB, kD, kF, {"P", "int8 peak OPs/s", 1e13, 1e16}, {"W", "HBM bandwidth in B/s", 1e10, 1e13}};

inline constexpr Text kTwoForMultiplyAdd =
    "Each (b, d, f) term is one multiply and one add: a matmul is 2BDF operations, not BDF.";
inline constexpr Text kInt8OneByte = "int8 is 1 byte per element, not 2 as for bf16.";

// Peaks and bandwidths from the chip tables, for variants.
inline constexpr double kPeaks[] = {1.97e14, 4.59e14, 9.2e14, 2.3e15};
inline constexpr double kHbm[] = {8.2e11, 1.6e12, 2.8e12, 7.4e12};

}  // namespace sb::roofline
