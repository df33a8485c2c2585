// The roofline chapter's figures: one operation against several roofs of a chip
// (roofline.roofs), achieved FLOPs/s against the batch (roofline.batch) and the dot product
// (roofline.dot). Every step of a derivation is made from a formula record of model.hpp.
#include <algorithm>
#include <cmath>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "chapters/roofline/calculators.hpp"
#include "chapters/roofline/levels.hpp"
#include "chapters/roofline/model.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

namespace sb::roofline {
namespace {

// A chip's VPU rate as a step: every core's, fp32 (the tables give it per TensorCore); 0, and no
// step, if they give none.
double vpu_peak(const hw::Chip& c, Trace& tr) {
  if (!c.has("vpu_flops_per_core")) return 0;
  const double cores = c.has("cores_per_chip") ? c.get("cores_per_chip") : 1;
  return tr.step("VPU rate of the chip (every core, fp32)", kVpuChip,
                 {c.get("vpu_flops_per_core"), cores});
}

void dot_calc(const Inputs& in, Trace& tr, Result& r) {
  const double N = in.num("N");
  const double eb = hw::dtype_bytes(in.text("dtype"), "dtype");
  const double fl = tr.step("FLOPs: N multiplies and N - 1 adds", kDotFlops, {N});
  const double by = tr.step("Bytes: read both vectors, write the scalar", kDotBytes, {N, eb});
  const double I = tr.step("Intensity", kDotIntensity, {N, eb});
  const double lim = tr.step("Large-N limit", kDotIntensityLimit, {eb});
  const hw::Chip& c = hw::chip(in.text("chip"));
  const double peak = c.peak("bf16", "chip"), bw = c.get("hbm_bw", "chip");
  const double t = tr.step("HBM time", kTComms, {by, bw});
  const double i_hw = tr.step("MXU critical intensity (bf16 vs HBM), for comparison",
                              kCriticalIntensity, {peak, bw});
  r.value("flops", fl, "flop", "FLOPs");
  r.value("bytes", by, "B", "bytes moved");
  r.value("intensity", I, "flop_per_B", "intensity");
  r.value("intensity_limit", lim, "flop_per_B", "large-N intensity");
  r.value("i_crit", i_hw, "flop_per_B", "MXU critical intensity");
  r.value("t_comms", t, "s", "HBM time");
  // A dot product runs on the VPU. Pair like with like: every core's VPU against the chip's HBM.
  double ridge = i_hw;
  if (const double vpu = vpu_peak(c, tr); vpu > 0) {
    ridge = tr.step("VPU critical intensity (all cores vs HBM)", kCriticalIntensity, {vpu, bw});
    r.value("i_crit_vpu", ridge, "flop_per_B", "VPU critical intensity");
  }
  const Text verdict_text = I > ridge ? "compute-bound" : "memory-bound (HBM)";
  Out line;
  tr.note(joined(line, {"The intensity never exceeds $1/b$ whatever N is, so batching cannot make "
                        "a dot product compute-bound: ",
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

// The flat roof of roofline.roofs: the compute unit's peak (the MXU's at the dtype, or every
// core's VPU) times the MFU cap. `peak` gets the uncapped figure.
double flat_roof(const Inputs& in, const hw::Chip& c, Trace& tr, double& peak) {
  peak = in.text("unit") == "vpu" ? vpu_peak(c, tr) : c.peak(in.text("dtype"), "dtype");
  if (!(peak > 0)) {
    Out line;
    fail("unit", std::string(joined(line, {"The book gives no VPU rate for the ", c.name, "."})),
         "no_figure");
  }
  return tr.step("Flat roof: the share of the peak reached", kCappedPeak, {peak, in.num("mfu")});
}

struct Operation {
  double flops = 0, bytes = 0, intensity = 0;
};

// The operation of roofline.roofs: its intensity typed (the bytes follow from it), or its FLOPs
// and bytes.
Operation roofs_operation(const Inputs& in, Trace& tr) {
  Operation op;
  op.flops = in.num("flops");
  const double typed = in.num("intensity");
  if (typed > 0 && typed < 1e-3)
    fail("intensity", "0 takes FLOPs / bytes; an intensity typed is at least 0.001",
         "out_of_range");
  if (typed > 0) {
    op.intensity = typed;
    op.bytes = tr.step("Bytes at the typed intensity", kBytesAtIntensity, {op.flops, typed});
  } else {
    op.bytes = in.num("bytes");
    op.intensity = tr.step("Intensity of the operation", kIntensity, {op.flops, op.bytes});
  }
  return op;
}

// The roofs of roofline.roofs: each level named (at most 5, each once) that the chip has a figure
// for, with its ridge under the flat roof `top` and the time to move the operation's bytes over
// it. `lv` keeps the levels the roofs' names point into; the names go to `above` where the
// operation is compute-bound against the roof, else to `below`. Returns the number of roofs.
size_t roofs_levels(const Inputs& in, const hw::Chip& c, double top, const Operation& op,
                    double t_math, Trace& tr, Result& r, LevelBw* lv, Roof* roofs, Out& above,
                    Out& below) {
  constexpr Text kKeys[] = {"vmem", "hbm", "ici", "pcie", "dcn"};
  size_t n = 0, count = 0;
  bool seen[5] = {};
  Out label, key;
  Text rest = in.text("levels"), w;
  while (next_word(rest, w)) {
    if (++count > 5) fail("levels", "at most 5 of hbm, vmem, ici, pcie, dcn", "out_of_range");
    const int k = static_cast<int>(parse_level(w, "levels"));
    if (seen[k]) continue;
    seen[k] = true;
    lv[n] = level_bw(c, static_cast<Level>(k));
    if (!lv[n].note.empty()) r.note(lv[n].note);
    if (!(lv[n].bw > 0)) continue;
    const Text name = lv[n].name;
    const double bw = lv[n].bw;
    roofs[n] = {name, bw};
    const double ridge = tr.step(joined(label, name, " ridge"), kCriticalIntensity, {top, bw});
    r.value(joined(key, kKeys[k], "_ridge"), ridge, "flop_per_B", label.view());
    const double t = tr.step(joined(label, name, " time"), kTComms, {op.bytes, bw});
    r.value(joined(key, kKeys[k], "_time"), t, "s", label.view());
    Out& list = verdict(t_math, t) == Bound::Compute ? above : below;
    list << (list.empty() ? "" : ", ") << name;
    ++n;
  }
  return n;
}

// roofline.roofs: the chapter's figure. One operation against several roofs of one chip, with
// the flat roof at the compute unit's peak (MXU or VPU) times the MFU cap.
void roofs_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& c = hw::chip(in.text("chip"));
  double peak = 0;
  const double top = flat_roof(in, c, tr, peak);
  const Operation op = roofs_operation(in, tr);
  const double tm = tr.step("Compute time at the flat roof", kTMath, {op.flops, top});
  r.value("intensity", op.intensity, "flop_per_B", "intensity of the operation");
  r.value("peak", top, "flop_per_s", "flat roof");
  r.value("t_math", tm, "s", "T_math");
  LevelBw lv[5];
  Roof roofs[5];
  Out above, below, v;  // the roofs whose ridge the operation passes, and the others
  const size_t n = roofs_levels(in, c, top, op, tm, tr, r, lv, roofs, above, below);
  if (n == 0)
    fail("levels",
         std::string(joined(v, {"None of these levels has a figure for the ", c.name, "."})),
         "no_figure");
  v.clear();
  if (!above.empty()) v << "compute-bound against " << above.view();
  if (!above.empty() && !below.empty()) v << "; ";
  if (!below.empty()) v << "bandwidth-bound on " << below.view();
  put(r.member("verdict"), "", v.view());
  roofline_plot(r, top, std::span<const Roof>(roofs, n), op.intensity,
                achieved_flops_per_s(op.flops, tm, t_comms(op.bytes, roofs[0].bw)), {},
                in.num("mfu") < 1 ? peak : 0);
}

// One (D, F) pair of roofline.batch's list, written like 8192x32768; `dxf` gets it as text.
MatmulShape shape_pair(Text w, Out& dxf) {
  const size_t x = w.find_first_of("xX*");
  MatmulShape s;
  s.D = units::parse(w.substr(0, x), "count", "shapes");
  s.F = x == Text::npos ? 0 : units::parse(w.substr(x + 1), "count", "shapes");
  if (!(s.D >= 1 && s.D <= kMaxDim && s.F >= 1 && s.F <= kMaxDim) || std::floor(s.D) != s.D ||
      std::floor(s.F) != s.F)
    fail("shapes", "each is D x F, two whole numbers from 1 to 1e7, like 8192x32768",
         "out_of_range");
  dxf.clear();
  put_number(dxf, s.D);
  dxf << " x ";
  put_number(dxf, s.F);
  return s;
}

// The plot of roofline.batch: the FLOPs/s each shape reaches at every batch of the grid.
// {"peak", "batch": [B...], "curves": [{"d", "f", "b_crit"?, "flops_per_s": [y...]}]}
void batch_plot(Result& r, double peak, double bw, const OperandBytes& ob,
                std::span<const MatmulShape> shapes, const std::optional<double>* crit,
                const std::vector<double>& bs) {
  Out& out = r.member("plot");
  put(out, "{\"peak\":", peak);
  put(out, ",\"batch\":", bs);
  out << ",\"curves\":[";
  std::vector<double> ys(bs.size());
  for (size_t k = 0; k < shapes.size(); ++k) {
    for (size_t i = 0; i < bs.size(); ++i)
      ys[i] = matmul_achieved_flops_per_s({bs[i], shapes[k].D, shapes[k].F}, ob, peak, bw);
    put(out, k ? ",{\"d\":" : "{\"d\":", shapes[k].D);
    put(out, ",\"f\":", shapes[k].F);
    if (crit[k]) put(out, ",\"b_crit\":", *crit[k]);
    put(out, ",\"flops_per_s\":", ys);
    out << '}';
  }
  out << "]}";
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
  const double i_hw = tr.step("Critical intensity", kCriticalIntensity, {peak, bw});
  const double b_max = in.num("b_max");
  MatmulShape shapes[6];
  std::optional<double> crit[6];
  double marks[6];
  size_t n = 0, n_marks = 0;
  Out label, key, dxf;
  Text rest = in.text("shapes"), w;
  while (next_word(rest, w)) {
    if (n == 6) fail("shapes", "at most 6 pairs D x F", "out_of_range");
    const MatmulShape& s = shapes[n] = shape_pair(w, dxf);
    crit[n] = critical_batch_exact(s.D, s.F, ob, i_hw);
    if (crit[n]) {
      tr.step(joined(label, "Critical batch, ", dxf.view()), kCriticalBatchExact,
              {s.D, s.F, eb, eb, eb, i_hw});
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
  if (n == 0) fail("shapes", "give at least one D x F, like 8192x32768", "bad_input");
  batch_plot(r, peak, bw, ob, std::span<const MatmulShape>(shapes, n), crit,
             log_grid(1, b_max, marks, n_marks));
  r.value("i_crit", i_hw, "flop_per_B", "critical intensity");
  r.value("peak", peak, "flop_per_s", "peak");
}

constexpr Param kDotParams[] = {
    size("N", "count", 1024, "vector length", 1e15),
    dtype_param("dtype", "bf16", "element type of the vectors"),
    chip_param("v5e", "chip whose ridge the dot product is compared with")};

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

constexpr Calculator kFiguresCalculators[] = {
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

void add_figure_calculators(Registry& r) { r.add(kFiguresCalculators); }

}  // namespace sb::roofline
