// Named calculators and problems with the schema of their inputs. CLI flags, web forms, the
// JSON entry point and the tests all come from these records, so nothing is declared twice.
#pragma once
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include "core/json.hpp"
#include "core/trace.hpp"

namespace sb {

// One input of a calculator or problem.
struct Param {
  enum class Kind { Number, Text, Choice };
  std::string name;         // "B", "chip", "dtype_w"
  Kind kind = Kind::Number;
  std::string unit;         // units id for numbers ("count", "B_per_s"); "" for text
  std::string doc;          // one line for --help and form tooltips
  double def = 0;           // default for numbers
  std::string def_text;     // default for text and choices
  double min = 0;           // numbers: allowed closed range
  double max = 1e30;
  bool positive = true;     // numbers: must be > 0 (zero is meaningless for most sizes);
                            // set false where zero is allowed (a latency, a coordinate)
  bool integer = false;     // numbers: must be a whole number
  std::vector<std::string> choices;  // Choice: allowed values ("bf16", "int8", ...)
  bool chip = false;        // a chip id: any id or alias of core/hardware, resolved to the id
  std::vector<double> variants;      // problems: values "new variant" may draw from
};

// Helpers that keep schema declarations short. They take string_views so that a call site passes
// a pointer to a literal instead of building std::string temporaries inline (smaller wasm).
Param num(std::string_view name, std::string_view unit, double def, std::string_view doc,
          double min = 0, double max = 1e30, bool integer = false);
Param text(std::string_view name, std::string_view def, std::string_view doc);
Param choice(std::string_view name, std::string_view def, std::vector<std::string> choices,
             std::string_view doc);
Param chip_param(std::string_view def = "v5e", std::string_view doc = "chip from the hardware tables");
Param dtype_param(std::string_view name, std::string_view def, std::string_view doc);

// The values "new variant" may draw from: a braced list at the call site or a vector. Only a view;
// the makers copy it.
struct Variants {
  Variants() = default;
  Variants(std::initializer_list<double> v) : list(v) {}
  Variants(const std::vector<double>& v) : vec(&v) {}
  std::initializer_list<double> list;
  const std::vector<double>* vec = nullptr;
};

// Problem inputs. `given`: a number with the book's default (>= 0, up to max).
Param given(std::string_view name, std::string_view unit, double def, std::string_view doc,
            Variants variants = {}, bool integer = false, double max = 1e30);
// A whole-number count (unit "count") in [min, max]; the default bounds keep products of sizes
// finite doubles.
Param count(std::string_view name, double def, std::string_view doc, Variants variants = {},
            double min = 1, double max = 1e7);
Param with_variants(Param p, Variants variants);

// Validated inputs: defaults merged with what the caller gave. Every getter names the field in
// its error. Numbers may arrive as JSON numbers or as strings with units ("45 GB/s").
class Inputs {
 public:
  Inputs(const std::vector<Param>& schema, const json& given);
  // Names are views so that `in.num("B")` builds no std::string at every call site.
  double num(std::string_view name) const;
  std::string text(std::string_view name) const;
  const json& all() const { return values_; }  // the resolved inputs, for echoing back

 private:
  json values_;
};

struct Calculator {
  std::string name;     // "roofline.matmul"
  std::string chapter;  // "roofline"
  std::string title;
  std::string doc;
  std::vector<Param> params;
  // Returns {"values": {name: {"value", "unit", "label"}}, "verdict": "...", ...}; records the
  // derivation in the trace. Throws InputError for inputs it cannot use.
  std::function<json(const Inputs&, Trace&)> run;
};

// One answer a reader gives.
struct Slot {
  enum class Kind { Number, Formula, Bool };
  std::string name;     // as in the catalogue: "b_crit"
  std::string unit;     // units id
  Kind kind = Kind::Number;
  std::string label;    // what the input is labelled with on the page
  double tol_rel = 0.02;
  // Formula slots: the book's symbols (name, what it means, sampling range for grading) and the
  // model evaluated at a point. The expected expression is the model itself, never a string.
  struct Var { std::string name, doc; double lo = 1, hi = 1e4; };
  std::vector<Var> vars;
  // A plain function (a lambda without captures): a std::function per slot and per problem cost
  // the wasm module a set of virtual helpers each.
  using Formula = double (*)(const std::map<std::string, double>&);
  Formula formula = nullptr;
  std::string formula_tex;  // how the derivation shows the expected formula
  // Extra factor hints for this slot, e.g. {N/(N-1), "used N where N-1 belongs"}.
  std::vector<std::pair<double, std::string>> hints;
};

using Answers = std::map<std::string, double>;
using Hints = std::vector<std::pair<double, std::string>>;

// Answer slots of a problem.
Slot number(std::string_view name, std::string_view unit, std::string_view label, double tol_rel = 0.02);
Slot boolean(std::string_view name, std::string_view label);  // unit "bool"
Slot formula(std::string_view name, std::string_view unit, std::string_view label,
             std::vector<Slot::Var> vars, Slot::Formula f, std::string_view formula_tex);
Slot hinted(Slot s, Hints hints);

struct Problem {
  std::string id;        // "roofline.Q2"
  std::string chapter;   // "roofline"
  std::string title;
  std::string statement; // our own words; may use {name} to show an input's value
  std::string kind;      // "numeric", "formula", "conceptual", "code"
  std::vector<Param> given;  // the problem's inputs, defaults = the book's values
  std::vector<Slot> slots;
  // Computes every Number and Bool slot from the inputs by calling the chapter model.
  using Solve = Answers (*)(const Inputs&, Trace&);
  Solve solve = nullptr;
  std::string model_answer;  // conceptual questions: a short answer in our words
  std::string erratum;       // where the book's printed answer differs, and why
  std::string hint;          // a nudge shown on request
};

// A problem's header; the chapter is taken from the id ("tpus.E1" -> "tpus") when it is added.
Problem problem(std::string_view id, std::string_view title, std::string_view kind,
                std::string_view statement);

class Registry {
 public:
  static Registry& get();  // filled once with every chapter (chapters/all.cpp)
  void add(Calculator c);
  void add(Problem p);  // an empty chapter is filled from the id's prefix
  const Calculator& calculator(const std::string& name) const;  // InputError if unknown
  const Problem& problem(const std::string& id) const;          // InputError if unknown
  const std::vector<Calculator>& calculators() const { return calcs_; }
  const std::vector<Problem>& problems() const { return problems_; }

 private:
  std::vector<Calculator> calcs_;
  std::vector<Problem> problems_;
};

// Schema as JSON, for the web forms and the CLI's --help.
json to_json(const Param& p);
json schema_json(const std::vector<Param>& params);
json to_json(const Slot& s);

// A result value for a calculator's output: {"value", "unit", "label", "text"}.
json value(double v, std::string_view unit, std::string_view label);

}  // namespace sb
