// What the planner's search (planner.cpp) and the regime map (regime.cpp) share: the model, chip
// and batch once, the ways to factor an axis, and which layouts the search takes. Internal to the
// training chapter.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "chapters/sharding/model.hpp"
#include "chapters/training/costs.hpp"
#include "chapters/training/planner.hpp"
#include "core/units.hpp"

namespace sb::training::detail {

// The most pods a plan may span: with the work bound, what keeps a search finite.
inline constexpr double kMaxPods = 1e4;

// A count as the planner's messages write it (up to ten digits).
inline std::string count_text(double v) { return units::number(v, 10); }

// Everything the search needs about the model, the chip and the batch, once.
struct Ctx {
  LayerCosts lc;
  Hardware h;
  StateBytes state;
  double D = 0, heads = 0, kv = 0;  // what a TP degree must divide
  double B_slice = 0, pods = 1;
  int micro_step = 4;
  long long budget = 0;
  GpuCluster gpu;  // d_node > 0 on a GPU cluster
};

// The model, chip and batch of a request, checked (InputError naming the field).
Ctx make_ctx(const PlanInput& in);

// One way to factor an axis: x to X, y to Y, z to Z, and the share of the axis' bandwidth X and Y
// get (planner.hpp: the weight of a sub-axis).
struct AxisOpt {
  int x = 1, y = 1, z = 1;
  double wx = 0, wy = 0;
};

inline double ag_weight(int n, bool ring, const Hardware& h) {
  if (n <= 1) return 0;
  const double t =
      ring ? sharding::t_allgather_ring(1, n, h.w_uni) : sharding::t_allgather_line(1, n, h.w_uni);
  return 1 / (h.W_ici * t);
}

inline AxisOpt axis_opt(int x, int y, int z, int a, bool wrap, const Hardware& h) {
  AxisOpt o{x, y, z, 0, 0};
  o.wy = ag_weight(y, wrap && y == a, h);
  o.wx = ag_weight(x, wrap, h) / (y * z);
  return o;
}

inline std::vector<AxisOpt> axis_opts(int a, bool wrap, bool pipeline, const Hardware& h) {
  std::vector<AxisOpt> out;
  for (int x = 1; x <= a; ++x) {
    if (a % x) continue;
    const int rest = a / x;
    for (int y = 1; y <= rest; ++y) {
      if (rest % y) continue;
      const int z = rest / y;
      if (z > 1 && !pipeline) continue;
      out.push_back(axis_opt(x, y, z, a, wrap, h));
    }
  }
  return out;
}

// The options of each of a slice's three axes (one option, all ones, for an axis it lacks).
using AxisOpts = std::array<std::vector<AxisOpt>, 3>;

// The layout of three axis options.
inline Layout layout_of(const AxisOpt* o) {
  Layout lay;
  lay.X = o[0].x * o[1].x * o[2].x, lay.Y = o[0].y * o[1].y * o[2].y;
  lay.Z = o[0].z * o[1].z * o[2].z;
  lay.M_X = o[0].wx + o[1].wx + o[2].wx, lay.M_Y = o[0].wy + o[1].wy + o[2].wy;
  lay.A_max = std::max({o[0].x, o[1].x, o[2].x});
  return lay;
}

// A GPU cluster's layout of the node axis' and the nodes axis' factors (planner_gpu.cpp).
Layout gpu_layout(const Ctx& c, const AxisOpt* o);
// The factors of a GPU cluster's two axes: X and Y share the node; X, Y (if TP may span nodes)
// and Z share the nodes.
AxisOpts gpu_axis_opts(const GpuCluster& g, bool pipeline);

// The layout of a request's three axis options: the torus's, or the GPU cluster's.
inline Layout layout_of(const Ctx& c, const AxisOpt* o) {
  return c.gpu.d_node > 0 ? gpu_layout(c, o) : layout_of(o);
}

// Whether the search takes a layout: Z at most the layers, Y a TP degree the model takes.
inline bool allowed(const Ctx& c, const Layout& lay) {
  return lay.valid && lay.Z <= c.lc.L && (lay.Y == 1 || tp_degree_fits(lay.Y, c.D, c.heads, c.kv));
}

// Whether some layout can still follow from axes factored so far (y and z, the products of their Y
// and Z factors): Z at most the layers, and Y a divisor of what a TP degree must divide. The
// searches skip the rest of the axes when not.
inline bool partial_ok(const Ctx& c, int y, int z) {
  if (z > c.lc.L) return false;
  if (c.heads <= 0 || y == 1) return true;
  return std::fmod(c.heads, y) == 0 && std::fmod(c.D, y) == 0;
}

// The X modes of a layout: none for X = 1; DP and FSDP; for an MoE whose experts split over X
// (gcd(X, E) >= 2), both again with expert parallelism.
inline int x_modes(const Ctx& c, int X, int* out) {
  if (X == 1) {
    out[0] = kXNone;
    return 1;
  }
  int n = 0;
  out[n++] = kXDP;
  out[n++] = kXFSDP;
  if (c.lc.E > 0 && std::gcd(static_cast<long long>(X), static_cast<long long>(c.lc.E)) >= 2) {
    out[n++] = kXDPEP;
    out[n++] = kXFSDPEP;
  }
  return n;
}

}  // namespace sb::training::detail
