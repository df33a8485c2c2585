#include "core/trace.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/units.hpp"

namespace sb {

// tex() appended to out, through a char buffer (see units::write_number). Declared in trace.hpp.
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

namespace {

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

void Trace::close(Text formula, double value, Text unit, Text section) {
  if (!formula.empty() || !unit.empty()) {
    out_ << ",\"value\":";
    append_json(out_, value);
    out_ << ",\"unit\":";
    append_json(out_, unit);
    out_ << ",\"text\":";
    char buf[units::kFormatRoom];
    append_json(out_, Text(buf, units::write_format(buf, value, unit.empty() ? "count" : unit)));
  }
  if (!section.empty()) {
    out_ << ",\"section\":";
    append_json(out_, section);
  }
  out_ << '}';
}

void Trace::value_member(Text name, double v) {
  append_json(out_, name);
  out_ << ':';
  append_json(out_, v);
}

double Trace::step(Text what, const Formula& f, std::initializer_list<double> x) {
  const records::Rendered& r = records::rendered(f);
  if (x.size() != r.args.size())
    throw std::logic_error("formula " + std::string(f.name) + " takes " +
                           std::to_string(r.args.size()) + " values");
  const double value = f.fn(x.begin());
  open(what, r.tex);
  scratch_.clear();
  records::fill(scratch_, r, x.begin());
  out_ << ",\"numbers\":";
  append_json(out_, scratch_.view());
  out_ << ",\"expr\":";
  append_json(out_, f.expr);
  out_ << ",\"values\":{";
  for (size_t i = 0; i < r.args.size(); ++i) {
    if (i) out_ << ',';
    value_member(r.args[i], x.begin()[i]);
  }
  out_ << '}';
  close(r.tex, value, f.unit, f.section);
  return value;
}

double Trace::combine(Text what, Text name, Text unit, std::span<const Term> terms, Combine how) {
  const bool is_max = how == Combine::Max, is_product = how == Combine::Product;
  double value = is_product ? 1 : 0;
  bool first = true;
  for (const Term& t : terms) {
    value = first        ? t.value
            : is_max     ? std::max(value, t.value)
            : is_product ? value * t.value
                         : value + t.value;
    first = false;
  }
  // The formula, the numbers and the expression, written side by side. A product is written as
  // the book writes one ("N_X N_Y"), its numbers with a \cdot between them.
  const Text sep = is_max ? ", " : is_product ? " * " : " + ";
  const Text tex_sep = is_product ? "\\," : sep, nums_sep = is_product ? " \\cdot " : sep;
  Out tex, nums, expr;
  records::append_tex_name(tex, name);
  tex << " = ";
  if (is_max) tex << "\\max\\left(", nums << "\\max\\left(", expr << "max(";
  first = true;
  for (const Term& t : terms) {
    if (!first) tex << tex_sep, nums << nums_sep, expr << sep;
    records::append_tex_name(tex, t.name);
    const bool wrap = t.value < 0 && !(first && !is_max);
    if (wrap) nums << "\\left(";
    append_tex(nums, t.value);
    if (wrap) nums << "\\right)";
    expr << t.name;
    first = false;
  }
  if (is_max) tex << "\\right)", nums << "\\right)", expr << ')';
  open(what, tex.view());
  out_ << ",\"numbers\":";
  append_json(out_, nums.view());
  out_ << ",\"expr\":";
  append_json(out_, expr.view());
  out_ << ",\"values\":{";
  first = true;
  for (const Term& t : terms) {
    if (!first) out_ << ',';
    value_member(t.name, t.value);
    first = false;
  }
  out_ << '}';
  close(tex.view(), value, unit);
  return value;
}

double Trace::sum(Text what, Text name, Text unit, std::initializer_list<Term> terms) {
  return combine(what, name, unit, {terms.begin(), terms.size()}, Combine::Sum);
}

double Trace::max(Text what, Text name, Text unit, std::initializer_list<Term> terms) {
  return combine(what, name, unit, {terms.begin(), terms.size()}, Combine::Max);
}

double Trace::product(Text what, Text name, Text unit, std::initializer_list<Term> terms) {
  return combine(what, name, unit, {terms.begin(), terms.size()}, Combine::Product);
}

double Trace::sum(Text what, Text name, Text unit, std::span<const Term> terms) {
  return combine(what, name, unit, terms, Combine::Sum);
}

double Trace::max(Text what, Text name, Text unit, std::span<const Term> terms) {
  return combine(what, name, unit, terms, Combine::Max);
}

double Trace::product(Text what, Text name, Text unit, std::span<const Term> terms) {
  return combine(what, name, unit, terms, Combine::Product);
}

double Trace::value(Text what, double v, Text unit) {
  open(what, "");
  close("", v, unit);
  return v;
}

void Trace::note(Text text) {
  open(text, "");
  close("", 0, "");
}

void Trace::equation(Text what, Text formula) {
  open(what, formula);
  out_ << '}';
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
