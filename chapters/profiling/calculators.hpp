// The profiling chapter's calculator runs, shared by calculators.cpp (the table) and their files.
#pragma once
#include "core/error.hpp"
#include "core/registry.hpp"

namespace sb::profiling {
void hlo_calc(const Inputs& in, Trace& tr, Result& r);     // calculators_hlo.cpp (heavy)
void tiling_calc(const Inputs& in, Trace& tr, Result& r);  // calculators_tiling.cpp
void worked_calc(const Inputs& in, Trace& tr, Result& r);  // calculators_worked.cpp

// The reader's HBM bandwidth (0: none given): below 1 MB/s no HBM is that slow, and a time over
// it would not be finite, so that is an error naming hbm_bw.
inline double hbm_given(const Inputs& in) {
  const double w = in.num("hbm_bw");
  if (w > 0 && w < 1e6) fail("hbm_bw", "give 0 (the chip's) or at least 1 MB/s", "out_of_range");
  return w;
}
}  // namespace sb::profiling
