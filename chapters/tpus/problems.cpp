// The TPU chapter's worked examples and end-of-chapter problems (ids and slots as in
// shared/book/problems/tpus.json). Every answer comes from model.hpp applied to the problem's own
// inputs; the statements are ours. The records are constant data (see core/registry.hpp).
#include <cmath>
#include <span>
#include <string>

#include "chapters/tpus/model.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"

// Problems are written with designated initializers; the members left out keep their defaults,
// which is what this warning is about.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::tpus {
namespace {

// TPU counts run up to chip and parameter counts, so their bound is 1e12 rather than core's 1e7.
constexpr Param big_count(Text name, double def, Text doc, Variants variants = {}) {
  return count(name, def, doc, variants, 0, 1e12);
}
constexpr Param chip(Text def) { return chip_param(def, "the chip the problem is about"); }

// "v5e 4x4" -> chip and torus (Q6 writes the slice that way).
Torus chip_slice(const std::string& text, const std::string& field,
                 const hw::Chip** chip_out = nullptr) {
  size_t sp = text.find_last_of(' ');
  if (sp == std::string::npos)
    fail(field, field + ": write the slice as chip and shape, like 'v5e 4x4'", "bad_shape");
  const hw::Chip& c = hw::chip(text.substr(0, sp), field);
  if (chip_out) *chip_out = &c;
  return slice_torus(c, parse_shape(text.substr(sp + 1), field), "auto", field);
}

// The dtype of "bf16[D, F]" (dims may be symbols here).
double dtype_size(const std::string& text, const std::string& field) {
  size_t open = text.find('[');
  std::string dt = text.substr(0, open);
  while (!dt.empty() && dt.back() == ' ') dt.pop_back();
  return hw::dtype_bytes(dt, field);
}

// ------------------------------------------------------------------------------------------------

constexpr double kE1MxuDim[] = {128, 256};
constexpr double kE1ClockHz[] = {1.5e9, 1.75e9, 1.05e9};
constexpr double kE1MxusPerCore[] = {2, 4};
constexpr double kE1CoresPerChip[] = {1, 2};
constexpr Param kE1Given[] = {
    chip("v5e"),
    big_count("mxu_dim", 128, "side of the systolic array", kE1MxuDim),
    big_count("lhs_rows_per_op", 8, "rows of the LHS block per MXU op"),
    big_count("cycles_per_op", 8, "cycles per MXU op"),
    given("clock_hz", "per_s", 1.5e9, "clock frequency", kE1ClockHz),
    big_count("mxus_per_core", 4, "MXUs per TensorCore", kE1MxusPerCore),
    big_count("cores_per_chip", 1, "TensorCores per chip", kE1CoresPerChip),
    given("int8_speedup", "ratio", 2, "int8 rate over bf16 rate")};
constexpr Slot kE1Slots[] = {
    number("mxu_flops_per_s", "flop_per_s", "bf16 FLOPs/s of one MXU"),
    number("chip_bf16_flops_per_s", "flop_per_s", "bf16 FLOPs/s of the chip"),
    number("chip_int8_ops_per_s", "flop_per_s", "int8 OPs/s of the chip")};
constexpr Problem kE1{
    .id = "tpus.E1",
    .title = "MXU and v5e chip peak throughput",
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
          double per_cycle =
              tr.step("FLOPs per cycle of one MXU", "\\frac{2 \\cdot r \\cdot S^2}{c}",
                      "\\frac{# \\cdot # \\cdot # \\cdot #}{#}", {2, rows, S, S, cyc},
                      mxu_flops_per_cycle(S, rows, cyc), "flop");
          double mxu =
              tr.step("One MXU's bf16 rate", "\\mathrm{FLOPs/cycle} \\cdot f", "# \\cdot #",
                      {per_cycle, clk}, mxu_flops_per_s(S, clk, rows, cyc), "flop_per_s");
          double cores = in.num("cores_per_chip"), mxus = in.num("mxus_per_core");
          double chip_rate =
              tr.step("The chip: cores x MXUs x one MXU", "n_{core} \\cdot n_{MXU} \\cdot R_{MXU}",
                      "# \\cdot # \\cdot #", {cores, mxus, mxu}, cores * mxus * mxu, "flop_per_s");
          double k = in.num("int8_speedup");
          double i8 = tr.step("int8 at the stated speed-up", "k \\cdot R_{chip}", "# \\cdot #",
                              {k, chip_rate}, k * chip_rate, "flop_per_s");
          return Answers{{"mxu_flops_per_s", mxu},
                         {"chip_bf16_flops_per_s", chip_rate},
                         {"chip_int8_ops_per_s", i8}};
        },
    .hint = "Each op does rows x S x S multiply-adds, and a multiply-add is 2 FLOPs.",
};

constexpr double kE2PeakBf16FlopsPerSPerChip[] = {5e14, 4.59e14};
constexpr Param kE2Given[] = {
    chip("v5p"), text("pod_shape", "16x20x28", "the pod's torus shape"),
    given("chips", "chips", 8960, "chips in the pod"),
    given("peak_bf16_flops_per_s_per_core", "flop_per_s", 2.5e14, "bf16 peak of one core"),
    given("peak_bf16_flops_per_s_per_chip", "flop_per_s", 5e14, "bf16 peak of one chip",
          kE2PeakBf16FlopsPerSPerChip)};
constexpr Slot kE2Slots[] = {
    number("pod_flops_per_s", "flop_per_s", "bf16 FLOPs/s of the pod", 0.115)};
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
          double chips =
              tr.step("Chips in the pod", "\\prod_i n_i", shape_text(d), chip_count(d), "chips");
          if (chips != in.num("chips"))
            fail("chips", "chips: " + shape_text(d) + " holds " +
                              std::to_string(static_cast<long long>(chips)) + " chips, not " +
                              std::to_string(static_cast<long long>(in.num("chips"))));
          double per = in.num("peak_bf16_flops_per_s_per_chip");
          double total = tr.step("Aggregate peak", "N_{chips} \\cdot R_{chip}", "# \\cdot #",
                                 {chips, per}, chips * per, "flop_per_s");
          tr.note(
              "With the spec table's 4.59e14 per chip instead, the pod gives about 4.1e18 "
              "FLOPs/s.");
          return Answers{{"pod_flops_per_s", total}};
        },
};

constexpr double kE3PeakBf16FlopsPerS[] = {1.97e14, 4.59e14, 9.2e14};
constexpr double kE3HbmBwBps[] = {8.2e11, 2.8e12, 1.6e12};
constexpr double kE3VmemToHbmBwRatio[] = {22, 10, 30};
constexpr Param kE3Given[] = {
    chip("v5e"),
    given("peak_bf16_flops_per_s", "flop_per_s", 1.97e14, "bf16 peak", kE3PeakBf16FlopsPerS),
    given("hbm_bw_Bps", "B_per_s", 8.2e11, "HBM bandwidth", kE3HbmBwBps),
    given("vmem_to_hbm_bw_ratio", "ratio", 22, "VMEM bandwidth over HBM bandwidth",
          kE3VmemToHbmBwRatio)};
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
          double bw = tr.step("VMEM bandwidth", "BW_{VMEM} = k \\cdot BW_{HBM}", "# \\cdot #",
                              {k, hbm}, vmem_bw(hbm, k), "B_per_s");
          tr.step("HBM ridge for comparison", "I_{HBM} = \\mathrm{peak}/BW_{HBM}", "\\frac{#}{#}",
                  {peak, hbm}, roofline::critical_intensity(peak, hbm), "flop_per_B");
          double i = tr.step("VMEM ridge", "I_{VMEM} = \\mathrm{peak}/BW_{VMEM}", "\\frac{#}{#}",
                             {peak, bw}, roofline::critical_intensity(peak, bw), "flop_per_B");
          return Answers{{"i_crit_vmem", i}};
        },
};

constexpr double kE4PcieBwBps[] = {1.6e10, 3.2e10};
constexpr double kE4HbmBwBps[] = {1.2e12, 8.2e11, 2.8e12};
constexpr Param kE4Given[] = {
    chip("v4p"), given("pcie_bw_Bps", "B_per_s", 1.6e10, "PCIe bandwidth per chip", kE4PcieBwBps),
    given("hbm_bw_Bps", "B_per_s", 1.2e12, "HBM bandwidth", kE4HbmBwBps)};
constexpr Slot kE4Slots[] = {
    number("hbm_to_pcie_ratio", "ratio", "HBM bandwidth / PCIe bandwidth", 0.355)};
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
          return Answers{{"hbm_to_pcie_ratio", tr.step("Ratio", "BW_{HBM}/BW_{PCIe}",
                                                       "\\frac{#}{#}", {h, pc}, h / pc, "ratio")}};
        },
    .hint = "The book calls it close to 100x; the table figures give the exact ratio.",
};

constexpr double kE5HbmBwBps[] = {2.8e12, 2.5e12};
constexpr double kE5IciBwPerAxisBps[] = {9e10, 1e11};
constexpr double kE5DcnEgressPerChipBps[] = {6.25e9, 3.125e9, 1.25e10};
constexpr Param kE5Given[] = {
    chip("v5p"), given("hbm_bw_Bps", "B_per_s", 2.8e12, "HBM bandwidth", kE5HbmBwBps),
    given("ici_bw_per_axis_Bps", "B_per_s", 9e10, "ICI bandwidth per axis", kE5IciBwPerAxisBps),
    big_count("ici_axes_per_chip", 3, "ICI axes per chip"),
    given("dcn_egress_per_chip_Bps", "B_per_s", 6.25e9, "DCN egress per chip",
          kE5DcnEgressPerChipBps)};
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
          double a =
              tr.step("HBM over ICI", "BW_{HBM}/BW_{ICI}", "\\frac{#}{#}", {h, i}, h / i, "ratio");
          double b =
              tr.step("ICI over DCN", "BW_{ICI}/BW_{DCN}", "\\frac{#}{#}", {i, d}, i / d, "ratio");
          double axes = in.num("ici_axes_per_chip");
          tr.step("All ICI axes together", "n_{axes} \\cdot BW_{ICI}", "# \\cdot #", {axes, i},
                  axes * i, "B_per_s");
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
          Torus line{{16}, {false}}, ring{{16}, {true}};
          tr.step("Worst case on a line of 16", "N - 1", "16 - 1", max_distance(line), "count");
          tr.step("Worst case on a ring of 16", "\\lfloor N/2 \\rfloor", "\\lfloor 16/2 \\rfloor",
                  max_distance(ring), "count");
          tr.step("Per-axis bandwidth on the ring (both directions) over the line",
                  "2 W_{uni} / W_{uni}", "2", axis_bw(1, true) / axis_bw(1, false), "ratio");
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
          double fa = tr.step("New MXU per cycle", "2 S^2", "# \\cdot # \\cdot #", {2, a, a},
                              mxu_flops_per_cycle(a), "flop");
          double fb = tr.step("Old MXU per cycle", "2 S^2", "# \\cdot # \\cdot #", {2, b, b},
                              mxu_flops_per_cycle(b), "flop");
          double ratio = tr.step("Work ratio", "(S_{new}/S_{old})^2", "\\frac{#}{#}", {fa, fb},
                                 fa / fb, "ratio");
          double dr = tr.step("Padding granularity ratio", "S_{new}/S_{old}", "\\frac{#}{#}",
                              {a, b}, padded_dim(1, a) / padded_dim(1, b), "ratio");
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
                              given("bytes_per_word", "B", 4, "bytes per 32-bit word"),
                              big_count("cores_per_chip", 2, "cores per chip", kE8CoresPerChip)};
constexpr Slot kE8Slots[] = {number("vreg_bytes_per_core", "B", "VREG bytes per core", 0.03),
                             number("vreg_bytes_per_chip", "B", "VREG bytes per chip", 0.03)};
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
          double core = tr.step("Per core", "n_{VREG} \\cdot 8 \\cdot 128 \\cdot 4\\,\\mathrm{B}",
                                "# \\cdot # \\cdot # \\cdot #", {v, s, l, w},
                                vreg_bytes_per_core(v, s, l, w), "B");
          double c = in.num("cores_per_chip");
          double chip = tr.step("Per chip", "n_{core} \\cdot \\mathrm{per\\ core}", "# \\cdot #",
                                {c, core}, c * core, "B");
          return Answers{{"vreg_bytes_per_core", core}, {"vreg_bytes_per_chip", chip}};
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
        "A tray holds {chips_per_tray} chips. Training chips (v4, v5p) have "
        "{cores_per_chip_v4_v5p} cores joined as one megacore and {trays_per_host_v4_v5p} "
        "tray per host; v5e has {cores_per_chip_v5e} core per chip and {trays_per_host_v5e} "
        "trays per host, and a Cloud TPU VM sees one tray. Count cores and megacores per "
        "v5p tray, chips and cores per v5e host, and cores visible to one v5e VM.",
    .kind = "numeric",
    .given = kE9Given,
    .slots = kE9Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double tray = in.num("chips_per_tray"), cp = in.num("cores_per_chip_v4_v5p"),
                 ce = in.num("cores_per_chip_v5e"), te = in.num("trays_per_host_v5e");
          double a = tr.step("Cores per v5p tray", "n_{chip} \\cdot n_{core}", "# \\cdot #",
                             {tray, cp}, core_count(tray, cp), "count");
          double b = tr.step("Megacores per v5p tray (one per chip)", "n_{chip}", "#", {tray}, tray,
                             "count");
          double c = tr.step("Chips per v5e host", "n_{tray} \\cdot n_{chip}", "# \\cdot #",
                             {te, tray}, te * tray, "chips");
          double d = tr.step("Cores per v5e host", "n_{chip} \\cdot n_{core}", "# \\cdot #",
                             {c, ce}, core_count(c, ce), "count");
          double e = tr.step("Cores one VM sees (one tray)", "n_{chip/tray} \\cdot n_{core}",
                             "# \\cdot #", {tray, ce}, core_count(tray, ce), "count");
          return Answers{{"cores_per_tray_v5p", a},
                         {"megacores_per_tray_v5p", b},
                         {"chips_per_host_v5e", c},
                         {"cores_per_host_v5e", d},
                         {"cores_visible_per_vm_v5e", e}};
        },
};

constexpr double kE10Sublanes[] = {8, 16};
constexpr double kE10AlusPerLaneSublane[] = {2, 4};
constexpr double kE10MxuDim[] = {128, 256};
constexpr Param kE10Given[] = {
    chip("v5p"), big_count("sublanes", 8, "sublanes", kE10Sublanes),
    big_count("lanes", 128, "lanes"),
    big_count("alus_per_lane_sublane", 4, "ALUs per (lane, sublane)", kE10AlusPerLaneSublane),
    big_count("mxu_dim", 128, "MXU side", kE10MxuDim)};
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
          double alus =
              tr.step("VPU ALUs per core", "n_{sub} \\cdot n_{lane} \\cdot n_{ALU}",
                      "# \\cdot # \\cdot #", {s, l, a}, vpu_alus_per_core(s, l, a), "count");
          double cells = tr.step("MXU cells", "S^2", "# \\cdot #", {S, S}, mxu_cells(S), "count");
          double steps =
              tr.step("Halvings of the sublane axis", "\\log_2 n_{sub}", "\\log_2 #", {s},
                      sublane_reduction_steps(static_cast<int>(s), "sublanes"), "count");
          return Answers{{"vpu_alus_per_core", alus},
                         {"mxu_cells", cells},
                         {"sublane_reduction_steps", steps}};
        },
};

constexpr double kPQ1AlusPerLaneSublane[] = {2, 4};
constexpr double kPQ1CoresPerChip[] = {1, 2};
constexpr double kPQ1ClockHz[] = {1.5e9, 1.75e9};
constexpr double kPQ1MxuPeakBf16FlopsPerSPerChip[] = {4.59e14, 1.97e14};
constexpr Param kPQ1Given[] = {
    chip("v5p"),
    big_count("sublanes", 8, "sublanes"),
    big_count("lanes", 128, "lanes"),
    big_count("alus_per_lane_sublane", 4, "ALUs per (lane, sublane)", kPQ1AlusPerLaneSublane),
    big_count("cores_per_chip", 2, "TensorCores per chip", kPQ1CoresPerChip),
    given("clock_hz", "per_s", 1.75e9, "clock frequency", kPQ1ClockHz),
    given("mxu_peak_bf16_flops_per_s_per_chip", "flop_per_s", 4.59e14, "MXU bf16 peak of the chip",
          kPQ1MxuPeakBf16FlopsPerSPerChip)};
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
        "fp32 ALUs each, clocked at {clock_hz}; the chip has {cores_per_chip} cores and an "
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
          double cyc = tr.step("VPU FLOPs per cycle per core (one op per ALU)",
                               "n_{sub} \\cdot n_{lane} \\cdot n_{ALU}", "# \\cdot # \\cdot #",
                               {s, l, a}, vpu_alus_per_core(s, l, a), "flop");
          double core =
              tr.step("VPU FLOPs/s per core", "\\mathrm{FLOPs/cycle} \\cdot f", "# \\cdot #",
                      {cyc, clk}, vpu_flops_per_s_core(cyc, clk), "flop_per_s");
          double mxu_core = tr.step("MXU rate of one core", "R_{MXU,chip}/n_{core}", "\\frac{#}{#}",
                                    {mxu, c}, mxu / c, "flop_per_s");
          double ratio = tr.step("MXU over VPU, core against core", "R_{MXU,core}/R_{VPU,core}",
                                 "\\frac{#}{#}", {mxu_core, core}, mxu_core / core, "ratio");
          double chip = tr.step("VPU FLOPs/s of the chip", "n_{core} \\cdot R_{VPU,core}",
                                "# \\cdot #", {c, core}, c * core, "flop_per_s");
          return Answers{{"vpu_flops_per_cycle_core", cyc},
                         {"vpu_flops_per_s_core", core},
                         {"mxu_to_vpu_ratio", ratio},
                         {"vpu_flops_per_s_chip", chip}};
        },
    .hint = "Compare like with like: one core's VPU against one core's share of the MXU peak.",
};

constexpr Problem kExamples[] = {kE1, kE2, kE3, kE4, kE5, kE6, kE7, kE8, kE9, kE10, kPQ1};

// Question 2 asks the same inventory of a v5e and of a v5p pod; the solve reads everything from
// the inputs, so one maker serves both parts.
constexpr Problem q2(Text id, Text title, std::span<const Param> given,
                     std::span<const Slot> slots) {
  return Problem{
      .id = id,
      .title = title,
      .statement =
          "A full {chip} pod is a {pod_shape} slice; a host serves a {host_shape} block of "
          "chips, each chip has {cores_per_chip} TensorCore(s), {peak_bf16_flops_per_s_per_chip} "
          "of bf16 and {hbm_capacity_per_chip_B} of HBM. How many chips, hosts and TensorCores "
          "does the pod have, and what are its total bf16 FLOPs/s and HBM?",
      .kind = "numeric",
      .given = given,
      .slots = slots,
      .solve =
          [](const Inputs& in, Trace& tr) {
            const hw::Chip& c = hw::chip(in.text("chip"));
            Dims d = parse_shape(in.text("pod_shape"), "pod_shape");
            slice_torus(c, d, "auto", "pod_shape");
            Dims h = parse_shape(in.text("host_shape"), "host_shape");
            double chips = tr.step("Chips", "\\prod_i n_i", shape_text(d), chip_count(d), "chips");
            double per_host =
                tr.step("Chips per host", "\\prod_i h_i", shape_text(h), chip_count(h), "chips");
            double hosts = tr.step("Hosts", "N_{chips} / n_{host}", "\\frac{#}{#}",
                                   {chips, per_host}, host_count(chips, per_host), "count");
            double cpc = in.num("cores_per_chip"), peak = in.num("peak_bf16_flops_per_s_per_chip"),
                   hbm = in.num("hbm_capacity_per_chip_B");
            double cores = tr.step("TensorCores", "N_{chips} \\cdot n_{core}", "# \\cdot #",
                                   {chips, cpc}, core_count(chips, cpc), "count");
            double f = tr.step("Total bf16 FLOPs/s", "N_{chips} \\cdot R_{chip}", "# \\cdot #",
                               {chips, peak}, chips * peak, "flop_per_s");
            double m = tr.step("Total HBM", "N_{chips} \\cdot C_{HBM}", "# \\cdot #", {chips, hbm},
                               chips * hbm, "B");
            return Answers{{"chips", chips},
                           {"hosts", hosts},
                           {"tensorcores", cores},
                           {"pod_flops_per_s", f},
                           {"pod_hbm", m}};
          },
  };
}
constexpr double kQ2CoresPerChip[] = {1, 2};
constexpr double kQ2aPeaks[] = {1.97e14, 2e14, 5e14};
constexpr double kQ2aHbm[] = {1.6e10, 1.6e10, 3.2e10, 9.6e10};
constexpr Param kQ2aGiven[] = {
    chip("v5e"),
    text("pod_shape", "16x16", "slice shape"),
    text("host_shape", "4x2", "chips per host as a shape"),
    big_count("cores_per_chip", 1, "TensorCores per chip", kQ2CoresPerChip),
    given("peak_bf16_flops_per_s_per_chip", "flop_per_s", 1.97e14, "bf16 peak per chip", kQ2aPeaks),
    given("hbm_capacity_per_chip_B", "B", 1.6e10, "HBM per chip", kQ2aHbm)};
constexpr Slot kQ2aSlots[] = {number("chips", "chips", "chips"), number("hosts", "count", "hosts"),
                              number("tensorcores", "count", "TensorCores"),
                              number("pod_flops_per_s", "flop_per_s", "total bf16 FLOPs/s"),
                              number("pod_hbm", "B", "total HBM", 0.025)};
constexpr double kQ2bPeaks[] = {4.59e14, 2e14, 5e14};
constexpr double kQ2bHbm[] = {9.6e10, 1.6e10, 3.2e10, 9.6e10};
constexpr Param kQ2bGiven[] = {
    chip("v5p"),
    text("pod_shape", "16x20x28", "slice shape"),
    text("host_shape", "2x2x1", "chips per host as a shape"),
    big_count("cores_per_chip", 2, "TensorCores per chip", kQ2CoresPerChip),
    given("peak_bf16_flops_per_s_per_chip", "flop_per_s", 4.59e14, "bf16 peak per chip", kQ2bPeaks),
    given("hbm_capacity_per_chip_B", "B", 9.6e10, "HBM per chip", kQ2bHbm)};
constexpr Slot kQ2bSlots[] = {number("chips", "chips", "chips"), number("hosts", "count", "hosts"),
                              number("tensorcores", "count", "TensorCores"),
                              number("pod_flops_per_s", "flop_per_s", "total bf16 FLOPs/s"),
                              number("pod_hbm", "B", "total HBM", 0.02)};

// Question 4: the same int8 matmul with its operands in HBM (a) or in VMEM (b).
constexpr double kQ4DContract[] = {2048, 4096, 8192};
constexpr double kQ4FOut[] = {8192, 16384, 32768};
constexpr double kQ4BytesPerElem[] = {1, 2};
constexpr double kQ4Peaks[] = {3.94e14, 9.18e14};
constexpr double kQ4Hbm[] = {8.2e11, 1.6e12, 2.8e12};
constexpr double kQ4VmemRatios[] = {22, 10, 30};
constexpr Param kQ4aGiven[] = {
    chip("v5e"),
    text("w", "int8[16384, 4096]", "weights"),
    text("x", "int8[B, 4096]", "activations"),
    text("out", "int8[B, 16384]", "output"),
    big_count("d_contract", 4096, "contracted dimension D", kQ4DContract),
    big_count("f_out", 16384, "output dimension F", kQ4FOut),
    given("bytes_per_elem", "B", 1, "bytes per element", kQ4BytesPerElem),
    given("peak_int8_ops_per_s", "flop_per_s", 3.94e14, "int8 peak", kQ4Peaks),
    given("hbm_bw_Bps", "B_per_s", 8.2e11, "HBM bandwidth", kQ4Hbm)};
constexpr Param kQ4bGiven[] = {
    chip("v5e"),
    text("w", "int8[16384, 4096]", "weights"),
    text("x", "int8[B, 4096]", "activations"),
    text("out", "int8[B, 16384]", "output"),
    big_count("d_contract", 4096, "contracted dimension D", kQ4DContract),
    big_count("f_out", 16384, "output dimension F", kQ4FOut),
    given("bytes_per_elem", "B", 1, "bytes per element", kQ4BytesPerElem),
    given("peak_int8_ops_per_s", "flop_per_s", 3.94e14, "int8 peak", kQ4Peaks),
    given("hbm_bw_Bps", "B_per_s", 8.2e11, "HBM bandwidth", kQ4Hbm),
    given("vmem_to_hbm_bw_ratio", "ratio", 22, "VMEM over HBM bandwidth", kQ4VmemRatios)};
constexpr Slot kQ4aSlots[] = {
    number("flops_per_token", "flop", "FLOPs per token", 0.035),
    number("weight_bytes", "B", "weight bytes"),
    number("io_bytes_per_token", "B", "activation + output bytes per token", 0.025),
    number("b_crit", "tokens", "critical batch", 0.035),
    number("t_at_b1", "s", "time at B = 1"),
    number("t_at_b1024", "s", "time at B = 1024")};
constexpr Slot kQ4bSlots[] = {number("vmem_bw_Bps", "B_per_s", "VMEM bandwidth"),
                              number("b_crit_vmem", "tokens", "critical batch from VMEM"),
                              number("t_at_b1_vmem", "s", "time at B = 1")};
template <bool kVmem>
constexpr Problem q4() {
  return Problem{
      .id = kVmem ? "tpus.Q4.b" : "tpus.Q4.a",
      .title = kVmem ? "int8 matmul time from VMEM" : "int8 matmul time from HBM",
      .statement =
          kVmem
              ? "The same {chip} int8 matmul, {x} x {w}^T -> {out}, now reads its operands from "
                "VMEM at {vmem_to_hbm_bw_ratio}x the HBM bandwidth ({hbm_bw_Bps}). What is the "
                "VMEM bandwidth, the batch above which it is compute-bound, and its time at B = 1?"
              : "On {chip} ({peak_int8_ops_per_s} int8, HBM {hbm_bw_Bps}), multiply {x} by "
                "{w}^T giving {out}, all operands in HBM. Give the FLOPs per token, the weight "
                "bytes, the activation and output bytes per token, the batch at which it turns "
                "compute-bound, and its time at B = 1 and B = 1024.",
      .kind = "numeric",
      .given = kVmem ? std::span<const Param>(kQ4bGiven) : std::span<const Param>(kQ4aGiven),
      .slots = kVmem ? std::span<const Slot>(kQ4bSlots) : std::span<const Slot>(kQ4aSlots),
      .solve =
          [](const Inputs& in, Trace& tr) {
            double D = in.num("d_contract"), F = in.num("f_out"), b = in.num("bytes_per_elem"),
                   peak = in.num("peak_int8_ops_per_s"), bw = in.num("hbm_bw_Bps");
            Answers a;
            if (kVmem) {
              double k = in.num("vmem_to_hbm_bw_ratio");
              bw = a["vmem_bw_Bps"] = tr.step("VMEM bandwidth", "k \\cdot BW_{HBM}", "# \\cdot #",
                                              {k, bw}, vmem_bw(bw, k), "B_per_s");
            }
            const roofline::OperandBytes ob{b, b, b};
            const roofline::MatmulCost one = roofline::matmul_cost({1, D, F}, ob);
            double fpt = tr.step("FLOPs per token", "2DF", "# \\cdot # \\cdot #", {2, D, F},
                                 one.flops, "flop");
            double wb = tr.step("Weight bytes", "b \\cdot DF", "# \\cdot # \\cdot #", {b, D, F},
                                one.bytes_w, "B");
            double io = tr.step("Activation and output bytes per token", "b (D + F)", "# (# + #)",
                                {b, D, F}, one.bytes_x + one.bytes_o, "B");
            double I = tr.step("Ridge", "I = \\mathrm{peak}/BW", "\\frac{#}{#}", {peak, bw},
                               roofline::critical_intensity(peak, bw), "flop_per_B");
            tr.note(
                "T(B) = max(2BDF/peak, (b DF + b B(D + F))/BW); the branches cross where B (2DF/I "
                "- b(D+F)) = b DF.");
            const auto crossover = roofline::critical_batch_exact(D, F, ob, I);
            if (!crossover)
              fail("d_contract",
                   "at this D and F no batch is compute-bound: the activation and "
                   "output bytes alone outpace the arithmetic",
                   "out_of_range");
            double bc = tr.step("Critical batch", "B^* = \\frac{b\\,DF}{2DF/I - b(D + F)}",
                                "\\frac{# \\cdot # \\cdot #}{2 \\cdot # \\cdot #/# - #}",
                                {b, D, F, D, F, I, io}, *crossover, "tokens");
            double t1 = tr.step("T at B = 1 (memory-bound)", "\\frac{b\\,DF + b(D+F)}{BW}",
                                "\\frac{# + #}{#}", {wb, io, bw},
                                roofline::matmul_t_lower({1, D, F}, ob, peak, bw), "s");
            if (kVmem) {
              a["b_crit_vmem"] = bc;
              a["t_at_b1_vmem"] = t1;
            } else {
              double t2 = tr.step("T at B = 1024 (compute-bound)",
                                  "\\frac{2 \\cdot 1024 \\cdot DF}{\\mathrm{peak}}",
                                  "\\frac{# \\cdot # \\cdot # \\cdot #}{#}", {2, 1024, D, F, peak},
                                  roofline::matmul_t_lower({1024, D, F}, ob, peak, bw), "s");
              a["flops_per_token"] = fpt;
              a["weight_bytes"] = wb;
              a["io_bytes_per_token"] = io;
              a["b_crit"] = bc;
              a["t_at_b1"] = t1;
              a["t_at_b1024"] = t2;
            }
            return a;
          },
      .hint = kVmem ? ""
                    : "The book rounds its coefficients (1.3e8, 6.7e7, 2e4) and prints 267; "
                      "unrounded they cross at about 259.",
  };
}

// Question 5: hops and first byte across a 4x4 slice (a), then the whole array (b).
constexpr Param kQ5Chip = chip("v5e");
constexpr Param kQ5Slice = text("slice", "4x4", "slice shape");
constexpr Param kQ5Wrap =
    choice("wraparound", "none", "auto|none|all", "wraparound (auto = the chip's rule)");
constexpr Param kQ5Src = text("src", "(0,0)", "sending chip");
constexpr Param kQ5Dst = text("dst", "(3,3)", "receiving chip");
constexpr double kQ5HopLatencies[] = {1e-6, 2e-6};
constexpr Param kQ5HopLatency =
    given("hop_latency_s", "s", 1e-6, "latency per hop", kQ5HopLatencies);
constexpr double kQ5BytesPerElem[] = {1, 2, 4};
constexpr double kQ5LinkBw[] = {4.5e10, 9e10};
constexpr double kQ5Ports[] = {1, 2};
constexpr Param kQ5aGiven[] = {kQ5Chip, kQ5Slice, kQ5Wrap, kQ5Src, kQ5Dst, kQ5HopLatency};
constexpr Param kQ5bGiven[] = {
    kQ5Chip,
    kQ5Slice,
    kQ5Wrap,
    kQ5Src,
    kQ5Dst,
    text("array", "bf16[8, 128, 8192]", "the array sent"),
    given("bytes_per_elem", "B", 2, "bytes per element", kQ5BytesPerElem),
    given("link_bw_one_way_Bps", "B_per_s", 4.5e10, "one-way bandwidth per link", kQ5LinkBw),
    big_count("ports_used", 2, "outgoing links carrying a share", kQ5Ports),
    kQ5HopLatency};
constexpr Slot kQ5aSlots[] = {number("hops", "count", "hops"),
                              number("t_first_byte", "s", "first-byte arrival")};
constexpr Slot kQ5bSlots[] = {number("array_bytes", "B", "array bytes"),
                              number("send_bw_Bps", "B_per_s", "send bandwidth"),
                              number("t_bulk", "s", "bandwidth term"),
                              number("t_transfer", "s", "time until the last byte arrives")};
template <bool kBulk>
constexpr Problem q5() {
  return Problem{
      .id = kBulk ? "tpus.Q5.b" : "tpus.Q5.a",
      .title = kBulk ? "Total transfer time across a 4x4 slice"
                     : "First-byte latency across a 4x4 slice",
      .statement =
          kBulk
              ? "On a {chip} {slice} slice (wraparound: {wraparound}), TPU{src} sends {array} "
                "({bytes_per_elem} per element) to TPU{dst} using {ports_used} outgoing links of "
                "{link_bw_one_way_Bps} one way each, with {hop_latency_s} per hop. How many "
                "bytes is that, what send bandwidth does it get, and when does the whole array "
                "(its bulk, then the last byte's trip) arrive?"
              : "On a {chip} {slice} slice (wraparound: {wraparound}), how many ICI hops separate "
                "TPU{src} from TPU{dst}, and when does the first byte sent arrive at "
                "{hop_latency_s} per hop?",
      .kind = "numeric",
      .given = kBulk ? std::span<const Param>(kQ5bGiven) : std::span<const Param>(kQ5aGiven),
      .slots = kBulk ? std::span<const Slot>(kQ5bSlots) : std::span<const Slot>(kQ5aSlots),
      .solve = [](const Inputs& in, Trace& tr) -> Answers {
        const hw::Chip& c = hw::chip(in.text("chip"));
        Torus t = slice_torus(c, parse_shape(in.text("slice"), "slice"), in.text("wraparound"),
                              "slice", "wraparound");
        Dims a = parse_coord(in.text("src"), t, "src"), b = parse_coord(in.text("dst"), t, "dst");
        std::vector<int> h = hops_per_axis(t, a, b);
        std::string per_axis;
        for (size_t i = 0; i < h.size(); ++i) {
          if (i) per_axis += " + ";
          per_axis += std::to_string(h[i]);
        }
        bool any_wrap = false;
        for (bool w : t.wrap) any_wrap = any_wrap || w;
        int hh =
            static_cast<int>(tr.step(any_wrap ? "Hops, with wraparound" : "Hops, no wraparound",
                                     "\\sum_i d_i", per_axis, hops(t, a, b), "count"));
        double lat = in.num("hop_latency_s");
        double first = tr.step("First byte", "h \\cdot t_{hop}", "# \\cdot #",
                               {static_cast<double>(hh), lat}, ici_first_byte(hh, lat), "s");
        if (!kBulk) return Answers{{"hops", static_cast<double>(hh)}, {"t_first_byte", first}};
        ArraySpec arr = parse_array(in.text("array"), "array");
        double be = in.num("bytes_per_elem"), bw = in.num("link_bw_one_way_Bps");
        int ports = static_cast<int>(in.num("ports_used"));
        double bytes = tr.step("Array bytes", "\\prod_i d_i \\cdot b", "# \\cdot #",
                               {arr.elements, be}, arr.elements * be, "B");
        tr.note("Links from the sender toward the receiver in this slice: " +
                std::to_string(ports_toward(t, a, b)) + ".");
        double sbw = tr.step("Send bandwidth", "n_{ports} \\cdot W_{uni}", "# \\cdot #",
                             {static_cast<double>(ports), bw}, ports * bw, "B_per_s");
        double tb = tr.step("Bulk term", "\\frac{\\mathrm{bytes}}{n_{ports} W_{uni}}",
                            "\\frac{#}{#}", {bytes, sbw}, ici_bulk(bytes, ports, bw), "s");
        double tt = tr.step("Last byte arrives", "T_{bulk} + h \\cdot t_{hop}", "# + #",
                            {tb, first}, ici_p2p_time(bytes, ports, bw, hh, lat), "s");
        return Answers{
            {"array_bytes", bytes}, {"send_bw_Bps", sbw}, {"t_bulk", tb}, {"t_transfer", tt}};
      },
  };
}

// Question 6 shares its setting across parts a-f: the first words of every statement and the
// first inputs.
#define TPUS_Q6_SETTING                                                                          \
  "A = {a} ({a_bytes}) is split evenly over a {slice} slice ({n_chips} chips, {n_hosts} hosts) " \
  "but held in host memory. We want all of it on {dest}, multiplied by a bf16[8, 131072] vector. "

constexpr Param kQ6A = text("a", "int8[131072, 131072]", "the offloaded array");
constexpr Param kQ6ABytes = given("a_bytes", "B", 17179869184.0, "bytes of A");
constexpr Param kQ6Slice = text("slice", "v5e 4x4", "chip and slice shape");
constexpr Param kQ6NChips = given("n_chips", "chips", 16, "chips in the slice", {}, true);
constexpr Param kQ6NHosts = given("n_hosts", "count", 2, "hosts serving the slice", {}, true);
constexpr Param kQ6Dest = text("dest", "TPU{0,0}", "the chip that gathers A");

// The four stages of route 1 (PCIe per chip, ICI gather, HBM stream, compute).
Pipeline q6_pipeline(double a_bytes, double n_chips, double pcie, int links, double ici, double hbm,
                     double vec_bytes, double flops, double peak) {
  return pipeline(
      {make_stage("PCIe: every chip loads its shard", "pcie", a_bytes / n_chips, pcie),
       make_stage("ICI: gather the other shards onto the destination", "ici",
                  a_bytes * (n_chips - 1) / n_chips, links * ici),
       make_stage("HBM: stream A and the vector into the MXU", "hbm", a_bytes + vec_bytes, hbm),
       make_stage("Compute: the matmul at bf16 peak", "compute", flops, peak)});
}

constexpr double kQ1NParams[] = {7e9, 7e10, 2e11, 4.05e11};
constexpr double kQ1BytesPerParam[] = {1, 2, 4};
constexpr double kQ1NChips[] = {8, 16, 32, 64};
constexpr double kQ1HbmBwPerChipBps[] = {1.2e12, 8.2e11};
constexpr double kQ1HbmCapacityPerChipB[] = {1.6e10, 3.2e10, 9.6e10};
constexpr Param kQ1Given[] = {
    given("n_params", "count", 2e11, "parameters", kQ1NParams),
    given("bytes_per_param", "B", 2, "bytes per parameter", kQ1BytesPerParam),
    given("n_chips", "chips", 32, "chips sharing the weights", kQ1NChips, true),
    chip("v4p"),
    given("hbm_bw_per_chip_Bps", "B_per_s", 1.2e12, "HBM bandwidth per chip", kQ1HbmBwPerChipBps),
    given("hbm_capacity_per_chip_B", "B", 3.2e10, "HBM per chip", kQ1HbmCapacityPerChipB)};
constexpr Slot kQ1Slots[] = {number("total_bytes", "B", "weight bytes"),
                             number("bytes_per_chip", "B", "bytes per chip"),
                             number("t_load", "s", "time to read them once"),
                             boolean("fits_in_hbm", "does a chip's share fit in HBM?")};
constexpr Problem kQ1{
    .id = "tpus.Q1",
    .title = "Lower bound on sampling step latency",
    .statement =
        "A model of {n_params} parameters at {bytes_per_param} each is split evenly over "
        "{n_chips} {chip} chips (HBM {hbm_bw_Bps} and {hbm_capacity_per_chip_B} per chip). "
        "Each sampling step must read every weight from HBM at least once: how many bytes is "
        "that in all and per chip, how long does it take at best, and does a chip's share fit?",
    .kind = "numeric",
    .given = kQ1Given,
    .slots = kQ1Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double np = in.num("n_params"), b = in.num("bytes_per_param"), nc = in.num("n_chips"),
                 bw = in.num("hbm_bw_per_chip_Bps"), cap = in.num("hbm_capacity_per_chip_B");
          double total =
              tr.step("Weight bytes", "N_{params} \\cdot b", "# \\cdot #", {np, b}, np * b, "B");
          double per = tr.step("Per chip", "\\mathrm{bytes} / N_{chips}", "\\frac{#}{#}",
                               {total, nc}, total / nc, "B");
          double t = tr.step("Every chip streams its share in parallel",
                             "T_{step} \\geq \\frac{N_{params} b / N_{chips}}{BW_{HBM}}",
                             "\\frac{#}{#}", {per, bw}, decode_step_floor(np, b, nc, bw), "s");
          double fits = tr.step("Fits in HBM?", "\\mathrm{per\\ chip} \\le C_{HBM}", "# \\le #",
                                {per, cap}, per <= cap ? 1 : 0, "bool");
          return Answers{{"total_bytes", total},
                         {"bytes_per_chip", per},
                         {"t_load", t},
                         {"fits_in_hbm", fits}};
        },
};

constexpr double kQ3PeakBf16FlopsPerS[] = {9.2e14, 1.97e14, 4.59e14};
constexpr double kQ3PcieBwBps[] = {1.6e10, 3.2e10};
constexpr double kQ3FOverD[] = {2, 4, 8};
constexpr Param kQ3Given[] = {
    chip("v6e"),
    given("peak_bf16_flops_per_s", "flop_per_s", 9.2e14, "bf16 peak", kQ3PeakBf16FlopsPerS),
    given("pcie_bw_Bps", "B_per_s", 1.6e10, "PCIe bandwidth per chip", kQ3PcieBwBps),
    text("a", "bf16[D, F]", "weights"),
    text("x", "bf16[B, D]", "activations"),
    text("out", "bf16[B, F]", "output"),
    given("f_over_d", "ratio", 4, "F / D", kQ3FOverD),
    text("assumption", "B << D", "regime")};
constexpr Slot kQ3Slots[] = {
    number("b_crit", "tokens", "critical batch (weight traffic only)"),
    number("d_min_for_compute_bound", "count", "smallest D that can be compute-bound")};
constexpr Problem kQ3{
    .id = "tpus.Q3",
    .title = "Critical batch for a matmul over PCIe",
    .statement =
        "On {chip} ({peak_bf16_flops_per_s} bf16), a matmul {x} x {a} -> {out} with F = "
        "{f_over_d} D is fed and drained over PCIe at {pcie_bw_Bps} (assume {assumption}). "
        "How large must B be to stay compute-bound, and below which D is that impossible "
        "once the activation and output traffic are counted too?",
    .kind = "numeric",
    .given = kQ3Given,
    .slots = kQ3Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double peak = in.num("peak_bf16_flops_per_s"), bw = in.num("pcie_bw_Bps"),
                 k = in.num("f_over_d");
          double bw_w = dtype_size(in.text("a"), "a"), bx = dtype_size(in.text("x"), "x"),
                 bo = dtype_size(in.text("out"), "out");
          double I = tr.step("PCIe ridge", "I = \\mathrm{peak}/BW_{PCIe}", "\\frac{#}{#}",
                             {peak, bw}, roofline::critical_intensity(peak, bw), "flop_per_B");
          double b = tr.step("Weights dominate (B << D): 2BDF/peak > b_w DF/BW",
                             "B > \\frac{b_w I}{2}", "\\frac{# \\cdot #}{2}", {bw_w, I},
                             roofline::critical_batch_approx(bw_w, I), "tokens");
          double d =
              tr.step("With all traffic and F = kD, a B exists only if",
                      "D > \\frac{I (b_x + b_o k)}{2k}", "\\frac{# (# + # \\cdot #)}{# \\cdot #}",
                      {I, bx, bo, k, 2, k}, d_min_compute_bound(I, bx, bo, k), "count");
          tr.note(
              "Real D (8k to 16k) is far below that, so such a matmul is never compute-bound "
              "over PCIe, and B near "
              "the critical value contradicts B << D.");
          return Answers{{"b_crit", b}, {"d_min_for_compute_bound", d}};
        },
    .hint = "Keep only the weight bytes DF: the condition becomes B > peak / BW for bf16.",
};

constexpr Param kQ6aGiven[] = {
    kQ6A,
    kQ6ABytes,
    kQ6Slice,
    kQ6NChips,
    kQ6NHosts,
    kQ6Dest,
    text("paths", "PCIe per chip then ICI gather, or DCN to host 0 then PCIe", "the two routes")};
constexpr Problem kQ6a{
    .id = "tpus.Q6.a",
    .title = "Best route to gather a host-offloaded array",
    .statement = TPUS_Q6_SETTING "Which way should the shards travel: {paths}?",
    .kind = "conceptual",
    .given = kQ6aGiven,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const hw::Chip* c = nullptr;
          Torus t = chip_slice(in.text("slice"), "slice", &c);
          Dims dest = parse_coord(in.text("dest"), t, "dest");
          double A = in.num("a_bytes"), N = in.num("n_chips"), H = in.num("n_hosts");
          int links = static_cast<int>(neighbours(t, dest).size());
          tr.step("Links into the destination", "\\deg(\\mathrm{dest})", coord_text(dest), links,
                  "count");
          Pipeline one = pipeline(
              {make_stage("PCIe, all chips in parallel", "pcie", A / N, c->get("pcie_bw")),
               make_stage("ICI gather", "ici", A * (N - 1) / N, links * c->get("ici_bw_oneway"))});
          double host_egress = host_dcn_bw(N / H, c->get("dcn_bw"));
          Pipeline two =
              pipeline({make_stage("DCN from the other hosts", "dcn", A * (H - 1) / H, host_egress),
                        make_stage("PCIe into one chip", "pcie", A, c->get("pcie_bw"))});
          tr.step("Route 1 (PCIe then ICI), slowest stage", "\\max_i T_i",
                  one.stages[one.bottleneck].name, one.t_lower, "s");
          tr.step("Route 2 (DCN then one PCIe link), slowest stage", "\\max_i T_i",
                  two.stages[two.bottleneck].name, two.t_lower, "s");
          return Answers{};
        },
    .model_answer =
        "Load each shard over its own chip's PCIe link (all 16 links work in "
        "parallel), then gather the "
        "shards onto TPU{0,0} over ICI. The other route pushes half the array over "
        "the slow DCN and then "
        "squeezes the whole array through the single PCIe link of the destination "
        "chip, which alone takes "
        "over a second; ICI is far faster than DCN and many PCIe links beat one.",
};

constexpr double kQ6bPcieBwPerChipBps[] = {1.6e10, 3.2e10, 1.5e10};
constexpr Param kQ6bGiven[] = {
    kQ6A,
    kQ6ABytes,
    kQ6Slice,
    kQ6NChips,
    kQ6NHosts,
    kQ6Dest,
    given("pcie_bw_per_chip_Bps", "B_per_s", 1.6e10, "PCIe per chip", kQ6bPcieBwPerChipBps)};
constexpr Slot kQ6bSlots[] = {number("bytes_per_chip", "B", "shard bytes"),
                              number("t_pcie", "s", "PCIe load time")};
constexpr Problem kQ6b{
    .id = "tpus.Q6.b",
    .title = "Parallel PCIe load time",
    .statement = TPUS_Q6_SETTING
    "Each chip pulls its own shard over PCIe at {pcie_bw_per_chip_Bps}. How big "
    "is a shard, and how long does the load take?",
    .kind = "numeric",
    .given = kQ6bGiven,
    .slots = kQ6bSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double A = in.num("a_bytes"), N = in.num("n_chips"), bw = in.num("pcie_bw_per_chip_Bps");
          double per = tr.step("Shard per chip", "A / N", "\\frac{#}{#}", {A, N}, A / N, "B");
          double t = tr.step("All links in parallel", "\\frac{A/N}{BW_{PCIe}}", "\\frac{#}{#}",
                             {per, bw}, pcie_sharded_time(A, N, bw), "s");
          return Answers{{"bytes_per_chip", per}, {"t_pcie", t}};
        },
};

constexpr double kQ6cLinksIntoDest[] = {1, 2, 4};
constexpr double kQ6cIciBwOneWayBps[] = {4.5e10, 9e10};
constexpr Param kQ6cGiven[] = {
    kQ6A,
    kQ6ABytes,
    kQ6Slice,
    kQ6NChips,
    kQ6NHosts,
    kQ6Dest,
    given("fraction_received", "ratio", 0.9375, "share of A that arrives over ICI", {}, false, 1),
    big_count("links_into_dest", 2, "ICI links into the destination", kQ6cLinksIntoDest),
    given("ici_bw_one_way_Bps", "B_per_s", 4.5e10, "one-way ICI per link", kQ6cIciBwOneWayBps)};
constexpr Slot kQ6cSlots[] = {number("bytes_received", "B", "bytes received over ICI"),
                              number("t_ici", "s", "gather time (lower bound)"),
                              number("t_allgather_estimate", "s", "AllGather estimate")};
constexpr Problem kQ6c{
    .id = "tpus.Q6.c",
    .title = "ICI gather time onto one chip",
    .statement = TPUS_Q6_SETTING
    "The destination, a corner chip, receives the other shards "
    "({fraction_received} of A) over its {links_into_dest} ICI links at "
    "{ici_bw_one_way_Bps} one way each. Give the bytes it receives, a lower "
    "bound on the gather time, and the estimate for a full AllGather of A over "
    "the same links.",
    .kind = "numeric",
    .given = kQ6cGiven,
    .slots = kQ6cSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double A = in.num("a_bytes"), f = in.num("fraction_received"),
                 bw = in.num("ici_bw_one_way_Bps");
          int k = static_cast<int>(in.num("links_into_dest"));
          double got =
              tr.step("Bytes that must arrive", "f \\cdot A", "# \\cdot #", {f, A}, f * A, "B");
          double t =
              tr.step("Receiving over k links", "\\frac{fA}{k W_{uni}}", "\\frac{#}{# \\cdot #}",
                      {got, static_cast<double>(k), bw}, gather_time(got, k, bw), "s");
          double ag = tr.step("A full AllGather moves about all of A through the same links",
                              "\\frac{A}{k W_{uni}}", "\\frac{#}{# \\cdot #}",
                              {A, static_cast<double>(k), bw}, gather_time(A, k, bw), "s");
          tr.note(
              "The load on the links is uneven in practice, so the real gather may take up to "
              "twice the bound.");
          return Answers{{"bytes_received", got}, {"t_ici", t}, {"t_allgather_estimate", ag}};
        },
};

constexpr double kQ6dHbmBwBps[] = {8.2e11, 1.6e12};
constexpr double kQ6dHbmCapacityPerChipB[] = {1.6e10, 3.2e10};
constexpr Param kQ6dGiven[] = {
    kQ6A,
    kQ6ABytes,
    kQ6Slice,
    kQ6NChips,
    kQ6NHosts,
    kQ6Dest,
    given("vector_bytes", "B", 2097152, "bytes of the bf16 vector"),
    given("hbm_bw_Bps", "B_per_s", 8.2e11, "HBM bandwidth", kQ6dHbmBwBps),
    given("hbm_capacity_per_chip_B", "B", 1.6e10, "HBM per chip", kQ6dHbmCapacityPerChipB)};
constexpr Slot kQ6dSlots[] = {
    number("t_hbm", "s", "HBM streaming time"),
    boolean("a_fits_in_dest_hbm", "does A fit in the destination's HBM?")};
constexpr Problem kQ6d{
    .id = "tpus.Q6.d",
    .title = "HBM to MXU streaming time",
    .statement = TPUS_Q6_SETTING
    "Once gathered, A and the {vector_bytes} vector stream from HBM "
    "({hbm_bw_Bps}) into the MXU. How long does that take, and does A even fit "
    "in the destination's {hbm_capacity_per_chip_B} of HBM?",
    .kind = "numeric",
    .given = kQ6dGiven,
    .slots = kQ6dSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double A = in.num("a_bytes"), v = in.num("vector_bytes"), bw = in.num("hbm_bw_Bps"),
                 cap = in.num("hbm_capacity_per_chip_B");
          double t = tr.step("Stream A and the vector", "\\frac{A + v}{BW_{HBM}}",
                             "\\frac{# + #}{#}", {A, v, bw}, roofline::t_comms(A + v, bw), "s");
          double fits = tr.step("A fits?", "A + v \\le C_{HBM}", "# \\le #", {A + v, cap},
                                A + v <= cap ? 1 : 0, "bool");
          if (!fits)
            tr.note(
                "It does not: A alone is larger than one chip's HBM, so the plan only works in "
                "pieces.");
          return Answers{{"t_hbm", t}, {"a_fits_in_dest_hbm", fits}};
        },
};

constexpr double kQ6ePeakBf16FlopsPerS[] = {1.97e14, 9.2e14};
constexpr Param kQ6eGiven[] = {
    kQ6A,
    kQ6ABytes,
    kQ6Slice,
    kQ6NChips,
    kQ6NHosts,
    kQ6Dest,
    text("vector", "bf16[8, 131072]", "the vector"),
    given("peak_bf16_flops_per_s", "flop_per_s", 1.97e14, "bf16 peak", kQ6ePeakBf16FlopsPerS)};
constexpr Slot kQ6eSlots[] = {number("flops", "flop", "FLOPs"),
                              number("t_flops", "s", "compute time")};
constexpr Problem kQ6e{
    .id = "tpus.Q6.e",
    .title = "FLOPs and compute time of final matmul",
    .statement = TPUS_Q6_SETTING
    "How many FLOPs is the product {vector} x A, and how long does it take at "
    "{peak_bf16_flops_per_s}?",
    .kind = "numeric",
    .given = kQ6eGiven,
    .slots = kQ6eSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          ArraySpec a = parse_array(in.text("a"), "a"),
                    v = parse_array(in.text("vector"), "vector");
          if (a.dims.size() != 2 || v.dims.size() != 2 || v.dims[1] != a.dims[0])
            fail("vector",
                 "vector: its last dimension must match A's first to multiply vector x A");
          double B = v.dims[0], D = a.dims[0], F = a.dims[1],
                 peak = in.num("peak_bf16_flops_per_s");
          double f = tr.step("FLOPs", "2 B D F", "# \\cdot # \\cdot # \\cdot #", {2, B, D, F},
                             roofline::matmul_flops({B, D, F}), "flop");
          double t = tr.step("At peak", "\\mathrm{FLOPs}/\\mathrm{peak}", "\\frac{#}{#}", {f, peak},
                             roofline::t_math(f, peak), "s");
          return Answers{{"flops", f}, {"t_flops", t}};
        },
};

constexpr double kQ6fPcieBwPerChipBps[] = {1.6e10, 3.2e10};
constexpr double kQ6fIciBwOneWayBps[] = {4.5e10, 9e10};
constexpr double kQ6fLinksIntoDest[] = {2, 4};
constexpr double kQ6fHbmBwBps[] = {8.2e11, 1.6e12};
constexpr double kQ6fPeakBf16FlopsPerS[] = {1.97e14, 9.2e14};
constexpr Param kQ6fGiven[] = {
    kQ6A,
    kQ6ABytes,
    kQ6Slice,
    kQ6NChips,
    kQ6NHosts,
    kQ6Dest,
    given("pcie_bw_per_chip_Bps", "B_per_s", 1.6e10, "PCIe per chip", kQ6fPcieBwPerChipBps),
    given("ici_bw_one_way_Bps", "B_per_s", 4.5e10, "one-way ICI per link", kQ6fIciBwOneWayBps),
    big_count("links_into_dest", 2, "ICI links into the destination", kQ6fLinksIntoDest),
    given("hbm_bw_Bps", "B_per_s", 8.2e11, "HBM bandwidth", kQ6fHbmBwBps),
    given("peak_bf16_flops_per_s", "flop_per_s", 1.97e14, "bf16 peak", kQ6fPeakBf16FlopsPerS),
    given("vector_bytes", "B", 2097152, "bytes of the bf16 vector")};
constexpr Slot kQ6fSlots[] = {number("t_pipelined_lower", "s", "time with full overlap"),
                              number("t_serial_upper", "s", "time with no overlap")};
constexpr Problem kQ6f{
    .id = "tpus.Q6.f",
    .title = "End-to-end time of the gather-and-multiply job",
    .statement = TPUS_Q6_SETTING
    "With PCIe at {pcie_bw_per_chip_Bps} per chip, ICI at {ici_bw_one_way_Bps} "
    "one way over {links_into_dest} links into the destination, HBM at "
    "{hbm_bw_Bps} and {peak_bf16_flops_per_s} of bf16: how long does the job take "
    "if its stages overlap perfectly, and if they run one after another?",
    .kind = "numeric",
    .given = kQ6fGiven,
    .slots = kQ6fSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          ArraySpec a = parse_array(in.text("a"), "a");
          if (a.dims.size() != 2) fail("a", "a: A must be a matrix");
          double A = in.num("a_bytes"), N = in.num("n_chips"), v = in.num("vector_bytes");
          // The vector is bf16 [rows, D]: its rows are its elements over D.
          double rows = v / hw::dtype_bytes("bf16", "vector_bytes") / a.dims[0];
          double flops = roofline::matmul_flops({rows, a.dims[0], a.dims[1]});
          Pipeline pl =
              q6_pipeline(A, N, in.num("pcie_bw_per_chip_Bps"),
                          static_cast<int>(in.num("links_into_dest")), in.num("ici_bw_one_way_Bps"),
                          in.num("hbm_bw_Bps"), v, flops, in.num("peak_bf16_flops_per_s"));
          // The number of stages is fixed here, but the sums are built like the calculator's.
          std::string sum, list;
          for (const auto& s : pl.stages) {
            tr.step(s.name, "T = \\mathrm{amount}/\\mathrm{rate}", "\\frac{#}{#}",
                    {s.amount, s.rate}, s.seconds, "s");
            if (!sum.empty()) {
              sum += " + ";
              list += ", ";
            }
            sum += tex(s.seconds);
            list += tex(s.seconds);
          }
          double lo =
              tr.step("Full overlap: the slowest stage (" + pl.stages[pl.bottleneck].name + ")",
                      "\\max_i T_i", "\\max(" + list + ")", pl.t_lower, "s");
          double hi = tr.step("No overlap: the sum", "\\sum_i T_i", sum, pl.t_upper, "s");
          return Answers{{"t_pipelined_lower", lo}, {"t_serial_upper", hi}};
        },
};

constexpr Problem kQuestions[] = {
    kQ1,
    q2("tpus.Q2.a", "Inventory of a full v5e pod", kQ2aGiven, kQ2aSlots),
    q2("tpus.Q2.b", "Inventory of a full v5p pod", kQ2bGiven, kQ2bSlots),
    kQ3,
    q4<false>(),
    q4<true>(),
    q5<false>(),
    q5<true>(),
    kQ6a,
    kQ6b,
    kQ6c,
    kQ6d,
    kQ6e,
    kQ6f};

#undef TPUS_Q6_SETTING

}  // namespace

void add_problems(Registry& r) {
  r.add(kExamples);
  r.add(kQuestions);
}

}  // namespace sb::tpus
