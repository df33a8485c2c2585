// The GPU chapter's calculators, one file per widget of the page.
#pragma once
#include "core/registry.hpp"

namespace sb::gpus {

void chip_calc(const Inputs& in, Trace& tr, Result& r);        // calculators.cpp
void network_calc(const Inputs& in, Trace& tr, Result& r);     // calculators.cpp
void collective_calc(const Inputs& in, Trace& tr, Result& r);  // calculators_collectives.cpp
void llm_calc(const Inputs& in, Trace& tr, Result& r);         // calculators_llm.cpp
void fit_calc(const Inputs& in, Trace& tr, Result& r);         // calculators_fit.cpp

}  // namespace sb::gpus
