// Roofline and collective times of an HLO instruction (cost.hpp).
#include "chapters/profiling/cost.hpp"

#include <algorithm>

#include "chapters/roofline/model.hpp"
#include "chapters/sharding/collectives.hpp"

namespace sb::profiling {

ChipTerms chip_terms(const hw::Chip& chip, double hbm_bw) {
  ChipTerms t;
  t.name = chip.name;
  if (chip.has("peak_flops_bf16"))
    t.peak = chip.get("peak_flops_bf16");
  else
    t.missing.push_back("its bf16 peak FLOPs/s");
  if (hbm_bw > 0)
    t.hbm_bw = hbm_bw;
  else if (chip.has("hbm_bw"))
    t.hbm_bw = chip.get("hbm_bw");
  else
    t.missing.push_back("its HBM bandwidth (enter it)");
  if (chip.has("ici_bw_oneway"))
    t.w_uni = chip.get("ici_bw_oneway");
  else
    t.missing.push_back(chip.kind == "gpu"
                            ? "an ICI link: collective times here use the TPU ring model, so a "
                              "GPU gets none"
                            : "its ICI bandwidth");
  if (chip.has("ici_hop_latency")) t.t_hop = chip.get("ici_hop_latency");
  if (chip.has("cores_per_chip") && chip.has("megacore") && chip.get("megacore") == 0)
    t.devices_per_chip = chip.get("cores_per_chip");
  t.peak /= t.devices_per_chip;
  if (t.hbm_bw) *t.hbm_bw /= t.devices_per_chip;
  return t;
}

namespace {

std::optional<double> collective_time(const hlo::Instruction& in, const ChipTerms& c) {
  if (!c.w_uni || !in.payload_bytes || !in.group_size) return std::nullopt;
  const double V = *in.payload_bytes, n = *in.group_size;
  if (n <= 1) return 0.0;
  using sharding::Op;
  if (in.collective == hlo::Collective::Permute)
    return roofline::t_comms(V, *c.w_uni);  // one hop to a neighbour
  Op op = in.collective == hlo::Collective::AllGather       ? Op::AllGather
          : in.collective == hlo::Collective::ReduceScatter ? Op::ReduceScatter
          : in.collective == hlo::Collective::AllReduce     ? Op::AllReduce
                                                            : Op::AllToAll;
  // AllToAll's V is the whole array over the group: each device's operand x n.
  const double v = op == Op::AllToAll ? V * n : V;
  sharding::Link link;
  link.w_uni = *c.w_uni;
  link.t_hop = c.t_hop;
  return sharding::collective_cost(op, v, {sharding::Axis{"group", n, true, 1}}, link).t;
}

}  // namespace

OpTime op_time(const hlo::Instruction& in, const ChipTerms& c) {
  OpTime t;
  if (!in.counted) {
    t.bound = "free";
    return t;
  }
  if (in.collective != hlo::Collective::None) {
    t.t_comms = collective_time(in, c);
    t.time = t.t_comms;
    t.bound = t.time ? "collective" : "unknown";
    return t;
  }
  if (in.flops && c.peak > 0) t.t_math = roofline::t_math(*in.flops, c.peak);
  if (c.hbm_bw) t.t_hbm = roofline::t_comms(in.traffic_bytes, *c.hbm_bw);
  if (!t.t_math || !t.t_hbm) {
    t.bound = in.traffic_bytes == 0 && in.flops && *in.flops == 0 ? "free" : "unknown";
    if (t.bound == "free") t.time = 0.0;
    return t;
  }
  t.time = roofline::t_lower(*t.t_math, *t.t_hbm);
  t.bound = *t.time == 0 ? "free" : *t.t_math > *t.t_hbm ? "compute" : "memory";
  return t;
}

}  // namespace sb::profiling
