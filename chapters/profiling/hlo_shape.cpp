// HLO dtypes, shapes and layouts (hlo.hpp): sizes, tile padding, and the shape parser.
#include "chapters/profiling/hlo_shape.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "chapters/profiling/hlo.hpp"
#include "core/error.hpp"

namespace sb::profiling::hlo {
namespace {

struct DtypeBits {
  std::string_view name;
  int bits;
};
// Every element type XLA prints (xla_data.proto's PrimitiveType, lower case).
constexpr DtypeBits kDtypes[] = {
    {"pred", 8},     {"s1", 1},         {"s2", 2},
    {"s4", 4},       {"s8", 8},         {"s16", 16},
    {"s32", 32},     {"s64", 64},       {"u1", 1},
    {"u2", 2},       {"u4", 4},         {"u8", 8},
    {"u16", 16},     {"u32", 32},       {"u64", 64},
    {"f4e2m1fn", 4}, {"f8e3m4", 8},     {"f8e4m3", 8},
    {"f8e4m3fn", 8}, {"f8e4m3fnuz", 8}, {"f8e4m3b11fnuz", 8},
    {"f8e5m2", 8},   {"f8e5m2fnuz", 8}, {"f8e8m0fnu", 8},
    {"bf16", 16},    {"f16", 16},       {"f32", 32},
    {"f64", 64},     {"c64", 64},       {"c128", 128},
    {"token", 0},
};

constexpr double kMaxElements = 1e18;  // below 2^63: larger shapes are an error, never a wrap

}  // namespace

std::optional<int> dtype_bits(std::string_view dtype) {
  for (const auto& d : kDtypes)
    if (d.name == dtype) return d.bits;
  return std::nullopt;
}

double elements(const Shape& s) {
  if (s.tuple()) return 0;
  double n = 1;
  for (int64_t d : s.dims) n *= static_cast<double>(d);
  return n;
}

double logical_bytes(const Shape& s) {
  if (s.tuple()) {
    double b = 0;
    for (const Shape& e : s.elements) b += logical_bytes(e);
    return b;
  }
  return std::ceil(elements(s) * dtype_bits(s.dtype).value_or(0) / 8);
}

namespace {

// The dims in memory order, major first.
std::vector<int64_t> physical(const Shape& s) {
  std::vector<int64_t> phys;
  if (s.minor_to_major.size() == s.dims.size() && !s.dims.empty())
    for (auto it = s.minor_to_major.rbegin(); it != s.minor_to_major.rend(); ++it)
      phys.push_back(s.dims[static_cast<size_t>(*it)]);
  else
    phys = s.dims;
  return phys;
}

// One level of tiling: the minor dims become (count of tiles, tile) pairs; a tile longer than the
// array treats the array as having leading dims of 1.
std::vector<int64_t> tiled(std::vector<int64_t> phys, const std::vector<int64_t>& tile) {
  while (phys.size() < tile.size()) phys.insert(phys.begin(), 1);
  const size_t lead = phys.size() - tile.size();
  std::vector<int64_t> out(phys.begin(), phys.begin() + static_cast<std::ptrdiff_t>(lead));
  for (size_t k = 0; k < tile.size(); ++k) out.push_back((phys[lead + k] + tile[k] - 1) / tile[k]);
  out.insert(out.end(), tile.begin(), tile.end());
  return out;
}

}  // namespace

std::vector<int64_t> padded_dims(const Shape& s) {
  std::vector<int64_t> phys = physical(s);
  if (s.tiles.empty()) return phys;
  const auto& t = s.tiles.front();
  while (phys.size() < t.size()) phys.insert(phys.begin(), 1);
  for (size_t k = 0; k < t.size(); ++k) {
    int64_t& d = phys[phys.size() - t.size() + k];
    d = (d + t[k] - 1) / t[k] * t[k];
  }
  return phys;
}

double padded_bytes(const Shape& s) {
  if (s.tuple()) {
    double b = 0;
    for (const Shape& e : s.elements) b += padded_bytes(e);
    return b;
  }
  // Each level tiles the tiles of the one before: T(8,128)(2,1) pads to (8,128) tiles, then
  // each tile into (2,1) sub-tiles (which pad nothing when they divide it).
  std::vector<int64_t> phys = physical(s);
  for (const auto& t : s.tiles) phys = tiled(std::move(phys), t);
  double n = 1;
  for (int64_t d : phys) n *= static_cast<double>(d);
  return std::ceil(n * dtype_bits(s.dtype).value_or(0) / 8);
}

namespace detail {

// One tile T(a,b,...): whole numbers; '*' (a combined dim) and '?' are read as 1.
static std::vector<int64_t> read_tile(text::Cursor& c) {
  std::vector<int64_t> t;
  c.expect('(', "'(' after T");
  do {
    c.skip_space();
    if (c.peek() == '*' || c.peek() == '?') {
      ++c.i;
      t.push_back(1);
    } else {
      const int64_t v = c.whole();
      if (v == 0 || v > (int64_t{1} << 40)) c.bad("a tile size must be from 1 to 2^40");
      t.push_back(v);
    }
  } while (c.eat(','));
  c.expect(')', "')' closing a tile");
  return t;
}

// After ':' (or the older ','): tiles T(..)(..), S(n), and items the chapter does not use
// (E(n) element size, L(n), D(..) dim level types, #(..), *(..)), skipped whole.
static void read_layout_items(text::Cursor& c, Shape& s) {
  while (true) {
    c.skip_space();
    const char k = c.peek();
    if (k == '}' || k == '\0') return;
    if (k == 'T' && c.i + 1 < c.s.size() && c.s[c.i + 1] == '(') {
      ++c.i;
      do s.tiles.push_back(read_tile(c));
      while (c.peek() == '(');
    } else if (k == 'S' && c.i + 1 < c.s.size() && c.s[c.i + 1] == '(') {
      c.i += 2;
      const int64_t m = c.whole();
      if (m > 1000) c.bad("a memory space above S(1000)");
      s.memory_space = static_cast<int>(m);
      c.expect(')', "')' closing S(");
    } else if (std::isalpha(static_cast<unsigned char>(k)) || k == '#' || k == '*') {
      while (!c.done() && c.peek() != '(' && c.peek() != '}') ++c.i;
      if (c.peek() == '(') c.i = text::closing(c.s, c.i, c.base);
    } else {
      c.bad("unexpected character in a layout");
    }
  }
}

static void read_layout(text::Cursor& c, Shape& s) {
  c.expect('{', "'{'");
  c.skip_space();
  while (std::isdigit(static_cast<unsigned char>(c.peek()))) {
    const int64_t d = c.whole();
    if (d >= static_cast<int64_t>(s.dims.size())) c.bad("a layout dim the shape does not have");
    if (std::find(s.minor_to_major.begin(), s.minor_to_major.end(), d) != s.minor_to_major.end())
      c.bad("a layout that names dim " + std::to_string(d) + " twice");
    s.minor_to_major.push_back(static_cast<int>(d));
    c.skip_space();
    if (c.peek() == ',') {
      ++c.i;
      c.skip_space();
    } else {
      break;
    }
  }
  if (c.eat(':') || !s.minor_to_major.empty() || c.peek() == 'T') read_layout_items(c, s);
  c.expect('}', "'}' closing the layout");
  if (!s.minor_to_major.empty() && s.minor_to_major.size() != s.dims.size())
    c.bad("a layout with " + std::to_string(s.minor_to_major.size()) + " dims for a shape of " +
          std::to_string(s.dims.size()));
}

static void read_dims(text::Cursor& c, Shape& s) {
  c.expect('[', "'['");
  if (c.eat(']')) return;
  double n = 1;
  do {
    c.skip_space();
    if (c.peek() == '<' && c.s.substr(c.i, 2) == "<=") c.i += 2;  // a bounded dynamic dim
    if (c.peek() == '?') c.bad("an unbounded dynamic dim '?' has no size");
    const int64_t d = c.whole();
    n *= static_cast<double>(d);
    if (n > kMaxElements) c.bad("a shape of more than 1e18 elements");
    s.dims.push_back(d);
  } while (c.eat(','));
  c.expect(']', "',' or ']' in the dims");
}

Shape shape(text::Cursor& c, int depth) {
  Shape s;
  c.skip_space();
  if (c.peek() == '(') {
    if (depth > 64) c.bad("tuples nested more than 64 deep");
    ++c.i;
    s.dtype = "tuple";
    c.skip_space();
    while (c.peek() == '/') {  // /*index=5*/ before an element
      const size_t e = c.s.find("*/", c.i);
      if (e == std::string_view::npos) c.bad("a comment that never closes");
      c.i = e + 2;
      c.skip_space();
    }
    if (c.eat(')')) return s;
    do {
      c.skip_space();
      while (c.peek() == '/') {
        const size_t e = c.s.find("*/", c.i);
        if (e == std::string_view::npos) c.bad("a comment that never closes");
        c.i = e + 2;
        c.skip_space();
      }
      s.elements.push_back(shape(c, depth + 1));
    } while (c.eat(','));
    c.expect(')', "',' or ')' in a tuple");
    return s;
  }
  const size_t b = c.i;
  while (!c.done() && std::isalnum(static_cast<unsigned char>(c.peek()))) ++c.i;
  s.dtype = std::string(c.s.substr(b, c.i - b));
  if (s.dtype.empty()) c.bad("expected a shape");
  if (!dtype_bits(s.dtype)) {
    c.i = b;
    c.bad("unknown dtype '" + s.dtype + "'");
  }
  if (s.dtype == "token") {
    if (c.peek() == '[' && c.s.substr(c.i, 2) == "[]") c.i += 2;
    return s;
  }
  read_dims(c, s);
  if (c.peek() == '{') read_layout(c, s);
  return s;
}

bool starts_shape(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && std::isalnum(static_cast<unsigned char>(s[i]))) ++i;
  if (i == 0) return !s.empty() && s[0] == '(';
  if (s.substr(0, i) == "token") return true;
  return i < s.size() && s[i] == '[' && dtype_bits(s.substr(0, i)).has_value();
}

}  // namespace detail

Shape parse_shape(std::string_view t, std::string_view field) {
  text::Cursor c{t, 0, 0};
  try {
    Shape s = detail::shape(c, 0);
    c.skip_space();
    if (!c.done()) c.bad("text after the shape");
    return s;
  } catch (const text::Bad& b) {
    fail(field, "column " + std::to_string(b.column) + ": " + b.why, "bad_hlo");
  }
}

}  // namespace sb::profiling::hlo
