// The sharding notation's parser (see notation.hpp): one left-to-right scan, no recursion.
#include "chapters/sharding/notation.hpp"

#include <algorithm>
#include <cmath>

#include "chapters/sharding/scan.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace sb::sharding {

namespace {

using namespace scan;

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

}  // namespace

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

namespace {
// A subscript's axes appended to `out`: run together when every name is one letter (XY), else
// with commas (X1,Y2). Appends in place: the sharding's text is written on every call that draws
// its blocks.
void append_axes(std::string& out, const std::vector<std::string>& axes) {
  const bool single =
      std::all_of(axes.begin(), axes.end(), [](const std::string& a) { return a.size() == 1; });
  for (std::size_t k = 0; k < axes.size(); ++k) {
    if (!single && k) out += ',';
    out += axes[k];
  }
}
// The subscript itself: _X for one one-letter axis, else _{...}.
void append_subscript(std::string& out, const std::vector<std::string>& axes) {
  const bool bare = axes.size() == 1 && axes[0].size() == 1;
  out += bare ? "_" : "_{";
  append_axes(out, axes);
  if (!bare) out += '}';
}
}  // namespace

std::string axes_text(const std::vector<std::string>& axes) {
  std::string out;
  append_axes(out, axes);
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
  std::string out = name;
  out += '[';
  for (std::size_t k = 0; k < dims.size(); ++k) {
    if (k) out += ", ";
    out += dims[k].name;
    if (!dims[k].axes.empty()) append_subscript(out, dims[k].axes);
  }
  if (ellipsis) out += ", ...";
  out += ']';
  if (!unreduced.empty()) {
    out += "{U";
    append_subscript(out, unreduced);
    out += '}';
  }
  return out;
}

Sharding parse_sharding(Text text, Text field) { return ShardingParser(text, field).run(); }

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
