// Registers the validation page's calculator (its record comes from chapter.json). The page has no
// problems and no formulas of its own: every formula it runs is a chapter's.
#include "core/registry.hpp"

namespace sb::validation {
void add_calculators(Registry& r);  // calculators.cpp
void add_heavy(Registry& r);        // calculators.cpp

void register_calculators(Registry& r) { add_calculators(r); }
void register_heavy(Registry& r) { add_heavy(r); }
void register_problems(Registry&) {}
}  // namespace sb::validation
