// A reader's answer text, graded against every slot kind of some problem: numbers with units,
// yes/no, formulas. Parse errors are values; nothing may crash.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/check.hpp"
#include "core/error.hpp"
#include "core/registry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto& problems = sb::Registry::get().problems();
  if (problems.empty() || size < 2) return 0;
  const auto& p = problems[data[0] % problems.size()];
  if (p.slots.empty()) return 0;
  const auto& slot = p.slots[data[1] % p.slots.size()];
  std::string text(reinterpret_cast<const char*>(data + 2), size - 2);
  try {
    sb::json answers = {{slot.name, text}};
    sb::check::grade(p, answers, sb::json::object());
  } catch (const sb::InputError&) {
  } catch (const sb::json::exception&) {
    // invalid UTF-8 in text cannot be dumped; grade() itself never dumps, so this is not reached
  }
  return 0;
}
