// The chip tables, parsed once from the JSON that CMake embeds (data/chips.json -> kChipsJson).
#include "core/hardware.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "core/error.hpp"
#include "core/units.hpp"

namespace sb::hw {

extern const char* const kChipsJson;

namespace {

// Lower-case and drop spaces, '-' and '_' so "TPU v5e", "tpu-v5e" and "tpuv5e" all match.
std::string normalize(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (c == ' ' || c == '-' || c == '_' || c == '\t') continue;
    out.push_back(static_cast<char>(std::tolower(c)));
  }
  return out;
}

// `s` lowercased into buf, on the stack (these run at every calculator call; see chip()). Text
// longer than the buffer comes back empty, which names nothing.
template <size_t N>
std::string_view lower_into(char (&buf)[N], std::string_view prefix, std::string_view s) {
  if (prefix.size() + s.size() > N) return {};
  size_t n = 0;
  for (char c : prefix) buf[n++] = c;
  for (unsigned char c : s) buf[n++] = static_cast<char>(std::tolower(c));
  return {buf, n};
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string join(const std::vector<std::string>& xs) {
  std::string out;
  for (size_t i = 0; i < xs.size(); ++i) out += (i ? ", " : "") + xs[i];
  return out;
}

// The embedded data is ours, not the reader's, but a broken file must still surface as a clear
// error value rather than a crash in the wasm module.
[[noreturn]] void bad_data(const std::string& message) {
  throw InputError("bad_chip_data", "chips.json", "chips.json: " + message);
}

struct Tables {
  std::vector<Chip> chips;
  std::vector<std::string> dtype_names;  // widest first: fp32, bf16, fp8, int8, ...
  std::map<std::string, double, KeyLess> dtype_bytes;
  json sources = json::object();
  json labels = json::object();  // spec key -> its name in words, in the order to show them
  // Every id and alias, normalized, with its chip's index: a lookup normalizes only the query.
  std::vector<std::pair<std::string, size_t>> names;
};

// One spec of a chip: a number with its unit, or only a text (e.g. a topology).
Spec parse_spec(const std::string& where, const json& s) {
  Spec spec;
  if (s.contains("value") && s["value"].is_null()) {
    spec.known = false;  // stated unknown: its note says so
    spec.unit = s.value("unit", "");
    if (s.value("note", "").empty()) bad_data(where + " is unknown without a note saying so");
  } else if (s.contains("value") && s["value"].is_number()) {
    spec.value = s["value"].get<double>();
    spec.unit = s.value("unit", "");
    if (spec.unit.empty()) bad_data(where + " has no unit");
    spec.text = s.value("text", "");  // optional: the number as the book writes it
  } else if (s.contains("text") && s["text"].is_string()) {
    spec.text = s["text"].get<std::string>();
  } else {
    bad_data(where + " has neither a value nor a text");
  }
  spec.source = s.value("source", "");
  spec.note = s.value("note", "");
  return spec;
}

Chip parse_chip(const json& c) {
  Chip chip;
  if (!c.is_object() || !c.contains("id") || !c["id"].is_string()) bad_data("a chip without an id");
  chip.id = c["id"].get<std::string>();
  chip.name = c.value("name", chip.id);
  chip.kind = c.value("kind", "");
  if (c.contains("aliases") && c["aliases"].is_array())
    for (const json& a : c["aliases"])
      if (a.is_string()) chip.aliases.push_back(a.get<std::string>());
  const json& specs = c.value("specs", json::object());
  if (!specs.is_object()) bad_data(chip.id + ": specs is not an object");
  for (auto it = specs.begin(); it != specs.end(); ++it)
    chip.specs[it.key()] = parse_spec(chip.id + "." + it.key(), it.value());
  return chip;
}

Tables load() {
  Tables t;
  json doc;
  try {
    doc = parse_json(kChipsJson, kNoLimits);
  } catch (const InputError& e) {
    bad_data(std::string("not valid JSON: ") + e.what());
  }
  if (!doc.is_object()) bad_data("not valid JSON");
  if (doc.contains("sources") && doc["sources"].is_object()) t.sources = doc["sources"];
  if (doc.contains("labels") && doc["labels"].is_object()) t.labels = doc["labels"];

  const json& dt = doc.value("dtypes", json::object());
  if (!dt.is_object() || dt.empty()) bad_data("missing \"dtypes\"");
  for (auto it = dt.begin(); it != dt.end(); ++it) {
    if (!it.value().is_number()) bad_data("dtype " + it.key() + " has no byte size");
    t.dtype_names.push_back(it.key());
    t.dtype_bytes[it.key()] = it.value().get<double>();
  }
  // Widest first, ties in the table's order: an insertion sort of a dozen names, stable like
  // std::stable_sort, whose instantiation was 3 KB of every module.
  auto& names = t.dtype_names;
  for (size_t i = 1; i < names.size(); ++i)
    for (size_t k = i; k > 0 && t.dtype_bytes[names[k]] > t.dtype_bytes[names[k - 1]]; --k)
      std::swap(names[k], names[k - 1]);

  const json& list = doc.value("chips", json::array());
  if (!list.is_array() || list.empty()) bad_data("missing \"chips\"");
  for (const json& c : list) {
    Chip chip = parse_chip(c);
    t.names.emplace_back(normalize(chip.id), t.chips.size());
    for (const std::string& a : chip.aliases) t.names.emplace_back(normalize(a), t.chips.size());
    t.chips.push_back(std::move(chip));
  }
  return t;
}

const Tables& tables() {
  static const Tables t = load();
  return t;
}

std::string fmt_number(double v) { return units::number(v, 6); }

}  // namespace

bool Chip::has(std::string_view key) const {
  const Spec* s = find(key);
  return s && s->known;
}

bool Chip::unknown(std::string_view key) const {
  const Spec* s = find(key);
  return s && !s->known;
}

namespace {

// "TPU v2's HBM bandwidth is not known (<the table's note>); enter it.", in field hbm_bw: the
// key's label in words. A field named after the key is the reader's own figure for it; any other
// field (the chip) can only be changed.
std::string label_of(std::string_view key) {
  const json& labels = tables().labels;
  auto l = labels.find(key);
  return l != labels.end() && l->is_string() ? l->get<std::string>() : std::string(key);
}

[[noreturn]] void not_known(const Chip& c, std::string_view key, std::string_view field,
                            const Spec& s) {
  const std::string what = label_of(key);
  fail(field,
       c.name + "'s " + what + " is not known (" + s.note + "); " +
           (field == key ? "enter it." : "pick another chip."),
       "no_figure");
}

}  // namespace

double Chip::get(std::string_view key, std::string_view field) const {
  const Spec* s = find(key);
  if (!s)
    fail(field, "The book gives no " + label_of(key) + " figure for " + name + ".", "no_figure");
  if (!s->known) not_known(*this, key, field, *s);
  if (s->unit.empty())
    fail(field, name + "'s " + std::string(key) + " is a text (\"" + s->text + "\"), not a number.",
         "no_figure");
  return s->value;
}

std::string Chip::get_text(std::string_view key, std::string_view field) const {
  const Spec* s = find(key);
  if (!s)
    fail(field, "The book gives no " + label_of(key) + " figure for " + name + ".", "no_figure");
  if (!s->known) not_known(*this, key, field, *s);
  if (!s->unit.empty()) return fmt_number(s->value);
  return s->text;
}

double Chip::peak(std::string_view dtype, std::string_view field) const {
  dtype_bytes(dtype, field);  // an unknown dtype is a different mistake from a missing figure
  char buf[48];
  const std::string_view key = lower_into(buf, "peak_flops_", dtype);
  if (!has(key) && !unknown(key)) {  // a stated unknown: get() says so
    const std::string d = lower(dtype);
    fail(field, "The book gives no " + d + " peak FLOPs/s (peak_flops_" + d + ") for " + name + ".",
         "no_figure");
  }
  return get(key, field);
}

const std::vector<Chip>& chips() { return tables().chips; }

const Chip& chip(std::string_view id, std::string_view field) {
  // Normalized on the stack: this runs at every calculator call, and std::string is slow in wasm
  // (see core/json.hpp). An id longer than the buffer matches nothing.
  char buf[64];
  size_t n = 0;
  for (unsigned char c : id) {
    if (c == ' ' || c == '-' || c == '_' || c == '\t') continue;
    if (n == sizeof buf) {
      n = 0;
      break;
    }
    buf[n++] = static_cast<char>(std::tolower(c));
  }
  const std::string_view want(buf, n);
  if (!want.empty())
    for (const auto& [name, i] : tables().names)
      if (std::string_view(name) == want) return tables().chips[i];
  fail(field, "Unknown chip \"" + std::string(id) + "\". Valid chips: " + join(chip_ids()) + ".",
       "unknown_chip");
}

std::vector<std::string> chip_ids() {
  std::vector<std::string> ids;
  for (const Chip& c : chips()) ids.push_back(c.id);
  return ids;
}

json chips_json() {
  json out = json::object();
  json list = json::array();
  for (const Chip& c : chips()) {
    json specs = json::object();
    for (const auto& [key, s] : c.specs) {
      json j = json::object();
      if (!s.known)
        j["value"] = nullptr;  // stated unknown
      else if (!s.unit.empty())
        j["value"] = s.value;
      if (s.known && (s.unit.empty() || !s.text.empty())) j["text"] = s.text;
      j["unit"] = s.unit;
      j["source"] = s.source;
      j["note"] = s.note;
      specs[key] = std::move(j);
    }
    list.push_back({{"id", c.id},
                    {"name", c.name},
                    {"kind", c.kind},
                    {"aliases", c.aliases},
                    {"specs", std::move(specs)}});
  }
  out["chips"] = std::move(list);
  json dt = json::object();
  for (const auto& [name, bytes] : tables().dtype_bytes) dt[name] = bytes;
  out["dtypes"] = std::move(dt);
  out["sources"] = tables().sources;
  out["labels"] = tables().labels;
  return out;
}

double dtype_bytes(std::string_view dtype, std::string_view field) {
  const auto& m = tables().dtype_bytes;
  char buf[16];
  auto it = m.find(lower_into(buf, "", dtype));
  if (it == m.end())
    fail(field,
         "Unknown dtype \"" + std::string(dtype) + "\". Valid dtypes: " + join(dtypes()) + ".",
         "unknown_dtype");
  return it->second;
}

const std::vector<std::string>& dtypes() { return tables().dtype_names; }

}  // namespace sb::hw
