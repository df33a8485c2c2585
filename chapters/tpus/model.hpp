// Part 2, "How to Think About TPUs": the chip's insides (MXU, VPU, VMEM, VREGs), how chips are
// counted into hosts, slices and pods, the ICI torus (wraparound, hops, bisection) and the time a
// transfer takes over each link (HBM, VMEM, ICI, PCIe, DCN), alone or as a pipeline of stages.
// Everything is in SI base units: s, B, FLOPs, FLOPs/s, B/s. The ICI torus is declared in
// torus.hpp, which this header includes.
//
// Each formula is a record (core/formula.hpp) beside its function: the derivations are rendered
// from the records, and tests/core/formula_records_test.cpp checks each record's expression
// against its function at random points of the symbols' ranges (symbols.hpp). Section numbers
// (A.7 ...) refer to the developer notes shared/book/roofline-tpus.md.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "chapters/roofline/model.hpp"
#include "chapters/tpus/symbols.hpp"
#include "chapters/tpus/torus.hpp"
#include "core/hardware.hpp"

namespace sb::tpus {

// ---------------------------------------------------------------- the chip's insides ----------

// MXU: an S x S systolic array finishing one [rows, S] x [S, S] product every `cycles` cycles,
// i.e. 2*rows*S^2/cycles FLOPs per cycle (= 2 S^2 for the book's 8 rows per 8 cycles).  (MXU)
double mxu_flops_per_cycle(double mxu_dim, double rows_per_op = 8, double cycles_per_op = 8);
inline constexpr Formula kMxuCycleOp =
    record("FLOPs_cycle", "2 * r * S^2 / c", "flop", "A.8", "S r c", kSymbols,
           [](const double* x) { return mxu_flops_per_cycle(x[0], x[1], x[2]); });
// The book's op ([8, S] x [S, S] every 8 cycles): 2 S^2 FLOPs per cycle.  (A.8)
inline constexpr Formula kMxuCycle =
    record("FLOPs_cycle", "2 * S^2", "flop", "A.8", "S", kSymbols,
           [](const double* x) { return mxu_flops_per_cycle(x[0]); });
// One MXU's FLOPs/s: FLOPs per cycle times the clock.  (MXU)
double mxu_flops_per_s(double mxu_dim, double clock_hz, double rows_per_op = 8,
                       double cycles_per_op = 8);
inline constexpr Formula kMxuRateOp =
    record("R_MXU", "2 * r * S^2 * f / c", "flop_per_s", "A.8", "S f r c", kSymbols,
           [](const double* x) { return mxu_flops_per_s(x[0], x[1], x[2], x[3]); });
inline constexpr Formula kMxuRate =
    record("R_MXU", "2 * S^2 * f", "flop_per_s", "A.8", "S f", kSymbols,
           [](const double* x) { return mxu_flops_per_s(x[0], x[1]); });
// A chip's matmul peak: cores x MXUs per core x one MXU's rate.  (MXU; "about 2e14 on v5e")
double chip_flops_from_mxus(double cores, double mxus_per_core, double mxu_flops_per_s);
inline constexpr Formula kChipMxu =
    record("R_chip", "n_core * n_MXU * R_MXU", "flop_per_s", "A.8", "n_core n_MXU R_MXU", kSymbols,
           [](const double* x) { return chip_flops_from_mxus(x[0], x[1], x[2]); });
double chip_mxu_flops_per_s(double cores, double mxus_per_core, double mxu_dim, double clock_hz);
// The int8 rate at a stated speed-up over bf16 (about 2x where supported).  (A.8, low precision)
double int8_flops_per_s(double speedup, double bf16_flops_per_s);
inline constexpr Formula kInt8Rate =
    record("R_int8", "k_int8 * R_bf16", "flop_per_s", "A.8", "k_int8 R_bf16", kSymbols,
           [](const double* x) { return int8_flops_per_s(x[0], x[1]); });
// Multiply-accumulate cells of an S x S array.  (Appendix B)
double mxu_cells(double mxu_dim);
inline constexpr Formula kMxuCells = record("cells", "S^2", "count", "A.8", "S", kSymbols,
                                            [](const double* x) { return mxu_cells(x[0]); });
// How much more a newer MXU does per cycle, (S_new / S_old)^2, and how much larger the
// dimensions must be to fill it, S_new / S_old.  (A.8)
double mxu_work_ratio(double s_new, double s_old);
inline constexpr Formula kMxuWorkRatio =
    record("ratio", "(S_new / S_old)^2", "ratio", "A.8", "S_new S_old", kSymbols,
           [](const double* x) { return mxu_work_ratio(x[0], x[1]); });
double mxu_padding_ratio(double s_new, double s_old);
inline constexpr Formula kMxuPaddingRatio =
    record("ratio", "S_new / S_old", "ratio", "A.8", "S_new S_old", kSymbols,
           [](const double* x) { return mxu_padding_ratio(x[0], x[1]); });
// A matmul dimension padded up to the next multiple of the MXU side.  (Appendix B, padding)
double padded_dim(double d, double mxu_dim);
inline constexpr Formula kPaddedDim =
    record("d_pad", "ceil(d / S) * S", "count", "A.8", "d S", kSymbols,
           [](const double* x) { return padded_dim(x[0], x[1]); });
// Share of the MXU's work that is useful: prod d / prod padded(d).  (Appendix B, padding)
double mxu_utilisation(const std::vector<double>& dims, double mxu_dim);
double mxu_utilisation(double M, double K, double N, double M_pad, double K_pad, double N_pad);
inline constexpr Formula kMxuUtilisation = record(
    "u", "M * K * N / (M_pad * K_pad * N_pad)", "ratio", "A.8", "M K N M_pad K_pad N_pad", kSymbols,
    [](const double* x) { return mxu_utilisation(x[0], x[1], x[2], x[3], x[4], x[5]); });
// What the chip's MXUs do of useful work on a padded matmul: u x R_chip.  (A.8)
double useful_flops_per_s(double utilisation, double chip_flops_per_s);
inline constexpr Formula kUsefulRate =
    record("R_useful", "u * R_chip", "flop_per_s", "A.8", "u R_chip", kSymbols,
           [](const double* x) { return useful_flops_per_s(x[0], x[1]); });

// VPU: sublanes x lanes x ALUs per (lane, sublane) ALUs per TensorCore.  (Appendix A, VPU)
double vpu_alus_per_core(double sublanes, double lanes, double alus_per_cell);
inline constexpr Formula kVpuAlus =
    record("ALUs", "n_sub * n_lane * n_ALU", "count", "A.7", "n_sub n_lane n_ALU", kSymbols,
           [](const double* x) { return vpu_alus_per_core(x[0], x[1], x[2]); });
// One fp32 operation per ALU per cycle: a core's VPU does as many FLOPs per cycle as it has ALUs.
inline constexpr Formula kVpuCycle =
    record("FLOPs_cycle", "n_sub * n_lane * n_ALU", "flop", "A.7", "n_sub n_lane n_ALU", kSymbols,
           [](const double* x) { return vpu_alus_per_core(x[0], x[1], x[2]); });
// VPU FLOPs/s of one core: one fp32 operation per ALU per cycle.  (Appendix A, VPU)
double vpu_flops_per_s_core(double alus_per_core, double clock_hz);
inline constexpr Formula kVpuCore =
    record("VPU_core", "FLOPs_cycle * f", "flop_per_s", "A.7", "FLOPs_cycle f", kSymbols,
           [](const double* x) { return vpu_flops_per_s_core(x[0], x[1]); });
// The same from the VPU's shape: sublanes x lanes x ALUs per cell x clock.  (A.7)
double vpu_flops_per_s_core(double sublanes, double lanes, double alus_per_cell, double clock_hz);
inline constexpr Formula kVpuCoreShape =
    record("VPU_core", "n_sub * n_lane * n_ALU * f", "flop_per_s", "A.7", "n_sub n_lane n_ALU f",
           kSymbols, [](const double* x) { return vpu_flops_per_s_core(x[0], x[1], x[2], x[3]); });
// Bytes held by a core's vector registers: n_VREG x sublanes x lanes x 4 B.  (Appendix A, VREGs)
double vreg_bytes_per_core(double vregs, double sublanes = 8, double lanes = 128,
                           double bytes_per_word = 4);
inline constexpr Formula kVregBytes =
    record("V_core", "n_VREG * n_sub * n_lane * b_word", "B", "A.7", "n_VREG n_sub n_lane b_word",
           kSymbols, [](const double* x) { return vreg_bytes_per_core(x[0], x[1], x[2], x[3]); });
// Rotate-and-add rounds to reduce across the sublanes: log2(sublanes).  (Appendix A, reductions)
int sublane_reduction_steps(int sublanes, const std::string& field = "sublanes");
// The rounds of halving, log2 n, for a count sublane_reduction_steps has checked.
double halving_rounds(double n);
inline constexpr Formula kHalvings =
    record("rounds", "log2(n_sub)", "count", "A.7", "n_sub", kSymbols,
           [](const double* x) { return halving_rounds(x[0]); });
// VMEM bandwidth taken as a multiple (about 22x) of HBM bandwidth.  (What is a TPU?, VMEM)
inline constexpr double kVmemOverHbm = 22;
double vmem_bw(double hbm_bw, double ratio = kVmemOverHbm);
inline constexpr Formula kVmemBw =
    record("BW_VMEM", "k * BW_HBM", "B_per_s", "A.7", "BW_HBM k", kSymbols,
           [](const double* x) { return vmem_bw(x[0], x[1]); });

// ---------------------------------------------------------------- ratios and shares ----------

// How many times one figure is the other: a / b (HBM over PCIe, ICI over DCN, MXU over VPU).
double ratio_of(double a, double b);
inline constexpr Formula kHbmOverPcie =
    record("ratio", "BW_HBM / BW_PCIe", "ratio", "A.11", "BW_HBM BW_PCIe", kSymbols,
           [](const double* x) { return ratio_of(x[0], x[1]); });
inline constexpr Formula kHbmOverIci =
    record("ratio", "BW_HBM / BW_ICI", "ratio", "B.8", "BW_HBM BW_ICI", kSymbols,
           [](const double* x) { return ratio_of(x[0], x[1]); });
inline constexpr Formula kIciOverDcn =
    record("ratio", "BW_ICI / BW_DCN", "ratio", "B.8", "BW_ICI BW_DCN", kSymbols,
           [](const double* x) { return ratio_of(x[0], x[1]); });
inline constexpr Formula kMxuOverVpu =
    record("ratio", "R_core / VPU_core", "ratio", "A.7", "R_core VPU_core", kSymbols,
           [](const double* x) { return ratio_of(x[0], x[1]); });
// An even share of a whole over n (a chip's share of the weights, a core's of the chip's MXUs).
double even_share(double total, double n);
inline constexpr Formula kMxuPerCore =
    record("R_core", "R_chip / n_core", "flop_per_s", "A.7", "R_chip n_core", kSymbols,
           [](const double* x) { return even_share(x[0], x[1]); });
// A figure of the whole made of n parts: n x the figure of one (chips x per chip).  (A.9)
double slice_total(double n, double per_part);
inline constexpr Formula kSliceFlops =
    record("peak_slice", "N * peak", "flop_per_s", "A.9", "N peak", kSymbols,
           [](const double* x) { return slice_total(x[0], x[1]); });
inline constexpr Formula kSliceHbm =
    record("HBM_slice", "N * C_HBM", "B", "A.9", "N C_HBM", kSymbols,
           [](const double* x) { return slice_total(x[0], x[1]); });
inline constexpr Formula kSliceHbmBw =
    record("BW_slice", "N * BW_HBM", "B_per_s", "A.9", "N BW_HBM", kSymbols,
           [](const double* x) { return slice_total(x[0], x[1]); });
inline constexpr Formula kTrayChips =
    record("N", "n_tray * n_chip", "chips", "A.9", "n_tray n_chip", kSymbols,
           [](const double* x) { return slice_total(x[0], x[1]); });
inline constexpr Formula kVregChip =
    record("V_chip", "n_core * V_core", "B", "A.7", "n_core V_core", kSymbols,
           [](const double* x) { return slice_total(x[0], x[1]); });

// ---------------------------------------------------------------- rooflines on a chip ----------
// The roofline equations (T_math, T_comms, critical intensity, matmul FLOPs and bytes, the
// critical batch) are the roofline chapter's: chapters/roofline/model.hpp.

// Smallest D (with F = k D) for which some batch is compute-bound: where the denominator of
// roofline::critical_batch_exact turns positive, I_hw (b_x + b_o k) / 2k.  (tpus Q3)
double d_min_compute_bound(double i_hw, double bx, double bo, double f_over_d);
inline constexpr Formula kDMin =
    record("D_min", "I_hw * (b_x + b_o * k) / (2 * k)", "count", "A.11 (tpus Q3)", "I_hw b_x b_o k",
           kSymbols, [](const double* x) { return d_min_compute_bound(x[0], x[1], x[2], x[3]); });

// ---------------------------------------------------------------- counting chips ----------

// "4x4x4", "16 x 16", "2X2X1", "4*4": InputError(field) for anything else (zero or negative axes,
// more than 3 axes, non-numbers, axes above 100000).
Dims parse_shape(const std::string& text, const std::string& field);
std::string shape_text(const Dims& d);
// Chips in a slice: the product of its axes.  (Chips, hosts and pods)
double chip_count(const Dims& d);
// One record per rank, as a slice has 1, 2 or 3 axes.
inline constexpr Formula kChips1 =
    record("N", "n_x", "chips", "A.9", "n_x", kSymbols,
           [](const double* x) { return chip_count(Dims{static_cast<int>(x[0])}); });
inline constexpr Formula kChips2 =
    record("N", "n_x * n_y", "chips", "A.9", "n_x n_y", kSymbols, [](const double* x) {
      return chip_count(Dims{static_cast<int>(x[0]), static_cast<int>(x[1])});
    });
inline constexpr Formula kChips3 =
    record("N", "n_x * n_y * n_z", "chips", "A.9", "n_x n_y n_z", kSymbols, [](const double* x) {
      return chip_count(
          Dims{static_cast<int>(x[0]), static_cast<int>(x[1]), static_cast<int>(x[2])});
    });
// Hosts serving a slice: chips / chips_per_host, rounded up for a partial host.  (counting)
double host_count(double chips, double chips_per_host);
inline constexpr Formula kHosts =
    record("hosts", "ceil(N / n_host)", "count", "A.9", "N n_host", kSymbols,
           [](const double* x) { return host_count(x[0], x[1]); });
// Chips per host when a slice of N chips sits on H hosts: N / H.  (A.11)
inline constexpr Formula kChipsPerHost =
    record("n_host", "N / H", "chips", "A.11", "N H", kSymbols,
           [](const double* x) { return even_share(x[0], x[1]); });
// TensorCores: chips x cores per chip.  (counting)
double core_count(double chips, double cores_per_chip);
inline constexpr Formula kCores =
    record("cores", "N * n_core", "count", "A.9", "N n_core", kSymbols,
           [](const double* x) { return core_count(x[0], x[1]); });
// The weights' bytes: parameters x bytes per parameter.  (A.9)
double weight_bytes(double n_params, double bytes_per_param);
inline constexpr Formula kWeightBytes =
    record("bytes", "N_params * b", "B", "A.9", "N_params b", kSymbols,
           [](const double* x) { return weight_bytes(x[0], x[1]); });
// A chip's share of bytes split evenly over N_chips.  (A.9)
inline constexpr Formula kBytesPerChip =
    record("bytes_chip", "bytes / N_chips", "B", "A.9", "bytes N_chips", kSymbols,
           [](const double* x) { return even_share(x[0], x[1]); });
// Decode-step floor: every weight is read from HBM once per step.  (counting; tpus Q1)
double decode_step_floor(double n_params, double bytes_per_param, double n_chips,
                         double hbm_bw_per_chip);
inline constexpr Formula kDecodeFloor =
    record("T_step", "N_params * b / (N_chips * BW_HBM)", "s", "A.9", "N_params b N_chips BW_HBM",
           kSymbols, [](const double* x) { return decode_step_floor(x[0], x[1], x[2], x[3]); });
// The most decode steps a second at that floor: 1 / T_step.  (A.9)
double steps_per_s(double t_step);
inline constexpr Formula kStepsPerS =
    record("steps", "1 / T_step", "per_s", "A.9", "T_step", kSymbols,
           [](const double* x) { return steps_per_s(x[0]); });
// Whether bytes fit in a capacity (a chip's HBM).  (A.1, capacity)
bool fits_in(double bytes, double capacity);

// ---------------------------------------------------------------- transfer times ----------
// A single transfer takes roofline::t_comms(bytes, bandwidth).

// Bandwidth a chip pushes along one axis: 2x one-way on a ring, 1x on a line.  (ICI, bidirectional)
double axis_bw(double ici_bw_oneway, bool wrap);
inline constexpr Formula kAxisBwRing = record("BW_axis", "2 * W", "B_per_s", "A.10", "W", kSymbols,
                                              [](const double* x) { return axis_bw(x[0], true); });
inline constexpr Formula kAxisBwLine = record("BW_axis", "W", "B_per_s", "A.10", "W", kSymbols,
                                              [](const double* x) { return axis_bw(x[0], false); });
// First byte arrives after hops x t_hop.  (A.10; tpus Q5)
double ici_first_byte(int hops, double t_hop);
inline constexpr Formula kFirstByte =
    record("T_first", "h * t_hop", "s", "A.10", "h t_hop", kSymbols,
           [](const double* x) { return ici_first_byte(static_cast<int>(x[0]), x[1]); });
// Bulk term: bytes over the ports used at one-way link bandwidth.  (A.10; tpus Q5)
double ici_bulk(double bytes, int ports, double ici_bw_oneway);
inline constexpr Formula kBulk =
    record("T_bulk", "bytes / (n_ports * W)", "s", "A.10", "bytes n_ports W", kSymbols,
           [](const double* x) { return ici_bulk(x[0], static_cast<int>(x[1]), x[2]); });
// Point to point: bulk plus the path latency of the last byte.  (A.10; tpus Q5)
double ici_p2p_time(double bytes, int ports, double ici_bw_oneway, int hops, double t_hop);
inline constexpr Formula kPointToPoint =
    record("T", "bytes / (n_ports * W) + h * t_hop", "s", "A.10", "bytes n_ports W h t_hop",
           kSymbols, [](const double* x) {
             return ici_p2p_time(x[0], static_cast<int>(x[1]), x[2], static_cast<int>(x[3]), x[4]);
           });
// Gathering onto one chip over k incoming links: bytes_received / (k x one-way).  (A.12; tpus Q6)
double gather_time(double bytes_received, int links_in, double ici_bw_oneway);
inline constexpr Formula kGather =
    record("T_gather", "bytes / (n_in * W)", "s", "A.12", "bytes n_in W", kSymbols,
           [](const double* x) { return gather_time(x[0], static_cast<int>(x[1]), x[2]); });
// n chips each pulling its own shard over its own PCIe link: (bytes/n)/BW.  (A.12; tpus Q6)
double pcie_sharded_time(double bytes, double n_chips, double pcie_bw_per_chip);
// A chip's shard of an array split evenly over N chips: A / N.  (A.12)
inline constexpr Formula kShard = record("shard", "A / N", "B", "A.12", "A N", kSymbols,
                                         [](const double* x) { return even_share(x[0], x[1]); });
// What one chip must receive from the n - 1 others, A (n - 1) / n.  (A.12; tpus Q6)
double bytes_from_others(double bytes, double n);
inline constexpr Formula kFromOtherChips =
    record("bytes_in", "A * (N - 1) / N", "B", "A.12", "A N", kSymbols,
           [](const double* x) { return bytes_from_others(x[0], x[1]); });
inline constexpr Formula kFromOtherHosts =
    record("bytes_DCN", "A * (H - 1) / H", "B", "A.11", "A H", kSymbols,
           [](const double* x) { return bytes_from_others(x[0], x[1]); });
// The bytes that arrive when a share f of the array does: f x A.  (tpus Q6)
double received_bytes(double share, double bytes);
inline constexpr Formula kReceived =
    record("bytes_in", "f_in * A", "B", "A.12 (tpus Q6)", "f_in A", kSymbols,
           [](const double* x) { return received_bytes(x[0], x[1]); });
// A host's DCN egress: chips per host x per-chip figure.  (A.11)
double host_dcn_bw(double chips_per_host, double dcn_bw_per_chip);
inline constexpr Formula kHostDcn =
    record("BW_host", "n_host * BW_DCN", "B_per_s", "A.11", "n_host BW_DCN", kSymbols,
           [](const double* x) { return host_dcn_bw(x[0], x[1]); });
// A transfer with a fixed latency on top of its bandwidth term: bytes / BW + t_lat.  (A.12)
double transfer_time(double bytes, double bw, double latency);
inline constexpr Formula kTransferLatency =
    record("T", "bytes / BW + t_lat", "s", "A.12", "bytes BW t_lat", kSymbols,
           [](const double* x) { return transfer_time(x[0], x[1], x[2]); });

// One stage of a pipelined job: a transfer (bytes over bw) or compute (flops at peak).
struct Stage {
  std::string name;         // "PCIe load", "ICI gather onto TPU{0,0}"
  std::string kind;         // hbm, vmem, ici, pcie, dcn, compute
  double amount = 0;        // bytes, or FLOPs for compute
  double rate = 0;          // B/s, or FLOPs/s
  double latency = 0;       // added fixed time (hops x t_hop)
  double seconds = 0;       // amount / rate + latency
  double start_serial = 0;  // when it starts if the stages run one after another (A.12); fully
                            // overlapped, every stage starts at 0
};
Stage make_stage(std::string name, std::string kind, double amount, double rate,
                 double latency = 0);
struct Pipeline {
  std::vector<Stage> stages;
  double t_lower = 0;   // slowest stage: the stages overlap fully   (A.12)
  double t_upper = 0;   // sum: no overlap                          (A.12)
  int bottleneck = -1;  // index of the slowest stage
};
// Sets each stage's serial start, the two bounds and the bottleneck.
Pipeline pipeline(std::vector<Stage> stages);

// ---------------------------------------------------------------- slice inventory ----------

struct Inventory {
  std::string chip;
  Torus torus;
  double chips = 0, hosts = 0, cores = 0, chips_per_host = 0, cores_per_chip = 0;
  bool megacore = false;
  std::map<std::string, double> flops;  // dtype -> total FLOPs/s of the slice
  double hbm_bytes = 0, hbm_bw = 0;     // totals
  double ici_bw_oneway = 0;             // per link
  double links_per_chip = 0;
  double pcie_bw = 0, dcn_bw = 0;  // totals over the slice's chips
  double bisection_bw = 0;         // one-way across the cheapest halving
  int max_hops = 0;
};
Inventory inventory(const hw::Chip& chip, const Dims& dims,
                    const std::string& shape_field = "shape");

// ---------------------------------------------------------------- arrays ----------

// "bf16[8, 128, 8192]" -> elements and bytes; InputError(field) for a bad dtype or shape.
// A symbolic dimension (B) is not allowed here: sizes must be numbers.
struct ArraySpec {
  std::string dtype;
  std::vector<double> dims;
  double elements = 0, bytes = 0;
};
ArraySpec parse_array(const std::string& text, const std::string& field);
// An array's bytes: elements x bytes per element.  (A.0)
double array_bytes(double elements, double bytes_per_element);
inline constexpr Formula kArrayBytes =
    record("bytes", "N_elem * b", "B", "A.0", "N_elem b", kSymbols,
           [](const double* x) { return array_bytes(x[0], x[1]); });
// The rows of a [rows, cols] array of `bytes` at `bytes_per_element`.
double array_rows(double bytes, double bytes_per_element, double cols);

// Every record above, for the registry (the formula sheet and the record test).
inline constexpr const Formula* kFormulas[] = {
    &kMxuCycleOp,     &kMxuCycle,       &kMxuRateOp,    &kMxuRate,         &kChipMxu,
    &kInt8Rate,       &kMxuCells,       &kMxuWorkRatio, &kMxuPaddingRatio, &kPaddedDim,
    &kMxuUtilisation, &kUsefulRate,     &kVpuAlus,      &kVpuCycle,        &kVpuCore,
    &kVpuCoreShape,   &kVregBytes,      &kHalvings,     &kVmemBw,          &kHbmOverPcie,
    &kHbmOverIci,     &kIciOverDcn,     &kMxuOverVpu,   &kMxuPerCore,      &kSliceFlops,
    &kSliceHbm,       &kSliceHbmBw,     &kTrayChips,    &kVregChip,        &kDMin,
    &kChips1,         &kChips2,         &kChips3,       &kHosts,           &kChipsPerHost,
    &kCores,          &kWeightBytes,    &kBytesPerChip, &kDecodeFloor,     &kStepsPerS,
    &kAxisLine,       &kAxisRing,       &kAxisMaxLine,  &kAxisMaxRing,     &kBisectionBw,
    &kSendBw,         &kReceiveBw,      &kAxesBw,       &kAxisBwRing,      &kAxisBwLine,
    &kFirstByte,      &kBulk,           &kPointToPoint, &kGather,          &kShard,
    &kFromOtherChips, &kFromOtherHosts, &kReceived,     &kHostDcn,         &kTransferLatency,
    &kArrayBytes};

}  // namespace sb::tpus
