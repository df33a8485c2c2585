// The sharding chapter's worked examples, pop quizzes and end-of-chapter problems. Ids, slot names
// and units are the catalogue's (shared/book/problems/sharding.json). Every expected answer is
// computed by the model (notation.hpp, model.hpp) from the problem's own inputs.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "chapters/sharding/model.hpp"
#include "chapters/sharding/notation.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::sharding {
namespace {

using Vars = std::map<std::string, double>;

double at(const Vars& v, const char* k) { return v.at(k); }

// A link given by the problem: one-way bandwidth and per-hop latency.
Link link_of(double w_uni, double t_hop) {
  Link l;
  l.w_uni = w_uni;
  l.t_hop = t_hop;
  return l;
}

std::vector<Axis> axes_of(const Mesh& m, const std::vector<std::string>& names,
                          const std::vector<bool>& wrap) {
  std::vector<Axis> out;
  for (const auto& n : names) {
    Axis a;
    a.name = n;
    a.size = static_cast<double>(m.size(n));
    for (std::size_t k = 0; k < m.names.size(); ++k)
      if (m.names[k] == n) a.wrap = wrap[k];
    out.push_back(a);
  }
  return out;
}

// The mesh's axes wired as a slice of that shape on the chip (the tpus chapter's rule).
std::vector<bool> chip_wraps(const std::string& chip, const Mesh& m) {
  return tpus::wraps(hw::chip(chip), tpus::Dims(m.sizes.begin(), m.sizes.end()));
}

// Per-device bytes of `s` after gathering `axes` off it (the AllGather's V, A4.1).
double gathered_bytes(Sharding s, const Mesh& m, const std::vector<double>& sizes,
                      const std::vector<std::string>& axes, double bpe) {
  for (auto& d : s.dims) {
    std::vector<std::string> keep;
    for (const auto& a : d.axes)
      if (std::find(axes.begin(), axes.end(), a) == axes.end()) keep.push_back(a);
    d.axes = keep;
  }
  return local_shape(s, m, sizes, bpe, "sharding").bytes_per_device;
}

// "(8, 2048)" -> {8, 2048}
std::vector<double> shape_of(const std::string& t, const std::string& field) {
  std::vector<double> out;
  std::string cur;
  for (char c : t + ",") {
    if (c == ',') {
      auto b = cur.find_first_not_of(" ()[]"), e = cur.find_last_not_of(" ()[]");
      if (b != std::string::npos)
        out.push_back(units::parse(cur.substr(b, e - b + 1), "count", field));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (out.empty()) fail(field, "give the shape as (rows, cols)");
  return out;
}

// The problem's matmul: parsed shardings on a parsed mesh, on a link with the given bandwidth.
MatmulInput matmul_of(const Inputs& in, const std::string& a, const std::string& b, double I,
                      double J, double K, const std::string& wrap, double w_uni, double peak,
                      const std::string& fa = "sharding_A", const std::string& fb = "sharding_B") {
  MatmulInput mi;
  mi.mesh = parse_mesh(in.text("mesh"), "mesh");
  mi.a = parse_sharding(a, fa);
  mi.b = parse_sharding(b, fb);
  mi.I = I;
  mi.J = J;
  mi.K = K;
  mi.bytes_per_elem = 2;
  mi.peak_flops = peak;
  mi.link = link_of(w_uni, 0);  // bandwidth terms only: the answers scale with the sizes
  mi.wrap.assign(mi.mesh.names.size(), wrap == "all");
  return mi;
}

const Plan* find_plan(const MatmulAnalysis& an, const std::string& last_kind,
                      const std::string& first_kind = "") {
  auto match = [&](const Plan& p) {
    return !p.steps.empty() && p.steps.back().kind == last_kind &&
           (first_kind.empty() || p.steps.front().kind == first_kind);
  };
  if (match(an.plan)) return &an.plan;
  for (const auto& p : an.alternatives)
    if (match(p)) return &p;
  fail("sharding_A", "the analysis found no plan ending in " + last_kind);
}

// ------------------------------------------------------------------ shared parts

// Pop Quiz 2: the same gather with a large and a tiny array.
void pq2_solve(const Inputs& in, Trace& tr, Answers& a) {
  Mesh m = parse_mesh(in.text("mesh"), "mesh");
  Sharding s = parse_sharding(in.text("sharding"), "sharding");
  const std::vector<double> sizes = {in.num("size_E"), in.num("size_F")};
  const double bpe = hw::dtype_bytes(in.text("dtype"), "dtype");
  const double shard = local_shape(s, m, sizes, bpe, "sharding", &tr).bytes_per_device;
  validate(s, m, "sharding");
  const std::vector<std::string> gax = s.dims.at(0).axes;  // the gather removes E's subscript
  if (gax.empty())
    fail("sharding", "the first dimension must be sharded for the gather to move anything");
  const double V = gathered_bytes(s, m, sizes, gax, bpe);
  tr.step("Gathered array V (per group)", "V = \\text{shard} \\cdot N", "# \\cdot #",
          {shard, V / shard}, V, "B");
  const Link l = link_of(in.num("w_uni_Bps"), in.num("t_min_s"));
  std::vector<bool> wraps = chip_wraps(in.text("chip"), m);
  const std::vector<Axis> wired = axes_of(m, gax, wraps);
  tr.note("Axis " + axes_text(gax) +
          (wired[0].wrap ? " wraps on this chip: " : " has no wraparound on this chip: ") +
          tpus::wrap_rule(hw::chip(in.text("chip"))).text + ".");
  std::vector<bool> ring(wraps.size(), true);
  CollectiveCost full =
      collective_cost(Op::AllGather, V, axes_of(m, gax, ring), l, &tr, "ideal ring");
  CollectiveCost real = collective_cost(Op::AllGather, V, wired, l, &tr, "as wired");
  a["shard_bytes"] = shard;
  a["total_bytes"] = V;
  a["t_full_ring_s"] = full.t;
  a["latency_term_s"] = real.t_lat;
  a["t_open_line_s"] = real.t;
  a["per_hop_transfer_s"] = tr.step("Per-hop transfer of one shard", "\\frac{V/N}{W_{uni}}",
                                    "\\frac{#}{#}", {shard, l.w_uni}, shard / l.w_uni, "s");
  a["t_total_s"] = real.t;
  a["is_latency_bound"] = real.latency_bound ? 1 : 0;
}
// Pop Quiz 2's two parts: the same inputs but the array's size.
constexpr double kPQ2Es[] = {256, 1024, 2048, 4096};
constexpr double kPQ2Fs[] = {256, 2048, 8192};
constexpr double kPQ2WUnis[] = {4.5e10, 9e10};
constexpr double kOneMicrosecond[] = {1e-6};
constexpr Param kPQ2Chip = chip_param("v5e", "chip (its wraparound rule)");
constexpr Param kPQ2Mesh = text("mesh", "{'X': 8, 'Y': 4}", "the mesh");
constexpr Param kPQ2Sharding = text("sharding", "A[E_Y, F]", "the array before the gather");
constexpr Param kBf16 = dtype_param("dtype", "bf16", "element type");
constexpr Param kPQ2WUni =
    given("w_uni_Bps", "B_per_s", 4.5e10, "one-way link bandwidth", kPQ2WUnis);
constexpr Param kTMin = given("t_min_s", "s", 1e-6, "per-hop latency", kOneMicrosecond);
constexpr Param kPQ2aGiven[] = {kPQ2Chip,
                                kPQ2Mesh,
                                kPQ2Sharding,
                                kBf16,
                                count("size_E", 2048, "global size of E", kPQ2Es),
                                count("size_F", 8192, "global size of F", kPQ2Fs),
                                kPQ2WUni,
                                kTMin};
constexpr Param kPQ2bGiven[] = {kPQ2Chip,
                                kPQ2Mesh,
                                kPQ2Sharding,
                                kBf16,
                                count("size_E", 256, "global size of E", kPQ2Es),
                                count("size_F", 256, "global size of F", kPQ2Fs),
                                kPQ2WUni,
                                kTMin};
constexpr Text kHintOpenLine =
    "That is the ideal-ring time: without wraparound the far device takes N-1 shards "
    "through one link one way, 2(N-1)/N = 1.5 times the ring on 4 chips.";

// Question 2: gathers on a v4p 4x4x4 cube, and the free reshard onto the idle Z axis.
constexpr double kQ2Bs[] = {512, 1024, 4096};
constexpr double kQ2Ds[] = {2048, 4096, 8192};
constexpr double kQ2WIcis[] = {9e10, 1.8e11};
constexpr Param kQ2Given[] = {
    chip_param("v4p", "chip (its wraparound rule)"),
    text("mesh", "Mesh({'X': 4, 'Y': 4, 'Z': 4})", "the mesh"),
    text("sharding", "[B_X, D_Y]", "the array"),
    kBf16,
    count("size_B", 1024, "global size of B", kQ2Bs),
    count("size_D", 4096, "global size of D", kQ2Ds),
    given("w_ici_Bps", "B_per_s", 9e10, "bidirectional ICI bandwidth per link", kQ2WIcis),
    kTMin};
struct Q2 {
  Mesh m;
  Sharding s;
  std::vector<double> sizes;
  double bpe;
  Link l;
  std::vector<bool> wrap;
};
Q2 q2_setup(const Inputs& in) {
  Q2 q;
  q.m = parse_mesh(in.text("mesh"), "mesh");
  q.s = parse_sharding(in.text("sharding"), "sharding");
  q.sizes = {in.num("size_B"), in.num("size_D")};
  q.bpe = hw::dtype_bytes(in.text("dtype"), "dtype");
  q.l = link_of(in.num("w_ici_Bps") / 2, in.num("t_min_s"));
  q.wrap = chip_wraps(in.text("chip"), q.m);
  return q;
}
constexpr Text kHintBothWays =
    "On a wrapped ring the shards travel both ways: divide by W_ici, the two-way figure.";
constexpr Text kHintTwoPasses =
    "An AllReduce is a ReduceScatter followed by an AllGather: twice one gather.";
constexpr Text kHintWrappedHops = "A wrapped axis of 4 needs floor(4/2) = 2 hops, not 3.";

// Example 6: the AllToAll time on an N-D torus.
constexpr Slot::Var kVarN{"N", "devices, A*B*C", 8, 4096};
constexpr Slot::Var kEX6Vars[] = {{"V", "bytes summed over all devices", 1e6, 1e10},
                                  {"A", "axis size", 2, 16},
                                  {"B", "axis size", 2, 16},
                                  {"C", "axis size", 2, 16},
                                  kVarN,
                                  {"W", "bidirectional ICI bandwidth, B/s", 1e10, 1e12}};

// Question 4: the two strategies' times.
constexpr Slot::Var kQ4Math1[] = {{"B", "batch", 1, 1e5},
                                  {"D", "model dim", 128, 65536},
                                  {"F", "output dim", 128, 65536},
                                  {"C", "FLOPs/s", 1e14, 3e15}};
constexpr Slot::Var kQ4Comms1[] = {{"D", "model dim", 128, 65536},
                                   {"F", "output dim", 128, 65536},
                                   {"W", "W_ici, B/s", 1e10, 1e12}};
constexpr Slot::Var kQ4Math2[] = {{"B", "batch", 1, 1e5},
                                  {"D", "model dim", 128, 65536},
                                  {"F", "output dim", 128, 65536},
                                  {"X", "axis size", 2, 64},
                                  {"C", "FLOPs/s", 1e14, 3e15}};
constexpr Slot::Var kQ4Comms2[] = {
    {"B", "batch", 1, 1e5}, {"F", "output dim", 128, 65536}, {"W", "W_ici, B/s", 1e10, 1e12}};

// Question 6: three layouts of the same matmul on a v5e 4x4.
constexpr double kQ6Peaks[] = {1.97e14, 9.2e14};
constexpr double kQ6WUnis[] = {4.5e10, 9e10};
constexpr Param kQ6Chip = chip_param("v5e", "chip (its wraparound rule)");
constexpr Param kQ6Mesh = text("mesh", "{'X': 4, 'Y': 4}", "the mesh");
constexpr Param kQ6Peak =
    given("peak_bf16_flops_per_s", "flop_per_s", 1.97e14, "C: bf16 FLOPs/s", kQ6Peaks);
constexpr Param kQ6WUni =
    given("w_uni_Bps", "B_per_s", 4.5e10, "one-way ICI link bandwidth", kQ6WUnis);
constexpr Param kQ6I = count("size_I", 8192, "reference I (answers are per unit)");
constexpr Param kQ6J = count("size_J", 8192, "reference J (answers are per unit)");
constexpr Param kQ6K = count("size_K", 8192, "reference K (answers are per unit)");
constexpr Param kQ6aGiven[] = {kQ6Chip,
                               kQ6Mesh,
                               text("sharding_A", "A[I_X, J_Y]", "sharding of A"),
                               text("sharding_B", "B[J_Y, K]", "sharding of B"),
                               kQ6Peak,
                               kQ6WUni,
                               kQ6I,
                               kQ6J,
                               kQ6K};
constexpr Param kQ6bGiven[] = {kQ6Chip,
                               kQ6Mesh,
                               text("sharding_A", "A[I_X, J]", "sharding of A"),
                               text("sharding_B", "B[J_X, K_Y]", "sharding of B"),
                               kQ6Peak,
                               kQ6WUni,
                               kQ6I,
                               kQ6J,
                               kQ6K};
constexpr Param kQ6cGiven[] = {kQ6Chip,
                               kQ6Mesh,
                               text("sharding_A", "A[I_X, J]", "sharding of A"),
                               text("sharding_B", "B[J, K_Y]", "sharding of B"),
                               kQ6Peak,
                               kQ6WUni,
                               kQ6I,
                               kQ6J,
                               kQ6K};
// Runs the analysis as wired and on a full ring, bandwidth terms only (per-unit answers).
struct Q6 {
  MatmulAnalysis open, ring;
  double I, J, K;
};
Q6 q6(const Inputs& in, Trace& tr) {
  Q6 q;
  q.I = in.num("size_I");
  q.J = in.num("size_J");
  q.K = in.num("size_K");
  const double C = in.num("peak_bf16_flops_per_s"), w = in.num("w_uni_Bps");
  MatmulInput mi =
      matmul_of(in, in.text("sharding_A"), in.text("sharding_B"), q.I, q.J, q.K, "all", w, C);
  mi.wrap = chip_wraps(in.text("chip"), mi.mesh);
  q.open = analyze_matmul(mi, &tr);
  mi.wrap.assign(mi.wrap.size(), true);
  q.ring = analyze_matmul(mi, nullptr);
  tr.step("T_comms with full rings instead (for comparison)", "", "", q.ring.plan.t_comms, "s");
  return q;
}
constexpr Slot::Var vIK[] = {{"I", "rows of A", 128, 65536},
                             {"K", "cols of B", 128, 65536},
                             {"X", "mesh axis X size", 2, 16},
                             {"Y", "mesh axis Y size", 2, 16},
                             {"W_uni", "one-way ICI bandwidth, B/s", 1e10, 2e11}};
constexpr Slot::Var vJK[] = {{"J", "contracting dim", 128, 65536},
                             {"K", "cols of B", 128, 65536},
                             {"X", "mesh axis X size", 2, 16},
                             {"Y", "mesh axis Y size", 2, 16},
                             {"W_uni", "one-way ICI bandwidth, B/s", 1e10, 2e11}};
constexpr Slot::Var vIJK[] = {
    {"I", "rows of A", 128, 65536},   {"J", "contracting dim", 128, 65536},
    {"K", "cols of B", 128, 65536},   {"X", "mesh axis X size", 2, 16},
    {"Y", "mesh axis Y size", 2, 16}, {"C", "bf16 FLOPs/s", 1e14, 3e15}};

// Question 9.c: the comms ratio M/K.
constexpr Slot::Var kQ9cVars[] = {{"M", "contracting size", 128, 65536},
                                  {"K", "columns of B", 128, 65536}};

// Question 10: one ring, six questions.
constexpr double kQ10Ds[] = {4, 8, 16, 64};
constexpr Param kQ10Given[] = {
    count("ring_D", 8, "D: devices in the ring", kQ10Ds),
    count("matrix_N", 1024, "N: matrix side (cancels)"),
    given("large_D", "count", 1e6, "a ring size standing in for D -> infinity")};
constexpr Slot::Var vN{"N", "matrix side", 16, 65536}, vD{"D", "devices in the ring", 2, 256};
constexpr Slot::Var kQ10ND[] = {vN, vD};
constexpr Slot::Var kQ10D[] = {vD};

// ------------------------------------------------------------------ notation and memory

constexpr double kEX1SizeI[] = {4, 8, 16};
constexpr double kEX1SizeJ[] = {64, 128, 256};
constexpr Param kEX1Given[] = {
    text("mesh", "Mesh(devices=((0, 1), (2, 3)), axis_names=('X', 'Y'))", "the device mesh"),
    text("sharding", "A[I_X, J_Y]", "how A is sharded"),
    count("size_I", 4, "global size of I", kEX1SizeI),
    count("size_J", 128, "global size of J", kEX1SizeJ)};
constexpr Slot kEX1Slots[] = {number("local_size_I", "count", "local size of I"),
                              number("local_size_J", "count", "local size of J"),
                              number("fraction_per_device", "ratio", "fraction of A per device")};
constexpr Problem kEX1{
    .id = "sharding.EX1",
    .title = "Local shape of a 2x2-sharded array",
    .statement =
        "Four devices form the mesh {mesh}. The array A has global shape ({size_I}, "
        "{size_J}) and is sharded as {sharding}. What shape does each device hold, and "
        "what fraction of A is that?",
    .kind = "numeric",
    .given = kEX1Given,
    .slots = kEX1Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Mesh m = parse_mesh(in.text("mesh"), "mesh");
          Sharding s = parse_sharding(in.text("sharding"), "sharding");
          LocalShape L =
              local_shape(s, m, {in.num("size_I"), in.num("size_J")}, 1, "sharding", &tr);
          tr.step("Fraction per device", "\\frac{\\text{local elements}}{\\text{global elements}}",
                  "\\frac{#}{#}", {L.local_elems, in.num("size_I") * in.num("size_J")}, L.fraction,
                  "ratio");
          return Answers{{"local_size_I", L.local[0]},
                         {"local_size_J", L.local[1]},
                         {"fraction_per_device", L.fraction}};
        },
    .hint = "Divide each dimension by the size of the mesh axis in its subscript.",
};

constexpr double kPQ0SizeI[] = {512, 1024, 2048};
constexpr double kPQ0SizeJ[] = {2048, 4096, 8192};
constexpr double kPQ0HbmBwBps[] = {3.35e12, 4.8e12};
constexpr Param kPQ0Given[] = {
    text("mesh", "{'X': 8, 'Y': 2}", "the device mesh"),
    text("sharding", "A[I_{XY}, J]", "how A is sharded"),
    dtype_param("dtype", "fp32", "element type"),
    count("size_I", 1024, "global size of I", kPQ0SizeI),
    count("size_J", 4096, "global size of J", kPQ0SizeJ),
    given("hbm_bw_Bps", "B_per_s", 3.4e12, "HBM bandwidth (H100)", kPQ0HbmBwBps)};
constexpr Slot kPQ0Slots[] = {number("local_size_I", "count", "local size of I"),
                              number("bytes_per_device", "B", "bytes per device"),
                              number("hbm_load_time_s", "s", "time to read them from HBM", 0.06)};
constexpr Problem kPQ0{
    .id = "sharding.PQ0",
    .title = "Per-device bytes and HBM load time",
    .statement =
        "An fp32 array A of shape ({size_I}, {size_J}) is sharded as {sharding} over the "
        "mesh {mesh} of GPUs. How many bytes does each device hold, and how long does "
        "reading them from HBM take at {hbm_bw_Bps}?",
    .kind = "numeric",
    .given = kPQ0Given,
    .slots = kPQ0Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Mesh m = parse_mesh(in.text("mesh"), "mesh");
          Sharding s = parse_sharding(in.text("sharding"), "sharding");
          const double bpe = hw::dtype_bytes(in.text("dtype"), "dtype");
          LocalShape L =
              local_shape(s, m, {in.num("size_I"), in.num("size_J")}, bpe, "sharding", &tr);
          const double bw = in.num("hbm_bw_Bps");
          double t =
              tr.step("HBM read time", "T = \\frac{\\text{bytes}}{W_{hbm}}", "\\frac{#}{#}",
                      {L.bytes_per_device, bw}, roofline::t_comms(L.bytes_per_device, bw), "s");
          return Answers{{"local_size_I", L.local[0]},
                         {"bytes_per_device", L.bytes_per_device},
                         {"hbm_load_time_s", t}};
        },
    .erratum =
        "The book rounds 1 MiB to 1e6 B and prints about 294 ns; the exact 1,048,576 B "
        "give 308 ns. Both are accepted.",
    .hint = "A two-axis subscript splits over |X| x |Y| devices; fp32 is 4 bytes.",
};

constexpr double kPQ1SizeI[] = {64, 128, 256};
constexpr double kPQ1SizeJ[] = {1024, 2048, 4096};
constexpr Param kPQ1Given[] = {text("mesh", "Mesh({'X': 2, 'Y': 8, 'Z': 2})", "the device mesh"),
                               text("sharding", "A[I_{XY}, J]", "how A is sharded"),
                               dtype_param("dtype", "int8", "element type"),
                               count("size_I", 128, "global size of I", kPQ1SizeI),
                               count("size_J", 2048, "global size of J", kPQ1SizeJ)};
constexpr Slot kPQ1Slots[] = {number("local_size_I", "count", "local size of I"),
                              number("bytes_per_device", "B", "bytes per device"),
                              number("copies_of_array", "count", "complete copies of A"),
                              number("total_bytes_all_devices", "B", "bytes over all devices")};
constexpr Problem kPQ1{
    .id = "sharding.PQ1",
    .title = "Memory of a partially replicated array",
    .statement =
        "An int8 array A of shape ({size_I}, {size_J}) is sharded as {sharding} on the "
        "mesh {mesh}. How many bytes does each device hold, how many full copies of A "
        "exist, and how many bytes does the whole mesh store?",
    .kind = "numeric",
    .given = kPQ1Given,
    .slots = kPQ1Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Mesh m = parse_mesh(in.text("mesh"), "mesh");
          Sharding s = parse_sharding(in.text("sharding"), "sharding");
          LocalShape L = local_shape(s, m, {in.num("size_I"), in.num("size_J")},
                                     hw::dtype_bytes(in.text("dtype"), "dtype"), "sharding", &tr);
          return Answers{{"local_size_I", L.local[0]},
                         {"bytes_per_device", L.bytes_per_device},
                         {"copies_of_array", L.replication},
                         {"total_bytes_all_devices", L.total_bytes}};
        },
    .hint = "An axis no dimension uses means a full copy along it.",
};

constexpr Param kEX2Given[] = {
    text("mesh",
         "jax.make_mesh(axis_shapes=(4, 2), axis_names=('X', 'Y'), axis_types=(Auto, "
         "Auto))",
         "the mesh"),
    text("sharding_A", "A[B_X, D_Y]", "sharding of A (PartitionSpec('X', 'Y'))"),
    text("sharding_B", "B[D, F_Y]", "sharding of B (PartitionSpec(None, 'Y'))"),
    text("shape_A", "(8, 2048)", "global shape of A"),
    text("shape_B", "(2048, 8192)", "global shape of B")};
constexpr Slot kEX2Slots[] = {number("A_local_rows", "count", "rows of A per device"),
                              number("A_local_cols", "count", "columns of A per device"),
                              number("B_local_rows", "count", "rows of B per device"),
                              number("B_local_cols", "count", "columns of B per device")};
constexpr Problem kEX2{
    .id = "sharding.EX2",
    .title = "Local shard shapes in the JAX example",
    .statement =
        "The code sample builds the mesh {mesh} over 8 devices and places A {shape_A} "
        "as {sharding_A} and B {shape_B} as {sharding_B}, in bf16. What shape does "
        "each device hold of A and of B?",
    .kind = "numeric",
    .given = kEX2Given,
    .slots = kEX2Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Mesh m = parse_mesh(in.text("mesh"), "mesh");
          Sharding a = parse_sharding(in.text("sharding_A"), "sharding_A");
          Sharding b = parse_sharding(in.text("sharding_B"), "sharding_B");
          tr.note(
              "The axis types (Auto) only let XLA choose intermediate shardings; shard shapes "
              "do not change.");
          LocalShape La =
              local_shape(a, m, shape_of(in.text("shape_A"), "shape_A"), 2, "sharding_A", &tr);
          LocalShape Lb =
              local_shape(b, m, shape_of(in.text("shape_B"), "shape_B"), 2, "sharding_B", &tr);
          return Answers{{"A_local_rows", La.local[0]},
                         {"A_local_cols", La.local[1]},
                         {"B_local_rows", Lb.local[0]},
                         {"B_local_cols", Lb.local[1]}};
        },
};

constexpr Param kEX4Given[] = {text("mesh", "Mesh({'X': 4, 'Y': 8})", "the mesh"),
                               text("sharding", "A[I_{XY}, J]", "the sharding")};
constexpr Slot kEX4Slots[] = {number("shards_of_I", "count", "pieces of I")};
constexpr Problem kEX4{
    .id = "sharding.EX4",
    .title = "Ways a two-axis subscript splits",
    .statement =
        "On the mesh {mesh}, into how many pieces does {sharding} cut its first dimension?",
    .kind = "numeric",
    .given = kEX4Given,
    .slots = kEX4Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Mesh m = parse_mesh(in.text("mesh"), "mesh");
          Sharding s = parse_sharding(in.text("sharding"), "sharding");
          validate(s, m, "sharding");
          double n = tr.step("Shards of " + s.dims[0].name, "\\prod_{a \\in \\text{subscript}} |a|",
                             axes_text(s.dims[0].axes), shards_of(s.dims[0], m), "count");
          return Answers{{"shards_of_I", n}};
        },
};

constexpr Param kQ1Given[] = {text("mesh", "Mesh({'X': 4, 'Y': 8, 'Z': 2})", "the mesh"),
                              text("sharding", "A[I_X, J, K, ...]", "the sharding")};
constexpr Slot kQ1Slots[] = {number("total_to_one_copy_ratio", "ratio", "total memory / one copy")};
constexpr Problem kQ1{
    .id = "sharding.Q1",
    .title = "Replication factor of a one-axis sharding",
    .statement =
        "A is sharded as {sharding} on the mesh {mesh}. How many times the size of one "
        "copy of A does the whole mesh store?",
    .kind = "numeric",
    .given = kQ1Given,
    .slots = kQ1Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Mesh m = parse_mesh(in.text("mesh"), "mesh");
          Sharding s = parse_sharding(in.text("sharding"), "sharding");
          validate(s, m, "sharding");
          double r =
              tr.step("Copies: product of the axes A does not use",
                      "r = \\prod_{\\text{unused}} |X|", "", replication_factor(s, m), "ratio");
          tr.note(
              "Each device holds 1/|X| of A and there are N devices, so the mesh stores N/|X| "
              "= r copies.");
          return Answers{{"total_to_one_copy_ratio", r}};
        },
    .hint = "Count the axes the sharding leaves unused.",
};

constexpr Problem kNotation[] = {kEX1, kPQ0, kPQ1, kEX2, kEX4, kQ1};

// ------------------------------------------------------------------ collectives

constexpr double kEX3WUniBps[] = {4.5e10, 9e10};
constexpr double kEX3TMinS[] = {1e-6, 2e-6};
constexpr Param kEX3Given[] = {
    given("w_uni_Bps", "B_per_s", 4.5e10, "one-way link bandwidth", kEX3WUniBps),
    given("t_min_s", "s", 1e-6, "per-hop latency", kEX3TMinS)};
constexpr Slot kEX3Slots[] = {
    number("latency_bound_threshold_B", "B", "threshold payload per hop")};
constexpr Problem kEX3{
    .id = "sharding.EX3",
    .title = "Latency-bound buffer size on v5e",
    .statement =
        "An ICI link moves {w_uni_Bps} one way and each hop costs about "
        "{t_min_s}. Below "
        "what payload per hop does the latency dominate?",
    .kind = "numeric",
    .given = kEX3Given,
    .slots = kEX3Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double w = in.num("w_uni_Bps"), t = in.num("t_min_s");
          return Answers{
              {"latency_bound_threshold_B",
               tr.step("Payload one link moves in one hop latency", "W_{uni} \\cdot T_{min}",
                       "# \\cdot #", {w, t}, latency_bound_threshold(w, t), "B")}};
        },
};

constexpr double kEX5MeshSizeLargeAxis[] = {8, 16};
constexpr double kEX5WUniBps[] = {4.5e10, 9e10};
constexpr Param kEX5Given[] = {
    count("mesh_size_large_axis", 16, "devices the array is split over", kEX5MeshSizeLargeAxis),
    given("array_bytes_at_saturation_B", "B", 1e7, "total array size at the plateau"),
    given("measured_fraction_of_peak", "ratio", 0.95, "fraction of peak reached"),
    given("w_uni_Bps", "B_per_s", 4.5e10, "one-way link bandwidth", kEX5WUniBps)};
constexpr Slot kEX5Slots[] = {number("bytes_per_device_at_saturation", "B", "bytes per device"),
                              number("achieved_link_bw_Bps", "B_per_s", "bandwidth reached")};
constexpr Problem kEX5{
    .id = "sharding.EX5",
    .title = "Measured AllGather bandwidth saturation point",
    .statement =
        "On a v5e 8x16 slice an AllGather over the size-{mesh_size_large_axis} axis "
        "reaches its plateau at a total array of {array_bytes_at_saturation_B}, at "
        "about "
        "{measured_fraction_of_peak} of the {w_uni_Bps} one-way link peak. How big is "
        "each "
        "device's shard there, and what bandwidth does the link reach?",
    .kind = "numeric",
    .given = kEX5Given,
    .slots = kEX5Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Mesh m;
          m.names = {"X"};
          m.sizes = {static_cast<long long>(in.num("mesh_size_large_axis"))};
          Sharding s = parse_sharding("[V_X]", "sharding");
          const double v = in.num("array_bytes_at_saturation_B");
          LocalShape L = local_shape(s, m, {v}, 1, "array_bytes_at_saturation_B", &tr);
          const double bw =
              tr.step("Bandwidth reached", "f \\cdot W_{uni}", "# \\cdot #",
                      {in.num("measured_fraction_of_peak"), in.num("w_uni_Bps")},
                      in.num("measured_fraction_of_peak") * in.num("w_uni_Bps"), "B_per_s");
          return Answers{{"bytes_per_device_at_saturation", L.bytes_per_device},
                         {"achieved_link_bw_Bps", bw}};
        },
};

constexpr Slot::Hint kPQ2aTOpenLineSHints[] = {{1.5, kHintOpenLine}};
constexpr Slot kPQ2aSlots[] = {
    number("shard_bytes", "B", "bytes per shard"),
    number("total_bytes", "B", "bytes of the gathered array"),
    number("t_full_ring_s", "s", "time on an ideal ring"),
    number("latency_term_s", "s", "latency term"),
    hinted(number("t_open_line_s", "s", "time without wraparound"), kPQ2aTOpenLineSHints),
    boolean("is_latency_bound", "latency-bound?")};
constexpr Problem kPQ2a{
    .id = "sharding.PQ2.a",
    .title = "AllGather time on a v5e Y axis",
    .statement =
        "On a {chip} mesh {mesh}, AllGather_Y turns {sharding} (shape ({size_E}, "
        "{size_F}), "
        "{dtype}) into the full array. How big is each shard and the gathered array, "
        "how "
        "long would the gather take on an ideal bidirectional ring, and how long as "
        "the "
        "axis is actually wired (links {w_uni_Bps} one way, {t_min_s} per hop)?",
    .kind = "numeric",
    .given = kPQ2aGiven,
    .slots = kPQ2aSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Answers a;
          pq2_solve(in, tr, a);
          a.erase("per_hop_transfer_s");
          a.erase("t_total_s");
          return a;
        },
    .hint =
        "Without wraparound the far device receives N-1 shards through one link, "
        "one way.",
};

constexpr Slot kPQ2bSlots[] = {number("shard_bytes", "B", "bytes per shard", 0.03),
                               number("per_hop_transfer_s", "s", "transfer time of one hop", 0.05),
                               number("t_total_s", "s", "total time", 0.15),
                               boolean("is_latency_bound", "latency-bound?")};
constexpr Problem kPQ2b{
    .id = "sharding.PQ2.b",
    .title = "Small AllGather on v5e is latency-bound",
    .statement =
        "The same gather on a {chip} mesh {mesh}, but A is only ({size_E}, "
        "{size_F}) in "
        "{dtype}. How big is each shard, how long does one hop's transfer "
        "take, and how "
        "long is the whole gather?",
    .kind = "numeric",
    .given = kPQ2bGiven,
    .slots = kPQ2bSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Answers a;
          pq2_solve(in, tr, a);
          Answers out;
          for (const char* k :
               {"shard_bytes", "per_hop_transfer_s", "t_total_s", "is_latency_bound"})
            out[k] = a[k];
          return out;
        },
    .erratum =
        "The book writes the shard as 32 kB and computes with 32e3 B; it is "
        "32,768 B (32 KiB).",
    .hint = "Compare one hop's transfer with the 1 us hop latency.",
};

constexpr Slot::Hint kQ2aTAllgatherXSHints[] = {{2, kHintBothWays}};
constexpr Slot kQ2aSlots[] = {
    number("gathered_bytes_per_group", "B", "bytes gathered per Y group"),
    hinted(number("t_allgather_x_s", "s", "time of AllGather_X"), kQ2aTAllgatherXSHints),
    number("latency_term_s", "s", "latency floor"),
    number("t_allgather_xz_after_free_reshard_s", "s", "time of AllGather_{XZ} after the reshard")};
constexpr Problem kQ2a{
    .id = "sharding.Q2.a",
    .title = "AllGather over one v4p axis",
    .statement =
        "On a {chip} cube {mesh}, gather {sharding} ({dtype}, B = {size_B}, D = "
        "{size_D}) "
        "over X. How many bytes does each Y group gather, how long does it take, and "
        "what is the latency floor? The array is replicated over Z: how long if you "
        "first split B over Z too (free) and gather over X and Z?",
    .kind = "numeric",
    .given = kQ2Given,
    .slots = kQ2aSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Q2 q = q2_setup(in);
          const double V = gathered_bytes(q.s, q.m, q.sizes, {"X"}, q.bpe);
          tr.step("V: the gathered [B, D_Y] each Y group ends with", "V = 2 B D / |Y|", "", V, "B");
          CollectiveCost x = collective_cost(Op::AllGather, V, axes_of(q.m, {"X"}, q.wrap), q.l,
                                             &tr, "AllGather_X");
          tr.note(
              "Z is unused, so [B_X, D_Y] -> [B_{XZ}, D_Y] costs nothing; the gather "
              "then uses two axes.");
          CollectiveCost xz = collective_cost(Op::AllGather, V, axes_of(q.m, {"X", "Z"}, q.wrap),
                                              q.l, &tr, "AllGather_{XZ}");
          return Answers{{"gathered_bytes_per_group", V},
                         {"t_allgather_x_s", x.t},
                         {"latency_term_s", x.t_lat},
                         {"t_allgather_xz_after_free_reshard_s", xz.t}};
        },
};

constexpr Slot kQ2bSlots[] = {number("gathered_bytes", "B", "bytes gathered"),
                              number("t_allgather_xy_s", "s", "time of AllGather_{XY}"),
                              number("latency_term_s", "s", "latency floor"),
                              number("t_allgather_xyz_after_free_reshard_s", "s",
                                     "time of AllGather_{XYZ} after the reshard")};
constexpr Problem kQ2b{
    .id = "sharding.Q2.b",
    .title = "AllGather over two v4p axes",
    .statement =
        "On the same {chip} cube {mesh}, gather {sharding} over both X and Y. How many "
        "bytes are gathered, how long does it take, what is the latency floor, and how "
        "long if Z is recruited first by a free reshard?",
    .kind = "numeric",
    .given = kQ2Given,
    .slots = kQ2bSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Q2 q = q2_setup(in);
          const double V = gathered_bytes(q.s, q.m, q.sizes, {"X", "Y"}, q.bpe);
          tr.step("V: the whole array", "V = 2 B D", "", V, "B");
          CollectiveCost xy = collective_cost(Op::AllGather, V, axes_of(q.m, {"X", "Y"}, q.wrap),
                                              q.l, &tr, "AllGather_{XY}");
          CollectiveCost xyz = collective_cost(
              Op::AllGather, V, axes_of(q.m, {"X", "Y", "Z"}, q.wrap), q.l, &tr, "AllGather_{XYZ}");
          return Answers{{"gathered_bytes", V},
                         {"t_allgather_xy_s", xy.t},
                         {"latency_term_s", xy.t_lat},
                         {"t_allgather_xyz_after_free_reshard_s", xyz.t}};
        },
};

constexpr Slot::Hint kQ2cTAllreduceZSHints[] = {{2, kHintTwoPasses}};
constexpr Slot kQ2cSlots[] = {
    number("per_device_bytes", "B", "bytes per device"),
    hinted(number("t_allreduce_z_s", "s", "time of AllReduce_Z"), kQ2cTAllreduceZSHints)};
constexpr Problem kQ2c{
    .id = "sharding.Q2.c",
    .title = "AllReduce over the Z axis",
    .statement =
        "On the same {chip} cube {mesh}, the array {sharding} holds partial "
        "sums over Z "
        "(it carries an unreduced U_Z marker). How many bytes does each "
        "device hold, and how long does "
        "AllReduce_Z take?",
    .kind = "numeric",
    .given = kQ2Given,
    .slots = kQ2cSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Q2 q = q2_setup(in);
          const double V = local_shape(q.s, q.m, q.sizes, q.bpe, "sharding", &tr).bytes_per_device;
          CollectiveCost z = collective_cost(Op::AllReduce, V, axes_of(q.m, {"Z"}, q.wrap), q.l,
                                             &tr, "AllReduce_Z");
          return Answers{{"per_device_bytes", V}, {"t_allreduce_z_s", z.t}};
        },
};

constexpr double kQ3SizeB[] = {64, 128, 512};
constexpr double kQ3WUniBps[] = {4.5e10, 9e10};
constexpr double kQ3TMinS[] = {1e-6};
constexpr Param kQ3Given[] = {
    chip_param("v4p", "chip (its wraparound rule)"),
    text("mesh", "Mesh({'X': 4, 'Y': 4, 'Z': 4})", "the mesh"),
    text("sharding", "[B_X]", "the vector"),
    dtype_param("dtype", "bf16", "element type"),
    count("size_B", 128, "length of the vector", kQ3SizeB),
    given("w_uni_Bps", "B_per_s", 4.5e10, "one-way ICI bandwidth", kQ3WUniBps),
    given("t_min_s", "s", 1e-6, "per-hop latency", kQ3TMinS)};
constexpr Slot::Hint kQ3TTotalSHints[] = {{1.5, kHintWrappedHops}};
constexpr Slot kQ3Slots[] = {number("total_bytes", "B", "bytes of the gathered vector"),
                             number("bytes_per_device", "B", "bytes per device before"),
                             number("hops", "count", "hops"),
                             number("bandwidth_term_s", "s", "bandwidth term"),
                             hinted(number("t_total_s", "s", "total time", 0.2), kQ3TTotalSHints),
                             boolean("is_latency_bound", "latency-bound?")};
constexpr Problem kQ3{
    .id = "sharding.Q3",
    .title = "Latency-bound AllGather of a tiny vector",
    .statement =
        "On a {chip} cube {mesh}, AllGather_X {sharding} with B = {size_B} in {dtype}. "
        "How many bytes in all and per device, how many hops, what are the bandwidth "
        "term and the total time?",
    .kind = "numeric",
    .given = kQ3Given,
    .slots = kQ3Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Mesh m = parse_mesh(in.text("mesh"), "mesh");
          Sharding s = parse_sharding(in.text("sharding"), "sharding");
          const double bpe = hw::dtype_bytes(in.text("dtype"), "dtype");
          const double per =
              local_shape(s, m, {in.num("size_B")}, bpe, "sharding", &tr).bytes_per_device;
          const double V = gathered_bytes(s, m, {in.num("size_B")}, {"X"}, bpe);
          CollectiveCost c =
              collective_cost(Op::AllGather, V, axes_of(m, {"X"}, chip_wraps(in.text("chip"), m)),
                              link_of(in.num("w_uni_Bps"), in.num("t_min_s")), &tr, "AllGather_X");
          return Answers{{"total_bytes", V}, {"bytes_per_device", per},
                         {"hops", c.hops},   {"bandwidth_term_s", c.t_bw},
                         {"t_total_s", c.t}, {"is_latency_bound", c.latency_bound ? 1.0 : 0.0}};
        },
};

constexpr double kEX6TotalBytesAllDevicesB[] = {2.68e8, 1.07e9, 4.29e9};
constexpr double kEX6WIciBps[] = {9e10, 1.8e11};
constexpr double kEX6FootnoteRingSize[] = {4, 8, 16};
constexpr Param kEX6Given[] = {
    text("mesh", "4x4x4", "the torus (wraps on every axis)"),
    given("total_bytes_all_devices_B", "B", 1073741824, "V: the array summed over all devices",
          kEX6TotalBytesAllDevicesB),
    given("w_ici_Bps", "B_per_s", 1.8e11, "bidirectional ICI bandwidth per link", kEX6WIciBps),
    count("footnote_ring_size", 8, "even ring size for the chunk count", kEX6FootnoteRingSize)};
constexpr Slot kEX6Slots[] = {
    number("a2a_to_allgather_ratio_1d", "ratio", "1-D AllToAll / AllGather"),
    number("chunk_hops_per_device_even_ring", "count", "chunk-hops per device"),
    number("bisection_links_crossed", "count", "links crossing the bisection"),
    number("t_alltoall_s", "s", "AllToAll time"),
    formula(
        "formula", "s", "AllToAll time as a formula", kEX6Vars,
        [](const Vars& v) {
          const double mx = std::max({at(v, "A"), at(v, "B"), at(v, "C")});
          return t_alltoall_per_device(at(v, "V") / at(v, "N"), mx, at(v, "W"));
        },
        "\\frac{V \\max(A, B, C)}{4 N W}")};
constexpr Problem kEX6{
    .id = "sharding.EX6",
    .title = "AllToAll cost on an N-D torus",
    .statement =
        "An AllToAll reshards an array of {total_bytes_all_devices_B} (summed over all "
        "devices) on the wrapped torus {mesh} with W_ici = {w_ici_Bps} per link. What "
        "is "
        "the ratio of a 1-D AllToAll to an AllGather, how many chunk-hops does one "
        "device "
        "make on a bidirectional ring of {footnote_ring_size}, how many links does the "
        "bisection cut cross, and how long does the AllToAll take? Give the time as a "
        "formula too, in V, the axis sizes A, B, C, the device count N and W.",
    .kind = "formula",
    .given = kEX6Given,
    .slots = kEX6Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Mesh m = parse_mesh(in.text("mesh"), "mesh");
          const double V = in.num("total_bytes_all_devices_B"), W = in.num("w_ici_Bps");
          const double n = in.num("footnote_ring_size");
          if (static_cast<long long>(n) % 2 != 0)
            fail("footnote_ring_size", "the footnote's count is for an even ring");
          const double ratio =
              tr.step("1-D: AllToAll / AllGather on a ring of the same array",
                      "\\frac{V/(4 W_{ici})}{V / W_{ici}}", "",
                      t_alltoall_1d(V, W) / t_allgather_ring(V, n, W / 2), "ratio");
          const double hops = tr.step("Chunk-hops per device on a ring of " + tex(n),
                                      "\\sum_{k=1}^{N/2} k + \\sum_{k=1}^{N/2-1} k = N^2/4", "",
                                      alltoall_chunk_hops_bidi(static_cast<long long>(n)), "count");
          std::vector<double> dims(m.sizes.begin(), m.sizes.end());
          const double links =
              tr.step("Links the bisection crosses", "2N / \\max(A, B, C)", "",
                      tpus::bisection_links(tpus::Torus{tpus::Dims(m.sizes.begin(), m.sizes.end()),
                                                        std::vector<bool>(m.sizes.size(), true)}),
                      "count");
          std::vector<Axis> axes;
          for (std::size_t k = 0; k < m.names.size(); ++k)
            axes.push_back({m.names[k], dims[k], true, 1});
          Link l = link_of(W / 2, 0);
          CollectiveCost c = collective_cost(Op::AllToAll, V, axes, l, &tr, "AllToAll");
          return Answers{{"a2a_to_allgather_ratio_1d", ratio},
                         {"chunk_hops_per_device_even_ring", hops},
                         {"bisection_links_crossed", links},
                         {"t_alltoall_s", c.t}};
        },
    .hint = "V is the total over all devices; divide by N to get per-device bytes.",
};

constexpr Problem kCollectives[] = {kEX3, kEX5, kPQ2a, kPQ2b, kQ2a, kQ2b, kQ2c, kQ3, kEX6};

// ------------------------------------------------------------------ sharded matmuls

constexpr double kQ4PeakBf16FlopsPerS[] = {1.97e14, 2.75e14, 4.59e14};
constexpr double kQ4WIciBps[] = {9e10, 1.8e11};
constexpr double kQ4DModelTypical[] = {4096, 8192, 16384};
constexpr Param kQ4Given[] = {
    given("peak_bf16_flops_per_s", "flop_per_s", 4.59e14, "C: bf16 FLOPs/s (v5p)",
          kQ4PeakBf16FlopsPerS),
    given("w_ici_Bps", "B_per_s", 1.8e11, "W_ici: bidirectional ICI bandwidth", kQ4WIciBps),
    count("d_model_typical", 8192, "D for the X bound", kQ4DModelTypical),
    text("mesh", "{'X': 4}", "a reference mesh axis (the thresholds do not depend on it)"),
    count("ref_size", 8192, "reference B = D = F the thresholds are scaled from")};
constexpr Slot kQ4Slots[] = {
    number("b_threshold_strategy1_comms_bound", "tokens",
           "B below which strategy 1 is comms-bound"),
    number("d_threshold_strategy2_wins_large_batch", "count", "D above which strategy 2 wins"),
    number("x_max_strategy2_compute_bound", "count", "largest X with strategy 2 compute-bound"),
    formula(
        "t_math_strategy1", "s", "T_math of strategy 1", kQ4Math1,
        [](const Vars& v) {
          return roofline::t_math(roofline::matmul_flops({at(v, "B"), at(v, "D"), at(v, "F")}),
                                  at(v, "C"));
        },
        "\\frac{2BDF}{C}"),
    formula(
        "t_comms_strategy1", "s", "T_comms of strategy 1", kQ4Comms1,
        [](const Vars& v) { return t_allgather_multi(2 * at(v, "D") * at(v, "F"), 1, at(v, "W")); },
        "\\frac{2DF}{W}"),
    formula(
        "t_math_strategy2", "s", "T_math of strategy 2", kQ4Math2,
        [](const Vars& v) {
          return roofline::t_math(
              roofline::matmul_flops({at(v, "B"), at(v, "D"), at(v, "F")}) / at(v, "X"),
              at(v, "C"));
        },
        "\\frac{2BDF}{XC}"),
    formula(
        "t_comms_strategy2", "s", "T_comms of strategy 2", kQ4Comms2,
        [](const Vars& v) {
          return t_allreduce_from_ag(t_allgather_multi(2 * at(v, "B") * at(v, "F"), 1, at(v, "W")));
        },
        "\\frac{4BF}{W}")};
constexpr Problem kQ4{
    .id = "sharding.Q4",
    .title = "Gather-first versus local matmul plus AllReduce",
    .statement =
        "X[B, D] ._D Y[D_X, F] -> Z[B, F] on one mesh axis X. Strategy 1 gathers Y and "
        "multiplies replicated; strategy 2 slices X along D, multiplies locally and "
        "AllReduces Z. With C = {peak_bf16_flops_per_s} and W_ici = {w_ici_Bps}: below "
        "which batch B is strategy 1 communication-bound, above which D does strategy "
        "2 "
        "win at large batch, and up to which X is strategy 2 compute-bound when D = "
        "{d_model_typical}? Give each strategy's T_math and T_comms as formulas.",
    .kind = "formula",
    .given = kQ4Given,
    .slots = kQ4Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double C = in.num("peak_bf16_flops_per_s"), W = in.num("w_ici_Bps"),
                       n0 = in.num("ref_size");
          // One reference analysis; T_math grows with B and D, T_comms of strategy 2
          // with B only, so each threshold is the reference size scaled by a ratio of
          // times.
          MatmulInput mi = matmul_of(in, "X[B, D]", "Y[D_X, F]", n0, n0, n0, "all", W / 2, C);
          const double X0 = static_cast<double>(mi.mesh.sizes.at(0));
          MatmulAnalysis an = analyze_matmul(mi, &tr);
          const Plan* s1 = find_plan(an, "matmul", "AllGather");
          const Plan* s2 = find_plan(an, "AllReduce");
          tr.note("Strategy 1: " + s1->name + ". Strategy 2: " + s2->name + ".");
          // Strategy 1 replicates the matmul: its T_math is X0 times the per-chip share
          // of strategy 2.
          const double tm1 = s1->t_math, tc1 = s1->t_comms, tm2 = s2->t_math, tc2 = s2->t_comms;
          const double b =
              tr.step("Strategy 1 is comms-bound while 2BDF/C < 2DF/W", "B^* = C / W",
                      "# \\cdot \\frac{#}{#}", {n0, tc1, tm1}, n0 * tc1 / tm1, "tokens");
          const double d =
              tr.step("Strategy 2 wins at large B when 4BF/W < 2BDF/C", "D^* = 2C / W",
                      "# \\cdot \\frac{#}{#}", {n0, tc2, tm1}, n0 * tc2 / tm1, "count");
          const double dm = in.num("d_model_typical");
          const double x = tr.step("Strategy 2 compute-bound while 2BDF/(XC) > 4BF/W",
                                   "X^* = D W / (2C)", "# \\cdot \\frac{#}{#}",
                                   {X0, tm2 * dm / n0, tc2}, X0 * (tm2 * dm / n0) / tc2, "count");
          tr.note(x < 2 ? "So strategy 2 is compute-bound only for X below 2: in "
                          "practice it is almost always "
                          "communication-bound, though it still beats a replicated "
                          "matmul when D > 2C/W."
                        : "Strategy 2 stays compute-bound up to that X.");
          return Answers{{"b_threshold_strategy1_comms_bound", b},
                         {"d_threshold_strategy2_wins_large_batch", d},
                         {"x_max_strategy2_compute_bound", x}};
        },
    .hint =
        "Strategy 1's gather does not depend on B; strategy 2's AllReduce does not "
        "depend on D.",
};

constexpr Param kQ5Given[] = {chip_param("v4p", "chip"),
                              text("mesh", "{'X': 4, 'Y': 4, 'Z': 4}", "the mesh")};
constexpr Problem kQ5{
    .id = "sharding.Q5",
    .title = "Lowest-latency sharding for a replicated output",
    .statement =
        "On a {chip} cube {mesh}, compute A[I, J] ._J B[J, K] -> C[I, K] with C fully "
        "replicated at the end. How would you shard the inputs to finish soonest?",
    .kind = "conceptual",
    .given = kQ5Given,
    .slots = {},
    .solve =
        [](const Inputs& in, Trace& tr) {
          Mesh m = parse_mesh(in.text("mesh"), "mesh");
          tr.note("Mesh " + m.text() + ": " + std::to_string(m.devices()) +
                  " devices; using every axis splits the FLOPs N ways.");
          return Answers{};
        },
    .model_answer =
        "Use all three axes so that each chip does 1/64 of the 2IJK FLOPs, and pay a "
        "collective "
        "over all three axes at once, which gets three links' worth of bandwidth. Two "
        "layouts do "
        "that. (a) Shard the contracting dim: A[I, J_{XYZ}] . B[J_{XYZ}, K] gives C[I, "
        "K]{U_XYZ}, "
        "then AllReduce_{XYZ}: about 2 x 2IK / (3 W_ici) of comms, and the inputs are "
        "not "
        "replicated. (b) Shard a free dim: A[I_{XYZ}, J] . B[J, K] gives C[I_{XYZ}, "
        "K], then "
        "AllGather_{XYZ}: about 2IK / (3 W_ici), half of (a), but B must be fully "
        "replicated on "
        "every chip. Which is faster depends on whether that memory is available and, "
        "for small "
        "C, on latency: both collectives cross sum(|X_i|)/2 = 6 hops, and the "
        "AllReduce makes "
        "that trip twice. Never pick a layout that shards I and K on the same axis.",
};

constexpr Slot kQ6aSlots[] = {
    number("comm_time_per_IK_open_line_s", "s", "comms time per I*K, open line"),
    number("comm_time_per_IK_full_ring_s", "s", "comms time per I*K, full ring"),
    number("math_time_per_IJK_s", "s", "FLOPs time per I*J*K"),
    number("flops_fraction_per_chip", "ratio", "share of the FLOPs per chip"),
    formula(
        "formula", "s", "communication time (open line)", vIK,
        [](const Vars& v) {
          return t_allreduce_from_ag(t_allgather_line(2 * at(v, "I") * at(v, "K") / at(v, "X"),
                                                      at(v, "Y"), at(v, "W_uni")));
        },
        "2 \\cdot \\frac{Y-1}{Y} \\cdot \\frac{2IK/X}{W_{uni}}")};
constexpr Problem kQ6a{
    .id = "sharding.Q6.a",
    .title = "Contraction sharded on Y in both operands",
    .statement =
        "On a {chip} mesh {mesh} (no wraparound on axes of 4), multiply "
        "{sharding_A} by "
        "{sharding_B}. Which collective is needed? Give its time per unit I*K "
        "on the open "
        "line and on an ideal ring, the FLOPs time per unit I*J*K and each "
        "chip's share "
        "of the FLOPs, and the communication time as a formula.",
    .kind = "formula",
    .given = kQ6aGiven,
    .slots = kQ6aSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Q6 q = q6(in, tr);
          return Answers{{"comm_time_per_IK_open_line_s", q.open.plan.t_comms / (q.I * q.K)},
                         {"comm_time_per_IK_full_ring_s", q.ring.plan.t_comms / (q.I * q.K)},
                         {"math_time_per_IJK_s", q.open.plan.t_math / (q.I * q.J * q.K)},
                         {"flops_fraction_per_chip",
                          q.open.plan.flops_per_chip / roofline::matmul_flops({q.I, q.J, q.K})}};
        },
};

constexpr Slot kQ6bSlots[] = {
    number("comm_time_per_JK_open_line_s", "s", "comms time per J*K, open line"),
    number("comm_time_per_JK_full_ring_s", "s", "comms time per J*K, full ring"),
    number("math_time_per_IJK_s", "s", "FLOPs time per I*J*K"),
    number("flops_fraction_per_chip", "ratio", "share of the FLOPs per chip"),
    formula(
        "formula", "s", "communication time (open line)", vJK,
        [](const Vars& v) {
          return t_allgather_line(2 * at(v, "J") * at(v, "K") / at(v, "Y"), at(v, "X"),
                                  at(v, "W_uni"));
        },
        "\\frac{X-1}{X} \\cdot \\frac{2JK/Y}{W_{uni}}")};
constexpr Problem kQ6b{
    .id = "sharding.Q6.b",
    .title = "Data plus tensor plus FSDP training layout",
    .statement =
        "On a {chip} mesh {mesh}, multiply {sharding_A} by {sharding_B}. Which "
        "collective "
        "is needed? Give its time per unit J*K on the open line and on an ideal ring, "
        "the FLOPs time per unit I*J*K, each chip's share of the FLOPs, and the "
        "communication time as a formula.",
    .kind = "formula",
    .given = kQ6bGiven,
    .slots = kQ6bSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Q6 q = q6(in, tr);
          return Answers{{"comm_time_per_JK_open_line_s", q.open.plan.t_comms / (q.J * q.K)},
                         {"comm_time_per_JK_full_ring_s", q.ring.plan.t_comms / (q.J * q.K)},
                         {"math_time_per_IJK_s", q.open.plan.t_math / (q.I * q.J * q.K)},
                         {"flops_fraction_per_chip",
                          q.open.plan.flops_per_chip / roofline::matmul_flops({q.I, q.J, q.K})}};
        },
};

constexpr Slot kQ6cSlots[] = {
    number("comm_time_s", "s", "communication time"),
    number("math_time_per_IJK_s", "s", "FLOPs time per I*J*K"),
    number("flops_fraction_per_chip", "ratio", "share of the FLOPs per chip"),
    formula(
        "formula", "s", "compute time", vIJK,
        [](const Vars& v) {
          return roofline::t_math(roofline::matmul_flops({at(v, "I"), at(v, "J"), at(v, "K")}) /
                                      (at(v, "X") * at(v, "Y")),
                                  at(v, "C"));
        },
        "\\frac{2IJK}{XYC}")};
constexpr Problem kQ6c{
    .id = "sharding.Q6.c",
    .title = "Inference layout with no contracting sharding",
    .statement =
        "On a {chip} mesh {mesh}, multiply {sharding_A} by {sharding_B}. Which "
        "collective "
        "is needed, what does it cost, what is the FLOPs time per unit I*J*K and each "
        "chip's share of the FLOPs? Give the compute time as a formula.",
    .kind = "formula",
    .given = kQ6cGiven,
    .slots = kQ6cSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Q6 q = q6(in, tr);
          return Answers{{"comm_time_s", q.open.plan.t_comms},
                         {"math_time_per_IJK_s", q.open.plan.t_math / (q.I * q.J * q.K)},
                         {"flops_fraction_per_chip",
                          q.open.plan.flops_per_chip / roofline::matmul_flops({q.I, q.J, q.K})}};
        },
};

constexpr double kQ7SizeB[] = {64, 128, 256};
constexpr double kQ7SizeD[] = {4096, 8192};
constexpr double kQ7SizeF[] = {16384, 32768};
constexpr double kQ7FreeMemPerChipB[] = {3e8, 6e8};
constexpr Param kQ7Given[] = {
    text("mesh", "{'X': 2, 'Y': 2}", "the mesh"),
    count("size_B", 128, "batch tokens", kQ7SizeB),
    count("size_D", 8192, "model dim", kQ7SizeD),
    count("size_F", 32768, "hidden dim", kQ7SizeF),
    given("free_mem_per_chip_B", "B", 3e8, "free memory per chip", kQ7FreeMemPerChipB),
    given("peak_bf16_flops_per_s", "flop_per_s", 1.97e14, "bf16 FLOPs/s"),
    given("w_ici_Bps", "B_per_s", 9e10, "bidirectional ICI bandwidth"),
    text("fsdp_in", "In[B_X, D]", "FSDP: input"),
    text("fsdp_w_in", "W_in[D_{XY}, F]", "FSDP: first weight"),
    text("tp_in", "In[B, D_{XY}]", "TP: input"),
    text("tp_w_in", "W_in[D, F_{XY}]", "TP: first weight"),
    text("tp_w_out", "W_out[F_{XY}, D]", "TP: second weight")};
constexpr Slot kQ7Slots[] = {
    number("weight_bytes_each", "B", "bytes of one weight"),
    number("input_bytes", "B", "bytes of the input"),
    number("tp_weight_bytes_per_chip", "B", "weight bytes per chip under TP"),
    boolean("tp_fits_in_cap", "TP fits in the cap?"),
    boolean("fsdp_full_weight_exceeds_cap", "FSDP's gathered weight exceeds the cap?"),
    number("flops_per_chip", "flop", "FLOPs per chip"),
    number("t_math_s", "s", "FLOPs time per chip")};
constexpr Problem kQ7{
    .id = "sharding.Q7",
    .title = "Memory-capped MLP layer on v5e 2x2",
    .statement =
        "In[B, D] ._D W_in[D, F] ._F W_out[F, D] -> Out[B, D] in bf16 with B = "
        "{size_B}, "
        "D = {size_D}, F = {size_F} on a v5e mesh {mesh}, with only "
        "{free_mem_per_chip_B} "
        "free per chip. How big is each weight and the input? Compare the FSDP layout "
        "({fsdp_in} . {fsdp_w_in}) with the tensor-parallel one ({tp_in} . {tp_w_in}, "
        "then "
        "{tp_w_out}): how many weight bytes does each chip hold under TP, does TP fit, "
        "does "
        "FSDP's gathered weight exceed the cap, and what are the FLOPs and FLOPs time "
        "per chip?",
    .kind = "numeric",
    .given = kQ7Given,
    .slots = kQ7Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double B = in.num("size_B"), D = in.num("size_D"), F = in.num("size_F");
          const double cap = in.num("free_mem_per_chip_B"), C = in.num("peak_bf16_flops_per_s");
          const double w = in.num("w_ici_Bps") / 2;
          Mesh m = parse_mesh(in.text("mesh"), "mesh");
          const double wbytes =
              local_shape(parse_sharding("W_in[D, F]", "tp_w_in"), m, {D, F}, 2, "tp_w_in")
                  .global_bytes;
          tr.step("One weight, 2DF bytes", "2 D F", "2 \\cdot # \\cdot #", {D, F}, wbytes, "B");
          const double ibytes =
              local_shape(parse_sharding("In[B, D]", "tp_in"), m, {B, D}, 2, "tp_in").global_bytes;
          tr.step("The input, 2BD bytes", "2 B D", "2 \\cdot # \\cdot #", {B, D}, ibytes, "B");
          // TP: gather In over XY, multiply into H[B, F_XY]; then H . W_out is Case 3
          // -> ReduceScatter.
          MatmulInput m1 = matmul_of(in, in.text("tp_in"), in.text("tp_w_in"), B, D, F, "none", w,
                                     C, "tp_in", "tp_w_in");
          MatmulAnalysis a1 = analyze_matmul(m1, &tr);
          MatmulInput m2 = matmul_of(in, a1.plan.out.text(), in.text("tp_w_out"), B, F, D, "none",
                                     w, C, "tp_in", "tp_w_out");
          m2.a.name = "H";
          MatmulAnalysis a2 = analyze_matmul(m2, &tr);
          const Plan* p2 = find_plan(a2, "ReduceScatter");
          const double tpw = tr.step("TP weight bytes per chip", "\\frac{2DF}{|X||Y|} \\cdot 2", "",
                                     a1.plan.peak_bytes_b + p2->peak_bytes_b, "B");
          const double peak_tp = tpw + a1.plan.peak_bytes_a + p2->peak_bytes_a;
          tr.step("TP peak: weights + gathered input + hidden", "", "", peak_tp, "B");
          // FSDP: the first matmul gathers W_in over XY: the whole weight sits on every
          // chip.
          MatmulInput mf = matmul_of(in, in.text("fsdp_in"), in.text("fsdp_w_in"), B, D, F, "none",
                                     w, C, "fsdp_in", "fsdp_w_in");
          MatmulAnalysis af = analyze_matmul(mf, nullptr);
          tr.step("FSDP: W_in gathered for the matmul", "2DF", "", af.plan.peak_bytes_b, "B");
          const double flops =
              tr.step("FLOPs per chip (both matmuls)", "\\frac{2 \\cdot 2BDF}{|X||Y|}", "",
                      a1.plan.flops_per_chip + p2->flops_per_chip, "flop");
          const double tm = tr.step("T_math per chip", "\\frac{\\text{FLOPs}}{C}", "\\frac{#}{#}",
                                    {flops, C}, roofline::t_math(flops, C), "s");
          return Answers{{"weight_bytes_each", wbytes},
                         {"input_bytes", ibytes},
                         {"tp_weight_bytes_per_chip", tpw},
                         {"tp_fits_in_cap", peak_tp <= cap ? 1.0 : 0.0},
                         {"fsdp_full_weight_exceeds_cap", af.plan.peak_bytes_b > cap ? 1.0 : 0.0},
                         {"flops_per_chip", flops},
                         {"t_math_s", tm}};
        },
    .hint =
        "Compare one whole weight with the cap: a layout that gathers it cannot "
        "work.",
};

constexpr Param kQ8Given[] = {text("mesh", "jax.make_mesh((4, 2), ('X', 'Y'))", "the mesh")};
constexpr Problem kQ8{
    .id = "sharding.Q8",
    .title = "Benchmark the four collectives",
    .statement =
        "With the mesh {mesh}, time AllGather, AllReduce, ReduceScatter and "
        "AllToAll on a "
        "sharded array and compare with the cost model.",
    .kind = "code",
    .given = kQ8Given,
    .slots = {},
    .solve =
        [](const Inputs& in, Trace& tr) {
          Mesh m = parse_mesh(in.text("mesh"), "mesh");
          tr.note("Mesh " + m.text() +
                  ": compare each measured time with the sharding.collective calculator.");
          return Answers{};
        },
    .model_answer =
        "Inside shard_map over the mesh, call jax.lax.all_gather, psum (AllReduce), "
        "psum_scatter "
        "(ReduceScatter) and all_to_all along one axis name on an array sharded like "
        "A[I_X, J]. "
        "Jit each function, run it once to compile, then time many calls with "
        "block_until_ready, for message sizes from a few kB to hundreds of MB. Plot "
        "time against "
        "bytes: small messages sit on a flat latency floor (hops x about 1 us), large "
        "ones on a "
        "line whose slope is 1 / bandwidth. Expect AllReduce near twice AllGather, "
        "ReduceScatter "
        "near AllGather, and AllToAll near a quarter of it on a wrapped axis. Divide "
        "bytes by "
        "time for the achieved bandwidth and compare it with the chip's ICI figure; a "
        "profile "
        "shows whether XLA split or fused the collectives.",
};

constexpr Problem kQ9a{
    .id = "sharding.Q9.a",
    .title = "Index-level local matmul then AllReduce",
    .statement =
        "A[I, J_X] ._J B[J, K] -> C[I, K] with B replicated on one axis X of D "
        "devices. "
        "Which products does each device compute, and how is the result finished?",
    .kind = "conceptual",
    .given = {},
    .slots = {},
    .solve =
        [](const Inputs&, Trace& tr) {
          tr.note(
              "Case 2 alternative: slice B along J to match A, multiply locally, "
              "AllReduce_X.");
          return Answers{};
        },
    .model_answer =
        "Device d owns one contiguous block of the contracting index j "
        "(with 16 values of j on 4 "
        "devices, device d holds j = 4d .. 4d+3). B is replicated, so the "
        "device simply reads the "
        "matching rows of B. For every output entry (i, k) it sums a[i, j] "
        "b[j, k] over its own "
        "j only, producing a full-shaped partial result C[I, K]{U_X}. The "
        "true C is the sum of "
        "these partials over the devices, which AllReduce_X computes and "
        "leaves on every device.",
};

constexpr Problem kQ9b{
    .id = "sharding.Q9.b",
    .title = "Sharded output allows a ReduceScatter",
    .statement =
        "In the same A[I, J_X] ._J B[J, K] with B replicated, the output may stay "
        "sharded. How does the algorithm change?",
    .kind = "conceptual",
    .given = {},
    .slots = {},
    .solve =
        [](const Inputs&, Trace& tr) {
          tr.note("A ReduceScatter costs half an AllReduce.");
          return Answers{};
        },
    .model_answer =
        "Keep the local multiply, but finish with ReduceScatter_X instead of "
        "AllReduce_X: each "
        "device ends with its summed slice, C[I_X, K] or C[I, K_X]. That moves half "
        "the bytes of "
        "the AllReduce (it is the AllReduce without its trailing AllGather), and the "
        "gather can be "
        "done later, or never, if the next operation wants the sharded layout.",
};

constexpr double kQ9cTestPointM[] = {2048, 8192, 16384};
constexpr double kQ9cTestPointK[] = {1024, 2048, 8192};
constexpr Param kQ9cGiven[] = {count("test_point_M", 8192, "M: contracting size", kQ9cTestPointM),
                               count("test_point_K", 2048, "K: columns of B", kQ9cTestPointK),
                               count("rows_N", 4096, "N: rows of A (cancels)"),
                               text("mesh", "{'X': 8}", "the ring (its size cancels)")};
constexpr Slot kQ9cSlots[] = {
    number("comm_ratio_at_test_point", "ratio", "gather-first / reduce-scatter comms"),
    formula(
        "formula", "ratio", "the ratio as a formula", kQ9cVars,
        [](const Vars& v) {
          return t_allgather_multi(at(v, "M"), 1, 1) / t_allgather_multi(at(v, "K"), 1, 1);
        },
        "\\frac{M}{K}")};
constexpr Problem kQ9c{
    .id = "sharding.Q9.c",
    .title = "Gather-first versus reduce-scatter-after comms",
    .statement =
        "For A[I, J_X] ._J B[J, K] with B replicated, compare the communication of "
        "gathering A first with that of multiplying locally and reduce-scattering C. "
        "What is the ratio at M = {test_point_M} (the contracting size) and K = "
        "{test_point_K}, and as a formula?",
    .kind = "formula",
    .given = kQ9cGiven,
    .slots = kQ9cSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          MatmulInput mi =
              matmul_of(in, "A[I, J_X]", "B[J, K]", in.num("rows_N"), in.num("test_point_M"),
                        in.num("test_point_K"), "all", 4.5e10, 1.97e14);
          MatmulAnalysis an = analyze_matmul(mi, &tr);
          const Plan* g = find_plan(an, "matmul", "AllGather");
          const Plan* rs = find_plan(an, "ReduceScatter");
          const double ratio =
              tr.step("Ratio of the comms times", "\\frac{T_{AG}(2NM)}{T_{RS}(2NK)} = \\frac{M}{K}",
                      "\\frac{#}{#}", {g->t_comms, rs->t_comms}, g->t_comms / rs->t_comms, "ratio");
          return Answers{{"comm_ratio_at_test_point", ratio}};
        },
};

constexpr Problem kMatmuls[] = {kQ4, kQ5, kQ6a, kQ6b, kQ6c, kQ7, kQ8, kQ9a, kQ9b, kQ9c};

// ------------------------------------------------------------------ Question 10: ring traffic

constexpr Slot kQ10aSlots[] = {
    number("large_D_coefficient_of_N2", "ratio", "coefficient of N^2 for large D"),
    formula(
        "formula", "count", "scalars per link", kQ10ND,
        [](const Vars& v) { return ag_link_scalars_oneway(at(v, "N"), at(v, "D")); },
        "N^2 (1 - 1/D)")};
constexpr Problem kQ10a{
    .id = "sharding.Q10.a",
    .title = "Per-link traffic of a one-way AllGather",
    .statement =
        "An N x N array is sharded A[I_X, J] on a one-way ring of D devices. How many "
        "scalars cross one link during an AllGather (or ReduceScatter)? Give the formula "
        "and its coefficient of N^2 when D is large.",
    .kind = "formula",
    .given = kQ10Given,
    .slots = kQ10aSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double d = in.num("large_D");
          tr.step("Scalars per link at the chosen N and D", "(D-1) \\cdot \\frac{N}{D} \\cdot N",
                  "", ag_link_scalars_oneway(in.num("matrix_N"), in.num("ring_D")), "count");
          return Answers{{"large_D_coefficient_of_N2",
                          tr.step("Coefficient of N^2 as D grows", "1 - 1/D", "1 - 1/#", {d},
                                  ag_link_scalars_oneway(1, d), "ratio")}};
        },
};

constexpr Slot kQ10bSlots[] = {
    number("large_D_coefficient_of_N2", "ratio", "coefficient of N^2 for large D"),
    formula(
        "formula", "count", "scalars per link", kQ10ND,
        [](const Vars& v) { return a2a_link_scalars_oneway(at(v, "N"), at(v, "D")); },
        "\\frac{N^2}{2} (1 - 1/D)")};
constexpr Problem kQ10b{
    .id = "sharding.Q10.b",
    .title = "Per-link traffic of a one-way AllToAll",
    .statement =
        "Same ring: how many scalars cross one link during an AllToAll that moves the "
        "sharding from I to J? Give the formula and its coefficient of N^2 for large D.",
    .kind = "formula",
    .given = kQ10Given,
    .slots = kQ10bSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double d = in.num("large_D");
          tr.step("Scalars per link at the chosen N and D",
                  "\\frac{N^2}{D^2} \\cdot \\frac{D(D-1)}{2}", "",
                  a2a_link_scalars_oneway(in.num("matrix_N"), in.num("ring_D")), "count");
          return Answers{{"large_D_coefficient_of_N2",
                          tr.step("Coefficient of N^2 as D grows", "\\frac{1}{2}(1 - 1/D)", "",
                                  a2a_link_scalars_oneway(1, d), "ratio")}};
        },
};

constexpr Slot kQ10cSlots[] = {
    number("a2a_to_ag_ratio_unidirectional", "ratio", "AllToAll / AllGather")};
constexpr Problem kQ10c{
    .id = "sharding.Q10.c",
    .title = "AllToAll to AllGather ratio, one-way",
    .statement =
        "On the one-way ring of {ring_D}, what is the ratio of an AllToAll's per-link "
        "traffic to an AllGather's?",
    .kind = "numeric",
    .given = kQ10Given,
    .slots = kQ10cSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double n = in.num("matrix_N"), d = in.num("ring_D");
          return Answers{
              {"a2a_to_ag_ratio_unidirectional",
               tr.step("Ratio", "\\frac{(N^2/2)(1-1/D)}{N^2(1-1/D)}", "",
                       a2a_link_scalars_oneway(n, d) / ag_link_scalars_oneway(n, d), "ratio")}};
        },
};

constexpr Slot kQ10dSlots[] = {number("ag_speedup_bidirectional", "ratio", "speed-up")};
constexpr Problem kQ10d{
    .id = "sharding.Q10.d",
    .title = "Bidirectional links speed up AllGather",
    .statement = "If the ring's links carry traffic both ways, how much faster is the AllGather?",
    .kind = "numeric",
    .given = kQ10Given,
    .slots = kQ10dSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double n = in.num("matrix_N"), d = in.num("ring_D");
          return Answers{
              {"ag_speedup_bidirectional",
               tr.step("One-way / two-way per-link load", "", "",
                       ag_link_scalars_oneway(n, d) / ag_link_scalars_bidi(n, d), "ratio")}};
        },
};

constexpr Slot kQ10eSlots[] = {number("a2a_speedup_bidirectional", "ratio", "speed-up for large D"),
                               number("large_D_coefficient_of_D2", "ratio", "coefficient of D^2"),
                               formula(
                                   "formula", "count", "hop-sum per link (blocks)", kQ10D,
                                   [](const Vars& v) { return a2a_link_blocks_bidi(at(v, "D")); },
                                   "\\frac{D}{2}\\left(\\frac{D}{2} + 1\\right) / 2")};
constexpr Problem kQ10e{
    .id = "sharding.Q10.e",
    .title = "Bidirectional links speed up AllToAll",
    .statement =
        "With both directions, blocks take the shorter way round. How much faster is the "
        "AllToAll for large D, what is the coefficient of D^2 in the busier direction's "
        "hop-sum, and what is that hop-sum as a formula (in units of (N/D)^2 blocks)?",
    .kind = "formula",
    .given = kQ10Given,
    .slots = kQ10eSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double d = in.num("large_D");
          const double s =
              tr.step("One-way / two-way hop-sum for large D", "\\frac{D(D-1)/2}{(D/2)(D/2+1)/2}",
                      "", a2a_link_blocks_oneway(d) / a2a_link_blocks_bidi(d), "ratio");
          const double c = tr.step("Coefficient of D^2", "\\frac{(D/2)(D/2+1)/2}{D^2}", "",
                                   a2a_link_blocks_bidi(d) / (d * d), "ratio");
          return Answers{{"a2a_speedup_bidirectional", s}, {"large_D_coefficient_of_D2", c}};
        },
};

constexpr Slot kQ10fSlots[] = {
    number("ag_to_a2a_time_ratio_bidirectional", "ratio", "AllGather / AllToAll")};
constexpr Problem kQ10f{
    .id = "sharding.Q10.f",
    .title = "AllGather to AllToAll ratio, bidirectional",
    .statement =
        "On a bidirectional ring, how many times longer does an AllGather take than an "
        "AllToAll, for large D?",
    .kind = "numeric",
    .given = kQ10Given,
    .slots = kQ10fSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double d = in.num("large_D");
          const double ag = ag_link_scalars_bidi(1, d);
          const double a2a = a2a_link_blocks_bidi(d) / (d * d);
          return Answers{
              {"ag_to_a2a_time_ratio_bidirectional",
               tr.step("Per-link loads, both ways, N = 1", "\\frac{(1-1/D)/2}{(D/2)(D/2+1)/(2D^2)}",
                       "", ag / a2a, "ratio")}};
        },
};

constexpr Problem kQ10[] = {kQ10a, kQ10b, kQ10c, kQ10d, kQ10e, kQ10f};

}  // namespace

void add_problems(Registry& r) {
  r.add(kNotation);
  r.add(kCollectives);
  r.add(kMatmuls);
  r.add(kQ10);
}

}  // namespace sb::sharding
