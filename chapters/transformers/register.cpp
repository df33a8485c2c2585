// Registers the transformers chapter's formula records, calculators and problems (its record comes
// from chapter.json).
#include "chapters/transformers/model.hpp"
#include "core/registry.hpp"

namespace sb::transformers {
void add_calculators(Registry& r);  // calculators.cpp
void add_problems(Registry& r);     // problems.cpp

void register_chapter(Registry& r) {
  r.add(kFormulas);
  add_calculators(r);
  add_problems(r);
}
}  // namespace sb::transformers
