// Chip::find on its own: hardware.cpp compiles at -Oz (its tables load once), where the map's
// look-up and the key's conversion to a view stayed calls; a calculator reads a chip's figures
// dozens of times a call (bench/NOTES.md, "Fourteenth pass").
#include "core/hardware.hpp"

namespace sb::hw {

const Spec* Chip::find(std::string_view key) const {
  const auto it = specs.find(key);
  return it == specs.end() ? nullptr : &it->second;
}

}  // namespace sb::hw
