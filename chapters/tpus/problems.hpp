// What the TPU chapter's problems_*.cpp files share: the section adders and input helpers.
#pragma once
#include <string>

#include "chapters/tpus/model.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"

namespace sb::tpus {

void add_problems_examples(Registry& r);      // problems_examples.cpp
void add_problems_questions(Registry& r);     // problems_questions.cpp
void add_problems_host_offload(Registry& r);  // problems_host_offload.cpp

// TPU counts run up to chip and parameter counts, so their bound is 1e9 rather than core's 1e7
// (and a solver may cast one to an int).
constexpr Param big_count(Text name, double def, Text doc, Variants variants = {}) {
  return count(name, def, doc, variants, 0, 1e9);
}
constexpr Param chip(Text def) { return chip_param(def, "the chip the problem is about"); }

// "v5e 4x4" -> chip and torus (Q6 writes the slice that way).
inline Torus chip_slice(const std::string& text, const std::string& field,
                        const hw::Chip** chip_out = nullptr) {
  size_t sp = text.find_last_of(' ');
  if (sp == std::string::npos)
    fail(field, "write the slice as chip and shape, like 'v5e 4x4'", "bad_shape");
  const hw::Chip& c = hw::chip(text.substr(0, sp), field);
  if (chip_out) *chip_out = &c;
  return slice_torus(c, parse_shape(text.substr(sp + 1), field), "auto", field);
}

// The dtype of "bf16[D, F]" (dims may be symbols here).
inline double dtype_size(const std::string& text, const std::string& field) {
  size_t open = text.find('[');
  std::string dt = text.substr(0, open);
  while (!dt.empty() && dt.back() == ' ') dt.pop_back();
  return hw::dtype_bytes(dt, field);
}

}  // namespace sb::tpus
