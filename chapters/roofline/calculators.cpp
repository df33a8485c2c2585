// The roofline chapter's calculators: matmul roofline against HBM or VMEM, the two-chip network
// roofline, the tiled matmul and the dot product. Chip figures come from sb::hw; the arithmetic
// is all in model.hpp. Each step of the derivation goes to the Trace.
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "chapters/roofline/levels.hpp"
#include "chapters/roofline/model.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

namespace sb::roofline {
namespace {

// The largest tensor sizes we accept: far beyond any real model, small enough that every product
// below stays a finite double.
constexpr double kMaxTokens = 1e9;
constexpr double kMaxDim = 1e7;

constexpr Text kComputeDtypes = "fp32|bf16|fp8|int8|int4";

// A level of the chip (levels.hpp) the calculation needs: its bandwidth, or an error naming
// `field` that says in words why the chip has none.
LevelBw need_level(const hw::Chip& c, Level l, Text field) {
  LevelBw lv = level_bw(c, l);
  if (!(lv.bw > 0)) fail(field, lv.note, "no_figure");
  return lv;
}

// A roof of the plot: a memory level or link, by name, with its bandwidth.
struct Roof {
  Text name;
  double bw = 0;
};

// A log-spaced grid from lo to hi with the marks themselves (sorted here) in increasing order.
// A curve made of straight pieces in log-log space, kinked only at marks, is exact between them.
std::vector<double> log_grid(double lo, double hi, double* marks, size_t n_marks) {
  for (size_t i = 1; i < n_marks; ++i)  // a handful of marks: insertion sort
    for (size_t j = i; j > 0 && marks[j] < marks[j - 1]; --j) std::swap(marks[j], marks[j - 1]);
  constexpr int kPoints = 49;
  const double step = std::pow(hi / lo, 1.0 / (kPoints - 1));
  std::vector<double> xs;
  xs.reserve(kPoints + n_marks);
  size_t m = 0;
  double x = lo;
  for (int i = 0; i < kPoints; ++i, x *= step) {
    if (i == kPoints - 1) x = hi;  // exactly, not as the product's rounding leaves it
    for (; m < n_marks && marks[m] <= x; ++m)
      if (xs.empty() || marks[m] > xs.back()) xs.push_back(marks[m]);
    if (xs.empty() || x > xs.back()) xs.push_back(x);
  }
  for (; m < n_marks; ++m)
    if (marks[m] > xs.back()) xs.push_back(marks[m]);
  return xs;
}

// Intensities to draw the roofs over: 30x either side of the marks (the ridges and the
// operation). Each roof is straight in log-log space but at its ridge, which is on the grid.
std::vector<double> plot_intensities(double* marks, size_t n_marks) {
  double lo = marks[0], hi = marks[0];
  for (size_t i = 1; i < n_marks; ++i) {
    lo = std::min(lo, marks[i]);
    hi = std::max(hi, marks[i]);
  }
  return log_grid(std::max(lo / 30, 1e-3), hi * 30, marks, n_marks);
}

// The plot's JSON is written as text by these few functions, kept out of line: inlined at every
// use, the buffer's appends cost more module size than the plot's code itself.
[[gnu::noinline]] void put(Out& out, Text before, double v) {
  out << before;
  append_json(out, v);
}
[[gnu::noinline]] void put(Out& out, Text before, Text v) {
  out << before;
  append_json(out, v);
}
[[gnu::noinline]] void put(Out& out, Text before, const std::vector<double>& xs) {
  out << before << '[';
  for (size_t i = 0; i < xs.size(); ++i) put(out, i ? "," : "", xs[i]);
  out << ']';
}
// {"intensity": x, "flops_per_s": y}
void put_point(Out& out, Text before, double x, double y) {
  out << before;
  put(out, "{\"intensity\":", x);
  put(out, ",\"flops_per_s\":", y);
  out << '}';
}

// What the page's roofline plot draws, all computed here and written as the response's "plot":
// each roof's attainable FLOPs/s over a grid of intensities (roofs[0] is the one the operation
// runs against), its ridge, and the operation as a point with its fraction of the peak.
// {"peak", "bw", "ridge", "point", "fraction_of_peak", "ridge_point", "intensity": [x...],
//  "roofs": [{"name", "bw", "ridge", "flops_per_s": [y...]}], "memory"?}
void roofline_plot(Result& r, double peak, std::span<const Roof> roofs, double intensity,
                   double flops_per_s, Text memory = {}, double full_peak = 0) {
  double marks[8] = {intensity};
  size_t n_marks = 1;
  for (const Roof& roof : roofs.first(std::min<size_t>(roofs.size(), 7)))
    marks[n_marks++] = critical_intensity(peak, roof.bw);
  const std::vector<double> xs = plot_intensities(marks, n_marks);
  const double ridge = critical_intensity(peak, roofs[0].bw);
  Out& out = r.member("plot");
  put(out, "{\"peak\":", peak);
  put(out, ",\"bw\":", roofs[0].bw);
  put(out, ",\"ridge\":", ridge);
  put_point(out, ",\"point\":", intensity, flops_per_s);
  put(out, ",\"fraction_of_peak\":", fraction_of_peak(flops_per_s, peak));
  put_point(out, ",\"ridge_point\":", ridge, attainable_flops_per_s(ridge, peak, roofs[0].bw));
  put(out, ",\"intensity\":", xs);
  out << ",\"roofs\":[";
  std::vector<double> ys(xs.size());
  for (size_t k = 0; k < roofs.size(); ++k) {
    for (size_t i = 0; i < xs.size(); ++i) ys[i] = attainable_flops_per_s(xs[i], peak, roofs[k].bw);
    put(out, k ? ",{\"name\":" : "{\"name\":", roofs[k].name);
    put(out, ",\"bw\":", roofs[k].bw);
    put(out, ",\"ridge\":", critical_intensity(peak, roofs[k].bw));
    put(out, ",\"flops_per_s\":", ys);
    out << '}';
  }
  out << ']';
  if (!memory.empty()) put(out, ",\"memory\":", memory);
  if (full_peak > 0) put(out, ",\"full_peak\":", full_peak);
  out << '}';
}

// Text built in a buffer (cleared first), for labels and notes: no std::string temporaries, each
// of which costs module size. The view lasts until `out` is used again.
[[gnu::noinline]] Text joined(Out& out, std::initializer_list<Text> parts) {
  out.clear();
  for (Text p : parts) out << p;
  return out.view();
}
Text joined(Out& out, Text a, Text b) { return joined(out, {a, b}); }
[[gnu::noinline]] void put_number(Out& out, double v) {
  out.commit(units::write_number(out.room(units::kNumberRoom), v));
}
// A number as text for joined(): Number(240.2).text.
struct Number {
  char buf[units::kNumberRoom];
  Text text;
  explicit Number(double v) : text(buf, units::write_number(buf, v)) {}
};

// roofline.matmul, step by step: the setting, the time model, the critical batch, the result.
struct MatmulSetting {
  const hw::Chip* chip = nullptr;
  Text dtype_compute, memory;  // memory: "HBM" or "VMEM"
  double peak = 0, bw = 0;
  OperandBytes bytes;
  MatmulShape shape;
  bool per_example = false;
};

MatmulSetting matmul_setting(const Inputs& in) {
  MatmulSetting m;
  m.chip = &hw::chip(in.text("chip"));
  m.dtype_compute = in.text("dtype_compute");
  m.peak = m.chip->peak(m.dtype_compute, "dtype_compute");
  m.bw = need_level(*m.chip, in.text("memory") == "vmem" ? Level::Vmem : Level::Hbm, "memory").bw;
  m.memory = in.text("memory") == "vmem" ? "VMEM" : "HBM";
  m.bytes = {hw::dtype_bytes(in.text("dtype_x"), "dtype_x"),
             hw::dtype_bytes(in.text("dtype_w"), "dtype_w"),
             hw::dtype_bytes(in.text("dtype_o"), "dtype_o")};
  m.shape = {in.num("B"), in.num("D"), in.num("F")};
  m.per_example = in.text("per_example_weights") == "yes";
  return m;
}

struct MatmulTimes {
  MatmulCost cost;
  double intensity = 0, i_hw = 0, t_math = 0, t_comms = 0, t_lower = 0, t_upper = 0;
  double achieved = 0;
  Bound bound = Bound::Comms;
};

// A.1-A.3: FLOPs, bytes, intensity against the ridge, and the time bounds, each a trace step.
MatmulTimes matmul_times(const MatmulSetting& m, Trace& tr) {
  const MatmulShape& s = m.shape;
  const OperandBytes& b = m.bytes;
  MatmulTimes t;
  t.cost = matmul_cost(s, b, m.per_example);
  const MatmulCost& c = t.cost;
  tr.step("FLOPs of the matmul (a multiply and an add per (b, d, f))", kMatmulFlops,
          {s.B, s.D, s.F});
  tr.step(m.per_example ? "Bytes moved: read X and one W[D,F] per batch row, write Z"
                        : "Bytes moved: read X and W, write Z",
          m.per_example ? kMatmulBytesPerExample : kMatmulBytes, {s.B, s.D, s.F, b.x, b.w, b.o});
  t.intensity = tr.step("Arithmetic intensity", kIntensity, {c.flops, c.bytes()});
  Out what;
  t.i_hw = tr.step(joined(what, {"Critical intensity of the ", m.chip->name, " (", m.dtype_compute,
                                 " vs ", m.memory, ")"}),
                   kCriticalIntensity, {m.peak, m.bw});
  t.t_math = tr.step("Compute time", kTMath, {c.flops, m.peak});
  t.t_comms = tr.step("Memory time", kTComms, {c.bytes(), m.bw});
  t.t_lower = tr.step("Lower bound (full overlap)", kTLower, {t.t_math, t.t_comms});
  t.t_upper = tr.step("Upper bound (no overlap)", kTUpper, {t.t_math, t.t_comms});
  t.bound = verdict(t.t_math, t.t_comms);
  return t;
}

struct CriticalBatch {
  std::optional<double> approx, exact;  // none: no such batch (the result leaves it out)
  Text note;                            // why there is none, in words
};

// A.4: the batch above which the matmul is compute-bound, approximate and exact.
CriticalBatch matmul_critical_batch(const MatmulSetting& m, const MatmulTimes& t, Trace& tr) {
  const MatmulShape& s = m.shape;
  const OperandBytes& b = m.bytes;
  CriticalBatch cb;
  if (m.per_example) {
    // B cancels: I = 2DF / (b_x D + b_w DF + b_o F) whatever the batch.
    cb.note = t.intensity > t.i_hw
                  ? "With a weight matrix per batch row the intensity does not depend on B; "
                    "this shape is compute-bound at every batch size."
                  : "With a weight matrix per batch row the intensity does not depend on B; "
                    "no batch size reaches the roof.";
    tr.note(cb.note);
    return cb;
  }
  cb.approx = tr.step("Critical batch, weight-dominated approximation", kCriticalBatchApprox,
                      {b.w, t.i_hw});
  if (critical_batch_exact(s.D, s.F, b, t.i_hw)) {
    cb.exact = tr.step("Critical batch, exact crossover", kCriticalBatchExact,
                       {s.D, s.F, b.x, b.w, b.o, t.i_hw});
  } else {
    cb.note =
        "Never: reading X and writing Z alone take longer than the arithmetic at this D and "
        "F, so no batch size makes the matmul compute-bound.";
    tr.note(
        "Critical batch, exact crossover: the denominator $2DF / I_{hw} - b_x D - b_o F$ is "
        "not positive, so there is none.");
  }
  return cb;
}

void matmul_calc(const Inputs& in, Trace& tr, Result& r) {
  const MatmulSetting m = matmul_setting(in);
  const MatmulTimes t = matmul_times(m, tr);
  const bool compute = t.bound == Bound::Compute;
  Out verdict_text, line;
  joined(verdict_text, {compute ? "compute-bound" : "memory-bound (", compute ? "" : m.memory,
                        compute ? "" : ")"});
  tr.note(joined(line, {"$I = ", Number(t.intensity).text, compute ? " > " : " \\leq ",
                        "I_{hw} = ", Number(t.i_hw).text, "$: ", verdict_text.view(), "."}));
  const double achieved =
      tr.step("Achieved FLOPs/s", kAchieved, {t.cost.flops, t.t_math, t.t_comms});
  const CriticalBatch cb = matmul_critical_batch(m, t, tr);

  r.value("flops", t.cost.flops, "flop", "FLOPs");
  r.value("bytes", t.cost.bytes(), "B", "bytes moved");
  r.value("bytes_x", t.cost.bytes_x, "B", "bytes of X");
  r.value("bytes_w", t.cost.bytes_w, "B", "bytes of W");
  r.value("bytes_o", t.cost.bytes_o, "B", "bytes of Z");
  r.value("intensity", t.intensity, "flop_per_B", "arithmetic intensity");
  r.value("i_crit", t.i_hw, "flop_per_B", "critical intensity");
  r.value("peak", m.peak, "flop_per_s", joined(line, {"peak (", m.dtype_compute, ")"}));
  r.value("bw", m.bw, "B_per_s", joined(line, m.memory, " bandwidth"));
  r.value("t_math", t.t_math, "s", "T_math");
  r.value("t_comms", t.t_comms, "s", "T_comms");
  r.value("t_lower", t.t_lower, "s", "T_lower (full overlap)");
  r.value("t_upper", t.t_upper, "s", "T_upper (no overlap)");
  if (cb.approx) r.value("b_crit_approx", *cb.approx, "tokens", "critical batch (approx.)");
  if (cb.exact) r.value("b_crit_exact", *cb.exact, "tokens", "critical batch (exact)");
  r.value("achieved_flops_per_s", achieved, "flop_per_s", "achieved FLOPs/s");
  r.value("fraction_of_peak", fraction_of_peak(achieved, m.peak), "ratio", "fraction of peak");
  if (!cb.note.empty()) r.note(cb.note);
  // The roofs the page draws: the chosen memory level, then the other one when the chip has it.
  const hw::Chip& c = *m.chip;
  Roof roofs[2] = {{m.memory, m.bw}};
  size_t n_roofs = 1;
  if (m.memory == "VMEM") roofs[n_roofs++] = {"HBM", c.get("hbm_bw", "chip")};
  if (m.memory == "HBM" && c.has("vmem_bw"))
    roofs[n_roofs++] = {"VMEM", c.get("vmem_bw", "memory")};
  put(r.member("verdict"), "", verdict_text.view());
  roofline_plot(r, m.peak, std::span<const Roof>(roofs, n_roofs), t.intensity, achieved, m.memory);
}

void network_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& c = hw::chip(in.text("chip"));
  const double peak = c.peak("bf16", "chip");
  const LevelBw lv = need_level(c, parse_level(in.text("link"), "link"), "link");
  const Text link_name = lv.name == "ICI" ? Text("ICI (one way)") : Text(lv.name);
  const double bw = lv.bw;
  if (!lv.note.empty()) r.note(lv.note);
  const MatmulShape s{in.num("B"), in.num("D"), in.num("F")};
  tr.note(
      "X: bf16[B, D] and Y: bf16[D, F] are split along D over 2 chips; each chip multiplies "
      "its halves and the two swap bf16[B, F] partial sums over a full-duplex link.");
  const double tm = tr.step(
      "Per-chip compute time",
      "T_{math} = \\frac{2 B (D/2) F}{\\mathrm{peak}} = \\frac{BDF}{\\mathrm{peak}}",
      "\\frac{# \\cdot # \\cdot #}{#}", {s.B, s.D, s.F, peak}, network_t_math(s, peak), "s");
  const double tc = tr.step("Per-chip link time (send one partial sum, one way)",
                            "T_{comms} = \\frac{2BF}{BW_{link}}", "\\frac{# \\cdot # \\cdot #}{#}",
                            {2, s.B, s.F, bw}, network_t_comms(s, bw), "s");
  const double I = tr.step("Per-chip intensity (B cancels)", "I = \\frac{BDF}{2BF} = D/2", "# / 2",
                           {s.D}, network_intensity(s.D), "flop_per_B");
  const double i_link =
      tr.step("Critical intensity of the link", "I_{link} = \\mathrm{peak} / BW_{link}",
              "\\frac{#}{#}", {peak, bw}, critical_intensity(peak, bw), "flop_per_B");
  const double d_crit =
      tr.step("Smallest D that is compute-bound over the link",
              "D_{crit} = 2 \\, \\mathrm{peak} / BW_{link}", "\\frac{# \\cdot #}{#}", {2, peak, bw},
              network_d_crit(peak, bw), "count");
  const double lo = t_lower(tm, tc), hi = t_upper(tm, tc);
  const Bound bound = verdict(tm, tc);
  const bool compute = bound == Bound::Compute;
  Out verdict_text, line;
  joined(verdict_text, {compute ? "compute-bound" : "communication-bound (",
                        compute ? "" : link_name, compute ? "" : ")"});
  tr.note(joined(line, {"$D/2 = ", Number(I).text, compute ? " > " : " \\leq ",
                        "I_{link} = ", Number(i_link).text, "$: ", verdict_text.view(), "."}));
  r.value("t_math", tm, "s", "per-chip T_math");
  r.value("t_comms", tc, "s", "per-chip T_comms");
  r.value("t_lower", lo, "s", "T_lower (full overlap)");
  r.value("t_upper", hi, "s", "T_upper (no overlap)");
  r.value("intensity", I, "flop_per_B", "per-chip intensity D/2");
  r.value("i_crit_link", i_link, "flop_per_B", "link critical intensity");
  r.value("d_crit", d_crit, "count", "D above which it is compute-bound");
  r.value("peak", peak, "flop_per_s", "peak (bf16)");
  r.value("bw", bw, "B_per_s", joined(line, link_name, " bandwidth"));
  const Roof link[] = {{link_name, bw}};
  put(r.member("verdict"), "", verdict_text.view());
  roofline_plot(r, peak, link, I, achieved_flops_per_s(network_flops_per_chip(s), tm, tc));
}

void tiled_calc(const Inputs& in, Trace& tr, Result& r) {
  const Tiling t{in.num("m"), in.num("k"), in.num("n"), in.num("bm"), in.num("bk"), in.num("bn")};
  // A tile larger than the matrix is a typo, not a tiling.
  Out key, line;
  const auto fits = [&](double tile, double dim, Text name, Text dim_name) {
    if (tile > dim)
      fail(name,
           std::string(
               joined(line, {name, " must not exceed ", dim_name, " (", Number(dim).text, ")"})),
           "out_of_range");
  };
  fits(t.bm, t.m, "bm", "m");
  fits(t.bk, t.k, "bk", "k");
  fits(t.bn, t.n, "bn", "n");
  const Text dt = in.text("dtype");
  const double eb = hw::dtype_bytes(dt, "dtype");
  const double tm = tiles(t.m, t.bm), tk = tiles(t.k, t.bk), tn = tiles(t.n, t.bn);
  tr.step("Tile counts",
          "t_m = \\lceil m / b_m \\rceil,\\ t_k = \\lceil k / b_k \\rceil,\\ t_n = \\lceil n / b_n "
          "\\rceil",
          "#,\\ #,\\ #", {tm, tk, tn}, tm * tk * tn, "count");
  const bool padded = tm * t.bm != t.m || tk * t.bk != t.k || tn * t.bn != t.n;
  constexpr Text kPadded =
      "A dimension is not a multiple of its tile: the last tile is padded, and "
      "the counts include the padding.";
  if (padded) tr.note(kPadded);
  const double fl = tr.step("FLOPs", "2\\, t_m t_n t_k\\, b_m b_n b_k",
                            "# \\cdot # \\cdot # \\cdot # \\cdot # \\cdot # \\cdot #",
                            {2, tm, tn, tk, t.bm, t.bn, t.bk}, tiled_flops(t), "flop");
  const double by =
      tr.step("Bytes: each output tile streams its X and W strips and is written once",
              "b\\, t_m t_n \\left(t_k (b_m b_k + b_k b_n) + b_m b_n\\right)",
              "# \\cdot # \\cdot # \\left(# (# \\cdot # + # \\cdot #) + # \\cdot #\\right)",
              {eb, tm, tn, tk, t.bm, t.bk, t.bk, t.bn, t.bm, t.bn}, tiled_bytes(t, eb), "B");
  const double I = tr.step("Intensity", "I = \\mathrm{FLOPs} / \\mathrm{bytes}", "\\frac{#}{#}",
                           {fl, by}, tiled_intensity(t, eb), "flop_per_B");
  const double Ia =
      tr.step("Intensity without the output write",
              "I \\approx \\frac{2}{b} \\cdot \\frac{b_m b_n}{b_m + b_n}",
              "\\frac{2}{#} \\cdot \\frac{# \\cdot #}{# + #}", {eb, t.bm, t.bn, t.bm, t.bn},
              tiled_intensity_approx(t.bm, t.bn, eb), "flop_per_B");
  r.value("tiles", tm * tk * tn, "count", "tiles t_m t_k t_n");
  r.value("flops", fl, "flop", "FLOPs");
  r.value("bytes", by, "B", "bytes moved");
  r.value("intensity", I, "flop_per_B", "intensity");
  r.value("intensity_approx", Ia, "flop_per_B", "intensity, output write neglected");
  if (padded) r.note(kPadded);
  // Against the chip's HBM ridge, when the tables have a peak for this dtype.
  const hw::Chip& c = hw::chip(in.text("chip"));
  if (c.has(joined(key, "peak_flops_", dt)) && c.has("hbm_bw")) {
    const double peak = c.get(key.view()), bw = c.get("hbm_bw");
    const double i_hw = tr.step(joined(line, {"Critical intensity (", dt, " vs HBM)"}),
                                "I_{hw} = \\mathrm{peak} / BW_{HBM}", "\\frac{#}{#}", {peak, bw},
                                critical_intensity(peak, bw), "flop_per_B");
    r.value("i_crit", i_hw, "flop_per_B", "critical intensity");
    const Text verdict = I > i_hw
                             ? "compute-bound: the tiles are large enough"
                             : "memory-bound: the tile shape caps the intensity below the ridge";
    put(r.member("verdict"), "", verdict);
    tr.note(verdict);
  } else {
    r.note(joined(line, {c.name, " has no ", dt, " peak in the tables: no verdict."}));
  }
}

// A chip's VPU rate: every core's, fp32 (the tables give it per TensorCore); 0 if they give none.
double vpu_peak(const hw::Chip& c) {
  if (!c.has("vpu_flops_per_core")) return 0;
  return c.get("vpu_flops_per_core") * (c.has("cores_per_chip") ? c.get("cores_per_chip") : 1);
}

void dot_calc(const Inputs& in, Trace& tr, Result& r) {
  const double N = in.num("N");
  const double eb = hw::dtype_bytes(in.text("dtype"), "dtype");
  const double fl = tr.step("FLOPs: N multiplies and N - 1 adds", "2N - 1", "2 \\cdot # - 1", {N},
                            dot_flops(N), "flop");
  const double by = tr.step("Bytes: read both vectors, write the scalar", "2bN + b",
                            "# \\cdot # \\cdot # + #", {2, eb, N, eb}, dot_bytes(N, eb), "B");
  const double I = tr.step("Intensity", "I = \\frac{2N - 1}{2bN + b}", "\\frac{#}{#}", {fl, by},
                           dot_intensity(N, eb), "flop_per_B");
  const double lim = tr.step("Large-N limit", "\\lim_{N\\to\\infty} I = 1/b", "1 / #", {eb},
                             dot_intensity_limit(eb), "flop_per_B");
  const hw::Chip& c = hw::chip(in.text("chip"));
  const double peak = c.peak("bf16", "chip"), bw = c.get("hbm_bw", "chip");
  const double i_hw = tr.step("MXU critical intensity (bf16 vs HBM), for comparison",
                              "I_{hw} = \\mathrm{peak} / BW_{HBM}", "\\frac{#}{#}", {peak, bw},
                              critical_intensity(peak, bw), "flop_per_B");
  r.value("flops", fl, "flop", "FLOPs");
  r.value("bytes", by, "B", "bytes moved");
  r.value("intensity", I, "flop_per_B", "intensity");
  r.value("intensity_limit", lim, "flop_per_B", "large-N intensity");
  r.value("i_crit", i_hw, "flop_per_B", "MXU critical intensity");
  r.value("t_comms", t_comms(by, bw), "s", "HBM time");
  // A dot product runs on the VPU. Pair like with like: every core's VPU against the chip's HBM.
  double ridge = i_hw;
  if (const double vpu = vpu_peak(c); vpu > 0) {
    ridge = tr.step("VPU critical intensity (all cores vs HBM)",
                    "I_{VPU} = \\mathrm{VPU}_{chip} / BW_{HBM}", "\\frac{#}{#}", {vpu, bw},
                    critical_intensity(vpu, bw), "flop_per_B");
    r.value("i_crit_vpu", ridge, "flop_per_B", "VPU critical intensity");
  }
  const Text verdict_text = I > ridge ? "compute-bound" : "memory-bound (HBM)";
  Out line;
  tr.note(joined(line, {"The intensity never exceeds 1/b whatever N is, so batching cannot make a "
                        "dot product compute-bound: ",
                        verdict_text, "."}));
  put(r.member("verdict"), "", verdict_text);
}

// The next word of a list separated by commas or spaces ("hbm, vmem ici"); false at the end.
bool next_word(Text& rest, Text& word) {
  const size_t b = rest.find_first_not_of(", ");
  if (b == Text::npos) return false;
  const size_t e = std::min(rest.find_first_of(", ", b), rest.size());
  word = rest.substr(b, e - b);
  rest.remove_prefix(e);
  return true;
}

// roofline.roofs: the chapter's figure. One operation against several roofs of one chip, with
// the flat roof at the compute unit's peak (MXU or VPU) times the MFU cap.
void roofs_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& c = hw::chip(in.text("chip"));
  const bool vpu = in.text("unit") == "vpu";
  const double peak = vpu ? vpu_peak(c) : c.peak(in.text("dtype"), "dtype");
  Out line;
  if (!(peak > 0))
    fail("unit", std::string(joined(line, {"The book gives no VPU rate for the ", c.name, "."})),
         "no_figure");
  const double mfu = in.num("mfu");
  const double top =
      tr.step("Flat roof: the share of the peak reached", "\\mathrm{MFU} \\cdot \\mathrm{peak}",
              "# \\cdot #", {mfu, peak}, capped_peak(peak, mfu), "flop_per_s");
  const double flops = in.num("flops"), typed = in.num("intensity");
  if (typed > 0 && typed < 1e-3)
    fail("intensity", "intensity: 0 takes FLOPs / bytes; an intensity typed is at least 0.001",
         "out_of_range");
  const double bytes = typed > 0 ? tr.step("Bytes at the typed intensity", "\\mathrm{FLOPs} / I",
                                           "\\frac{#}{#}", {flops, typed}, flops / typed, "B")
                                 : in.num("bytes");
  const double I = typed > 0
                       ? typed
                       : tr.step("Intensity of the operation",
                                 "I = \\mathrm{FLOPs} / \\mathrm{bytes}", "\\frac{#}{#}",
                                 {flops, bytes}, arithmetic_intensity(flops, bytes), "flop_per_B");
  const double tm = tr.step("Compute time", "T_{math} = \\mathrm{FLOPs} / \\mathrm{roof}",
                            "\\frac{#}{#}", {flops, top}, t_math(flops, top), "s");
  r.value("intensity", I, "flop_per_B", "intensity of the operation");
  r.value("peak", top, "flop_per_s", "flat roof");
  r.value("t_math", tm, "s", "T_math");
  constexpr Text kKeys[] = {"vmem", "hbm", "ici", "pcie", "dcn"};
  LevelBw lv[5];
  Roof roofs[5];
  size_t n = 0, count = 0;
  bool seen[5] = {};
  Out label, key, above, below;  // the roofs whose ridge the operation passes, and the others
  Text rest = in.text("levels"), w;
  while (next_word(rest, w)) {
    if (++count > 5)
      fail("levels", "levels: at most 5 of hbm, vmem, ici, pcie, dcn", "out_of_range");
    const int k = static_cast<int>(parse_level(w, "levels"));
    if (seen[k]) continue;
    seen[k] = true;
    lv[n] = level_bw(c, static_cast<Level>(k));
    if (!lv[n].note.empty()) r.note(lv[n].note);
    if (!(lv[n].bw > 0)) continue;
    const Text name = lv[n].name;
    const double bw = lv[n].bw;
    roofs[n] = {name, bw};
    const double ridge =
        tr.step(joined(label, name, " ridge"), "I_{hw} = \\mathrm{roof} / BW", "\\frac{#}{#}",
                {top, bw}, critical_intensity(top, bw), "flop_per_B");
    r.value(joined(key, kKeys[k], "_ridge"), ridge, "flop_per_B", label.view());
    const double t = tr.step(joined(label, name, " time"), "T = \\mathrm{bytes} / BW",
                             "\\frac{#}{#}", {bytes, bw}, t_comms(bytes, bw), "s");
    r.value(joined(key, kKeys[k], "_time"), t, "s", label.view());
    Out& list = verdict(tm, t) == Bound::Compute ? above : below;
    list << (list.empty() ? "" : ", ") << name;
    ++n;
  }
  if (n == 0)
    fail("levels",
         std::string(joined(line, {"None of these levels has a figure for the ", c.name, "."})),
         "no_figure");
  Out& v = label;
  v.clear();
  if (!above.empty()) v << "compute-bound against " << above.view();
  if (!above.empty() && !below.empty()) v << "; ";
  if (!below.empty()) v << "bandwidth-bound on " << below.view();
  put(r.member("verdict"), "", v.view());
  roofline_plot(r, top, std::span<const Roof>(roofs, n), I,
                achieved_flops_per_s(flops, tm, t_comms(bytes, roofs[0].bw)), {},
                mfu < 1 ? peak : 0);
}

// roofline.batch: achieved FLOPs/s against the batch for several (D, F), each with the batch where
// the matmul turns compute-bound.
void batch_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& c = hw::chip(in.text("chip"));
  const double peak = c.peak(in.text("dtype_compute"), "dtype_compute");
  const double bw =
      need_level(c, in.text("memory") == "vmem" ? Level::Vmem : Level::Hbm, "memory").bw;
  const double eb = hw::dtype_bytes(in.text("dtype"), "dtype");
  const OperandBytes ob{eb, eb, eb};
  const double i_hw = tr.step("Critical intensity", "I_{hw} = \\mathrm{peak} / BW", "\\frac{#}{#}",
                              {peak, bw}, critical_intensity(peak, bw), "flop_per_B");
  const double b_max = in.num("b_max");
  MatmulShape shapes[6];
  std::optional<double> crit[6];
  double marks[6];
  size_t n = 0, n_marks = 0;
  Out label, key, dxf;
  Text rest = in.text("shapes"), w;
  while (next_word(rest, w)) {
    if (n == 6) fail("shapes", "shapes: at most 6 pairs D x F", "out_of_range");
    const size_t x = w.find_first_of("xX*");
    MatmulShape& s = shapes[n];
    s.D = units::parse(w.substr(0, x), "count", "shapes");
    s.F = x == Text::npos ? 0 : units::parse(w.substr(x + 1), "count", "shapes");
    if (!(s.D >= 1 && s.D <= kMaxDim && s.F >= 1 && s.F <= kMaxDim) || std::floor(s.D) != s.D ||
        std::floor(s.F) != s.F)
      fail("shapes", "shapes: each is D x F, two whole numbers from 1 to 1e7, like 8192x32768",
           "out_of_range");
    dxf.clear();
    put_number(dxf, s.D);
    dxf << " x ";
    put_number(dxf, s.F);
    crit[n] = critical_batch_exact(s.D, s.F, ob, i_hw);
    if (crit[n]) {
      tr.step(joined(label, "Critical batch, ", dxf.view()),
              "B_{crit} = \\frac{b DF}{2DF / I_{hw} - b D - b F}",
              "\\frac{# \\cdot # \\cdot #}{2 \\cdot # \\cdot # / # - # \\cdot # - # \\cdot #}",
              {eb, s.D, s.F, s.D, s.F, i_hw, eb, s.D, eb, s.F}, *crit[n], "tokens");
      key.clear();
      key << "b_crit_" << static_cast<char>('1' + n);
      r.value(key.view(), *crit[n], "tokens", joined(label, "critical batch, ", dxf.view()));
      if (*crit[n] <= b_max) marks[n_marks++] = *crit[n];
    } else {
      r.note(joined(label, dxf.view(),
                    ": never compute-bound. Reading X and writing Z alone take longer than the "
                    "arithmetic, whatever the batch."));
    }
    ++n;
  }
  if (n == 0) fail("shapes", "shapes: give at least one D x F, like 8192x32768", "bad_input");
  const std::vector<double> bs = log_grid(1, b_max, marks, n_marks);
  Out& out = r.member("plot");
  put(out, "{\"peak\":", peak);
  put(out, ",\"batch\":", bs);
  out << ",\"curves\":[";
  std::vector<double> ys(bs.size());
  for (size_t k = 0; k < n; ++k) {
    for (size_t i = 0; i < bs.size(); ++i) {
      const MatmulCost m = matmul_cost({bs[i], shapes[k].D, shapes[k].F}, ob);
      ys[i] = achieved_flops_per_s(m.flops, t_math(m.flops, peak), t_comms(m.bytes(), bw));
    }
    put(out, k ? ",{\"d\":" : "{\"d\":", shapes[k].D);
    put(out, ",\"f\":", shapes[k].F);
    if (crit[k]) put(out, ",\"b_crit\":", *crit[k]);
    put(out, ",\"flops_per_s\":", ys);
    out << '}';
  }
  out << "]}";
  r.value("i_crit", i_hw, "flop_per_B", "critical intensity");
  r.value("peak", peak, "flop_per_s", "peak");
}

// A tensor dimension: a whole number from 1 up to max.
constexpr Param size(Text name, Text unit, double def, Text doc, double max) {
  return num(name, unit, def, doc, 1, max, true);
}

constexpr Param kMatmulParams[] = {
    chip_param("v5e"),
    dtype_param("dtype_x", "bf16", "element type of the activations X"),
    dtype_param("dtype_w", "bf16", "element type of the weights W"),
    dtype_param("dtype_o", "bf16", "element type of the output Z as written back"),
    choice("dtype_compute", "bf16", kComputeDtypes,
           "type the arithmetic runs in: it picks the chip's peak"),
    size("B", "tokens", 512, "batch: tokens per replica", kMaxTokens),
    size("D", "count", 8192, "contracted dimension", kMaxDim),
    size("F", "count", 32768, "output dimension", kMaxDim),
    choice("per_example_weights", "no", "no|yes",
           "yes: a separate W[D,F] for every batch row (weights [B,D,F])"),
    choice("memory", "hbm", "hbm|vmem", "where the operands stream from")};
constexpr Param kNetworkParams[] = {
    chip_param("v5e"),
    choice("link", "ici", "ici|pcie|dcn",
           "link between the chips, one way: ICI (NVLink on a GPU), PCIe, or DCN per chip (a "
           "GPU's scale-out network)"),
    size("B", "tokens", 512, "batch tokens", kMaxTokens),
    size("D", "count", 8192, "contracted dimension, split over the two chips", kMaxDim),
    size("F", "count", 32768, "output dimension", kMaxDim)};
constexpr Param kTiledParams[] = {
    size("m", "count", 8192, "rows of the left operand", kMaxDim),
    size("k", "count", 8192, "contracted dimension", kMaxDim),
    size("n", "count", 8192, "columns of the right operand", kMaxDim),
    size("bm", "count", 512, "tile rows", kMaxDim),
    size("bk", "count", 512, "tile depth", kMaxDim),
    size("bn", "count", 512, "tile columns", kMaxDim),
    dtype_param("dtype", "bf16", "element type of all three operands"),
    chip_param("v5e", "chip whose HBM ridge the tiling is compared with")};
constexpr Param kDotParams[] = {
    size("N", "count", 1024, "vector length", 1e15),
    dtype_param("dtype", "bf16", "element type of the vectors"),
    chip_param("v5e", "chip whose ridge the dot product is compared with")};

// A number where 0 means "take it from elsewhere".
constexpr Param zero_ok(Param p) {
  p.positive = false;
  return p;
}

constexpr Param kRoofsParams[] = {
    chip_param("v5e"),
    choice("unit", "mxu", "mxu|vpu",
           "compute unit: the MXU (matmuls, at the dtype's peak) or the VPU (elementwise, fp32)"),
    choice("dtype", "bf16", kComputeDtypes, "type the MXU's arithmetic runs in"),
    num("mfu", "ratio", 1,
        "share of the peak reached (MFU cap): 1, about 0.95 on a TPU, 0.8 on a GPU", 0.01, 1),
    text("levels", "hbm, vmem, ici, pcie, dcn",
         "roofs to draw, from hbm, vmem, ici, pcie, dcn (ICI is NVLink on a GPU)"),
    zero_ok(num("intensity", "flop_per_B", 0,
                "the operation's intensity: 0 = FLOPs / bytes, else 0.001 to 1e9", 0, 1e9)),
    num("flops", "flop", 2.75e11,
        "the operation's FLOPs (the default: about a bf16 matmul of B = 512, D = 8192, F = 32768)",
        1, 1e25),
    num("bytes", "B", 5.79e8, "bytes it moves (when no intensity is typed)", 1, 1e25)};
constexpr Param kBatchParams[] = {
    chip_param("v5e"),
    choice("dtype_compute", "bf16", kComputeDtypes,
           "type the arithmetic runs in: it picks the chip's peak"),
    dtype_param("dtype", "bf16", "element type of X, W and Z"),
    choice("memory", "hbm", "hbm|vmem", "where the operands stream from"),
    text("shapes", "8192x32768, 1024x1024, 512x512",
         "(D, F) pairs to compare, like 8192x32768, 1024x4096 (at most 6)"),
    num("b_max", "tokens", 16384, "largest batch drawn", 2, kMaxTokens, true)};

constexpr Calculator kCalculators[] = {
    Calculator{.name = "roofline.matmul",
               .title = "Matmul roofline",
               .doc = "X[B,D] . W[D,F] -> Z[B,F]: FLOPs, bytes, intensity, time bounds and the "
                      "critical batch "
                      "against HBM or VMEM, with a dtype per operand.",
               .params = kMatmulParams,
               .run = matmul_calc},
    Calculator{.name = "roofline.network",
               .title = "Two-chip network roofline",
               .doc = "A bf16 matmul split along D over two chips that swap partial sums over a "
                      "link: per-chip "
                      "T_math, T_comms, intensity D/2 and the D above which it is compute-bound.",
               .params = kNetworkParams,
               .run = network_calc},
    Calculator{.name = "roofline.tiled",
               .title = "Tiled matmul intensity",
               .doc = "(m,k) . (k,n) executed in bm x bk x bn tiles: FLOPs, bytes streamed, and "
                      "the intensity "
                      "the tile shape allows.",
               .params = kTiledParams,
               .run = tiled_calc},
    Calculator{.name = "roofline.roofs",
               .title = "The roofline figure",
               .doc =
                   "One operation, given by its intensity or by FLOPs and bytes, against several "
                   "roofs of a chip at once (HBM, VMEM, ICI, PCIe, DCN), with the MXU or the "
                   "VPU as the compute unit and an MFU cap on the flat roof.",
               .params = kRoofsParams,
               .run = roofs_calc},
    Calculator{.name = "roofline.batch",
               .title = "Achieved FLOPs/s against batch",
               .doc = "X[B,D] . W[D,F] for several (D, F): the FLOPs/s reached at each batch B and "
                      "the critical batch where each turns compute-bound.",
               .params = kBatchParams,
               .run = batch_calc},
    Calculator{
        .name = "roofline.dot",
        .title = "Dot-product intensity",
        .doc = "x[N] . y[N] -> scalar: FLOPs, bytes and an intensity that never exceeds 1/b.",
        .params = kDotParams,
        .run = dot_calc}};

}  // namespace

void add_calculators(Registry& r) { r.add(kCalculators); }

}  // namespace sb::roofline
