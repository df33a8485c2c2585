// The derivation of a result: the steps a reader would write down, each as the formula (TeX),
// the same formula with numbers substituted (TeX), and the value with its unit.
#pragma once
#include <initializer_list>
#include <string>
#include <string_view>

#include "core/json.hpp"

namespace sb {

// Text that is usually a literal. Records and call sites pass views, not std::string, so that
// they build no temporaries (smaller and faster code, in wasm above all).
using Text = std::string_view;

class Trace {
 public:
  // Records a step and returns its value, so a model can write `t = tr.step(...)`.
  double step(Text what, Text formula, Text numbers, double value, Text unit);
  // The same with the numbers given as a pattern: each '#' in `pattern` becomes the next of xs
  // typeset by tex(): step("T", "F / W", "\\frac{#}{#}", {flops, bw}, t, "s").
  double step(Text what, Text formula, Text pattern, std::initializer_list<double> xs, double value,
              Text unit);
  // A sentence with no number (a verdict, an assumption). Math in it, as in every step's `what`,
  // goes between dollar signs as inline TeX ("compute-bound once $B > I_{hw}$"): the page
  // typesets it, the CLI prints it plain. A relation of its own belongs in equation().
  void note(Text text);
  // A relation the derivation uses, typeset, with no value of its own:
  // equation("Weight bytes dominate", "I \approx 2BDF / (b_w DF) = 2B / b_w").
  void equation(Text what, Text formula);
  bool empty() const { return out_.empty(); }
  // The steps as a JSON array: [{"what", "formula", "numbers", "value", "unit", "text"}, ...].
  void write(Out& out) const { out << '[' << out_.view() << ']'; }
  json to_json() const;

 private:
  // Everything of a step but its numbers, which the two forms of step() write.
  void open(Text what, Text formula);
  void close(Text formula, double value, Text unit);
  Out out_;      // the steps, already JSON, separated by commas
  Out scratch_;  // a pattern step's numbers before escaping
};

// A number for TeX: 1.97e14 -> "1.97 \times 10^{14}", 240.24 -> "240.2", 8192 -> "8192".
std::string tex(double value, int sig = 4);
// "\frac{a}{b}", and a product of numbers "2 \cdot 512 \cdot 8192", for a step's numbers.
std::string tex_frac(Text num, Text den);
std::string tex_prod(std::initializer_list<double> xs);
// The pattern form above: "\\frac{#}{#}" with {a, b} -> "\frac{a}{b}".
std::string tex_fill(Text pattern, std::initializer_list<double> xs);

}  // namespace sb
