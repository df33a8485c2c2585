// Parsers for the sharding notation and mesh spellings (see notation.hpp). Both scan left to right
// with no recursion over the input except the mesh's nested tuples, which are depth-capped.
#include "chapters/sharding/notation.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "core/error.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

namespace sb::sharding {

namespace {

// 1-based character (code point) position of byte offset i, so that UTF-8 text points right.
std::size_t char_pos(Text s, std::size_t i) {
  std::size_t n = 0;
  for (std::size_t k = 0; k < i && k < s.size(); ++k)
    if ((static_cast<unsigned char>(s[k]) & 0xC0) != 0x80) ++n;
  return n + 1;
}

std::string shown(Text s, std::size_t i) {
  if (i >= s.size()) return "end of input";
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x20 || c >= 0x7F) return "a non-ASCII or control character";
  return std::string("'") + s[i] + "'";
}

[[noreturn]] void fail_at(Text field, Text s, std::size_t i, const std::string& msg, Text code) {
  fail(field, "at character " + std::to_string(char_pos(s, i)) + " (" + shown(s, i) + "): " + msg,
       code);
}

bool is_alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

void check_length(Text text, Text field, const char* what) {
  if (text.size() > kMaxNotationLength)
    fail(field,
         std::string(what) + " is " + std::to_string(text.size()) + " characters long; at most " +
             std::to_string(kMaxNotationLength) + " are accepted",
         "too_long");
}

// ---------------------------------------------------------------- sharding notation

class ShardingParser {
 public:
  ShardingParser(Text s, Text field) : s_(s), f_(field) {}

  Sharding run() {
    check_length(s_, f_, "the sharding");
    Sharding out;
    skip();
    if (i_ >= s_.size()) err("the sharding is empty; write it like A[I_X, J]");
    if (is_alpha(s_[i_]) || s_[i_] == '_') {
      std::size_t b = i_;
      while (i_ < s_.size() && (is_alnum(s_[i_]) || s_[i_] == '_')) ++i_;
      out.name = s_.substr(b, i_ - b);
      skip();
    }
    if (peek() != '[')
      err(out.name.empty() ? "expected '[' to open the dimension list, as in A[I_X, J]"
                           : "expected '[' after the array name " + out.name);
    ++i_;
    dim_list(out);
    ++i_;  // ']'
    skip();
    if (i_ < s_.size()) unreduced(out);
    skip();
    if (i_ < s_.size()) err("unexpected text after the sharding");
    check_reuse(out);
    return out;
  }

 private:
  // The dimensions up to (not past) the closing ']', with an optional trailing "...".
  void dim_list(Sharding& out) {
    for (;;) {
      skip();
      if (peek() == '.') {
        if (s_.compare(i_, 3, "...") != 0) err("expected '...' for the remaining dimensions");
        if (out.dims.empty()) err("'...' must follow at least one named dimension");
        out.ellipsis = true;
        i_ += 3;
        skip();
        if (peek() != ']') err("'...' must be the last entry; expected ']'");
        break;
      }
      out.dims.push_back(dim());
      skip();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      if (peek() == ']') break;
      err(i_ >= s_.size() ? "the dimension list is not closed; expected ']'"
                          : "expected ',' or ']' after a dimension");
    }
  }

  // Each dimension has its own name; an axis shards at most one dimension, once; the unreduced
  // marker lists each axis once.
  void check_reuse(const Sharding& out) const {
    for (std::size_t k = 0; k < out.dims.size(); ++k)
      for (std::size_t l = 0; l < k; ++l)
        if (out.dims[k].name == out.dims[l].name)
          fail(f_,
               "at character " + std::to_string(out.dims[k].pos) + ": dimension " +
                   out.dims[k].name + " is already named at character " +
                   std::to_string(out.dims[l].pos) +
                   "; each dimension of an array has its own name",
               "dim_reused");
    std::vector<std::pair<std::string, std::size_t>> seen;
    for (const auto& d : out.dims)
      for (const auto& a : d.axes) {
        for (const auto& [name, at] : seen)
          if (name == a)
            fail(f_,
                 "at character " + std::to_string(d.pos) + " (dimension " + d.name +
                     "): mesh axis " + a + " is already used at character " + std::to_string(at) +
                     "; an axis can shard only one dimension of an array, once",
                 "axis_reused");
        seen.push_back({a, d.pos});
      }
    for (std::size_t k = 0; k < out.unreduced.size(); ++k)
      for (std::size_t l = 0; l < k; ++l)
        if (out.unreduced[k] == out.unreduced[l])
          fail_at(f_, s_, u_pos_,
                  "axis " + out.unreduced[k] + " appears twice in the unreduced marker",
                  "axis_reused");
  }

  Text s_;  // the caller's text, which outlives the parser
  Text f_;
  std::size_t i_ = 0;
  std::size_t u_pos_ = 0;

  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void skip() {
    while (i_ < s_.size() && is_space(s_[i_])) ++i_;
  }
  [[noreturn]] void err(const std::string& msg) { fail_at(f_, s_, i_, msg, "bad_sharding"); }

  Dim dim() {
    Dim d;
    if (!is_alpha(peek())) err("expected a dimension name (a letter, like I or J)");
    d.pos = char_pos(s_, i_);
    std::size_t b = i_;
    while (i_ < s_.size() && is_alnum(s_[i_])) ++i_;
    d.name = s_.substr(b, i_ - b);
    if (peek() == '_') {
      ++i_;
      d.axes = axes("dimension " + d.name);
    }
    return d;
  }

  // After '_': either letters (one axis each) or '{' ... '}' (letters, or comma-separated names).
  std::vector<std::string> axes(const std::string& what) {
    std::vector<std::string> out;
    if (peek() == '{') {
      ++i_;
      skip();
      std::size_t b = i_;
      bool commas = false;
      while (i_ < s_.size() && s_[i_] != '}') {
        if (s_[i_] == ',')
          commas = true;
        else if (!is_alnum(s_[i_]) && !is_space(s_[i_]) && s_[i_] != '_')
          err("expected mesh axis names inside the braces of " + what);
        ++i_;
      }
      if (i_ >= s_.size()) err("the subscript of " + what + " is not closed; expected '}'");
      std::size_t e = i_;
      i_ = b;
      if (commas) {
        for (;;) {
          skip();
          if (!is_alpha(peek())) err("expected a mesh axis name in the subscript of " + what);
          std::size_t nb = i_;
          while (i_ < e && (is_alnum(s_[i_]) || s_[i_] == '_')) ++i_;
          out.push_back(std::string(s_.substr(nb, i_ - nb)));
          skip();
          if (peek() == ',') {
            ++i_;
            continue;
          }
          if (i_ == e) break;
          err("expected ',' or '}' between mesh axis names");
        }
      } else {
        while (i_ < e) {
          if (is_space(s_[i_])) {
            ++i_;
            continue;
          }
          if (!is_alpha(s_[i_]))
            err("axis names run together must be single letters (write {data,model} for longer "
                "names)");
          out.push_back(std::string(1, s_[i_]));
          ++i_;
        }
        if (out.empty()) {
          i_ = e;
          err("the subscript of " + what + " is empty");
        }
      }
      i_ = e + 1;
    } else {
      if (!is_alpha(peek())) err("expected a mesh axis (like X) after '_' in " + what);
      while (i_ < s_.size() && is_alpha(s_[i_])) out.push_back(std::string(1, s_[i_++]));
      if (is_digit(peek()) || peek() == '_')
        err("mesh axes in a subscript are letters; use braces with commas for names like {x1,x2}");
    }
    return out;
  }

  // {U_X}, {U_XY}, {U_{XY}}, {U_X, U_Y}, \{ U_X \}
  void unreduced(Sharding& out) {
    u_pos_ = i_;
    bool backslash = false;
    if (peek() == '\\') {
      backslash = true;
      ++i_;
    }
    if (peek() != '{') err("expected '{U_X}' (an unreduced marker) or the end of the sharding");
    ++i_;
    for (;;) {
      skip();
      if (peek() != 'U') err("expected 'U_' followed by the axes being summed, as in {U_X}");
      ++i_;
      if (peek() != '_') err("expected '_' after U, as in {U_X}");
      ++i_;
      for (auto& a : axes("the unreduced marker")) out.unreduced.push_back(a);
      skip();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      break;
    }
    if (backslash) {
      if (peek() != '\\') err("expected '\\}' to close the unreduced marker opened with '\\{'");
      ++i_;
    }
    if (peek() != '}') err("expected '}' to close the unreduced marker");
    ++i_;
  }
};

// ---------------------------------------------------------------- mesh

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

struct Val {
  enum Kind { Int, Num, Str, Ident, Tuple, Dict, Call } kind = Int;
  std::size_t at = 0;
  long long i = 0;
  std::string s;                    // Str/Ident text, Call name
  std::vector<Val> items;           // Tuple items, Call positional args
  std::vector<std::string> keys;    // Dict keys, Call keyword names
  std::vector<Val> kvals;           // their values (parallel to keys)
  std::vector<std::size_t> key_at;  // where each key is
};

class MeshParser {
 public:
  MeshParser(Text s, Text field) : s_(s), f_(field) {}

  Mesh run() {
    check_length(s_, f_, "the mesh");
    std::size_t b = 0;
    while (b < s_.size() && is_space(s_[b])) ++b;
    if (b == s_.size())
      fail(f_, "the mesh is empty; write it like X=4,Y=4 or {'X': 4, 'Y': 4}", "bad_mesh");
    if (is_digit(s_[b])) return shape_form(b);
    lex();
    Val v;
    if (toks_[0].kind == Tok::Ident &&
        (toks_[1].kind == Tok::Equals || toks_[1].kind == Tok::Colon)) {
      v.kind = Val::Dict;
      v.at = toks_[0].at;
      entries(v, Tok::End);
    } else {
      v = value(0);
      if (cur().kind != Tok::End) err(cur(), "unexpected text after the mesh");
    }
    return interpret(v);
  }

 private:
  Text s_;  // the caller's text, which outlives the parser
  Text f_;
  std::vector<Token> toks_;
  std::size_t t_ = 0;

  [[noreturn]] void err_at(std::size_t at, const std::string& msg,
                           const std::string& code = "bad_mesh") {
    fail_at(f_, s_, at, msg, code);
  }
  [[noreturn]] void err(const Token& t, const std::string& msg) { err_at(t.at, msg); }
  const Token& cur() const { return toks_[t_]; }

  // "4x4x4" or "16 x 16": axis names X, Y, Z in order.
  Mesh shape_form(std::size_t i) {
    Mesh m;
    static const char* kNames[] = {"X", "Y", "Z"};
    for (;;) {
      while (i < s_.size() && is_space(s_[i])) ++i;
      if (i >= s_.size() || !is_digit(s_[i])) err_at(i, "expected an axis size (a whole number)");
      std::size_t b = i;
      long long v = 0;
      while (i < s_.size() && is_digit(s_[i])) {
        if (i - b >= 12) err_at(b, "axis size is too large", "out_of_range");
        v = v * 10 + (s_[i] - '0');
        ++i;
      }
      if (m.sizes.size() >= 3)
        err_at(b, "a shape like 4x4x4 names at most 3 axes (X, Y, Z); use {A: 2, ...} for more");
      check_size(v, b, kNames[m.sizes.size()]);
      m.names.push_back(kNames[m.sizes.size()]);
      m.sizes.push_back(v);
      while (i < s_.size() && is_space(s_[i])) ++i;
      if (i >= s_.size()) break;
      if (s_[i] == 'x' || s_[i] == 'X' || s_[i] == '*') {
        ++i;
        continue;
      }
      err_at(i, "expected 'x' between axis sizes, as in 4x4");
    }
    finish(m, 0);
    return m;
  }

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

  void check_size(long long v, std::size_t at, const std::string& name) {
    if (v <= 0)
      err_at(at, "size of mesh axis " + name + " must be a positive whole number", "out_of_range");
    if (v > kMaxAxisSize)
      err_at(at, "size of mesh axis " + name + " is larger than " + std::to_string(kMaxAxisSize),
             "out_of_range");
  }

  long long int_of(const Val& v, const std::string& name) {
    if (v.kind == Val::Num)
      err_at(v.at, "size of mesh axis " + name + " must be a whole number", "out_of_range");
    if (v.kind != Val::Int)
      err_at(v.at, "expected the size of mesh axis " + name + " (a whole number)");
    check_size(v.i, v.at, name);
    return v.i;
  }

  // Shape of a nested tuple of device ids, checked rectangular; no recursion (depth is capped
  // anyway).
  std::vector<long long> devices_shape(const Val& v, long long& count) {
    std::vector<long long> shape;
    const Val* p = &v;
    while (p->kind == Val::Tuple) {
      if (p->items.empty()) err_at(p->at, "the device grid has an empty row");
      shape.push_back(static_cast<long long>(p->items.size()));
      p = &p->items[0];
    }
    if (shape.empty()) err_at(v.at, "devices must be a nested tuple of device ids");
    // Walk every element level by level and check each row has the expected length.
    std::vector<const Val*> level{&v};
    for (std::size_t d = 0; d < shape.size(); ++d) {
      std::vector<const Val*> next;
      for (const Val* x : level) {
        if (x->kind != Val::Tuple) err_at(x->at, "the device grid is not rectangular");
        if (static_cast<long long>(x->items.size()) != shape[d])
          err_at(x->at, "the device grid is not rectangular: expected " + std::to_string(shape[d]) +
                            " entries here");
        for (const auto& y : x->items) next.push_back(&y);
      }
      level = std::move(next);
    }
    std::vector<long long> ids;
    for (const Val* x : level) {
      if (x->kind != Val::Int) err_at(x->at, "expected a device id (a whole number)");
      if (x->i < 0) err_at(x->at, "device ids cannot be negative");
      ids.push_back(x->i);
    }
    std::sort(ids.begin(), ids.end());
    if (std::adjacent_find(ids.begin(), ids.end()) != ids.end())
      err_at(v.at, "a device id appears twice in the device grid");
    count = static_cast<long long>(ids.size());
    return shape;
  }

  // The arguments of a mesh call, Mesh(devices, axis_names) or with keywords.
  struct MeshCall {
    std::vector<long long> shape;
    std::vector<std::pair<std::string, std::size_t>> names;  // with where each is
    std::size_t shape_at = 0, names_at = 0;
  };

  // axis_names: one name or a tuple of names.
  void take_names(const Val& t, MeshCall& mc) {
    if (t.kind == Val::Str || t.kind == Val::Ident) {
      mc.names.push_back({t.s, t.at});
      return;
    }
    if (t.kind != Val::Tuple) err_at(t.at, "axis_names must be a tuple of names, like ('X', 'Y')");
    for (const auto& x : t.items) {
      if (x.kind != Val::Str && x.kind != Val::Ident)
        err_at(x.at, "expected an axis name in quotes");
      mc.names.push_back({x.s, x.at});
    }
    mc.names_at = t.at;
  }

  // A shape: one size or a tuple of sizes; a nested tuple is a grid of device ids.
  void take_shape(const Val& t, MeshCall& mc, bool devices) {
    mc.shape_at = t.at;
    if (devices) {
      long long n = 0;
      mc.shape = devices_shape(t, n);
      return;
    }
    if (t.kind == Val::Int) {
      mc.shape = {int_of(t, "#1")};
      return;
    }
    if (t.kind != Val::Tuple) err_at(t.at, "the mesh shape must be a tuple of sizes, like (4, 8)");
    for (std::size_t k = 0; k < t.items.size(); ++k)
      mc.shape.push_back(int_of(t.items[k], "#" + std::to_string(k + 1)));
  }

  // {'X': 4, 'Y': 2}: the names and sizes in order.
  Mesh interpret_dict(const Val& v) {
    Mesh m;
    if (v.keys.empty()) err_at(v.at, "the mesh has no axes");
    for (std::size_t k = 0; k < v.keys.size(); ++k) {
      check_name(v.keys[k], v.key_at[k]);
      m.names.push_back(v.keys[k]);
      m.sizes.push_back(int_of(v.kvals[k], v.keys[k]));
    }
    finish(m, v.at);
    return m;
  }

  Mesh interpret(const Val& v) {
    if (v.kind == Val::Dict) return interpret_dict(v);
    if (v.kind != Val::Call)
      err_at(v.at,
             "expected a mesh such as X=4,Y=4, {'X': 4, 'Y': 4}, 4x4 or Mesh({'X': 4, 'Y': 4})");
    MeshCall mc;
    mc.shape_at = mc.names_at = v.at;
    for (std::size_t k = 0; k < v.items.size(); ++k) {
      const Val& a = v.items[k];
      if (k == 0 && a.kind == Val::Dict) {
        if (v.items.size() > 1 || !v.keys.empty())
          err_at(v.at, "a mesh given as a dict takes no other arguments");
        return interpret_dict(a);
      }
      if (k == 0)
        take_shape(a, mc,
                   a.kind == Val::Tuple && !a.items.empty() && a.items[0].kind == Val::Tuple);
      else if (k == 1)
        take_names(a, mc);
      else
        err_at(a.at, "unexpected extra argument to " + v.s);
    }
    for (std::size_t k = 0; k < v.keys.size(); ++k) {
      const std::string& key = v.keys[k];
      if (key == "devices")
        take_shape(v.kvals[k], mc, true);
      else if (key == "mesh_shape" || key == "axis_shapes" || key == "shape")
        take_shape(v.kvals[k], mc, false);
      else if (key == "axis_names" || key == "names")
        take_names(v.kvals[k], mc);
      else if (key != "axis_types" && key != "devices_order")  // layout hints only
        err_at(v.key_at[k], "unknown mesh argument '" + key + "'");
    }
    if (mc.shape.empty())
      err_at(v.at, "the mesh call gives no shape (devices=..., mesh_shape=... or axis_shapes=...)");
    if (mc.names.empty()) err_at(v.at, "the mesh call gives no axis_names");
    if (mc.names.size() != mc.shape.size())
      err_at(mc.names_at, "there are " + std::to_string(mc.names.size()) + " axis names for a " +
                              std::to_string(mc.shape.size()) + "-dimensional shape");
    Mesh m;
    for (std::size_t k = 0; k < mc.names.size(); ++k) {
      check_name(mc.names[k].first, mc.names[k].second);
      m.names.push_back(mc.names[k].first);
      check_size(mc.shape[k], mc.shape_at, mc.names[k].first);
      m.sizes.push_back(mc.shape[k]);
    }
    finish(m, v.at);
    return m;
  }

  void check_name(const std::string& n, std::size_t at) {
    if (n.empty() || !(is_alpha(n[0]) || n[0] == '_'))
      err_at(at, "an axis name must start with a letter");
    for (char c : n)
      if (!is_alnum(c) && c != '_')
        err_at(at, "an axis name may hold only letters, digits and '_'");
    if (n.size() > 32) err_at(at, "an axis name may be at most 32 characters");
  }

  void finish(Mesh& m, std::size_t at) {
    if (static_cast<int>(m.names.size()) > kMaxMeshAxes)
      err_at(at, "a mesh may have at most " + std::to_string(kMaxMeshAxes) + " axes");
    for (std::size_t k = 0; k < m.names.size(); ++k)
      for (std::size_t l = 0; l < k; ++l)
        if (m.names[k] == m.names[l]) err_at(at, "mesh axis " + m.names[k] + " is named twice");
    double n = 1;
    for (auto v : m.sizes) n *= static_cast<double>(v);
    if (n > static_cast<double>(kMaxDevices))
      err_at(at, "the mesh has more than " + std::to_string(kMaxDevices) + " devices",
             "out_of_range");
  }
};

}  // namespace

bool Mesh::has(const std::string& axis) const {
  return std::find(names.begin(), names.end(), axis) != names.end();
}

long long Mesh::size(const std::string& axis) const {
  for (std::size_t k = 0; k < names.size(); ++k)
    if (names[k] == axis) return sizes[k];
  return 0;
}

long long Mesh::devices() const {
  long long n = 1;
  for (auto v : sizes) n *= v;
  return n;
}

std::string Mesh::text() const {
  std::string out = "{";
  for (std::size_t k = 0; k < names.size(); ++k)
    out += (k ? ", " : "") + names[k] + ": " + std::to_string(sizes[k]);
  return out + "}";
}

std::vector<std::string> Sharding::used_axes() const {
  std::vector<std::string> out;
  for (const auto& d : dims) out.insert(out.end(), d.axes.begin(), d.axes.end());
  return out;
}

int Sharding::dim_index(const std::string& dim) const {
  for (std::size_t k = 0; k < dims.size(); ++k)
    if (dims[k].name == dim) return static_cast<int>(k);
  return -1;
}

std::string axes_text(const std::vector<std::string>& axes) {
  bool single =
      std::all_of(axes.begin(), axes.end(), [](const std::string& a) { return a.size() == 1; });
  std::string out;
  for (std::size_t k = 0; k < axes.size(); ++k) out += (single || k == 0 ? "" : ",") + axes[k];
  return out;
}

std::string sharding_tex(std::string_view text) {
  std::string out;
  std::vector<bool> literal;  // per open brace: a literal one (escaped) or a subscript's group
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '{') {
      literal.push_back(i == 0 || text[i - 1] != '_');
      out += literal.back() ? "\\{" : "{";
    } else if (c == '}' && !literal.empty()) {
      out += literal.back() ? "\\}" : "}";
      literal.pop_back();
    } else {
      out += c;
    }
  }
  return out;
}

std::string Sharding::text() const {
  auto sub = [](const std::vector<std::string>& axes) {
    std::string t = axes_text(axes);
    return axes.size() == 1 && axes[0].size() == 1 ? "_" + t : "_{" + t + "}";
  };
  std::string out = name + "[";
  for (std::size_t k = 0; k < dims.size(); ++k) {
    out += (k ? ", " : "") + dims[k].name;
    if (!dims[k].axes.empty()) out += sub(dims[k].axes);
  }
  if (ellipsis) out += ", ...";
  out += "]";
  if (!unreduced.empty()) out += "{U" + sub(unreduced) + "}";
  return out;
}

Sharding parse_sharding(Text text, Text field) { return ShardingParser(text, field).run(); }

Mesh parse_mesh(Text text, Text field) { return MeshParser(text, field).run(); }

void validate(const Sharding& s, const Mesh& m, Text field) {
  for (const auto& d : s.dims)
    for (const auto& a : d.axes)
      if (!m.has(a))
        fail(field,
             "at character " + std::to_string(d.pos) + " (dimension " + d.name + "): mesh axis " +
                 a + " is not in the mesh " + m.text(),
             "unknown_axis");
  for (const auto& a : s.unreduced) {
    if (!m.has(a))
      fail(field, "the unreduced marker names axis " + a + ", which is not in the mesh " + m.text(),
           "unknown_axis");
    for (const auto& d : s.dims)
      if (std::find(d.axes.begin(), d.axes.end(), a) != d.axes.end())
        fail(field,
             "at character " + std::to_string(d.pos) + " (dimension " + d.name + "): axis " + a +
                 " both shards this dimension and is unreduced",
             "axis_reused");
  }
}

namespace {
std::string whole(double v) { return units::number(v, 15); }
}  // namespace

void check_divisible(const Sharding& s, const Mesh& m, const std::vector<double>& sizes,
                     Text field) {
  for (std::size_t k = 0; k < s.dims.size() && k < sizes.size(); ++k) {
    const Dim& d = s.dims[k];
    double parts = 1;
    for (const auto& a : d.axes) parts *= static_cast<double>(m.size(a));
    double q = sizes[k] / parts;
    if (!(sizes[k] >= 1) || std::floor(q) != q)
      fail(field,
           "at character " + std::to_string(d.pos) + " (dimension " + d.name + "): size " +
               whole(sizes[k]) + " does not divide evenly into " + whole(parts) + " shards over " +
               axes_text(d.axes),
           "not_divisible");
  }
}

}  // namespace sb::sharding
