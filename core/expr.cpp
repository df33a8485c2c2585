// A hand-written recursive-descent parser for formula answers. Grammar (lowest binding first):
//   sum     := product (('+' | '-') product)*
//   product := signed (('*' | '/') signed | <implicit> power)*
//   signed  := ('+' | '-') signed | power          -x^2 = -(x^2)
//   power   := primary (('^' | '**') signed)?      right-associative: 2^3^2 = 2^9
//   primary := number | name | func '(' sum (',' sum)* ')' | '(' sum ')'
// <implicit> is a product with no operator: after a number or ')' when a name or '(' follows.
#include "core/expr.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace sb::expr {

enum class Op { Num, Var, Neg, Add, Sub, Mul, Div, Pow, Call };

struct Node {
  Op op = Op::Num;
  double value = 0;     // Num
  std::string text;     // Num: as typed (for tex); Var / Call: the name
  std::size_t pos = 0;  // 1-based character position, for eval's error messages
  std::vector<std::shared_ptr<const Node>> kids;
};

namespace {

using NodeP = std::shared_ptr<const Node>;

struct Func {
  const char* name;
  int min_args, max_args;  // max_args < 0: any number
};
constexpr Func kFuncs[] = {
    {"max", 1, -1}, {"min", 1, -1}, {"sqrt", 1, 1},  {"log", 1, 1},
    {"ln", 1, 1},   {"log2", 1, 1}, {"log10", 1, 1}, {"exp", 1, 1},
    {"abs", 1, 1},  {"ceil", 1, 1}, {"floor", 1, 1},
};

const Func* find_func(const std::string& name) {
  for (const Func& f : kFuncs)
    if (name == f.name) return &f;
  return nullptr;
}

std::string func_list() {
  std::string s;
  for (const Func& f : kFuncs) s += (s.empty() ? "" : ", ") + std::string(f.name);
  return s;
}

bool is_alpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Character (code point) position of byte offset `off`, 1-based: UTF-8 continuation bytes
// do not start a character, so "×" counts once.
std::size_t char_pos(const std::string& s, std::size_t off) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < off && i < s.size(); ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) ++n;
  return n + 1 + (off > s.size() ? off - s.size() : 0);
}

std::size_t char_count(const std::string& s) { return char_pos(s, s.size()) - 1; }

// The character at `off` quoted for a message. Messages end up in JSON, so they must be valid
// UTF-8: a well-formed multi-byte sequence is quoted as is, anything else as its byte value.
std::string quote_char(const std::string& s, std::size_t off) {
  unsigned char c = static_cast<unsigned char>(s[off]);
  if (c >= 0x20 && c < 0x7F) return std::string("'") + static_cast<char>(c) + "'";
  int len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
  if (c >= 0xF5) len = 0;
  bool ok = len > 0 && off + len <= s.size();
  for (int i = 1; ok && i < len; ++i) ok = (static_cast<unsigned char>(s[off + i]) & 0xC0) == 0x80;
  if (ok) return "'" + s.substr(off, len) + "'";
  char buf[32];
  std::snprintf(buf, sizeof buf, "byte 0x%02X", c);
  return buf;
}

enum class Tok { Num, Name, Plus, Minus, Star, Slash, Pow, LParen, RParen, Comma, End };

struct Token {
  Tok kind;
  std::size_t off;  // byte offset in the text
  std::size_t len;
  double value = 0;
};

class Parser {
 public:
  Parser(const std::string& text, const std::string& field) : s_(text), field_(field) {}

  NodeP parse() {
    if (s_.size() > 4 * Expr::kMaxLength || char_count(s_) > Expr::kMaxLength)
      throw InputError("bad_expression", field_,
                       "at character " + std::to_string(Expr::kMaxLength + 1) +
                           ": the expression is longer than " + std::to_string(Expr::kMaxLength) +
                           " characters");
    tokenize();
    if (toks_[0].kind == Tok::End) fail_at(0, "the expression is empty");
    NodeP root = sum();
    const Token& t = peek();
    if (t.kind == Tok::RParen) fail_at(t.off, "')' has no matching '('");
    if (t.kind != Tok::End)
      fail_at(t.off, "expected an operator before " + describe(t) + juxtaposition_hint(t));
    return root;
  }

 private:
  const std::string& s_;
  const std::string& field_;
  std::vector<Token> toks_;
  std::size_t i_ = 0;
  int depth_ = 0;

  [[noreturn]] void fail_at(std::size_t off, const std::string& what) const {
    throw InputError("bad_expression", field_,
                     "at character " + std::to_string(char_pos(s_, off)) + ": " + what);
  }

  std::string text_of(const Token& t) const { return s_.substr(t.off, t.len); }

  std::string describe(const Token& t) const {
    if (t.kind == Tok::End) return "the end of the expression";
    return "'" + text_of(t) + "'";
  }

  // "B D" or "2 3": say how to write the product the reader probably meant.
  std::string juxtaposition_hint(const Token& t) const {
    if (i_ == 0 || (t.kind != Tok::Name && t.kind != Tok::Num && t.kind != Tok::LParen)) return "";
    const Token& prev = toks_[i_ - 1];
    if (prev.kind != Tok::Name && prev.kind != Tok::Num) return "";
    return " (for a product write " + text_of(prev) + "*" + text_of(t) + ")";
  }

  void tokenize() {
    std::size_t i = 0, n = s_.size();
    while (i < n) {
      char c = s_[i];
      if (is_space(c))
        ++i;
      else if (is_digit(c) || (c == '.' && i + 1 < n && is_digit(s_[i + 1])))
        i = lex_number(i);
      else if (is_alpha(c))
        i = lex_name(i);
      else
        i = lex_operator(i);
    }
    toks_.push_back({Tok::End, n, 0});
  }

  // Each lex_* pushes the token that starts at `start` and returns the offset just past it.
  std::size_t lex_number(std::size_t start) {
    std::size_t i = start, n = s_.size();
    while (i < n && is_digit(s_[i])) ++i;
    if (i < n && s_[i] == '.') {
      ++i;
      while (i < n && is_digit(s_[i])) ++i;
    }
    // An exponent only if digits follow: "2e" and "2e+B" are 2*e and 2*e + B.
    if (i < n && (s_[i] == 'e' || s_[i] == 'E')) {
      std::size_t j = i + 1;
      if (j < n && (s_[j] == '+' || s_[j] == '-')) ++j;
      if (j < n && is_digit(s_[j])) {
        while (j < n && is_digit(s_[j])) ++j;
        i = j;
      }
    }
    std::string lit = s_.substr(start, i - start);
    double v = std::strtod(lit.c_str(), nullptr);
    if (!std::isfinite(v)) fail_at(start, "the number " + lit + " is too large");
    toks_.push_back({Tok::Num, start, i - start, v});
    return i;
  }

  std::size_t lex_name(std::size_t start) {
    std::size_t i = start, n = s_.size();
    while (i < n && (is_alpha(s_[i]) || is_digit(s_[i]))) ++i;
    toks_.push_back({Tok::Name, start, i - start});
    return i;
  }

  std::size_t lex_operator(std::size_t start) {
    static constexpr std::pair<char, Tok> kOps[] = {
        {'+', Tok::Plus}, {'-', Tok::Minus},  {'*', Tok::Star},   {'/', Tok::Slash},
        {'^', Tok::Pow},  {'(', Tok::LParen}, {')', Tok::RParen}, {',', Tok::Comma},
    };
    // "**" is the one two-character operator: a power, like '^'.
    if (s_.compare(start, 2, "**") == 0) {
      toks_.push_back({Tok::Pow, start, 2});
      return start + 2;
    }
    for (const auto& [c, kind] : kOps)
      if (s_[start] == c) {
        toks_.push_back({kind, start, 1});
        return start + 1;
      }
    fail_unexpected_char(start);
  }

  // Lookalikes pasted from the book or a word processor get a hint at the ASCII operator.
  [[noreturn]] void fail_unexpected_char(std::size_t off) const {
    std::string q = quote_char(s_, off);
    std::string what = "unexpected character " + q;
    if (q == "'×'" || q == "'·'" || q == "'⋅'") what += " (write * for a product)";
    if (q == "'−'" || q == "'–'") what += " (write - for a minus)";
    if (q == "'÷'") what += " (write / for a division)";
    fail_at(off, what);
  }

  const Token& peek() const { return toks_[i_]; }
  const Token& next() { return toks_[i_ == toks_.size() - 1 ? i_ : i_++]; }

  static NodeP make(Op op, std::size_t pos, std::vector<NodeP> kids, std::string text = "",
                    double value = 0) {
    auto n = std::make_shared<Node>();
    n->op = op;
    n->pos = pos;
    n->kids = std::move(kids);
    n->text = std::move(text);
    n->value = value;
    return n;
  }

  // Guards every recursive cycle: each passes through a '(' , a sign or a '^'.
  struct Nest {
    Parser& p;
    Nest(Parser& p_, std::size_t off) : p(p_) {
      if (++p.depth_ > Expr::kMaxDepth)
        p.fail_at(off, "nested more than " + std::to_string(Expr::kMaxDepth) + " levels deep");
    }
    ~Nest() { --p.depth_; }
  };

  // What an operand may start with; anything else is reported as a missing operand.
  void expect_operand() const {
    const Token& t = peek();
    switch (t.kind) {
      case Tok::Num:
      case Tok::Name:
      case Tok::LParen:
      case Tok::Plus:
      case Tok::Minus:
        return;
      default:
        fail_at(t.off, "expected a number, a symbol or '(' but found " + describe(t));
    }
  }

  NodeP sum() {
    NodeP left = product();
    for (;;) {
      Tok k = peek().kind;
      if (k != Tok::Plus && k != Tok::Minus) return left;
      std::size_t pos = char_pos(s_, next().off);
      left = make(k == Tok::Plus ? Op::Add : Op::Sub, pos, {left, product()});
    }
  }

  NodeP product() {
    NodeP left = signed_();
    for (;;) {
      const Token& t = peek();
      if (t.kind == Tok::Star || t.kind == Tok::Slash) {
        std::size_t pos = char_pos(s_, next().off);
        left = make(t.kind == Tok::Star ? Op::Mul : Op::Div, pos, {left, signed_()});
        continue;
      }
      Tok prev = toks_[i_ - 1].kind;
      if ((prev == Tok::Num || prev == Tok::RParen) &&
          (t.kind == Tok::Name || t.kind == Tok::LParen)) {
        left = make(Op::Mul, char_pos(s_, t.off), {left, power()});
        continue;
      }
      return left;
    }
  }

  NodeP signed_() {
    expect_operand();
    const Token& t = peek();
    if (t.kind == Tok::Plus || t.kind == Tok::Minus) {
      Nest guard(*this, t.off);
      bool neg = next().kind == Tok::Minus;
      std::size_t pos = char_pos(s_, t.off);
      NodeP x = signed_();
      return neg ? make(Op::Neg, pos, {x}) : x;
    }
    return power();
  }

  NodeP power() {
    NodeP base = primary();
    if (peek().kind != Tok::Pow) return base;
    const Token& op = next();
    Nest guard(*this, op.off);
    return make(Op::Pow, char_pos(s_, op.off), {base, signed_()});
  }

  NodeP primary() {
    expect_operand();
    const Token& t = next();
    std::size_t pos = char_pos(s_, t.off);
    if (t.kind == Tok::Num) return make(Op::Num, pos, {}, text_of(t), t.value);
    if (t.kind == Tok::LParen) {
      Nest guard(*this, t.off);
      NodeP inner = sum();
      close(t);
      return inner;
    }
    if (t.kind == Tok::Name) {
      std::string name = text_of(t);
      const Func* f = find_func(name);
      if (peek().kind != Tok::LParen) {
        if (f) fail_at(t.off, "'" + name + "' is a function; write " + name + "(...)");
        return make(Op::Var, pos, {}, name);
      }
      if (!f)
        fail_at(t.off, "'" + name + "' is not a function (functions: " + func_list() +
                           "); for a product write " + name + "*(...)");
      const Token& open = next();
      Nest guard(*this, open.off);
      std::vector<NodeP> args{sum()};
      while (peek().kind == Tok::Comma) {
        next();
        args.push_back(sum());
      }
      close(open);
      int n = static_cast<int>(args.size());
      if (n < f->min_args || (f->max_args >= 0 && n > f->max_args))
        fail_at(t.off, name + " takes " +
                           (f->max_args < 0 ? "at least " + std::to_string(f->min_args)
                                            : std::to_string(f->max_args)) +
                           " argument" + (f->min_args == 1 && f->max_args == 1 ? "" : "s") +
                           ", got " + std::to_string(n));
      return make(Op::Call, pos, std::move(args), name);
    }
    fail_at(t.off, "expected a number, a symbol or '(' but found " + describe(t));
  }

  void close(const Token& open) {
    const Token& t = peek();
    if (t.kind == Tok::RParen) {
      next();
      return;
    }
    fail_at(t.off, "expected ')' to close the '(' at character " +
                       std::to_string(char_pos(s_, open.off)) + " but found " + describe(t) +
                       juxtaposition_hint(t));
  }
};

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

Expr Expr::parse(const std::string& text, const std::string& field) {
  Expr e;
  e.root_ = Parser(text, field).parse();
  e.field_ = field;
  return e;
}

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
