// The chip tables: every TPU and GPU the book lists, loaded from data/chips.json (embedded at
// build time), each figure with its unit and source. Quantities are in base units.
#pragma once
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"

namespace sb::hw {

// std::less<>'s order (byte by byte, then the shorter first) in one inline compare: through
// libc++'s string_view operator<, compare and char_traits, each out of line in the size-built
// library, a spec's look-up was a fifth of some calls' time in wasm (bench/NOTES.md, "Fourteenth
// pass").
struct KeyLess {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const noexcept {
    const size_t n = a.size() < b.size() ? a.size() : b.size();
    const int c = n ? std::memcmp(a.data(), b.data(), n) : 0;
    return c < 0 || (c == 0 && a.size() < b.size());
  }
};

struct Spec {
  double value = 0;  // numeric specs
  std::string
      text;  // text specs ("16x16", "2x2x1"); for a number, as the book writes it ("128 MiB")
  std::string unit;    // units id, or "" for text
  std::string source;  // a key of chips.json "sources": "tpus.md spec table", "derived", ...
  std::string note;
  bool known = true;  // false: the table states the figure is not known ("value": null)
};

struct Chip {
  std::string id;    // "v5e", "h100"
  std::string name;  // "TPU v5e", "NVIDIA H100 SXM"
  std::string kind;  // "tpu" or "gpu"
  std::vector<std::string> aliases;
  std::map<std::string, Spec, KeyLess> specs;

  // The table's entry for `key`, or null (core/hardware_find.cpp: the one look-up, at -O2).
  const Spec* find(std::string_view key) const;
  bool has(std::string_view key) const;      // a figure the table gives (not one stated unknown)
  bool unknown(std::string_view key) const;  // a figure the table states is not known
  // Numeric spec; throws InputError(field) naming the chip and key when the book gives none, and
  // saying it is not known, with what to do, when the table states so.
  double get(std::string_view key, std::string_view field = "chip") const;
  std::string get_text(std::string_view key, std::string_view field = "chip") const;
  // Peak FLOPs/s for a compute dtype ("bf16" -> peak_flops_bf16).
  double peak(std::string_view dtype, std::string_view field = "dtype_compute") const;
};

const std::vector<Chip>& chips();
// By id or alias, case-insensitive ("v5e", "TPU v5e", "tpu-v5e"); InputError(field) if unknown.
const Chip& chip(std::string_view id, std::string_view field = "chip");
std::vector<std::string> chip_ids();
json chips_json();  // {"chips": [...], "dtypes": {...}, "sources": {...}, "labels": {...}}

// Bytes per element: fp32 4, bf16 2, fp8 1, int8 1, int4 0.5. InputError(field) if unknown.
double dtype_bytes(std::string_view dtype, std::string_view field);
const std::vector<std::string>& dtypes();

}  // namespace sb::hw
