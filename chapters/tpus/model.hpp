// Part 2, "How to Think About TPUs": the chip's insides (MXU, VPU, VMEM, VREGs), how chips are
// counted into hosts, slices and pods, the ICI torus (wraparound, hops, bisection) and the time a
// transfer takes over each link (HBM, VMEM, ICI, PCIe, DCN), alone or as a pipeline of stages.
// Everything is in SI base units: s, B, FLOPs, FLOPs/s, B/s. Section names refer to the book's
// tpus.md (and the roofline chapter where the same equation is reused).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "chapters/roofline/model.hpp"
#include "core/hardware.hpp"

namespace sb::tpus {

// ---------------------------------------------------------------- the chip's insides ----------

// MXU: an S x S systolic array finishing one [rows, S] x [S, S] product every `cycles` cycles,
// i.e. 2*rows*S^2/cycles FLOPs per cycle (= 2 S^2 for the book's 8 rows per 8 cycles).  (MXU)
double mxu_flops_per_cycle(double mxu_dim, double rows_per_op = 8, double cycles_per_op = 8);
// One MXU's FLOPs/s: FLOPs per cycle times the clock.  (MXU)
double mxu_flops_per_s(double mxu_dim, double clock_hz, double rows_per_op = 8,
                       double cycles_per_op = 8);
// A chip's matmul peak: cores x MXUs per core x one MXU's rate.  (MXU; "about 2e14 on v5e")
double chip_mxu_flops_per_s(double cores, double mxus_per_core, double mxu_dim, double clock_hz);
// Multiply-accumulate cells of an S x S array.  (Appendix B)
double mxu_cells(double mxu_dim);
// A matmul dimension padded up to the next multiple of the MXU side.  (Appendix B, padding)
double padded_dim(double d, double mxu_dim);
// Share of the MXU's work that is useful: prod d / prod padded(d).  (Appendix B, padding)
double mxu_utilisation(const std::vector<double>& dims, double mxu_dim);

// VPU: sublanes x lanes x ALUs per (lane, sublane) ALUs per TensorCore.  (Appendix A, VPU)
double vpu_alus_per_core(double sublanes, double lanes, double alus_per_cell);
// VPU FLOPs/s of one core: one fp32 operation per ALU per cycle.  (Appendix A, VPU)
double vpu_flops_per_s_core(double alus_per_core, double clock_hz);
// Bytes held by a core's vector registers: n_VREG x sublanes x lanes x 4 B.  (Appendix A, VREGs)
double vreg_bytes_per_core(double vregs, double sublanes = 8, double lanes = 128,
                           double bytes_per_word = 4);
// Rotate-and-add rounds to reduce across the sublanes: log2(sublanes).  (Appendix A, reductions)
int sublane_reduction_steps(int sublanes, const std::string& field = "sublanes");
// VMEM bandwidth taken as a multiple (about 22x) of HBM bandwidth.  (What is a TPU?, VMEM)
double vmem_bw(double hbm_bw, double ratio = 22);

// ---------------------------------------------------------------- rooflines on a chip ----------
// The roofline equations (T_math, T_comms, critical intensity, matmul FLOPs and bytes, the
// critical batch) are the roofline chapter's: chapters/roofline/model.hpp.

// Smallest D (with F = k D) for which some batch is compute-bound: where the denominator of
// roofline::critical_batch_exact turns positive, I_hw (b_x + b_o k) / 2k.  (tpus Q3)
double d_min_compute_bound(double i_hw, double bx, double bo, double f_over_d);

// ---------------------------------------------------------------- counting chips ----------

// A slice shape: 1 to 3 axis lengths, e.g. {4, 4, 4}.
using Dims = std::vector<int>;

// "4x4x4", "16 x 16", "2X2X1", "4*4": InputError(field) for anything else (zero or negative axes,
// more than 3 axes, non-numbers, axes above 100000).
Dims parse_shape(const std::string& text, const std::string& field);
std::string shape_text(const Dims& d);
// Chips in a slice: the product of its axes.  (Chips, hosts and pods)
double chip_count(const Dims& d);
// Hosts serving a slice: chips / chips_per_host, rounded up for a partial host.  (counting)
double host_count(double chips, double chips_per_host);
// TensorCores: chips x cores per chip.  (counting)
double core_count(double chips, double cores_per_chip);
// Decode-step floor: every weight is read from HBM once per step.  (counting; tpus Q1)
double decode_step_floor(double n_params, double bytes_per_param, double n_chips,
                         double hbm_bw_per_chip);

// ---------------------------------------------------------------- the ICI torus ----------

// Which axes of a slice are closed rings: the chip's rule, a field of data/chips.json.
struct WrapRule {
  enum class Kind {
    None,         // no rule in the tables (GPUs): no axis wraps
    AllMultiple,  // wrap_if_all_axes_multiple_of = n (v4p, v5p, TPU7x: n = 4): every axis wraps
                  // iff every axis is a multiple of n, the slice being whole cubes joined by
                  // optical switches; 2x2x4 wraps nowhere
    AxisLength,   // wrap_if_axis_length = n (v5e, v6e: n = 16): an axis wraps iff its length is n,
                  // the side of a fixed pod-sized torus
  };
  Kind kind = Kind::None;
  int n = 0;
  bool assumed = false;  // the book states no rule for this chip: the tables' is a modelling choice
  std::string text;      // the rule in words, for notes
};
WrapRule wrap_rule(const hw::Chip& chip);
// The axes of a slice shaped `dims` that wrap on `chip` (TPU Networking, wraparound). A slice with
// fewer axes than the chip's torus has length 1 on the others, so it is never whole cubes; a ring
// of 1 or 2 chips adds no link a line lacks, so it counts as a line.
std::vector<bool> wraps(const hw::Chip& chip, const Dims& dims);

// ICI latency per hop: the chip's figure in the tables, else kTypicalHopLatency.  (A.10)
double hop_latency(const hw::Chip& chip);
// The book's order of magnitude for one ICI hop on any TPU ("about 1 us", given for v5e).
inline constexpr double kTypicalHopLatency = 1e-6;

struct Torus {
  Dims dims;               // axis lengths
  std::vector<bool> wrap;  // one per axis
};

// A chip's topology facts from the tables.
struct Topology {
  std::string chip;    // id
  int torus_dims = 2;  // 2 or 3
  Dims max_pod;        // "16x16", "16x20x28"
  WrapRule rule;
  bool inferred = false;  // TPU7x: the book does not state the torus rank
};
Topology topology_of(const hw::Chip& chip, const std::string& field = "chip");

// The slice on a chip: validates the shape against the chip (rank, max pod) and applies the rule.
// `wrap_override`: "auto" (the rule), "none", "all". Errors name `shape_field` or `wrap_field`.
Torus slice_torus(const hw::Chip& chip, const Dims& dims, const std::string& wrap_override = "auto",
                  const std::string& shape_field = "shape", const std::string& wrap_field = "wrap");

// Distance along one axis: |a-b|, or min(|a-b|, n-|a-b|) on a ring.  (A.10 hop count)
int axis_distance(int a, int b, int n, bool wrap);
// The largest distance along one axis of n chips: floor(n/2) on a ring, n-1 on a line.
int axis_max_distance(int n, bool wrap);
// Hops per axis and their sum.
std::vector<int> hops_per_axis(const Torus& t, const Dims& from, const Dims& to);
int hops(const Torus& t, const Dims& from, const Dims& to);
// Worst case over all pairs: the sum of axis_max_distance over the axes.  (TPU Networking)
int max_distance(const Torus& t);
// Dimension-ordered route (axis 0 first, shorter way round a ring, ties go up): every chip on
// the path, both ends included.
std::vector<Dims> route(const Torus& t, const Dims& from, const Dims& to);
// The chips one link away (no duplicates; a ring of 2 gives one neighbour).
std::vector<Dims> neighbours(const Torus& t, const Dims& c);
// Links leaving the sender toward the destination: one per axis on which the two differ.  (A.10)
int ports_toward(const Torus& t, const Dims& from, const Dims& to);
// Coordinates "0,0,0", "(3, 3)", "TPU{0,0}": InputError(field) unless they fit the torus.
Dims parse_coord(const std::string& text, const Torus& t, const std::string& field);
std::string coord_text(const Dims& c);
// Links cut by the cheapest halving of the slice: min over axes (n >= 2) of chips/n x (2 if the
// axis is a ring else 1). 0 for a single chip.
double bisection_links(const Torus& t);
// One-way bandwidth across that cut.
double bisection_bw(const Torus& t, double ici_bw_oneway_per_link);

// ---------------------------------------------------------------- transfer times ----------
// A single transfer takes roofline::t_comms(bytes, bandwidth).

// Bandwidth a chip pushes along one axis: 2x one-way on a ring, 1x on a line.  (ICI, bidirectional)
double axis_bw(double ici_bw_oneway, bool wrap);
// First byte arrives after hops x t_hop.  (A.10; tpus Q5)
double ici_first_byte(int hops, double t_hop);
// Bulk term: bytes over the ports used at one-way link bandwidth.  (A.10; tpus Q5)
double ici_bulk(double bytes, int ports, double ici_bw_oneway);
// Point to point: bulk plus the path latency of the last byte.  (A.10; tpus Q5)
double ici_p2p_time(double bytes, int ports, double ici_bw_oneway, int hops, double t_hop);
// Gathering onto one chip over k incoming links: bytes_received / (k x one-way).  (A.12; tpus Q6)
double gather_time(double bytes_received, int links_in, double ici_bw_oneway);
// n chips each pulling its own shard over its own PCIe link: (bytes/n)/BW.  (A.12; tpus Q6)
double pcie_sharded_time(double bytes, double n_chips, double pcie_bw_per_chip);
// A host's DCN egress: chips per host x per-chip figure.  (A.11)
double host_dcn_bw(double chips_per_host, double dcn_bw_per_chip);

// One stage of a pipelined job: a transfer (bytes over bw) or compute (flops at peak).
struct Stage {
  std::string name;    // "PCIe load", "ICI gather onto TPU{0,0}"
  std::string kind;    // hbm, vmem, ici, pcie, dcn, compute
  double amount = 0;   // bytes, or FLOPs for compute
  double rate = 0;     // B/s, or FLOPs/s
  double latency = 0;  // added fixed time (hops x t_hop)
  double seconds = 0;  // amount / rate + latency
};
Stage make_stage(std::string name, std::string kind, double amount, double rate,
                 double latency = 0);
struct Pipeline {
  std::vector<Stage> stages;
  double t_lower = 0;   // slowest stage: the stages overlap fully   (A.12)
  double t_upper = 0;   // sum: no overlap                          (A.12)
  int bottleneck = -1;  // index of the slowest stage
};
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

}  // namespace sb::tpus
