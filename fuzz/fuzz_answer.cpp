// A reader's answer text, graded against every slot kind of some problem: numbers with units,
// yes/no, formulas. Parse errors are values; nothing may crash. Bytes 0-1 pick the problem (low
// byte first), byte 2 the slot; the rest is the answer.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/check.hpp"
#include "core/error.hpp"
#include "core/registry.hpp"
#include "fuzz/seeds.hpp"

// The seeds (fuzz/seeds.hpp): each slot of each problem with the model's answer.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  sb::fuzz::seeds_then_exit([](const std::string& dir) {
    const auto& problems = sb::Registry::get().problems();
    for (size_t i = 0; i < problems.size(); ++i) {
      const sb::json answers = sb::fuzz::model_answers(problems[i]);
      for (size_t j = 0; j < problems[i].slots.size(); ++j) {
        const std::string slot(problems[i].slots[j].name);
        const std::string text = answers.contains(slot) ? answers[slot].get<std::string>() : "1";
        sb::fuzz::write_seed(dir, std::string(problems[i].id) + "-" + slot,
                             sb::fuzz::index_bytes(i) + static_cast<char>(j) + text);
      }
    }
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto& problems = sb::Registry::get().problems();
  if (problems.empty() || size < 3) return 0;
  const auto& p = problems[(data[0] | data[1] << 8) % problems.size()];
  if (p.slots.empty()) return 0;
  const auto& slot = p.slots[data[2] % p.slots.size()];
  std::string text(reinterpret_cast<const char*>(data + 3), size - 3);
  try {
    sb::json answers = {{slot.name, text}};
    sb::check::grade(p, answers, sb::json::object());
  } catch (const sb::InputError&) {
  } catch (const sb::json::exception&) {
    // invalid UTF-8 in text cannot be dumped; grade() itself never dumps, so this is not reached
  }
  return 0;
}
