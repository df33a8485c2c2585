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
#include "core/expr_node.hpp"
#include "core/json.hpp"

namespace sb::expr {

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
    double v = read_decimal(lit.c_str(), nullptr);
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

}  // namespace

Expr Expr::parse(const std::string& text, const std::string& field) {
  Expr e;
  e.root_ = Parser(text, field).parse();
  e.field_ = field;
  return e;
}

}  // namespace sb::expr
