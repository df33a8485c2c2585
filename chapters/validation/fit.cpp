// Fitting the efficiency factors to the runs, and the error summary.
#include <algorithm>
#include <cmath>
#include <vector>

#include "chapters/validation/model.hpp"

namespace sb::validation {

namespace {

// The sum over the runs with a measured figure of |log(expected / measured)|.
double loss(const std::vector<Scenario>& runs, const Factors& f) {
  double sum = 0;
  for (const Scenario& s : runs) {
    const Prediction p = predict(s, f);
    if (!(p.measured > 0) || !(p.expected.primary > 0)) continue;
    const double e = std::log(p.expected.primary / p.measured);
    sum += e * e;
  }
  return sum;
}

}  // namespace

Factors fit(const std::vector<Scenario>& runs) {
  Factors best = kFitted;
  double best_loss = loss(runs, best);
  double* const fields[] = {&best.mxu_tpu, &best.mxu_gpu, &best.mxu_fp8, &best.link,
                            &best.hbm,     &best.moe,     &best.vector};
  for (int round = 0; round < 4; ++round) {
    bool moved = false;
    for (double* x : fields) {
      const double keep = *x;
      double arg = keep;
      for (int i = 10; i <= 100; ++i) {
        *x = i / 100.0;
        const double l = loss(runs, best);
        if (l < best_loss - 1e-12) best_loss = l, arg = *x;
      }
      *x = arg;
      moved = moved || arg != keep;
    }
    if (!moved) break;
  }
  return best;
}

Summary summarize(const std::vector<Prediction>& p, const std::vector<Scenario>& s) {
  Summary out;
  std::vector<double> errs;
  for (size_t i = 0; i < p.size(); ++i) {
    if (!(p[i].measured > 0)) continue;
    const double e = std::abs(p[i].error);
    errs.push_back(e);
    if (e >= out.worst) out.worst = e, out.worst_id = s[i].id;
  }
  if (errs.empty()) return out;
  std::sort(errs.begin(), errs.end());
  const size_t n = errs.size();
  out.median = n % 2 ? errs[n / 2] : (errs[n / 2 - 1] + errs[n / 2]) / 2;
  return out;
}

}  // namespace sb::validation
