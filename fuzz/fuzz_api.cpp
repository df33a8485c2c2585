// The JSON entry point takes any bytes: it must answer with a JSON object, in ASCII (docs/API.md),
// and never crash.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/api.hpp"
#include "core/json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string req(reinterpret_cast<const char*>(data), size);
  std::string out = sb::api::handle(req);
  if (out.empty() || out[0] != '{') __builtin_trap();
  for (unsigned char c : out)
    if (c >= 0x80) __builtin_trap();
  if (!sb::json::accept(out)) __builtin_trap();
  return 0;
}
