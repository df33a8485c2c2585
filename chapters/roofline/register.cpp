// Registers the roofline chapter's calculators and problems.
#include "core/registry.hpp"

namespace sb::roofline {
void add_calculators(Registry& r);  // calculators.cpp
void add_problems(Registry& r);     // problems.cpp

void register_all(Registry& r) {
  add_calculators(r);
  add_problems(r);
}
}  // namespace sb::roofline
