// Named calculators and problems with the schema of their inputs. CLI flags, web forms, the
// JSON entry point and the tests all come from these records, so nothing is declared twice.
#pragma once
#include <functional>
#include <limits>
#include <map>
#include <string>
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

// Helpers that keep schema declarations short.
Param num(std::string name, std::string unit, double def, std::string doc, double min = 0,
          double max = 1e30, bool integer = false);
Param text(std::string name, std::string def, std::string doc);
Param choice(std::string name, std::string def, std::vector<std::string> choices, std::string doc);
Param chip_param(std::string def = "v5e", std::string doc = "chip from the hardware tables");
Param dtype_param(std::string name, std::string def, std::string doc);

// Validated inputs: defaults merged with what the caller gave. Every getter names the field in
// its error. Numbers may arrive as JSON numbers or as strings with units ("45 GB/s").
class Inputs {
 public:
  Inputs(const std::vector<Param>& schema, const json& given);
  double num(const std::string& name) const;
  std::string text(const std::string& name) const;
  const json& all() const { return values_; }  // the resolved inputs, for echoing back

 private:
  const std::vector<Param>* schema_;
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
  std::function<double(const std::map<std::string, double>&)> formula;
  std::string formula_tex;  // how the derivation shows the expected formula
  // Extra factor hints for this slot, e.g. {N/(N-1), "used N where N-1 belongs"}.
  std::vector<std::pair<double, std::string>> hints;
};

using Answers = std::map<std::string, double>;

struct Problem {
  std::string id;        // "roofline.Q2"
  std::string chapter;   // "roofline"
  std::string title;
  std::string statement; // our own words; may use {name} to show an input's value
  std::string kind;      // "numeric", "formula", "conceptual", "code"
  std::vector<Param> given;  // the problem's inputs, defaults = the book's values
  std::vector<Slot> slots;
  // Computes every Number and Bool slot from the inputs by calling the chapter model.
  std::function<Answers(const Inputs&, Trace&)> solve;
  std::string model_answer;  // conceptual questions: a short answer in our words
  std::string erratum;       // where the book's printed answer differs, and why
  std::string hint;          // a nudge shown on request
};

class Registry {
 public:
  static Registry& get();  // filled once with every chapter (chapters/all.cpp)
  void add(Calculator c);
  void add(Problem p);
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
json value(double v, const std::string& unit, const std::string& label);

}  // namespace sb
