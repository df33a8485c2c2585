// The TPU chapter's calculators of a slice: its inventory (tpus.inventory) and its ICI torus
// (tpus.topology); the others are in calculators_transfer.cpp and calculators_chip.cpp. Chip
// figures come from sb::hw; every step of a derivation is made from a formula record.
#include "chapters/tpus/calculators.hpp"

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "chapters/roofline/model.hpp"
#include "chapters/tpus/model.hpp"
#include "chapters/tpus/steps.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

namespace sb::tpus {

json wrap_json(const Torus& t) {
  json w = json::array();
  for (bool b : t.wrap) w.push_back(b);
  return w;
}

json torus_json(const Torus& t) { return {{"dims", t.dims}, {"wrap", wrap_json(t)}}; }

Dims endpoint(const Inputs& in, Text name, const Torus& t) {
  const std::string text = in.text(name);
  if (!text.empty()) return parse_coord(text, t, std::string(name));
  Dims d(t.dims.size(), 0);
  if (name == "to")
    for (size_t i = 0; i < d.size(); ++i) d[i] = t.dims[i] - 1;
  return d;
}

double vpu_core_rate(const hw::Chip& c, double alus_per_cell, double clock_hz, Trace& tr) {
  return tr.step("VPU of one core (fp32)", kVpuCoreShape,
                 {c.get("vpu_sublanes"), c.get("vpu_lanes"), alus_per_cell, clock_hz});
}

double vreg_bytes(const hw::Chip& c) {
  return vreg_bytes_per_core(c.get("vregs_per_core"), c.get("vpu_sublanes"), c.get("vpu_lanes"));
}

namespace {

// ------------------------------------------------------------------------------------ inventory --

// The values of tpus.inventory: each is a result value and a row [label, text] of its table.
class InventoryRows {
 public:
  explicit InventoryRows(Result& r) : r_(r) {}
  // `as_written`: the figure as the book writes it ("128 MiB"), shown instead of the formatted
  // value.
  void put(const std::string& key, double v, Text unit, Text label, Text as_written = {}) {
    r_.value(key, v, unit, label);
    rows_[key] =
        json::array({label, as_written.empty() ? units::format(v, unit) : std::string(as_written)});
  }
  // The rows in reading order (not the order the values were computed in).
  json table(const Inventory& inv) const {
    std::vector<std::string> order = {"chips", "hosts", "tensorcores"};
    for (const auto& [dt, f] : inv.flops) order.push_back("flops_" + dt);
    for (const char* k : {"hbm_bytes", "hbm_bw", "ici_bw_oneway", "bisection_bw", "max_hops",
                          "pcie_bw", "dcn_bw", "mxu_flops_per_s", "chip_mxu_flops_per_s",
                          "vpu_flops_per_s_core", "vmem_bytes", "vreg_bytes_per_core"})
      order.push_back(k);
    json table = json::array();
    for (const auto& k : order) {
      auto it = rows_.find(k);
      if (it != rows_.end()) table.push_back(it->second);
    }
    return table;
  }

 private:
  Result& r_;
  std::map<std::string, json, std::less<>> rows_;
};

// Chips, hosts and TensorCores of the slice, and its peak FLOPs/s per dtype.

// Chips, hosts and TensorCores of the slice, and its peak FLOPs/s per dtype.
void inventory_counts(const hw::Chip& c, const Dims& d, const Inventory& inv, Trace& tr,
                      InventoryRows& rows, Result& r) {
  rows.put("chips", chips_step(tr, "Chips", d), "chips", "chips");
  rows.put("hosts", tr.step("Hosts", kHosts, {inv.chips, inv.chips_per_host}), "count", "hosts");
  if (std::fmod(inv.chips, inv.chips_per_host) != 0)
    r.note("The slice fills only part of a host (" + units::number(inv.chips_per_host) +
           " chips each).");
  rows.put("tensorcores", tr.step("TensorCores", kCores, {inv.chips, inv.cores_per_chip}), "count",
           "TensorCores");
  r.note(inv.cores_per_chip > 1
             ? (inv.megacore ? c.name + ": the two cores of a chip act as one megacore."
                             : c.name + ": the cores of a chip are separate devices (no megacore).")
             : c.name + ": one TensorCore per chip.");
  for (const auto& [dt, f] : inv.flops)
    rows.put("flops_" + dt,
             tr.step("Peak " + dt + " FLOPs/s of the slice", kSliceFlops,
                     {inv.chips, c.get("peak_flops_" + dt)}),
             "flop_per_s", dt + " FLOPs/s");
}

// HBM, the host links, and the ICI network of the slice (bisection, largest distance).
void inventory_memory_and_links(const hw::Chip& c, const Inventory& inv, Trace& tr,
                                InventoryRows& rows) {
  rows.put("hbm_bytes", tr.step("HBM capacity", kSliceHbm, {inv.chips, c.get("hbm_bytes")}), "B",
           "HBM capacity (GB = 1e9 B)");
  rows.put("hbm_bw", tr.step("HBM bandwidth, all chips", kSliceHbmBw, {inv.chips, c.get("hbm_bw")}),
           "B_per_s", "HBM bandwidth, summed");
  if (inv.pcie_bw > 0) rows.put("pcie_bw", inv.pcie_bw, "B_per_s", "PCIe, summed over chips");
  if (inv.dcn_bw > 0) rows.put("dcn_bw", inv.dcn_bw, "B_per_s", "DCN egress, summed over chips");
  rows.put("ici_bw_oneway", inv.ici_bw_oneway, "B_per_s", "ICI per link, one way");
  const double links = tr.value("Links cut by the cheapest halving of the slice",
                                bisection_links(inv.torus), "count");
  rows.put("bisection_bw",
           tr.step("Bisection bandwidth (one way across that cut)", kBisectionBw,
                   {links, inv.ici_bw_oneway}),
           "B_per_s", "bisection bandwidth, one way");
  rows.put("max_hops", max_distance_steps(tr, inv.torus), "count", "largest hop count");
}

// The inside of one chip (MXU, VPU, VMEM, VREGs), where the tables say enough.
void inventory_chip_insides(const hw::Chip& c, const Inventory& inv, Trace& tr, InventoryRows& rows,
                            Result& r) {
  if (c.has("mxu_size") && c.has("mxus_per_core") && c.has("clock_hz")) {
    const double S = c.get("mxu_size"), m = c.get("mxus_per_core"), f = c.get("clock_hz");
    const double one = tr.step("One MXU (bf16)", kMxuRate, {S, f});
    rows.put("mxu_flops_per_s", one, "flop_per_s", "one MXU, bf16");
    rows.put("chip_mxu_flops_per_s",
             tr.step("MXUs of one chip", kChipMxu, {inv.cores_per_chip, m, one}), "flop_per_s",
             "one chip's MXUs, bf16");
  } else {
    r.note("The book gives no MXU count, size or clock for " + c.name +
           " to rebuild its peak from.");
  }
  if (c.has("vpu_alus_per_cell") && c.has("clock_hz"))
    rows.put("vpu_flops_per_s_core",
             vpu_core_rate(c, c.get("vpu_alus_per_cell"), c.get("clock_hz"), tr), "flop_per_s",
             "VPU per core, fp32");
  if (c.has("vmem_bytes"))
    rows.put("vmem_bytes", c.get("vmem_bytes"), "B", "VMEM per chip",
             c.specs.at("vmem_bytes").text);
  if (c.has("vregs_per_core"))
    rows.put("vreg_bytes_per_core", vreg_bytes(c), "B", "vector registers per core");
}

void inventory_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& c = hw::chip(in.text("chip"));
  const bool given = !in.text("shape").empty();
  Dims d = given ? parse_shape(in.text("shape"), "shape") : default_slice(c);
  Inventory inv = inventory(c, d, "shape");
  if (!given)
    r.note("No shape given: " + shape_text(d) + ", a slice every " + c.name +
           " comes in. Type another shape to change it.");
  Topology topo = topology_of(c);
  InventoryRows rows(r);
  inventory_counts(c, d, inv, tr, rows, r);
  inventory_memory_and_links(c, inv, tr, rows);
  inventory_chip_insides(c, inv, tr, rows, r);
  if (topo.inferred)
    r.note("The book names no torus rank or wrap rule for " + c.name + "; ours is inferred.");
  r.note("Wraparound: " + topo.rule.text + ".");
  std::string wraps;
  for (size_t i = 0; i < inv.torus.wrap.size(); ++i) {
    if (i) wraps += ", ";
    wraps += "axis " + std::to_string(i) + (inv.torus.wrap[i] ? " ring" : " line");
  }
  r.extra["verdict"] = c.name + " " + shape_text(d) + ": " + units::number(inv.chips) +
                       " chips on " + units::number(inv.hosts) + " host(s); " + wraps;
  r.extra["table"] = rows.table(inv);
  r.extra["torus"] = torus_json(inv.torus);
}

// ------------------------------------------------------------------------------------- topology --

void topology_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& c = hw::chip(in.text("chip"));
  Torus t =
      slice_torus(c, parse_shape(in.text("shape"), "shape"), in.text("wrap"), "shape", "wrap");
  Dims a = endpoint(in, "from", t), b = endpoint(in, "to", t);
  const int total = static_cast<int>(hops_steps(tr, t, a, b, "Hops"));
  const int maxd = static_cast<int>(max_distance_steps(tr, t));
  const double w = c.get("ici_bw_oneway");
  const double links =
      tr.value("Links cut by the cheapest halving of the slice", bisection_links(t), "count");
  const double bis = tr.step("Bisection bandwidth, one way", kBisectionBw, {links, w});
  json path = json::array();
  for (const auto& p : route(t, a, b)) path.push_back(json(p));
  json nb = json::array();
  for (const auto& p : neighbours(t, a)) nb.push_back(json(p));
  r.value("hops", total, "count", "hops");
  r.value("max_hops", maxd, "count", "largest distance in the slice");
  r.value("bisection_links", links, "count", "links across the cheapest halving");
  r.value("bisection_bw", bis, "B_per_s", "bisection bandwidth, one way");
  r.value("neighbours", static_cast<double>(nb.size()), "count", "neighbours of the first chip");
  r.value("ports", ports_toward(t, a, b), "count", "links from the sender toward the receiver");
  Topology topo = topology_of(c);
  r.note("Wraparound rule: " + topo.rule.text + ".");
  if (in.text("wrap") != "auto") r.note("Wraparound set by hand to '" + in.text("wrap") + "'.");
  json torus = torus_json(t);
  torus["path"] = path;
  torus["from"] = json(a);
  torus["to"] = json(b);
  r.extra["hops_per_axis"] = json(hops_per_axis(t, a, b));
  r.extra["wrap"] = wrap_json(t);
  r.extra["path"] = std::move(path);
  r.extra["neighbours"] = std::move(nb);
  r.extra["torus"] = std::move(torus);
  r.extra["verdict"] = coord_text(a) + " to " + coord_text(b) + ": " + std::to_string(total) +
                       " hop(s) of at most " + std::to_string(maxd);
}

constexpr Param kInventoryParams[] = {
    chip_param("v5p"),
    text("shape", "",
         "slice shape, like 4x4x4 or 16x16 (at most 3 axes); empty: a 4x4x4 cube on a 3D torus, "
         "4x4 on a 2D one")};
constexpr Param kTopologyParams[] = {
    chip_param("v5e"), shape_param("16x16"),
    text("from", "", "first chip, like 0,0 or 0,0,0 (empty: the first corner)"),
    text("to", "", "second chip (empty: the opposite corner)"),
    choice("wrap", "auto", "auto|none|all", "wraparound: the chip's rule, or forced")};

constexpr Calculator kCalculators[] = {
    Calculator{
        .name = "tpus.inventory",
        .title = "Slice inventory",
        .doc = "Chips, hosts, TensorCores, total FLOPs/s per dtype, HBM and bandwidths of a slice; "
               "the chip's MXU, VPU, VMEM and VREG figures; wraparound per axis.",
        .params = kInventoryParams,
        .run = inventory_calc},
    Calculator{.name = "tpus.topology",
               .title = "ICI torus: hops and path",
               .doc =
                   "Hops per axis and in total between two chips, the route, wraparound per axis, "
                   "the largest distance, neighbours and the bisection bandwidth.",
               .params = kTopologyParams,
               .run = topology_calc}};

}  // namespace

void add_calculators(Registry& r) {
  r.add(kCalculators);
  add_transfer_calculators(r);
  add_chip_calculators(r);
}

}  // namespace sb::tpus
