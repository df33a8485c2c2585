// Part 12, "How to Think About GPUs": the GPU chip (SMs, Tensor Cores, CUDA cores, registers,
// SMEM, L2, HBM), the NVLink node and the InfiniBand fat tree above it. Collectives are in
// collectives.hpp, the LLM rooflines in llm.hpp, the measured collectives (nccl-tests logs) in
// nccl.hpp. Everything is in SI base units. Section numbers (A.1 ...) refer to the developer notes
// shared/book/gpus.md; chip figures come from data/chips.json only (cluster.hpp reads them).
//
// Each formula is a record (core/formula.hpp) right under its function; the matmul roofline and
// the critical intensity are the roofline chapter's records, called from here.
#pragma once
#include "chapters/gpus/symbols.hpp"
#include "chapters/roofline/model.hpp"

namespace sb::gpus {

// ---- A.1 The chip ---------------------------------------------------------------------------

// A.1 (1): Tensor Core peak, C = n_SM * n_sub * f_clk * F_TC (one Tensor Core per sub-partition).
double tc_peak(double n_sm, double n_sub, double f_clk, double flops_per_tc_cycle);
inline constexpr Formula kTcPeak =
    record("C", "n_SM * n_sub * f_clk * F_TC", "flop_per_s", "A.1 (1)", "n_SM n_sub f_clk F_TC",
           kSymbols, [](const double* x) { return tc_peak(x[0], x[1], x[2], x[3]); });
// A.1 (1) backwards: FLOPs per Tensor Core per cycle from the spec-sheet peak.
double tc_flops_per_cycle(double peak, double n_sm, double n_sub, double f_clk);
inline constexpr Formula kTcFlopsPerCycle =
    record("F_TC", "C / (n_SM * n_sub * f_clk)", "flop", "A.1 (1)", "C n_SM n_sub f_clk", kSymbols,
           [](const double* x) { return tc_flops_per_cycle(x[0], x[1], x[2], x[3]); });
// A.1 (2): fp32 CUDA cores, n_SM * n_sub * n_lane (128 per SM).
double cuda_cores(double n_sm, double n_sub, double n_lane);
inline constexpr Formula kCudaCores =
    record("n_cuda", "n_SM * n_sub * n_lane", "count", "A.1 (2)", "n_SM n_sub n_lane", kSymbols,
           [](const double* x) { return cuda_cores(x[0], x[1], x[2]); });
// A.1: warp schedulers (32-wide SIMD units) of a GPU, one per sub-partition: n_SM * n_sub.
double simd_units(double n_sm, double n_sub);
inline constexpr Formula kSimdUnits =
    record("n_SIMD", "n_SM * n_sub", "count", "A.1", "n_SM n_sub", kSymbols,
           [](const double* x) { return simd_units(x[0], x[1]); });
// A.1 (2): vector FLOPs/s, cores * clock * FLOPs per lane per cycle (2 when an FMA counts as 2).
double vector_flops(double n_cuda, double f_clk, double ops);
inline constexpr Formula kVectorFlops =
    record("C_vec", "n_cuda * f_clk * ops", "flop_per_s", "A.1 (2)", "n_cuda f_clk ops", kSymbols,
           [](const double* x) { return vector_flops(x[0], x[1], x[2]); });
// A.1 (2): vector FLOPs per cycle, cores * FLOPs per lane per cycle.
double vector_flops_per_cycle(double n_cuda, double ops);
inline constexpr Formula kVectorFlopsPerCycle =
    record("FLOPs", "n_cuda * ops", "flop", "A.1 (2)", "n_cuda ops", kSymbols,
           [](const double* x) { return vector_flops_per_cycle(x[0], x[1]); });
// A.1 (2) backwards: the clock a quoted vector rate implies.
double clock_from_vector(double c_vec, double n_cuda, double ops);
inline constexpr Formula kClockFromVector =
    record("f_clk", "C_vec / (n_cuda * ops)", "hz", "A.1 (2)", "C_vec n_cuda ops", kSymbols,
           [](const double* x) { return clock_from_vector(x[0], x[1], x[2]); });
// A.1 (3): register file per SM, n_sub * n_reg * b_reg (256 KiB on every generation).
double register_file(double n_sub, double n_reg, double b_reg);
inline constexpr Formula kRegisterFile =
    record("RF", "n_sub * n_reg * b_reg", "B", "A.1 (3)", "n_sub n_reg b_reg", kSymbols,
           [](const double* x) { return register_file(x[0], x[1], x[2]); });
// A.1 (3): warps the registers leave room for, at most warps_max.
double resident_warps(double rf, double n_thread, double regs, double b_reg, double warps_max);
inline constexpr Formula kResidentWarps =
    record("warps", "min(warps_max, floor(RF / (n_thread * r * b_reg)))", "count", "A.1 (3)",
           "RF n_thread r b_reg warps_max", kSymbols,
           [](const double* x) { return resident_warps(x[0], x[1], x[2], x[3], x[4]); });
// A.1 (4): a per-SM memory over the chip, n_SM * M_SM.
double on_chip_total(double n_sm, double per_sm);
inline constexpr Formula kOnChipTotal =
    record("M_chip", "n_SM * M_SM", "B", "A.1 (4)", "n_SM M_SM", kSymbols,
           [](const double* x) { return on_chip_total(x[0], x[1]); });
// A.1 (5): a lower precision multiplies the peak (fp8 2x bf16 on H100 and B200).
double precision_peak(double speedup, double peak);
inline constexpr Formula kPrecisionPeak =
    record("C", "s * C", "flop_per_s", "A.1 (5)", "s C", kSymbols,
           [](const double* x) { return precision_peak(x[0], x[1]); });
// A.1 (5): an elementwise op does `ops` FLOPs per element ...
double elementwise_flops(double n_el, double ops);
inline constexpr Formula kElementwiseFlops =
    record("FLOPs", "ops * N_el", "flop", "A.1 (5)", "N_el ops", kSymbols,
           [](const double* x) { return elementwise_flops(x[0], x[1]); });
// ... and moves (inputs + outputs) * b * N_el bytes.
double elementwise_bytes(double n_el, double n_in, double n_out, double b);
inline constexpr Formula kElementwiseBytes =
    record("bytes", "(n_in + n_out) * b * N_el", "B", "A.1 (5)", "N_el n_in n_out b", kSymbols,
           [](const double* x) { return elementwise_bytes(x[0], x[1], x[2], x[3]); });
// A.1 (5): at small N only ceil(N / 128) SMs have work (128 fp32 lanes per SM).
double busy_sms(double n_el, double lanes_per_sm);
inline constexpr Formula kBusySms =
    record("n_SM", "ceil(N_el / n_SM_lanes)", "count", "A.1 (5)", "N_el n_SM_lanes", kSymbols,
           [](const double* x) { return busy_sms(x[0], x[1]); });
// B.9: vector ALUs of a TPU chip, cores * sublanes * lanes * ALUs per cell (the TPU chapter's VPU).
double tpu_vector_alus(double cores, double sublanes, double lanes, double alus);
inline constexpr Formula kTpuVectorAlus =
    record("ALUs", "n_core * n_sublane * n_tpu_lane * n_alu", "count", "B.9",
           "n_core n_sublane n_tpu_lane n_alu", kSymbols,
           [](const double* x) { return tpu_vector_alus(x[0], x[1], x[2], x[3]); });
// A ratio of two quantities the chapter compares (L2 over HBM, a derating, a speed-up).
double ratio(double a, double a_ref);
inline constexpr Formula kRatio =
    record("ratio", "a / a_ref", "ratio", "A.1 (6)", "a a_ref", kSymbols,
           [](const double* x) { return ratio(x[0], x[1]); });
// A.1 (6): L2 is full-duplex, so counted both ways it moves twice its one-way rate.
double l2_over_hbm_bidi(double w_l2, double w_hbm);
inline constexpr Formula kL2Bidi =
    record("ratio", "2 * W_L2 / W_HBM", "ratio", "A.1 (6)", "W_L2 W_HBM", kSymbols,
           [](const double* x) { return l2_over_hbm_bidi(x[0], x[1]); });

// ---- A.2 The node: NVLink and NVSwitch --------------------------------------------------------

// A.2: NVLink egress per GPU, links * bandwidth per link (each way).
double gpu_egress(double n_links, double w_link);
inline constexpr Formula kGpuEgress =
    record("W_GPU", "n_links * W_link", "B_per_s", "A.2", "n_links W_link", kSymbols,
           [](const double* x) { return gpu_egress(x[0], x[1]); });
// A.2: switch capacity of a node, switches * ports * bandwidth per port.
double switch_capacity(double n_switch, double ports, double w_port);
inline constexpr Formula kSwitchCapacity =
    record("W_switch", "n_switch * ports * W_port", "B_per_s", "A.2", "n_switch ports W_port",
           kSymbols, [](const double* x) { return switch_capacity(x[0], x[1], x[2]); });
// A.2: what the node can carry, the smaller of the switches and the GPUs' links.
double node_bandwidth(double w_switch, double n, double w_gpu);
inline constexpr Formula kNodeBandwidth =
    record("W_NVLink", "min(W_switch, N * W_GPU)", "B_per_s", "A.2", "W_switch N W_GPU", kSymbols,
           [](const double* x) { return node_bandwidth(x[0], x[1], x[2]); });
// A.2: bisection of a node counted both ways, 2 (N/2) W_GPU = N W_GPU.
double bisection_both_ways(double n, double w_gpu);
inline constexpr Formula kBisection =
    record("W_bisect", "2 * (N / 2) * W_GPU", "B_per_s", "A.2", "N W_GPU", kSymbols,
           [](const double* x) { return bisection_both_ways(x[0], x[1]); });

// A.2: bisection counted one way, (N/2) W_GPU.
double bisection_one_way(double n, double w_gpu);
inline constexpr Formula kBisectionOneWay =
    record("W_bisect", "(N / 2) * W_GPU", "B_per_s", "A.2", "N W_GPU", kSymbols,
           [](const double* x) { return bisection_one_way(x[0], x[1]); });
// A.3: NVSwitches of a pod, nodes * NVSwitches per node.
double nvswitch_count(double nodes, double nvs_per_node);
inline constexpr Formula kNvSwitchCount =
    record("n_NVS", "M * n_NVS", "count", "A.3", "M n_NVS", kSymbols,
           [](const double* x) { return nvswitch_count(x[0], x[1]); });

// ---- A.3 Scale-out: the fat tree -------------------------------------------------------------

// A.3: node egress, NICs * bandwidth per NIC.
double node_egress(double n_nic, double w_nic);
inline constexpr Formula kNodeEgress =
    record("W_node", "n_NIC * W_NIC", "B_per_s", "A.3", "n_NIC W_NIC", kSymbols,
           [](const double* x) { return node_egress(x[0], x[1]); });
// A.3: down-facing capacity of an SU's leaves, leaves * down ports * port bandwidth.
double leaf_capacity(double n_leaf, double n_down, double w_port);
inline constexpr Formula kLeafCapacity =
    record("W_leaf", "n_leaf * n_down * W_port", "B_per_s", "A.3", "n_leaf n_down W_port", kSymbols,
           [](const double* x) { return leaf_capacity(x[0], x[1], x[2]); });
// A.3: leaf-to-spine cables of an SU, leaves * spines * cables per pair * port bandwidth.
double su_uplink(double n_leaf, double n_spine, double n_cable, double w_port);
inline constexpr Formula kSuUplink =
    record("W_up", "n_leaf * n_spine * n_cable * W_port", "B_per_s", "A.3",
           "n_leaf n_spine n_cable W_port", kSymbols,
           [](const double* x) { return su_uplink(x[0], x[1], x[2], x[3]); });
// A.3: spine capacity, spines * ports * port bandwidth (all ports face the leaves).
double spine_capacity(double n_spine, double ports, double w_port);
inline constexpr Formula kSpineCapacity =
    record("W_spine", "n_spine * ports * W_port", "B_per_s", "A.3", "n_spine ports W_port",
           kSymbols, [](const double* x) { return spine_capacity(x[0], x[1], x[2]); });
// A.3: what every node can send at once, the narrowest level per node.
double per_node_bisection(double w_node, double w_leaf, double w_up, double m_su, double w_spine,
                          double m_pod);
inline constexpr Formula kPerNodeBisection =
    record("W_node", "min(W_node, W_leaf / M_SU, W_up / M_SU, W_spine / M_pod)", "B_per_s", "A.3",
           "W_node W_leaf W_up M_SU W_spine M_pod", kSymbols,
           [](const double* x) { return per_node_bisection(x[0], x[1], x[2], x[3], x[4], x[5]); });
// A.3: switches of a pod, nodes * NVSwitches + leaves + spines.
double switch_count(double nodes, double nvs_per_node, double leaves, double spines);
inline constexpr Formula kSwitchCount =
    record("n_switches", "M * n_NVS + n_leaf + n_spine", "count", "A.3", "M n_NVS n_leaf n_spine",
           kSymbols, [](const double* x) { return switch_count(x[0], x[1], x[2], x[3]); });

}  // namespace sb::gpus
