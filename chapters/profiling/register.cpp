// Registers the profiling chapter's formulas, calculators and problems (its record comes from
// chapter.json).
#include "chapters/profiling/model.hpp"
#include "core/registry.hpp"

namespace sb::profiling {
void add_calculators(Registry& r);  // calculators.cpp
void add_heavy(Registry& r);        // calculators.cpp
void add_problems(Registry& r);     // problems.cpp

// Three entry points: the page's first module links the light calculators, its exercises module
// the problems, and the worker's module the HLO reader's run (CMakeLists.txt).
void register_calculators(Registry& r) { add_calculators(r); }
void register_heavy(Registry& r) { add_heavy(r); }
void register_problems(Registry& r) {
  r.add(kFormulas);
  add_problems(r);
}
}  // namespace sb::profiling
