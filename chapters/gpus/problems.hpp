// What the GPU chapter's problems_*.cpp files share: the section adders and small helpers. Every
// answer comes from the chapter's records (model.hpp, collectives.hpp, llm.hpp) applied to the
// problem's own givens; ids and slot names are those of shared/book/problems/gpus.json.
#pragma once
#include "chapters/gpus/formulas.hpp"
#include "core/error.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

namespace sb::gpus {

void add_problems_chip(Registry& r);         // problems_chip.cpp: Quiz 1, the chip examples
void add_problems_network(Registry& r);      // problems_network.cpp: Quizzes 2 and 3, the pod
void add_problems_collectives(Registry& r);  // problems_collectives.cpp: pop quizzes, Quiz 4
void add_problems_rooflines(Registry& r);    // problems_rooflines.cpp: Quiz 5, the DP/TP/EP/PP
                                             // examples, DeepSeek and LLaMA 3

// Givens with the ranges that keep every answer finite.
constexpr Param bw(Text name, double def, Text doc) { return rate(name, "B_per_s", def, doc); }
constexpr Param flops_rate(Text name, double def, Text doc) {
  return rate(name, "flop_per_s", def, doc);
}
constexpr Param clock(Text name, double def, Text doc) {
  return ranged(name, "hz", def, doc, 1e6, 1e11);
}
constexpr Param whole_count(Text name, double def, Text doc, double min = 1, double max = 1e7) {
  return count(name, def, doc, {}, min, max);
}
// A group of at least two GPUs or nodes (a ring of one has no (N - 1)/N).
constexpr Param group(Text name, double def, Text doc) { return whole_count(name, def, doc, 2); }
constexpr Param dim(Text name, double def, Text doc, double min = 1, double max = 1e7) {
  return whole_count(name, def, doc, min, max);
}
constexpr Param elem_bytes(double def = 2) {
  return per_param("bytes_per_elem", def, "bytes per element");
}

// A verdict as an answer: 1 when true, recorded as a sentence.
inline double verdict(Trace& tr, bool v, Text yes, Text no) {
  tr.note(v ? yes : no);
  return v ? 1 : 0;
}

}  // namespace sb::gpus
