// The chip explorer (a GPU beside a TPU, term by term) and the network builder (an NVLink node and
// the fat tree above it), and the table of the chapter's calculators.
#include "chapters/gpus/calculators.hpp"

#include <cmath>
#include <string>

#include "chapters/gpus/cluster.hpp"
#include "chapters/gpus/formulas.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/units.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::gpus {
namespace {

// A row of the side-by-side table: the GPU's term and figure, the TPU's.
json row(Text gpu_term, double g, Text tpu_term, double t, Text unit) {
  auto cell = [&](double v) { return v > 0 ? json(v) : json(nullptr); };
  return json{{"gpu", gpu_term},
              {"gpu_value", cell(g)},
              {"tpu", tpu_term},
              {"tpu_value", cell(t)},
              {"unit", unit}};
}
double spec(const hw::Chip& c, Text key) { return c.has(key) ? c.get(key) : 0; }

}  // namespace

void chip_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& g = hw::chip(in.text("chip"), "chip");
  const hw::Chip& t = hw::chip(in.text("tpu"), "tpu");
  if (g.kind != "gpu") fail("chip", g.name + " is a TPU; choose a GPU here", "not_a_gpu");
  if (t.kind != "tpu") fail("tpu", t.name + " is a GPU; choose a TPU here", "not_a_tpu");
  const double sms = g.get("sms"), sub = g.get("subpartitions_per_sm"), f = g.get("clock_hz");
  const double peak = g.peak(in.text("dtype"), "dtype"), hbm_bw = g.get("hbm_bw");
  double c =
      tr.step("Tensor Core peak from the SMs", kTcPeak, {sms, sub, f, g.get("tc_flops_per_cycle")});
  double cores = tr.step("CUDA cores", kCudaCores, {sms, sub, g.get("cuda_cores_per_sm") / sub});
  double vec = tr.step("Vector FLOPs/s, an FMA counted as two", kVectorFlops, {cores, f, 2});
  double smem = tr.step("SMEM in all", kOnChipTotal, {sms, g.get("smem_per_sm")});
  double rf = tr.step("Registers in all", kOnChipTotal, {sms, g.get("register_file_per_sm")});
  double ig =
      tr.step("Critical intensity, " + g.name, roofline::kCriticalIntensity, {peak, hbm_bw});
  double it = tr.step("Critical intensity, " + t.name, roofline::kCriticalIntensity,
                      {t.get("peak_flops_bf16"), t.get("hbm_bw")});
  r.value("tc_peak_from_sms", c, "flop_per_s", "Tensor Core peak from the SMs (bf16)");
  r.value("peak", peak, "flop_per_s", "peak from the spec table, " + in.text("dtype"));
  r.value("cuda_cores", cores, "count", "CUDA cores");
  r.value("vector_flops", vec, "flop_per_s", "vector fp32 FLOPs/s (FMA = 2)");
  r.value("smem_total", smem, "B", "SMEM in all");
  r.value("registers_total", rf, "B", "registers in all");
  r.value("gpu_crit_intensity", ig, "flop_per_B", g.name + " critical intensity");
  r.value("tpu_crit_intensity", it, "flop_per_B", t.name + " critical intensity");
  const double cores_t = spec(t, "cores_per_chip");
  json table = json::array();
  table.push_back(row("SMs", sms, "TensorCores", cores_t, "count"));
  table.push_back(row("Warp schedulers (SIMD units)", sms * sub, "VPU slots",
                      cores_t * spec(t, "vpu_alus_per_cell"), "count"));
  table.push_back(
      row("Tensor Cores", sms * sub, "MXUs", cores_t * spec(t, "mxus_per_core"), "count"));
  table.push_back(row("SMEM", smem, "VMEM", spec(t, "vmem_bytes"), "B"));
  table.push_back(
      row("Registers", rf, "Vector registers", cores_t * spec(t, "vreg_bytes_per_core"), "B"));
  table.push_back(row("L2", spec(g, "l2_bytes"), "(no L2)", 0, "B"));
  table.push_back(row("HBM", g.get("hbm_bytes"), "HBM", t.get("hbm_bytes"), "B"));
  table.push_back(row("HBM bandwidth", hbm_bw, "HBM bandwidth", t.get("hbm_bw"), "B_per_s"));
  table.push_back(row("bf16 peak", g.get("peak_flops_bf16"), "bf16 peak", t.get("peak_flops_bf16"),
                      "flop_per_s"));
  r.extra["table"] = std::move(table);
  append_json(r.member("gpu_name"), std::string_view(g.name));  // the table's column heads
  append_json(r.member("tpu_name"), std::string_view(t.name));
  if (g.id == "b200" || g.id == "gb200")
    r.note("HBM bandwidth: the spec table's 8.0 TB/s; the chapter's prose says 9 TB/s once.");
  if (g.id == "h100")
    r.note("HBM bandwidth: 3.35 TB/s as the text's arithmetic uses it (the table rounds to 3.4).");
}

}  // namespace sb::gpus

namespace sb::gpus {
namespace {

// The node level: NVLink egress, the switches, what the node carries.
double node_level(const GpuNode& n, Trace& tr, Result& r) {
  const hw::Chip& c = *n.chip;
  double w = n.gpus_per_node * n.w_gpu;
  if (c.has("nvswitches_per_node") && c.has("nvswitch_ports") && c.has("nvlink_link_bw")) {
    double cap =
        tr.step("NVSwitch capacity", kSwitchCapacity,
                {c.get("nvswitches_per_node"), c.get("nvswitch_ports"), c.get("nvlink_link_bw")});
    w = tr.step("What the node carries", kNodeBandwidth, {cap, n.gpus_per_node, n.w_gpu});
    r.value("node_switch_bw", cap, "B_per_s", "NVSwitch capacity of a node");
  } else {
    r.note("The book gives no NVSwitch port figures for the " + c.name +
           ": the node carries what its GPUs' links send.");
  }
  r.value("gpus_per_node", n.gpus_per_node, "count", "GPUs per NVLink node");
  r.value("w_gpu", n.w_gpu, "B_per_s", "NVLink egress per GPU");
  r.value("node_nvlink_bw", w, "B_per_s", "NVLink bandwidth of a node");
  tr.step("Bisection of a node, both ways", kBisection, {n.gpus_per_node, n.w_gpu});
  return w;
}

FatTree tree_of(const Inputs& in) {
  FatTree t;
  t.nodes = in.num("nodes");
  t.nodes_per_su = in.num("nodes_per_su");
  t.leaves_per_su = in.num("leaves_per_su");
  t.spines = in.num("spines");
  t.cables = in.num("cables");
  t.ports = in.num("ports");
  t.port_bw = in.num("port_bw");
  return t;
}

// The scale-out levels: leaves, spine, what every node gets across the pod.
void tree_levels(const GpuNode& n, const FatTree& t, Trace& tr, Result& r) {
  const double nics = n.w_node / t.port_bw;
  if (std::fabs(nics - t.leaves_per_su) > 1e-9)
    fail("leaves_per_su",
         "a node has " + units::format(nics, "count") +
             " NICs of port_bw, one to each leaf of its SU; give that many leaves",
         "infeasible");
  check_tree(t);
  const double sus = std::ceil(t.nodes / t.nodes_per_su);
  double leaf = tr.step("Leaves of an SU, facing down", kLeafCapacity,
                        {t.leaves_per_su, t.nodes_per_su, t.port_bw});
  double up = tr.step("An SU's cables to the spine", kSuUplink,
                      {t.leaves_per_su, t.spines, t.cables, t.port_bw});
  double spine = tr.step("Spine capacity", kSpineCapacity, {t.spines, t.ports, t.port_bw});
  double per = tr.step("Per node across the pod", kPerNodeBisection,
                       {n.w_node, leaf, up, t.nodes_per_su, spine, sus * t.nodes_per_su});
  double sw =
      tr.step("Switches", kSwitchCount,
              {t.nodes, n.chip->has("nvswitches_per_node") ? n.chip->get("nvswitches_per_node") : 0,
               sus * t.leaves_per_su, t.spines});
  r.value("sus", sus, "count", "scalable units");
  r.value("leaf_bw", leaf, "B_per_s", "leaf capacity of an SU, facing down");
  r.value("su_uplink", up, "B_per_s", "an SU's cables to the spine");
  r.value("spine_bw", spine, "B_per_s", "spine capacity");
  r.value("per_node_bw", per, "B_per_s", "what every node can send at once");
  r.value("per_gpu_bw", per / n.gpus_per_node, "B_per_s", "per GPU across nodes");
  r.value("bisection", per * t.nodes / 2, "B_per_s", "bisection bandwidth of the pod, one way");
  r.value("switches", sw, "count", "switches");
  r.value("max_nodes", max_nodes(t), "count", "most nodes this tree takes");
  r.note(
      "Spine switches count 64 ports x 50 GB/s = 3.2 TB/s each, as the spec figures and the "
      "newest text do; the older Appendix B counted 1.6 TB/s (25.6 TB/s in all).");
}

}  // namespace

void network_calc(const Inputs& in, Trace& tr, Result& r) {
  const GpuNode n = gpu_node(in.text("chip"));
  node_level(n, tr, r);
  const FatTree t = tree_of(in);
  r.value("gpus", t.nodes * n.gpus_per_node, "count", "GPUs in the cluster");
  if (n.w_node <= 0) {
    r.note("The book gives no scale-out figure for the " + n.chip->name +
           ": only its NVLink node is shown.");
    return;
  }
  r.value("w_node", n.w_node, "B_per_s", "scale-out egress of a node");
  if (t.nodes == 1) {
    r.note("One node: everything runs over NVLink; no scale-out network is needed.");
    return;
  }
  if (n.gpus_per_node != 8) {
    const double racks = n.chip->has("pod_racks") ? n.chip->get("pod_racks") : 1;
    if (t.nodes > racks)
      fail("nodes",
           "the book's network for the " + n.chip->name + " is a pod of " +
               units::format(racks, "count") + " racks at full bisection; it describes none larger",
           "infeasible");
    r.note("The book builds its fat tree for 8-GPU nodes (the H100 SuperPod); for the " +
           n.chip->name + " it gives the rack's egress and a pod of " +
           units::format(racks, "count") +
           " racks at full bisection: every rack sends its whole egress at once.");
    r.value("per_node_bw", n.w_node, "B_per_s", "what every node can send at once");
    r.value("per_gpu_bw", n.w_node / n.gpus_per_node, "B_per_s", "per GPU across nodes");
    return;
  }
  tree_levels(n, t, tr, r);
}

}  // namespace sb::gpus
