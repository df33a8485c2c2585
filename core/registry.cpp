#include "core/registry.hpp"

#include <cmath>
#include <set>
#include <stdexcept>

#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/units.hpp"

namespace sb {

// Generated per program by CMakeLists.txt (gen/chapters_*.cpp): every chapter natively, one in
// each wasm module.
void register_chapters(Registry& r);

std::vector<std::string> choices_of(const Param& p) {
  if (p.chip) return hw::chip_ids();
  if (p.dtype) return hw::dtypes();
  if (p.source) return p.source->values();
  std::vector<std::string> out;
  for (size_t at = 0; at <= p.choices.size();) {
    size_t bar = p.choices.find('|', at);
    if (bar == Text::npos) bar = p.choices.size();
    out.emplace_back(p.choices.substr(at, bar - at));
    at = bar + 1;
  }
  return out;
}

namespace {

// x as an error message shows it: in the param's unit with 4 digits, or with every digit where
// those 4 would read as `bound` (1e7 + 0.5 is not "1e7"; 512.0000000000001 is not "512").
std::string shown(double x, const Param& p, double bound) {
  const std::string_view unit = p.unit.empty() ? "count" : p.unit;
  const std::string t = units::format(x, unit);
  if (t != units::format(bound, unit)) return t;
  return units::number(x, 17) + (units::symbol(unit).empty() ? "" : " " + units::symbol(unit));
}

double number_from(const Param& p, const json& v) {
  const std::string name(p.name);
  const std::string_view unit = p.unit.empty() ? "count" : p.unit;
  double x = 0;
  if (v.is_number()) {
    x = v.get<double>();
  } else if (v.is_string()) {
    x = units::parse(v.get<std::string>(), unit, p.name);
  } else {
    fail(p.name,
         name + " must be a number" +
             (unit == "count" ? "" : " (or text like '" + units::example(unit) + "')") + ", got " +
             std::string(v.type_name()),
         "wrong_type");
  }
  if (!std::isfinite(x)) fail(p.name, name + " must be a finite number", "bad_number");
  if (p.positive && x <= 0)
    fail(p.name, name + " must be greater than zero, got " + shown(x, p, 0), "out_of_range");
  if (x < p.min)
    fail(p.name,
         name + " must be at least " + units::format(p.min, unit) + ", got " + shown(x, p, p.min),
         "out_of_range");
  if (x > p.max)
    fail(p.name,
         name + " must be at most " + units::format(p.max, unit) + ", got " + shown(x, p, p.max),
         "out_of_range");
  if (p.integer && std::floor(x) != x)
    fail(p.name, name + " must be a whole number, got " + units::number(x, 17), "not_integer");
  return x;
}

std::string text_from(const Param& p, const json& v) {
  const std::string name(p.name);
  if (!v.is_string())
    fail(p.name, name + " must be text, got " + std::string(v.type_name()), "wrong_type");
  std::string s = v.get<std::string>();
  if (p.long_text) return s;
  if (s.size() > 500) fail(p.name, name + " is too long (over 500 characters)", "too_long");
  if (p.chip) return hw::chip(s, p.name).id;
  if (p.source) return p.source->resolve(s, p.name);
  if (p.kind == Param::Kind::Choice) {
    const std::vector<std::string> choices = choices_of(p);
    for (const auto& c : choices)
      if (c == s) return s;
    std::string all;
    for (const auto& c : choices) all += (all.empty() ? "" : ", ") + c;
    fail(p.name, name + " must be one of " + all + "; got '" + s + "'", "bad_choice");
  }
  return s;
}

// The caps of a text input, the same whether it came as request text (core/api.cpp reads one
// long string in "inputs") or as a tree (the CLI): kLongTextBytes for a long text, kStringBytes
// for any other.
void check_length(const Param& p, const json& v) {
  if (!v.is_string()) return;
  const size_t cap = p.long_text ? kLongTextBytes : kStringBytes;
  if (v.get_ref<const std::string&>().size() > cap)
    fail(p.name,
         "the text of " + std::string(p.name) + " is over " + std::to_string(cap) + " bytes long",
         "too_large");
}

}  // namespace

Inputs::Inputs(std::span<const Param> schema, const json& given) {
  if (!given.is_null() && !given.is_object())
    fail("inputs", "inputs must be a JSON object of name: value", "wrong_type");
  if (given.is_object()) {
    for (auto it = given.begin(); it != given.end(); ++it) {
      bool found = false;
      for (const auto& p : schema) found = found || p.name == it.key();
      if (!found) {
        std::string all;
        for (const auto& p : schema) (all += all.empty() ? "" : ", ") += p.name;
        std::string key = it.key().size() > 60 ? it.key().substr(0, 60) + "..." : it.key();
        fail(key, "unknown input '" + key + "'; this takes: " + all, "unknown_input");
      }
    }
  }
  values_.reserve(schema.size());
  for (const auto& p : schema) {
    bool has = given.is_object() && given.contains(p.name) && !given[p.name].is_null();
    if (has) check_length(p, given[p.name]);
    Value& v = values_.emplace_back();
    v.name = p.name;
    v.long_text = p.long_text;
    if (p.kind == Param::Kind::Number) {
      v.num = has ? number_from(p, given[p.name]) : p.def;
    } else {
      v.is_text = true;
      v.text = has ? text_from(p, given[p.name]) : std::string(p.def_text);
    }
  }
}

const Inputs::Value& Inputs::find(Text name, bool is_text) const {
  for (const auto& v : values_)
    if (v.name == name && v.is_text == is_text) return v;
  fail(name,
       std::string("internal: no ") + (is_text ? "text" : "number") + " input '" +
           std::string(name) + "'",
       "internal");
}

double Inputs::num(Text name) const { return find(name, false).num; }
const std::string& Inputs::text(Text name) const { return find(name, true).text; }

json Inputs::all() const {
  json out = json::object();
  for (const auto& v : values_) {
    if (v.long_text) continue;  // as write() does
    if (v.is_text)
      out[std::string(v.name)] = v.text;
    else
      out[std::string(v.name)] = v.num;
  }
  return out;
}

void Inputs::write(Out& out) const {
  out << '{';
  bool first = true;
  for (size_t i = 0; i < values_.size(); ++i) {
    if (values_[i].long_text) continue;  // the caller has it; echoed it would double a response
    if (!first) out << ',';
    first = false;
    append_json(out, values_[i].name);
    out << ':';
    if (values_[i].is_text)
      append_json(out, Text(values_[i].text));
    else
      append_json(out, values_[i].num);
  }
  out << '}';
}

double Result::value(Text key, double v, Text unit, Text label) {
  if (!values_.empty()) values_ << ',';
  append_json(values_, key);
  values_ << ":{\"value\":";
  append_json(values_, v);
  values_ << ",\"unit\":";
  append_json(values_, unit);
  values_ << ",\"label\":";
  append_json(values_, label);
  values_ << ",\"text\":";
  char buf[units::kFormatRoom];
  append_json(values_, Text(buf, units::write_format(buf, v, unit)));
  values_ << '}';
  return v;
}

void Result::note(Text text) {
  if (!notes_.empty()) notes_ << ',';
  append_json(notes_, text);
}

Out& Result::member(Text key) {
  members_ << ',';
  append_json(members_, key);
  members_ << ':';
  return members_;
}

void Result::write_members(Out& out) const {
  out << "\"values\":{" << values_.view() << "},\"notes\":[" << notes_.view() << ']';
  for (auto it = extra.begin(); it != extra.end(); ++it) {
    out << ',';
    append_json(out, std::string_view(it.key()));
    out << ':';
    append_json(out, it.value());
  }
  out << members_.view();
}

const Registry& Registry::get() {
  static const Registry* r = [] {
    auto* reg = new Registry();
    register_chapters(*reg);
    return reg;
  }();
  return *r;
}

namespace {

// A mistake in a chapter's records, found at registration.
[[noreturn]] void bad_record(Text what, Text name, Text chapter) {
  std::string m;
  for (Text t :
       {Text("registry: "), what, Text(" '"), name, Text("' (chapter "), chapter, Text(")")})
    m.append(t.data(), t.size());
  throw std::logic_error(m);
}

// "roofline.matmul" belongs to the chapter with prefix "roofline".
void check_prefix(const Chapter& ch, Text name) {
  if (name.size() <= ch.prefix.size() || name.substr(0, ch.prefix.size()) != ch.prefix ||
      name[ch.prefix.size()] != '.')
    bad_record("name without the chapter's prefix and a '.'", name, ch.id);
}

}  // namespace

void Registry::add(const Chapter& c) {
  for (const Chapter& other : chapters_)
    if (other.id == c.id || other.prefix == c.prefix)
      bad_record("chapter id or prefix taken twice", c.prefix, c.id);
  chapters_.push_back(c);
}

const Chapter& Registry::current(Text what) const {
  if (chapters_.empty()) bad_record("added before any chapter record", what, "");
  return chapters_.back();
}

void Registry::add(std::span<const Calculator> cs) {
  const Chapter& ch = current("a calculator");
  for (Calculator c : cs) {
    check_prefix(ch, c.name);
    int long_texts = 0;
    for (const Param& p : c.params) long_texts += p.long_text;
    if (long_texts > 1) bad_record("calculator with more than one long text", c.name, ch.id);
    if (!c.run && !c.heavy) bad_record("calculator with no run that is not heavy", c.name, ch.id);
    for (const Calculator& other : calcs_)
      if (!c.command.empty() && other.command == c.command)
        bad_record("CLI command taken twice", c.command, ch.id);
    c.chapter = ch.id;
    calcs_.push_back(c);
  }
}

void Registry::add(std::span<const Problem> ps) {
  const Chapter& ch = current("a problem");
  for (Problem p : ps) {
    check_prefix(ch, p.id);
    p.chapter = ch.id;
    problems_.push_back(p);
  }
}

void Registry::add(Formulas fs) {
  const Chapter& ch = current("a formula");
  for (const Formula* f : fs) {
    for (const FormulaEntry& e : formulas_)
      if (e.f == f) bad_record("formula record added twice", f->name, f->expr);
    formulas_.push_back({ch.id, f});
  }
}

void Registry::add_run(Text name, Calculator::Run run) {
  for (auto& c : calcs_)
    if (c.name == name && c.heavy && !c.run) {
      c.run = run;
      return;
    }
  bad_record("run for no heavy calculator without one", name, current("a run").id);
}

const Calculator& Registry::calculator(Text name) const {
  for (const auto& c : calcs_)
    if (c.name == name) return c;
  std::string n(name.substr(0, 80));
  if (name.size() > 80) n += "...";
  fail("name", "no calculator named '" + n + "' (scaling list shows them)", "unknown_calculator");
}

const Problem& Registry::problem(Text id) const {
  for (const auto& p : problems_)
    if (p.id == id) return p;
  std::string n(id.substr(0, 80));
  if (id.size() > 80) n += "...";
  fail("id", "no problem with id '" + n + "' (scaling list shows them)", "unknown_problem");
}

void Answers::book(Text slot, double value, Text shortcut) {
  if (std::isfinite(value)) books_.push_back({std::string(slot), value, std::string(shortcut)});
}

void Answers::slip(Text slot, double value, Text hint) {
  if (std::isfinite(value)) slips_.push_back({std::string(slot), value, std::string(hint)});
}

Quantity quantity_of(const Slot& s) {
  if (s.quantity != Quantity::Auto) return s.quantity;
  if (s.kind == Slot::Kind::Bool) return Quantity::Bool;
  struct Pair {
    Text unit;
    Quantity q;
  };
  static constexpr Pair kByUnit[] = {{"flop", Quantity::Flops},
                                     {"B", Quantity::Bytes},
                                     {"s", Quantity::Time},
                                     {"B_per_s", Quantity::Bandwidth},
                                     {"flop_per_s", Quantity::FlopRate},
                                     {"flop_per_B", Quantity::Intensity},
                                     {"tokens", Quantity::Tokens},
                                     {"count", Quantity::Count},
                                     {"params", Quantity::Count},
                                     {"chips", Quantity::Count},
                                     {"bool", Quantity::Bool},
                                     {"usd", Quantity::Money},
                                     {"usd_per_hour", Quantity::Money}};
  for (const auto& [unit, q] : kByUnit)
    if (s.unit == unit) return q;
  return Quantity::Ratio;
}

const char* quantity_id(Quantity q) {
  switch (q) {
    case Quantity::Auto:
      return "auto";
    case Quantity::Flops:
      return "flops";
    case Quantity::Bytes:
      return "bytes";
    case Quantity::Time:
      return "time";
    case Quantity::Bandwidth:
      return "bandwidth";
    case Quantity::FlopRate:
      return "flop_rate";
    case Quantity::Intensity:
      return "intensity";
    case Quantity::Hops:
      return "hops";
    case Quantity::Tokens:
      return "tokens";
    case Quantity::Count:
      return "count";
    case Quantity::Ratio:
      return "ratio";
    case Quantity::Bool:
      return "bool";
    case Quantity::Money:
      return "money";
  }
  return "ratio";
}

const char* from_id(From f) {
  switch (f) {
    case From::None:
      return "none";
    case From::Flops:
      return "flops";
    case From::Bytes:
      return "bytes";
    case From::Link:
      return "link";
  }
  return "none";
}

const char* bound_id(Slot::Bound b) {
  switch (b) {
    case Slot::Bound::None:
      return "none";
    case Slot::Bound::Upper:
      return "upper";
    case Slot::Bound::Lower:
      return "lower";
  }
  return "none";
}

json to_json(const Param& p) {
  json j = json::object();
  j["name"] = p.name;
  j["doc"] = p.doc;
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
      if (p.long_text) {
        j["long_text"] = true;
        j["max_bytes"] = kLongTextBytes;
      }
      break;
    case Param::Kind::Choice:
      j["kind"] = "choice";
      j["default"] = p.def_text;
      j["choices"] = choices_of(p);
      if (p.chip) j["chip"] = true;
      if (p.source && p.source->label) {
        json labels = json::array();
        for (const json& c : j["choices"]) labels.push_back(p.source->label(c.get<std::string>()));
        j["labels"] = std::move(labels);
      }
      break;
  }
  if (!p.chip_spec.empty()) j["chip_spec"] = p.chip_spec;
  return j;
}

json schema_json(std::span<const Param> params) {
  json a = json::array();
  for (const auto& p : params) a.push_back(to_json(p));
  return a;
}

json to_json(const Slot& s) {
  json j = json::object();
  j["name"] = s.name;
  j["unit"] = s.unit;
  j["label"] = s.label.empty() ? s.name : s.label;
  j["tol_rel"] = s.tol_rel;
  j["kind"] = s.kind == Slot::Kind::Formula ? "formula"
              : s.kind == Slot::Kind::Bool  ? "bool"
                                            : "number";
  j["quantity"] = quantity_id(quantity_of(s));
  j["from"] = from_id(s.from);
  j["bound"] = bound_id(s.bound);
  if (s.kind == Slot::Kind::Formula) {
    json vars = json::array();
    for (const auto& v : s.vars) vars.push_back({{"name", v.name}, {"doc", v.doc}});
    j["vars"] = vars;
  }
  j["symbol"] = units::symbol(s.unit);
  j["example"] = units::example(s.unit);
  return j;
}

json value(double v, Text unit, Text label) {
  json j = json::object();  // member by member: less module code than an initializer list
  j["value"] = std::isfinite(v) ? json(v) : json(nullptr);
  j["unit"] = unit;
  j["label"] = label;
  j["text"] = units::format(v, unit);
  return j;
}

}  // namespace sb
