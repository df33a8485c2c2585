// Reads Python-style literals (literal.hpp): a lexer, then a recursive reader over the tokens
// whose depth is capped.
#include "chapters/sharding/literal.hpp"

#include "chapters/sharding/scan.hpp"

namespace sb::sharding {
namespace {

using namespace scan;

enum class Tok {
  LBrace,
  RBrace,
  LParen,
  RParen,
  LBrack,
  RBrack,
  Colon,
  Equals,
  Comma,
  Int,
  Num,
  Str,
  Ident,
  End
};

struct Token {
  Tok kind = Tok::End;
  std::size_t at = 0;  // byte offset
  std::string text;
  long long i = 0;
};

class LiteralReader {
 public:
  LiteralReader(Text s, Text field) : s_(s), f_(field) {}

  Val run() {
    lex();
    if (toks_[0].kind == Tok::Ident &&
        (toks_[1].kind == Tok::Equals || toks_[1].kind == Tok::Colon)) {
      Val v;
      v.kind = Val::Dict;
      v.at = toks_[0].at;
      entries(v, Tok::End);
      return v;
    }
    Val v = value(0);
    if (cur().kind != Tok::End) err(cur(), "unexpected text after the mesh");
    return v;
  }

 private:
  Text s_;  // the caller's text, which outlives the reader
  Text f_;
  std::vector<Token> toks_;
  std::size_t t_ = 0;

  [[noreturn]] void err_at(std::size_t at, const std::string& msg) {
    fail_at(f_, s_, at, msg, "bad_mesh");
  }
  [[noreturn]] void err(const Token& t, const std::string& msg) { err_at(t.at, msg); }
  const Token& cur() const { return toks_[t_]; }

  // The token of a punctuation character; Tok::End for any other character.
  static Tok punctuation(char c) {
    switch (c) {
      case '{':
        return Tok::LBrace;
      case '}':
        return Tok::RBrace;
      case '(':
        return Tok::LParen;
      case ')':
        return Tok::RParen;
      case '[':
        return Tok::LBrack;
      case ']':
        return Tok::RBrack;
      case ':':
        return Tok::Colon;
      case '=':
        return Tok::Equals;
      case ',':
        return Tok::Comma;
      default:
        return Tok::End;
    }
  }

  // A quoted name from s_[i] (the quote) past its closing quote.
  Token quoted(std::size_t& i) {
    Token t;
    t.at = i;
    const char q = s_[i];
    std::size_t b = ++i;
    while (i < s_.size() && s_[i] != q) ++i;
    if (i >= s_.size()) err_at(t.at, "this quote is never closed");
    t.kind = Tok::Str;
    t.text = s_.substr(b, i - b);
    ++i;
    return t;
  }

  // A signed whole number (Int; past 1e12 it reads as 2^62, too large for any check) or one
  // with a fraction or exponent (Num).
  Token number(std::size_t& i) {
    Token t;
    const std::size_t b = t.at = i;
    const char sign = s_[i];
    if (sign == '-' || sign == '+') ++i;
    if (i >= s_.size() || !is_digit(s_[i])) err_at(b, "expected a number");
    long long v = 0;
    bool big = false;
    while (i < s_.size() && is_digit(s_[i])) {
      if (v > 1000000000000LL)
        big = true;
      else
        v = v * 10 + (s_[i] - '0');
      ++i;
    }
    bool frac = false;
    if (i < s_.size() && (s_[i] == '.' || s_[i] == 'e' || s_[i] == 'E')) {
      frac = true;
      ++i;
      if (i < s_.size() && (s_[i] == '-' || s_[i] == '+')) ++i;
      while (i < s_.size() && is_digit(s_[i])) ++i;
    }
    t.kind = frac ? Tok::Num : Tok::Int;
    t.text = s_.substr(b, i - b);
    t.i = big ? (1LL << 62) : (sign == '-' ? -v : v);
    return t;
  }

  void lex() {
    std::size_t i = 0;
    while (i < s_.size()) {
      const char c = s_[i];
      if (is_space(c)) {
        ++i;
        continue;
      }
      Token t;
      t.at = i;
      if (Tok k = punctuation(c); k != Tok::End) {
        t.kind = k;
        ++i;
      } else if (c == '\'' || c == '"') {
        t = quoted(i);
      } else if (is_digit(c) || c == '-' || c == '+') {
        t = number(i);
      } else if (is_alpha(c) || c == '_') {
        std::size_t b = i;
        while (i < s_.size() && (is_alnum(s_[i]) || s_[i] == '_' || s_[i] == '.')) ++i;
        t.kind = Tok::Ident;
        t.text = s_.substr(b, i - b);
      } else {
        err_at(i, "unexpected character in the mesh");
      }
      toks_.push_back(std::move(t));
    }
    Token end;
    end.kind = Tok::End;
    end.at = s_.size();
    toks_.push_back(end);
    toks_.push_back(end);  // so that toks_[1] always exists
  }

  static constexpr int kMaxDepth = 16;

  Val value(int depth) {
    if (depth > kMaxDepth) err(cur(), "the mesh is nested too deeply");
    const Token& t = cur();
    Val v;
    v.at = t.at;
    switch (t.kind) {
      case Tok::Int:
        v.kind = Val::Int;
        v.i = t.i;
        ++t_;
        return v;
      case Tok::Num:
        v.kind = Val::Num;
        v.s = t.text;
        ++t_;
        return v;
      case Tok::Str:
        v.kind = Val::Str;
        v.s = t.text;
        ++t_;
        return v;
      case Tok::LBrace:
        ++t_;
        v.kind = Val::Dict;
        entries(v, Tok::RBrace);
        ++t_;
        return v;
      case Tok::LParen:
      case Tok::LBrack:
        tuple(v, t.kind == Tok::LParen ? Tok::RParen : Tok::RBrack, depth);
        return v;
      case Tok::Ident:
        v.s = t.text;
        ++t_;
        v.kind = Val::Ident;
        if (cur().kind == Tok::LParen) call(v, depth);
        return v;
      case Tok::End:
        err(t, "the mesh ends too early");
      default:
        err(t, "expected a value (a number, a name, a tuple or a {axis: size} dict)");
    }
  }

  // '(' or '[' value, ... `close`.
  void tuple(Val& v, Tok close, int depth) {
    ++t_;
    v.kind = Val::Tuple;
    while (cur().kind != close) {
      v.items.push_back(value(depth + 1));
      if (cur().kind == Tok::Comma) {
        ++t_;
        continue;
      }
      if (cur().kind != close)
        err(cur(), std::string("expected ',' or '") + (close == Tok::RParen ? ")" : "]") + "'");
    }
    ++t_;
  }

  // name '(' positional args, then keyword args name=value ')': the name is already in v.
  void call(Val& v, int depth) {
    ++t_;
    v.kind = Val::Call;
    while (cur().kind != Tok::RParen) {
      if (cur().kind == Tok::Ident && toks_[t_ + 1].kind == Tok::Equals) {
        std::string key = cur().text;
        v.key_at.push_back(cur().at);
        t_ += 2;
        v.keys.push_back(key);
        v.kvals.push_back(value(depth + 1));
      } else {
        if (!v.keys.empty()) err(cur(), "a positional argument cannot follow a keyword argument");
        v.items.push_back(value(depth + 1));
      }
      if (cur().kind == Tok::Comma) {
        ++t_;
        continue;
      }
      if (cur().kind != Tok::RParen) err(cur(), "expected ',' or ')' in the argument list");
    }
    ++t_;
  }

  // key (':' | '=') value, ... up to `close` (not consumed).
  void entries(Val& v, Tok close) {
    while (cur().kind != close) {
      const Token& k = cur();
      if (k.kind != Tok::Str && k.kind != Tok::Ident) err(k, "expected an axis name, as in 'X': 4");
      if (k.text.empty()) err(k, "an axis name cannot be empty");
      v.key_at.push_back(k.at);
      ++t_;
      if (cur().kind != Tok::Colon && cur().kind != Tok::Equals)
        err(cur(), "expected ':' or '=' between the axis name and its size");
      ++t_;
      v.keys.push_back(k.text);
      v.kvals.push_back(value(1));
      if (cur().kind == Tok::Comma) {
        ++t_;
        continue;
      }
      if (cur().kind != close)
        err(cur(),
            close == Tok::End ? "expected ',' between axes" : "expected ',' or '}' between axes");
    }
  }
};

}  // namespace

Val read_literal(Text text, Text field) { return LiteralReader(text, field).run(); }

}  // namespace sb::sharding
