// Registers the tpus chapter's calculators and problems.
#include "core/registry.hpp"

namespace sb::tpus {
void register_calculators(Registry& r);  // calculators.cpp
void register_problems(Registry& r);     // problems.cpp

void register_all(Registry& r) {
  register_calculators(r);
  register_problems(r);
}
}  // namespace sb::tpus
