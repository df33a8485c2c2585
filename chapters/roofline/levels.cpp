// Chip levels from the tables, with a GPU's stand-ins for ICI and DCN (levels.hpp).
#include "chapters/roofline/levels.hpp"

#include <initializer_list>

#include "core/error.hpp"

namespace sb::roofline {
namespace {

// The parts joined: one out-of-line function instead of a chain of std::string additions at each
// message, which costs module size.
[[gnu::noinline]] std::string words(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (std::string_view p : parts) s += p;
  return s;
}

struct Row {
  const char *key, *name, *what;
};
constexpr Row kTpu[] = {{"vmem_bw", "VMEM", "VMEM bandwidth"},
                        {"hbm_bw", "HBM", "HBM bandwidth"},
                        {"ici_bw_oneway", "ICI", "ICI bandwidth"},
                        {"pcie_bw", "PCIe", "PCIe bandwidth"},
                        {"dcn_bw", "DCN", "DCN bandwidth"}};
constexpr Row kGpuIci = {"nvlink_bw_per_gpu", "NVLink", "NVLink figure"};
constexpr Row kGpuDcn = {"scaleout_bw_per_gpu", "scale-out network", "scale-out figure per GPU"};

}  // namespace

LevelBw level_bw(const hw::Chip& c, Level l) {
  Row row = kTpu[static_cast<int>(l)];
  const char* instead = nullptr;
  if (c.kind == "gpu" && l == Level::Ici) {
    row = kGpuIci;
    instead = " has no ICI: NVLink instead (per GPU, one way).";
  } else if (c.kind == "gpu" && l == Level::Dcn) {
    row = kGpuDcn;
    instead = " has no DCN: its scale-out network instead (per GPU).";
  }
  LevelBw v{row.name, 0, ""};
  if (c.unknown(row.key)) {  // stated unknown (TPU v2's HBM): the table's note says why
    v.note = words({c.name, "'s ", row.what, " is not known (", c.specs.find(row.key)->second.note,
                    "): pick another chip."});
    return v;
  }
  if (!c.has(row.key)) {
    v.note = words({"The book gives no ", row.what, " for the ", c.name, "."});
    return v;
  }
  v.bw = c.get(row.key);
  if (instead) v.note = words({"The ", c.name, instead});
  return v;
}

Level parse_level(std::string_view t, std::string_view field) {
  if (t == "nvlink") return Level::Ici;
  const char* names[] = {"vmem", "hbm", "ici", "pcie", "dcn"};
  for (int i = 0; i < 5; ++i)
    if (t == names[i]) return static_cast<Level>(i);
  fail(field, words({"'", t.substr(0, 40), "' is not one of vmem, hbm, ici, pcie, dcn"}),
       "bad_choice");
}

}  // namespace sb::roofline
