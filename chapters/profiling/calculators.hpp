// The profiling chapter's calculator runs, shared by calculators.cpp (the table) and their files.
#pragma once
#include "core/registry.hpp"

namespace sb::profiling {
void hlo_calc(const Inputs& in, Trace& tr, Result& r);     // calculators_hlo.cpp (heavy)
void tiling_calc(const Inputs& in, Trace& tr, Result& r);  // calculators_tiling.cpp
void worked_calc(const Inputs& in, Trace& tr, Result& r);  // calculators_worked.cpp
}  // namespace sb::profiling
