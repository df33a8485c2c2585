// Quiz 1, question 7 (an fp32 vector add on the roofline) and the chip examples of the running
// text: Tensor Core FLOPs per cycle, the register file and occupancy, SIMD units, L2.
#include <cmath>

#include "chapters/gpus/problems.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::gpus {
namespace {

using namespace roofline;  // kTMath, kTComms, kTLower, kIntensity, kCriticalIntensity

constexpr Param kQ7Given[] = {dim("n_small", 1024, "the small N"),
                              dim("n_large", 1073741824, "the large N", 1, 1e12),
                              dim("n_book_example", 65536, "the N of the book's answer"),
                              per_param("bytes_per_elem", 4, "bytes per element (fp32)"),
                              flops_rate("vector_flops_per_s", 3.35e13, "vector fp32 FLOPs/s"),
                              bw("hbm_bw_Bps", 3.35e12, "HBM bandwidth"),
                              dim("fp32_lanes_per_sm", 128, "fp32 lanes per SM")};
constexpr Slot kQ7Slots[] = {
    number("arithmetic_intensity", "flop_per_B", "intensity of the vector add"),
    number("hw_vector_intensity", "flop_per_B", "critical intensity of the vector units"),
    derived(number("time_n1024", "s", "roofline time at the small N"), From::Bytes),
    derived(number("time_n65536", "s", "roofline time at the book's N", 0.025), From::Bytes),
    derived(number("time_n2p30", "s", "roofline time at the large N"), From::Bytes),
    number("sms_used_n1024", "count", "SMs with work at the small N")};

// FLOPs, bytes and the roofline time of z = x + y on n elements.
double vector_add_time(const Inputs& in, Trace& tr, double n) {
  double flops = tr.step("FLOPs: one add per element", kElementwiseFlops, {n, 1});
  double bytes = tr.step("Bytes: read x and y, write z", kElementwiseBytes,
                         {n, 2, 1, in.num("bytes_per_elem")});
  double tm = tr.step("Compute time", kTMath, {flops, in.num("vector_flops_per_s")});
  double tc = tr.step("Memory time", kTComms, {bytes, in.num("hbm_bw_Bps")});
  return tr.step("Roofline time", kTLower, {tm, tc});
}

constexpr Problem kQ7{
    .id = "gpus.Quiz1.Q7",
    .title = "Roofline of an fp32 vector add",
    .statement =
        "Add two fp32 vectors of N elements ({bytes_per_elem} each) on an H100 with "
        "{vector_flops_per_s} of vector fp32 and {hbm_bw_Bps} of HBM bandwidth. What is the "
        "op's arithmetic intensity and the vector units' critical intensity? What is the roofline "
        "time at N = {n_small}, {n_book_example} and {n_large}, and how many SMs (with "
        "{fp32_lanes_per_sm} fp32 lanes each) have any work at N = {n_small}?",
    .kind = "numeric",
    .given = kQ7Given,
    .slots = kQ7Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double n = in.num("n_small"), b = in.num("bytes_per_elem");
          double i = tr.step("Intensity: N FLOPs over (2 + 1) b N bytes", kIntensity,
                             {elementwise_flops(n, 1), elementwise_bytes(n, 2, 1, b)});
          double hw = tr.step("Critical intensity of the CUDA cores", kCriticalIntensity,
                              {in.num("vector_flops_per_s"), in.num("hbm_bw_Bps")});
          tr.note("far below the critical intensity: memory-bound at every N");
          double t1 = vector_add_time(in, tr, n);
          double t2 = vector_add_time(in, tr, in.num("n_book_example"));
          double t3 = vector_add_time(in, tr, in.num("n_large"));
          double sms = tr.step("SMs with work", kBusySms, {n, in.num("fp32_lanes_per_sm")});
          Answers a{{"arithmetic_intensity", i}, {"hw_vector_intensity", hw},
                    {"time_n1024", t1},          {"time_n65536", t2},
                    {"time_n2p30", t3},          {"sms_used_n1024", sms}};
          a.slip("arithmetic_intensity", i * 1.5, "the output z is written too: 3 arrays move");
          a.slip("time_n2p30", t3 * 2 / 3, "the output z is written too: 3 arrays move");
          return a;
        },
};

constexpr Param kChip1Given[] = {flops_rate("h100_bf16_flops_per_s", 9.9e14, "H100 bf16 peak"),
                                 dim("h100_n_sm", 132, "H100 SMs"),
                                 clock("h100_clock_hz", 1.76e9, "H100 clock assumed"),
                                 dim("tc_per_sm", 4, "Tensor Cores per SM"),
                                 flops_rate("b200_bf16_flops_per_s", 2.25e15, "B200 bf16 peak"),
                                 dim("b200_n_sm", 148, "B200 SMs"),
                                 clock("b200_clock_hz", 1.86e9, "B200 clock assumed")};
constexpr Slot kChip1Slots[] = {
    number("h100_flops_per_tc_cycle", "flop", "H100 FLOPs per Tensor Core per cycle"),
    number("b200_flops_per_tc_cycle", "flop", "B200 FLOPs per Tensor Core per cycle")};
constexpr Problem kChip1{
    .id = "gpus.Ex.Chip1",
    .title = "FLOPs per Tensor Core per cycle",
    .statement =
        "An H100 peaks at {h100_bf16_flops_per_s} of bf16 with {h100_n_sm} SMs of {tc_per_sm} "
        "Tensor Cores at {h100_clock_hz}; a B200 at {b200_bf16_flops_per_s} with {b200_n_sm} SMs "
        "at {b200_clock_hz}. How many bf16 FLOPs does one Tensor Core do per cycle on each?",
    .kind = "numeric",
    .given = kChip1Given,
    .slots = kChip1Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double tc = in.num("tc_per_sm");
          double h = tr.step(
              "H100", kTcFlopsPerCycle,
              {in.num("h100_bf16_flops_per_s"), in.num("h100_n_sm"), tc, in.num("h100_clock_hz")});
          double b = tr.step(
              "B200", kTcFlopsPerCycle,
              {in.num("b200_bf16_flops_per_s"), in.num("b200_n_sm"), tc, in.num("b200_clock_hz")});
          Answers a{{"h100_flops_per_tc_cycle", h}, {"b200_flops_per_tc_cycle", b}};
          a.book("h100_flops_per_tc_cycle", std::exp2(std::round(std::log2(h))),
                 "rounds to the nearest power of two, an 8x8x8 matmul per cycle");
          a.book("b200_flops_per_tc_cycle", std::exp2(std::round(std::log2(b))),
                 "rounds to the nearest power of two");
          return a;
        },
};

}  // namespace

void add_problems_chip_d(Registry& r);  // problems_chip_d.cpp

void add_problems_chip_c(Registry& r) {
  static constexpr Problem kAll[] = {kQ7, kChip1};
  r.add(kAll);
  add_problems_chip_d(r);
}

}  // namespace sb::gpus
