// Registers the gpus chapter's formulas, calculators and problems (its record comes from
// chapter.json).
#include "chapters/gpus/formulas.hpp"
#include "core/registry.hpp"

namespace sb::gpus {
void add_calculators(Registry& r);  // calculators_table.cpp
void add_problems(Registry& r);     // problems.cpp

void register_chapter(Registry& r) {
  r.add(kFormulas);
  add_calculators(r);
  add_problems(r);
}
}  // namespace sb::gpus
