#include "core/registry.hpp"

#include <cmath>
#include <set>

#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/units.hpp"

namespace sb {

void register_chapters(Registry& r);  // chapters/all.cpp

Param num(std::string_view name, std::string_view unit, double def, std::string_view doc,
          double min, double max, bool integer) {
  Param p;
  p.name = name;
  p.unit = unit;
  p.def = def;
  p.doc = doc;
  p.min = min;
  p.max = max;
  p.integer = integer;
  return p;
}

Param text(std::string_view name, std::string_view def, std::string_view doc) {
  Param p;
  p.name = name;
  p.kind = Param::Kind::Text;
  p.def_text = def;
  p.doc = doc;
  return p;
}

Param choice(std::string_view name, std::string_view def, std::vector<std::string> choices,
             std::string_view doc) {
  Param p = text(name, def, doc);
  p.kind = Param::Kind::Choice;
  p.choices = std::move(choices);
  return p;
}

Param chip_param(std::string_view def, std::string_view doc) {
  Param p = choice("chip", def, hw::chip_ids(), doc);
  p.chip = true;
  return p;
}

Param dtype_param(std::string_view name, std::string_view def, std::string_view doc) {
  return choice(name, def, hw::dtypes(), doc);
}

Param with_variants(Param p, Variants v) {
  if (v.vec) p.variants = *v.vec;
  else p.variants.assign(v.list.begin(), v.list.end());
  return p;
}

Param given(std::string_view name, std::string_view unit, double def, std::string_view doc,
            Variants variants, bool integer, double max) {
  return with_variants(num(name, unit, def, doc, 0, max, integer), variants);
}

Param count(std::string_view name, double def, std::string_view doc, Variants variants, double min,
            double max) {
  return with_variants(num(name, "count", def, doc, min, max, true), variants);
}

Slot number(std::string_view name, std::string_view unit, std::string_view label, double tol_rel) {
  Slot s;
  s.name = name;
  s.unit = unit;
  s.label = label;
  s.tol_rel = tol_rel;
  return s;
}

Slot boolean(std::string_view name, std::string_view label) {
  Slot s = number(name, "bool", label);
  s.kind = Slot::Kind::Bool;
  return s;
}

Slot formula(std::string_view name, std::string_view unit, std::string_view label,
             std::vector<Slot::Var> vars, Slot::Formula f, std::string_view formula_tex) {
  Slot s = number(name, unit, label);
  s.kind = Slot::Kind::Formula;
  s.vars = std::move(vars);
  s.formula = f;
  s.formula_tex = formula_tex;
  return s;
}

Slot hinted(Slot s, Hints hints) {
  s.hints = std::move(hints);
  return s;
}

Problem problem(std::string_view id, std::string_view title, std::string_view kind,
                std::string_view statement) {
  Problem p;
  p.id = id;
  p.title = title;
  p.kind = kind;
  p.statement = statement;
  return p;
}

namespace {

double number_from(const Param& p, const json& v) {
  double x = 0;
  if (v.is_number()) {
    x = v.get<double>();
  } else if (v.is_string()) {
    x = units::parse(v.get<std::string>(), p.unit.empty() ? "count" : p.unit, p.name);
  } else {
    fail(p.name, p.name + " must be a number" +
                     (p.unit.empty() || p.unit == "count" ? "" : " (or text like '" + units::example(p.unit) + "')") +
                     ", got " + std::string(v.type_name()),
         "wrong_type");
  }
  if (!std::isfinite(x)) fail(p.name, p.name + " must be a finite number", "bad_number");
  if (p.positive && x <= 0)
    fail(p.name, p.name + " must be greater than zero, got " + units::number(x), "out_of_range");
  if (x < p.min || x > p.max)
    fail(p.name, p.name + " must be between " + units::format(p.min, p.unit.empty() ? "count" : p.unit) +
                     " and " + units::format(p.max, p.unit.empty() ? "count" : p.unit) + ", got " +
                     units::format(x, p.unit.empty() ? "count" : p.unit),
         "out_of_range");
  if (p.integer && std::floor(x) != x)
    fail(p.name, p.name + " must be a whole number, got " + units::number(x, 8), "not_integer");
  return x;
}

std::string text_from(const Param& p, const json& v) {
  if (!v.is_string())
    fail(p.name, p.name + " must be text, got " + std::string(v.type_name()), "wrong_type");
  std::string s = v.get<std::string>();
  if (s.size() > 500) fail(p.name, p.name + " is too long (over 500 characters)", "too_long");
  if (p.chip) return hw::chip(s, p.name).id;
  if (p.kind == Param::Kind::Choice) {
    for (const auto& c : p.choices)
      if (c == s) return s;
    std::string all;
    for (const auto& c : p.choices) all += (all.empty() ? "" : ", ") + c;
    fail(p.name, p.name + " must be one of " + all + "; got '" + s + "'", "bad_choice");
  }
  return s;
}

}  // namespace

Inputs::Inputs(const std::vector<Param>& schema, const json& given) {
  if (!given.is_null() && !given.is_object())
    fail("inputs", "inputs must be a JSON object of name: value", "wrong_type");
  if (given.is_object()) {
    for (auto it = given.begin(); it != given.end(); ++it) {
      bool found = false;
      for (const auto& p : schema) found = found || p.name == it.key();
      if (!found) {
        std::string all;
        for (const auto& p : schema) all += (all.empty() ? "" : ", ") + p.name;
        std::string key = it.key().size() > 60 ? it.key().substr(0, 60) + "..." : it.key();
        fail(key, "unknown input '" + key + "'; this takes: " + all, "unknown_input");
      }
    }
  }
  values_ = json::object();
  for (const auto& p : schema) {
    bool has = given.is_object() && given.contains(p.name) && !given[p.name].is_null();
    if (p.kind == Param::Kind::Number)
      values_[p.name] = has ? number_from(p, given[p.name]) : p.def;
    else
      values_[p.name] = has ? text_from(p, given[p.name]) : p.def_text;
  }
}

double Inputs::num(std::string_view name_view) const {
  const std::string name(name_view);
  auto it = values_.find(name);
  if (it == values_.end() || !it->is_number()) fail(name, "internal: no number input '" + name + "'", "internal");
  return it->get<double>();
}

std::string Inputs::text(std::string_view name_view) const {
  const std::string name(name_view);
  auto it = values_.find(name);
  if (it == values_.end() || !it->is_string()) fail(name, "internal: no text input '" + name + "'", "internal");
  return it->get<std::string>();
}

Registry& Registry::get() {
  static Registry* r = [] {
    auto* reg = new Registry();
    register_chapters(*reg);
    return reg;
  }();
  return *r;
}

void Registry::add(Calculator c) { calcs_.push_back(std::move(c)); }
void Registry::add(Problem p) {
  if (p.chapter.empty()) p.chapter = p.id.substr(0, p.id.find('.'));
  problems_.push_back(std::move(p));
}

const Calculator& Registry::calculator(const std::string& name) const {
  for (const auto& c : calcs_)
    if (c.name == name) return c;
  std::string n = name.size() > 80 ? name.substr(0, 80) + "..." : name;
  fail("name", "no calculator named '" + n + "' (scaling list shows them)", "unknown_calculator");
}

const Problem& Registry::problem(const std::string& id) const {
  for (const auto& p : problems_)
    if (p.id == id) return p;
  std::string n = id.size() > 80 ? id.substr(0, 80) + "..." : id;
  fail("id", "no problem with id '" + n + "' (scaling list shows them)", "unknown_problem");
}

json to_json(const Param& p) {
  json j = {{"name", p.name}, {"doc", p.doc}};
  switch (p.kind) {
    case Param::Kind::Number:
      j["kind"] = "number";
      j["unit"] = p.unit.empty() ? "count" : p.unit;
      j["default"] = p.def;
      j["min"] = p.min;
      j["max"] = p.max;
      j["integer"] = p.integer;
      j["default_text"] = units::format(p.def, p.unit.empty() ? "count" : p.unit);
      break;
    case Param::Kind::Text:
      j["kind"] = "text";
      j["default"] = p.def_text;
      break;
    case Param::Kind::Choice:
      j["kind"] = "choice";
      j["default"] = p.def_text;
      j["choices"] = p.choices;
      if (p.chip) j["chip"] = true;
      break;
  }
  return j;
}

json schema_json(const std::vector<Param>& params) {
  json a = json::array();
  for (const auto& p : params) a.push_back(to_json(p));
  return a;
}

json to_json(const Slot& s) {
  json j = {{"name", s.name}, {"unit", s.unit}, {"label", s.label.empty() ? s.name : s.label},
            {"tol_rel", s.tol_rel}};
  j["kind"] = s.kind == Slot::Kind::Formula ? "formula" : s.kind == Slot::Kind::Bool ? "bool" : "number";
  if (s.kind == Slot::Kind::Formula) {
    json vars = json::array();
    for (const auto& v : s.vars) vars.push_back({{"name", v.name}, {"doc", v.doc}});
    j["vars"] = vars;
  }
  j["symbol"] = units::symbol(s.unit);
  j["example"] = units::example(s.unit);
  return j;
}

json value(double v, std::string_view unit, std::string_view label) {
  const std::string u(unit);
  return {{"value", std::isfinite(v) ? json(v) : json(nullptr)},
          {"unit", u},
          {"label", std::string(label)},
          {"text", units::format(v, u)}};
}

}  // namespace sb
