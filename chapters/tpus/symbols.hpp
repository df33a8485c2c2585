// The TPU chapter's symbols (model.hpp, torus.hpp): the names its formula records use, with
// their units and the ranges the record test draws them from.
#pragma once
#include "core/formula.hpp"

namespace sb::tpus {

// The chapter's symbols: their units and the ranges the record test draws them from.
inline constexpr Symbol kSymbols[] = {
    // The chip's insides.
    whole("S", "count", 8, 1024, "side of the MXU's systolic array"),
    whole("r", "count", 1, 64, "rows of the LHS block one MXU op multiplies"),
    whole("c", "count", 1, 64, "cycles one MXU op takes"),
    sym("f", "per_s", 1e8, 1e10, "clock frequency"),
    sym("FLOPs_cycle", "flop", 1, 1e7, "FLOPs per cycle"),
    sym("R_MXU", "flop_per_s", 1e9, 1e15, "FLOPs/s of one MXU"),
    sym("R_chip", "flop_per_s", 1e9, 1e17, "FLOPs/s of the chip's MXUs"),
    sym("R_bf16", "flop_per_s", 1e9, 1e17, "bf16 FLOPs/s of the chip"),
    sym("k_int8", "ratio", 0.1, 10, "int8 rate over the bf16 rate"),
    whole("n_core", "count", 1, 8, "TensorCores per chip"),
    whole("n_MXU", "count", 1, 16, "MXUs per TensorCore"),
    whole("d", "count", 1, 1e6, "a matmul dimension"),
    whole("M", "count", 1, 1e5, "rows of the LHS"),
    whole("K", "count", 1, 1e5, "contracted dimension"),
    whole("N", "count", 1, 1e5, "columns of the RHS, or chips"),
    whole("M_pad", "count", 1, 1e5, "M padded to the MXU side"),
    whole("K_pad", "count", 1, 1e5, "K padded to the MXU side"),
    whole("N_pad", "count", 1, 1e5, "N padded to the MXU side"),
    sym("u", "ratio", 1e-3, 1, "MXU utilisation"),
    whole("n_sub", "count", 1, 64, "VPU sublanes"),
    whole("n_lane", "count", 1, 1024, "VPU lanes"),
    whole("n_ALU", "count", 1, 16, "ALUs per (lane, sublane)"),
    whole("ALUs", "count", 1, 1e6, "VPU ALUs of one core"),
    whole("n_VREG", "count", 1, 256, "vector registers per core"),
    sym("b_word", "B", 1, 8, "bytes per register word"),
    sym("V_core", "B", 1, 1e9, "vector-register bytes of one core"),
    sym("R_core", "flop_per_s", 1e9, 1e17, "MXU FLOPs/s of one core"),
    sym("VPU_core", "flop_per_s", 1e9, 1e15, "VPU FLOPs/s of one core"),
    whole("S_new", "count", 8, 1024, "side of the newer MXU"),
    whole("S_old", "count", 8, 1024, "side of the older MXU"),
    // Memory and links.
    sym("BW_HBM", "B_per_s", 1e9, 1e14, "HBM bandwidth of one chip"),
    sym("BW_PCIe", "B_per_s", 1e8, 1e12, "PCIe bandwidth of one chip"),
    sym("BW_ICI", "B_per_s", 1e8, 1e12, "ICI bandwidth per axis, one way"),
    sym("BW_DCN", "B_per_s", 1e8, 1e12, "DCN egress of one chip"),
    sym("W", "B_per_s", 1e8, 1e12, "one-way bandwidth of one ICI link"),
    sym("BW", "B_per_s", 1e6, 1e14, "bandwidth of a stage's memory or link"),
    sym("k", "ratio", 1e-3, 1e3, "a ratio: VMEM over HBM bandwidth, or F over D"),
    sym("I_hw", "flop_per_B", 1, 1e6, "critical intensity"),
    sym("b_x", "B", 0.125, 8, "bytes per element of the activations"),
    sym("b_o", "B", 0.125, 8, "bytes per element of the output"),
    // Counting.
    whole("n_x", "count", 1, 1e3, "chips along the first axis"),
    whole("n_y", "count", 1, 1e3, "chips along the second axis"),
    whole("n_z", "count", 1, 1e3, "chips along the third axis"),
    whole("n_host", "count", 1, 64, "chips per host"),
    whole("n_tray", "count", 1, 16, "trays per host"),
    whole("n_chip", "count", 1, 16, "chips per tray"),
    whole("H", "count", 1, 1e4, "hosts"),
    sym("peak", "flop_per_s", 1e9, 1e17, "peak FLOPs/s of one chip"),
    sym("C_HBM", "B", 1e6, 1e13, "HBM capacity of one chip"),
    sym("N_params", "params", 1, 1e13, "parameters"),
    sym("b", "B", 0.125, 8, "bytes per parameter or per element"),
    sym("N_chips", "chips", 1, 1e5, "chips sharing the weights"),
    sym("bytes", "B", 1, 1e15, "bytes"),
    sym("T_step", "s", 1e-9, 1e4, "time of one decode step"),
    // The ICI torus.
    whole("a_i", "count", 0, 1e3, "the first chip's coordinate along axis i"),
    whole("b_i", "count", 0, 1e3, "the second chip's coordinate along axis i"),
    whole("n_i", "count", 1, 1e3, "chips along axis i"),
    whole("h", "count", 0, 1e4, "hops"),
    sym("t_hop", "s", 1e-9, 1e-3, "latency of one hop"),
    sym("t_lat", "s", 0, 1e-2, "fixed latency of a stage"),
    whole("n_links", "count", 0, 1e6, "links across the cut"),
    whole("n_ports", "count", 1, 6, "links the sender uses"),
    whole("n_in", "count", 1, 6, "links into the receiving chip"),
    whole("n_axes", "count", 1, 3, "ICI axes of a chip"),
    // Arrays and offload.
    sym("A", "B", 1, 1e15, "bytes of the array"),
    sym("v", "B", 1, 1e12, "bytes of the vector"),
    sym("f_in", "ratio", 1e-6, 1, "share of the array that arrives over ICI"),
    sym("N_elem", "count", 1, 1e15, "elements of the array"),
};

}  // namespace sb::tpus
