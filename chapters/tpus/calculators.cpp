// The TPU chapter's calculators: slice inventory, ICI topology (hops, path, wraparound, bisection),
// transfer times over each link and as multi-stage pipelines, and the MXU/VPU micro-model. Chip
// figures come from sb::hw; the arithmetic is in model.hpp; each step goes to the Trace, each
// result to the Result.
#include <cmath>
#include <initializer_list>
#include <map>
#include <string>

#include "chapters/tpus/model.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

namespace sb::tpus {
namespace {

json coord_json(const Dims& c) { return json(c); }

json wrap_json(const Torus& t) {
  json w = json::array();
  for (bool b : t.wrap) w.push_back(b);
  return w;
}

// What a web drawing of the torus needs.
json torus_json(const Torus& t) { return {{"dims", t.dims}, {"wrap", wrap_json(t)}}; }

// "2 + 2 + 2": the per-axis terms of the largest distance.
std::string max_terms(const Torus& t) {
  std::string s;
  for (size_t i = 0; i < t.dims.size(); ++i) {
    if (i) s += " + ";
    s += std::to_string(axis_max_distance(t.dims[i], t.wrap[i]));
  }
  return s;
}

// One core's VPU rate, fp32: sublanes x lanes x ALUs per cell x clock, the shape from the tables.
double vpu_core_rate(const hw::Chip& c, double alus_per_cell, double clock_hz, Trace& tr) {
  const double sub = c.get("vpu_sublanes"), lanes = c.get("vpu_lanes");
  return tr.step("VPU of one core (fp32)", "n_{sub} \\cdot n_{lane} \\cdot n_{ALU} \\cdot f",
                 "# \\cdot # \\cdot # \\cdot #", {sub, lanes, alus_per_cell, clock_hz},
                 vpu_flops_per_s_core(vpu_alus_per_core(sub, lanes, alus_per_cell), clock_hz),
                 "flop_per_s");
}

// Bytes of one core's vector registers, their shape from the tables.
double vreg_bytes(const hw::Chip& c) {
  return vreg_bytes_per_core(c.get("vregs_per_core"), c.get("vpu_sublanes"), c.get("vpu_lanes"));
}

constexpr Param shape_param(Text def) {
  return text("shape", def, "slice shape, like 4x4x4 or 16x16 (at most 3 axes)");
}

constexpr Param zero_ok(Param p) {
  p.positive = false;
  return p;
}

// ------------------------------------------------------------------------------------ inventory --

// The values of tpus.inventory: each is a result value and a row [label, text] of its table.
class InventoryRows {
 public:
  explicit InventoryRows(Result& r) : r_(r) {}
  void put(const std::string& key, double v, Text unit, Text label) {
    r_.value(key, v, unit, label);
    rows_[key] = json::array({label, units::format(v, unit)});
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
void inventory_counts(const hw::Chip& c, const Dims& d, const Inventory& inv, Trace& tr,
                      InventoryRows& rows, Result& r) {
  rows.put("chips", tr.step("Chips", "N = \\prod_i n_i", shape_text(d), inv.chips, "chips"),
           "chips", "chips");
  rows.put("hosts",
           tr.step("Hosts", "\\lceil N / n_{host} \\rceil", "\\frac{#}{#}",
                   {inv.chips, inv.chips_per_host}, inv.hosts, "count"),
           "count", "hosts");
  if (std::fmod(inv.chips, inv.chips_per_host) != 0)
    r.note("The slice fills only part of a host (" + units::number(inv.chips_per_host) +
           " chips each).");
  rows.put("tensorcores",
           tr.step("TensorCores", "N \\cdot n_{core}", "# \\cdot #",
                   {inv.chips, inv.cores_per_chip}, inv.cores, "count"),
           "count", "TensorCores");
  r.note(inv.cores_per_chip > 1
             ? (inv.megacore ? c.name + ": the two cores of a chip act as one megacore."
                             : c.name + ": the cores of a chip are separate devices (no megacore).")
             : c.name + ": one TensorCore per chip.");
  for (const auto& [dt, f] : inv.flops)
    rows.put("flops_" + dt,
             tr.step("Peak " + dt + " FLOPs/s of the slice", "N \\cdot R_{" + dt + "}",
                     "# \\cdot #", {inv.chips, f / inv.chips}, f, "flop_per_s"),
             "flop_per_s", dt + " FLOPs/s");
}

// HBM, the host links, and the ICI network of the slice (bisection, largest distance).
void inventory_memory_and_links(const Inventory& inv, Trace& tr, InventoryRows& rows) {
  rows.put("hbm_bytes",
           tr.step("HBM capacity", "N \\cdot C_{HBM}", "# \\cdot #",
                   {inv.chips, inv.hbm_bytes / inv.chips}, inv.hbm_bytes, "B"),
           "B", "HBM capacity (GB = 1e9 B)");
  rows.put("hbm_bw",
           tr.step("HBM bandwidth, all chips", "N \\cdot BW_{HBM}", "# \\cdot #",
                   {inv.chips, inv.hbm_bw / inv.chips}, inv.hbm_bw, "B_per_s"),
           "B_per_s", "HBM bandwidth, summed");
  if (inv.pcie_bw > 0) rows.put("pcie_bw", inv.pcie_bw, "B_per_s", "PCIe, summed over chips");
  if (inv.dcn_bw > 0) rows.put("dcn_bw", inv.dcn_bw, "B_per_s", "DCN egress, summed over chips");
  rows.put("ici_bw_oneway", inv.ici_bw_oneway, "B_per_s", "ICI per link, one way");
  rows.put("bisection_bw",
           tr.step("Bisection bandwidth (one way across the cheapest halving)",
                   "\\min_i \\frac{N}{n_i} (1 + w_i) \\cdot W_{uni}", "# \\cdot #",
                   {bisection_links(inv.torus), inv.ici_bw_oneway}, inv.bisection_bw, "B_per_s"),
           "B_per_s", "bisection bandwidth, one way");
  rows.put("max_hops",
           tr.step("Largest distance", "\\sum_i (w_i ? \\lfloor n_i/2 \\rfloor : n_i - 1)",
                   max_terms(inv.torus), inv.max_hops, "count"),
           "count", "largest hop count");
}

// The inside of one chip (MXU, VPU, VMEM, VREGs), where the tables say enough.
void inventory_chip_insides(const hw::Chip& c, const Inventory& inv, Trace& tr, InventoryRows& rows,
                            Result& r) {
  if (c.has("mxu_size") && c.has("mxus_per_core") && c.has("clock_hz")) {
    double S = c.get("mxu_size"), m = c.get("mxus_per_core"), f = c.get("clock_hz");
    rows.put("mxu_flops_per_s",
             tr.step("One MXU (bf16)", "2 S^2 f", "# \\cdot # \\cdot # \\cdot #", {2, S, S, f},
                     mxu_flops_per_s(S, f), "flop_per_s"),
             "flop_per_s", "one MXU, bf16");
    rows.put("chip_mxu_flops_per_s",
             tr.step("MXUs of one chip", "n_{core} n_{MXU} 2 S^2 f",
                     "# \\cdot # \\cdot # \\cdot # \\cdot # \\cdot #",
                     {inv.cores_per_chip, m, 2, S, S, f},
                     chip_mxu_flops_per_s(inv.cores_per_chip, m, S, f), "flop_per_s"),
             "flop_per_s", "one chip's MXUs, bf16");
  } else {
    r.note("The book gives no MXU count, size or clock for " + c.name +
           " to rebuild its peak from.");
  }
  if (c.has("vpu_alus_per_cell") && c.has("clock_hz"))
    rows.put("vpu_flops_per_s_core",
             vpu_core_rate(c, c.get("vpu_alus_per_cell"), c.get("clock_hz"), tr), "flop_per_s",
             "VPU per core, fp32");
  if (c.has("vmem_bytes")) rows.put("vmem_bytes", c.get("vmem_bytes"), "B", "VMEM per chip");
  if (c.has("vregs_per_core"))
    rows.put("vreg_bytes_per_core", vreg_bytes(c), "B", "vector registers per core");
}

void inventory_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& c = hw::chip(in.text("chip"));
  Dims d = parse_shape(in.text("shape"), "shape");
  Inventory inv = inventory(c, d, "shape");
  Topology topo = topology_of(c);
  InventoryRows rows(r);
  inventory_counts(c, d, inv, tr, rows, r);
  inventory_memory_and_links(inv, tr, rows);
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

// A chip of the slice named by the input `name`; left empty, the first corner ("from") or the
// opposite one ("to"), so that the defaults fit a slice of any shape and rank.
Dims endpoint(const Inputs& in, Text name, const Torus& t) {
  const std::string text = in.text(name);
  if (!text.empty()) return parse_coord(text, t, std::string(name));
  Dims d(t.dims.size(), 0);
  if (name == "to")
    for (size_t i = 0; i < d.size(); ++i) d[i] = t.dims[i] - 1;
  return d;
}

void topology_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& c = hw::chip(in.text("chip"));
  Torus t =
      slice_torus(c, parse_shape(in.text("shape"), "shape"), in.text("wrap"), "shape", "wrap");
  Dims a = endpoint(in, "from", t), b = endpoint(in, "to", t);
  std::vector<int> h = hops_per_axis(t, a, b);
  std::string per_axis;
  for (size_t i = 0; i < h.size(); ++i) {
    // The number of axes is known only at run time, so these steps are written out as strings.
    std::string n = std::to_string(i), diff = std::to_string(std::abs(a[i] - b[i]));
    std::string ai = std::to_string(a[i]), bi = std::to_string(b[i]),
                side = std::to_string(t.dims[i]);
    std::string formula = t.wrap[i] ? "\\min(|a_" + n + " - b_" + n + "|, n - |a - b|)"
                                    : "|a_" + n + " - b_" + n + "|";
    std::string nums = t.wrap[i] ? "\\min(" + diff + ", " + side + " - " + diff + ")"
                                 : "|" + ai + " - " + bi + "|";
    tr.step("Axis " + n + (t.wrap[i] ? " (ring)" : " (line)"), formula, nums, h[i], "count");
    if (i) per_axis += " + ";
    per_axis += std::to_string(h[i]);
  }
  int total = static_cast<int>(tr.step("Hops", "\\sum_i d_i", per_axis, hops(t, a, b), "count"));
  int maxd = static_cast<int>(tr.step("Largest distance in the slice",
                                      "\\sum_i (w_i ? \\lfloor n_i/2 \\rfloor : n_i - 1)",
                                      max_terms(t), max_distance(t), "count"));
  double w = c.get("ici_bw_oneway");
  double bis =
      tr.step("Bisection bandwidth, one way", "\\min_i \\frac{N}{n_i}(1 + w_i) \\cdot W_{uni}",
              "# \\cdot #", {bisection_links(t), w}, bisection_bw(t, w), "B_per_s");
  json path = json::array();
  for (const auto& p : route(t, a, b)) path.push_back(coord_json(p));
  json nb = json::array();
  for (const auto& p : neighbours(t, a)) nb.push_back(coord_json(p));
  r.value("hops", total, "count", "hops");
  r.value("max_hops", maxd, "count", "largest distance in the slice");
  r.value("bisection_links", bisection_links(t), "count", "links across the cheapest halving");
  r.value("bisection_bw", bis, "B_per_s", "bisection bandwidth, one way");
  r.value("neighbours", static_cast<double>(nb.size()), "count", "neighbours of the first chip");
  r.value("ports", ports_toward(t, a, b), "count", "links from the sender toward the receiver");
  Topology topo = topology_of(c);
  r.note("Wraparound rule: " + topo.rule.text + ".");
  if (in.text("wrap") != "auto") r.note("Wraparound set by hand to '" + in.text("wrap") + "'.");
  json torus = torus_json(t);
  torus["path"] = path;
  torus["from"] = coord_json(a);
  torus["to"] = coord_json(b);
  r.extra["hops_per_axis"] = json(h);
  r.extra["wrap"] = wrap_json(t);
  r.extra["path"] = std::move(path);
  r.extra["neighbours"] = std::move(nb);
  r.extra["torus"] = std::move(torus);
  r.extra["verdict"] = coord_text(a) + " to " + coord_text(b) + ": " + std::to_string(total) +
                       " hop(s) of at most " + std::to_string(maxd);
}

// ------------------------------------------------------------------------------------- transfer --

double vmem_bw_of(const hw::Chip& c, Trace& tr) {
  if (c.has("vmem_bw")) return c.get("vmem_bw");
  double bw = vmem_bw(c.get("hbm_bw"));
  tr.note("No VMEM bandwidth in the tables for " + c.name +
          ": taking 22 x HBM, as the chapter does for v5e.");
  return bw;
}

json stage_json(const Stage& s) {
  return {{"name", s.name},
          {"kind", s.kind},
          {"amount", s.amount},
          {"rate", s.rate},
          {"latency", s.latency},
          {"seconds", s.seconds},
          {"text", units::format(s.seconds, "s")}};
}

// What every route of tpus.transfer needs: the chip, the inputs, the bytes, the hop latency.
struct Transfer {
  const hw::Chip& chip;
  const Inputs& in;
  double bytes = 0, t_hop = 0;
  Torus slice() const {
    return slice_torus(chip, parse_shape(in.text("shape"), "shape"), "auto", "shape");
  }
};

// One chip's memory or host links: HBM, VMEM, PCIe, or PCIe - DCN - PCIe between hosts.
std::vector<Stage> local_stages(const Transfer& x, const std::string& route, Trace& tr) {
  const hw::Chip& c = x.chip;
  if (route == "hbm") return {make_stage("HBM to the cores", "hbm", x.bytes, c.get("hbm_bw"))};
  if (route == "vmem") return {make_stage("VMEM to the cores", "vmem", x.bytes, vmem_bw_of(c, tr))};
  if (route == "pcie")
    return {make_stage("PCIe, host to one chip", "pcie", x.bytes, c.get("pcie_bw"))};
  const double pcie = c.get("pcie_bw"), dcn = c.get("dcn_bw");
  return {make_stage("PCIe up to the source host", "pcie", x.bytes, pcie),
          make_stage("DCN between hosts (one chip's share of egress)", "dcn", x.bytes, dcn),
          make_stage("PCIe down to the destination chip", "pcie", x.bytes, pcie)};
}

// ICI between two chips of the slice: over the ports toward the receiver ("ici"), or pushed
// along one axis, both ways round a ring ("ici_axis"). Sets `hops`.
std::vector<Stage> ici_stages(const Transfer& x, const std::string& route, Trace& tr, int& hops_) {
  Torus t = x.slice();
  Dims a = endpoint(x.in, "from", t), b = endpoint(x.in, "to", t);
  const int h = hops_ = hops(t, a, b);
  const double w = x.chip.get("ici_bw_oneway");
  if (route == "ici") {
    int ports = x.in.num("ports") > 0 ? static_cast<int>(x.in.num("ports"))
                                      : std::max(1, ports_toward(t, a, b));
    tr.step("Ports toward the destination", "n_{ports}", std::to_string(ports), ports, "count");
    tr.step("First byte arrives", "h \\cdot t_{hop}", "# \\cdot #",
            {static_cast<double>(h), x.t_hop}, ici_first_byte(h, x.t_hop), "s");
    return {make_stage("ICI " + coord_text(a) + " to " + coord_text(b) + " over " +
                           std::to_string(ports) + " link(s), " + std::to_string(h) + " hop(s)",
                       "ici", x.bytes, ports * w, ici_first_byte(h, x.t_hop))};
  }
  // Push along the first axis on which the two chips differ: a ring uses both directions.
  size_t ax = 0;
  while (ax + 1 < t.dims.size() && a[ax] == b[ax]) ++ax;
  double bw = axis_bw(w, t.wrap[ax]);
  tr.step("Axis " + std::to_string(ax) +
              (t.wrap[ax] ? ": a ring, both directions" : ": a line, one direction"),
          t.wrap[ax] ? "2 W_{uni}" : "W_{uni}", t.wrap[ax] ? "2 \\cdot #" : "#", {w}, bw,
          "B_per_s");
  return {make_stage("ICI along axis " + std::to_string(ax), "ici", x.bytes, bw,
                     ici_first_byte(h, x.t_hop))};
}

// The array sits sharded in host memory across the slice; bring all of it to one chip: each chip
// loads its shard over PCIe and ICI gathers them ("host_gather_ici"), or the hosts send theirs
// over DCN to the destination's host ("host_gather_dcn"); then HBM streams it into the MXU.
std::vector<Stage> host_gather_stages(const Transfer& x, const std::string& route, Trace& tr,
                                      Result& r) {
  const hw::Chip& c = x.chip;
  Torus t = x.slice();
  Dims dest = endpoint(x.in, "to", t);
  double N = chip_count(t.dims), per_host = std::min(N, c.get("chips_per_host"));
  double H = host_count(N, c.get("chips_per_host"));
  std::vector<Stage> st;
  if (route == "host_gather_ici") {
    int links = static_cast<int>(neighbours(t, dest).size());
    tr.step("Links into " + coord_text(dest), "\\deg(\\mathrm{dest})", coord_text(dest), links,
            "count");
    if (links == 0)
      fail("shape", "shape: a single chip has no ICI links to gather over; use route pcie",
           "out_of_range");
    st.push_back(make_stage("PCIe: each of the " + units::number(N) + " chips loads its shard",
                            "pcie", x.bytes / N, c.get("pcie_bw")));
    if (N > 1)
      st.push_back(make_stage("ICI: gather the other shards onto " + coord_text(dest), "ici",
                              x.bytes * (N - 1) / N, links * c.get("ici_bw_oneway"),
                              max_distance(t) * x.t_hop));
  } else {
    if (H > 1)
      st.push_back(make_stage("DCN: the other hosts send their part to the destination's host",
                              "dcn", x.bytes * (H - 1) / H,
                              host_dcn_bw(per_host, c.get("dcn_bw"))));
    st.push_back(make_stage("PCIe: the whole array into " + coord_text(dest), "pcie", x.bytes,
                            c.get("pcie_bw")));
  }
  st.push_back(make_stage("HBM: stream the array into the MXU", "hbm", x.bytes, c.get("hbm_bw")));
  if (x.bytes > c.get("hbm_bytes"))
    r.note("Warning: " + units::format(x.bytes, "B") + " does not fit in one " + c.name +
           "'s HBM (" + units::format(c.get("hbm_bytes"), "B") + ").");
  return st;
}

// The stages' times, the pipeline's two bounds and its bottleneck, as trace and result.
void report_pipeline(const Pipeline& p, Trace& tr, Result& r) {
  json stages = json::array();
  // The stages vary in number, so the sum and the list of their times are built as strings.
  std::string sum, list;
  for (const auto& s : p.stages) {
    tr.step(s.name,
            s.latency > 0 ? "T = \\frac{\\mathrm{bytes}}{BW} + h\\,t_{hop}"
                          : (s.kind == "compute" ? "T = \\mathrm{FLOPs}/\\mathrm{peak}"
                                                 : "T = \\mathrm{bytes}/BW"),
            s.latency > 0 ? "\\frac{#}{#} + #" : "\\frac{#}{#}", {s.amount, s.rate, s.latency},
            s.seconds, "s");
    stages.push_back(stage_json(s));
    if (!sum.empty()) {
      sum += " + ";
      list += ", ";
    }
    sum += tex(s.seconds);
    list += tex(s.seconds);
  }
  if (p.stages.size() > 1) {
    tr.step("Lower bound: stages overlap, the slowest sets the pace", "\\max_i T_i",
            "\\max(" + list + ")", p.t_lower, "s");
    tr.step("Upper bound: stages run one after another", "\\sum_i T_i", sum, p.t_upper, "s");
  }
  r.value("t_lower", p.t_lower, "s", p.stages.size() > 1 ? "time, stages overlapped" : "time");
  if (p.stages.size() > 1) r.value("t_upper", p.t_upper, "s", "time, stages in sequence");
  const Stage& bn = p.stages[p.bottleneck];
  r.extra["stages"] = std::move(stages);
  r.extra["bottleneck"] = {{"index", p.bottleneck}, {"name", bn.name}, {"kind", bn.kind}};
  r.extra["verdict"] = "Bottleneck: " + bn.name + " (" + units::format(bn.seconds, "s") + ")";
}

void transfer_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& c = hw::chip(in.text("chip"));
  const std::string route = in.text("route");
  Transfer x{c, in, in.num("bytes"), in.num("hop_latency")};
  if (x.t_hop == 0) x.t_hop = hop_latency(c);
  std::vector<Stage> st;
  int h = -1;  // hops, for the ICI routes
  if (route == "hbm" || route == "vmem" || route == "pcie" || route == "dcn")
    st = local_stages(x, route, tr);
  else if (route == "ici" || route == "ici_axis")
    st = ici_stages(x, route, tr, h);
  else if (route == "host_gather_ici" || route == "host_gather_dcn")
    st = host_gather_stages(x, route, tr, r);
  else
    fail("route",
         "route must be one of hbm, vmem, ici, ici_axis, pcie, dcn, host_gather_ici, "
         "host_gather_dcn",
         "bad_choice");
  if (in.num("flops") > 0)
    st.push_back(
        make_stage("Compute at bf16 peak", "compute", in.num("flops"), c.peak("bf16", "chip")));
  report_pipeline(pipeline(st), tr, r);
  if (h >= 0) r.extra["hops"] = h;
}

// ------------------------------------------------------------------------------------------ mxu --

// A figure of tpus.mxu: the reader's when given (> 0), else the chip's from the tables.
double mxu_figure(const Inputs& in, const hw::Chip& c, const char* name, const char* what) {
  double v = in.num(name);
  if (v > 0) return v;
  if (!c.has(name))
    fail(name, std::string(name) + ": the book gives no " + what + " for " + c.name + "; enter one",
         "no_spec");
  return c.get(name);
}

struct MxuRates {
  double utilisation = 0, chip = 0;  // share of useful work; the chip's MXU FLOPs/s
};

// The MXU part of tpus.mxu: padding to the MXU side, utilisation, the rates and the time.
MxuRates mxu_part(const Inputs& in, double S, double clk, double mxus, double cores, Trace& tr,
                  Result& r) {
  std::vector<double> dims = {in.num("M"), in.num("K"), in.num("N")};
  const char* names[] = {"M", "K", "N"};
  json padded = json::object();
  std::vector<double> pd(3);
  for (int i = 0; i < 3; ++i) {
    double p = pd[i] =
        tr.step(std::string("Pad ") + names[i] + " to a multiple of " + units::number(S),
                "\\lceil d / S \\rceil S", "\\lceil # / # \\rceil \\cdot #", {dims[i], S, S},
                padded_dim(dims[i], S), "count");
    padded[names[i]] = p;
  }
  MxuRates m;
  const double u = m.utilisation = tr.step(
      "MXU utilisation", "\\frac{MKN}{M'K'N'}", "\\frac{# \\cdot # \\cdot #}{# \\cdot # \\cdot #}",
      {dims[0], dims[1], dims[2], pd[0], pd[1], pd[2]}, mxu_utilisation(dims, S), "ratio");
  double per_mxu = tr.step("One MXU", "2 S^2 f", "# \\cdot # \\cdot # \\cdot #", {2, S, S, clk},
                           mxu_flops_per_s(S, clk), "flop_per_s");
  const double chip = m.chip =
      tr.step("All MXUs of the chip", "n_{core} n_{MXU} \\cdot 2 S^2 f", "# \\cdot # \\cdot #",
              {cores, mxus, per_mxu}, chip_mxu_flops_per_s(cores, mxus, S, clk), "flop_per_s");
  double useful = tr.step("Useful rate on this matmul", "u \\cdot R_{chip}", "# \\cdot #",
                          {u, chip}, u * chip, "flop_per_s");
  double flops = roofline::matmul_flops({dims[0], dims[1], dims[2]});
  double t = tr.step("Time at that rate", "\\frac{2MKN}{u R_{chip}}", "\\frac{#}{#}",
                     {flops, useful}, roofline::t_math(flops, useful), "s");
  r.value("utilisation", u, "ratio", "MXU utilisation after padding");
  r.value("mxu_flops_per_s", per_mxu, "flop_per_s", "one MXU");
  r.value("chip_mxu_flops_per_s", chip, "flop_per_s", "all MXUs of a chip");
  r.value("useful_flops_per_s", useful, "flop_per_s", "useful FLOPs/s on this matmul");
  r.value("t_matmul", t, "s", "matmul time at MXU peak");
  r.value("mxu_cells", mxu_cells(S), "count", "cells per MXU");
  r.extra["padded"] = std::move(padded);
  return m;
}

// The VPU part of tpus.mxu: one core's and the chip's rate against the MXUs, registers, and the
// cross-sublane reduction.
void vpu_part(const Inputs& in, const hw::Chip& c, double clk, double cores, double mxu_chip,
              Trace& tr, Result& r) {
  double alus_cell = in.num("vpu_alus_per_cell") > 0
                         ? in.num("vpu_alus_per_cell")
                         : (c.has("vpu_alus_per_cell") ? c.get("vpu_alus_per_cell") : 0);
  if (alus_cell > 0) {
    double vpu = vpu_core_rate(c, alus_cell, clk, tr);
    r.value("vpu_flops_per_s_core", vpu, "flop_per_s", "VPU per core");
    r.value("vpu_flops_per_s_chip", cores * vpu, "flop_per_s", "VPU per chip");
    r.value("mxu_to_vpu_ratio", mxu_chip / (cores * vpu), "ratio", "MXU rate / VPU rate");
  } else {
    r.note("The book gives no VPU ALU count for " + c.name +
           " (4 per cell on v5); enter one to see the VPU rate.");
  }
  if (c.has("vregs_per_core"))
    r.value("vreg_bytes_per_core", vreg_bytes(c), "B", "vector registers per core");
  const double sublanes = c.get("vpu_sublanes");
  r.value("sublane_reduction_steps", sublane_reduction_steps(static_cast<int>(sublanes)), "count",
          "rotate-and-add steps across " + units::number(sublanes) + " sublanes");
}

void mxu_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& c = hw::chip(in.text("chip"));
  const double S = mxu_figure(in, c, "mxu_size", "MXU size");
  const double clk = mxu_figure(in, c, "clock_hz", "clock");
  const double mxus = mxu_figure(in, c, "mxus_per_core", "MXU count");
  const double cores = c.get("cores_per_chip");
  const MxuRates m = mxu_part(in, S, clk, mxus, cores, tr, r);
  vpu_part(in, c, clk, cores, m.chip, tr, r);
  if (m.utilisation < 0.5)
    r.note("Less than half of the MXU's work is useful: make the dimensions multiples of " +
           units::number(S) + ".");
  r.extra["verdict"] = "MXU utilisation " + units::number(100 * m.utilisation, 3) + "%";
}

// ------------------------------------------------------------------------------------- decode --

void decode_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& c = hw::chip(in.text("chip"));
  double np = in.num("n_params"), b = hw::dtype_bytes(in.text("dtype"), "dtype"),
         n = in.num("n_chips");
  double bw = c.get("hbm_bw"), cap = c.get("hbm_bytes");
  double per = tr.step("Weight bytes per chip", "\\frac{N_{params} b}{N_{chips}}",
                       "\\frac{# \\cdot #}{#}", {np, b, n}, np * b / n, "B");
  double t = tr.step("Decode-step floor", "\\frac{N_{params} b / N_{chips}}{BW_{HBM}}",
                     "\\frac{#}{#}", {per, bw}, decode_step_floor(np, b, n, bw), "s");
  if (per > cap)
    r.note("The weights do not fit: " + units::format(per, "B") + " per chip against " +
           units::format(cap, "B") + " of HBM.");
  r.value("bytes_per_chip", per, "B", "weight bytes per chip");
  r.value("t_step", t, "s", "lowest time per decode step");
  r.value("tokens_per_s", 1 / t, "per_s", "most steps per second");
  r.value("fits", per <= cap ? 1 : 0, "bool", "fits in HBM");
}

constexpr Param kInventoryParams[] = {chip_param("v5p"), shape_param("4x4x4")};
constexpr Param kTopologyParams[] = {
    chip_param("v5e"), shape_param("16x16"),
    text("from", "", "first chip, like 0,0 or 0,0,0 (empty: the first corner)"),
    text("to", "", "second chip (empty: the opposite corner)"),
    choice("wrap", "auto", "auto|none|all", "wraparound: the chip's rule, or forced")};
constexpr Param kTransferParams[] = {
    chip_param("v5e"),
    choice("route", "ici", "hbm|vmem|ici|ici_axis|pcie|dcn|host_gather_ici|host_gather_dcn",
           "where the bytes travel"),
    num("bytes", "B", 16777216, "bytes to move", 0, 1e18),
    shape_param("4x4"),
    text("from", "", "sending chip, ici routes (empty: the first corner)"),
    text("to", "", "receiving chip (empty: the opposite corner)"),
    zero_ok(num("ports", "count", 0, "links used at once (0 = one per axis toward the receiver)", 0,
                6, true)),
    zero_ok(num("hop_latency", "s", 0, "latency per hop (0 = the chip's, else 1 us)", 0, 1)),
    zero_ok(num("flops", "flop", 0, "FLOPs of a compute stage to add (0 = none)", 0, 1e25))};
constexpr Param kMxuParams[] = {
    chip_param("v5e"),
    num("M", "count", 200, "rows of the LHS", 1, 1e9, true),
    num("K", "count", 4096, "contracted dimension", 1, 1e9, true),
    num("N", "count", 1000, "columns of the RHS", 1, 1e9, true),
    zero_ok(num("mxu_size", "count", 0, "MXU side (0 = the chip's)", 0, 4096, true)),
    zero_ok(num("mxus_per_core", "count", 0, "MXUs per core (0 = the chip's)", 0, 64, true)),
    zero_ok(num("clock_hz", "per_s", 0, "clock (0 = the chip's)", 0, 1e11)),
    zero_ok(num("vpu_alus_per_cell", "count", 0, "VPU ALUs per (lane, sublane) (0 = the chip's)", 0,
                64, true))};
constexpr Param kDecodeParams[] = {
    chip_param("v5e"), num("n_params", "count", 7e10, "parameters", 1, 1e15),
    dtype_param("dtype", "bf16", "weight dtype"),
    num("n_chips", "chips", 16, "chips sharing the weights", 1, 1e6, true)};

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
               .run = topology_calc},
    Calculator{
        .name = "tpus.transfer",
        .title = "Transfer time and bottleneck",
        .doc =
            "Time to move bytes over HBM, VMEM, ICI (point to point or along an axis), PCIe or "
            "DCN, or to gather a host-offloaded array onto one chip; lower bound = slowest stage, "
            "upper = sum, bottleneck named.",
        .params = kTransferParams,
        .run = transfer_calc},
    Calculator{.name = "tpus.mxu",
               .title = "MXU padding and VPU rate",
               .doc = "Pads a matmul's M, K, N to the MXU side, gives the utilisation and MXU "
                      "FLOPs/s per MXU "
                      "and per chip, and the VPU rate, VREG bytes and sublane-reduction steps.",
               .params = kMxuParams,
               .run = mxu_calc},
    Calculator{
        .name = "tpus.decode",
        .title = "Decode-step floor",
        .doc = "Every decode step reads all weights from HBM once: the fastest a step can be.",
        .params = kDecodeParams,
        .run = decode_calc}};

}  // namespace

void add_calculators(Registry& r) { r.add(kCalculators); }

}  // namespace sb::tpus
