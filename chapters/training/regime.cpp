// The regime map (planner.hpp): the planner's question at every chip count and batch per chip.
// Without pipelining every term of a layout is either fixed (weight gathers and loads, gradient
// reductions, the state in memory) or grows with the batch per chip b (the math, TP's and EP's
// activations, the checkpoints). So each layout, X mode and remat policy is compute-bound and fits
// on one interval of b, found once per chip count from its costs at b = 1; a cell asks which
// intervals hold its b.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "chapters/training/planner.hpp"
#include "chapters/training/planner_detail.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"

namespace sb::training {

using namespace detail;

namespace {

using Interval = std::pair<double, double>;

// The batches per chip where a configuration, costed at b = 1, is compute-bound (b above lo) and
// fits (b at most hi); empty when no batch is both.
Interval window_of(const StepCosts& t, double hbm) {
  const double never = std::numeric_limits<double>::infinity();
  // Terms that grow with the batch as the math does: their ratio to it never changes.
  if (t.tp >= t.math_f || t.ep >= t.math_f || t.tp >= t.math_b || t.ep >= t.math_b)
    return {never, 0};
  const double lo =
      std::max(std::max(t.hbm_f, t.fsdp_f) / t.math_f,
               std::max(std::max(t.hbm_b, t.fsdp_b), std::max(t.dp_b, t.dcn_b)) / t.math_b);
  const double fixed = t.mem_w + t.mem_g + t.mem_opt;
  const double hi = t.mem_act > 0 ? (hbm - fixed) / t.mem_act : (fixed <= hbm ? never : -1);
  return {lo, hi};
}

// Which of the map's strategies a layout and X mode is.
uint8_t regime_bit(const Layout& lay, int mode) {
  if (ep_mode(mode)) return kRegimeEP;
  if (lay.X == 1) return lay.Y > 1 ? kRegimeTP : kRegimeFSDP;  // one chip: every strategy at once
  if (lay.Y == 1) return mode == kXDP ? kRegimeDP : kRegimeFSDP;
  return mode == kXFSDP ? kRegimeMixed : 0;
}

struct Row {
  std::vector<std::pair<uint8_t, Interval>> windows;
  double dcn_floor = 0;  // the batch per chip DCN needs (0 within a pod)
};

// Every layout of the chip count without pipelining, costed once at one token per chip.
Row row_windows(const PlanInput& base, const hw::Chip& chip, double N) {
  PlanInput in = base;
  in.topo = topology_for_chips(chip, N, "chips");
  in.B = N;
  in.pipeline = false;
  const Ctx c = make_ctx(in);
  Row row;
  for (const Slice& sl : in.topo.slices) {
    std::vector<AxisOpt> opts[3];
    const int n = static_cast<int>(sl.dims.size());
    for (int i = 0; i < 3; ++i)
      opts[i] =
          i < n ? axis_opts(sl.dims[i], sl.wrap[i], false, c.h) : std::vector<AxisOpt>{AxisOpt{}};
    for (const AxisOpt& o0 : opts[0])
      for (const AxisOpt& o1 : opts[1]) {
        if (!partial_ok(c, o0.y * o1.y, 1)) continue;
        for (const AxisOpt& o2 : opts[2]) {
          const AxisOpt o[3] = {o0, o1, o2};
          const Layout lay = layout_of(o);
          if (!allowed(c, lay)) continue;
          const SplitCosts k = split_costs(c.lc, c.h, c.B_slice, c.pods, lay);
          int modes[4];
          const int n_modes = x_modes(c, lay.X, modes);
          for (int i = 0; i < n_modes; ++i) {
            if (ep_mode(modes[i]) && k.ep_degree < 2) continue;
            const uint8_t bit = regime_bit(lay, modes[i]);
            for (int r = 0; r < kRemats; ++r) {
              const StepCosts t = step_costs(c.lc, k, c.state, modes[i], r, 1);
              if (c.pods > 1)
                row.dcn_floor = t.dcn_b / step_costs(c.lc, k, c.state, 0, 0, 1).math_b;
              const Interval w = window_of(t, c.h.hbm);
              if (bit && w.first < w.second) row.windows.push_back({bit, w});
            }
          }
        }
      }
  }
  return row;
}

}  // namespace

RegimeMap regime_map(const PlanInput& base, const hw::Chip& chip, const std::vector<double>& chips,
                     const std::vector<double>& per_chip) {
  RegimeMap map;
  map.chips = chips;
  map.batch_per_chip = per_chip;
  map.cells.assign(chips.size() * per_chip.size(), 0);
  for (double b : per_chip)
    if (!(b > 0) || !std::isfinite(b))
      fail("batch_per_chip", "per-chip batches must be positive", "out_of_range");
  const double pod = pod_chips(chip);
  for (size_t i = 0; i < chips.size(); ++i) {
    const Row row = row_windows(base, chip, chips[i]);
    for (size_t j = 0; j < per_chip.size(); ++j) {
      const double b = per_chip[j];
      uint8_t bits = chips[i] > pod ? kRegimeMultiPod : 0;
      if (chips[i] > pod && b > row.dcn_floor) bits |= kRegimeDCN;
      for (const auto& [bit, w] : row.windows)
        if (b > w.first && b <= w.second) bits |= bit;
      map.cells[i * per_chip.size() + j] = bits;
    }
  }
  return map;
}

}  // namespace sb::training
