// The TPU chapter's texts: slice shapes ("4x4x4"), chip coordinates ("TPU{0,0}") and array
// types ("bf16[8, 128, 8192]"), each read into numbers or refused with an error naming the field.
#include "chapters/tpus/text.hpp"

#include <cctype>
#include <string>

#include "chapters/tpus/model.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"

namespace sb::tpus {
namespace text {

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

std::string clip(const std::string& s) { return s.size() > 40 ? s.substr(0, 40) + "..." : s; }

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

long long parse_int(const std::string& tok_in, const std::string& field, const std::string& what,
                    const std::string& whole) {
  std::string tok = trim(tok_in);
  if (tok.empty()) fail(field, "'" + clip(whole) + "' has an empty " + what, "bad_shape");
  size_t i = 0;
  bool neg = false;
  if (tok[0] == '-' || tok[0] == '+') {
    neg = tok[0] == '-';
    i = 1;
  }
  if (i == tok.size()) fail(field, "'" + clip(whole) + "' has an empty " + what, "bad_shape");
  long long v = 0;
  for (; i < tok.size(); ++i) {
    char c = tok[i];
    if (!std::isdigit(static_cast<unsigned char>(c)))
      fail(field, "'" + clip(whole) + "': " + what + " '" + clip(tok) + "' is not a whole number",
           "bad_shape");
    v = v * 10 + (c - '0');
    if (v > 1000000000LL)
      fail(field, what + " '" + clip(tok) + "' is far too large", "out_of_range");
  }
  return neg ? -v : v;
}

}  // namespace text

using text::clip;
using text::lower;
using text::parse_int;
using text::trim;

Dims parse_shape(const std::string& text, const std::string& field) {
  if (text.size() > 100) fail(field, field + " is too long for a slice shape", "bad_shape");
  std::string s = trim(text);
  if (s.empty())
    fail(field, field + " is empty; write a slice shape like 4x4x4 or 16x16", "bad_shape");
  // Split on x, X, * or the multiplication sign.
  std::vector<std::string> toks(1);
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == 'x' || c == 'X' || c == '*') {
      toks.emplace_back();
    } else if (static_cast<unsigned char>(c) == 0xC3 && i + 1 < s.size() &&
               static_cast<unsigned char>(s[i + 1]) == 0x97) {
      toks.emplace_back();
      ++i;
    } else {
      toks.back() += c;
    }
  }
  if (toks.size() > 3)
    fail(field,
         "'" + clip(s) + "' has " + std::to_string(toks.size()) +
             " axes; TPU slices have at most 3 (like 4x4x4)",
         "bad_shape");
  Dims d;
  for (size_t i = 0; i < toks.size(); ++i) {
    long long v = parse_int(toks[i], field, "axis " + std::to_string(i), s);
    if (v <= 0)
      fail(field,
           "axis " + std::to_string(i) + " of '" + clip(s) + "' must be at least 1, got " +
               std::to_string(v),
           "out_of_range");
    if (v > 100000) fail(field, "axis " + std::to_string(i) + " is too long", "out_of_range");
    d.push_back(static_cast<int>(v));
  }
  return d;
}

std::string shape_text(const Dims& d) {
  std::string s;
  for (size_t i = 0; i < d.size(); ++i) {
    if (i) s += 'x';
    s += std::to_string(d[i]);
  }
  return s;
}

Dims parse_coord(const std::string& text, const Torus& t, const std::string& field) {
  if (text.size() > 100) fail(field, field + " is too long for a chip coordinate", "bad_coord");
  std::string s = trim(text);
  // Accept "TPU{0,0}", "(0, 0)", "[0,0]", "0,0".
  if (lower(s).rfind("tpu", 0) == 0) s = trim(s.substr(3));
  if (!s.empty() && (s.front() == '(' || s.front() == '[' || s.front() == '{')) {
    char close = s.front() == '(' ? ')' : s.front() == '[' ? ']' : '}';
    if (s.back() != close)
      fail(field, "'" + clip(text) + "' opens a bracket it does not close", "bad_coord");
    s = s.substr(1, s.size() - 2);
  }
  if (trim(s).empty())
    fail(field, field + " is empty; write a chip coordinate like 0,0,0", "bad_coord");
  std::vector<std::string> toks(1);
  for (char c : s) {
    if (c == ',')
      toks.emplace_back();
    else
      toks.back() += c;
  }
  if (toks.size() != t.dims.size())
    fail(field,
         "'" + clip(text) + "' has " + std::to_string(toks.size()) + " coordinates but the slice " +
             shape_text(t.dims) + " has " + std::to_string(t.dims.size()) + " axes",
         "bad_coord");
  Dims c;
  for (size_t i = 0; i < toks.size(); ++i) {
    long long v = parse_int(toks[i], field, "coordinate " + std::to_string(i + 1), text);
    if (v < 0 || v >= t.dims[i])
      fail(field,
           "coordinate " + std::to_string(i + 1) + " is " + std::to_string(v) + " but axis " +
               std::to_string(i + 1) + " runs from 0 to " + std::to_string(t.dims[i] - 1),
           "out_of_range");
    c.push_back(static_cast<int>(v));
  }
  return c;
}

std::string coord_text(const Dims& c) {
  std::string s = "(";
  for (size_t i = 0; i < c.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(c[i]);
  }
  return s + ")";
}

// ---------------------------------------------------------------- arrays ----------

ArraySpec parse_array(const std::string& text, const std::string& field) {
  if (text.size() > 200) fail(field, field + " is too long for an array type", "bad_array");
  std::string s = trim(text);
  size_t open = s.find('[');
  if (open == std::string::npos || s.back() != ']')
    fail(field, "write an array as dtype[dims], like bf16[8, 128, 8192]; got '" + clip(text) + "'",
         "bad_array");
  ArraySpec a;
  a.dtype = lower(trim(s.substr(0, open)));
  double size = hw::dtype_bytes(a.dtype, field);
  std::string inner = s.substr(open + 1, s.size() - open - 2);
  std::vector<std::string> toks(1);
  for (char c : inner) {
    if (c == ',')
      toks.emplace_back();
    else
      toks.back() += c;
  }
  a.elements = 1;
  for (size_t i = 0; i < toks.size(); ++i) {
    // Allow products like 128*1024, as the book writes them.
    std::string t = trim(toks[i]);
    double v = 1;
    std::vector<std::string> factors(1);
    for (char c : t) {
      if (c == '*')
        factors.emplace_back();
      else
        factors.back() += c;
    }
    for (const auto& f : factors) {
      long long x = parse_int(f, field, "dimension " + std::to_string(i + 1), text);
      if (x <= 0)
        fail(field, "dimension " + std::to_string(i + 1) + " must be at least 1", "out_of_range");
      v *= static_cast<double>(x);
    }
    a.dims.push_back(v);
    a.elements *= v;
  }
  a.bytes = array_bytes(a.elements, size);
  return a;
}

}  // namespace sb::tpus
