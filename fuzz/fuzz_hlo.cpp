// libFuzzer: any bytes read as HLO text. The reader never throws on a module's text; every number
// it reports is finite and non-negative, every skipped line names a line of the text, and the
// report is valid UTF-8 JSON. The first byte picks the device count for empty replica groups,
// and for one input in 64 the calculator's whole run (cost on a chip, the JSON written as text) is
// exercised on the same text: its response must read back as JSON, with the instructions the
// parse read.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "chapters/profiling/cost.hpp"
#include "chapters/profiling/hlo.hpp"
#include "core/api.hpp"
#include "core/hardware.hpp"
#include "core/json.hpp"

namespace {

bool bad(double v) { return !std::isfinite(v) || v < 0; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const uint8_t opt = size ? data[0] : 0;
  const std::optional<int> devices = (opt & 1) ? std::optional<int>(1 + (opt >> 1)) : std::nullopt;
  size_t lines = 1;
  for (char c : text) lines += c == '\n';
  namespace hlo = sb::profiling::hlo;
  const hlo::Module m = hlo::parse(text, devices);
  static const sb::profiling::ChipTerms chip = sb::profiling::chip_terms(sb::hw::chip("v5e"));
  for (const auto& s : m.skipped)
    if (s.line < 1 || static_cast<size_t>(s.line) > lines || s.reason.empty()) std::abort();
  for (const auto& in : m.instructions) {
    if (in.line < 1 || static_cast<size_t>(in.line) > lines) std::abort();
    if (bad(hlo::logical_bytes(in.shape)) || bad(hlo::padded_bytes(in.shape))) std::abort();
    if (hlo::padded_bytes(in.shape) < hlo::logical_bytes(in.shape)) std::abort();
    if ((in.flops && bad(*in.flops)) || bad(in.traffic_bytes)) std::abort();
    if (in.payload_bytes && bad(*in.payload_bytes)) std::abort();
    if (in.group_size && *in.group_size < 1) std::abort();
    const auto t = sb::profiling::op_time(in, chip);
    if (t.time && bad(*t.time)) std::abort();
  }
  // The whole call, on the chip that takes each core as a device (v3), for one input in 64 (the
  // first byte's bits 1-6 zero): through the entry point and back out of JSON it costs dozens of
  // parses. A text with no instruction is an error naming the module.
  if ((opt & 0x7e) != 0) return 0;
  const sb::json req = {{"op", "calc"},
                        {"name", "profiling.hlo"},
                        {"inputs", {{"module", std::string(text)}, {"chip", "v3"}}}};
  // Text that is not UTF-8 goes with its bad bytes replaced, and may read differently.
  std::string body;
  bool same_text = true;
  try {
    body = req.dump();
  } catch (const sb::json::exception&) {
    same_text = false;
    body = req.dump(-1, ' ', false, sb::json::error_handler_t::replace);
  }
  const sb::json r = sb::parse_json(sb::api::handle(body), sb::kNoLimits);
  if (!same_text) return 0;
  if (m.instructions.empty()) {
    if (r["ok"].get<bool>() || r["error"]["field"] != "module") std::abort();
  } else if (!r["ok"].get<bool>() || r["instructions"].size() != m.instructions.size()) {
    std::abort();
  }
  return 0;
}
