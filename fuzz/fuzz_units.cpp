// libFuzzer: any bytes typed as a number with a unit, parsed as every unit id. InputError is
// the expected outcome of bad input; anything else escaping, or a non-finite result, is a bug.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "core/units.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  static const char* const kUnits[] = {
      "s",     "B",     "flop",  "flop_per_s", "B_per_s", "flop_per_B",   "tokens", "tokens_per_s",
      "per_s", "count", "ratio", "chips",      "usd",     "usd_per_hour", "bool"};
  for (const char* unit : kUnits) {
    if (!sb::units::known(unit)) std::abort();  // the header's list and the code disagree
    try {
      double v = sb::units::parse(text, unit, "given.x");
      if (!std::isfinite(v)) std::abort();  // units.hpp promises an error for non-finite values
      (void)sb::units::format(v, unit);
    } catch (const sb::InputError& e) {
      if (e.field != "given.x") std::abort();
    }
  }
  return 0;
}
