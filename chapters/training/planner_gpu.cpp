// The planner on a GPU cluster (planner.hpp): the gpus chapter's nodes and fat tree as a slice of
// two axes, the NVLink domain (fast) and the nodes (slow), and each layout's collectives priced
// by that chapter's hierarchical AllGather and AllToAll (chapters/gpus/collectives.hpp).
//
// How a layout sits on the cluster: the node's GPUs split into x_n of the data axis times y_n of
// TP (pipeline stages never share a node: the chapter runs PP across nodes); the nodes split into
// x_m of the data axis, z of pipeline stages, and y_m of TP only when TP may span nodes and then
// holds whole nodes (y_n = D_node). A group of x_n GPUs per node reaches the other nodes over its
// share of the node's NICs, W_node x_n / D_node (one NIC per GPU), which is why TP inside the
// node leaves the data axis' scale-out time unchanged (A.4 (11)).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "chapters/gpus/cluster.hpp"
#include "chapters/gpus/collectives.hpp"
#include "chapters/gpus/llm.hpp"
#include "chapters/training/planner.hpp"
#include "chapters/training/planner_detail.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/units.hpp"

namespace sb::training {

using detail::count_text;

namespace {

// The node of a GPU the planner can cost; InputError(field) naming what the book lacks.
gpus::GpuNode planner_node(const hw::Chip& chip, std::string_view field) {
  const std::string f(field);
  if (chip.kind != "gpu") return gpus::gpu_node(chip.id, f);  // its error: a TPU has no node
  if (!chip.has("peak_flops_bf16"))
    fail(f,
         "the book gives no bf16 FLOPs/s for the " + chip.name +
             ", so the training chapter cannot time its math; pick another GPU or a TPU",
         "no_figure");
  if (!chip.has("nvlink_bw_per_gpu") || !chip.has("gpus_per_node"))
    fail(f,
         "the book gives no NVLink figures for the " + chip.name +
             ", so a training mesh on it has no fast axis; pick another GPU or a TPU",
         "no_figure");
  return gpus::gpu_node(chip.id, f);
}

// The most nodes the chapter's two-tier fat tree (the 1024-GPU SuperPod's leaves and spines)
// takes.
double tree_nodes() { return gpus::max_nodes(gpus::FatTree{}); }

}  // namespace

Hardware gpu_hardware(const hw::Chip& chip, std::string_view field) {
  const gpus::GpuNode n = planner_node(chip, field);
  Hardware h;
  h.C = n.peak_bf16;
  h.W_ici = n.w_gpu;
  h.W_hbm = chip.get("hbm_bw", field);
  h.hbm = n.hbm_bytes;
  // Stage copies go from a GPU to its peer in the next node, over its NIC.
  h.w_uni = n.w_node > 0 ? gpus::group_scaleout_bw(n.w_node, 1, n.gpus_per_node) : n.w_gpu;
  return h;
}

Topology topology_for_gpus(const hw::Chip& chip, double chips, bool cross_node_tp,
                           std::string_view field) {
  const std::string f(field);
  const gpus::GpuNode n = planner_node(chip, "chip");
  const double d = n.gpus_per_node;
  if (!(chips >= 1) || chips != std::floor(chips))
    fail(f, f + " must be a whole number of GPUs", "out_of_range");
  if (std::fmod(chips, d) != 0)
    fail(f,
         count_text(chips) + " GPUs is not a whole number of " + chip.name + " nodes of " +
             count_text(d) + " GPUs (the NVLink domain the plan lays TP on)",
         "out_of_range");
  const double nodes = chips / d;
  if (nodes > 1 && !(n.w_node > 0))
    fail(f,
         "the book gives no scale-out bandwidth for " + chip.name + " nodes, so a plan " +
             "spans one node (" + count_text(d) + " GPUs) at most",
         "no_figure");
  if (nodes > tree_nodes())
    fail(f,
         count_text(chips) + " GPUs is " + count_text(nodes) +
             " nodes, more than the chapter's two-tier fat tree takes (" +
             count_text(tree_nodes()) + " nodes, " + count_text(tree_nodes() * d) +
             " GPUs); a larger cluster needs a third tier of switches",
         "out_of_range");
  Topology t;
  t.slices.push_back({{static_cast<int>(d), static_cast<int>(nodes)}, {false, false}});
  t.gpu = {d, nodes, n.w_gpu, n.w_node, cross_node_tp};
  return t;
}

std::vector<double> gpu_counts(const hw::Chip& chip) {
  const gpus::GpuNode n = planner_node(chip, "chip");
  const double most = n.w_node > 0 ? tree_nodes() : 1;
  std::vector<double> out;
  for (double m = 1; m <= most; m *= 2) out.push_back(m * n.gpus_per_node);
  return out;
}

double buildable_gpus(const hw::Chip& chip, double chips) {
  if (chip.kind != "gpu" || !(chips >= 1) || chips > 1e8) return chips;
  const double d = planner_node(chip, "chip").gpus_per_node;
  if (std::fmod(chips, d) == 0) return chips;
  return std::max(1.0, std::round(chips / d)) * d;
}

std::string snapped_words(const hw::Chip& chip, double asked, double used) {
  if (asked == used) return "";
  const double d = planner_node(chip, "chip").gpus_per_node;
  return count_text(asked) + " GPUs is not a whole number of " + chip.name + " nodes of " +
         count_text(d) + " (its NVLink domain, which comes whole): this is the nearest cluster " +
         "that can be built, " + count_text(used / d) + (used == d ? " node, " : " nodes, ") +
         count_text(used) + " GPUs.";
}

GpuAxes gpu_axes(const GpuCluster& g, double Y, double Z, std::string_view y_field,
                 std::string_view z_field) {
  const double d = g.d_node, m = g.nodes;
  const bool in_node = Y <= d && std::fmod(d, Y) == 0;
  if (!(Y >= 1) || Y != std::floor(Y) ||
      (!in_node && (std::fmod(Y, d) != 0 || std::fmod(m, Y / d) != 0)))
    fail(y_field,
         std::string(y_field) +
             ": on a GPU cluster TP lies on NVLink inside a node (a divisor of " + count_text(d) +
             " GPUs) or on whole nodes (a multiple of " + count_text(d) + " that divides the " +
             count_text(d * m) + " GPUs), got " + count_text(Y),
         "bad_layout");
  const double y_n = in_node ? Y : d, y_m = in_node ? 1 : Y / d;
  if (!(Z >= 1) || Z != std::floor(Z) || std::fmod(m / y_m, Z) != 0)
    fail(z_field,
         std::string(z_field) + ": pipeline stages lie on whole nodes of a GPU cluster, so they " +
             "must divide the " + count_text(m / y_m) + (m / y_m == 1 ? " node" : " nodes") +
             " the data axis leaves, got " + count_text(Z),
         "bad_layout");
  detail::AxisOpt o[3] = {
      {static_cast<int>(d / y_n), static_cast<int>(y_n), 1, 0, 0},
      {static_cast<int>(m / y_m / Z), static_cast<int>(y_m), static_cast<int>(Z), 0, 0},
      {}};
  detail::Ctx c;
  c.gpu = g;
  c.gpu.cross_node_tp = true;  // the reader's layout says where TP lies
  const Layout lay = detail::gpu_layout(c, o);
  return {lay.M_X, lay.M_Y};
}

GpuAxes gpu_mixed_axes(const GpuCluster& g, double Y) {
  const GpuAxes a = gpu_axes(g, Y, 1);
  if (a.M_X > 0 && a.M_Y > 0) return a;
  return gpu_axes(g, g.nodes >= 2 ? g.d_node : g.d_node / 2, 1);
}

double gpu_tp_degree(const GpuCluster& g, double chips, double F, double alpha, double D,
                     double heads, double kv) {
  const double most = std::min(g.d_node, std::max(1.0, gpus::tp_max(F, alpha)));
  for (double y = std::floor(most); y > 1; --y)
    if (std::fmod(g.d_node, y) == 0 && std::fmod(chips, y) == 0 && tp_degree_fits(y, D, heads, kv))
      return y;
  return 1;
}

namespace detail {

AxisOpts gpu_axis_opts(const GpuCluster& g, bool pipeline) {
  AxisOpts o;
  const int d = static_cast<int>(g.d_node), m = static_cast<int>(g.nodes);
  for (int x = 1; x <= d; ++x)
    if (d % x == 0) o[0].push_back({x, d / x, 1, 0, 0});
  for (int x = 1; x <= m; ++x) {
    if (m % x) continue;
    for (int y = 1; y <= m / x; ++y) {
      if ((m / x) % y || (y > 1 && !g.cross_node_tp)) continue;
      const int z = m / x / y;
      if (z > 1 && !pipeline) continue;
      o[1].push_back({x, y, z, 0, 0});
    }
  }
  o[2].push_back(AxisOpt{});
  return o;
}

namespace {

// One AllToAll's seconds per byte a GPU holds, over `group` GPUs of the data axis laid inside the
// node first (x_n of them per node): NVLink's A.4 (4) inside one node, A.4 (10) across nodes at
// the group's scale-out share.
double gpu_a2a(const GpuCluster& g, double group, double x_n) {
  return gpus::expert_a2a_time(group, group, x_n, g.w_gpu,
                               gpus::group_scaleout_bw(g.w_node, x_n, g.d_node));
}

}  // namespace

Layout gpu_layout(const Ctx& c, const AxisOpt* o) {
  const GpuCluster& g = c.gpu;
  Layout lay = layout_of(o);  // the degrees; the bandwidths follow
  const double x_n = o[0].x, y_n = o[0].y, x_m = o[1].x, y_m = o[1].y;
  lay.valid = o[0].z == 1 && (y_m == 1 || (g.cross_node_tp && y_n == g.d_node));
  // An AllGather of a byte over the data axis, and over TP: NVLink inside the node, the group's
  // NICs across nodes (TP across nodes holds whole nodes, so it has the node's W_node).
  const double t_x =
      gpus::hier_ag_time(1, x_n, g.w_gpu, x_m, gpus::group_scaleout_bw(g.w_node, x_n, g.d_node));
  const double t_y = gpus::hier_ag_time(1, y_n, g.w_gpu, y_m, g.w_node);
  // The records' T = V / (W_ici M) with W_ici = W_GPU: M is the collective's bandwidth over
  // NVLink's.
  lay.M_X = t_x > 0 ? 1 / (g.w_gpu * t_x) : 0;
  lay.M_Y = t_y > 0 ? 1 / (g.w_gpu * t_y) : 0;
  lay.A_max = x_n;
  if (c.lc.E > 0 && lay.X > 1) {
    const double group = std::gcd(static_cast<long long>(lay.X), static_cast<long long>(c.lc.E));
    if (group >= 2) lay.a2a = gpu_a2a(g, group, x_n);
  }
  return lay;
}

}  // namespace detail

}  // namespace sb::training
