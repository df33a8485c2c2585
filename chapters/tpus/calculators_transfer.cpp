// The TPU chapter's transfer calculator (tpus.transfer): bytes over HBM, VMEM, ICI (point to
// point or along an axis), PCIe or DCN, or a host-offloaded array gathered onto one chip, as a
// pipeline of stages with its two bounds and its bottleneck. Every step of a derivation is made
// from a formula record.
#include <algorithm>
#include <string>
#include <vector>

#include "chapters/roofline/levels.hpp"
#include "chapters/roofline/model.hpp"
#include "chapters/tpus/calculators.hpp"
#include "chapters/tpus/model.hpp"
#include "chapters/tpus/steps.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

namespace sb::tpus {
namespace {

// VMEM's bandwidth: the tables', or 22 x HBM as the chapter takes it for v5e. A GPU has none.
double vmem_bw_of(const hw::Chip& c, Trace& tr) {
  const roofline::LevelBw v = roofline::level_bw(c, roofline::Level::Vmem);
  if (v.bw > 0) return v.bw;
  if (c.kind != "tpu") fail("route", v.note, "no_figure");
  tr.note("No VMEM bandwidth in the tables for " + c.name + ": taking " +
          units::number(kVmemOverHbm) + " x HBM, as the chapter does for v5e.");
  return tr.step("VMEM bandwidth", kVmemBw, {c.get("hbm_bw"), kVmemOverHbm});
}

// The bandwidth of a host link (PCIe, DCN), or an error in words where the chip has none.
double host_link_bw(const hw::Chip& c, roofline::Level l) {
  if (c.kind != "tpu")
    fail("route",
         "The " + c.name + " is a GPU: these routes are a TPU host's (PCIe, DCN); hbm applies.",
         "no_figure");
  const roofline::LevelBw v = roofline::level_bw(c, l);
  if (!(v.bw > 0)) fail("route", v.note, "no_figure");
  return v.bw;
}

json stage_json(const Stage& s) {
  return {{"name", s.name},
          {"kind", s.kind},
          {"amount", s.amount},
          {"rate", s.rate},
          {"latency", s.latency},
          {"seconds", s.seconds},
          {"start_serial", s.start_serial},
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
// One chip's memory or host links: HBM, VMEM, PCIe, or PCIe - DCN - PCIe between hosts.
std::vector<Stage> local_stages(const Transfer& x, const std::string& route, Trace& tr) {
  const hw::Chip& c = x.chip;
  if (route == "hbm") return {make_stage("HBM to the cores", "hbm", x.bytes, c.get("hbm_bw"))};
  if (route == "vmem") return {make_stage("VMEM to the cores", "vmem", x.bytes, vmem_bw_of(c, tr))};
  const double pcie = host_link_bw(c, roofline::Level::Pcie);
  if (route == "pcie") return {make_stage("PCIe, host to one chip", "pcie", x.bytes, pcie)};
  const double dcn = host_link_bw(c, roofline::Level::Dcn);
  return {make_stage("PCIe up to the source host", "pcie", x.bytes, pcie),
          make_stage("DCN between hosts (one chip's share of egress)", "dcn", x.bytes, dcn),
          make_stage("PCIe down to the destination chip", "pcie", x.bytes, pcie)};
}

// ICI between two chips of the slice: over the ports toward the receiver ("ici"), or pushed
// along one axis, both ways round a ring ("ici_axis"). Sets `hops`.
std::vector<Stage> ici_stages(const Transfer& x, const std::string& route, Trace& tr, int& hops_) {
  Torus t = x.slice();
  Dims a = endpoint(x.in, "from", t), b = endpoint(x.in, "to", t);
  const double h = hops_steps(tr, t, a, b, "Hops");
  hops_ = static_cast<int>(h);
  const double w = x.chip.get("ici_bw_oneway");
  const std::string between = coord_text(a) + " to " + coord_text(b);
  if (route == "ici") {
    const double ports = tr.value(
        "Links the sender uses toward the receiver",
        x.in.num("ports") > 0 ? x.in.num("ports") : std::max(1, ports_toward(t, a, b)), "count");
    const double bw = tr.step("Their bandwidth, one way", kSendBw, {ports, w});
    const double first = tr.step("First byte arrives", kFirstByte, {h, x.t_hop});
    return {make_stage("ICI " + between + " over " + units::number(ports) + " link(s), " +
                           std::to_string(hops_) + " hop(s)",
                       "ici", x.bytes, bw, first)};
  }
  // Push along the first axis on which the two chips differ: a ring uses both directions.
  size_t ax = 0;
  while (ax + 1 < t.dims.size() && a[ax] == b[ax]) ++ax;
  const double bw =
      tr.step("Axis " + std::to_string(ax) +
                  (t.wrap[ax] ? ": a ring, both directions" : ": a line, one direction"),
              t.wrap[ax] ? kAxisBwRing : kAxisBwLine, {w});
  const double first = tr.step("First byte arrives", kFirstByte, {h, x.t_hop});
  return {make_stage("ICI along axis " + std::to_string(ax), "ici", x.bytes, bw, first)};
}

// host_gather_ici: each chip loads its shard over its own PCIe link, then ICI gathers the other
// shards onto the destination over its links (the farthest shard's path adds its latency).
std::vector<Stage> gather_over_ici(const Transfer& x, const Torus& t, const Dims& dest, Trace& tr) {
  const hw::Chip& c = x.chip;
  const double N = chips_step(tr, "Chips in the slice", t.dims);
  const double links = tr.value("Links into " + coord_text(dest),
                                static_cast<double>(neighbours(t, dest).size()), "count");
  if (links == 0)
    fail("shape", "a single chip has no ICI links to gather over; use route pcie", "out_of_range");
  const double shard = tr.step("Each chip's shard", kShard, {x.bytes, N});
  std::vector<Stage> st{
      make_stage("PCIe: each of the " + units::number(N) + " chips loads its shard", "pcie", shard,
                 c.get("pcie_bw"))};
  const double in = tr.step("Bytes from the other chips", kFromOtherChips, {x.bytes, N});
  const double bw =
      tr.step("The destination's links, one way", kReceiveBw, {links, c.get("ici_bw_oneway")});
  const double far = tr.step("Latency of the farthest shard's path", kFirstByte,
                             {max_distance_steps(tr, t), x.t_hop});
  st.push_back(
      make_stage("ICI: gather the other shards onto " + coord_text(dest), "ici", in, bw, far));
  return st;
}

// host_gather_dcn: the other hosts send their part over DCN to the destination's host, then the
// whole array goes down its one PCIe link.
std::vector<Stage> gather_over_dcn(const Transfer& x, const Torus& t, const Dims& dest, Trace& tr) {
  const hw::Chip& c = x.chip;
  const double N = chips_step(tr, "Chips in the slice", t.dims);
  const double H = tr.step("Hosts", kHosts, {N, c.get("chips_per_host")});
  std::vector<Stage> st;
  if (H > 1) {
    const double out = tr.step("Bytes the other hosts send", kFromOtherHosts, {x.bytes, H});
    const double egress =
        tr.step("A host's DCN egress", kHostDcn, {c.get("chips_per_host"), c.get("dcn_bw")});
    st.push_back(make_stage("DCN: the other hosts send their part to the destination's host", "dcn",
                            out, egress));
  }
  st.push_back(make_stage("PCIe: the whole array into " + coord_text(dest), "pcie", x.bytes,
                          c.get("pcie_bw")));
  return st;
}

// The array sits sharded in host memory across the slice; bring all of it to one chip, over ICI
// or over DCN; then HBM streams it into the MXU.
std::vector<Stage> host_gather_stages(const Transfer& x, const std::string& route, Trace& tr,
                                      Result& r) {
  const hw::Chip& c = x.chip;
  const Torus t = x.slice();
  const Dims dest = endpoint(x.in, "to", t);
  std::vector<Stage> st = route == "host_gather_ici" ? gather_over_ici(x, t, dest, tr)
                                                     : gather_over_dcn(x, t, dest, tr);
  st.push_back(make_stage("HBM: stream the array into the MXU", "hbm", x.bytes, c.get("hbm_bw")));
  if (x.bytes > c.get("hbm_bytes"))
    r.note("Warning: " + units::format(x.bytes, "B") + " does not fit in one " + c.name +
           "'s HBM (" + units::format(c.get("hbm_bytes"), "B") + ").");
  return st;
}

// The stages' times, the pipeline's two bounds and its bottleneck, as trace and result.
void report_pipeline(const Pipeline& p, Trace& tr, Result& r) {
  pipeline_steps(tr, p, "Lower bound: stages overlap, the slowest sets the pace",
                 "Upper bound: stages run one after another");
  json stages = json::array();
  for (const auto& s : p.stages) stages.push_back(stage_json(s));
  r.value("t_lower", p.t_lower, "s", p.stages.size() > 1 ? "time, stages overlapped" : "time");
  if (p.stages.size() > 1) r.value("t_upper", p.t_upper, "s", "time, stages in sequence");
  const Stage& bn = p.stages[p.bottleneck];
  r.extra["stages"] = std::move(stages);
  r.extra["bottleneck"] = {{"index", p.bottleneck}, {"name", bn.name}, {"kind", bn.kind}};
  r.extra["verdict"] = "Bottleneck: " + bn.name + " (" + units::format(bn.seconds, "s") + ")";
  r.extra["t_serial"] = p.t_upper;
  r.extra["t_overlapped"] = p.t_lower;
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

constexpr Calculator kTransferCalculators[] = {Calculator{
    .name = "tpus.transfer",
    .title = "Transfer time and bottleneck",
    .doc = "Time to move bytes over HBM, VMEM, ICI (point to point or along an axis), PCIe or "
           "DCN, or to gather a host-offloaded array onto one chip; lower bound = slowest stage, "
           "upper = sum, bottleneck named.",
    .params = kTransferParams,
    .run = transfer_calc}};

}  // namespace

void add_transfer_calculators(Registry& r) { r.add(kTransferCalculators); }

}  // namespace sb::tpus
