// The collective examples of the running text: AllToAll over two nodes, SHARP's predicted and
// measured gain, and NCCL's achievable AllReduce bandwidth.
#include "chapters/gpus/problems.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::gpus {
namespace {

constexpr Param kExA2AGiven[] = {group("gpus_per_node", 8, "GPUs per node"),
                                 bw("gpu_egress_Bps", 450e9, "NVLink egress per GPU"),
                                 bw("node_egress_Bps", 400e9, "node egress"),
                                 group("nodes", 2, "nodes")};
constexpr Slot kExA2ASlots[] = {
    number("slowdown_approx_forms", "ratio", "slow-down, approximate forms"),
    number("slowdown_exact_forms", "ratio", "slow-down, exact forms")};
constexpr Problem kExA2A{
    .id = "gpus.Ex.A2A",
    .title = "AllToAll slowdown from one to two nodes",
    .statement =
        "An AllToAll of B bytes runs inside one node of {gpus_per_node} GPUs ({gpu_egress_Bps} of "
        "NVLink each), then across {nodes} nodes ({node_egress_Bps} of egress each). How many "
        "times slower is it across nodes, with the approximate forms and with the exact ones?",
    .kind = "numeric",
    .given = kExA2AGiven,
    .slots = kExA2ASlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double n = in.num("gpus_per_node"), m = in.num("nodes");
          double wg = in.num("gpu_egress_Bps"), wn = in.num("node_egress_Bps");
          double t1 = tr.step("One node, $\\mathrm{bytes} / (W_{GPU} N)$", kA2AApprox, {1, n, wg});
          double t2 =
              tr.step("Across nodes, $\\mathrm{bytes} / (W_{node} M)$", kA2AApprox, {1, m, wn});
          double q = tr.step("Slow-down", kRatio, {t2, t1});
          double e1 = tr.step("One node, exact", kA2A, {1, n, wg});
          double e2 = tr.step("Across nodes, exact", kA2ACross, {1, m, wn});
          double qe = tr.step("Slow-down, exact", kRatio, {e2, e1});
          return Answers{{"slowdown_approx_forms", q}, {"slowdown_exact_forms", qe}};
        },
};

constexpr Param kSharpGiven[] = {
    group("n_gpus", 8, "GPUs in the node"),
    ranged("measured_gain", "ratio", 0.3, "gain SHARP reached in measurements", 0, 10),
    bw("peak_bus_bw_Bps", 370e9, "measured peak bus bandwidth without SHARP")};
constexpr Slot kSharpSlots[] = {number("predicted_speedup", "ratio", "predicted speed-up"),
                                number("effective_bw", "B_per_s", "bandwidth reached with SHARP")};
constexpr Problem kSharp{
    .id = "gpus.Ex.SHARP",
    .title = "Predicted versus measured SHARP gain",
    .statement =
        "On a node of {n_gpus} GPUs, how much faster should a SHARP AllReduce be than a ring "
        "AllReduce? Measured, it is only {measured_gain} better (as a fraction) over a peak bus "
        "bandwidth of {peak_bus_bw_Bps}: what bandwidth does it reach?",
    .kind = "numeric",
    .given = kSharpGiven,
    .slots = kSharpSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double s = tr.step("Ring over SHARP", kSharpSpeedup, {in.num("n_gpus")});
          double w =
              tr.step("Measured", kWithGain, {in.num("peak_bus_bw_Bps"), in.num("measured_gain")});
          return Answers{{"predicted_speedup", s}, {"effective_bw", w}};
        },
};

constexpr Param kEmpGiven[] = {dim("d_model", 8192, "D"),
                               dim("d_ff", 28672, "F"),
                               dim("tp", 8, "tensor-parallel shards"),
                               elem_bytes(),
                               bw("nominal_bw_Bps", 450e9, "NVLink egress, nominal"),
                               bw("measured_peak_bus_bw_Bps", 370e9, "NCCL's peak bus bandwidth"),
                               group("n_gpus", 8, "GPUs in the AllReduce")};
constexpr Slot kEmpSlots[] = {number("mlp_shard_bytes", "B", "bytes of one MLP weight shard"),
                              number("derate_factor", "ratio", "measured over nominal"),
                              number("busbw_over_algobw", "ratio", "bus over algorithm bandwidth")};
constexpr Problem kEmp{
    .id = "gpus.Ex.Empirical",
    .title = "Achievable NCCL AllReduce bandwidth",
    .statement =
        "LLaMA-3 70B's MLP weight bf16[{d_model}, {d_ff}] is split {tp} ways ({bytes_per_elem} "
        "per element). How many bytes is one shard? NCCL's AllReduce peaks at "
        "{measured_peak_bus_bw_Bps} of bus bandwidth against {nominal_bw_Bps} nominal: what "
        "share is that, and what is NCCL's bus-over-algorithm factor on {n_gpus} GPUs?",
    .kind = "numeric",
    .given = kEmpGiven,
    .slots = kEmpSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double v =
              tr.step("One shard", kArrayBytes,
                      {in.num("d_model"), in.num("d_ff") / in.num("tp"), in.num("bytes_per_elem")});
          double q = tr.step("Derating", kRatio,
                             {in.num("measured_peak_bus_bw_Bps"), in.num("nominal_bw_Bps")});
          double f = tr.step("Bus factor of an AllReduce", kArBusFactor, {in.num("n_gpus")});
          return Answers{{"mlp_shard_bytes", v}, {"derate_factor", q}, {"busbw_over_algobw", f}};
        },
};

}  // namespace

void add_problems_collectives_d(Registry& r) {
  static constexpr Problem kAll[] = {kExA2A, kSharp, kEmp};
  r.add(kAll);
}

}  // namespace sb::gpus
