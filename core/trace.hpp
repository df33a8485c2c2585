// The derivation of a result: the steps a reader would write down, each as the formula (TeX),
// the same formula with numbers substituted (TeX), and the value with its unit.
#pragma once
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>
#include "core/json.hpp"

namespace sb {

struct Step {
  std::string what;      // "Arithmetic intensity"
  std::string formula;   // TeX: "I = \frac{2BDF}{2BD + DF + 2BF}"
  std::string numbers;   // TeX: "\frac{2 \cdot 512 \cdot 8192 \cdot 32768}{\ldots}"
  double value = 0;
  std::string unit;      // a units id; "" for a step with no single value
};

class Trace {
 public:
  // Records a step and returns its value, so a model can write `t = tr.step(...)`.
  // The literal parts are views so that call sites build no std::string temporaries.
  double step(std::string_view what, std::string_view formula, std::string numbers, double value,
              std::string_view unit);
  // A sentence with no number (a verdict, an assumption).
  void note(std::string text);
  const std::vector<Step>& steps() const { return steps_; }
  json to_json() const;

 private:
  std::vector<Step> steps_;
};

// A number for TeX: 1.97e14 -> "1.97 \times 10^{14}", 240.24 -> "240.2", 8192 -> "8192".
std::string tex(double value, int sig = 4);
// "\frac{a}{b}", and a product of numbers "2 \cdot 512 \cdot 8192", for a step's numbers.
std::string tex_frac(const std::string& num, const std::string& den);
std::string tex_prod(std::initializer_list<double> xs);

}  // namespace sb
