#include "core/api.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "core/check.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/units.hpp"

namespace sb::api {
namespace {

std::string str(const json& req, const char* key) {
  if (!req.contains(key)) fail(key, std::string("the request needs '") + key + "'", "missing");
  if (!req[key].is_string()) fail(key, std::string("'") + key + "' must be a string", "wrong_type");
  return req[key].get<std::string>();
}

const json& obj(const json& req, const char* key) {
  static const json empty = json::object();
  if (!req.contains(key) || req[key].is_null()) return empty;
  if (!req[key].is_object())
    fail(key, std::string("'") + key + "' must be a JSON object", "wrong_type");
  return req[key];
}

// "{B}" in a statement becomes the input's value with its unit; "{n|link|links}" the word that
// agrees with the value of n ("link" where n is 1). Anything else in braces stays as written.
std::string render(Text statement, const Problem& p, const Inputs& in) {
  std::string out;
  out.reserve(statement.size() + 64);
  size_t at = 0;
  while (at < statement.size()) {
    const size_t open = statement.find('{', at);
    const size_t close = open == Text::npos ? Text::npos : statement.find('}', open);
    if (close == Text::npos) break;
    const Text inside = statement.substr(open + 1, close - open - 1);
    const size_t bar = inside.find('|');
    const Text name = inside.substr(0, bar);
    const Param* g = nullptr;
    for (const auto& param : p.given)
      if (param.name == name) g = &param;
    out.append(statement.substr(at, open - at));
    if (!g) {
      out.append(statement.substr(open, close + 1 - open));
    } else if (bar != Text::npos) {
      const Text forms = inside.substr(bar + 1);
      const size_t bar2 = forms.find('|');
      const bool one = g->kind == Param::Kind::Number && in.num(name) == 1;
      out.append(one ? forms.substr(0, bar2) : forms.substr(bar2 == Text::npos ? 0 : bar2 + 1));
    } else {
      out += g->kind == Param::Kind::Number
                 ? units::format(in.num(name), g->unit.empty() ? "count" : g->unit)
                 : in.text(name);
    }
    at = close + 1;
  }
  out.append(statement.substr(at));
  return out;
}

// Whether "new variant" has anything to change: a given with variant values or a chip spec.
bool variable(const Problem& p) {
  for (const auto& g : p.given)
    if (!g.variants.empty() || !g.chip_spec.empty()) return true;
  return false;
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
  for (const auto& c : r.calculators())
    calcs.push_back({{"name", c.name},
                     {"chapter", c.chapter},
                     {"title", c.title},
                     {"doc", c.doc},
                     {"params", schema_json(c.params)}});
  for (const auto& p : r.problems())
    probs.push_back({{"id", p.id}, {"chapter", p.chapter}, {"title", p.title}, {"kind", p.kind}});
  return {{"chapters", chapters}, {"calculators", calcs}, {"problems", probs}};
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

json op_variant(const json& req) {
  const auto& p = Registry::get().problem(str(req, "id"));
  uint64_t seed = 1;
  if (req.contains("seed")) {
    if (!req["seed"].is_number()) fail("seed", "seed must be a number", "wrong_type");
    double s = req["seed"].get<double>();
    if (!std::isfinite(s)) fail("seed", "seed must be finite", "bad_number");
    seed = static_cast<uint64_t>(std::fabs(std::fmod(s, 1e15)));
  }
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 1);
  for (int attempt = 0; attempt < 20; ++attempt) {
    json given = json::object();
    for (const auto& g : p.given) {
      if (g.variants.empty()) continue;
      given[g.name] = g.variants[rng() % g.variants.size()];
    }
    try {
      Inputs in(p.given, given);
      Trace tr;
      if (p.solve) {
        Answers a = p.solve(in, tr);
        bool finite = true;
        for (const auto& [k, v] : a) finite = finite && std::isfinite(v);
        if (!finite) continue;
      }
      return {{"id", p.id}, {"given", given}};
    } catch (const InputError&) {
      continue;  // this combination is not a valid problem; draw again
    }
  }
  return {{"id", p.id}, {"given", json::object()}};
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

std::string render_statement(const Problem& p, const Inputs& in) {
  return render(p.statement, p, in);
}

json solve_problem(const std::string& id, const json& given) {
  const auto& p = Registry::get().problem(id);
  Inputs in(p.given, given);
  Trace tr;
  Answers a = p.solve ? p.solve(in, tr) : Answers{};
  json g = json::array();
  for (const auto& param : p.given) {
    json j = to_json(param);
    j["value"] =
        param.kind == Param::Kind::Number ? json(in.num(param.name)) : json(in.text(param.name));
    j["text"] = param.kind == Param::Kind::Number
                    ? units::format(in.num(param.name), param.unit.empty() ? "count" : param.unit)
                    : in.text(param.name);
    j["variable"] = !param.variants.empty() || !param.chip_spec.empty();
    g.push_back(j);
  }
  json slots = json::array(), answers = json::object();
  for (const auto& s : p.slots) {
    slots.push_back(to_json(s));
    if (s.kind == Slot::Kind::Formula) {
      answers[s.name] = {{"tex", s.formula_tex}};
    } else {
      auto it = a.find(s.name);
      double v = it == a.end() ? NAN : it->second;
      if (!std::isfinite(v))
        fail("given",
             "these givens leave " + std::string(s.label.empty() ? s.name : s.label) +
                 " with no finite value (a division by zero or an overflow)",
             "no_answer");
      answers[s.name] = value(v, s.kind == Slot::Kind::Bool ? "bool" : s.unit, s.label);
    }
  }
  json out = {{"id", p.id},
              {"chapter", p.chapter},
              {"title", p.title},
              {"kind", p.kind},
              {"statement", render(p.statement, p, in)},
              {"variable", variable(p)},
              {"given", g},
              {"slots", slots},
              {"answers", answers},
              {"trace", tr.to_json()}};
  if (!p.model_answer.empty()) out["model_answer"] = p.model_answer;
  if (!p.erratum.empty()) out["erratum"] = p.erratum;
  if (!p.hint.empty()) out["hint"] = p.hint;
  return out;
}

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
    else if (op == "problem")
      out = solve_problem(str(req, "id"), obj(req, "given"));
    else if (op == "check")
      out = check::grade(Registry::get().problem(str(req, "id")),
                         req.contains("answers") ? req["answers"] : json::object(),
                         obj(req, "given"));
    else if (op == "variant")
      out = op_variant(req);
    else if (op == "chips")
      out = hw::chips_json();
    else if (op == "parse")
      out = op_parse(req);
    else if (op == "units")
      out = {{"units", units::table_json()}};
    else
      fail("op",
           "unknown op '" + op.substr(0, 40) +
               "'; ops: list, calc, problem, check, variant, chips, parse, units",
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

// Through parse_json, as every parse: one instantiation of nlohmann's parser in a module.
json handle(const json& req) { return parse_json(respond(req), kNoLimits); }

// A request's field as the error contract names it: an input of "inputs" or "given" by its own
// name, as the checks of core/registry.cpp do; any other value by its path of keys.
std::string field_of(const std::string& path) {
  for (const char* top : {"inputs.", "given."})
    if (path.rfind(top, 0) == 0) return path.substr(std::strlen(top));
  return path;
}

std::string handle(const std::string& text) {
  try {
    if (text.size() > (1u << 20))
      return dump(error("too_large", "request", "the request is over 1 MiB"));
    json req;
    try {
      req = parse_json(text);
    } catch (const InputError& e) {
      return dump(error(e.code, field_of(e.field), e.what()));
    }
    return respond(req);
  } catch (...) {
    return R"({"ok":false,"error":{"code":"internal","field":"","message":"internal error"}})";
  }
}

}  // namespace sb::api
