// What an HLO instruction costs on a chip: the roofline (Part 1) over the FLOPs and the HBM
// traffic at its boundary, and for a collective the sharding chapter's time over the group's ring
// (Part 3). A term the chip's tables do not give stays unknown, and `missing` says which.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "chapters/profiling/hlo.hpp"
#include "core/hardware.hpp"

namespace sb::profiling {

struct ChipTerms {
  std::string name;
  double peak = 0;                   // bf16 FLOPs/s of one device
  std::optional<double> hbm_bw;      // B/s
  std::optional<double> w_uni;       // one-way ICI bandwidth per link, B/s
  double t_hop = 1e-6;               // latency per hop, s
  std::vector<std::string> missing;  // the figures the tables lack, in words
  double devices_per_chip = 1;       // TensorCores that are devices of their own (v2, v3)
};
// The chip's terms for one device, as HLO's per-device shapes need: on a chip of 2 TensorCores
// without megacore (v2, v3) each core is a device with half the chip's peak and HBM bandwidth.
// `hbm_bw` > 0 stands in for (or replaces) the table's HBM bandwidth, per chip.
ChipTerms chip_terms(const hw::Chip& chip, double hbm_bw = 0);

struct OpTime {
  std::optional<double> t_math, t_hbm, t_comms;
  std::optional<double> time;  // max of the known terms; nullopt when one that applies is unknown
  std::string bound;           // "compute", "memory", "collective", "free", or "unknown"
};
OpTime op_time(const hlo::Instruction& in, const ChipTerms& chip);

}  // namespace sb::profiling
