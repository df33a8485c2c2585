// The slices the planner searches (planner.hpp): a shape the chip comes in, every shape of a chip
// count, whole pods, and the chip counts a slider offers.
#include <cmath>
#include <string>
#include <vector>

#include "chapters/tpus/model.hpp"
#include "chapters/training/planner.hpp"
#include "chapters/training/planner_detail.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/units.hpp"

namespace sb::training {

using detail::count_text;
using detail::kMaxPods;

// ------------------------------------------------------------------ topology

double Slice::chips() const {
  double n = 1;
  for (int d : dims) n *= d;
  return n;
}

Topology topology_for_shape(const hw::Chip& chip, std::string_view shape, double pods,
                            std::string_view field) {
  const std::string f(field);
  const tpus::Dims dims = tpus::parse_shape(std::string(shape), f);
  const tpus::Torus t = tpus::slice_torus(chip, dims, "auto", f);
  if (!(pods >= 1) || pods != std::floor(pods) || pods > kMaxPods)
    fail("pods", "pods must be a whole number from 1 to 10,000", "out_of_range");
  Topology topo;
  topo.slices.push_back({t.dims, t.wrap});
  topo.pods = pods;
  return topo;
}

Topology topology_for_chips(const hw::Chip& chip, double chips, std::string_view field) {
  const std::string f(field);
  if (!(chips >= 1) || chips != std::floor(chips) || chips > 1e8)
    fail(field, f + " must be a whole number of chips of at least 1", "out_of_range");
  const tpus::Topology info = tpus::topology_of(chip, f);
  const double pod = tpus::chip_count(info.max_pod);
  Topology topo;
  if (chips == pod) {
    // A full pod is the pod's own shape (16x20x28 for v5p), not every shape of as many chips.
    const tpus::Torus t = tpus::slice_torus(chip, info.max_pod, "auto", f);
    topo.slices.push_back({t.dims, t.wrap});
    return topo;
  }
  if (chips > pod) {
    if (std::fmod(chips, pod) != 0)
      fail(field,
           count_text(chips) + " chips is more than one " + chip.name + " pod (" + count_text(pod) +
               " chips) but not a whole number of pods",
           "out_of_range");
    if (chips / pod > kMaxPods)
      fail(field,
           count_text(chips) + " chips is more than " + count_text(kMaxPods) + " " + chip.name +
               " pods",
           "out_of_range");
    const tpus::Torus t = tpus::slice_torus(chip, info.max_pod, "auto", f);
    topo.slices.push_back({t.dims, t.wrap});
    topo.pods = chips / pod;
    return topo;
  }
  // Every shape a <= b (<= c) of that many chips the chip comes in.
  const long long n = static_cast<long long>(chips);
  const int rank = info.torus_dims;
  for (long long a = 1; a * a <= n || (rank == 1 && a == 1); ++a) {
    if (n % a) continue;
    std::vector<tpus::Dims> shapes;
    if (rank == 1) shapes.push_back({static_cast<int>(n)});
    if (rank == 2) shapes.push_back({static_cast<int>(a), static_cast<int>(n / a)});
    if (rank >= 3)
      for (long long b = a; b * b <= n / a; ++b)
        if ((n / a) % b == 0)
          shapes.push_back({static_cast<int>(a), static_cast<int>(b), static_cast<int>(n / a / b)});
    // A shape the chip does not come in is not a candidate (asked without slice_torus's error:
    // a thrown error per shape was most of a small search's time, the more so in wasm).
    for (const tpus::Dims& d : shapes)
      if (tpus::fits_in_pod(info, d))
        topo.slices.push_back({d, tpus::wraps(info.rule, static_cast<size_t>(info.torus_dims), d)});
    if (rank == 1) break;
  }
  if (topo.slices.empty())
    fail(field, "no " + chip.name + " slice has " + units::format(chips, "chips"), "bad_shape");
  return topo;
}

double pod_chips(const hw::Chip& chip) { return tpus::chip_count(tpus::topology_of(chip).max_pod); }

std::vector<double> chip_counts(const hw::Chip& chip, double max_pods) {
  const tpus::Topology info = tpus::topology_of(chip);
  const double pod = tpus::chip_count(info.max_pod);
  std::vector<double> out;
  for (double n = 1; n < pod; n *= 2) {
    try {
      topology_for_chips(chip, n);
      out.push_back(n);
    } catch (const InputError&) {
      // No slice of this many chips.
    }
  }
  for (double k = 1; k <= max_pods; ++k) out.push_back(k * pod);
  return out;
}

}  // namespace sb::training
