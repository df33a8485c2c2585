// The TPU chapter's worked examples and pop quizzes, in the order of the text (tpus.E*, tpus.PQ*).
#include <cmath>
#include <span>
#include <string>

#include "chapters/tpus/model.hpp"
#include "chapters/tpus/problems.hpp"
#include "chapters/tpus/steps.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

// Problems are written with designated initializers; the members left out keep their defaults,
// which is what this warning is about.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::tpus {
namespace {

// The chip figures vary together: a variant draws one real chip (v4p, v5p or v5e).
constexpr Param kE1Given[] = {
    chip("v5e"),
    chip_spec(big_count("mxu_dim", 128, "side of the systolic array"), "mxu_size"),
    big_count("lhs_rows_per_op", 8, "rows of the LHS block per MXU op"),
    big_count("cycles_per_op", 8, "cycles per MXU op"),
    chip_spec(rate("clock_hz", "per_s", 1.5e9, "clock frequency"), "clock_hz"),
    chip_spec(big_count("mxus_per_core", 4, "MXUs per TensorCore"), "mxus_per_core"),
    chip_spec(big_count("cores_per_chip", 1, "TensorCores per chip"), "cores_per_chip"),
    chip_spec(ranged("int8_speedup", "ratio", 2, "int8 rate over bf16 rate", 1e-3, 1e3),
              "peak_flops_int8/peak_flops_bf16")};
constexpr Slot kE1Slots[] = {
    number("mxu_flops_per_s", "flop_per_s", "bf16 FLOPs/s of one MXU"),
    number("chip_bf16_flops_per_s", "flop_per_s", "bf16 FLOPs/s of the chip"),
    number("chip_int8_ops_per_s", "flop_per_s", "int8 OPs/s of the chip")};
constexpr Problem kE1{
    .id = "tpus.E1",
    .title = "MXU and chip peak throughput",
    .statement =
        "A {mxu_dim} x {mxu_dim} MXU finishes one bf16 product of a [{lhs_rows_per_op}, "
        "{mxu_dim}] block by a [{mxu_dim}, {mxu_dim}] block every {cycles_per_op} cycles at "
        "{clock_hz}. The chip ({chip}) has {cores_per_chip} TensorCore(s) with "
        "{mxus_per_core} MXUs each, and int8 runs {int8_speedup}x faster than bf16. What "
        "are the bf16 FLOPs/s of one MXU, of the whole chip, and the chip's int8 OPs/s?",
    .kind = "numeric",
    .given = kE1Given,
    .slots = kE1Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double S = in.num("mxu_dim"), rows = in.num("lhs_rows_per_op"),
                 cyc = in.num("cycles_per_op"), clk = in.num("clock_hz");
          tr.step("FLOPs per cycle of one MXU ($r$ rows every $c$ cycles)", kMxuCycleOp,
                  {S, rows, cyc});
          const double mxu = tr.step("One MXU's bf16 rate", kMxuRateOp, {S, clk, rows, cyc});
          const double cores = in.num("cores_per_chip"), mxus = in.num("mxus_per_core");
          const double chip_rate =
              tr.step("The chip: cores x MXUs x one MXU", kChipMxu, {cores, mxus, mxu});
          const double i8 = tr.step("int8 at the stated speed-up", kInt8Rate,
                                    {in.num("int8_speedup"), chip_rate});
          return Answers{{"mxu_flops_per_s", mxu},
                         {"chip_bf16_flops_per_s", chip_rate},
                         {"chip_int8_ops_per_s", i8}};
        },
    .hint = "Each op does rows x S x S multiply-adds, and a multiply-add is 2 FLOPs.",
};

constexpr Param kE2Given[] = {
    chip("v5p"), text("pod_shape", "16x20x28", "the pod's torus shape"),
    sb::chip_count("chips", 8960, "chips in the pod"),
    rate("peak_bf16_flops_per_s_per_core", "flop_per_s", 2.5e14, "bf16 peak of one core"),
    // No variants: the problem is the paragraph's round figures for one v5p pod.
    rate("peak_bf16_flops_per_s_per_chip", "flop_per_s", 5e14, "bf16 peak of one chip")};
constexpr Slot kE2Slots[] = {number("pod_flops_per_s", "flop_per_s", "bf16 FLOPs/s of the pod")};
constexpr Problem kE2{
    .id = "tpus.E2",
    .title = "Peak FLOPs/s of a v5p pod",
    .statement =
        "A full {chip} pod is a {pod_shape} torus ({chips}). Taking the paragraph's "
        "round figure of {peak_bf16_flops_per_s_per_chip} bf16 per chip (two cores of "
        "{peak_bf16_flops_per_s_per_core}), what is the pod's aggregate bf16 FLOPs/s?",
    .kind = "numeric",
    .given = kE2Given,
    .slots = kE2Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Dims d = parse_shape(in.text("pod_shape"), "pod_shape");
          slice_torus(hw::chip(in.text("chip")), d, "auto", "pod_shape");
          const double chips = chips_step(tr, "Chips in the pod", d);
          if (chips != in.num("chips"))
            fail("chips", shape_text(d) + " holds " + units::whole(chips) + " chips, not " +
                              units::whole(in.num("chips")));
          double per = in.num("peak_bf16_flops_per_s_per_chip");
          const double total = tr.step("Aggregate peak", kSliceFlops, {chips, per});
          Answers a{{"pod_flops_per_s", total}};
          const double table = hw::chip(in.text("chip")).get("peak_flops_bf16");
          if (table != per) {
            const double by_table = tr.step("With the spec table's figure per chip instead",
                                            kSliceFlops, {chips, table});
            a.book("pod_flops_per_s", by_table,
                   "'s spec table gives " + units::format(table, "flop_per_s") + " per chip");
          }
          return a;
        },
};

// The chip figures vary together: a variant draws one real chip with a VMEM bandwidth (v5p).
constexpr Param kE3Given[] = {
    chip("v5e"),
    chip_spec(rate("peak_bf16_flops_per_s", "flop_per_s", 1.97e14, "bf16 peak"), "peak_flops_bf16"),
    chip_spec(rate("hbm_bw_Bps", "B_per_s", 8.2e11, "HBM bandwidth"), "hbm_bw"),
    chip_spec(
        ranged("vmem_to_hbm_bw_ratio", "ratio", 22, "VMEM bandwidth over HBM bandwidth", 1e-3, 1e3),
        "vmem_bw/hbm_bw")};
constexpr Slot kE3Slots[] = {
    number("i_crit_vmem", "flop_per_B", "critical intensity against VMEM")};
constexpr Problem kE3{
    .id = "tpus.E3",
    .title = "Critical intensity when operands sit in VMEM",
    .statement =
        "On {chip} ({peak_bf16_flops_per_s} bf16, HBM at {hbm_bw_Bps}), VMEM delivers "
        "about {vmem_to_hbm_bw_ratio}x the HBM bandwidth. What arithmetic intensity must a "
        "matmul reach to be compute-bound when its operands come from VMEM?",
    .kind = "numeric",
    .given = kE3Given,
    .slots = kE3Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double peak = in.num("peak_bf16_flops_per_s"), hbm = in.num("hbm_bw_Bps"),
                 k = in.num("vmem_to_hbm_bw_ratio");
          const double bw = tr.step("VMEM bandwidth", kVmemBw, {hbm, k});
          tr.step("HBM ridge for comparison", roofline::kCriticalIntensity, {peak, hbm});
          const double i = tr.step("VMEM ridge", roofline::kCriticalIntensity, {peak, bw});
          return Answers{{"i_crit_vmem", i}};
        },
};

constexpr Param kE4Given[] = {
    chip("v4p"),
    chip_spec(rate("pcie_bw_Bps", "B_per_s", 1.6e10, "PCIe bandwidth per chip"), "pcie_bw"),
    chip_spec(rate("hbm_bw_Bps", "B_per_s", 1.2e12, "HBM bandwidth"), "hbm_bw")};
constexpr Slot kE4Slots[] = {
    number("hbm_to_pcie_ratio", "ratio", "HBM bandwidth / PCIe bandwidth")};
constexpr Problem kE4{
    .id = "tpus.E4",
    .title = "PCIe versus HBM bandwidth on v4",
    .statement =
        "A {chip} reaches its HBM at {hbm_bw_Bps} but its host only over PCIe at "
        "{pcie_bw_Bps}. How many times slower is PCIe?",
    .kind = "numeric",
    .given = kE4Given,
    .slots = kE4Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double h = in.num("hbm_bw_Bps"), pc = in.num("pcie_bw_Bps");
          const double r = tr.step("HBM over PCIe", kHbmOverPcie, {h, pc});
          Answers a{{"hbm_to_pcie_ratio", r}};
          // "Close to 100x": the order of magnitude.
          const double order = std::pow(10.0, std::round(std::log10(r)));
          a.book("hbm_to_pcie_ratio", order,
                 "rounds " + units::number(r, 2) + "x to the nearest power of ten, " +
                     units::number(order) + "x");
          return a;
        },
    .hint = "The book calls it close to 100x; the table figures give the exact ratio.",
};

constexpr Param kE5Given[] = {
    chip("v5p"), chip_spec(rate("hbm_bw_Bps", "B_per_s", 2.8e12, "HBM bandwidth"), "hbm_bw"),
    chip_spec(rate("ici_bw_per_axis_Bps", "B_per_s", 9e10, "ICI bandwidth per axis"),
              "ici_bw_oneway"),
    chip_spec(big_count("ici_axes_per_chip", 3, "ICI axes per chip"), "torus_dims"),
    chip_spec(rate("dcn_egress_per_chip_Bps", "B_per_s", 6.25e9, "DCN egress per chip"), "dcn_bw")};
constexpr Slot kE5Slots[] = {number("hbm_to_ici_ratio", "ratio", "HBM / ICI per axis"),
                             number("ici_to_dcn_ratio", "ratio", "ICI per axis / DCN per chip")};
constexpr Problem kE5{
    .id = "tpus.E5",
    .title = "Bandwidth ladder on v5p: HBM, ICI, DCN",
    .statement =
        "A {chip} chip reads HBM at {hbm_bw_Bps}, sends {ici_bw_per_axis_Bps} along each of "
        "its {ici_axes_per_chip} ICI axes, and has {dcn_egress_per_chip_Bps} of DCN egress. "
        "How many times lower is one axis of ICI than HBM, and DCN than one axis of ICI?",
    .kind = "numeric",
    .given = kE5Given,
    .slots = kE5Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double h = in.num("hbm_bw_Bps"), i = in.num("ici_bw_per_axis_Bps"),
                 d = in.num("dcn_egress_per_chip_Bps");
          const double a = tr.step("HBM over ICI", kHbmOverIci, {h, i});
          const double b = tr.step("ICI over DCN", kIciOverDcn, {i, d});
          tr.step("All ICI axes together", kAxesBw, {in.num("ici_axes_per_chip"), i});
          return Answers{{"hbm_to_ici_ratio", a}, {"ici_to_dcn_ratio", b}};
        },
};

constexpr Param kE6Given[] = {
    text("axis_length", "N", "chips along the axis"),
    text("topology", "torus with wraparound vs open mesh", "the two layouts compared")};
constexpr Problem kE6{
    .id = "tpus.E6",
    .title = "Effect of torus wraparound links",
    .statement =
        "Along an axis of {axis_length} chips, compare a {topology}: what do the wraparound "
        "links do to the worst-case hop count, and to the time of bandwidth-bound collectives?",
    .kind = "conceptual",
    .given = kE6Given,
    .solve =
        [](const Inputs&, Trace& tr) {
          // An illustration on a 16-chip axis (the v5e pod side).
          const double n = 16;
          tr.step("Worst case on a line of 16", kAxisMaxLine, {n});
          tr.step("Worst case on a ring of 16", kAxisMaxRing, {n});
          tr.equation(
              "A ring sends both ways round: twice a line's bandwidth along the axis",
              "\\mathrm{BW}_{\\mathrm{ring}} = 2W,\\quad \\mathrm{BW}_{\\mathrm{line}} = W");
          return Answers{};
        },
    .model_answer =
        "A ring closes the axis, so no chip is more than floor(N/2) hops from "
        "another instead of N-1: the "
        "worst distance roughly halves. It also lets every chip send both ways "
        "round the ring, so a "
        "bandwidth-bound collective (AllGather, ReduceScatter, AllReduce) can use "
        "twice the bandwidth; "
        "without the wraparound such collectives take roughly twice as long.",
};

constexpr double kE7MxuDimV6e[] = {256, 512};
constexpr double kE7MxuDimBeforeV6e[] = {128};
constexpr Param kE7Given[] = {
    big_count("mxu_dim_v6e", 256, "new MXU side", kE7MxuDimV6e),
    big_count("mxu_dim_before_v6e", 128, "old MXU side", kE7MxuDimBeforeV6e)};
constexpr Slot kE7Slots[] = {
    number("flops_per_cycle_ratio", "ratio", "FLOPs per cycle, new / old"),
    number("dim_ratio", "ratio", "operand size needed, new / old"),
    number("flops_per_cycle_per_mxu_v6e", "flop", "FLOPs per cycle of one new MXU")};
constexpr Problem kE7{
    .id = "tpus.E7",
    .title = "Effect of a 256x256 MXU",
    .statement =
        "v6e's MXU is {mxu_dim_v6e} x {mxu_dim_v6e}; earlier chips used {mxu_dim_before_v6e} "
        "x {mxu_dim_before_v6e}. How much more work does it do per cycle, how much larger "
        "must matmul dimensions be to fill it, and how many FLOPs does one v6e MXU do per "
        "cycle?",
    .kind = "numeric",
    .given = kE7Given,
    .slots = kE7Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double a = in.num("mxu_dim_v6e"), b = in.num("mxu_dim_before_v6e");
          const double fa = tr.step("New MXU per cycle", kMxuCycle, {a});
          tr.step("Old MXU per cycle", kMxuCycle, {b});
          const double ratio = tr.step("Work ratio", kMxuWorkRatio, {a, b});
          const double dr = tr.step("Padding granularity ratio", kMxuPaddingRatio, {a, b});
          return Answers{{"flops_per_cycle_ratio", ratio},
                         {"dim_ratio", dr},
                         {"flops_per_cycle_per_mxu_v6e", fa}};
        },
};

constexpr double kE8VregsPerCore[] = {32, 64};
constexpr double kE8CoresPerChip[] = {1, 2};
constexpr Param kE8Given[] = {chip("v5p"),
                              big_count("vregs_per_core", 64, "VREGs per core", kE8VregsPerCore),
                              big_count("sublanes", 8, "sublanes"),
                              big_count("lanes", 128, "lanes"),
                              per_param("bytes_per_word", 4, "bytes per 32-bit word"),
                              big_count("cores_per_chip", 2, "cores per chip", kE8CoresPerChip)};
constexpr Slot kE8Slots[] = {number("vreg_bytes_per_core", "B", "VREG bytes per core"),
                             number("vreg_bytes_per_chip", "B", "VREG bytes per chip")};
constexpr Problem kE8{
    .id = "tpus.E8",
    .title = "Vector register capacity on v5p",
    .statement =
        "A {chip} TensorCore has {vregs_per_core} vector registers, each {sublanes} x {lanes} "
        "words of {bytes_per_word}, and the chip has {cores_per_chip} cores. How many bytes "
        "do the registers hold per core and per chip?",
    .kind = "numeric",
    .given = kE8Given,
    .slots = kE8Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double v = in.num("vregs_per_core"), s = in.num("sublanes"), l = in.num("lanes"),
                 w = in.num("bytes_per_word");
          const double core = tr.step("Per core", kVregBytes, {v, s, l, w});
          const double chip = tr.step("Per chip", kVregChip, {in.num("cores_per_chip"), core});
          Answers a{{"vreg_bytes_per_core", core}, {"vreg_bytes_per_chip", chip}};
          a.book("vreg_bytes_per_core", units::decimal_name(core),
                 "writes " + units::decimal_name_text(core));
          a.book("vreg_bytes_per_chip", units::decimal_name(chip),
                 "writes " + units::decimal_name_text(chip));
          return a;
        },
};

constexpr double kE9ChipsPerTray[] = {4, 8};
constexpr double kE9TraysPerHostV5e[] = {1, 2, 4};
constexpr Param kE9Given[] = {
    big_count("chips_per_tray", 4, "chips on one tray", kE9ChipsPerTray),
    big_count("cores_per_chip_v4_v5p", 2, "TensorCores per v4/v5p chip"),
    big_count("trays_per_host_v4_v5p", 1, "trays per v4/v5p host"),
    big_count("trays_per_host_v5e", 2, "trays per v5e host", kE9TraysPerHostV5e),
    big_count("cores_per_chip_v5e", 1, "TensorCores per v5e chip")};
constexpr Slot kE9Slots[] = {number("cores_per_tray_v5p", "count", "cores per v5p tray"),
                             number("megacores_per_tray_v5p", "count", "megacores per v5p tray"),
                             number("chips_per_host_v5e", "chips", "chips per v5e host"),
                             number("cores_per_host_v5e", "count", "cores per v5e host"),
                             number("cores_visible_per_vm_v5e", "count", "cores one v5e VM sees")};
constexpr Problem kE9{
    .id = "tpus.E9",
    .title = "Chips and cores per tray and host",
    .statement =
        "A tray holds {chips_per_tray} {chips_per_tray|chip|chips}. Training chips (v4, v5p) "
        "have {cores_per_chip_v4_v5p} cores joined as one megacore and {trays_per_host_v4_v5p} "
        "{trays_per_host_v4_v5p|tray|trays} per host; v5e has {cores_per_chip_v5e} "
        "{cores_per_chip_v5e|core|cores} per chip and {trays_per_host_v5e} "
        "{trays_per_host_v5e|tray|trays} per host, and a Cloud TPU VM sees one tray. Count cores "
        "and megacores per "
        "v5p tray, chips and cores per v5e host, and cores visible to one v5e VM.",
    .kind = "numeric",
    .given = kE9Given,
    .slots = kE9Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double tray = in.num("chips_per_tray"), cp = in.num("cores_per_chip_v4_v5p"),
                 ce = in.num("cores_per_chip_v5e"), te = in.num("trays_per_host_v5e");
          const double a = tr.step("Cores per v5p tray", kCores, {tray, cp});
          const double b = tr.value("Megacores per v5p tray: one per chip", tray, "count");
          const double c = tr.step("Chips per v5e host", kTrayChips, {te, tray});
          const double d = tr.step("Cores per v5e host", kCores, {c, ce});
          const double e = tr.step("Cores one VM sees (one tray)", kCores, {tray, ce});
          return Answers{{"cores_per_tray_v5p", a},
                         {"megacores_per_tray_v5p", b},
                         {"chips_per_host_v5e", c},
                         {"cores_per_host_v5e", d},
                         {"cores_visible_per_vm_v5e", e}};
        },
};

// Chip figures only, and every chip of the tables that states them all (v5p, v5e) has the book's
// values: no variant could change anything, so there are none.
constexpr Param kE10Given[] = {chip("v5p"), big_count("sublanes", 8, "sublanes"),
                               big_count("lanes", 128, "lanes"),
                               big_count("alus_per_lane_sublane", 4, "ALUs per (lane, sublane)"),
                               big_count("mxu_dim", 128, "MXU side")};
constexpr Slot kE10Slots[] = {number("vpu_alus_per_core", "count", "VPU ALUs per core"),
                              number("mxu_cells", "count", "MXU cells"),
                              number("sublane_reduction_steps", "count", "rotate-and-add steps")};
constexpr Problem kE10{
    .id = "tpus.E10",
    .title = "Unit counts and sublane reduction steps",
    .statement =
        "A {chip} VPU is {sublanes} sublanes x {lanes} lanes with {alus_per_lane_sublane} ALUs "
        "per cell, and its MXU is {mxu_dim} x {mxu_dim}. How many ALUs does one core's VPU "
        "have, how many multiply-add cells does the MXU have, and how many rotate-and-add "
        "steps reduce a register across its sublanes?",
    .kind = "numeric",
    .given = kE10Given,
    .slots = kE10Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double s = in.num("sublanes"), l = in.num("lanes"), a = in.num("alus_per_lane_sublane"),
                 S = in.num("mxu_dim");
          const double alus = tr.step("VPU ALUs per core", kVpuAlus, {s, l, a});
          const double cells = tr.step("MXU cells", kMxuCells, {S});
          sublane_reduction_steps(static_cast<int>(s), "sublanes");  // a power of two, or an error
          const double steps = tr.step("Halvings of the sublane axis", kHalvings, {s});
          return Answers{{"vpu_alus_per_core", alus},
                         {"mxu_cells", cells},
                         {"sublane_reduction_steps", steps}};
        },
};

// The chip figures vary together: a variant draws one real chip with them all (v5e).
constexpr Param kPQ1Given[] = {
    chip("v5p"),
    chip_spec(big_count("sublanes", 8, "sublanes"), "vpu_sublanes"),
    chip_spec(big_count("lanes", 128, "lanes"), "vpu_lanes"),
    chip_spec(big_count("alus_per_lane_sublane", 4, "ALUs per (lane, sublane)"),
              "vpu_alus_per_cell"),
    chip_spec(big_count("cores_per_chip", 2, "TensorCores per chip"), "cores_per_chip"),
    chip_spec(rate("clock_hz", "per_s", 1.75e9, "clock frequency"), "clock_hz"),
    chip_spec(rate("mxu_peak_bf16_flops_per_s_per_chip", "flop_per_s", 4.59e14,
                   "MXU bf16 peak of the chip"),
              "peak_flops_bf16")};
constexpr Slot kPQ1Slots[] = {
    number("vpu_flops_per_cycle_core", "flop", "VPU FLOPs per cycle, one core"),
    number("vpu_flops_per_s_core", "flop_per_s", "VPU FLOPs/s, one core"),
    number("mxu_to_vpu_ratio", "ratio", "MXU rate / VPU rate, per core"),
    number("vpu_flops_per_s_chip", "flop_per_s", "VPU FLOPs/s, whole chip")};
constexpr Problem kPQ1{
    .id = "tpus.PQ1",
    .title = "VPU throughput of one v5p core",
    .statement =
        "A {chip} TensorCore's VPU is {sublanes} x {lanes} cells with {alus_per_lane_sublane} "
        "fp32 ALUs each, clocked at {clock_hz}; the chip has {cores_per_chip} "
        "{cores_per_chip|core|cores} and an "
        "MXU peak of {mxu_peak_bf16_flops_per_s_per_chip}. What are one core's vector FLOPs "
        "per cycle and per second, how many times faster is that core's MXU share, and what "
        "is the chip's total VPU rate?",
    .kind = "numeric",
    .given = kPQ1Given,
    .slots = kPQ1Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double s = in.num("sublanes"), l = in.num("lanes"), a = in.num("alus_per_lane_sublane"),
                 c = in.num("cores_per_chip"), clk = in.num("clock_hz"),
                 mxu = in.num("mxu_peak_bf16_flops_per_s_per_chip");
          const double cyc =
              tr.step("VPU FLOPs per cycle per core (one op per ALU)", kVpuCycle, {s, l, a});
          const double core = tr.step("VPU FLOPs/s per core", kVpuCore, {cyc, clk});
          const double mxu_core = tr.step("MXU rate of one core", kMxuPerCore, {mxu, c});
          const double ratio =
              tr.step("MXU over VPU, core against core", kMxuOverVpu, {mxu_core, core});
          const double chip = tr.step("VPU FLOPs/s of the chip", roofline::kVpuChip, {core, c});
          Answers out{{"vpu_flops_per_cycle_core", cyc},
                      {"vpu_flops_per_s_core", core},
                      {"mxu_to_vpu_ratio", ratio},
                      {"vpu_flops_per_s_chip", chip}};
          // The prose's round MXU figure: 5e14 per chip, 2.5e14 per core for v5p's 4.59e14.
          const double round = units::round_sig(mxu, 1);
          if (round != mxu)
            out.book("mxu_to_vpu_ratio", ratio_of(even_share(round, c), core),
                     "rounds the MXU peak to " + units::format(round, "flop_per_s") +
                         " per chip (" + units::format(round / c, "flop_per_s") +
                         " per core), as its prose does");
          return out;
        },
    .hint = "Compare like with like: one core's VPU against one core's share of the MXU peak.",
};

constexpr Problem kExamples[] = {kE1, kE2, kE3, kE4, kE5, kE6, kE7, kE8, kE9, kE10, kPQ1};

}  // namespace

void add_problems_examples(Registry& r) { r.add(kExamples); }

}  // namespace sb::tpus
