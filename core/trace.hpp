// The derivation of a result: the steps a reader would write down, each as the formula (TeX),
// the same formula with numbers substituted (TeX), and the value with its unit.
#pragma once
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>

#include "core/formula.hpp"
#include "core/json.hpp"

namespace sb {

// Text that is usually a literal. Records and call sites pass views, not std::string, so that
// they build no temporaries (smaller and faster code, in wasm above all).
using Text = std::string_view;

class Trace {
 public:
  // A step made from a formula record: the value is the record's function at x (given in the
  // order of its args), the formula's TeX is the record's, the numbers are x substituted, and the
  // JSON adds "expr", "values" (each argument's number, full precision) and "section".
  double step(Text what, const Formula& f, std::initializer_list<double> x);
  // A named earlier value, for sum() and max().
  struct Term {
    Text name;  // a symbol: "P_attn"
    double value;
  };
  // A step that adds up, or takes the largest of, earlier values: its expression is over their
  // names ("P_attn + P_mlp"), with the same JSON as a record's step.
  double sum(Text what, Text name, Text unit, std::initializer_list<Term> terms);
  double max(Text what, Text name, Text unit, std::initializer_list<Term> terms);
  // The same over a list built at run time (the axes of a mesh, the collectives of a plan), and
  // a product of earlier values ("S = N_X N_Y": a dimension's shards, the bytes of a block).
  double sum(Text what, Text name, Text unit, std::span<const Term> terms);
  double max(Text what, Text name, Text unit, std::span<const Term> terms);
  double product(Text what, Text name, Text unit, std::span<const Term> terms);
  double product(Text what, Text name, Text unit, std::initializer_list<Term> terms);
  // A value that no expression gives (a search, a table look-up): words and a value, no formula.
  double value(Text what, double v, Text unit);
  // A sentence with no number (a verdict, an assumption). Math in it, as in every step's `what`,
  // goes between dollar signs as inline TeX ("compute-bound once $B > I_{hw}$"): the page
  // typesets it, the CLI prints it plain. A relation of its own belongs in equation().
  void note(Text text);
  // A relation the derivation uses, typeset, with no value of its own:
  // equation("Weight bytes dominate", "I \approx 2BDF / (b_w DF) = 2B / b_w").
  void equation(Text what, Text formula);
  bool empty() const { return out_.empty(); }
  // The steps as a JSON array: [{"what", "formula", "numbers", "expr", "values", "value", "unit",
  // "text", "section"}, ...].
  void write(Out& out) const { out << '[' << out_.view() << ']'; }
  json to_json() const;

 private:
  // Everything of a step but its numbers, which the two forms of step() write.
  void open(Text what, Text formula);
  void close(Text formula, double value, Text unit, Text section = {});
  void value_member(Text name, double v);  // one "name":number of "values"
  enum class Combine { Sum, Max, Product };
  double combine(Text what, Text name, Text unit, std::span<const Term> terms, Combine how);
  Out out_;      // the steps, already JSON, separated by commas
  Out scratch_;  // a pattern step's numbers before escaping
};

// A number for TeX: 1.97e14 -> "1.97 \times 10^{14}", 240.24 -> "240.2", 8192 -> "8192".
std::string tex(double value, int sig = 4);
// The same appended to `out`, with no string of its own (every number of a step's numbers).
void append_tex(Out& out, double value, int sig = 4);
// "\frac{a}{b}", and a product of numbers "2 \cdot 512 \cdot 8192", for a step's numbers.
std::string tex_frac(Text num, Text den);
std::string tex_prod(std::initializer_list<double> xs);
// The pattern form above: "\\frac{#}{#}" with {a, b} -> "\frac{a}{b}".
std::string tex_fill(Text pattern, std::initializer_list<double> xs);

}  // namespace sb
