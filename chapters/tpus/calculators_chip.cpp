// The TPU chapter's calculators of one chip: MXU padding and the VPU rate (tpus.mxu), the
// bandwidth ladder (tpus.ladder) and the decode-step floor (tpus.decode). Every step of a
// derivation is made from a formula record.
#include <algorithm>
#include <string>
#include <vector>

#include "chapters/roofline/levels.hpp"
#include "chapters/roofline/model.hpp"
#include "chapters/tpus/calculators.hpp"
#include "chapters/tpus/model.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

namespace sb::tpus {
namespace {

// A figure of tpus.mxu: the reader's when given (> 0), else the chip's from the tables, else 0
// with a note naming the input to fill in.
double mxu_figure(const Inputs& in, const hw::Chip& c, const char* name, const char* what,
                  Result& r) {
  double v = in.num(name);
  if (v > 0) return v;
  if (c.has(name)) return c.get(name);
  r.note("The book gives no " + std::string(what) + " for the " + c.name + ": enter " + name +
         " to see what depends on it.");
  return 0;
}

// The padding part of tpus.mxu: M, K, N padded to the MXU side and the share of useful work.
double mxu_padding(const Inputs& in, double S, Trace& tr, Result& r) {
  const double dims[] = {in.num("M"), in.num("K"), in.num("N")};
  const char* names[] = {"M", "K", "N"};
  json padded = json::object();
  double pd[3];
  for (int i = 0; i < 3; ++i)
    padded[names[i]] = pd[i] =
        tr.step(std::string("Pad ") + names[i] + " to a multiple of " + units::number(S),
                kPaddedDim, {dims[i], S});
  const double u =
      tr.step("MXU utilisation", kMxuUtilisation, {dims[0], dims[1], dims[2], pd[0], pd[1], pd[2]});
  r.value("utilisation", u, "ratio", "MXU utilisation after padding");
  r.value("mxu_cells", mxu_cells(S), "count", "cells per MXU");
  r.extra["padded"] = std::move(padded);
  if (u < 0.5)
    r.note("Less than half of the MXU's work is useful: make the dimensions multiples of " +
           units::number(S) + ".");
  r.extra["verdict"] = "MXU utilisation " + units::number(100 * u, 3) + "%";
  return u;
}

// The MXU part of tpus.mxu: the padding, and with a clock and an MXU count also the rates and the
// time. Returns the chip's MXU FLOPs/s, or 0 without them.
double mxu_part(const Inputs& in, double S, double clk, double mxus, double cores, Trace& tr,
                Result& r) {
  const double u = mxu_padding(in, S, tr, r);
  if (!(clk > 0 && mxus > 0)) return 0;
  const double per_mxu = tr.step("One MXU", kMxuRate, {S, clk});
  const double chip = tr.step("All MXUs of the chip", kChipMxu, {cores, mxus, per_mxu});
  const double useful = tr.step("Useful rate on this matmul", kUsefulRate, {u, chip});
  const double flops = tr.step("FLOPs of the matmul ($B = M$, $D = K$, $F = N$)",
                               roofline::kMatmulFlops, {in.num("M"), in.num("K"), in.num("N")});
  const double t = tr.step("Time at that rate", roofline::kTMath, {flops, useful});
  r.value("mxu_flops_per_s", per_mxu, "flop_per_s", "one MXU");
  r.value("chip_mxu_flops_per_s", chip, "flop_per_s", "all MXUs of a chip");
  r.value("useful_flops_per_s", useful, "flop_per_s", "useful FLOPs/s on this matmul");
  r.value("t_matmul", t, "s", "matmul time at MXU peak");
  return chip;
}

// The VPU part of tpus.mxu: one core's and the chip's rate against the MXUs (given a clock),
// registers, and the cross-sublane reduction.
void vpu_part(const Inputs& in, const hw::Chip& c, double clk, double cores, double mxu_chip,
              Trace& tr, Result& r) {
  double alus_cell = in.num("vpu_alus_per_cell") > 0
                         ? in.num("vpu_alus_per_cell")
                         : (c.has("vpu_alus_per_cell") ? c.get("vpu_alus_per_cell") : 0);
  if (alus_cell > 0 && clk > 0) {
    const double vpu = vpu_core_rate(c, alus_cell, clk, tr);
    const double chip = tr.step("VPU of the chip (every core)", roofline::kVpuChip, {vpu, cores});
    r.value("vpu_flops_per_s_core", vpu, "flop_per_s", "VPU per core");
    r.value("vpu_flops_per_s_chip", chip, "flop_per_s", "VPU per chip");
    if (mxu_chip > 0)
      r.value("mxu_to_vpu_ratio", ratio_of(mxu_chip, chip), "ratio", "MXU rate / VPU rate");
  } else if (!(alus_cell > 0)) {
    r.note("The book gives no VPU ALU count for the " + c.name +
           " (4 per cell on v5): enter vpu_alus_per_cell to see the VPU rate.");
  }
  if (c.has("vregs_per_core"))
    r.value("vreg_bytes_per_core", vreg_bytes(c), "B", "vector registers per core");
  const double sublanes = c.get("vpu_sublanes");
  r.value("sublane_reduction_steps", sublane_reduction_steps(static_cast<int>(sublanes)), "count",
          "rotate-and-add steps across " + units::number(sublanes) + " sublanes");
}

void mxu_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& c = hw::chip(in.text("chip"));
  if (c.kind != "tpu")
    fail("chip",
         "The " + c.name +
             " is a GPU: its matmuls run on Tensor Cores, not on the MXUs and VPU this "
             "calculator models. Pick a TPU.",
         "bad_chip");
  const double S = mxu_figure(in, c, "mxu_size", "MXU size", r);
  // A clock given is at least 1 MHz, so that every rate and time stays a finite number.
  if (in.num("clock_hz") > 0 && in.num("clock_hz") < 1e6)
    fail("clock_hz", "0 takes the chip's clock; a clock given must be at least 1 MHz",
         "out_of_range");
  const double clk = mxu_figure(in, c, "clock_hz", "clock", r);
  const double mxus = mxu_figure(in, c, "mxus_per_core", "MXU count per core", r);
  const double cores = c.get("cores_per_chip");
  r.value("flops", roofline::matmul_flops({in.num("M"), in.num("K"), in.num("N")}), "flop",
          "FLOPs of the matmul, 2MKN");
  double mxu_chip = 0;
  if (S > 0)
    mxu_chip = mxu_part(in, S, clk, mxus, cores, tr, r);
  else
    r.extra["verdict"] = "No MXU size for the " + c.name + ": enter mxu_size to pad the matmul";
  vpu_part(in, c, clk, cores, mxu_chip, tr, r);
}

// ------------------------------------------------------------------------------------- ladder --

// The bandwidth ladder (HBM > ICI > PCIe > DCN, VMEM above them where the tables have it): each
// level of the chip, fastest first, the time to move `bytes` over it and how much faster it is
// than the next. A GPU's levels are HBM, NVLink and its scale-out network.
void ladder_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& c = hw::chip(in.text("chip"));
  const double bytes = in.num("bytes");
  struct Rung {
    const char* key;
    roofline::LevelBw level;
  };
  std::vector<Rung> rungs;
  constexpr const char* kKeys[] = {"vmem", "hbm", "ici", "pcie", "dcn"};
  for (int k = 0; k < 5; ++k) {
    roofline::LevelBw v = roofline::level_bw(c, static_cast<roofline::Level>(k));
    if (!v.note.empty()) r.note(v.note);
    if (v.bw > 0) rungs.push_back({kKeys[k], std::move(v)});
  }
  std::stable_sort(rungs.begin(), rungs.end(),
                   [](const Rung& a, const Rung& b) { return a.level.bw > b.level.bw; });
  json ladder = json::array();
  std::string order;
  for (size_t i = 0; i < rungs.size(); ++i) {
    const roofline::LevelBw& v = rungs[i].level;
    const double t = tr.step(v.name + ": time to move the bytes", roofline::kTComms, {bytes, v.bw});
    r.value(std::string(rungs[i].key) + "_bw", v.bw, "B_per_s", v.name + " bandwidth");
    r.value(std::string(rungs[i].key) + "_time", t, "s", v.name + " time");
    json rung = {{"key", rungs[i].key}, {"name", v.name}, {"bw", v.bw}, {"seconds", t}};
    if (i + 1 < rungs.size()) {
      const double x = ratio_of(v.bw, rungs[i + 1].level.bw);
      rung["faster_than_next"] = x;
      order += v.name + " (" + units::number(x, 2) + "x) > ";
    } else {
      order += v.name;
    }
    ladder.push_back(std::move(rung));
  }
  if (rungs.empty()) fail("chip", "The book gives no bandwidth figures for the " + c.name + ".");
  r.extra["ladder"] = std::move(ladder);
  r.extra["bytes"] = bytes;
  r.extra["verdict"] = order;
}

// ------------------------------------------------------------------------------------- decode --

void decode_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& c = hw::chip(in.text("chip"));
  const double np = in.num("n_params"), b = hw::dtype_bytes(in.text("dtype"), "dtype"),
               n = in.num("n_chips");
  const double bw = c.get("hbm_bw"), cap = c.get("hbm_bytes");
  const double total = tr.step("Weight bytes", kWeightBytes, {np, b});
  const double per = tr.step("Weight bytes per chip", kBytesPerChip, {total, n});
  const double t = tr.step("Decode-step floor: each chip reads its share from HBM once",
                           kDecodeFloor, {np, b, n, bw});
  const double steps = tr.step("Most steps per second", kStepsPerS, {t});
  const bool fits = fits_in(per, cap);
  if (!fits)
    r.note("The weights do not fit: " + units::format(per, "B") + " per chip against " +
           units::format(cap, "B") + " of HBM.");
  r.value("bytes_per_chip", per, "B", "weight bytes per chip");
  r.value("t_step", t, "s", "lowest time per decode step");
  r.value("tokens_per_s", steps, "per_s", "most steps per second");
  r.value("fits", fits ? 1 : 0, "bool", "fits in HBM");
}

constexpr Param kMxuParams[] = {
    chip_param("v5e"),
    num("M", "count", 200, "rows of the LHS", 1, 1e9, true),
    num("K", "count", 4096, "contracted dimension", 1, 1e9, true),
    num("N", "count", 1000, "columns of the RHS", 1, 1e9, true),
    zero_ok(num("mxu_size", "count", 0, "MXU side (0 = the chip's)", 0, 4096, true)),
    zero_ok(num("mxus_per_core", "count", 0, "MXUs per core (0 = the chip's)", 0, 64, true)),
    zero_ok(num("clock_hz", "per_s", 0, "clock: 0 = the chip's, else 1 MHz to 100 GHz", 0, 1e11)),
    zero_ok(num("vpu_alus_per_cell", "count", 0, "VPU ALUs per (lane, sublane) (0 = the chip's)", 0,
                64, true))};
constexpr Param kDecodeParams[] = {
    chip_param("v5e"), num("n_params", "params", 7e10, "parameters", 1, 1e15),
    dtype_param("dtype", "bf16", "weight dtype"),
    num("n_chips", "chips", 16, "chips sharing the weights", 1, 1e6, true)};

constexpr Param kLadderParams[] = {
    chip_param("v5e"), num("bytes", "B", 1e9, "bytes to move over each level", 1, 1e18)};

constexpr Calculator kChipCalculators[] = {
    Calculator{.name = "tpus.mxu",
               .title = "MXU padding and VPU rate",
               .doc = "Pads a matmul's M, K, N to the MXU side, gives the utilisation and MXU "
                      "FLOPs/s per MXU "
                      "and per chip, and the VPU rate, VREG bytes and sublane-reduction steps.",
               .params = kMxuParams,
               .run = mxu_calc},
    Calculator{.name = "tpus.ladder",
               .title = "Bandwidth ladder",
               .doc = "The chip's levels from fastest to slowest (HBM > ICI > PCIe > DCN, VMEM "
                      "above them): each one's bandwidth, the time to move the bytes over it, and "
                      "how much faster it is than the next.",
               .params = kLadderParams,
               .run = ladder_calc},
    Calculator{
        .name = "tpus.decode",
        .title = "Decode-step floor",
        .doc = "Every decode step reads all weights from HBM once: the fastest a step can be.",
        .params = kDecodeParams,
        .run = decode_calc}};

}  // namespace

void add_chip_calculators(Registry& r) { r.add(kChipCalculators); }

}  // namespace sb::tpus
