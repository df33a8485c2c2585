// Registers the inference chapter's formula records, calculators and problems (its record comes
// from chapter.json).
#include "chapters/inference/serving.hpp"
#include "core/registry.hpp"

namespace sb::inference {
void add_calculators(Registry& r);  // calculators.cpp
void add_problems(Registry& r);     // problems.cpp

void register_chapter(Registry& r) {
  r.add(kFormulas);
  add_calculators(r);
  add_problems(r);
}
}  // namespace sb::inference
