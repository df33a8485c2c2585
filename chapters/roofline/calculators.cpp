// The roofline chapter's calculators of a single operation: the matmul roofline against HBM or
// VMEM, the two-chip network roofline and the tiled matmul (the figures are in
// calculators_figures.cpp). Chip figures come from sb::hw; every step of a derivation is made from
// a formula record of model.hpp.
#include "chapters/roofline/calculators.hpp"

#include <optional>
#include <span>
#include <string>

#include "chapters/roofline/levels.hpp"
#include "chapters/roofline/model.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

namespace sb::roofline {
namespace {

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

// roofline.network: X[B,D] . Y[D,F] split along D over two chips that swap partial sums.
void network_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& c = hw::chip(in.text("chip"));
  const double peak = c.peak("bf16", "chip"), b_o = hw::dtype_bytes("bf16", "chip");
  const LevelBw lv = need_level(c, parse_level(in.text("link"), "link"), "link");
  const Text link_name = lv.name == "ICI" ? Text("ICI (one way)") : Text(lv.name);
  const double bw = lv.bw;
  if (!lv.note.empty()) r.note(lv.note);
  const MatmulShape s{in.num("B"), in.num("D"), in.num("F")};
  tr.note(
      "X: bf16[B, D] and Y: bf16[D, F] are split along D over 2 chips; each chip multiplies "
      "its halves and the two swap bf16[B, F] partial sums over a full-duplex link.");
  const double fl =
      tr.step("FLOPs per chip (its half of the contraction)", kNetworkFlops, {s.B, s.D, s.F});
  const double tm = tr.step("Per-chip compute time", kNetworkTMath, {s.B, s.D, s.F, peak});
  const double tc = tr.step("Per-chip link time (send one partial sum, one way)", kNetworkTComms,
                            {s.B, s.F, bw, b_o});
  const double lo = tr.step("Lower bound (full overlap)", kTLower, {tm, tc});
  const double hi = tr.step("Upper bound (no overlap)", kTUpper, {tm, tc});
  const double I = tr.step("Per-chip intensity (B cancels)", kNetworkIntensity, {s.D, b_o});
  const double i_link = tr.step("Critical intensity of the link", kCriticalIntensity, {peak, bw});
  const double d_crit =
      tr.step("Smallest D that is compute-bound over the link", kNetworkDCrit, {peak, bw, b_o});
  const bool compute = verdict(tm, tc) == Bound::Compute;
  Out verdict_text, line;
  joined(verdict_text, {compute ? "compute-bound" : "communication-bound (",
                        compute ? "" : link_name, compute ? "" : ")"});
  tr.note(joined(line, {"$I = ", Number(I).text, compute ? " > " : " \\leq ",
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
  roofline_plot(r, peak, link, I, achieved_flops_per_s(fl, tm, tc));
}

// A tile larger than its dimension is a typo, not a tiling: an error naming the tile.
void check_tiles(const Tiling& t) {
  Out line;
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
}

// The tiled matmul against the chip's HBM ridge, when the tables have a peak for the dtype.
void tiled_verdict(const hw::Chip& c, Text dt, double I, Trace& tr, Result& r) {
  Out key, line;
  if (!c.has(joined(key, "peak_flops_", dt)) || !c.has("hbm_bw")) {
    r.note(joined(line, {c.name, " has no ", dt, " peak in the tables: no verdict."}));
    return;
  }
  const double peak = c.get(key.view()), bw = c.get("hbm_bw");
  const double i_hw = tr.step(joined(line, {"Critical intensity (", dt, " vs HBM)"}),
                              kCriticalIntensity, {peak, bw});
  r.value("i_crit", i_hw, "flop_per_B", "critical intensity");
  const Text verdict = I > i_hw ? "compute-bound: the tiles are large enough"
                                : "memory-bound: the tile shape caps the intensity below the ridge";
  put(r.member("verdict"), "", verdict);
  tr.note(verdict);
}

// roofline.tiled: (m,k) . (k,n) in bm x bk x bn tiles, and the intensity the tile shape allows.
void tiled_calc(const Inputs& in, Trace& tr, Result& r) {
  const Tiling t{in.num("m"), in.num("k"), in.num("n"), in.num("bm"), in.num("bk"), in.num("bn")};
  check_tiles(t);
  const Text dt = in.text("dtype");
  const double eb = hw::dtype_bytes(dt, "dtype");
  const double tm = tr.step("Tiles along m", kTilesM, {t.m, t.bm});
  const double tk = tr.step("Tiles along k", kTilesK, {t.k, t.bk});
  const double tn = tr.step("Tiles along n", kTilesN, {t.n, t.bn});
  const double count = tr.step("Tiles in all", kTileCount, {tm, tk, tn});
  const bool padded = tm * t.bm != t.m || tk * t.bk != t.k || tn * t.bn != t.n;
  constexpr Text kPadded =
      "A dimension is not a multiple of its tile: the last tile is padded, and "
      "the counts include the padding.";
  if (padded) tr.note(kPadded);
  const double fl = tr.step("FLOPs", kTiledFlops, {tm, tn, tk, t.bm, t.bn, t.bk});
  const double by =
      tr.step("Bytes: each output tile streams its X and W strips and is written once", kTiledBytes,
              {tm, tn, tk, t.bm, t.bk, t.bn, eb});
  const double I = tr.step("Intensity", kIntensity, {fl, by});
  const double Ia =
      tr.step("Intensity without the output write", kTiledIntensityApprox, {t.bm, t.bn, eb});
  r.value("tiles", count, "count", "tiles t_m t_k t_n");
  r.value("flops", fl, "flop", "FLOPs");
  r.value("bytes", by, "B", "bytes moved");
  r.value("intensity", I, "flop_per_B", "intensity");
  r.value("intensity_approx", Ia, "flop_per_B", "intensity, output write neglected");
  if (padded) r.note(kPadded);
  tiled_verdict(hw::chip(in.text("chip")), dt, I, tr, r);
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
               .run = tiled_calc}};

}  // namespace

void add_calculators(Registry& r) {
  r.add(kCalculators);
  add_figure_calculators(r);
}

}  // namespace sb::roofline
