// The sharding chapter's calculators: a sharded matmul (case, collectives, output sharding, the
// alternatives side by side, and which device holds which block), a collective on torus axes
// (time, regime and a time-vs-size plot) and the local shape of one sharded array.
#include "chapters/sharding/calculators.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "chapters/sharding/model.hpp"
#include "chapters/sharding/notation.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

namespace sb::sharding {

// The smallest bandwidth a reader may give (B/s): with the largest messages (1e15 B) every time
// stays a finite number of seconds.
constexpr double kMinBandwidth = 1;

Link link_for(const hw::Chip& c, Text link, Text direction, double w_given, double t_given) {
  Link l;
  l.dcn = link == "dcn";
  if (w_given > 0 && w_given < kMinBandwidth)
    fail("w_uni", "0 takes the chip's figure; a bandwidth given must be at least 1 B/s",
         "out_of_range");
  if (w_given > 0)
    l.w_uni = w_given;
  else if (c.kind != "tpu")
    fail("chip",
         "The " + c.name +
             " is a GPU: it has no ICI torus or DCN (its GPUs talk over NVLink through "
             "switches), and this chapter's collective costs are those of TPU tori. Pick a TPU, "
             "or give w_uni to cost a ring of that bandwidth.",
         "no_figure");
  else
    l.w_uni = c.get(l.dcn ? "dcn_bw" : "ici_bw_oneway", "chip");
  l.t_hop = t_given;
  l.bidirectional = direction != "one-way";
  return l;
}

namespace {

// Wraparound per mesh axis: forced by the reader, or the tpus chapter's rule for a slice shaped
// like the mesh.
std::vector<bool> wraps_for(const hw::Chip& c, const std::vector<long long>& sizes, Text wrap) {
  if (wrap == "all" || wrap == "none") return std::vector<bool>(sizes.size(), wrap == "all");
  return tpus::wraps(c, tpus::Dims(sizes.begin(), sizes.end()));
}

constexpr Param wrap_param() {
  return choice(
      "wrap", "auto", "auto|all|none",
      "wraparound: auto = the chip's rule (see tpus.topology) for a slice shaped like the "
      "mesh; all; none");
}
constexpr Param link_param() {
  return choice("link", "ici", "ici|dcn", "the axes run over ICI or over DCN");
}
constexpr Param direction_param() {
  return choice("direction", "bidirectional", "bidirectional|one-way",
                "whether rings send both ways (the book's W_ici = 2 W_uni) or one way");
}
constexpr Param bw_param() {
  Param p =
      num("w_uni", "B_per_s", 0,
          "one-way bandwidth per link (ICI) or per chip (DCN): 0 = the chip's figure, else 1 B/s "
          "to 1e15 B/s",
          0, 1e15);
  p.positive = false;
  return p;
}
constexpr Param latency_param() {
  Param p = num("t_hop", "s", tpus::kTypicalHopLatency,
                "latency per hop (the chapter's T_min, about 1 us)", 0, 1);
  p.positive = false;
  return p;
}
constexpr Param bytes_param() {
  Param p =
      num("bytes", "B", 33554432, "V: message size in bytes (see the note for each op)", 0, 1e15);
  p.positive = false;  // zero bytes: no communication
  return p;
}
constexpr Param phys_param() {
  return num("phys_axes", "count", 1, "hardware axes a single named axis spans (A4.3)", 1, 3, true);
}

void write_wrap(JsonWriter& w, const Mesh& m, const std::vector<bool>& wrap) {
  w.obj();
  for (std::size_t k = 0; k < m.names.size(); ++k) w.key(m.names[k]).boolean(wrap[k]);
  w.end();
}

void write_mesh(JsonWriter& w, const Mesh& m) {
  w.obj().key("names").strs(m.names).key("sizes").arr();
  for (long long v : m.sizes) w.integer(v);
  w.end().key("text").str(m.text()).end();
}

void write_step(JsonWriter& w, const PlanStep& s) {
  w.obj().key("kind").str(s.kind).key("array").str(s.array).key("when").str(s.when);
  w.key("axes").strs(s.axes).key("from").str(s.from).key("to").str(s.to);
  w.key("label").str(step_label(s));
  if (!s.dim.empty()) w.key("dim").str(s.dim);
  if (s.kind == "matmul") {
    w.key("flops").num(s.flops);
  } else if (s.kind != "slice") {
    w.key("bytes").num(s.V).key("t").num(s.cost.t).key("t_bw").num(s.cost.t_bw);
    w.key("t_lat").num(s.cost.t_lat).key("hops").num(s.cost.hops);
    w.key("bytes_per_chip").num(s.cost.bytes_per_chip).key("regime").str(s.cost.regime);
  }
  w.end();
}

// A plan for the page: its steps with their costs, its totals and verdict.
void write_plan(JsonWriter& w, const Plan& p) {
  w.obj().key("name").str(p.name).key("steps").arr();
  for (const auto& s : p.steps) write_step(w, s);
  w.end().key("output").str(p.out.text()).key("flops_per_chip").num(p.flops_per_chip);
  w.key("t_math").num(p.t_math).key("t_comms").num(p.t_comms);
  w.key("t_total").num(p.t_math + p.t_comms).key("t_overlapped").num(std::max(p.t_math, p.t_comms));
  w.key("bytes_per_chip").num(p.bytes_per_chip).key("operand_bytes_per_chip").obj();
  w.key("A").num(p.peak_bytes_a).key("B").num(p.peak_bytes_b).end();
  w.key("verdict").str(p.verdict).end();
}

// The matmul of sharding.matmul: shardings on a mesh, sizes, dtype and its peak, link and wraps.
MatmulInput matmul_input(const Inputs& in, const hw::Chip& c, Trace& tr) {
  MatmulInput mi;
  mi.mesh = parse_mesh(in.text("mesh"), "mesh");
  mi.a = parse_sharding(in.text("a"), "a");
  mi.b = parse_sharding(in.text("b"), "b");
  mi.I = in.num("I");
  mi.J = in.num("J");
  mi.K = in.num("K");
  const std::string dt = in.text("dtype");
  mi.bytes_per_elem = hw::dtype_bytes(dt, "dtype");
  // The arithmetic runs at the dtype's peak where the table has one, else at the bf16 peak.
  const bool has_peak = c.has("peak_flops_" + dt);
  mi.peak_flops = c.peak(has_peak ? Text(dt) : Text("bf16"), "dtype");
  if (!has_peak) tr.note(c.name + " lists no " + dt + " peak; $T_{math}$ uses the bf16 peak.");
  mi.link = link_for(c, in.text("link"), in.text("direction"), in.num("w_uni"), in.num("t_hop"));
  mi.wrap = wraps_for(c, mi.mesh.sizes, in.text("wrap"));
  tr.note("Mesh " + mi.mesh.text() + " on " + c.name + ": " + std::to_string(mi.mesh.devices()) +
          " devices");
  return mi;
}

// An operand written without a name ("[I_X, J]") is shown under the name of its role.
Sharding with_name(Sharding s, const char* name) {
  if (s.name.empty()) s.name = name;
  return s;
}

// Which device holds which block: the operands as given and the default plan's output.
void write_matmul_blocks(JsonWriter& w, const MatmulInput& mi, const Plan& p) {
  std::vector<double> sa(2), sb(2);
  MatmulDims md = matmul_dims(mi.a, mi.b);
  sa[md.a_i] = mi.I;
  sa[md.a_j] = mi.J;
  sb[md.b_j] = mi.J;
  sb[md.b_k] = mi.K;
  write_blocks(w, mi.mesh, {{"A", with_name(mi.a, "A")}, {"B", with_name(mi.b, "B")}, {"C", p.out}},
               {sa, sb, {mi.I, mi.K}});
}

void matmul_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& c = hw::chip(in.text("chip"));
  const MatmulInput mi = matmul_input(in, c, tr);
  MatmulAnalysis an = analyze_matmul(mi, &tr);
  const Plan& p = an.plan;
  r.value("case", an.case_no, "count", "the book's case");
  r.value("flops_per_chip", p.flops_per_chip, "flop", "FLOPs per chip");
  r.value("t_math", p.t_math, "s", "T_math per chip");
  r.value("t_comms", p.t_comms, "s", "T_comms per chip");
  r.value("t_total", p.t_math + p.t_comms, "s", "T_math + T_comms (no overlap)");
  r.value("t_overlapped", std::max(p.t_math, p.t_comms), "s", "max(T_math, T_comms) (overlapped)");
  r.value("bytes_per_chip", p.bytes_per_chip, "B", "bytes each chip receives");
  r.value("devices", static_cast<double>(mi.mesh.devices()), "count", "devices");
  for (std::size_t k = 0; k < mi.mesh.names.size(); ++k)
    if (!mi.wrap[k] && mi.mesh.sizes[k] > 2)
      r.note("Axis " + mi.mesh.names[k] + " (" + std::to_string(mi.mesh.sizes[k]) +
             ") has no wraparound: its collectives run on an open line, (N-1)/N V/W_uni.");
  if (an.cases.size() > 1) r.note(an.case_text);
  JsonWriter w = r.writer();
  w.key("verdict").str(p.verdict).key("case").integer(an.case_no).key("cases").arr();
  for (int c : an.cases) w.integer(c);
  w.end().key("case_text").str(an.case_text).key("contracting").str(an.contracting);
  w.key("conflicts").strs(an.conflicts).key("mesh");
  write_mesh(w, mi.mesh);
  w.key("wrap");
  write_wrap(w, mi.mesh, mi.wrap);
  w.key("a").str(with_name(mi.a, "A").text()).key("b").str(with_name(mi.b, "B").text());
  w.key("output_sharding").str(p.out.text()).key("plan");
  write_plan(w, p);
  w.key("alternatives").arr();
  for (const auto& a : an.alternatives) write_plan(w, a);
  w.end().key("blocks");
  write_matmul_blocks(w, mi, p);
}

// "4", "4,4", "4x4", "X=4,Y=4", "{X: 4}" -> named axes.
Mesh axes_from_text(const std::string& t) { return parse_mesh(t, "axes"); }

// The axes of sharding.collective, with the chip's wraparound and the hardware axes they span.
std::vector<Axis> collective_axes(const Inputs& in, const hw::Chip& c, Mesh& m,
                                  std::vector<bool>& w) {
  std::string at = in.text("axes");
  // A bare "4,4" lists sizes: name them X, Y, Z like a 4x4 shape.
  if (!at.empty() && std::all_of(at.begin(), at.end(), [](char ch) {
        return std::isdigit(static_cast<unsigned char>(ch)) || ch == ',' || ch == ' ';
      })) {
    std::replace(at.begin(), at.end(), ',', 'x');
  }
  m = axes_from_text(at);
  w = wraps_for(c, m.sizes, in.text("wrap"));
  std::vector<Axis> axes;
  for (std::size_t k = 0; k < m.names.size(); ++k) {
    Axis a;
    a.name = m.names[k];
    a.size = static_cast<double>(m.sizes[k]);
    a.wrap = w[k];
    axes.push_back(a);
  }
  const double phys = in.num("phys_axes");
  if (axes.size() == 1)
    axes[0].phys = phys;
  else if (phys != 1)
    fail("phys_axes", "hardware axes per named axis can only be set for a single named axis");
  return axes;
}

// Time against message size: the flat latency floor, then the bandwidth slope; `knee` is the
// size where the two terms meet.
void write_collective_plot(JsonWriter& w, Op op, const std::vector<Axis>& axes, const Link& l,
                           double knee, double V, double t) {
  std::vector<double> xs, ts, bws, lats;
  for (int k = 0; k <= 80; ++k) {
    double v = std::pow(10.0, 2.0 + 9.0 * k / 80.0);
    CollectiveCost p = collective_cost(op, v, axes, l);
    xs.push_back(v);
    ts.push_back(p.t);
    bws.push_back(p.t_bw);
    lats.push_back(p.t_lat);
  }
  w.obj().key("x").nums(xs).key("t").nums(ts).key("t_bw").nums(bws).key("t_lat").nums(lats);
  w.key("knee").num(knee).key("point").obj().key("bytes").num(V).key("t").num(t).end();
  w.key("x_unit").str("B").key("y_unit").str("s").end();
}

void collective_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& c = hw::chip(in.text("chip"));
  const Op op = parse_op(in.text("op"), "op");
  const double V = in.num("bytes");
  Mesh m;
  std::vector<bool> w;
  const std::vector<Axis> axes = collective_axes(in, c, m, w);
  const Link l =
      link_for(c, in.text("link"), in.text("direction"), in.num("w_uni"), in.num("t_hop"));
  CollectiveCost cc = collective_cost(op, V, axes, l, &tr, op_name(op));
  const double thr = latency_bound_threshold(l.w_uni, l.t_hop);
  tr.step("Per-hop payload below which a hop is latency-bound", kLatencyThreshold,
          {l.w_uni, l.t_hop});
  r.value("t", cc.t, "s", "time");
  r.value("t_bw", cc.t_bw, "s", "bandwidth term");
  r.value("t_lat", cc.t_lat, "s", "latency term");
  r.value("hops", cc.hops, "count", "hops on the longest path");
  r.value("bytes_per_chip", cc.bytes_per_chip, "B", "bytes each chip receives");
  r.value("w_eff", cc.w_eff, "B_per_s", "bandwidth the bandwidth term divides by");
  r.value("w_uni", l.w_uni, "B_per_s", l.dcn ? "DCN one-way bandwidth" : "ICI one-way bandwidth");
  r.value("latency_threshold", thr, "B", "per-hop payload where latency takes over");
  r.value("devices", cc.devices, "count", "devices in the group");
  // The size where the two terms meet (both scale linearly: t_bw(V) = V * t_bw(1)).
  CollectiveCost one = collective_cost(op, 1.0, axes, l);
  double knee = one.t_bw > 0 ? cc.t_lat / one.t_bw : 0;
  r.value("knee_bytes", knee, "B", "message size where latency and bandwidth terms meet");
  r.note(op == Op::AllGather
             ? "V is the gathered result per group (per-device bytes after the gather)"
         : op == Op::AllToAll ? "V is the whole array summed over the devices of the group"
                              : "V is the full-size partial sums each device holds");
  JsonWriter x = r.writer();
  x.key("verdict").str(cc.regime).key("regime").str(cc.regime).key("op").str(op_name(op));
  x.key("wrap");
  write_wrap(x, m, w);
  x.key("plot");
  write_collective_plot(x, op, axes, l, knee, V, cc.t);
}

constexpr double kMaxElements = 1e24;

// The global sizes of sharding.local, "1024, 4096" in dim order: one whole number per dim.
std::vector<double> local_sizes(const Inputs& in, const Sharding& s) {
  std::vector<double> sizes;
  std::string st = in.text("sizes");
  std::size_t i = 0;
  while (i <= st.size()) {
    std::size_t j = st.find_first_of(",x", i);
    if (j == std::string::npos) j = st.size();
    std::string part = st.substr(i, j - i);
    part.erase(0, part.find_first_not_of(" ()[]"));
    part.erase(part.find_last_not_of(" ()[]") + 1);
    if (!part.empty()) sizes.push_back(units::parse(part, "count", "sizes"));
    i = j + 1;
  }
  if (sizes.size() != s.dims.size())
    fail("sizes", "give one size per dimension of " + s.text() + " (" +
                      std::to_string(s.dims.size()) + "), comma-separated; got " +
                      std::to_string(sizes.size()));
  double elements = 1;
  for (double v : sizes) {
    if (!(v >= 1) || v > 1e12 || std::floor(v) != v)
      fail("sizes", "each size must be a whole number from 1 to 1e12", "out_of_range");
    elements *= v;
  }
  // Far beyond any real array, and small enough that every byte count stays a finite double.
  if (elements > kMaxElements)
    fail("sizes", "the array has more than " + units::number(kMaxElements) + " elements",
         "out_of_range");
  return sizes;
}

void local_calc(const Inputs& in, Trace& tr, Result& r) {
  Mesh m = parse_mesh(in.text("mesh"), "mesh");
  Sharding s = parse_sharding(in.text("sharding"), "sharding");
  if (!s.unreduced.empty())
    tr.note(
        "The unreduced marker does not change the shape: each device holds full-size partial "
        "sums.");
  const std::vector<double> sizes = local_sizes(in, s);
  const double bpe = hw::dtype_bytes(in.text("dtype"), "dtype");
  LocalShape L = local_shape(s, m, sizes, bpe, "sharding", &tr);
  trace_copies(s, m, L, tr);
  r.value("bytes_per_device", L.bytes_per_device, "B", "bytes per device");
  r.value("global_bytes", L.global_bytes, "B", "bytes of one copy");
  r.value("copies", L.replication, "count", "copies over the mesh");
  r.value("total_bytes", L.total_bytes, "B", "bytes over all devices");
  r.value("fraction", L.fraction, "ratio", "share of the array per device");
  r.value("devices", L.devices, "count", "devices");
  for (std::size_t k = 0; k < s.dims.size(); ++k)
    r.value("local_" + s.dims[k].name, L.local[k], "count", "local size of " + s.dims[k].name);
  Sharding named = s;
  if (named.name.empty()) named.name = "A";
  JsonWriter x = r.writer();
  x.key("shape").arr();
  for (std::size_t k = 0; k < s.dims.size(); ++k) {
    x.obj().key("dim").str(s.dims[k].name).key("global").num(L.global[k]);
    x.key("local").num(L.local[k]).key("shards").num(L.shards[k]).end();
  }
  x.end().key("sharding").str(named.text()).key("mesh");
  write_mesh(x, m);
  x.key("blocks");
  write_blocks(x, m, {{named.name, named}}, {sizes});
  x.key("verdict").str(L.replication > 1 ? "replicated " + units::number(L.replication) + " times"
                                         : "no replication");
}

constexpr Param kMatmulParams[] = {
    text("a", "A[I_X, J]", "sharding of the left operand, like A[I_X, J] or A[I, J_{XY}]"),
    text("b", "B[J, K_Y]", "sharding of the right operand; the dim it shares with A is contracted"),
    text("mesh", "X=4,Y=4", "mesh: X=4,Y=4, {'X': 8, 'Y': 2}, 4x4 or Mesh({'X': 2, 'Y': 8})"),
    chip_param("v5e"),
    dtype_param("dtype", "bf16", "element type of A, B and C"),
    count("I", 8192, "size of A's free dimension"),
    count("J", 8192, "size of the contracting dimension"),
    count("K", 8192, "size of B's free dimension"),
    wrap_param(),
    link_param(),
    direction_param(),
    bw_param(),
    latency_param()};
constexpr Param kCollectiveParams[] = {
    choice("op", "AllGather", "AllGather|ReduceScatter|AllReduce|AllToAll", "the collective"),
    bytes_param(),
    text("axes", "4", "sizes of the axes it runs over: 4, 4x4, 4,4 or X=4,Z=4"),
    chip_param("v5e"),
    wrap_param(),
    link_param(),
    direction_param(),
    bw_param(),
    latency_param(),
    phys_param()};
constexpr Param kLocalParams[] = {
    text("sharding", "A[I_{XY}, J]", "the array's sharding, like A[I_X, J_Y]"),
    text("mesh", "{'X': 8, 'Y': 2}", "the mesh"),
    text("sizes", "1024, 4096", "global size of each dimension, in order"),
    dtype_param("dtype", "fp32", "element type")};

constexpr Param kRingParams[] = {
    choice("op", "AllGather", "AllGather|AllToAll", "the collective"),
    count("n", 8, "devices on the ring (the steps are drawn up to 16)", {}, 2, kMaxRingDrawn),
    direction_param(),
    num("bytes", "B", 33554432,
        "V: the gathered result (AllGather) or the whole array on the ring (AllToAll)", 1, 1e15),
    chip_param("v5e"),
    bw_param(),
    latency_param()};

constexpr Param kStrategiesParams[] = {
    chip_param("v5p", "chip: its bf16 peak C and ICI bandwidth W_ici"),
    count("X", 4, "size of the mesh axis X that shards D", {}, 2, 1024),
    count("B", 1024, "batch of the point to mark (tokens)", {}, 1, 1e7),
    count("D", 8192, "model width of the point to mark", {}, 1, 1e7),
    count("F", 32768, "output width (the boundaries do not depend on it)", {}, 1, 1e7),
    count("b_max", 100000, "largest batch drawn", {}, 2, 1e7),
    count("d_max", 65536, "largest D drawn", {}, 2, 1e7),
    choice("overlap", "max", "max|sum",
           "max: collectives overlap the matmul (T = max(T_math, T_comms)); sum: they do not"),
    bw_param(),
    latency_param()};

constexpr Calculator kCalculators[] = {
    Calculator{.name = "sharding.matmul",
               .title = "Sharded matmul",
               .doc = "A[I, J] . B[J, K] on a named mesh: the book's case, the collectives with "
                      "their cost, the "
                      "output sharding, T_math against T_comms per chip, the alternatives, and the "
                      "blocks each "
                      "device holds.",
               .params = kMatmulParams,
               .run = matmul_calc},
    Calculator{.name = "sharding.collective",
               .title = "Collective on torus axes",
               .doc = "AllGather, ReduceScatter, AllReduce or AllToAll over one or more mesh axes: "
                      "bandwidth and "
                      "latency terms, the regime, and time against message size.",
               .params = kCollectiveParams,
               .run = collective_calc},
    Calculator{.name = "sharding.ring",
               .title = "A ring collective, step by step",
               .doc =
                   "AllGather or AllToAll on a ring of N devices: which chunk crosses which link "
                   "in each step, what each device holds, the traffic on every link, and the "
                   "time against N for both collectives.",
               .params = kRingParams,
               .run = ring_calc},
    Calculator{.name = "sharding.strategies",
               .title = "Gather first, or multiply and AllReduce? (Question 4)",
               .doc = "X[B, D] . Y[D_X, F] on one axis X: over a grid of batch B and width D, "
                      "which strategy is faster and whether it is compute-bound there, with the "
                      "book's thresholds C/W_ici and 2C/W_ici.",
               .params = kStrategiesParams,
               .run = strategies_calc},
    Calculator{
        .name = "sharding.local",
        .title = "Local shape of a sharded array",
        .doc = "Per-device shape, bytes per device, copies and total bytes of one sharded array.",
        .params = kLocalParams,
        .run = local_calc}};

}  // namespace

void add_calculators(Registry& r) { r.add(kCalculators); }

}  // namespace sb::sharding
