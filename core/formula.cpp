// Formula records: the strict expression grammar, the TeX of a record, and the cache that renders
// each record once. This runs once per record per module: it favours size over speed.
#include "core/formula.hpp"

#include <cmath>
#include <memory>
#include <stdexcept>

#include "core/json.hpp"
#include "core/trace.hpp"

namespace sb::records {
namespace {

// ---- The strict grammar (formula-check's) ----------------------------------------------------

enum class Op : char { Num, Sym, Neg, Add, Sub, Mul, Div, Pow, Call };

struct Node {
  Op op = Op::Num;
  std::string text;  // Num: as written; Sym, Call: the name
  std::vector<Node> kids;
};

constexpr Text kFuncs[] = {"min", "max", "sqrt", "log2", "log", "exp", "ceil", "floor", "abs"};

bool letter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool digit(char c) { return c >= '0' && c <= '9'; }

class Parser {
 public:
  explicit Parser(Text s) : s_(s) {}
  Node parse() {
    Node n = sum();
    skip();
    if (i_ != s_.size()) fail("unexpected '" + std::string(1, s_[i_]) + "'");
    return n;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw std::logic_error("at character " + std::to_string(i_ + 1) + ": " + why);
  }
  void skip() {
    while (i_ < s_.size() && s_[i_] == ' ') ++i_;
  }
  bool eat(char c) {
    skip();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  static Node make(Op op, std::vector<Node> kids, std::string text = {}) {
    Node n;
    n.op = op;
    n.kids = std::move(kids);
    n.text = std::move(text);
    return n;
  }
  Node sum() {
    Node x = product();
    for (;;) {
      if (eat('+'))
        x = make(Op::Add, {std::move(x), product()});
      else if (eat('-'))
        x = make(Op::Sub, {std::move(x), product()});
      else
        return x;
    }
  }
  Node product() {
    Node x = unary();
    for (;;) {
      if (eat('*'))
        x = make(Op::Mul, {std::move(x), unary()});
      else if (eat('/'))
        x = make(Op::Div, {std::move(x), unary()});
      else
        return x;
    }
  }
  Node unary() {
    if (eat('-')) return make(Op::Neg, {unary()});
    if (eat('+')) return unary();
    Node b = atom();
    if (eat('^')) return make(Op::Pow, {std::move(b), unary()});
    return b;
  }
  Node atom() {
    skip();
    if (i_ >= s_.size()) fail("the expression ends too soon");
    const char c = s_[i_];
    if (digit(c) || c == '.') return number();
    if (letter(c)) return name();
    if (eat('(')) {
      Node x = sum();
      if (!eat(')')) fail("missing ')'");
      return x;
    }
    fail("unexpected '" + std::string(1, c) + "'");
  }
  Node number() {
    const size_t from = i_;
    while (i_ < s_.size() && (digit(s_[i_]) || s_[i_] == '.')) ++i_;
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      while (i_ < s_.size() && digit(s_[i_])) ++i_;
    }
    Node n = make(Op::Num, {}, std::string(s_.substr(from, i_ - from)));
    skip();
    if (i_ < s_.size() && (letter(s_[i_]) || s_[i_] == '(')) fail("a product needs its '*'");
    return n;
  }
  Node name() {
    const size_t from = i_;
    while (i_ < s_.size() && (letter(s_[i_]) || digit(s_[i_]) || s_[i_] == '_')) ++i_;
    std::string id(s_.substr(from, i_ - from));
    skip();
    if (i_ < s_.size() && s_[i_] == '(') {
      bool known = false;
      for (Text f : kFuncs) known = known || f == id;
      if (!known) fail("unknown function " + id);
      ++i_;
      std::vector<Node> args{sum()};
      while (eat(',')) args.push_back(sum());
      if (!eat(')')) fail("missing ')' after the arguments of " + id);
      return make(Op::Call, std::move(args), id);
    }
    if (i_ < s_.size() && (letter(s_[i_]) || digit(s_[i_]))) fail("a product needs its '*'");
    return make(Op::Sym, {}, id);
  }
  Text s_;
  size_t i_ = 0;
};

void collect(const Node& n, std::vector<std::string>& out) {
  if (n.op == Op::Sym) {
    for (const std::string& s : out)
      if (s == n.text) return;
    out.push_back(n.text);
  }
  for (const Node& k : n.kids) collect(k, out);
}

const Symbol* find(std::span<const Symbol> table, Text name) {
  for (const Symbol& s : table)
    if (s.name == name) return &s;
  return nullptr;
}

// How a factor renders, for the choice between juxtaposition and \cdot in the symbolic form.
enum class Shape { Number, Letter, Word, Group, Other };

struct Renderer {
  const std::vector<std::string>& args;
  std::span<const Symbol> table;
  bool numbers;  // the numbers' form: each symbol a slot, every product a \cdot
  std::vector<Piece> out;

  void text(Text t) {
    if (out.empty()) out.push_back({});
    out.back().text += t;
  }
  void slot(const std::string& name) {
    int k = 0;
    while (args[k] != name) ++k;  // problems_of() has checked that every symbol is an argument
    if (out.empty()) out.push_back({});
    out.back().arg = k;
    out.push_back({});
  }
  static Shape shape(const Node& n, std::span<const Symbol> table) {
    switch (n.op) {
      case Op::Num:
        return Shape::Number;
      case Op::Sym: {
        const std::string t = tex_name(n.text, table);
        return t.rfind("\\mathrm", 0) == 0 ? Shape::Word : Shape::Letter;
      }
      case Op::Pow:
        return shape(n.kids[0], table) == Shape::Letter ? Shape::Letter : Shape::Other;
      case Op::Add:
      case Op::Sub:
        return Shape::Group;
      case Op::Mul: {  // a product written by juxtaposition ends as its last factor does
        const Shape a = shape(n.kids[0], table), b = shape(n.kids[1], table);
        return a == Shape::Other || b == Shape::Other || b == Shape::Number ? Shape::Other : b;
      }
      default:
        return Shape::Other;
    }
  }
  static bool sum(const Node& n) { return n.op == Op::Add || n.op == Op::Sub; }
  static bool leading_minus(const Node& n) {
    if (n.op == Op::Neg) return true;
    if (n.op == Op::Add || n.op == Op::Sub || n.op == Op::Mul) return leading_minus(n.kids[0]);
    return false;
  }
  void group(const Node& n) {
    text("\\left(");
    render(n);
    text("\\right)");
  }
  void product(const Node& n) {
    const Node& a = n.kids[0];
    const Node& b = n.kids[1];
    sum(a) ? group(a) : render(a);
    const Shape sa = shape(a, table), sb = shape(b, table);
    // "2BDF" as the book writes it; a thin space before a subscripted or upright factor
    // ("b_{x}\\,B"); a \\cdot between numbers and around anything else.
    const char last = out.empty() || out.back().text.empty() ? ' ' : out.back().text.back();
    const bool bare_right = b.op == Op::Sym && tex_name(b.text, table).size() == 1;
    if (numbers || sb == Shape::Number || sb == Shape::Other || sa == Shape::Other)
      text(" \\cdot ");
    else if (bare_right && (letter(last) || digit(last)))
      text("");
    else
      text("\\,");
    sum(b) || leading_minus(b) ? group(b) : render(b);
  }
  void call(const Node& n) {
    const std::string& f = n.text;
    if (f == "sqrt") {
      text("\\sqrt{");
      render(n.kids[0]);
      return text("}");
    }
    const char* open = f == "abs"     ? "\\left|"
                       : f == "ceil"  ? "\\left\\lceil "
                       : f == "floor" ? "\\left\\lfloor "
                       : f == "max"   ? "\\max\\left("
                       : f == "min"   ? "\\min\\left("
                       : f == "log2"  ? "\\log_2\\left("
                       : f == "exp"   ? "\\exp\\left("
                                      : "\\ln\\left(";
    const char* close = f == "abs"     ? "\\right|"
                        : f == "ceil"  ? " \\right\\rceil"
                        : f == "floor" ? " \\right\\rfloor"
                                       : "\\right)";
    text(open);
    for (size_t k = 0; k < n.kids.size(); ++k) {
      if (k) text(", ");
      render(n.kids[k]);
    }
    text(close);
  }
  void render(const Node& n) {
    switch (n.op) {
      case Op::Num:
        return text(tex(read_decimal(n.text.c_str(), nullptr), 17));
      case Op::Sym:
        return numbers ? slot(n.text) : text(tex_name(n.text, table));
      case Op::Neg:
        text("-");
        return sum(n.kids[0]) || leading_minus(n.kids[0]) ? group(n.kids[0]) : render(n.kids[0]);
      case Op::Add:
      case Op::Sub: {
        render(n.kids[0]);
        text(n.op == Op::Add ? " + " : " - ");
        const Node& b = n.kids[1];
        return leading_minus(b) || (n.op == Op::Sub && sum(b)) ? group(b) : render(b);
      }
      case Op::Mul:
        return product(n);
      case Op::Div:
        text("\\frac{");
        render(n.kids[0]);
        text("}{");
        render(n.kids[1]);
        return text("}");
      case Op::Pow: {
        const Node& a = n.kids[0];
        const bool atom = a.op == Op::Sym || a.op == Op::Num || a.op == Op::Call;
        atom ? render(a) : group(a);
        text("^{");
        render(n.kids[1]);
        return text("}");
      }
      case Op::Call:
        return call(n);
    }
  }
};

std::vector<std::string> split_args(Text args) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < args.size()) {
    while (at < args.size() && args[at] == ' ') ++at;
    size_t end = args.find(' ', at);
    if (end == Text::npos) end = args.size();
    if (end > at) out.emplace_back(args.substr(at, end - at));
    at = end;
  }
  return out;
}

Rendered render(const Formula& f) {
  const std::string why = problems_of(f);
  if (!why.empty())
    throw std::logic_error("formula " + std::string(f.name) + " = " + std::string(f.expr) + ": " +
                           why);
  Rendered r;
  r.args = split_args(f.args);
  const Node root = Parser(f.expr).parse();
  Renderer sym{r.args, f.symbols, false, {}};
  sym.render(root);
  for (const Piece& p : sym.out) r.rhs += p.text;
  r.tex = tex_name(f.name, f.symbols) + " = " + r.rhs;
  Renderer num{r.args, f.symbols, true, {}};
  num.render(root);
  r.numbers = std::move(num.out);
  return r;
}

// The records rendered so far, by address: an open-addressing table (a page uses a few dozen).
struct Cache {
  static constexpr size_t kSlots = 1024;
  const Formula* keys[kSlots] = {};
  std::unique_ptr<Rendered> values[kSlots];
};

}  // namespace

std::string problems_of(const Formula& f) {
  if (f.name.empty() || f.expr.empty() || f.unit.empty() || f.section.empty() || !f.fn)
    return "a record needs a name, an expression, a unit, a section and a function";
  std::vector<std::string> used;
  try {
    collect(Parser(f.expr).parse(), used);
  } catch (const std::logic_error& e) {
    return std::string("the expression does not parse ") + e.what();
  }
  const std::vector<std::string> args = split_args(f.args);
  for (const std::string& s : used) {
    bool in = false;
    for (const std::string& a : args) in = in || a == s;
    if (!in) return "the expression uses " + s + ", which is not an argument";
  }
  for (size_t i = 0; i < args.size(); ++i) {
    bool in = false;
    for (const std::string& s : used) in = in || s == args[i];
    if (!in) return "the argument " + args[i] + " is not in the expression";
    for (size_t j = 0; j < i; ++j)
      if (args[j] == args[i]) return "the argument " + args[i] + " is named twice";
    const Symbol* s = find(f.symbols, args[i]);
    if (!s) return "the symbol " + args[i] + " is not in the chapter's table";
    if (!(s->lo <= s->hi) || (s->lo > 0 && !(s->hi > 0)))
      return "the symbol " + args[i] + " has an empty range";
  }
  return "";
}

const Rendered& rendered(const Formula& f) {
  static Cache cache;
  size_t h = (reinterpret_cast<size_t>(&f) >> 3) % Cache::kSlots;
  for (size_t probe = 0; probe < Cache::kSlots; ++probe, h = (h + 1) % Cache::kSlots) {
    if (cache.keys[h] == &f) return *cache.values[h];
    if (!cache.keys[h]) {
      cache.values[h] = std::make_unique<Rendered>(render(f));
      cache.keys[h] = &f;
      return *cache.values[h];
    }
  }
  throw std::logic_error("more than 1024 formula records in one program");
}

json to_json(const Formula& f) {
  const Rendered& r = rendered(f);
  json syms = json::array();
  for (const std::string& a : r.args) {
    const Symbol* s = find(f.symbols, a);
    syms.push_back({{"name", a},
                    {"tex", tex_name(a, f.symbols)},
                    {"unit", std::string(s->unit)},
                    {"doc", std::string(s->doc)}});
  }
  return {{"name", std::string(f.name)},       {"tex", r.tex},
          {"expr", std::string(f.expr)},       {"unit", std::string(f.unit)},
          {"section", std::string(f.section)}, {"doc", std::string(f.doc)},
          {"symbols", std::move(syms)}};
}

}  // namespace sb::records
