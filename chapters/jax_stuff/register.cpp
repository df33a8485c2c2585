// Registers Part 10's calculators and problems (its record comes from chapter.json).
#include "chapters/jax_stuff/model.hpp"
#include "core/registry.hpp"

namespace sb::jax_stuff {
void add_calculators(Registry& r);  // calculators.cpp
void add_heavy(Registry& r);        // calculators.cpp
void add_problems(Registry& r);     // problems.cpp

// Three entry points, so that a page's first module links the light calculators alone, its
// exercises come in a second module and the jit calculator's run in a third, which the page's
// worker loads (CMakeLists.txt, sb_register_source).
void register_calculators(Registry& r) { add_calculators(r); }
void register_heavy(Registry& r) { add_heavy(r); }
void register_problems(Registry& r) {
  r.add(kFormulas);  // the formula sheet (op formulas) is the exercises module's
  add_problems(r);
}
}  // namespace sb::jax_stuff
