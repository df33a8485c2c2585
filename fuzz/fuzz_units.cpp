// libFuzzer: any bytes typed as a number with a unit, parsed as every unit id, as a quantity with
// its binary reading and as a bound; and the first 8 bytes as a double, formatted. InputError is
// the expected outcome of bad input; anything else escaping, or a non-finite result, is a bug.
// One run parses its input 51 ways (17 units; quantity, plain and bound), most of them ending in a
// thrown InputError: its runs per second are a 51st of its parses per second.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "core/units.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  static const char* const kUnits[] = {
      "s",     "B",     "flop",  "flop_per_s", "B_per_s", "flop_per_B",   "tokens", "tokens_per_s",
      "per_s", "count", "ratio", "chips",      "usd",     "usd_per_hour", "bool",   "hz",
      "params"};
  for (const char* unit : kUnits) {
    if (!sb::units::known(unit)) std::abort();  // the header's list and the code disagree
    try {
      const sb::units::Quantity q = sb::units::parse_quantity(text, unit, "given.x");
      if (!std::isfinite(q.value)) std::abort();  // units.hpp promises an error for non-finite
      if (q.binary && !std::isfinite(*q.binary)) std::abort();
      if (sb::units::parse(text, unit, "given.x") != q.value) std::abort();
      (void)sb::units::format(q.value, unit);
    } catch (const sb::InputError& e) {
      if (e.field != "given.x") std::abort();
    }
    try {
      const sb::units::Bound b = sb::units::parse_bound(text, unit, "answers.x");
      if (!std::isfinite(b.value)) std::abort();
    } catch (const sb::InputError& e) {
      if (e.field != "answers.x") std::abort();
    }
  }
  // Every double formats within its room, at every width.
  if (size >= 8) {
    double v;
    std::memcpy(&v, data, sizeof v);
    char buf[sb::units::kFormatRoom];
    for (int sig = 1; sig <= 17; ++sig)
      if (sb::units::write_number(buf, v, sig) >= sb::units::kNumberRoom) std::abort();
    for (const char* unit : kUnits)
      if (sb::units::write_format(buf, v, unit) >= sb::units::kFormatRoom) std::abort();
  }
  return 0;
}
