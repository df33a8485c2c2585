// libFuzzer: any bytes read as an nccl-tests log. The reader never throws on a log's text; every
// number it reports is finite, every skipped line names a line of the text, and the fit, when
// there is one, has a latency >= 0 and a bandwidth > 0. The first byte picks the reader's
// options, so the collective and rank overrides are exercised too.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "chapters/gpus/nccl.hpp"
#include "core/json.hpp"

namespace {

bool finite_everywhere(const sb::json& j) {
  if (j.is_number()) return std::isfinite(j.get<double>());
  if (j.is_array() || j.is_object())
    for (const auto& x : j)
      if (!finite_everywhere(x)) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const uint8_t opt = size ? data[0] : 0;
  static const char* const kOps[] = {"", "all_reduce", "alltoall", "sendrecv"};
  const char* op = kOps[opt & 3];
  std::optional<int> ranks = (opt & 4) ? std::optional<int>(1 + (opt >> 4)) : std::nullopt;
  size_t lines = 1;
  for (char c : text) lines += c == '\n';
  const sb::json r = sb::gpus::nccl::report(text, "fuzz", op, ranks, {"", std::nullopt});
  if (!finite_everywhere(r)) std::abort();
  (void)r.dump();  // throws (and so fails) on text that is not valid UTF-8
  for (const auto& s : r["skipped"]) {
    const int line = s["line"].get<int>();
    if (line < 1 || static_cast<size_t>(line) > lines) std::abort();
  }
  const auto& f = r["fit"];
  if (f.is_object() && !(f["latency_s"].get<double>() >= 0 && f["bandwidth_Bps"].get<double>() > 0))
    std::abort();
  if (!f.is_null() && r["rows"].size() < 2) std::abort();
  return 0;
}
