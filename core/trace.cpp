#include "core/trace.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/units.hpp"

namespace sb {

double Trace::step(std::string_view what, std::string_view formula, std::string numbers, double value,
                   std::string_view unit) {
  steps_.push_back({std::string(what), std::string(formula), std::move(numbers), value, std::string(unit)});
  return value;
}

void Trace::note(std::string text) { steps_.push_back({std::move(text), "", "", 0, ""}); }

json Trace::to_json() const {
  json out = json::array();
  for (const auto& s : steps_) {
    json j = {{"what", s.what}};
    if (!s.formula.empty()) j["formula"] = s.formula;
    if (!s.numbers.empty()) j["numbers"] = s.numbers;
    if (!s.formula.empty() || !s.unit.empty()) {
      j["value"] = std::isfinite(s.value) ? json(s.value) : json(nullptr);
      j["unit"] = s.unit;
      j["text"] = units::format(s.value, s.unit.empty() ? "count" : s.unit);
    }
    out.push_back(std::move(j));
  }
  return out;
}

std::string tex(double v, int sig) {
  std::string s = units::number(v, sig);
  size_t e = s.find('e');
  if (e == std::string::npos) return s;
  std::string mant = s.substr(0, e), ex = s.substr(e + 1);
  if (mant == "1") return "10^{" + ex + "}";
  if (mant == "-1") return "-10^{" + ex + "}";
  return mant + " \\times 10^{" + ex + "}";
}

std::string tex_frac(const std::string& num, const std::string& den) {
  return "\\frac{" + num + "}{" + den + "}";
}

std::string tex_prod(std::initializer_list<double> xs) {
  std::string s;
  for (double x : xs) s += (s.empty() ? "" : " \\cdot ") + tex(x);
  return s;
}

}  // namespace sb
