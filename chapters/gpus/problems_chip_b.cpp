// Quiz 1, questions 4 to 7 (a matmul and a vector add on the roofline, on-chip memory, a clock),
// and the chip examples of the running text (Tensor Core FLOPs per cycle, registers, SIMD units,
// L2).
#include <cmath>

#include "chapters/gpus/problems.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::gpus {
namespace {

using namespace roofline;  // kMatmulFlops, kMatmulBytes, kTMath, kTComms, kTLower, kIntensity

constexpr Param kQ4Given[] = {flops_rate("b200_flops_per_s", 2.3e15, "B200 fp16 peak"),
                              bw("b200_hbm_bw_Bps", 8e12, "B200 HBM bandwidth"),
                              dim("batch_small", 64, "the smaller batch"),
                              dim("batch_large", 512, "the larger batch"),
                              dim("d_model", 4096, "D"),
                              dim("d_ff", 8192, "F"),
                              elem_bytes()};
constexpr Slot kQ4Slots[] = {
    number("bytes_batch64", "B", "bytes moved at the smaller batch"),
    derived(number("time_batch64", "s", "time at the smaller batch"), From::Bytes),
    boolean("batch64_memory_bound", "is the smaller batch memory-bound?"),
    derived(number("time_batch512", "s", "time at the larger batch", 0.03), From::Flops),
    boolean("batch512_compute_bound", "is the larger batch compute-bound?")};

// T = max(2BDF / C, bytes / W) for one batch; returns {bytes, T, compute-bound}.
struct MatmulTimes {
  double bytes, t;
  bool compute;
};
MatmulTimes b200_matmul(const Inputs& in, Trace& tr, double B) {
  double D = in.num("d_model"), F = in.num("d_ff"), b = in.num("bytes_per_elem");
  double flops = tr.step("FLOPs", kMatmulFlops, {B, D, F});
  double bytes = tr.step("Bytes: X, W and the output", kMatmulBytes, {B, D, F, b, b, b});
  double tm = tr.step("Compute time", kTMath, {flops, in.num("b200_flops_per_s")});
  double tc = tr.step("Memory time", kTComms, {bytes, in.num("b200_hbm_bw_Bps")});
  double t = tr.step("Roofline time", kTLower, {tm, tc});
  return {bytes, t, tm > tc};
}

constexpr Problem kQ4{
    .id = "gpus.Quiz1.Q4",
    .title = "B200 matmul runtime at two batches",
    .statement =
        "On one B200 ({b200_flops_per_s} of fp16, {b200_hbm_bw_Bps} of HBM bandwidth), multiply "
        "fp16[B, {d_model}] by fp16[{d_model}, {d_ff}] at B = {batch_small} and at B = "
        "{batch_large} ({bytes_per_elem} per element). How many bytes move at the smaller batch, "
        "how long does each take on the roofline, and which bound holds?",
    .kind = "numeric",
    .given = kQ4Given,
    .slots = kQ4Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          MatmulTimes s = b200_matmul(in, tr, in.num("batch_small"));
          double mb = verdict(tr, !s.compute, "the smaller batch is memory-bound",
                              "the smaller batch is compute-bound");
          MatmulTimes l = b200_matmul(in, tr, in.num("batch_large"));
          double cb = verdict(tr, l.compute, "the larger batch is compute-bound",
                              "the larger batch is memory-bound");
          Answers a{{"bytes_batch64", s.bytes},
                    {"time_batch64", s.t},
                    {"batch64_memory_bound", mb},
                    {"time_batch512", l.t},
                    {"batch512_compute_bound", cb}};
          a.slip("bytes_batch64", s.bytes / in.num("bytes_per_elem"),
                 "counts elements: each fp16 element is 2 bytes");
          return a;
        },
};

constexpr Param kQ5Given[] = {dim("n_sm", 132, "SMs"),
                              memory("smem_per_sm_B", 256e3, "SMEM per SM"),
                              memory("regs_per_sm_B", 256e3, "register file per SM")};
constexpr Slot kQ5Slots[] = {number("total_smem", "B", "SMEM of the whole chip"),
                             number("total_registers", "B", "registers of the whole chip"),
                             number("smem_plus_registers", "B", "the two together")};
constexpr Problem kQ5{
    .id = "gpus.Quiz1.Q5",
    .title = "Total H100 SMEM and register capacity",
    .statement =
        "An H100 has {n_sm} SMs, each with {smem_per_sm_B} of SMEM and {regs_per_sm_B} of "
        "registers. How much SMEM and how many register bytes does the chip hold in all, and how "
        "much fast on-chip memory is that together?",
    .kind = "numeric",
    .given = kQ5Given,
    .slots = kQ5Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double n = in.num("n_sm");
          double s = tr.step("SMEM", kOnChipTotal, {n, in.num("smem_per_sm_B")});
          double r = tr.step("Registers", kOnChipTotal, {n, in.num("regs_per_sm_B")});
          double t = tr.sum("Together", "M_chip", "B", {{"M_SMEM", s}, {"M_RF", r}});
          return Answers{{"total_smem", s}, {"total_registers", r}, {"smem_plus_registers", t}};
        },
};

constexpr Param kQ6Given[] = {
    flops_rate("vector_fp32_flops_per_s", 8e13, "vector fp32 rate, FMA counted"),
    dim("n_sm", 148, "SMs"), dim("subpartitions_per_sm", 4, "sub-partitions per SM"),
    dim("fp32_cores_per_subpartition", 32, "fp32 CUDA cores per sub-partition"),
    dim("flops_per_core_per_cycle_fma", 2, "FLOPs per core per cycle with FMA", 1, 4)};
constexpr Slot kQ6Slots[] = {number("flops_per_cycle", "flop", "vector FLOPs per cycle"),
                             number("clock_hz", "count", "the clock it implies")};
constexpr Problem kQ6{
    .id = "gpus.Quiz1.Q6",
    .title = "B200 clock from vector FLOPs",
    .statement =
        "NVIDIA quotes {vector_fp32_flops_per_s} of vector fp32 for a B200, counting an FMA as "
        "{flops_per_core_per_cycle_fma} FLOPs. It has {n_sm} SMs of {subpartitions_per_sm} x "
        "{fp32_cores_per_subpartition} CUDA cores. How many vector FLOPs does it do per cycle, and "
        "what clock does the quoted rate imply?",
    .kind = "numeric",
    .given = kQ6Given,
    .slots = kQ6Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double n = tr.step("CUDA cores", kCudaCores,
                             {in.num("n_sm"), in.num("subpartitions_per_sm"),
                              in.num("fp32_cores_per_subpartition")});
          double ops = in.num("flops_per_core_per_cycle_fma");
          double per = tr.step("FLOPs per cycle", kVectorFlopsPerCycle, {n, ops});
          double f =
              tr.step("Clock", kClockFromVector, {in.num("vector_fp32_flops_per_s"), n, ops});
          Answers a{{"flops_per_cycle", per}, {"clock_hz", f}};
          a.slip("clock_hz", f * ops, "an FMA counts as two FLOPs in the quoted rate");
          return a;
        },
};

}  // namespace

void add_problems_chip_c(Registry& r);  // problems_chip_c.cpp

void add_problems_chip_b(Registry& r) {
  static constexpr Problem kAll[] = {kQ4, kQ5, kQ6};
  r.add(kAll);
  add_problems_chip_c(r);
}

}  // namespace sb::gpus
