// JAX's PartitionSpecs (notation.hpp) read with the chapter's literal reader (literal.hpp) and
// turned into the book's notation. Only Part 10's calculators call this file: the sharding page's
// own modules link none of it.
#include <algorithm>
#include <string>
#include <vector>

#include "chapters/sharding/literal.hpp"
#include "chapters/sharding/notation.hpp"
#include "chapters/sharding/scan.hpp"
#include "core/error.hpp"

namespace sb::sharding {

namespace {

using namespace scan;

// The literal reader's own errors (it speaks of "the mesh", whose spellings it reads first),
// told of the PartitionSpec: the sharding page's reader stays as it is.
Val read_spec(Text text, Text field) {
  try {
    return read_literal(text, field);
  } catch (const InputError& e) {
    std::string m = e.what();
    for (std::size_t at = m.find("the mesh"); at != std::string::npos; at = m.find("the mesh", at))
      m.replace(at, 8, "the PartitionSpec");
    const std::string dict = " or a {axis: size} dict";
    if (const std::size_t at = m.find(dict); at != std::string::npos) m.erase(at, dict.size());
    throw InputError("bad_spec", e.field, m);
  }
}

// Names JAX gives the constructor: P, PartitionSpec, and either behind a module path.
bool spec_call(const std::string& name) {
  const std::size_t dot = name.rfind('.');
  const std::string last = dot == std::string::npos ? name : name.substr(dot + 1);
  return last == "P" || last == "PartitionSpec";
}

// One entry: None, 'X', or a tuple ('X', 'Y') (None inside a tuple adds nothing).
std::vector<std::string> entry_axes(const Val& v, Text text, Text field) {
  if (v.kind == Val::Ident && v.s == "None") return {};
  if (v.kind == Val::Str) {
    if (v.s.empty()) fail_at(field, text, v.at, "an axis name cannot be empty", "bad_spec");
    return {v.s};
  }
  if (v.kind == Val::Tuple) {
    std::vector<std::string> out;
    for (const Val& a : v.items) {
      if (a.kind == Val::Ident && a.s == "None") continue;
      if (a.kind != Val::Str || a.s.empty())
        fail_at(field, text, a.at, "inside a tuple, expected quoted mesh axis names like 'X'",
                "bad_spec");
      out.push_back(a.s);
    }
    return out;
  }
  fail_at(field, text, v.at,
          "expected None, a quoted mesh axis like 'X', or a tuple of them like ('X', 'Y')",
          "bad_spec");
}

}  // namespace

PartitionSpec parse_partition_spec(Text text, Text field) {
  check_length(text, field, "the PartitionSpec");
  std::size_t b = 0;
  while (b < text.size() && is_space(text[b])) ++b;
  if (b == text.size())
    fail(field, "the PartitionSpec is empty; write it like P('X', None), or P() for replicated",
         "bad_spec");
  const Val v = read_spec(text, field);
  if (v.kind != Val::Call || !spec_call(v.s))
    fail_at(field, text, v.at, "expected P(...), jax.P(...) or PartitionSpec(...)", "bad_spec");
  if (!v.keys.empty())
    fail_at(field, text, v.key_at[0], "a PartitionSpec takes no keyword arguments", "bad_spec");
  PartitionSpec p;
  for (const Val& e : v.items) {
    p.entries.push_back(entry_axes(e, text, field));
    p.pos.push_back(char_pos(text, e.at));
  }
  return p;
}

Sharding spec_sharding(const PartitionSpec& spec, const Mesh& m, const std::string& array,
                       const std::vector<std::string>& dims, Text field) {
  const std::string f(field);
  if (spec.entries.size() > dims.size())
    fail(field,
         f + ": at column " + std::to_string(spec.pos[dims.size()]) + ": the PartitionSpec has " +
             std::to_string(spec.entries.size()) + " entries but " + array + " has " +
             std::to_string(dims.size()) + " dimensions",
         "too_many_entries");
  Sharding s;
  s.name = array;
  std::vector<std::pair<std::string, std::size_t>> seen;
  for (std::size_t k = 0; k < dims.size(); ++k) {
    Dim d;
    d.name = dims[k];
    if (k < spec.entries.size()) {
      d.axes = spec.entries[k];
      d.pos = spec.pos[k];
    }
    for (const auto& a : d.axes) {
      if (!m.has(a))
        fail(field,
             f + ": at column " + std::to_string(d.pos) + " (dimension " + d.name + "): the mesh " +
                 m.text() + " has no axis '" + a + "'",
             "unknown_axis");
      for (const auto& [name, at] : seen)
        if (name == a)
          fail(field,
               f + ": at column " + std::to_string(d.pos) + " (dimension " + d.name +
                   "): mesh axis '" + a + "' already shards the entry at column " +
                   std::to_string(at) + "; an axis can shard only one dimension, once",
               "axis_reused");
      seen.push_back({a, d.pos});
    }
    s.dims.push_back(std::move(d));
  }
  return s;
}

std::string spec_text(const PartitionSpec& spec) {
  auto quoted = [](const std::string& a) { return "'" + a + "'"; };
  std::string out = "P(";
  for (std::size_t k = 0; k < spec.entries.size(); ++k) {
    const auto& e = spec.entries[k];
    out += k ? ", " : "";
    if (e.empty()) {
      out += "None";
    } else if (e.size() == 1) {
      out += quoted(e[0]);
    } else {
      out += "(";
      for (std::size_t j = 0; j < e.size(); ++j) out += (j ? ", " : "") + quoted(e[j]);
      out += ")";
    }
  }
  return out + ")";
}

}  // namespace sb::sharding
