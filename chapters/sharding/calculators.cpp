// The sharding chapter's calculators: a sharded matmul (case, collectives, output sharding, the
// alternatives side by side, and which device holds which block), a collective on torus axes
// (time, regime and a time-vs-size plot) and the local shape of one sharded array.
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
namespace {

// The smallest bandwidth a reader may give (B/s): with the largest messages (1e15 B) every time
// stays a finite number of seconds.
constexpr double kMinBandwidth = 1;

// Link figures: the chip's tables unless the reader gives a bandwidth or latency (0 = chip).
Link link_for(const hw::Chip& c, Text link, Text direction, double w_given, double t_given) {
  Link l;
  l.dcn = link == "dcn";
  if (w_given > 0 && w_given < kMinBandwidth)
    fail("w_uni", "w_uni: 0 takes the chip's figure; a bandwidth given must be at least 1 B/s",
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

json wrap_json(const Mesh& m, const std::vector<bool>& w) {
  json o = json::object();
  for (std::size_t k = 0; k < m.names.size(); ++k) o[m.names[k]] = static_cast<bool>(w[k]);
  return o;
}

json mesh_json(const Mesh& m) {
  return {{"names", m.names}, {"sizes", m.sizes}, {"text", m.text()}};
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
json matmul_blocks(const MatmulInput& mi, const Plan& p) {
  std::vector<double> sa(2), sb(2);
  MatmulDims md = matmul_dims(mi.a, mi.b);
  sa[md.a_i] = mi.I;
  sa[md.a_j] = mi.J;
  sb[md.b_j] = mi.J;
  sb[md.b_k] = mi.K;
  return blocks_json(mi.mesh,
                     {{"A", with_name(mi.a, "A")}, {"B", with_name(mi.b, "B")}, {"C", p.out}},
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
  json alts = json::array();
  for (const auto& a : an.alternatives) alts.push_back(to_json(a));
  for (std::size_t k = 0; k < mi.mesh.names.size(); ++k)
    if (!mi.wrap[k] && mi.mesh.sizes[k] > 2)
      r.note("Axis " + mi.mesh.names[k] + " (" + std::to_string(mi.mesh.sizes[k]) +
             ") has no wraparound: its collectives run on an open line, (N-1)/N V/W_uni.");
  if (an.cases.size() > 1) r.note(an.case_text);
  json& x = r.extra;
  x["verdict"] = p.verdict;
  x["case"] = an.case_no;
  x["cases"] = an.cases;
  x["case_text"] = an.case_text;
  x["contracting"] = an.contracting;
  x["conflicts"] = an.conflicts;
  x["mesh"] = mesh_json(mi.mesh);
  x["wrap"] = wrap_json(mi.mesh, mi.wrap);
  x["a"] = with_name(mi.a, "A").text();
  x["b"] = with_name(mi.b, "B").text();
  x["output_sharding"] = p.out.text();
  x["plan"] = to_json(p);
  x["alternatives"] = std::move(alts);
  x["blocks"] = matmul_blocks(mi, p);
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
json collective_plot(Op op, const std::vector<Axis>& axes, const Link& l, double knee, double V,
                     double t) {
  json xs = json::array(), ts = json::array(), bws = json::array(), lats = json::array();
  for (int k = 0; k <= 80; ++k) {
    double v = std::pow(10.0, 2.0 + 9.0 * k / 80.0);
    CollectiveCost p = collective_cost(op, v, axes, l);
    xs.push_back(v);
    ts.push_back(p.t);
    bws.push_back(p.t_bw);
    lats.push_back(p.t_lat);
  }
  return {{"x", std::move(xs)},     {"t", std::move(ts)},
          {"t_bw", std::move(bws)}, {"t_lat", std::move(lats)},
          {"knee", knee},           {"point", {{"bytes", V}, {"t", t}}},
          {"x_unit", "B"},          {"y_unit", "s"}};
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
  tr.step("Per-hop payload below which a hop is latency-bound", "W_{uni} \\cdot T_{min}",
          "# \\cdot #", {l.w_uni, l.t_hop}, thr, "B");
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
  json& x = r.extra;
  x["verdict"] = cc.regime;
  x["regime"] = cc.regime;
  x["op"] = op_name(op);
  x["wrap"] = wrap_json(m, w);
  x["plot"] = collective_plot(op, axes, l, knee, V, cc.t);
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
  json shape = json::array();
  for (std::size_t k = 0; k < s.dims.size(); ++k)
    shape.push_back({{"dim", s.dims[k].name},
                     {"global", L.global[k]},
                     {"local", L.local[k]},
                     {"shards", L.shards[k]}});
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
  json& x = r.extra;
  x["shape"] = std::move(shape);
  x["sharding"] = named.text();
  x["mesh"] = mesh_json(m);
  x["blocks"] = blocks_json(m, {{named.name, named}}, {sizes});
  x["verdict"] = L.replication > 1 ? "replicated " + units::number(L.replication) + " times"
                                   : "no replication";
}

// ------------------------------------------------------------------------------------ ring --

// Largest ring the step by step view lays out; the time against N goes further.
constexpr int kMaxRingDrawn = 16;
constexpr int kMaxRingCurve = 64;

// Which chunks each device holds after each step (step 0: before any), from the moves.
json ring_held(Op op, int n, const RingSchedule& s) {
  std::vector<std::vector<int>> at(n);  // chunk -> ... per device, as sorted lists
  for (int i = 0; i < n; ++i) {
    if (op == Op::AllToAll)
      for (int d = 0; d < n; ++d) at[i].push_back(i * n + d);
    else
      at[i].push_back(i);
  }
  json held = json::array();
  held.push_back(at);
  for (const auto& step : s.steps) {
    for (const RingMove& m : step) {
      if (op == Op::AllToAll) {  // the piece leaves its device
        auto& from = at[m.from];
        from.erase(std::find(from.begin(), from.end(), m.chunk));
      }
      at[m.to].insert(std::lower_bound(at[m.to].begin(), at[m.to].end(), m.chunk), m.chunk);
    }
    held.push_back(at);
  }
  return held;
}

// The book's closed form for the same collective on a ring with wraparound (A4.1, A4.4).
double ring_book_time(Op op, double V, int n, const Link& l) {
  Axis a;
  a.name = "X";
  a.size = n;
  a.wrap = true;
  return collective_cost(op, V, {a}, l).t;
}

void ring_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& c = hw::chip(in.text("chip"));
  const Op op = parse_op(in.text("op"), "op");
  const int n = static_cast<int>(in.num("n"));
  const double V = in.num("bytes");
  const Link l = link_for(c, "ici", in.text("direction"), in.num("w_uni"), in.num("t_hop"));
  const RingSchedule s = ring_schedule(op, n, l.bidirectional, true);
  const double chunk =
      tr.step(op == Op::AllToAll ? "Piece each device sends each other one" : "Shard per device",
              op == Op::AllToAll ? "V / N^2" : "V / N", op == Op::AllToAll ? "# / #^2" : "# / #",
              {V, static_cast<double>(n)}, ring_chunk_bytes(op, V, n), "B");
  const double t = ring_time(s, chunk, l.w_uni, l.t_hop);
  const double busiest = std::max(s.link_cw, s.link_ccw);
  tr.step("Chunks over the busiest link, all steps", "\\sum_s c_s",
          std::to_string(s.load.size()) + "\\ \\mathrm{steps}", busiest, "count");
  tr.step("Time, step by step", "\\sum_s \\max(T_{min}, c_s \\cdot \\mathrm{chunk} / W_{uni})",
          "# \\ \\mathrm{steps}", {static_cast<double>(s.load.size())}, t, "s");
  const double book = ring_book_time(op, V, n, l);
  r.value("steps", static_cast<double>(s.load.size()), "count", "steps");
  r.value("chunk_bytes", chunk, "B", op == Op::AllToAll ? "piece size V/N^2" : "shard size V/N");
  r.value("link_chunks", busiest, "count", "chunks over the busiest link");
  r.value("link_bytes", busiest * chunk, "B", "bytes over the busiest link");
  r.value("t", t, "s", "time, step by step");
  r.value("t_book", book, "s", "the book's formula (ring with wraparound)");
  json steps = json::array(), load = json::array(), sent = json::array();
  double cw = 0, ccw = 0;
  for (size_t k = 0; k < s.steps.size(); ++k) {
    json moves = json::array();
    for (const RingMove& m : s.steps[k]) moves.push_back({m.chunk, m.from, m.to, m.cw ? 1 : 0});
    steps.push_back(std::move(moves));
    load.push_back({s.load[k].first, s.load[k].second});
    sent.push_back({cw += s.load[k].first, ccw += s.load[k].second});
  }
  r.extra["ring"] = {
      {"n", n},       {"op", op_name(op)}, {"bidirectional", l.bidirectional}, {"steps", steps},
      {"load", load}, {"sent", sent},      {"held", ring_held(op, n, s)}};
  // Time against N for both collectives, step by step and by the book's formula.
  json ns = json::array(), ag = json::array(), a2a = json::array(), ag_book = json::array(),
       a2a_book = json::array();
  for (int k = 2; k <= kMaxRingCurve; ++k) {
    ns.push_back(k);
    for (Op o : {Op::AllGather, Op::AllToAll}) {
      const RingSchedule rs = ring_schedule(o, k, l.bidirectional, false);
      (o == Op::AllGather ? ag : a2a)
          .push_back(ring_time(rs, ring_chunk_bytes(o, V, k), l.w_uni, l.t_hop));
      (o == Op::AllGather ? ag_book : a2a_book).push_back(ring_book_time(o, V, k, l));
    }
  }
  r.extra["curve"] = {{"n", ns},
                      {"allgather", ag},
                      {"alltoall", a2a},
                      {"allgather_book", ag_book},
                      {"alltoall_book", a2a_book}};
  r.extra["verdict"] = std::string(op_name(op)) + " on " + std::to_string(n) +
                       " devices: " + std::to_string(s.load.size()) + " steps, " +
                       units::format(t, "s");
}

// ------------------------------------------------------------------------------ strategies --

constexpr int kPhaseCells = 48;  // grid points along B and along D

// Overlapped (a collective matmul) or not: the two ways the chapter adds T_math and T_comms.
double step_time(const StrategyTimes& t, bool overlap) {
  return overlap ? std::max(t.t_math, t.t_comms) : t.t_math + t.t_comms;
}

// n points from lo to hi, evenly spaced in log.
std::vector<double> log_points(double lo, double hi, int n) {
  std::vector<double> xs(n);
  for (int i = 0; i < n; ++i) xs[i] = lo * std::pow(hi / lo, static_cast<double>(i) / (n - 1));
  xs[n - 1] = hi;
  return xs;
}

// sharding.strategies: Question 4's two strategies over a grid of batch B and width D: which is
// faster where, and whether the faster one is compute-bound there.
void strategies_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& c = hw::chip(in.text("chip"));
  const double peak = c.peak("bf16", "chip");
  const double eb = hw::dtype_bytes("bf16", "dtype");
  const Link l = link_for(c, "ici", "bidirectional", in.num("w_uni"), in.num("t_hop"));
  Axis x;
  x.name = "X";
  x.size = in.num("X");
  x.wrap = true;  // the book's full ring
  const double F = in.num("F"), b_max = in.num("b_max"), d_max = in.num("d_max");
  const bool overlap = in.text("overlap") == "max";
  if (d_max < 2 * x.size)
    fail("d_max", "d_max must be at least twice the axis X, so that D splits over it",
         "out_of_range");
  // The book's thresholds, from the bandwidth terms at B = D = 1 (each time is linear in them).
  const Link no_latency = [&] {
    Link n = l;
    n.t_hop = 0;
    return n;
  }();
  const StrategyTimes one1 = gather_then_multiply(1, 1, F, eb, peak, x, no_latency);
  const StrategyTimes one2 = multiply_then_allreduce(1, 1, F, eb, peak, x, no_latency);
  const double b_star = tr.step("Strategy 1 is comms-bound below $B^*$ ($2BDF/C = b\\,DF/W_{ici}$)",
                                "B^* = C / W_{ici}", "\\frac{#}{#}", {one1.t_comms, one1.t_math},
                                one1.t_comms / one1.t_math, "tokens");
  const double d_star =
      tr.step("Strategy 2 beats 1 at large $B$ above $D^*$ ($2b\\,BF/W_{ici} = 2BDF/C$)",
              "D^* = 2C / W_{ici}", "\\frac{#}{#}", {one2.t_comms, one1.t_math},
              one2.t_comms / one1.t_math, "count");
  const double d_x =
      tr.step("Strategy 2 is compute-bound above $D = |X| D^*$", "D = |X| \\cdot D^*", "# \\cdot #",
              {x.size, d_star}, x.size * d_star, "count");
  // The grid.
  const std::vector<double> bs = log_points(1, b_max, kPhaseCells),
                            ds = log_points(2 * x.size, d_max, kPhaseCells);
  json rows = json::array();
  for (double D : ds) {
    json row = json::array();
    for (double B : bs) {
      const StrategyTimes s1 = gather_then_multiply(B, D, F, eb, peak, x, l),
                          s2 = multiply_then_allreduce(B, D, F, eb, peak, x, l);
      const bool two = step_time(s2, overlap) < step_time(s1, overlap);
      const StrategyTimes& w = two ? s2 : s1;
      row.push_back((two ? 2 : 0) + (w.t_math > w.t_comms ? 0 : 1));
    }
    rows.push_back(std::move(row));
  }
  // The reader's point.
  const double B = in.num("B"), D = in.num("D");
  const StrategyTimes p1 = gather_then_multiply(B, D, F, eb, peak, x, l),
                      p2 = multiply_then_allreduce(B, D, F, eb, peak, x, l);
  const double t1 = step_time(p1, overlap), t2 = step_time(p2, overlap);
  r.value("t_strategy1", t1, "s", "strategy 1: gather Y, multiply replicated");
  r.value("t_strategy2", t2, "s", "strategy 2: multiply locally, AllReduce Z");
  r.value("b_star", b_star, "tokens", "B below which strategy 1 is comms-bound");
  r.value("d_star", d_star, "count", "D above which strategy 2 wins at large B");
  r.value("d_compute_bound_2", d_x, "count", "D above which strategy 2 is compute-bound");
  r.extra["phase"] = {{"b", bs},
                      {"d", ds},
                      {"cells", rows},
                      {"b_star", b_star},
                      {"d_star", d_star},
                      {"d_x", d_x},
                      {"point", {{"b", B}, {"d", D}, {"winner", t2 < t1 ? 2 : 1}}}};
  r.extra["verdict"] = std::string(t2 < t1 ? "Strategy 2" : "Strategy 1") +
                       " is faster at B = " + units::number(B) + ", D = " + units::number(D);
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
