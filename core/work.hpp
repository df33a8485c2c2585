#pragma once
// How much of its work bound a search may use. Every search that grows with its inputs (the
// training planner, the inference sweeps) stops at a bound and says so; the bound is the one
// written in its chapter times this share: 1 on a page and in the CLI. fuzz_calc sets a hundredth,
// so that a call costs about what a typical one does and the "the search stopped" paths are
// taken often.

namespace sb {

void set_work_share(double share);  // a share outside (0, 1] is taken as 1
double work_bound(double n);        // n times the share, whole, at least 1

}  // namespace sb
