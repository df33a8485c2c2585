#include "core/units.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/json.hpp"

// Reading a typed value (parse_quantity, parse_bound and their helpers) runs once per input of a
// call, a small part of its time; in the wasm build it is compiled for size, 7 KB less code in
// every module (bench/NOTES.md, "Seventh pass"). Formatting (write_number, write_format) runs for
// every value of an answer and keeps the build's speed.
#ifdef __EMSCRIPTEN__
#define SB_READER __attribute__((minsize))
#else
#define SB_READER
#endif

namespace sb::units {
namespace {

// Dimension exponents: time, bytes, FLOPs, tokens, dollars. Counts, ratios and chips are bare.
struct Dim {
  int t = 0, b = 0, f = 0, tok = 0, usd = 0;
  bool operator==(const Dim&) const = default;
};
Dim operator-(Dim a) { return {-a.t, -a.b, -a.f, -a.tok, -a.usd}; }
Dim operator+(Dim a, Dim b) {
  return {a.t + b.t, a.b + b.b, a.f + b.f, a.tok + b.tok, a.usd + b.usd};
}

struct UnitInfo {
  std::string_view id;  // a view, so that find() compares lengths first: no strlen per entry
  Dim dim;
  const char* symbol;
  const char* example;
};

const UnitInfo kUnits[] = {
    {"s", {1, 0, 0, 0, 0}, "s", "1.2 ms"},
    {"B", {0, 1, 0, 0, 0}, "B", "16 GB"},
    {"flop", {0, 0, 1, 0, 0}, "FLOPs", "1.4e12 FLOPs"},
    {"flop_per_s", {-1, 0, 1, 0, 0}, "FLOPs/s", "1.97e14 FLOPs/s"},
    {"B_per_s", {-1, 1, 0, 0, 0}, "B/s", "45 GB/s"},
    {"flop_per_B", {0, -1, 1, 0, 0}, "FLOPs/B", "240 FLOPs/B"},
    {"tokens", {0, 0, 0, 1, 0}, "tokens", "4096 tokens"},
    {"tokens_per_s", {-1, 0, 0, 1, 0}, "tokens/s", "1500 tokens/s"},
    {"per_s", {-1, 0, 0, 0, 0}, "/s", "30 /s"},
    {"hz", {-1, 0, 0, 0, 0}, "Hz", "1.5 GHz"},
    {"count", {}, "", "8192"},
    {"params", {}, "", "70B"},  // a parameter count, written as the book writes it: 70B, 1.5T
    {"ratio", {}, "", "0.5"},
    {"chips", {}, "chips", "256"},
    {"usd", {0, 0, 0, 0, 1}, "$", "$1.20"},
    {"usd_per_hour", {-1, 0, 0, 0, 1}, "$/h", "$4.20/h"},
    {"bool", {}, "", "yes"},
};

const UnitInfo* find(std::string_view id) {
  for (const auto& u : kUnits)
    if (id == u.id) return &u;
  return nullptr;
}

struct Base {
  const char* name;
  Dim dim;
  double scale;
};

// Unit words a reader may type. Prefixes are tried only when the whole word is not listed here.
const Base kBases[] = {
    {"s", {1}, 1},
    {"sec", {1}, 1},
    {"secs", {1}, 1},
    {"second", {1}, 1},
    {"seconds", {1}, 1},
    {"min", {1}, 60},
    {"h", {1}, 3600},
    {"hr", {1}, 3600},
    {"hour", {1}, 3600},
    {"hours", {1}, 3600},
    {"day", {1}, 86400},
    {"days", {1}, 86400},
    {"B", {0, 1}, 1},
    {"byte", {0, 1}, 1},
    {"bytes", {0, 1}, 1},
    {"b", {0, 1}, 0.125},
    {"bit", {0, 1}, 0.125},
    {"bits", {0, 1}, 0.125},
    {"FLOP", {0, 0, 1}, 1},
    {"FLOPs", {0, 0, 1}, 1},
    {"flop", {0, 0, 1}, 1},
    {"flops", {0, 0, 1}, 1},
    {"OP", {0, 0, 1}, 1},
    {"OPs", {0, 0, 1}, 1},
    {"op", {0, 0, 1}, 1},
    {"ops", {0, 0, 1}, 1},
    // "FLOPS" and "OPS" in capitals are the common spelling of a rate.
    {"FLOPS", {-1, 0, 1}, 1},
    {"OPS", {-1, 0, 1}, 1},
    {"token", {0, 0, 0, 1}, 1},
    {"tokens", {0, 0, 0, 1}, 1},
    {"tok", {0, 0, 0, 1}, 1},
    {"USD", {0, 0, 0, 0, 1}, 1},
    {"usd", {0, 0, 0, 0, 1}, 1},
    {"dollars", {0, 0, 0, 0, 1}, 1},
    {"$", {0, 0, 0, 0, 1}, 1},
    {"Hz", {-1}, 1},
    {"chip", {}, 1},
    {"chips", {}, 1},
    {"device", {}, 1},
    {"devices", {}, 1},
    {"x", {}, 1},
    {"%", {}, 0.01},
    {"elements", {}, 1},
    {"params", {}, 1},
    {"param", {}, 1},
    {"parameters", {}, 1},
};

// Prefixes, each with its binary reading: the power of 1024 a reader may mean by a decimal one
// ("2M" for 2^21); a prefix with no such reading has binary == scale.
struct Prefix {
  const char* p;
  double scale;
  double binary;
  bool big;  // may stand alone after a number ("16G", "2 M tokens")
};
const Prefix kPrefixes[] = {
    {"Ki", 1024.0, 1024.0, true},
    {"Mi", 1048576.0, 1048576.0, true},
    {"Gi", 1073741824.0, 1073741824.0, true},
    {"Ti", 1099511627776.0, 1099511627776.0, true},
    {"Pi", 1125899906842624.0, 1125899906842624.0, true},
    {"p", 1e-12, 1e-12, false},
    {"n", 1e-9, 1e-9, false},
    {"u", 1e-6, 1e-6, false},
    {"\xC2\xB5", 1e-6, 1e-6, false},
    {"\xCE\xBC", 1e-6, 1e-6, false},
    {"m", 1e-3, 1e-3, false},
    {"k", 1e3, 1024.0, true},
    {"K", 1e3, 1024.0, true},
    {"M", 1e6, 1048576.0, true},
    {"G", 1e9, 1073741824.0, true},
    {"T", 1e12, 1099511627776.0, true},
    {"P", 1e15, 1125899906842624.0, true},
    {"E", 1e18, 1152921504606846976.0, true},
};

// A unit read from text: its dimension and its factor to base units, decimal and binary.
struct Scale {
  Dim dim;
  double scale = 1;
  double binary = 1;
};

const Prefix* big_prefix(std::string_view w) {
  for (const auto& p : kPrefixes)
    if (p.big && w == p.p) return &p;
  return nullptr;
}

// A unit word, with or without a prefix: "s", "ms", "GB", "TFLOPs", "Gi" + "B".
bool word(std::string_view w, Scale& out) {
  for (const auto& b : kBases)
    if (w == b.name) {
      out = {b.dim, b.scale, b.scale};
      return true;
    }
  for (const auto& p : kPrefixes) {
    std::string_view pre(p.p);
    if (w.size() > pre.size() && w.substr(0, pre.size()) == pre) {
      auto rest = w.substr(pre.size());
      for (const auto& b : kBases)
        if (rest == b.name && b.dim != Dim{}) {
          out = {b.dim, b.scale * p.scale, b.scale * p.binary};
          return true;
        }
    }
  }
  return false;
}

std::string trim(std::string_view s) {
  size_t a = 0, e = s.size();
  while (a < e && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (e > a && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(a, e - a));
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string dim_name(const Dim& d) {
  if (d == Dim{}) return "a plain number";  // not "a quantity in chips": chips is one such unit
  for (const auto& u : kUnits)
    if (u.dim == d && u.symbol[0]) return std::string("a quantity in ") + u.symbol;
  return "a unit of another kind";
}

// What a unit asks for, in errors: a parameter count is named as such, not as "a plain number".
std::string asked_name(const UnitInfo* u) {
  return std::string_view(u->id) == "params" ? "a parameter count" : dim_name(u->dim);
}

SB_READER double parse_bool(const std::string& s, std::string_view field) {
  std::string l;
  for (char c : s) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (l == "yes" || l == "true" || l == "1" || l == "y") return 1;
  if (l == "no" || l == "false" || l == "0" || l == "n") return 0;
  fail(field, "expected yes or no, got '" + s + "'", "bad_number");
}

// A comma at s[i] groups thousands: the digits before it since the start or the last comma are
// 1 to 3 (the first group) or 3, no point came before, and exactly three digits follow it.
// Anything else is a decimal comma or a typo, which is refused rather than read as 15 for "1,5".
SB_READER void check_comma(const std::string& s, size_t i, int group, bool first, bool point,
                           std::string_view field) {
  const bool three_follow = i + 3 < s.size() && is_digit(s[i + 1]) && is_digit(s[i + 2]) &&
                            is_digit(s[i + 3]) && (i + 4 >= s.size() || !is_digit(s[i + 4]));
  if (!point && three_follow && group >= 1 && group <= 3 && (first || group == 3)) return;
  std::string with_point = s;
  with_point[i] = '.';
  fail(field,
       "cannot read '" + s + "': a comma only groups thousands, as in 1,024; for a decimal, " +
           "write a decimal point: " + with_point,
       "bad_number");
}

// The number at the start of s: sign, digits grouped by commas (check_comma) or underscores
// ("8_192"), a point, an exponent ("4.5e10"). Sets `end` to the first character after it.
SB_READER double read_mantissa(const std::string& s, size_t& end, std::string_view field,
                               const char* example) {
  std::string num;
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) num += s[i++];
  bool digits = false, point = false, comma = false;
  int group = 0;  // digits since the start or the last comma
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (is_digit(c)) {
      num += c;
      digits = true;
      ++group;
    } else if (c == '.' && !point) {
      num += c;
      point = true;
    } else if (c == ',' && digits) {
      check_comma(s, i, group, !comma, point, field);
      comma = true;
      group = 0;
    } else if (c == '_' && digits && i + 1 < s.size() && is_digit(s[i + 1])) {
      continue;
    } else if ((c == 'e' || c == 'E') && digits && i + 1 < s.size() &&
               (is_digit(s[i + 1]) ||
                ((s[i + 1] == '-' || s[i + 1] == '+') && i + 2 < s.size() && is_digit(s[i + 2])))) {
      num += c;
      num += s[++i];
      while (i + 1 < s.size() && is_digit(s[i + 1])) num += s[++i];
      ++i;
      break;
    } else {
      break;
    }
  }
  if (!digits)
    fail(field, "'" + s + "' does not start with a number; try " + example, "bad_number");
  char* stop = nullptr;
  const double v = read_decimal(num.c_str(), &stop);
  if (!stop || *stop != '\0') fail(field, "'" + num + "' is not a number", "bad_number");
  end = i;
  return v;
}

// "x 10^k" or "*10^k" at the start of rest, as the book writes it: the factor 10^k, and rest
// without it. 1 if rest does not start so.
SB_READER double read_times_ten(std::string& rest, std::string_view field) {
  for (const char* times : {"x10^", "x 10^", "*10^", "* 10^",
                            "\xC3\x97"
                            "10^",
                            "\xC3\x97 10^"}) {
    const std::string t(times);
    if (rest.rfind(t, 0) != 0) continue;
    size_t j = t.size();
    std::string e;
    if (j < rest.size() && (rest[j] == '-' || rest[j] == '+')) e += rest[j++];
    while (j < rest.size() && is_digit(rest[j])) e += rest[j++];
    if (e.empty() || e == "-" || e == "+") fail(field, "missing exponent after 10^", "bad_number");
    rest = trim(std::string_view(rest).substr(j));
    return std::pow(10.0, std::atof(e.c_str()));
  }
  return 1;
}

// One side of a unit: "GB", "M tokens" (a scale word, then a unit word), "1" or nothing.
SB_READER Scale read_side(const std::string& side, const std::string& rest, const UnitInfo* u,
                          std::string_view field) {
  Scale out;
  if (side.empty() || side == "1") return out;
  const size_t sp = side.find(' ');
  if (sp == std::string::npos) {
    if (!word(side, out)) fail(field, "unknown unit '" + side + "'; try " + u->example, "bad_unit");
    return out;
  }
  const Prefix* p = big_prefix(trim(side.substr(0, sp)));
  if (!p || !word(trim(side.substr(sp + 1)), out))
    fail(field, "cannot read the unit '" + rest + "'; try " + u->example, "bad_unit");
  out.scale *= p->scale;
  out.binary *= p->binary;
  return out;
}

// The unit after the number: a prefix alone, which scales the asked unit ("16G" bytes, "2M"
// tokens, "1k"), or "<prefix>unit[/<prefix>unit]" or "<unit> per <unit>".
SB_READER Scale read_unit(const std::string& rest, const UnitInfo* u, std::string_view field) {
  if (const Prefix* p = big_prefix(rest)) return {u->dim, p->scale, p->binary};
  for (const char* small : {"m", "u", "\xC2\xB5", "\xCE\xBC", "n", "p"})
    if (rest == small)
      fail(field,
           "'" + rest + "' alone is not a unit; write the unit after it, as in " + u->example,
           "bad_unit");
  std::string top = rest, bottom;
  const size_t per = (" " + rest).find(" per ");
  const size_t slash = rest.find('/');
  if (per != std::string::npos) {
    top = trim(rest.substr(0, per));
    bottom = trim(rest.substr(per + 4));
    if (bottom.find('/') != std::string::npos || (" " + bottom).find(" per ") != std::string::npos)
      fail(field, "only one 'per' is allowed in a unit", "bad_unit");
  } else if (slash != std::string::npos) {
    top = trim(rest.substr(0, slash));
    bottom = trim(rest.substr(slash + 1));
    if (bottom.find('/') != std::string::npos)
      fail(field, "only one '/' is allowed in a unit", "bad_unit");
  }
  const Scale t = read_side(top, rest, u, field);
  if (per == std::string::npos && slash == std::string::npos) return t;
  Scale b;
  if (bottom.empty() || !word(bottom, b))
    fail(field, "unknown unit '" + bottom + "' after '/'; try " + u->example, "bad_unit");
  return {t.dim + (-b.dim), t.scale / b.scale, t.binary / b.binary};
}

// A plain number's unit word names what it counts: "5 chips" is a number of chips, not of layers,
// and "70B params" is no chip count. Chip words go with the unit chips alone, parameter and element
// words with anything but it.
SB_READER void check_counted(const std::string& rest, const UnitInfo* u, std::string_view field) {
  const size_t sp = rest.find_last_of(' ');
  const std::string w = sp == std::string::npos ? rest : rest.substr(sp + 1);
  const bool chip = w == "chip" || w == "chips" || w == "device" || w == "devices";
  const bool other = w == "params" || w == "param" || w == "parameters" || w == "elements";
  const bool chips_asked = std::string_view(u->id) == "chips";
  if (chip && !chips_asked)
    fail(field,
         "expected " + asked_name(u) + " (like " + u->example + "), not a number of chips ('" +
             rest + "')",
         "wrong_unit");
  if (other && chips_asked)
    fail(field, "expected a number of chips (like " + std::string(u->example) + "), not of " + w,
         "wrong_unit");
}

}  // namespace

bool known(std::string_view unit) { return find(unit) != nullptr; }

SB_READER Quantity parse_quantity(std::string_view raw, std::string_view unit,
                                  std::string_view field) {
  const UnitInfo* u = find(unit);
  if (!u) fail(field, "internal: unknown unit id '" + std::string(unit) + "'", "bad_unit");
  if (raw.size() > 200)
    fail(field,
         "the value is too long (over 200 characters); type a number like " +
             std::string(u->example),
         "bad_number");
  std::string s = trim(raw);
  if (s.empty())
    fail(field, "no value given; type a number like " + std::string(u->example), "empty");
  if (unit == "bool") return {parse_bool(s, field), std::nullopt};

  const bool dollar = s[0] == '$';  // "$1.20", "$4.20/h"
  if (dollar) s = trim(s.substr(1));
  size_t end = 0;
  double v = read_mantissa(s, end, field, u->example);
  std::string rest = trim(std::string_view(s).substr(end));
  v *= read_times_ten(rest, field);
  // Where no bytes are asked, B is a billion, as the book writes counts: "70B" parameters,
  // "17.44B params", "4B tokens".
  if (u->dim.b == 0 && !rest.empty() && rest[0] == 'B' && (rest.size() == 1 || rest[1] == ' ')) {
    v *= 1e9;
    rest = trim(std::string_view(rest).substr(1));
  }
  if (dollar)
    rest = rest.empty()                                   ? "$"
           : rest[0] == '/' || rest.rfind("per ", 0) == 0 ? "$ " + rest
                                                          : rest + " $";
  Scale sc;
  if (!rest.empty()) {
    sc = read_unit(rest, u, field);
    if (sc.dim == Dim{} && u->dim == Dim{}) check_counted(rest, u, field);
    if (sc.dim != u->dim) {
      // A plain number typed with a unit (a clock as "2.11 GHz" where cycles per second are
      // asked as a count): say what it is without the unit.
      const std::string plain = u->dim == Dim{} ? "; as a plain number, " + trim(raw) + " is " +
                                                      format(v * sc.scale, "count")
                                                : "";
      fail(field,
           "expected " + asked_name(u) + " (like " + u->example + "), got " + dim_name(sc.dim) +
               " ('" + rest + "')" + plain,
           "wrong_unit");
    }
  }
  Quantity q{v * sc.scale, std::nullopt};
  if (sc.binary != sc.scale) q.binary = v * sc.binary;
  if (!std::isfinite(q.value) || (q.binary && !std::isfinite(*q.binary)))
    fail(field, "the value is not a finite number", "bad_number");
  return q;
}

double parse(std::string_view text, std::string_view unit, std::string_view field) {
  return parse_quantity(text, unit, field).value;
}

double round_sig(double v, int digits) {
  if (v == 0 || !std::isfinite(v) || digits < 1) return v;
  const double e = std::floor(std::log10(std::fabs(v)));
  const double unit = std::pow(10.0, e - std::min(digits, 17) + 1);
  const double r = std::round(v / unit) * unit;
  return std::isfinite(r) && unit > 0 ? r : v;
}

std::string decimal_name_text(double bytes) {
  static const char* const kBinary[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double binary = 1;
  int k = 0;
  for (; k < 5 && std::fabs(bytes) >= binary * 1024; ++k) binary *= 1024;
  const std::string named = number(bytes / binary) + " " + kBinary[k];
  const double e = bytes > 0 ? std::log2(bytes) : 0.5;
  std::string out = named;
  if (k > 0 && std::floor(e) == e) out = "2^" + number(e) + " B (" + named + ")";
  return out + " as " + format(decimal_name(bytes), "B");
}

double decimal_name(double bytes) {
  double binary = 1, decimal = 1;
  for (int k = 0; k < 5 && std::fabs(bytes) >= binary * 1024; ++k) {
    binary *= 1024;
    decimal *= 1000;
  }
  return bytes / binary * decimal;
}

namespace {

// The relation words and signs a bound may start with, longest first where one begins another.
struct RelationWord {
  const char* text;
  Relation rel;
};
const RelationWord kRelations[] = {
    {"<=", Relation::AtMost},
    {"=<", Relation::AtMost},
    {"\xE2\x89\xA4", Relation::AtMost},  // U+2264
    {">=", Relation::AtLeast},
    {"=>", Relation::AtLeast},
    {"\xE2\x89\xA5", Relation::AtLeast},  // U+2265
    {"<", Relation::Below},
    {">", Relation::Above},
    {"==", Relation::Equal},
    {"=", Relation::Equal},
    {"~", Relation::Equal},
    {"\xE2\x89\x88", Relation::Equal},  // U+2248
    {"at most", Relation::AtMost},
    {"no more than", Relation::AtMost},
    {"up to", Relation::AtMost},
    {"at least", Relation::AtLeast},
    {"no less than", Relation::AtLeast},
    {"less than", Relation::Below},
    {"fewer than", Relation::Below},
    {"below", Relation::Below},
    {"under", Relation::Below},
    {"more than", Relation::Above},
    {"greater than", Relation::Above},
    {"above", Relation::Above},
    {"over", Relation::Above},
};

// The relation at the start of s, or nullptr; `len` is its length.
const RelationWord* relation_at(std::string_view s, size_t& len) {
  for (const auto& r : kRelations) {
    const std::string_view t = r.text;
    if (s.substr(0, t.size()) != t) continue;
    // A word ends at a space or the number: "over 8", not "overhead".
    const bool letters = std::isalpha(static_cast<unsigned char>(t[0]));
    if (letters && t.size() < s.size() && std::isalpha(static_cast<unsigned char>(s[t.size()])))
      continue;
    len = t.size();
    return &r;
  }
  return nullptr;
}

}  // namespace

SB_READER Bound parse_bound(std::string_view raw, std::string_view unit, std::string_view field) {
  if (raw.size() > 200)
    fail(field, "the value is too long (over 200 characters); type a number like " + example(unit),
         "bad_number");
  std::string s = trim(raw);
  Bound b;
  // A leading name: "X < 8", "b_crit <= 240 tokens".
  size_t i = 0;
  while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
  size_t len = 0;
  if (i > 0 && !is_digit(s[0]) && i < s.size()) {
    const std::string after = trim(std::string_view(s).substr(i));
    if (relation_at(after, len)) {
      b.name = s.substr(0, i);
      s = after;
    }
  }
  if (const RelationWord* r = relation_at(s, len)) {
    b.relation = r->rel;
    s = trim(std::string_view(s).substr(len));
    if (s.empty())
      fail(field, "no number after '" + std::string(r->text) + "'; write a bound like < 8",
           "empty");
  } else if (!b.name.empty()) {
    fail(field, "cannot read '" + trim(raw) + "' as a bound like X < 8", "bad_number");
  }
  const Quantity q = parse_quantity(s, unit, field);
  b.value = q.value;
  b.binary = q.binary;
  return b;
}

// Formatting avoids printf (musl's printf of a double goes through software long double in wasm)
// and builds each number in a char buffer: a calculator call formats dozens of numbers, and
// string operations per character are what a wasm build runs slowest. Rounding to `sig` digits
// is done on an integer.
namespace {

// 10^k exactly, for |k| <= 22 (every such power is a double); pow beyond.
double pow10(int k) {
  static const double kPow[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  return k >= 0 && k <= 22 ? kPow[k] : std::pow(10.0, k);
}

// llround for x >= 0 (halves away from zero), from floor, which wasm has as an instruction (musl's
// llround is a call). The correction handles x just under a half, where x + 0.5 rounds up to the
// next integer.
long long round_half_up(double x) {
  double r = std::floor(x + 0.5);
  if (r - x > 0.5) r -= 1;
  return static_cast<long long>(r);
}

// Decimal digits of n >= 0 at out; returns how many.
size_t put_int(char* out, long long n) {
  char tmp[24];
  size_t k = 0;
  do {
    tmp[k++] = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n > 0);
  for (size_t i = 0; i < k; ++i) out[i] = tmp[k - 1 - i];
  return k;
}

// Drops trailing zeros after a decimal point, and the point if nothing follows it.
size_t trim(const char* s, size_t n) {
  bool point = false;
  for (size_t i = 0; i < n; ++i) point = point || s[i] == '.';
  if (!point) return n;
  while (s[n - 1] == '0') --n;
  if (s[n - 1] == '.') --n;
  return n;
}

}  // namespace

namespace {

// a > 0 rounded to sig significant digits: returns them as an integer m in [10^(sig-1), 10^sig),
// and sets e to the power of ten of the first, so that a is about m * 10^(e - sig + 1).
long long round_digits(double a, int sig, int& e) {
  // The decimal exponent from the binary one (no log10 call): floor(log10 a) or one less, which
  // the rounding check below corrects.
  int b2 = 0;
  std::frexp(a, &b2);
  e = static_cast<int>(std::floor((b2 - 1) * 0.30102999566398120));
  auto mantissa = [&](int exp10) {  // a * 10^(sig - 1 - exp10), rounded to an integer
    const int k = sig - 1 - exp10;
    // 10^k is a finite double up to k = 308; a subnormal a needs k up to 338, so there the
    // scaling takes two steps, the first of which brings a into the normal range.
    if (k > 300) return round_half_up(a * pow10(k - 300) * 1e300);
    return round_half_up(k >= 0 ? a * pow10(k) : a / pow10(-k));
  };
  long long top = 1;
  for (int i = 0; i < sig; ++i) top *= 10;
  long long m = mantissa(e);
  if (m >= top)
    m = mantissa(++e);  // 9.9996 rounds up to 10.00
  else if (m < top / 10)
    m = mantissa(--e);  // log10 came out a hair high
  if (m >= top) {
    m /= 10;
    ++e;
  }
  return m;
}

}  // namespace

size_t write_number(char* out, double v, int sig) {
  auto put = [&](const char* t) {
    size_t n = std::strlen(t);
    std::memcpy(out, t, n);
    return n;
  };
  if (std::isnan(v)) return put("NaN");
  if (std::isinf(v)) return put(v > 0 ? "inf" : "-inf");
  if (v == 0) return put("0");
  if (sig > 15) {  // the shortest text that reads back as the same double, in this style:
    // "10000001" and "1e30" for JSON's "10000001.0" and "1e+30"
    char t[kDoubleRoom];
    const size_t len = write_double(t, v);
    size_t n = 0;
    for (size_t i = 0; i < len; ++i) {
      if (t[i] == '+' || (t[i] == '0' && i > 0 && (t[i - 1] == '-' || t[i - 1] == '+') && i >= 2 &&
                          t[i - 2] == 'e'))
        continue;  // the exponent's sign and padding zero
      out[n++] = t[i];
    }
    if (n >= 2 && out[n - 2] == '.' && out[n - 1] == '0') n -= 2;
    return n;
  }
  if (sig < 1) sig = 1;
  size_t n = 0;
  if (v < 0) out[n++] = '-';
  const double a = std::fabs(v);
  int e = 0;
  const long long m = round_digits(a, sig, e);
  char digits[24];
  const size_t nd = put_int(digits, m);
  char* o = out + n;
  if (a >= 1e6 || a < 1e-3) {  // d.ddd e x
    size_t k = 0;
    o[k++] = digits[0];
    o[k++] = '.';
    std::memcpy(o + k, digits + 1, nd - 1);
    k = trim(o, k + nd - 1);
    o[k++] = 'e';
    if (e < 0) {
      o[k++] = '-';
      e = -e;
    }
    return n + k + put_int(o + k, e);
  }
  if (e >= sig - 1) return n + put_int(o, round_half_up(a));  // keep every digit of a whole number
  if (e >= 0) {
    std::memcpy(o, digits, e + 1);
    o[e + 1] = '.';
    std::memcpy(o + e + 2, digits + e + 1, nd - e - 1);
    return n + trim(o, nd + 1);
  }
  size_t k = 0;
  o[k++] = '0';
  o[k++] = '.';
  for (int i = 0; i < -e - 1; ++i) o[k++] = '0';
  std::memcpy(o + k, digits, nd);
  return n + trim(o, k + nd);
}

std::string number(double v, int sig) {
  char buf[kNumberRoom];
  return std::string(buf, write_number(buf, v, sig));
}

std::string symbol(std::string_view unit) {
  const UnitInfo* u = find(unit);
  return u ? u->symbol : std::string(unit);
}

std::string example(std::string_view unit) {
  const UnitInfo* u = find(unit);
  return u ? u->example : "";
}

namespace {
// Copies t to out; returns its length.
size_t put(char* out, std::string_view t) {
  t = t.substr(0, 40);  // symbols are short; this only guards the buffer
  std::memcpy(out, t.data(), t.size());
  return t.size();
}

// `before`, the number with 4 significant digits, then `after`.
size_t put_number(char* out, double v, std::string_view before, std::string_view after) {
  size_t n = put(out, before);
  n += write_number(out + n, v, 4);
  return n + put(out + n, after);
}

// "820 GB/s": the number scaled to the largest prefix it reaches, then the prefix and symbol.
size_t prefixed(char* out, double v, std::string_view sym, bool small_too) {
  struct P {
    double s;
    const char* p;
  };
  static const P big[] = {{1e18, " E"}, {1e15, " P"}, {1e12, " T"},
                          {1e9, " G"},  {1e6, " M"},  {1e3, " k"}};
  static const P tiny[] = {
      {1, " "}, {1e-3, " m"}, {1e-6, " \xC2\xB5"}, {1e-9, " n"}, {1e-12, " p"}};
  const double a = std::fabs(v);
  const P* pick = nullptr;
  if (a != 0 && std::isfinite(v)) {
    for (const auto& p : big)
      if (!pick && a >= p.s) pick = &p;
    if (small_too)
      for (const auto& p : tiny)
        if (!pick && a >= p.s * 0.9999999) pick = &p;
  }
  const size_t n = put_number(out, pick ? v / pick->s : v, "", pick ? pick->p : " ");
  return n + put(out + n, sym);
}
}  // namespace

size_t write_format(char* out, double v, std::string_view u) {
  if (u == "s") {
    if (std::fabs(v) >= 3600 * 24) return put_number(out, v / 86400, "", " days");
    if (std::fabs(v) >= 3600) return put_number(out, v / 3600, "", " h");
    return prefixed(out, v, "s", true);
  }
  if (u == "B") return prefixed(out, v, "B", false);
  if (u == "B_per_s") return prefixed(out, v, "B/s", false);
  if (u == "hz") return prefixed(out, v, "Hz", false);
  if (u == "bool") return put(out, v != 0 ? "yes" : "no");
  if (u == "params") {  // "70.55B": the book's M, B and T for counts of weights, with no space
    for (const double s : {1e12, 1e9, 1e6})
      if (std::fabs(v) >= s && std::isfinite(v))
        return put_number(out, v / s, "", s == 1e12 ? "T" : s == 1e9 ? "B" : "M");
    return write_number(out, v, 4);
  }
  if (u == "chips" && v == 1) return put(out, "1 chip");  // the table's "one"
  if (u == "usd") return put_number(out, v, "$", "");
  if (u == "usd_per_hour") return put_number(out, v, "$", "/h");
  const UnitInfo* info = find(u);
  const std::string_view sym = info ? std::string_view(info->symbol) : u;
  size_t n = write_number(out, v, 4);
  if (!sym.empty()) {
    out[n++] = ' ';
    n += put(out + n, sym);
  }
  return n;
}

std::string format(double v, std::string_view unit) {
  char buf[kFormatRoom];
  return std::string(buf, write_format(buf, v, unit));
}

// The forms of write_format() as data, for table_json(). tests/core/units_test.cpp formats with
// this table and with format() and requires the same text for every unit and decade.
namespace {
struct Step {
  double scale, at;
  const char* prefix;
};
// Prefixes from k up, as prefixed() takes them (|v| >= scale).
const Step kBigSteps[] = {{1e18, 1e18, "E"}, {1e15, 1e15, "P"}, {1e12, 1e12, "T"},
                          {1e9, 1e9, "G"},   {1e6, 1e6, "M"},   {1e3, 1e3, "k"}};
// Prefixes from 1 down, which prefixed() takes a hair early (|v| >= 0.9999999 scale).
const Step kSmallSteps[] = {{1, 0.9999999, ""},
                            {1e-3, 0.9999999e-3, "m"},
                            {1e-6, 0.9999999e-6, "\xC2\xB5"},
                            {1e-9, 0.9999999e-9, "n"},
                            {1e-12, 0.9999999e-12, "p"}};
}  // namespace

json table_json() {
  json list = json::array();
  for (const UnitInfo& u : kUnits) {
    const std::string_view id = u.id;
    const std::string sym = u.symbol;
    std::string before, after = sym.empty() ? "" : " " + sym;
    json forms = json::array();
    auto form = [&](double scale, double at, const std::string& text) {
      forms.push_back({{"scale", scale}, {"at", at}, {"after", text}});
    };
    if (id == "s") {
      form(86400, 86400, " days");
      form(3600, 3600, " h");
      for (const Step& p : kBigSteps)
        if (p.scale < 3600) form(p.scale, p.at, std::string(" ") + p.prefix + sym);
      for (const Step& p : kSmallSteps) form(p.scale, p.at, std::string(" ") + p.prefix + sym);
    } else if (id == "B" || id == "B_per_s" || id == "hz") {
      for (const Step& p : kBigSteps) form(p.scale, p.at, std::string(" ") + p.prefix + sym);
    } else if (id == "params") {
      for (const Step& p : kBigSteps)
        if (p.scale >= 1e6 && p.scale <= 1e12) form(p.scale, p.at, p.scale == 1e9 ? "B" : p.prefix);
    } else if (id == "usd" || id == "usd_per_hour") {
      before = "$";
      after = id == "usd" ? "" : "/h";
    }
    json j = {{"id", id},
              {"symbol", sym},
              {"example", u.example},
              {"prefixes", forms.empty() ? "none" : "si"},
              {"before", before},
              {"after", after}};
    if (!forms.empty()) j["forms"] = std::move(forms);
    if (id == "bool") j["words"] = {"no", "yes"};
    if (id == "chips") j["one"] = "1 chip";  // how exactly one is written
    list.push_back(std::move(j));
  }
  return list;
}

}  // namespace sb::units
