// The roofline chapter's calculators: matmul roofline against HBM or VMEM, the two-chip network
// roofline, the tiled matmul and the dot product. Chip figures come from sb::hw; the arithmetic
// is all in model.hpp. Each step of the derivation goes to the Trace.
#include <cmath>
#include <initializer_list>
#include <string>

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

// Bandwidth of the memory level a matmul streams from: HBM, or VMEM (about 22x HBM on TPUs).
double memory_bw(const hw::Chip& c, const std::string& memory) {
  if (memory == "vmem") {
    if (!c.has("vmem_bw"))
      fail("memory", c.name + " has no VMEM bandwidth in the tables; choose hbm", "no_spec");
    return c.get("vmem_bw", "memory");
  }
  return c.get("hbm_bw", "chip");
}

// What the page's roofline plot draws: the roof, its ridge and the operation as a point.
json roofline_plot(double peak, double bw, double ridge, double intensity, double flops_per_s) {
  json point = json::object();
  point["intensity"] = intensity;
  point["flops_per_s"] = flops_per_s;
  json plot = json::object();
  plot["peak"] = peak;
  plot["bw"] = bw;
  plot["ridge"] = ridge;
  plot["point"] = std::move(point);
  return plot;
}

void matmul_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& c = hw::chip(in.text("chip"));
  const std::string dt_c = in.text("dtype_compute");
  const double peak = c.peak(dt_c, "dtype_compute");
  const std::string memory = in.text("memory");
  const double bw = memory_bw(c, memory);
  const std::string mem_name = memory == "vmem" ? "VMEM" : "HBM";
  const OperandBytes b{hw::dtype_bytes(in.text("dtype_x"), "dtype_x"),
                       hw::dtype_bytes(in.text("dtype_w"), "dtype_w"),
                       hw::dtype_bytes(in.text("dtype_o"), "dtype_o")};
  const MatmulShape s{in.num("B"), in.num("D"), in.num("F")};
  const bool per_example = in.text("per_example_weights") == "yes";

  const MatmulCost cost = matmul_cost(s, b, per_example);
  tr.step("FLOPs of the matmul (a multiply and an add per (b, d, f))", "2BDF",
          "# \\cdot # \\cdot # \\cdot #", {2, s.B, s.D, s.F}, cost.flops, "flop");
  if (per_example)
    tr.step("Bytes moved: read X and one W[D,F] per batch row, write Z",
            "b_x BD + b_w BDF + b_o BF",
            "# \\cdot # \\cdot # + # \\cdot # \\cdot # \\cdot # \\cdot # + # \\cdot # \\cdot #",
            {b.x, s.B, s.D, b.w, s.B, s.D, s.F, b.o, s.B, s.F}, cost.bytes(), "B");
  else
    tr.step("Bytes moved: read X and W, write Z", "b_x BD + b_w DF + b_o BF",
            "# \\cdot # \\cdot # + # \\cdot # \\cdot # + # \\cdot # \\cdot #",
            {b.x, s.B, s.D, b.w, s.D, s.F, b.o, s.B, s.F}, cost.bytes(), "B");
  const double I =
      tr.step("Arithmetic intensity", "I = \\mathrm{FLOPs} / \\mathrm{bytes}", "\\frac{#}{#}",
              {cost.flops, cost.bytes()}, cost.intensity(), "flop_per_B");
  const double i_hw =
      tr.step("Critical intensity of the " + c.name + " (" + dt_c + " vs " + mem_name + ")",
              "I_{hw} = \\mathrm{peak} / BW_{" + mem_name + "}", "\\frac{#}{#}", {peak, bw},
              critical_intensity(peak, bw), "flop_per_B");
  const double tm = tr.step("Compute time", "T_{math} = \\mathrm{FLOPs} / \\mathrm{peak}",
                            "\\frac{#}{#}", {cost.flops, peak}, t_math(cost.flops, peak), "s");
  const double tc = tr.step("Memory time", "T_{comms} = \\mathrm{bytes} / BW", "\\frac{#}{#}",
                            {cost.bytes(), bw}, t_comms(cost.bytes(), bw), "s");
  const double lo = tr.step("Lower bound (full overlap)", "T_{lower} = \\max(T_{math}, T_{comms})",
                            "\\max(#, #)", {tm, tc}, t_lower(tm, tc), "s");
  const double hi = tr.step("Upper bound (no overlap)", "T_{upper} = T_{math} + T_{comms}", "# + #",
                            {tm, tc}, t_upper(tm, tc), "s");
  const Bound bound = verdict(tm, tc);
  const std::string verdict_text =
      bound == Bound::Compute ? "compute-bound" : "memory-bound (" + mem_name + ")";
  tr.note(std::string("I = ") + units::number(I) + (bound == Bound::Compute ? " > " : " <= ") +
          "I_hw = " + units::number(i_hw) + ": " + verdict_text + ".");
  const double achieved =
      tr.step("Achieved FLOPs/s", "\\mathrm{FLOPs} / \\max(T_{math}, T_{comms})", "\\frac{#}{#}",
              {cost.flops, lo}, achieved_flops_per_s(cost.flops, tm, tc), "flop_per_s");

  Text note;
  double b_approx = NAN, b_exact = NAN;
  if (per_example) {
    // B cancels: I = 2DF / (b_x D + b_w DF + b_o F) whatever the batch.
    note = I > i_hw ? "With a weight matrix per batch row the intensity does not depend on B; "
                      "this shape is compute-bound at every batch size."
                    : "With a weight matrix per batch row the intensity does not depend on B; "
                      "no batch size reaches the roof.";
    tr.note(note);
  } else {
    b_approx = tr.step("Critical batch, weight-dominated approximation",
                       "B_{crit} \\approx b_w I_{hw} / 2", "\\frac{# \\cdot #}{2}", {b.w, i_hw},
                       critical_batch_approx(b.w, i_hw), "tokens");
    const auto ex = critical_batch_exact(s.D, s.F, b, i_hw);
    const Text f = "B_{crit} = \\frac{b_w DF}{2DF / I_{hw} - b_x D - b_o F}";
    const Text n = "\\frac{# \\cdot # \\cdot #}{2 \\cdot # \\cdot # / # - # \\cdot # - # \\cdot #}";
    const auto xs = {b.w, s.D, s.F, s.D, s.F, i_hw, b.x, s.D, b.o, s.F};
    if (ex) {
      b_exact = tr.step("Critical batch, exact crossover", f, n, xs, *ex, "tokens");
    } else {
      note =
          "Never: reading X and writing Z alone take longer than the arithmetic at this D and "
          "F, so no batch size makes the matmul compute-bound.";
      tr.step("Critical batch, exact crossover: the denominator is <= 0, so never", f, n, xs, NAN,
              "tokens");
    }
  }

  r.value("flops", cost.flops, "flop", "FLOPs");
  r.value("bytes", cost.bytes(), "B", "bytes moved");
  r.value("bytes_x", cost.bytes_x, "B", "bytes of X");
  r.value("bytes_w", cost.bytes_w, "B", "bytes of W");
  r.value("bytes_o", cost.bytes_o, "B", "bytes of Z");
  r.value("intensity", I, "flop_per_B", "arithmetic intensity");
  r.value("i_crit", i_hw, "flop_per_B", "critical intensity");
  r.value("peak", peak, "flop_per_s", "peak (" + dt_c + ")");
  r.value("bw", bw, "B_per_s", mem_name + " bandwidth");
  r.value("t_math", tm, "s", "T_math");
  r.value("t_comms", tc, "s", "T_comms");
  r.value("t_lower", lo, "s", "T_lower (full overlap)");
  r.value("t_upper", hi, "s", "T_upper (no overlap)");
  r.value("b_crit_approx", b_approx, "tokens", "critical batch (approx.)");
  r.value("b_crit_exact", b_exact, "tokens", "critical batch (exact)");
  r.value("achieved_flops_per_s", achieved, "flop_per_s", "achieved FLOPs/s");
  r.value("fraction_of_peak", achieved / peak, "ratio", "fraction of peak");
  if (!note.empty()) r.note(note);
  // The roofs the page draws: the chosen memory level plus the other one when the chip has it.
  json roofs = json::array();
  roofs.push_back({{"name", "HBM"}, {"bw", c.get("hbm_bw", "chip")}});
  if (c.has("vmem_bw")) roofs.push_back({{"name", "VMEM"}, {"bw", c.get("vmem_bw", "memory")}});
  json plot = roofline_plot(peak, bw, i_hw, I, achieved);
  plot["memory"] = mem_name;
  plot["roofs"] = std::move(roofs);
  r.extra["verdict"] = verdict_text;
  r.extra["plot"] = std::move(plot);
}

// The link a two-chip exchange crosses, and its key in the chip table.
double link_bw(const hw::Chip& c, const std::string& link, std::string& label) {
  if (link == "pcie") {
    label = "PCIe";
    return c.get("pcie_bw", "link");
  }
  if (link == "dcn") {
    label = "DCN";
    return c.get("dcn_bw", "link");
  }
  label = "ICI (one way)";
  return c.get("ici_bw_oneway", "link");
}

void network_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& c = hw::chip(in.text("chip"));
  const double peak = c.peak("bf16", "chip");
  std::string link_name;
  const double bw = link_bw(c, in.text("link"), link_name);
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
  const std::string verdict_text =
      bound == Bound::Compute ? "compute-bound" : "communication-bound (" + link_name + ")";
  tr.note("D/2 = " + units::number(I) + (bound == Bound::Compute ? " > " : " <= ") +
          "I_link = " + units::number(i_link) + ": " + verdict_text + ".");
  r.value("t_math", tm, "s", "per-chip T_math");
  r.value("t_comms", tc, "s", "per-chip T_comms");
  r.value("t_lower", lo, "s", "T_lower (full overlap)");
  r.value("t_upper", hi, "s", "T_upper (no overlap)");
  r.value("intensity", I, "flop_per_B", "per-chip intensity D/2");
  r.value("i_crit_link", i_link, "flop_per_B", "link critical intensity");
  r.value("d_crit", d_crit, "count", "D above which it is compute-bound");
  r.value("peak", peak, "flop_per_s", "peak (bf16)");
  r.value("bw", bw, "B_per_s", link_name + " bandwidth");
  json plot =
      roofline_plot(peak, bw, i_link, I, achieved_flops_per_s(network_flops_per_chip(s), tm, tc));
  r.extra["verdict"] = verdict_text;
  r.extra["plot"] = std::move(plot);
}

void tiled_calc(const Inputs& in, Trace& tr, Result& r) {
  const Tiling t{in.num("m"), in.num("k"), in.num("n"), in.num("bm"), in.num("bk"), in.num("bn")};
  // A tile larger than the matrix is a typo, not a tiling.
  if (t.bm > t.m) fail("bm", "bm must not exceed m (" + units::number(t.m) + ")", "out_of_range");
  if (t.bk > t.k) fail("bk", "bk must not exceed k (" + units::number(t.k) + ")", "out_of_range");
  if (t.bn > t.n) fail("bn", "bn must not exceed n (" + units::number(t.n) + ")", "out_of_range");
  const std::string dt = in.text("dtype");
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
  const std::string key = "peak_flops_" + dt;
  if (c.has(key) && c.has("hbm_bw")) {
    const double peak = c.get(key), bw = c.get("hbm_bw");
    const double i_hw =
        tr.step("Critical intensity (" + dt + " vs HBM)", "I_{hw} = \\mathrm{peak} / BW_{HBM}",
                "\\frac{#}{#}", {peak, bw}, critical_intensity(peak, bw), "flop_per_B");
    r.value("i_crit", i_hw, "flop_per_B", "critical intensity");
    const Text verdict = I > i_hw
                             ? "compute-bound: the tiles are large enough"
                             : "memory-bound: the tile shape caps the intensity below the ridge";
    r.extra["verdict"] = verdict;
    tr.note(verdict);
  } else {
    r.note(c.name + " has no " + dt + " peak in the tables: no verdict.");
  }
}

void dot_calc(const Inputs& in, Trace& tr, Result& r) {
  const double N = in.num("N");
  const std::string dt = in.text("dtype");
  const double eb = hw::dtype_bytes(dt, "dtype");
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
  if (c.has("vpu_flops_per_core")) {
    const double cores = c.has("cores_per_chip") ? c.get("cores_per_chip") : 1;
    const double vpu = c.get("vpu_flops_per_core") * cores;
    ridge = tr.step("VPU critical intensity (all cores vs HBM)",
                    "I_{VPU} = \\mathrm{VPU}_{chip} / BW_{HBM}", "\\frac{#}{#}", {vpu, bw},
                    critical_intensity(vpu, bw), "flop_per_B");
    r.value("i_crit_vpu", ridge, "flop_per_B", "VPU critical intensity");
  }
  const std::string verdict_text = I > ridge ? "compute-bound" : "memory-bound (HBM)";
  tr.note(
      "The intensity never exceeds 1/b whatever N is, so batching cannot make a dot product "
      "compute-bound: " +
      verdict_text + ".");
  r.extra["verdict"] = verdict_text;
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
           "link between the chips: ICI (one way), PCIe or DCN per chip"),
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
    Calculator{
        .name = "roofline.dot",
        .title = "Dot-product intensity",
        .doc = "x[N] . y[N] -> scalar: FLOPs, bytes and an intensity that never exceeds 1/b.",
        .params = kDotParams,
        .run = dot_calc}};

}  // namespace

void add_calculators(Registry& r) { r.add(kCalculators); }

}  // namespace sb::roofline
