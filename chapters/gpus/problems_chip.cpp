// Quiz 1 (GPU hardware) and the chip examples of the running text: CUDA cores, vector and Tensor
// Core rates, critical intensities, a matmul and an elementwise op on the roofline, the register
// file and L2.
#include "chapters/gpus/problems.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::gpus {
namespace {

using roofline::kCriticalIntensity;

constexpr Param kQ1Given[] = {
    dim("h100_n_sm", 132, "SMs of an H100"),
    dim("b200_n_sm", 148, "SMs of a B200"),
    dim("subpartitions_per_sm", 4, "sub-partitions per SM"),
    dim("fp32_cores_per_subpartition", 32, "fp32 CUDA cores per sub-partition"),
    dim("v5p_tensorcores_per_chip", 2, "TensorCores per TPU v5p chip"),
    dim("v5p_vpu_sublanes", 8, "VPU sublanes"),
    dim("v5p_vpu_lanes", 128, "VPU lanes"),
    dim("v5p_alus_per_lane", 4, "ALUs per VPU lane and sublane")};
constexpr Slot kQ1Slots[] = {number("h100_cuda_cores", "count", "fp32 CUDA cores of an H100"),
                             number("b200_cuda_cores", "count", "fp32 CUDA cores of a B200"),
                             number("v5p_vector_alus", "count", "vector ALUs of a TPU v5p"),
                             number("v5p_over_h100_alus", "ratio", "v5p ALUs over H100 cores")};
constexpr Problem kQ1{
    .id = "gpus.Quiz1.Q1",
    .title = "CUDA core counts versus TPU ALUs",
    .statement =
        "An SM has {subpartitions_per_sm} sub-partitions of {fp32_cores_per_subpartition} fp32 "
        "CUDA cores each. How many CUDA cores do an H100 ({h100_n_sm} SMs) and a B200 "
        "({b200_n_sm} SMs) have? A TPU v5p chip has {v5p_tensorcores_per_chip} TensorCores, each "
        "with a VPU of {v5p_vpu_sublanes} x {v5p_vpu_lanes} lanes and {v5p_alus_per_lane} ALUs per "
        "lane: how many vector ALUs is that, and what fraction of the H100's count?",
    .kind = "numeric",
    .given = kQ1Given,
    .slots = kQ1Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double sub = in.num("subpartitions_per_sm"),
                 lanes = in.num("fp32_cores_per_subpartition");
          double h = tr.step("H100 CUDA cores", kCudaCores, {in.num("h100_n_sm"), sub, lanes});
          double b = tr.step("B200 CUDA cores", kCudaCores, {in.num("b200_n_sm"), sub, lanes});
          double v = tr.step("TPU v5p vector ALUs", kTpuVectorAlus,
                             {in.num("v5p_tensorcores_per_chip"), in.num("v5p_vpu_sublanes"),
                              in.num("v5p_vpu_lanes"), in.num("v5p_alus_per_lane")});
          double q = tr.step("v5p over H100", kRatio, {v, h});
          Answers a{{"h100_cuda_cores", h},
                    {"b200_cuda_cores", b},
                    {"v5p_vector_alus", v},
                    {"v5p_over_h100_alus", q}};
          a.book("v5p_over_h100_alus", units::round_sig(q, 1), "says roughly half");
          a.slip("v5p_over_h100_alus", q / 2,
                 "a v5p chip has two TensorCores, each with its own VPU: count both");
          return a;
        },
};

constexpr Param kQ2Given[] = {
    dim("n_sm", 132, "SMs"),
    dim("subpartitions_per_sm", 4, "sub-partitions per SM"),
    dim("fp32_cores_per_subpartition", 32, "fp32 CUDA cores per sub-partition"),
    clock("clock_base_hz", 1.59e9, "base clock"),
    clock("clock_boost_hz", 1.98e9, "boost clock"),
    dim("flops_per_alu_per_cycle", 1, "FLOPs per CUDA core per cycle", 1, 4),
    flops_rate("tc_bf16_flops_per_s", 9.9e14, "bf16 Tensor Core peak")};
constexpr Slot kQ2Slots[] = {
    number("vector_flops_base", "flop_per_s", "vector fp32 FLOPs/s at the base clock"),
    number("vector_flops_boost", "flop_per_s", "vector fp32 FLOPs/s at the boost clock"),
    number("tc_over_vector_boost", "ratio", "Tensor Core rate over the vector rate (boost)")};
constexpr Problem kQ2{
    .id = "gpus.Quiz1.Q2",
    .title = "H100 vector fp32 throughput",
    .statement =
        "An H100 has {n_sm} SMs of {subpartitions_per_sm} x {fp32_cores_per_subpartition} fp32 "
        "CUDA cores, each doing {flops_per_alu_per_cycle} FLOP per cycle, at a base clock of "
        "{clock_base_hz} and a boost clock of {clock_boost_hz}. What are its vector FLOPs/s at "
        "each clock, and how many times faster is the bf16 Tensor Core peak of "
        "{tc_bf16_flops_per_s} than the boost figure?",
    .kind = "numeric",
    .given = kQ2Given,
    .slots = kQ2Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double n = tr.step("CUDA cores", kCudaCores,
                             {in.num("n_sm"), in.num("subpartitions_per_sm"),
                              in.num("fp32_cores_per_subpartition")});
          double ops = in.num("flops_per_alu_per_cycle");
          double base =
              tr.step("At the base clock", kVectorFlops, {n, in.num("clock_base_hz"), ops});
          double boost =
              tr.step("At the boost clock", kVectorFlops, {n, in.num("clock_boost_hz"), ops});
          double q = tr.step("Tensor Cores over CUDA cores", kRatio,
                             {in.num("tc_bf16_flops_per_s"), boost});
          Answers a{{"vector_flops_base", base},
                    {"vector_flops_boost", boost},
                    {"tc_over_vector_boost", q}};
          const char* fma =
              "counts an FMA as two FLOPs, as NVIDIA's spec sheet does; here a "
              "CUDA core does one operation per cycle";
          a.slip("vector_flops_base", 2 * base, fma);
          a.slip("vector_flops_boost", 2 * boost, fma);
          return a;
        },
};

constexpr Param kQ3Given[] = {flops_rate("h100_bf16_flops_per_s", 9.9e14, "H100 bf16 peak"),
                              bw("h100_hbm_bw_Bps", 3.35e12, "H100 HBM bandwidth"),
                              flops_rate("b200_bf16_flops_per_s", 2.25e15, "B200 bf16 peak"),
                              bw("b200_hbm_bw_Bps", 8e12, "B200 HBM bandwidth"),
                              ranged("fp8_speedup", "ratio", 2, "fp8 peak over bf16 peak", 1, 16)};
constexpr Slot kQ3Slots[] = {number("h100_bf16_crit_intensity", "flop_per_B", "H100, bf16"),
                             number("b200_bf16_crit_intensity", "flop_per_B", "B200, bf16", 0.03),
                             number("h100_fp8_crit_intensity", "flop_per_B", "H100, fp8"),
                             number("b200_fp8_crit_intensity", "flop_per_B", "B200, fp8")};
constexpr Problem kQ3{
    .id = "gpus.Quiz1.Q3",
    .title = "Peak matmul intensity, H100 and B200",
    .statement =
        "An H100 does {h100_bf16_flops_per_s} of bf16 with {h100_hbm_bw_Bps} of HBM bandwidth; a "
        "B200 does {b200_bf16_flops_per_s} with {b200_hbm_bw_Bps}. fp8 runs {fp8_speedup} times "
        "faster than bf16 on both. What is the critical arithmetic intensity of each chip in bf16 "
        "and in fp8?",
    .kind = "numeric",
    .given = kQ3Given,
    .slots = kQ3Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double ch = in.num("h100_bf16_flops_per_s"), wh = in.num("h100_hbm_bw_Bps");
          double cb = in.num("b200_bf16_flops_per_s"), wb = in.num("b200_hbm_bw_Bps");
          double s = in.num("fp8_speedup");
          double h = tr.step("H100, bf16", kCriticalIntensity, {ch, wh});
          double b = tr.step("B200, bf16", kCriticalIntensity, {cb, wb});
          double ch8 = tr.step("H100 fp8 peak", kPrecisionPeak, {s, ch});
          double cb8 = tr.step("B200 fp8 peak", kPrecisionPeak, {s, cb});
          double h8 = tr.step("H100, fp8", kCriticalIntensity, {ch8, wh});
          double b8 = tr.step("B200, fp8", kCriticalIntensity, {cb8, wb});
          Answers a{{"h100_bf16_crit_intensity", h},
                    {"b200_bf16_crit_intensity", b},
                    {"h100_fp8_crit_intensity", h8},
                    {"b200_fp8_crit_intensity", b8}};
          a.slip("b200_bf16_crit_intensity", roofline::critical_intensity(cb, 9e12),
                 "takes the memory prose's 9 TB/s; the spec table's 8.0e12 B/s is the default");
          a.slip("h100_fp8_crit_intensity", h / s,
                 "a faster peak over the same bandwidth raises the critical intensity");
          return a;
        },
};

}  // namespace

void add_problems_chip_b(Registry& r);  // problems_chip_b.cpp

void add_problems_chip(Registry& r) {
  static constexpr Problem kAll[] = {kQ1, kQ2, kQ3};
  r.add(kAll);
  add_problems_chip_b(r);
}

}  // namespace sb::gpus
