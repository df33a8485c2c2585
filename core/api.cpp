#include "core/api.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/units.hpp"

namespace sb::api {

std::string detail::str(const json& req, const char* key) {
  if (!req.contains(key)) fail(key, std::string("the request needs '") + key + "'", "missing");
  if (!req[key].is_string()) fail(key, std::string("'") + key + "' must be a string", "wrong_type");
  return req[key].get<std::string>();
}

const json& detail::obj(const json& req, const char* key) {
  static const json empty = json::object();
  if (!req.contains(key) || req[key].is_null()) return empty;
  if (!req[key].is_object())
    fail(key, std::string("'") + key + "' must be a JSON object", "wrong_type");
  return req[key];
}

namespace {
using detail::obj;
using detail::str;

detail::ProblemOp problem_handler = nullptr;  // set by enable_problem_ops (api_problem.cpp)

json problem_ops(const std::string& op, const json& req) {
  const auto& chapters = Registry::get().chapters();  // registering switches the ops on
  if (!problem_handler) {
    const std::string ch = chapters.size() == 1 ? std::string(chapters[0].id) : "<chapter>";
    fail("op",
         "'" + op + "' is answered by the exercises module scaling-" + ch +
             "-problems, not by this one (calculators only)",
         "not_in_module");
  }
  return problem_handler(op, req);
}

// Writes `before`, then `s` as a JSON string.
[[gnu::noinline]] void quoted(Out& out, Text before, Text s) {
  out << before;
  append_json(out, s);
}

json op_list() {
  const auto& r = Registry::get();
  json calcs = json::array(), probs = json::array();
  // The chapter records, written as text (all texts but the part) and parsed: a JSON tree built
  // field by field costs more module size than this.
  Out text;
  for (const auto& c : r.chapters()) {
    text << (text.empty() ? "[" : ",");
    quoted(text, "{\"id\":", c.id);
    quoted(text, ",\"prefix\":", c.prefix);
    text << ",\"part\":" << std::to_string(c.part);
    quoted(text, ",\"title\":", c.title);
    quoted(text, ",\"slug\":", c.slug);
    text << ",\"bases\":[";
    for (size_t i = 0; i < c.bases.size(); ++i) quoted(text, i ? "," : "", c.bases[i]);
    text << "]}";
  }
  text << (text.empty() ? "[]" : "]");
  json chapters = parse_json(text.view(), kNoLimits);
  // Member by member (a call each), not initializer lists: less module code, the same text.
  for (const auto& c : r.calculators()) {
    json& e = calcs.emplace_back(json::object());
    e["name"] = c.name;
    e["chapter"] = c.chapter;
    e["title"] = c.title;
    e["doc"] = c.doc;
    e["params"] = schema_json(c.params);
    if (c.heavy) e["heavy"] = true;
  }
  for (const auto& p : r.problems()) {
    json& e = probs.emplace_back(json::object());
    e["id"] = p.id;
    e["chapter"] = p.chapter;
    e["title"] = p.title;
    e["kind"] = p.kind;
  }
  json out = json::object();
  out["chapters"] = std::move(chapters);
  out["calculators"] = std::move(calcs);
  out["problems"] = std::move(probs);
  return out;
}

// ASCII only, as docs/API.md says: see core/json.cpp.
std::string dump(const json& j) {
  Out out;
  append_json(out, j);
  return out.str();
}

// Written as text: the one op a page calls at every keystroke.
std::string op_calc(const json& req) {
  const auto& c = Registry::get().calculator(str(req, "name"));
  if (!c.run)  // heavy, and this module has the chapter's light calculators only
    fail("name",
         "'" + std::string(c.name) + "' is computed by the module scaling-" +
             std::string(c.chapter) + "-problems (a page's worker loads it), not by this one",
         "not_in_module");
  Inputs in(c.params, obj(req, "inputs"));
  Trace tr;
  Result r;
  c.run(in, tr, r);
  Out out;
  out << '{';
  r.write_members(out);
  out << ",\"name\":";
  append_json(out, c.name);
  out << ",\"inputs\":";
  in.write(out);
  out << ",\"trace\":";
  tr.write(out);
  out << ",\"ok\":true}";
  return out.str();
}

json op_parse(const json& req) {
  std::string unit = str(req, "unit");
  if (!units::known(unit)) fail("unit", "unknown unit id '" + unit.substr(0, 40) + "'", "bad_unit");
  double v = units::parse(str(req, "text"), unit, "text");
  return {{"value", v}, {"text", units::format(v, unit)}};
}

json error(const std::string& code, const std::string& field, const std::string& message) {
  return {{"ok", false}, {"error", {{"code", code}, {"field", field}, {"message", message}}}};
}

}  // namespace

namespace {

// The keys each op reads. Any other key is an error naming it, so that a misspelt "input" is not
// silently a call with the defaults. Every op belongs here: one missing is read with any keys.
struct OpKeys {
  const char* op;
  const char* keys;  // besides "op", separated by spaces
};
const OpKeys kOpKeys[] = {
    {"list", ""},
    {"calc", "name inputs"},
    {"problem", "id given"},
    {"check", "id answers given"},
    {"variant", "id seed"},
    {"chips", ""},
    {"parse", "text unit"},
    {"units", ""},
    {"formulas", ""},
};

void check_keys(const json& req, const std::string& op) {
  for (const auto& k : kOpKeys) {
    if (op != k.op) continue;
    const std::string_view keys = k.keys;
    for (auto it = req.begin(); it != req.end(); ++it) {
      const std::string& key = it.key();
      if (key == "op") continue;
      bool known = false;
      for (size_t at = 0; at < keys.size() && !known;) {
        size_t end = std::min(keys.find(' ', at), keys.size());
        known = keys.substr(at, end - at) == key;
        at = end + 1;
      }
      if (!known) {
        const std::string shown = key.size() > 60 ? key.substr(0, 60) + "..." : key;
        std::string takes = keys.empty() ? "op" : "op ";
        takes += keys;
        for (size_t sp = takes.find(' '); sp != std::string::npos; sp = takes.find(' ', sp + 2))
          takes.replace(sp, 1, ", ");
        fail(shown, "unknown key '" + shown + "'; '" + op + "' reads only " + takes, "unknown_key");
      }
    }
  }
}

std::string respond(const json& req) {
  try {
    if (!req.is_object())
      fail("request", "the request must be a JSON object with an 'op'", "wrong_type");
    std::string op = str(req, "op");
    check_keys(req, op);
    if (op == "calc") return op_calc(req);
    json out;
    if (op == "list")
      out = op_list();
    else if (op == "problem" || op == "check" || op == "variant" || op == "formulas")
      out = problem_ops(op, req);
    else if (op == "chips")
      out = hw::chips_json();
    else if (op == "parse")
      out = op_parse(req);
    else if (op == "units")
      out = {{"units", units::table_json()}};
    else
      fail("op",
           "unknown op '" + op.substr(0, 40) +
               "'; ops: list, calc, problem, check, variant, chips, parse, units, formulas",
           "unknown_op");
    out["ok"] = true;
    return dump(out);
  } catch (const InputError& e) {
    return dump(error(e.code, e.field, e.what()));
  } catch (const json::exception& e) {
    return dump(error("bad_json", "request", std::string("malformed request: ") + e.what()));
  } catch (const std::exception& e) {
    return dump(error("internal", "", std::string("internal error: ") + e.what()));
  } catch (...) {
    return dump(error("internal", "", "internal error"));
  }
}

}  // namespace

void detail::set_problem_op(ProblemOp op) { problem_handler = op; }

// Through parse_json, as every parse: one instantiation of nlohmann's parser in a module.
json handle(const json& req) { return parse_json(respond(req), kNoLimits); }

// A request's field as the error contract names it: an input of "inputs" or "given" by its own
// name, as the checks of core/registry.cpp do; any other value by its path of keys.
std::string field_of(const std::string& path) {
  for (const char* top : {"inputs.", "given."})
    if (path.rfind(top, 0) == 0) return path.substr(std::strlen(top));
  return path;
}

// A request past kRequestBytes is read only if it may carry a long-text input, and served only if
// it does: the cap is checked on the text before it is read, and again once the tree shows whether
// a string in "inputs" is long (Inputs then checks that its param takes one).
bool has_long_text(const json& req) {
  if (!req.is_object() || !req.contains("inputs") || !req["inputs"].is_object()) return false;
  for (const auto& v : req["inputs"])
    if (v.is_string() && v.get_ref<const std::string&>().size() > kStringBytes) return true;
  return false;
}

// The longest string literal of a JSON text, by a scan that builds nothing: its bytes with the
// quotes (past 1 MiB, a request is read only if all but that one string fits in 1 MiB, so no other
// bulk reaches the parser), and the most bytes any string decodes to (a string far past the
// long-text cap is refused before the parser builds it: its buffer grows by doubling, and wasm
// memory never shrinks). A \uXXXX escape decodes to 1 to 3 bytes of UTF-8, a surrogate half to 2 (a
// pair: 4).
struct Longest {
  size_t raw = 0, decoded = 0;
};
size_t escaped_bytes(std::string_view hex) {
  unsigned cp = 0;
  for (char c : hex) cp = cp * 16 + (c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : (cp >= 0xD800 && cp < 0xE000) ? 2 : 3;
}
Longest longest_string(std::string_view t) {
  Longest best;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] != '"') continue;
    size_t j = i + 1, n = 0;
    while (j < t.size() && t[j] != '"') {
      if (t[j] != '\\') {
        ++j, ++n;
      } else if (j + 1 < t.size() && t[j + 1] == 'u') {
        n += escaped_bytes(t.substr(j + 2, 4));
        j += 6;
      } else {
        j += 2, ++n;
      }
    }
    best.raw = std::max(best.raw, std::min(j, t.size() - 1) + 1 - i);
    best.decoded = std::max(best.decoded, n);
    i = j;
  }
  return best;
}

std::string handle(const std::string& text) {
  try {
    const auto too_large = [](const char* message) {
      return dump(error("too_large", "request", message));
    };
    if (text.size() > kLongRequestBytes) return too_large("the request is over 33 MiB");
    const char* over = "the request is over 1 MiB; only a long-text input may make it longer";
    if (text.size() > kRequestBytes) {
      const Longest l = longest_string(text);
      if (text.size() - l.raw > kRequestBytes) return too_large(over);
      // Within 1 MiB over the cap the parser reads it and names the input; far over, not at all.
      if (l.decoded > kLongTextBytes + kRequestBytes)
        return too_large("a text in the request is over 17 MiB");
    }
    json req;
    try {
      req = parse_json(text, kRequestLimits);
    } catch (const InputError& e) {
      // Past 1 MiB, what is wrong is the size, unless it is the long text's own.
      if (text.size() > kRequestBytes && e.code != "too_large") return too_large(over);
      return dump(error(e.code, field_of(e.field), e.what()));
    }
    if (text.size() > kRequestBytes && !has_long_text(req)) return too_large(over);
    return respond(req);
  } catch (...) {
    return R"({"ok":false,"error":{"code":"internal","field":"","message":"internal error"}})";
  }
}

}  // namespace sb::api
