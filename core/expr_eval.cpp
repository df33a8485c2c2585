// Evaluating a parsed formula answer (core/expr.hpp) with the symbols' values, and rendering it
// as TeX; the parser that builds the tree is expr.cpp.
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/expr.hpp"
#include "core/expr_node.hpp"

namespace sb::expr {

namespace {

// ---- evaluation ----

double finite_or_nan(double x) { return std::isfinite(x) ? x : std::nan(""); }

[[noreturn]] void unknown_symbol(const Node& n, const std::map<std::string, double>& vars,
                                 const std::string& field) {
  const std::string& name = n.text;
  std::string msg = "at character " + std::to_string(n.pos) + ": unknown symbol '" + name + "'";
  // "BDF" for B*D*F: every letter a one-letter symbol we know.
  bool product = name.size() > 1;
  for (char c : name)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')) || !vars.count(std::string(1, c)))
      product = false;
  std::string suggestion;
  if (product) {
    for (char c : name) suggestion += (suggestion.empty() ? "" : "*") + std::string(1, c);
  } else {
    // A unique match up to case ("b" for "B").
    auto lower = [](std::string s) {
      for (char& c : s)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      return s;
    };
    int matches = 0;
    for (const auto& [k, v] : vars)
      if (lower(k) == lower(name)) ++matches, suggestion = k;
    if (matches != 1) suggestion.clear();
  }
  if (!suggestion.empty()) msg += "; did you mean " + suggestion + "?";
  if (!vars.empty() && vars.size() <= 16) {
    std::string known;
    for (const auto& [k, v] : vars) known += (known.empty() ? "" : ", ") + k;
    msg += " (symbols here: " + known + ")";
  }
  throw InputError("unknown_symbol", field, msg);
}

// A function of kFuncs applied to its evaluated arguments (the parser checked name and count).
double apply_func(const std::string& f, const std::vector<double>& xs) {
  const double nan = std::nan("");
  for (double x : xs)
    if (std::isnan(x)) return nan;  // also keeps max/min from skipping a NaN
  double x = xs[0], r = nan;
  if (f == "max" || f == "min") {
    r = x;
    for (double y : xs) r = f == "max" ? (y > r ? y : r) : (y < r ? y : r);
  } else if (f == "sqrt")
    r = std::sqrt(x);
  else if (f == "log" || f == "ln")
    r = std::log(x);
  else if (f == "log2")
    r = std::log2(x);
  else if (f == "log10")
    r = std::log10(x);
  else if (f == "exp")
    r = std::exp(x);
  else if (f == "abs")
    r = std::fabs(x);
  else if (f == "ceil")
    r = std::ceil(x);
  else if (f == "floor")
    r = std::floor(x);
  return finite_or_nan(r);
}

double eval_node(const Node& n, const std::map<std::string, double>& vars,
                 const std::string& field) {
  const double nan = std::nan("");
  auto arg = [&](std::size_t k) { return eval_node(*n.kids[k], vars, field); };
  switch (n.op) {
    case Op::Num:
      return n.value;
    case Op::Var: {
      auto it = vars.find(n.text);
      if (it == vars.end()) unknown_symbol(n, vars, field);
      return finite_or_nan(it->second);
    }
    case Op::Neg:
      return -arg(0);
    case Op::Add: {
      double a = arg(0), b = arg(1);
      return finite_or_nan(a + b);
    }
    case Op::Sub: {
      double a = arg(0), b = arg(1);
      return finite_or_nan(a - b);
    }
    case Op::Mul: {
      double a = arg(0), b = arg(1);
      return finite_or_nan(a * b);
    }
    case Op::Div: {
      double a = arg(0), b = arg(1);
      return b == 0 ? nan : finite_or_nan(a / b);
    }
    case Op::Pow: {
      double a = arg(0), b = arg(1);
      // pow(1, NaN) and pow(NaN, 0) are 1 in C; a NaN operand must stay a mismatch.
      if (std::isnan(a) || std::isnan(b)) return nan;
      return finite_or_nan(std::pow(a, b));
    }
    case Op::Call: {
      std::vector<double> xs;
      for (std::size_t k = 0; k < n.kids.size(); ++k) xs.push_back(arg(k));
      return apply_func(n.text, xs);
    }
  }
  return nan;
}

void collect(const Node& n, std::set<std::string>& out) {
  if (n.op == Op::Var) out.insert(n.text);
  for (const auto& k : n.kids) collect(*k, out);
}

// ---- TeX ----

std::string tex_number(const std::string& lit) {
  std::string mant = lit, exp;
  std::size_t e = lit.find_first_of("eE");
  if (e != std::string::npos) mant = lit.substr(0, e), exp = lit.substr(e + 1);
  if (!mant.empty() && mant[0] == '.') mant = "0" + mant;
  if (!mant.empty() && mant.back() == '.') mant.pop_back();
  if (exp.empty()) return mant;
  bool neg = exp[0] == '-';
  if (exp[0] == '+' || exp[0] == '-') exp.erase(0, 1);
  std::size_t nz = exp.find_first_not_of('0');
  exp = nz == std::string::npos ? "0" : exp.substr(nz);
  return mant + " \\times 10^{" + (neg ? "-" : "") + exp + "}";
}

bool is_greek(const std::string& s) {
  static const char* kGreek[] = {"alpha",  "beta",  "gamma", "delta", "epsilon", "eta",   "theta",
                                 "lambda", "mu",    "nu",    "pi",    "rho",     "sigma", "tau",
                                 "phi",    "chi",   "psi",   "omega", "Gamma",   "Delta", "Theta",
                                 "Lambda", "Sigma", "Phi",   "Psi",   "Omega"};
  for (const char* g : kGreek)
    if (s == g) return true;
  return false;
}

// "B" -> B, "bm" -> \mathit{bm}, "W_ici" -> W_{\mathit{ici}}, "alpha" -> \alpha.
std::string tex_name(const std::string& name) {
  auto part = [](const std::string& p) -> std::string {
    if (p.size() <= 1) return p;
    if (is_greek(p)) return "\\" + p;
    std::string out;
    for (char c : p) out += c == '_' ? std::string("\\_") : std::string(1, c);
    return "\\mathit{" + out + "}";
  };
  std::size_t u = name.find('_');
  if (u == std::string::npos || u == 0 || u + 1 == name.size()) return part(name);
  return part(name.substr(0, u)) + "_{" + part(name.substr(u + 1)) + "}";
}

// Whether the rendering starts with a minus sign (then it needs parentheses after an operator).
bool leading_minus(const Node& n) {
  switch (n.op) {
    case Op::Neg:
      return true;
    case Op::Add:
    case Op::Sub:
    case Op::Mul:
      return leading_minus(*n.kids[0]);
    default:
      return false;
  }
}

std::string tex_node(const Node& n);

std::string paren(const std::string& s) { return "\\left(" + s + "\\right)"; }

std::string tex_node(const Node& n) {
  auto sub = [&](std::size_t k) { return tex_node(*n.kids[k]); };
  auto is_sum = [](const Node& k) { return k.op == Op::Add || k.op == Op::Sub; };
  const Node* a = n.kids.size() > 0 ? n.kids[0].get() : nullptr;
  const Node* b = n.kids.size() > 1 ? n.kids[1].get() : nullptr;
  switch (n.op) {
    case Op::Num:
      return tex_number(n.text);
    case Op::Var:
      return tex_name(n.text);
    case Op::Neg: {
      std::string x = sub(0);
      return "-" + (is_sum(*a) || leading_minus(*a) ? paren(x) : x);
    }
    case Op::Add:
    case Op::Sub: {
      std::string r = sub(1);
      bool wrap = leading_minus(*b) || (n.op == Op::Sub && is_sum(*b));
      return sub(0) + (n.op == Op::Add ? " + " : " - ") + (wrap ? paren(r) : r);
    }
    case Op::Mul: {
      std::string l = sub(0), r = sub(1);
      if (is_sum(*a)) l = paren(l);
      if (is_sum(*b) || leading_minus(*b)) r = paren(r);
      return l + " \\cdot " + r;
    }
    case Op::Div:
      return "\\frac{" + sub(0) + "}{" + sub(1) + "}";
    case Op::Pow: {
      std::string base = sub(0);
      bool atom = a->op == Op::Var || (a->op == Op::Num && base.find(' ') == std::string::npos) ||
                  (a->op == Op::Call && a->text != "sqrt");
      return (atom ? base : paren(base)) + "^{" + sub(1) + "}";
    }
    case Op::Call: {
      const std::string& f = n.text;
      if (f == "sqrt") return "\\sqrt{" + sub(0) + "}";
      if (f == "abs") return "\\left|" + sub(0) + "\\right|";
      if (f == "ceil") return "\\left\\lceil " + sub(0) + " \\right\\rceil";
      if (f == "floor") return "\\left\\lfloor " + sub(0) + " \\right\\rfloor";
      if (f == "exp") return "\\exp" + paren(sub(0));
      std::string args;
      for (std::size_t k = 0; k < n.kids.size(); ++k) args += (k ? ", " : "") + sub(k);
      std::string head = f == "max"     ? "\\max"
                         : f == "min"   ? "\\min"
                         : f == "log2"  ? "\\log_2"
                         : f == "log10" ? "\\log_{10}"
                                        : "\\ln";  // log and ln are both natural
      return head + paren(args);
    }
  }
  return "";
}

}  // namespace

double Expr::eval(const std::map<std::string, double>& vars) const {
  if (!root_) return std::nan("");
  return finite_or_nan(eval_node(*root_, vars, field_));
}

std::set<std::string> Expr::symbols() const {
  std::set<std::string> out;
  if (root_) collect(*root_, out);
  return out;
}

std::string Expr::tex() const { return root_ ? tex_node(*root_) : ""; }

}  // namespace sb::expr
