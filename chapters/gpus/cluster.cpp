// GPU nodes from the chip tables and the fat tree's port budget (cluster.hpp).
#include "chapters/gpus/cluster.hpp"

#include <cmath>

#include "core/error.hpp"
#include "core/units.hpp"

namespace sb::gpus {

GpuNode gpu_node(const std::string& id, const std::string& field) {
  const hw::Chip& c = hw::chip(id, field);
  if (c.kind != "gpu")
    fail(field, c.name + " is a TPU: its chips join an ICI torus, not an NVLink node; choose a GPU",
         "not_a_gpu");
  if (!c.has("nvlink_bw_per_gpu") || !c.has("gpus_per_node"))
    fail(field, "the book gives no NVLink figures for the " + c.name, "no_figure");
  GpuNode n;
  n.chip = &c;
  n.gpus_per_node = c.get("gpus_per_node");
  n.w_gpu = c.get("nvlink_bw_per_gpu");
  n.w_node = c.has("node_scaleout_bw") ? c.get("node_scaleout_bw") : 0;
  n.peak_bf16 = c.get("peak_flops_bf16");
  n.hbm_bytes = c.get("hbm_bytes");
  return n;
}

double max_nodes(const FatTree& t) {
  return std::floor(t.ports / (t.leaves_per_su * t.cables)) * t.nodes_per_su;
}

void check_tree(const FatTree& t) {
  const double up = t.spines * t.cables;
  if (t.nodes_per_su + up > t.ports)
    fail("spines",
         "a leaf of " + units::format(t.ports, "count") + " ports cannot take " +
             units::format(t.nodes_per_su, "count") + " nodes below and " +
             units::format(up, "count") + " cables to the spines above",
         "infeasible");
  const double most = max_nodes(t);
  if (most < t.nodes_per_su)
    fail("cables", "the spine's ports cannot take even one SU", "infeasible");
  if (t.nodes > most)
    fail("nodes",
         "this tree takes at most " + units::format(most, "count") +
             " nodes (the spine's ports run out); add a third tier of core switches, or use fewer "
             "cables per leaf-spine pair",
         "infeasible");
}

}  // namespace sb::gpus
