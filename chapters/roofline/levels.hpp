// The memory levels and links a chip's rooflines are drawn against, looked up in the chip tables
// (data/chips.json): VMEM, HBM, the chip-to-chip link, PCIe and the network between hosts. A GPU
// has no ICI and no DCN; NVLink and its scale-out network stand in for them, and the level says
// so in words. Bandwidths are per chip, one way, in B/s.
#pragma once
#include <string>
#include <string_view>

#include "core/hardware.hpp"

namespace sb::roofline {

enum class Level { Vmem, Hbm, Ici, Pcie, Dcn };

struct LevelBw {
  std::string name;  // "HBM", "ICI", "NVLink", "DCN", "scale-out network"
  double bw = 0;     // B/s, one way; 0 when the tables give the chip none
  std::string note;  // in words: what stands in for the level, or why it has none ("" if neither)
};

// The level `l` of chip `c`: the figure of the tables, or a GPU's stand-in, or bw = 0 with a note.
LevelBw level_bw(const hw::Chip& c, Level l);
// "vmem", "hbm", "ici" (or "nvlink"), "pcie", "dcn": InputError(field) for anything else.
Level parse_level(std::string_view text, std::string_view field);

}  // namespace sb::roofline
