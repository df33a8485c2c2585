#include "core/work.hpp"

#include <algorithm>
#include <cmath>

namespace sb {

namespace {
double g_share = 1;
}  // namespace

void set_work_share(double share) { g_share = share > 0 && share <= 1 ? share : 1; }

double work_bound(double n) { return std::max(1.0, std::floor(n * g_share)); }

}  // namespace sb
