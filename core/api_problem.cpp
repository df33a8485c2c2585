// The problem side of the JSON entry point: a problem's statement, givens, answers and
// derivation, and the draw of "new variant". It runs once per answer, not per keystroke, so wasm
// compiles it for size (CMakeLists.txt).
#include <cmath>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/api.hpp"
#include "core/check.hpp"
#include "core/error.hpp"
#include "core/formula.hpp"
#include "core/hardware.hpp"
#include "core/units.hpp"

namespace sb::api {
namespace {

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
    } else if (g->chip) {
      out += hw::chip(in.text(name)).name;  // "TPU v5e", as a reader names it
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

// Whether a given may change in a variant: it has variant values or is a chip's spec.
bool varies(const Param& g) {
  return !g.variants.empty() || !g.text_variants.empty() || !g.chip_spec.empty();
}

// A spec of a chip for a chip_spec given: a number, a ratio "a/b" of two, or a text.
bool chip_has(const hw::Chip& c, Text key) {
  const size_t slash = key.find('/');
  if (slash == Text::npos) return c.has(key);
  return c.has(key.substr(0, slash)) && c.has(key.substr(slash + 1));
}
json chip_value(const hw::Chip& c, const Param& g) {
  const Text key = g.chip_spec;
  if (g.kind != Param::Kind::Number) return c.get_text(key);
  const size_t slash = key.find('/');
  if (slash == Text::npos) return c.get(key);
  return c.get(key.substr(0, slash)) / c.get(key.substr(slash + 1));
}

// One draw of new givens: a real chip for the chip specs (and the chip param), one position per
// linked group, a value for every other given that varies.
json draw(const Problem& p, std::mt19937_64& rng) {
  json given = json::object();
  const Param* chip_param = nullptr;
  bool specs = false;
  for (const auto& g : p.given) {
    if (g.chip) chip_param = &g;
    specs = specs || !g.chip_spec.empty();
  }
  if (specs) {
    const std::string kind = chip_param ? hw::chip(chip_param->def_text).kind : "";
    std::vector<const hw::Chip*> fit;
    for (const auto& c : hw::chips()) {
      bool all = kind.empty() || c.kind == kind;
      for (const auto& g : p.given) all = all && (g.chip_spec.empty() || chip_has(c, g.chip_spec));
      if (all) fit.push_back(&c);
    }
    if (!fit.empty()) {
      const hw::Chip& c = *fit[rng() % fit.size()];
      if (chip_param) given[chip_param->name] = c.id;
      for (const auto& g : p.given)
        if (!g.chip_spec.empty()) given[g.name] = chip_value(c, g);
    }
  }
  std::vector<std::pair<Text, size_t>> picked;  // linked group -> position
  for (const auto& g : p.given) {
    const size_t n = g.variants.empty() ? g.text_variants.size() : g.variants.size();
    if (n == 0 || !g.chip_spec.empty()) continue;
    size_t at = rng() % n;
    if (!g.linked.empty()) {
      bool seen = false;
      for (const auto& [group, pos] : picked)
        if (group == g.linked) at = pos, seen = true;
      if (!seen) picked.emplace_back(g.linked, at);
    }
    if (at >= n)
      throw std::logic_error("registry: linked variant lists of unequal length in " +
                             std::string(p.id));
    if (g.variants.empty())
      given[g.name] = g.text_variants[at];
    else
      given[g.name] = g.variants[at];
  }
  return given;
}

// Whether the drawn givens change anything but the chip's name: a variant that repeats the
// book's values (or renames the chip alone) is no variant.
bool changes(const Problem& p, const Inputs& in) {
  for (const auto& g : p.given) {
    if (g.chip) continue;
    if (g.kind == Param::Kind::Number ? in.num(g.name) != g.def : in.text(g.name) != g.def_text)
      return true;
  }
  return false;
}

}  // namespace

bool variable(const Problem& p) {
  for (const auto& g : p.given)
    if (varies(g)) return true;
  return false;
}

json variant(const Problem& p, uint64_t seed) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 1);
  for (int attempt = 0; attempt < 64; ++attempt) {
    json given = draw(p, rng);
    try {
      Inputs in(p.given, given);
      if (!changes(p, in)) continue;
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
  fail("id", "no variant of " + std::string(p.id) + " could be drawn with this seed", "no_variant");
}

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
    j["variable"] = varies(param);
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

json op_variant(const json& req) {
  const auto& p = Registry::get().problem(detail::str(req, "id"));
  uint64_t seed = 1;
  if (req.contains("seed")) {
    if (!req["seed"].is_number()) fail("seed", "seed must be a number", "wrong_type");
    double s = req["seed"].get<double>();
    if (!std::isfinite(s)) fail("seed", "seed must be finite", "bad_number");
    seed = static_cast<uint64_t>(std::fabs(std::fmod(s, 1e15)));
  }
  if (!variable(p))
    fail("id", std::string(p.id) + " has no variants: its inputs are the book's alone",
         "no_variant");
  return variant(p, seed);
}

// The formula sheet: every record of the module's chapters, each with its chapter. The chapters
// register their records with their problems, so a page's first module carries none it does not
// use.
json op_formulas() {
  json out = json::array();
  for (const auto& e : Registry::get().formulas()) {
    json f = records::to_json(*e.f);
    f["chapter"] = e.chapter;
    out.push_back(std::move(f));
  }
  return {{"formulas", std::move(out)}};
}

// "problem", "check", "variant" or "formulas" (api.cpp dispatches only these here).
json problem_op(const std::string& op, const json& req) {
  if (op == "formulas") return op_formulas();
  if (op == "problem") return solve_problem(detail::str(req, "id"), detail::obj(req, "given"));
  if (op == "check")
    return check::grade(Registry::get().problem(detail::str(req, "id")),
                        req.contains("answers") ? req["answers"] : json::object(),
                        detail::obj(req, "given"));
  return op_variant(req);
}

}  // namespace

void enable_problem_ops() { detail::set_problem_op(&problem_op); }

}  // namespace sb::api
