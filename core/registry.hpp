// Named calculators and problems with the schema of their inputs. CLI flags, web forms, the
// JSON entry point and the tests all come from these records, so nothing is declared twice.
//
// The records are constant data: every text is a literal (Text), every list is a span over a
// constexpr array of the chapter's own (as many items as it needs: no capacity to raise here),
// and the makers below are constexpr. A chapter declares its calculators and problems as
// constexpr arrays, which compile to data instead of to start-up code building strings and
// vectors.
#pragma once
#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"
#include "core/trace.hpp"

namespace sb {

// The values "new variant" may draw from: a constexpr array of the chapter's.
using Variants = std::span<const double>;

// A choice whose values a chapter supplies at run time (the model table's ids), as the hardware
// tables supply the chip param's: the values, the resolver from what a reader types (an alias, a
// name, any case) to one of them, and each value's label in words. The chapter defines one as a
// constexpr object over its own functions and points its params at it (Param::source).
struct ChoiceSource {
  std::vector<std::string> (*values)() = nullptr;
  // The value `text` names; an InputError naming `field` (and the valid values) when none.
  std::string (*resolve)(std::string_view text, std::string_view field) = nullptr;
  std::string (*label)(std::string_view value) = nullptr;  // "LLaMA 3 70B" for "llama-3-70b"
};

// One input of a calculator or problem. A default Param is all zeros (the makers fill in the
// rest).
struct Param {
  enum class Kind : unsigned char { Number, Text, Choice };
  Text name;  // "B", "chip", "dtype_w"
  Kind kind = Kind::Number;
  Text unit;       // units id for numbers ("count", "B_per_s"); "" for text
  Text doc;        // one line for --help and form tooltips
  double def = 0;  // default for numbers
  Text def_text;   // default for text and choices
  double min = 0;  // numbers: allowed closed range (num() sets both)
  double max = 0;
  bool positive = false;   // numbers: must be > 0 (num() sets it: zero is meaningless for
                           // most sizes); set false where zero is allowed (a latency, a coordinate)
  bool integer = false;    // numbers: must be a whole number
  bool chip = false;       // a chip id: any id or alias of core/hardware, resolved to the id
  bool dtype = false;      // a dtype of the hardware tables ("fp32", "bf16", ...)
  bool long_text = false;  // Text: a pasted log or module, up to kLongTextBytes (long_text())
  Text choices;            // Choice: the allowed values separated by '|': "hbm|vmem"
  const ChoiceSource* source = nullptr;  // Choice: values a chapter supplies instead of `choices`
  Variants variants;                     // problems: values "new variant" may draw from
  std::span<const Text> text_variants;   // problems: the same for a text given
  // Problems: the key of a chip spec this given states ("hbm_bw", "peak_flops_bf16"; see
  // data/chips.json), or a ratio of two ("peak_flops_int8/peak_flops_bf16"). A variant draws one
  // real chip that has every such spec of the problem and gives all of them that chip's values
  // together, so that no variant mixes two chips; the problem's chip param takes that chip.
  Text chip_spec;
  // Problems: givens of one group draw the same position of their variant lists (which have
  // equal lengths), for values that go together: an array's text and its bytes.
  Text linked;
};

// The allowed values of a choice (for a chip or dtype param: the hardware tables').
std::vector<std::string> choices_of(const Param& p);

// Makers that keep schema declarations short.
constexpr Param num(Text name, Text unit, double def, Text doc, double min = 0, double max = 1e30,
                    bool integer = false) {
  Param p;
  p.name = name;
  p.unit = unit;
  p.def = def;
  p.doc = doc;
  p.min = min;
  p.max = max;
  p.positive = true;
  p.integer = integer;
  return p;
}
constexpr Param text(Text name, Text def, Text doc) {
  Param p;
  p.name = name;
  p.kind = Param::Kind::Text;
  p.def_text = def;
  p.doc = doc;
  return p;
}
// A long text: a pasted log or HLO module of up to kLongTextBytes (16 MiB; every other text
// stays within 500 bytes). The page sends it in the request like any input; the CLI reads it
// from a file (`--NAME FILE`, or the FILE of the calculator's `command`). It is not echoed in a
// response's inputs. A calculator takes at most one.
constexpr Param long_text(Text name, Text doc) {
  Param p = text(name, "", doc);
  p.long_text = true;
  return p;
}
constexpr Param choice(Text name, Text def, Text choices, Text doc) {
  Param p = text(name, def, doc);
  p.kind = Param::Kind::Choice;
  p.choices = choices;
  return p;
}
constexpr Param chip_param(Text def = "v5e", Text doc = "chip from the hardware tables") {
  Param p = choice("chip", def, "", doc);
  p.chip = true;
  return p;
}
// A choice among the values a chapter supplies: sourced("model", "llama-3-70b", kModels, "...").
constexpr Param sourced(Text name, Text def, const ChoiceSource& source, Text doc) {
  Param p = choice(name, def, "", doc);
  p.source = &source;
  return p;
}
constexpr Param dtype_param(Text name, Text def, Text doc) {
  Param p = choice(name, def, "", doc);
  p.dtype = true;
  return p;
}
constexpr Param with_variants(Param p, Variants v) {
  p.variants = v;
  return p;
}
constexpr Param with_texts(Param p, std::span<const Text> v) {
  p.text_variants = v;
  return p;
}
// Givens that vary together: linked(with_texts(text("a", ...), kAs), "array").
constexpr Param linked(Param p, Text group) {
  p.linked = group;
  return p;
}
// A given that is a fact of the chip: chip_spec(given("hbm_bw_Bps", ...), "hbm_bw").
constexpr Param chip_spec(Param p, Text key) {
  p.chip_spec = key;
  return p;
}
// Problem inputs. `given`: a number with the book's default (>= 0, up to max).
constexpr Param given(Text name, Text unit, double def, Text doc, Variants variants = {},
                      bool integer = false, double max = 1e30) {
  return with_variants(num(name, unit, def, doc, 0, max, integer), variants);
}
// A whole-number count (unit "count") in [min, max]; the default bounds keep products of sizes
// finite doubles.
constexpr Param count(Text name, double def, Text doc, Variants variants = {}, double min = 1,
                      double max = 1e7) {
  return with_variants(num(name, "count", def, doc, min, max, true), variants);
}

// Problem givens in ranges that keep every answer a finite number (for any chapter; fuzz_calc
// draws across them): rates (FLOPs/s, B/s) from 1 to 1e20, memory sizes up to 1e15 B, bytes per
// parameter 1/8 to 64, parameter counts up to 1e15, MFU from 0.1% to 100%, tokens up to 1e16.
constexpr Param ranged(Text name, Text unit, double def, Text doc, double lo, double hi,
                       Variants v = {}) {
  return with_variants(num(name, unit, def, doc, lo, hi), v);
}
constexpr Param rate(Text name, Text unit, double def, Text doc, Variants v = {}) {
  return ranged(name, unit, def, doc, 1, 1e20, v);
}
constexpr Param memory(Text name, double def, Text doc, Variants v = {}) {
  return ranged(name, "B", def, doc, 1, 1e15, v);
}
constexpr Param per_param(Text name, double def, Text doc, Variants v = {}) {
  return ranged(name, "B", def, doc, 0.125, 64, v);
}
constexpr Param param_count(Text name, double def, Text doc, Variants v = {}) {
  return ranged(name, "params", def, doc, 1, 1e15, v);
}
constexpr Param mfu_given(double def, Variants v = {}) {
  return ranged("mfu", "ratio", def, "model FLOPs utilisation", 1e-3, 1, v);
}
constexpr Param tokens(Text name, double def, Text doc, Variants v = {}) {
  return ranged(name, "tokens", def, doc, 1, 1e16, v);
}
constexpr Param chip_count(Text name, double def, Text doc, Variants v = {}) {
  Param p = count(name, def, doc, v, 1, 1e8);
  p.unit = "chips";
  return p;
}

// Validated inputs: defaults merged with what the caller gave. Every getter names the field in
// its error. Numbers may arrive as JSON numbers or as strings with units ("45 GB/s").
class Inputs {
 public:
  Inputs(std::span<const Param> schema, const json& given);
  double num(Text name) const;
  const std::string& text(Text name) const;
  json all() const;            // the resolved inputs, for echoing back
  void write(Out& out) const;  // the same, as a JSON object written to `out`

 private:
  // A flat list in schema order, not a JSON object: a calculator call looks its inputs up a
  // dozen times and builds nothing for it (bench/NOTES.md has the measurement).
  struct Value {
    Text name;
    bool is_text = false;
    bool long_text = false;
    double num = 0;
    std::string text;
  };
  const Value& find(Text name, bool is_text) const;
  std::vector<Value> values_;
};

// What a calculator gives besides its derivation: named values, notes, and the structured
// extras a page draws (roofs, plans, a torus). Values and notes go straight to JSON text: a
// call writes dozens of them and never reads them back, and building a JSON tree for them was
// most of a call's time.
class Result {
 public:
  // {"value", "unit", "label", "text"} under `key` of "values"; returns v.
  double value(Text key, double v, Text unit, Text label);
  void note(Text text);
  json extra = json::object();  // further members of the response: {"roofs": [...], ...}
  // A further member the caller writes as JSON text (one value) into the returned buffer, for
  // large arrays such as a plot's curves; it follows the members of `extra`.
  Out& member(Text key);
  // Further members, key then value, written as text by a JsonWriter: like member(), in order.
  JsonWriter writer() { return JsonWriter(members_).inside_object(); }
  // Writes "\"values\":{...},\"notes\":[...]" followed by the members of `extra` and the
  // members written as text.
  void write_members(Out& out) const;

 private:
  Out values_, notes_, members_;
};

struct Calculator {
  Text name;  // "roofline.matmul"
  Text title;
  Text doc;
  std::span<const Param> params;  // a constexpr array of the chapter's
  // Fills the result and records the derivation in the trace. Throws InputError for inputs it
  // cannot use.
  using Run = void (*)(const Inputs&, Trace&, Result&);
  Run run = nullptr;
  // A search whose work grows with its inputs (a planner, a sweep, a pasted log): a page runs it
  // in a Web Worker so that its main thread never waits for it (web/lib/calc.js); `list` says so.
  // A heavy calculator's record leaves `run` empty: the chapter's register_heavy() supplies it
  // (Registry::add_run), and only the chapter's second module, scaling-<id>-problems, which the
  // worker loads, calls that, so the page's first module links none of its code.
  bool heavy = false;
  Text chapter = {};  // "roofline", the chapter id: filled in at registration
  // A command of the CLI's own. With a long_text param, `scaling <command> FILE [--PARAM VALUE
  // ...]` reads FILE into it ("fit-collective"). Without, it runs on its defaults ("models":
  // `scaling models`): the response holds the rows under the same key, printed by --json, and their
  // `table` (texts, the header first), printed plain.
  Text command = {};
};

// One answer a reader gives.
struct Slot {
  enum class Kind : unsigned char { Number, Formula, Bool };
  // What the slot measures, which decides the mistakes a wrong answer is checked for. Auto takes
  // it from the unit: flop -> Flops, B -> Bytes, s -> Time, B_per_s -> Bandwidth, flop_per_s ->
  // FlopRate, flop_per_B -> Intensity, tokens -> Tokens, count and chips -> Count, bool -> Bool,
  // usd -> Money, any other unit -> Ratio. Hops is never automatic: a hop count has unit count.
  enum class Quantity : unsigned char {
    Auto,
    Flops,
    Bytes,
    Time,
    Bandwidth,
    FlopRate,
    Intensity,
    Hops,
    Tokens,
    Count,
    Ratio,
    Bool,
    Money
  };
  // What a time, rate or ratio is computed from: FLOPs (the multiply-add factor fits), bytes
  // (element sizes, bits and binary prefixes fit), a transfer over ICI or DCN links (those, and
  // one-way versus bidirectional) or nothing in particular (only unit prefixes fit).
  enum class From : unsigned char { None, Flops, Bytes, Link };
  // A bound: the answer is at most (Upper) or at least (Lower) the solver's value, and the reader
  // may type the number or the inequality ("8", "< 8", "X <= 8", "at most 8").
  enum class Bound : unsigned char { None, Upper, Lower };
  Text name;  // as in the catalogue: "b_crit"
  Text unit;  // units id
  Kind kind = Kind::Number;
  Quantity quantity = Quantity::Auto;
  From from = From::None;
  Bound bound = Bound::None;
  Text label;  // what the input is labelled with on the page
  // The book writes this quantity with decimal prefixes (GB = 1e9 B, 70B parameters = 70e9): an
  // answer that only matches when read with binary ones (GiB typed as GB) is the GB/GiB slip, with
  // its hint, not the book's reading. Left false, such a reading of a size or count is accepted.
  bool decimal = false;
  double tol_rel = 0;  // relative tolerance; number() sets 0.02 (zero by default, as for Param)
  // Formula slots: the book's symbols (name, what it means, sampling range for grading) and the
  // model evaluated at a point. The expected expression is the model itself, never a string.
  struct Var {
    Text name, doc;
    double lo = 1, hi = 1e4;
  };
  std::span<const Var> vars;  // a constexpr array of the chapter's
  using Formula = double (*)(const std::map<std::string, double>&);
  Formula formula = nullptr;
  Text formula_tex;  // how the derivation shows the expected formula
  // Extra factor hints for this slot, e.g. {2, "a matmul is 2BDF FLOPs"}.
  struct Hint {
    double factor = 0;
    Text text;
  };
  std::span<const Hint> hints;  // a constexpr array of the chapter's
};

using Quantity = Slot::Quantity;
using From = Slot::From;

// What a solver returns: the exact value of each Number and Bool slot (a map, `a["t"] = v`),
// and besides it the values the book's own shortcuts and the recognisable mistakes give. Both
// kinds are computed by the model from the problem's inputs, never typed in, so that a variant
// recomputes them.
class Answers : public std::map<std::string, double, std::less<>> {
 public:
  using Base = std::map<std::string, double, std::less<>>;
  using Base::Base;
  // Another value of `slot` and what it says: the shortcut or the hint.
  struct Alt {
    std::string slot;
    double value = 0;
    std::string text;
  };
  // The value this slot takes under one of the book's own shortcuts, computed by the model with
  // the shortcut's inputs (decimal GB for a binary size, the rounded constant, the dropped term,
  // a constant from another part of the text). An answer within tolerance of it is correct, with
  // a note giving the exact value and `shortcut`, which completes "the book ..." ("reads 2^34 B
  // as 16 GB"). A value that is not finite is left out.
  void book(Text slot, double value, Text shortcut);
  // The value a recognisable mistake gives, computed by the model (N where N-1 belongs, the
  // per-hop latency left out, one-way where the link is bidirectional). An answer within
  // tolerance of it is wrong, with `hint` naming the mistake. A value that is not finite is left
  // out.
  void slip(Text slot, double value, Text hint);
  const std::vector<Alt>& books() const { return books_; }
  const std::vector<Alt>& slips() const { return slips_; }

 private:
  std::vector<Alt> books_, slips_;
};
using Hints = std::span<const Slot::Hint>;

// Answer slots of a problem.
constexpr Slot number(Text name, Text unit, Text label, double tol_rel = 0.02) {
  Slot s;
  s.name = name;
  s.unit = unit;
  s.label = label;
  s.tol_rel = tol_rel;
  return s;
}
constexpr Slot boolean(Text name, Text label) {  // unit "bool"
  Slot s = number(name, "bool", label);
  s.kind = Slot::Kind::Bool;
  return s;
}
constexpr Slot formula(Text name, Text unit, Text label, std::span<const Slot::Var> vars,
                       Slot::Formula f, Text formula_tex) {
  Slot s = number(name, unit, label);
  s.kind = Slot::Kind::Formula;
  s.vars = vars;
  s.formula = f;
  s.formula_tex = formula_tex;
  return s;
}
constexpr Slot hinted(Slot s, Hints hints) {
  s.hints = hints;
  return s;
}
// What a slot measures where the unit does not say it (a hop count: measures(s, Quantity::Hops)).
constexpr Slot measures(Slot s, Quantity q) {
  s.quantity = q;
  return s;
}
// A time, rate or ratio computed from FLOPs, bytes or a transfer over links:
// derived(number("t_comms", "s", "T_comms"), From::Bytes).
constexpr Slot derived(Slot s, From f) {
  s.from = f;
  return s;
}
// Bounds: the solver's value is the largest (at_most) or smallest (at_least) the answer may be.
constexpr Slot at_most(Slot s) {
  s.bound = Slot::Bound::Upper;
  return s;
}
constexpr Slot at_least(Slot s) {
  s.bound = Slot::Bound::Lower;
  return s;
}
// A size or count the book writes with decimal prefixes (see Slot::decimal).
constexpr Slot decimal_prefixes(Slot s) {
  s.decimal = true;
  return s;
}
// The quantity a slot measures, Auto resolved from its unit.
Quantity quantity_of(const Slot& s);
// Lower-case names as the JSON writes them: "flop_rate", "link", "upper"; "none" for From::None
// and Bound::None.
const char* quantity_id(Quantity q);
const char* from_id(From f);
const char* bound_id(Slot::Bound b);

struct Problem {
  Text id;       // "roofline.Q2"
  Text chapter;  // "roofline", the chapter id; filled in at registration
  Text title;
  // Our own words. "{name}" shows an input's value with its unit; "{name|one|many}" writes `one`
  // where that input is 1 and `many` otherwise ("{n_links} {n_links|link|links}": "1 link").
  Text statement;
  Text kind;                     // "numeric", "formula", "conceptual", "code"
  std::span<const Param> given;  // the problem's inputs, defaults = the book's values
  std::span<const Slot> slots;   // the answers it asks for
  // Computes every Number and Bool slot from the inputs by calling the chapter model.
  using Solve = Answers (*)(const Inputs&, Trace&);
  Solve solve = nullptr;
  Text model_answer;  // conceptual questions: a short answer in our words
  Text erratum;       // where the book's printed answer differs, and why
  Text hint;          // a nudge shown on request
};

// A chapter of the book, as chapters/<id>/chapter.json declares it. CMake writes the records into
// the generated gen/chapters_*.cpp, which adds each before calling its register_calculators() and
// register_problems() (the ones its program has: a wasm module has one of the two).
struct Chapter {
  Text id;       // the folder and C++ namespace: "applied_training"
  Text prefix;   // of its problem ids and calculator names: "applied-training" (.Q1, .plan)
  int part = 0;  // the book's chapter number, 1-12
  Text title;    // "Training LLaMA 3 on TPUs"
  Text slug;     // the book's page for it
  std::span<const Text> bases;  // the chapters whose model.hpp it calls
};

class Registry {
 public:
  static const Registry& get();  // filled once with the program's chapters (gen/chapters_*.cpp)
  // A chapter's record; the calculators and problems added after it are that chapter's. Their
  // chapter is filled in, and a name or id that does not start with "<prefix>." is a
  // std::logic_error (a programming mistake, not a reader's), as is a prefix taken twice.
  void add(const Chapter& c);
  void add(std::span<const Calculator> cs);
  void add(std::span<const Problem> ps);
  // The chapter's formula records (model.hpp's kFormulas): its formula sheet, and what the record
  // test draws. A record added twice is a std::logic_error.
  void add(Formulas fs);
  // The run of a heavy calculator added earlier without one (register_heavy); a std::logic_error
  // for a name that is not such a calculator.
  void add_run(Text name, Calculator::Run run);
  const Calculator& calculator(Text name) const;                      // InputError if unknown
  const Problem& problem(Text id) const;                              // InputError if unknown
  const std::vector<Chapter>& chapters() const { return chapters_; }  // in the book's order
  const std::vector<Calculator>& calculators() const { return calcs_; }
  const std::vector<Problem>& problems() const { return problems_; }
  struct FormulaEntry {
    Text chapter;  // the id of the chapter that teaches it
    const Formula* f;
  };
  const std::vector<FormulaEntry>& formulas() const { return formulas_; }

 private:
  const Chapter& current(Text what) const;  // the chapter being registered
  std::vector<Chapter> chapters_;
  std::vector<Calculator> calcs_;
  std::vector<Problem> problems_;
  std::vector<FormulaEntry> formulas_;
};

// Schema as JSON, for the web forms and the CLI's --help.
json to_json(const Param& p);
json schema_json(std::span<const Param> params);
json to_json(const Slot& s);

// A result value: {"value", "unit", "label", "text"}.
json value(double v, Text unit, Text label);

}  // namespace sb
