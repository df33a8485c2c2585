// libFuzzer: any bytes as a sharding (A[I_X, J]{U_Y}) and as a mesh ({'X': 4}, Mesh(devices=...)).
// InputError is the expected outcome of bad input; anything else escaping, or a crash, is a bug.
// Whatever parses must also print back to text that parses to the same thing.
#include <cstddef>
#include <cstdint>
#include <string>

#include "chapters/sharding/model.hpp"
#include "chapters/sharding/notation.hpp"
#include "core/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  namespace sh = sb::sharding;
  sh::Sharding s;
  bool have_s = false;
  try {
    s = sh::parse_sharding(text, "a");
    have_s = true;
    if (sh::parse_sharding(s.text(), "a").text() != s.text()) __builtin_trap();
  } catch (const sb::InputError&) {
  }
  try {
    sh::Mesh m = sh::parse_mesh(text, "mesh");
    if (sh::parse_mesh(m.text(), "mesh").text() != m.text()) __builtin_trap();
    if (m.devices() < 1) __builtin_trap();
  } catch (const sb::InputError&) {
  }
  // A parsed sharding against a fixed mesh: validation and local shape must fail cleanly.
  if (have_s) {
    try {
      sh::Mesh m = sh::parse_mesh("{X: 4, Y: 2, Z: 2}", "mesh");
      std::vector<double> sizes(s.dims.size(), 16);
      sh::local_shape(s, m, sizes, 2, "a");
    } catch (const sb::InputError&) {
    }
  }
  return 0;
}
