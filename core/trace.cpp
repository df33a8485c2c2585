#include "core/trace.hpp"

#include <cmath>

#include "core/units.hpp"

namespace sb {

namespace {
// tex() appended to out, through a char buffer (see units::write_number).
void append_tex(Out& out, double v, int sig) {
  char buf[units::kNumberRoom];
  const Text s(buf, units::write_number(buf, v, sig));
  const size_t e = s.find('e');
  if (e == Text::npos) {
    out << s;
    return;
  }
  const Text mant = s.substr(0, e), ex = s.substr(e + 1);
  if (mant == "-1") out << '-';
  if (mant != "1" && mant != "-1") out << mant << " \\times ";
  out << "10^{" << ex << '}';
}

void fill(Out& out, Text pattern, std::initializer_list<double> xs) {
  const double* x = xs.begin();
  size_t from = 0;
  for (size_t hash = pattern.find('#'); hash != Text::npos && x != xs.end();
       hash = pattern.find('#', from)) {
    out << pattern.substr(from, hash - from);
    append_tex(out, *x++, 4);
    from = hash + 1;
  }
  out << pattern.substr(from);
}
}  // namespace

void Trace::open(Text what, Text formula) {
  if (!out_.empty()) out_ << ',';
  out_ << "{\"what\":";
  append_json(out_, what);
  if (!formula.empty()) {
    out_ << ",\"formula\":";
    append_json(out_, formula);
  }
}

void Trace::close(Text formula, double value, Text unit) {
  if (!formula.empty() || !unit.empty()) {
    out_ << ",\"value\":";
    append_json(out_, value);
    out_ << ",\"unit\":";
    append_json(out_, unit);
    out_ << ",\"text\":";
    char buf[units::kFormatRoom];
    append_json(out_, Text(buf, units::write_format(buf, value, unit.empty() ? "count" : unit)));
  }
  out_ << '}';
}

double Trace::step(Text what, Text formula, Text numbers, double value, Text unit) {
  open(what, formula);
  if (!numbers.empty()) {
    out_ << ",\"numbers\":";
    append_json(out_, numbers);
  }
  close(formula, value, unit);
  return value;
}

double Trace::step(Text what, Text formula, Text pattern, std::initializer_list<double> xs,
                   double value, Text unit) {
  open(what, formula);
  if (!pattern.empty()) {
    scratch_.clear();
    fill(scratch_, pattern, xs);
    out_ << ",\"numbers\":";
    append_json(out_, scratch_.view());
  }
  close(formula, value, unit);
  return value;
}

void Trace::note(Text text) {
  open(text, "");
  close("", 0, "");
}

json Trace::to_json() const {
  Out o;
  write(o);
  return parse_json(o.view(), kNoLimits);
}

std::string tex(double v, int sig) {
  Out o;
  append_tex(o, v, sig);
  return o.str();
}

std::string tex_frac(Text num, Text den) {
  Out o;
  o << "\\frac{" << num << "}{" << den << '}';
  return o.str();
}

std::string tex_prod(std::initializer_list<double> xs) {
  Out o;
  for (double x : xs) {
    if (!o.empty()) o << " \\cdot ";
    append_tex(o, x, 4);
  }
  return o.str();
}

std::string tex_fill(Text pattern, std::initializer_list<double> xs) {
  Out o;
  fill(o, pattern, xs);
  return o.str();
}

}  // namespace sb
