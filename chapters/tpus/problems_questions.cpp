// The TPU chapter's end-of-chapter problems 1-5 (tpus.Q1 to tpus.Q5.b).
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

// Question 1: a lower bound on a sampling step.
constexpr double kQ1NParams[] = {7e9, 7e10, 2e11, 4.05e11};
constexpr double kQ1BytesPerParam[] = {1, 2, 4};
constexpr double kQ1NChips[] = {8, 16, 32, 64};
constexpr Param kQ1Given[] = {
    param_count("n_params", 2e11, "parameters", kQ1NParams),
    per_param("bytes_per_param", 2, "bytes per parameter", kQ1BytesPerParam),
    sb::chip_count("n_chips", 32, "chips sharing the weights", kQ1NChips),
    chip("v4p"),
    chip_spec(rate("hbm_bw_per_chip_Bps", "B_per_s", 1.2e12, "HBM bandwidth per chip"), "hbm_bw"),
    chip_spec(memory("hbm_capacity_per_chip_B", 3.2e10, "HBM per chip"), "hbm_bytes")};
constexpr Slot kQ1Slots[] = {number("total_bytes", "B", "weight bytes"),
                             number("bytes_per_chip", "B", "bytes per chip"),
                             derived(number("t_load", "s", "time to read them once"), From::Bytes),
                             boolean("fits_in_hbm", "does a chip's share fit in HBM?")};
constexpr Problem kQ1{
    .id = "tpus.Q1",
    .title = "Lower bound on sampling step latency",
    .statement =
        "A model of {n_params} parameters at {bytes_per_param} each is split evenly over "
        "{n_chips} ({chip}: HBM {hbm_bw_per_chip_Bps} and {hbm_capacity_per_chip_B} per chip). "
        "Each sampling step must read every weight from HBM at least once: how many bytes is "
        "that in all and per chip, how long does it take at best, and does a chip's share fit?",
    .kind = "numeric",
    .given = kQ1Given,
    .slots = kQ1Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double np = in.num("n_params"), b = in.num("bytes_per_param"), nc = in.num("n_chips"),
                 bw = in.num("hbm_bw_per_chip_Bps"), cap = in.num("hbm_capacity_per_chip_B");
          const double total = tr.step("Weight bytes", kWeightBytes, {np, b});
          const double per = tr.step("Per chip", kBytesPerChip, {total, nc});
          const double t =
              tr.step("Every chip streams its share in parallel: $T_{step}$ is at least",
                      kDecodeFloor, {np, b, nc, bw});
          const double fits = fits_in(per, cap) ? 1 : 0;
          tr.note(std::string(fits ? "It fits" : "It does not fit") + ": $" + tex(per) +
                  "$ B per chip against $C_{HBM} = " + tex(cap) + "$ B.");
          return Answers{{"total_bytes", total},
                         {"bytes_per_chip", per},
                         {"t_load", t},
                         {"fits_in_hbm", fits}};
        },
};

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
            const double chips = chips_step(tr, "Chips", d);
            const double per_host = chips_step(tr, "Chips per host", h);
            const double hosts = tr.step("Hosts", kHosts, {chips, per_host});
            const double cpc = in.num("cores_per_chip"),
                         peak = in.num("peak_bf16_flops_per_s_per_chip"),
                         hbm = in.num("hbm_capacity_per_chip_B");
            const double cores = tr.step("TensorCores", kCores, {chips, cpc});
            const double f = tr.step("Total bf16 FLOPs/s", kSliceFlops, {chips, peak});
            const double m = tr.step("Total HBM", kSliceHbm, {chips, hbm});
            Answers a{{"chips", chips},
                      {"hosts", hosts},
                      {"tensorcores", cores},
                      {"pod_flops_per_s", f},
                      {"pod_hbm", m}};
            // The prose's round per-chip figure (2e14 for v5e's 1.97e14).
            const double round = units::round_sig(peak, 1);
            if (round != peak)
              a.book(
                  "pod_flops_per_s", slice_total(chips, round),
                  "multiplies by the rounded " + units::format(round, "flop_per_s") + " per chip");
            return a;
          },
  };
}
// Every given is a figure of the chip (its largest pod, its host, its cores, peak and HBM): a
// variant is the same inventory of another real chip.
constexpr Param kQ2aGiven[] = {
    chip("v5e"),
    chip_spec(text("pod_shape", "16x16", "slice shape"), "max_pod"),
    chip_spec(text("host_shape", "4x2", "chips per host as a shape"), "host_shape"),
    chip_spec(big_count("cores_per_chip", 1, "TensorCores per chip"), "cores_per_chip"),
    chip_spec(rate("peak_bf16_flops_per_s_per_chip", "flop_per_s", 1.97e14, "bf16 peak per chip"),
              "peak_flops_bf16"),
    chip_spec(memory("hbm_capacity_per_chip_B", 1.6e10, "HBM per chip"), "hbm_bytes")};
// The slots of both parts, which differ only in the tolerance of the HBM total.
constexpr Slot kQ2Chips = number("chips", "chips", "chips");
constexpr Slot kQ2Hosts = number("hosts", "count", "hosts");
constexpr Slot kQ2Cores = number("tensorcores", "count", "TensorCores");
constexpr Slot kQ2Flops = number("pod_flops_per_s", "flop_per_s", "total bf16 FLOPs/s");
constexpr Slot kQ2aSlots[] = {kQ2Chips, kQ2Hosts, kQ2Cores, kQ2Flops,
                              number("pod_hbm", "B", "total HBM")};
constexpr Param kQ2bGiven[] = {
    chip("v5p"),
    chip_spec(text("pod_shape", "16x20x28", "slice shape"), "max_pod"),
    chip_spec(text("host_shape", "2x2x1", "chips per host as a shape"), "host_shape"),
    chip_spec(big_count("cores_per_chip", 2, "TensorCores per chip"), "cores_per_chip"),
    chip_spec(rate("peak_bf16_flops_per_s_per_chip", "flop_per_s", 4.59e14, "bf16 peak per chip"),
              "peak_flops_bf16"),
    chip_spec(memory("hbm_capacity_per_chip_B", 9.6e10, "HBM per chip"), "hbm_bytes")};
constexpr Slot kQ2bSlots[] = {kQ2Chips, kQ2Hosts, kQ2Cores, kQ2Flops,
                              number("pod_hbm", "B", "total HBM", 0.02)};

// Question 3: a matmul fed over PCIe.
constexpr double kQ3FOverD[] = {2, 4, 8};
constexpr Param kQ3Given[] = {
    chip("v6e"),
    chip_spec(rate("peak_bf16_flops_per_s", "flop_per_s", 9.2e14, "bf16 peak"), "peak_flops_bf16"),
    chip_spec(rate("pcie_bw_Bps", "B_per_s", 1.6e10, "PCIe bandwidth per chip"), "pcie_bw"),
    text("a", "bf16[D, F]", "weights"),
    text("x", "bf16[B, D]", "activations"),
    text("out", "bf16[B, F]", "output"),
    ranged("f_over_d", "ratio", 4, "F / D", 1e-3, 1e3, kQ3FOverD),
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
          const double I = tr.step("PCIe ridge", roofline::kCriticalIntensity, {peak, bw});
          const double b = tr.step(
              "Weights dominate ($B \\ll D$): compute-bound once $2BDF/\\mathrm{peak} > b_w DF/BW$",
              roofline::kCriticalBatchApprox, {bw_w, I});
          const double d = tr.step(
              "With all traffic and $F = kD$, some $B$ is compute-bound only if "
              "$D > D_{min}$",
              kDMin, {I, bx, bo, k});
          // Transformer widths are 8k to 16k: whether they reach D_min decides the verdict.
          tr.note(d > 16384 ? "Real widths (D of 8k to 16k) are below $D_{min}$: such a matmul is "
                              "never compute-bound over PCIe, and a $B$ near the critical value "
                              "contradicts $B \\ll D$ anyway."
                            : "Only a D above $D_{min}$ can be compute-bound over PCIe, and a $B$ "
                              "near the critical value contradicts $B \\ll D$ anyway.");
          return Answers{{"b_crit", b}, {"d_min_for_compute_bound", d}};
        },
    .hint = "Keep only the weight bytes DF: the condition becomes B > peak / BW for bf16.",
};

// Question 4: the same int8 matmul with its operands in HBM (a) or in VMEM (b).
constexpr double kQ4DContract[] = {2048, 4096, 8192};
constexpr double kQ4FOut[] = {8192, 16384, 32768};
constexpr double kQ4BytesPerElem[] = {1, 2};
// The chip figures vary together: a variant draws one real chip.
constexpr Param kQ4Peak =
    chip_spec(rate("peak_int8_ops_per_s", "flop_per_s", 3.94e14, "int8 peak"), "peak_flops_int8");
constexpr Param kQ4Hbm =
    chip_spec(rate("hbm_bw_Bps", "B_per_s", 8.2e11, "HBM bandwidth"), "hbm_bw");
constexpr Param kQ4aGiven[] = {
    chip("v5e"),
    text("w", "int8[16384, 4096]", "weights"),
    text("x", "int8[B, 4096]", "activations"),
    text("out", "int8[B, 16384]", "output"),
    big_count("d_contract", 4096, "contracted dimension D", kQ4DContract),
    big_count("f_out", 16384, "output dimension F", kQ4FOut),
    per_param("bytes_per_elem", 1, "bytes per element", kQ4BytesPerElem),
    kQ4Peak,
    kQ4Hbm};
constexpr Param kQ4bGiven[] = {
    chip("v5e"),
    text("w", "int8[16384, 4096]", "weights"),
    text("x", "int8[B, 4096]", "activations"),
    text("out", "int8[B, 16384]", "output"),
    big_count("d_contract", 4096, "contracted dimension D", kQ4DContract),
    big_count("f_out", 16384, "output dimension F", kQ4FOut),
    per_param("bytes_per_elem", 1, "bytes per element", kQ4BytesPerElem),
    kQ4Peak,
    kQ4Hbm,
    chip_spec(ranged("vmem_to_hbm_bw_ratio", "ratio", 22, "VMEM over HBM bandwidth", 1e-3, 1e3),
              "vmem_bw/hbm_bw")};
constexpr Slot kQ4aSlots[] = {
    number("flops_per_token", "flop", "FLOPs per token"),
    number("weight_bytes", "B", "weight bytes"),
    number("io_bytes_per_token", "B", "activation + output bytes per token"),
    number("b_crit", "tokens", "critical batch"),
    derived(number("t_at_b1", "s", "time at B = 1"), From::Bytes),
    derived(number("t_at_b1024", "s", "time at B = 1024"), From::Flops)};
constexpr Slot kQ4bSlots[] = {number("vmem_bw_Bps", "B_per_s", "VMEM bandwidth"),
                              number("b_crit_vmem", "tokens", "critical batch from VMEM"),
                              derived(number("t_at_b1_vmem", "s", "time at B = 1"), From::Bytes)};
// Q4's per-token costs, the ridge at bandwidth `bw`, and the critical batch where the compute
// and memory branches of T(B) cross.
struct Q4Costs {
  double fpt = 0, wb = 0, io = 0, I = 0, b_crit = 0;
};
Q4Costs q4_costs(double D, double F, double b, double peak, double bw, Trace& tr) {
  Q4Costs c;
  c.fpt = tr.step("FLOPs per token", roofline::kFlopsPerToken, {D, F});
  c.wb = tr.step("Weight bytes", roofline::kWeightBytes, {D, F, b});
  c.io = tr.step("Activation and output bytes per token", roofline::kIoBytesPerToken, {D, F, b, b});
  c.I = tr.step("Ridge", roofline::kCriticalIntensity, {peak, bw});
  tr.note(
      "$T(B)$ is the larger of the compute branch $B f / \\mathrm{peak}$ and the memory "
      "branch $(w + B\\,io) / BW$; they cross where $B f / I_{hw} = w + B\\,io$.");
  if (!roofline::critical_batch_from_costs(c.fpt, c.wb, c.io, c.I))
    fail("d_contract",
         "at this D and F no batch is compute-bound: the activation and "
         "output bytes alone outpace the arithmetic",
         "out_of_range");
  c.b_crit = tr.step("Critical batch", roofline::kCriticalBatchFromCosts, {c.fpt, c.wb, c.io, c.I});
  return c;
}

// Q4 with the operands in HBM (a) or in VMEM (b): only the bandwidth differs.
Answers q4_solve(const Inputs& in, Trace& tr, bool vmem) {
  const double D = in.num("d_contract"), F = in.num("f_out"), b = in.num("bytes_per_elem"),
               peak = in.num("peak_int8_ops_per_s");
  double bw = in.num("hbm_bw_Bps");
  Answers a;
  if (vmem)
    bw = a["vmem_bw_Bps"] =
        tr.step("VMEM bandwidth", kVmemBw, {bw, in.num("vmem_to_hbm_bw_ratio")});
  const Q4Costs c = q4_costs(D, F, b, peak, bw, tr);
  const double t1 =
      tr.step("T at B = 1 (memory-bound)", roofline::kMatmulTLower, {1, D, F, b, b, b, peak, bw});
  // The book rounds the three per-token figures to 2 digits before solving.
  const double rf = units::round_sig(c.fpt, 2), rw = units::round_sig(c.wb, 2),
               ri = units::round_sig(c.io, 2);
  if (const auto rounded = roofline::critical_batch_from_costs(rf, rw, ri, c.I))
    a.book(vmem ? "b_crit_vmem" : "b_crit", *rounded,
           "rounds its coefficients to 2 digits first (" + units::number(rf) + ", " +
               units::number(rw) + ", " + units::number(ri) + ")");
  if (vmem) {
    a["b_crit_vmem"] = c.b_crit;
    a["t_at_b1_vmem"] = t1;
    return a;
  }
  const double big = 1024;  // the batch the question asks about
  a["t_at_b1024"] =
      tr.step(big > c.b_crit ? "T at B = 1024 (compute-bound)" : "T at B = 1024 (memory-bound)",
              roofline::kMatmulTLower, {big, D, F, b, b, b, peak, bw});
  a["flops_per_token"] = c.fpt;
  a["weight_bytes"] = c.wb;
  a["io_bytes_per_token"] = c.io;
  a["b_crit"] = c.b_crit;
  a["t_at_b1"] = t1;
  return a;
}

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
      .solve = [](const Inputs& in, Trace& tr) { return q4_solve(in, tr, kVmem); },
      .hint = kVmem ? "Only the bandwidth changes: VMEM is k times HBM."
                    : "Write T(B) as the larger of its compute and memory branches and find "
                      "where they cross.",
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
    ranged("hop_latency_s", "s", 1e-6, "latency per hop", 1e-12, 1, kQ5HopLatencies);
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
    per_param("bytes_per_elem", 2, "bytes per element", kQ5BytesPerElem),
    rate("link_bw_one_way_Bps", "B_per_s", 4.5e10, "one-way bandwidth per link", kQ5LinkBw),
    big_count("ports_used", 2, "outgoing links carrying a share", kQ5Ports),
    kQ5HopLatency};
constexpr Slot kQ5aSlots[] = {measures(number("hops", "count", "hops"), Quantity::Hops),
                              number("t_first_byte", "s", "first-byte arrival")};
constexpr Slot kQ5bSlots[] = {
    number("array_bytes", "B", "array bytes"),
    derived(number("send_bw_Bps", "B_per_s", "send bandwidth"), From::Link),
    derived(number("t_bulk", "s", "bandwidth term"), From::Link),
    derived(number("t_transfer", "s", "time until the last byte arrives"), From::Link)};
// Q5's path: the slice, the two chips, the hops between them axis by axis and the first byte's
// arrival; and the hops had the slice wrapped (the slip of a reader who assumes it does).
struct Q5Path {
  const hw::Chip* chip = nullptr;
  Torus t;
  Dims a, b;
  double hops = 0, first = 0, ring_hops = 0, t_hop = 0;
  bool wraps = false;
};
Q5Path q5_path(const Inputs& in, Trace& tr) {
  Q5Path p;
  p.chip = &hw::chip(in.text("chip"));
  p.t = slice_torus(*p.chip, parse_shape(in.text("slice"), "slice"), in.text("wraparound"), "slice",
                    "wraparound");
  p.a = parse_coord(in.text("src"), p.t, "src");
  p.b = parse_coord(in.text("dst"), p.t, "dst");
  for (bool w : p.t.wrap) p.wraps = p.wraps || w;
  p.hops = hops_steps(tr, p.t, p.a, p.b, p.wraps ? "Hops, with wraparound" : "Hops, no wraparound");
  p.t_hop = in.num("hop_latency_s");
  p.first = tr.step("First byte", kFirstByte, {p.hops, p.t_hop});
  Torus ring = p.t;
  ring.wrap.assign(p.t.wrap.size(), true);
  p.ring_hops = hops(ring, p.a, p.b);
  return p;
}

// Q5.a: the hops and the first byte.
Answers q5_hops(const Inputs& in, Trace& tr) {
  const Q5Path p = q5_path(in, tr);
  Answers out{{"hops", p.hops}, {"t_first_byte", p.first}};
  if (!p.wraps && p.ring_hops != p.hops) {
    const std::string slip =
        "That counts wraparound links the slice does not have (" + wrap_rule(*p.chip).text + ").";
    out.slip("hops", p.ring_hops, slip);
    out.slip("t_first_byte", ici_first_byte(static_cast<int>(p.ring_hops), p.t_hop), slip);
  }
  return out;
}

// The slips of Q5.b: the bandwidth term alone, and one link where the sender uses several.
void q5_transfer_slips(Answers& out, double bytes, int ports, double bw, const Q5Path& p) {
  const int h = static_cast<int>(p.hops);
  out.slip("t_transfer", out["t_bulk"],
           "That is the bandwidth term alone: the last byte still has to cross the " +
               std::to_string(h) + " hops, at " + units::format(p.t_hop, "s") +
               " each, after it leaves.");
  if (ports < 2) return;
  const std::string one = "That sends over one link; the sender splits the array over its " +
                          std::to_string(ports) + " links toward the receiver.";
  out.slip("send_bw_Bps", bw, one);
  out.slip("t_bulk", ici_bulk(bytes, 1, bw), one);
  out.slip("t_transfer", ici_p2p_time(bytes, 1, bw, h, p.t_hop), one);
}

// Q5.b: the array's bytes, the send bandwidth, the bulk term and the last byte's arrival.
Answers q5_transfer(const Inputs& in, Trace& tr) {
  const Q5Path p = q5_path(in, tr);
  const ArraySpec arr = parse_array(in.text("array"), "array");
  const double bw = in.num("link_bw_one_way_Bps");
  const int ports = static_cast<int>(in.num("ports_used"));
  const double bytes =
      tr.step("Array bytes", kArrayBytes, {arr.elements, in.num("bytes_per_elem")});
  tr.note("Links from the sender toward the receiver in this slice: " +
          std::to_string(ports_toward(p.t, p.a, p.b)) + ".");
  Answers out;
  out["array_bytes"] = bytes;
  out["send_bw_Bps"] = tr.step("Send bandwidth", kSendBw, {double(ports), bw});
  out["t_bulk"] = tr.step("Bulk term", kBulk, {bytes, double(ports), bw});
  out["t_transfer"] = tr.step("Last byte arrives: the bulk, then the path", kPointToPoint,
                              {bytes, double(ports), bw, p.hops, p.t_hop});
  // The book divides the bytes rounded to 2 digits (1.7e7 for 2^24).
  const double rb = units::round_sig(bytes, 2);
  const int h = static_cast<int>(p.hops);
  const std::string rounds = "rounds the array to " + units::format(rb, "B") + " first";
  out.book("t_bulk", ici_bulk(rb, ports, bw), rounds);
  out.book("t_transfer", ici_p2p_time(rb, ports, bw, h, p.t_hop), rounds);
  q5_transfer_slips(out, bytes, ports, bw, p);
  return out;
}

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
      .solve = kBulk ? q5_transfer : q5_hops,
  };
}

constexpr Problem kQuestions[] = {
    kQ1,
    q2("tpus.Q2.a", "Inventory of a full pod", kQ2aGiven, kQ2aSlots),
    q2("tpus.Q2.b", "Inventory of a full v5p pod", kQ2bGiven, kQ2bSlots),
    kQ3,
    q4<false>(),
    q4<true>(),
    q5<false>(),
    q5<true>()};

}  // namespace

void add_problems_questions(Registry& r) { r.add(kQuestions); }

}  // namespace sb::tpus
