// The chip examples of the running text: the register file and occupancy, the H100's SIMD units
// beside the TPU's VPU, and L2 against HBM.
#include <cmath>

#include "chapters/gpus/problems.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::gpus {
namespace {

constexpr Param kChip2Given[] = {dim("subpartitions_per_sm", 4, "sub-partitions per SM"),
                                 dim("regs_per_subpartition", 16384, "32-bit registers each"),
                                 per_param("bytes_per_reg", 4, "bytes per register"),
                                 dim("threads_per_warp", 32, "threads per warp"),
                                 dim("regs_per_thread", 256, "registers each thread uses"),
                                 dim("max_resident_warps", 64, "most warps an SM holds")};
constexpr Slot kChip2Slots[] = {number("register_file_per_sm", "B", "register file per SM"),
                                number("resident_warps", "count", "warps that fit")};
constexpr Problem kChip2{
    .id = "gpus.Ex.Chip2",
    .title = "Register file and register-limited occupancy",
    .statement =
        "Each of an SM's {subpartitions_per_sm} sub-partitions has {regs_per_subpartition} "
        "registers of {bytes_per_reg}. How many bytes is the SM's register file, and how many "
        "warps of {threads_per_warp} threads fit when each thread uses {regs_per_thread} "
        "registers (an SM holds at most {max_resident_warps})?",
    .kind = "numeric",
    .given = kChip2Given,
    .slots = kChip2Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double b = in.num("bytes_per_reg");
          double rf = tr.step("Register file", kRegisterFile,
                              {in.num("subpartitions_per_sm"), in.num("regs_per_subpartition"), b});
          double w = tr.step("Warps that fit", kResidentWarps,
                             {rf, in.num("threads_per_warp"), in.num("regs_per_thread"), b,
                              in.num("max_resident_warps")});
          Answers a{{"register_file_per_sm", rf}, {"resident_warps", w}};
          a.slip("resident_warps", w / in.num("subpartitions_per_sm"),
                 "the whole SM's register file holds the warps, not one sub-partition's");
          return a;
        },
};

constexpr Param kChip3Given[] = {dim("h100_n_sm", 132, "H100 SMs"),
                                 dim("subpartitions_per_sm", 4, "sub-partitions per SM"),
                                 dim("simd_width", 32, "lanes of a warp scheduler"),
                                 dim("v5p_vpu_units_per_tc", 4, "VPU units per v5p TensorCore"),
                                 dim("v5p_unit_sublanes", 8, "sublanes of a VPU unit"),
                                 dim("v5p_unit_lanes", 128, "lanes of a VPU unit")};
constexpr Slot kChip3Slots[] = {number("h100_simd_units", "count", "independent SIMD units"),
                                number("h100_alus", "count", "ALUs of an H100"),
                                number("v5p_alus_per_tc", "count", "ALUs per v5p TensorCore")};
constexpr Problem kChip3{
    .id = "gpus.Ex.Chip3",
    .title = "H100 SIMD units versus TPU VPU",
    .statement =
        "An H100 has {h100_n_sm} SMs of {subpartitions_per_sm} warp schedulers, each "
        "{simd_width} lanes wide. A TPU v5p TensorCore has one VPU of {v5p_vpu_units_per_tc} "
        "units of {v5p_unit_sublanes} x {v5p_unit_lanes} lanes. How many independent SIMD units "
        "and ALUs has the H100, and how many ALUs the v5p TensorCore?",
    .kind = "numeric",
    .given = kChip3Given,
    .slots = kChip3Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double sub = in.num("subpartitions_per_sm");
          double u = tr.step("Warp schedulers", kSimdUnits, {in.num("h100_n_sm"), sub});
          double alus =
              tr.step("ALUs", kCudaCores, {in.num("h100_n_sm"), sub, in.num("simd_width")});
          double v = tr.step("v5p ALUs per TensorCore", kTpuVectorAlus,
                             {1, in.num("v5p_unit_sublanes"), in.num("v5p_unit_lanes"),
                              in.num("v5p_vpu_units_per_tc")});
          Answers a{{"h100_simd_units", u}, {"h100_alus", alus}, {"v5p_alus_per_tc", v}};
          a.book("h100_alus", std::floor(alus / 1000) * 1000, "rounds it down to 16k ALUs");
          return a;
        },
};

constexpr Param kL2Given[] = {bw("l2_bw_Bps", 5.5e12, "measured L2 bandwidth, one way"),
                              bw("hbm_bw_Bps", 3.35e12, "HBM bandwidth")};
constexpr Slot kL2Slots[] = {
    number("l2_over_hbm", "ratio", "L2 over HBM, one way"),
    number("l2_over_hbm_bidirectional", "ratio", "L2 over HBM, L2 counted both ways", 0.1)};
constexpr Problem kL2{
    .id = "gpus.Ex.L2",
    .title = "H100 L2 versus HBM bandwidth",
    .statement =
        "The H100's L2 measures about {l2_bw_Bps} one way, against {hbm_bw_Bps} of HBM. How many "
        "times faster is L2, and how many if its full-duplex links are counted both ways?",
    .kind = "numeric",
    .given = kL2Given,
    .slots = kL2Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double l2 = in.num("l2_bw_Bps"), hbm = in.num("hbm_bw_Bps");
          double q = tr.step("One way", kRatio, {l2, hbm});
          double q2 = tr.step("Both ways", kL2Bidi, {l2, hbm});
          Answers a{{"l2_over_hbm", q}, {"l2_over_hbm_bidirectional", q2}};
          a.book("l2_over_hbm", units::round_sig(q, 2), "rounds to 1.6x");
          a.book("l2_over_hbm_bidirectional", units::round_sig(q2, 1), "says closer to 3x");
          return a;
        },
};

}  // namespace

void add_problems_chip_d(Registry& r) {
  static constexpr Problem kAll[] = {kChip2, kChip3, kL2};
  r.add(kAll);
}

}  // namespace sb::gpus
