// Writing JSON text (append_json, write_double) into Out's buffer; reading is json_parse.cpp.
#include "core/json.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

namespace sb {

namespace {
// Length of the valid UTF-8 sequence starting at s[i], or 0 if there is none.
size_t utf8_len(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  size_t n = c < 0xC2 ? 0 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF5 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((b(i + k) & 0xC0) != 0x80) return 0;
  // Overlong three- and four-byte forms, surrogates, and code points above U+10FFFF.
  if ((c == 0xE0 && b(i + 1) < 0xA0) || (c == 0xED && b(i + 1) >= 0xA0) ||
      (c == 0xF0 && b(i + 1) < 0x90) || (c == 0xF4 && b(i + 1) >= 0x90))
    return 0;
  return n;
}
}  // namespace

// Everything outside ASCII is written as \u escapes, so a response is pure ASCII, which a browser
// decodes several times faster than UTF-8 (bench/NOTES.md).
void append_json(Out& out, std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  // Written straight into the buffer, which needs at most 6 bytes out per byte in: a control or
  // broken byte becomes one escape (6), a UTF-8 sequence of n >= 2 bytes one escape or, for n = 4,
  // a surrogate pair (12).
  char* const start = out.room(6 * s.size() + 2);
  char* o = start;
  const auto u_escape = [&](unsigned cp) {
    *o++ = '\\';
    *o++ = 'u';
    *o++ = kHex[cp >> 12];
    *o++ = kHex[(cp >> 8) & 15];
    *o++ = kHex[(cp >> 4) & 15];
    *o++ = kHex[cp & 15];
  };
  *o++ = '"';
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      *o++ = static_cast<char>(c);
    } else if (c >= 0x80) {
      const size_t n = utf8_len(s, i);
      if (n == 0) {
        u_escape(0xFFFD);  // a byte that is not valid UTF-8
        continue;
      }
      unsigned cp = c & (0x7F >> n);
      for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
      if (cp >= 0x10000) {  // a surrogate pair
        cp -= 0x10000;
        u_escape(0xD800 | (cp >> 10));
        u_escape(0xDC00 | (cp & 0x3FF));
      } else {
        u_escape(cp);
      }
      i += n - 1;
    } else if (c == '"' || c == '\\') {
      *o++ = '\\';
      *o++ = static_cast<char>(c);
    } else if (c == '\n') {
      *o++ = '\\';
      *o++ = 'n';
    } else {
      u_escape(c);
    }
  }
  *o++ = '"';
  out.commit(static_cast<size_t>(o - start));
}

namespace {
// The shortest digits of a double, by Grisu2 (Florian Loitsch, "Printing floating-point numbers
// quickly and accurately with integers", PLDI 2010): the value and the halfway points to its
// neighbours are scaled by a cached power of ten into a 64-bit window, and digits are produced
// until they fall between the halfway points, so that the text reads back as the same double.
// Grisu2 is the variant that always succeeds; its text is the shortest in all but a few cases
// in a thousand, and then one digit longer.
namespace grisu {

// f * 2^e.
struct Fp {
  uint64_t f;
  int e;
};

// x * y rounded to 64 bits: the high half of the 128-bit product, rounded. Built from 32-bit
// halves: wasm has no 128-bit product, and __int128 there is a library call.
Fp times(Fp x, Fp y) {
  const uint64_t a = x.f >> 32, b = x.f & 0xFFFFFFFF, c = y.f >> 32, d = y.f & 0xFFFFFFFF;
  const uint64_t ac = a * c, bc = b * c, ad = a * d, bd = b * d;
  // The middle 32 bits of the product, with half of the low 64 bits' unit added to round.
  const uint64_t mid = (bd >> 32) + (ad & 0xFFFFFFFF) + (bc & 0xFFFFFFFF) + (uint64_t{1} << 31);
  return {ac + (ad >> 32) + (bc >> 32) + (mid >> 32), x.e + y.e + 64};
}

Fp normalized(Fp x) {
  const int s = __builtin_clzll(x.f);
  return {x.f << s, x.e - s};
}

// 10^k for k = -300, -292, ..., 324 as f * 2^e with f in [2^63, 2^64), f rounded to nearest: the
// powers of ten that bring a double's product into the window below. Computed with exact
// integers: e = floor(log2 10^k) - 63, f = round(10^k / 2^e).
constexpr int kFirstPower = -300, kPowerStep = 8;
constexpr Fp kPowers[] = {
    {0xAB70FE17C79AC6CA, -1060}, {0xFF77B1FCBEBCDC4F, -1034}, {0xBE5691EF416BD60C, -1007},
    {0x8DD01FAD907FFC3C, -980},  {0xD3515C2831559A83, -954},  {0x9D71AC8FADA6C9B5, -927},
    {0xEA9C227723EE8BCB, -901},  {0xAECC49914078536D, -874},  {0x823C12795DB6CE57, -847},
    {0xC21094364DFB5637, -821},  {0x9096EA6F3848984F, -794},  {0xD77485CB25823AC7, -768},
    {0xA086CFCD97BF97F4, -741},  {0xEF340A98172AACE5, -715},  {0xB23867FB2A35B28E, -688},
    {0x84C8D4DFD2C63F3B, -661},  {0xC5DD44271AD3CDBA, -635},  {0x936B9FCEBB25C996, -608},
    {0xDBAC6C247D62A584, -582},  {0xA3AB66580D5FDAF6, -555},  {0xF3E2F893DEC3F126, -529},
    {0xB5B5ADA8AAFF80B8, -502},  {0x87625F056C7C4A8B, -475},  {0xC9BCFF6034C13053, -449},
    {0x964E858C91BA2655, -422},  {0xDFF9772470297EBD, -396},  {0xA6DFBD9FB8E5B88F, -369},
    {0xF8A95FCF88747D94, -343},  {0xB94470938FA89BCF, -316},  {0x8A08F0F8BF0F156B, -289},
    {0xCDB02555653131B6, -263},  {0x993FE2C6D07B7FAC, -236},  {0xE45C10C42A2B3B06, -210},
    {0xAA242499697392D3, -183},  {0xFD87B5F28300CA0E, -157},  {0xBCE5086492111AEB, -130},
    {0x8CBCCC096F5088CC, -103},  {0xD1B71758E219652C, -77},   {0x9C40000000000000, -50},
    {0xE8D4A51000000000, -24},   {0xAD78EBC5AC620000, 3},     {0x813F3978F8940984, 30},
    {0xC097CE7BC90715B3, 56},    {0x8F7E32CE7BEA5C70, 83},    {0xD5D238A4ABE98068, 109},
    {0x9F4F2726179A2245, 136},   {0xED63A231D4C4FB27, 162},   {0xB0DE65388CC8ADA8, 189},
    {0x83C7088E1AAB65DB, 216},   {0xC45D1DF942711D9A, 242},   {0x924D692CA61BE758, 269},
    {0xDA01EE641A708DEA, 295},   {0xA26DA3999AEF774A, 322},   {0xF209787BB47D6B85, 348},
    {0xB454E4A179DD1877, 375},   {0x865B86925B9BC5C2, 402},   {0xC83553C5C8965D3D, 428},
    {0x952AB45CFA97A0B3, 455},   {0xDE469FBD99A05FE3, 481},   {0xA59BC234DB398C25, 508},
    {0xF6C69A72A3989F5C, 534},   {0xB7DCBF5354E9BECE, 561},   {0x88FCF317F22241E2, 588},
    {0xCC20CE9BD35C78A5, 614},   {0x98165AF37B2153DF, 641},   {0xE2A0B5DC971F303A, 667},
    {0xA8D9D1535CE3B396, 694},   {0xFB9B7CD9A4A7443C, 720},   {0xBB764C4CA7A44410, 747},
    {0x8BAB8EEFB6409C1A, 774},   {0xD01FEF10A657842C, 800},   {0x9B10A4E5E9913129, 827},
    {0xE7109BFBA19C0C9D, 853},   {0xAC2820D9623BF429, 880},   {0x80444B5E7AA7CF85, 907},
    {0xBF21E44003ACDD2D, 933},   {0x8E679C2F5E44FF8F, 960},   {0xD433179D9C8CB841, 986},
    {0x9E19DB92B4E31BA9, 1013},
};

// The binary exponents a scaled value may have: its integer part then fits in 32 bits.
constexpr int kAlpha = -60, kGamma = -32;

// The cached power c with kAlpha <= e + c.e + 64 <= kGamma, and its decimal exponent.
Fp cached_power(int e, int& k10) {
  // c.e is about k10 * log2(10) - 63, so k10 >= (kAlpha - e - 1) * log10(2): the ceiling of
  // that, with 78913 / 2^18 for log10(2) (a shift floors, so the ceiling is minus the floor of
  // minus it). The loops below correct the estimate where it is one off.
  const int want = -((-(kAlpha - e - 1) * 78913) >> 18);
  int i = (want - kFirstPower + kPowerStep - 1) / kPowerStep;
  constexpr int n = static_cast<int>(sizeof(kPowers) / sizeof(kPowers[0]));
  i = std::max(0, std::min(n - 1, i));
  while (i + 1 < n && e + kPowers[i].e + 64 < kAlpha) ++i;
  while (i > 0 && e + kPowers[i].e + 64 > kGamma) --i;
  k10 = kFirstPower + i * kPowerStep;
  return kPowers[i];
}

// Moves the last digit down while the text stays inside the interval and gets closer to w.
void round_toward(char* buf, int len, uint64_t dist, uint64_t delta, uint64_t rest,
                  uint64_t ten_k) {
  while (rest < dist && delta - rest >= ten_k &&
         (rest + ten_k < dist || dist - rest > rest + ten_k - dist)) {
    --buf[len - 1];
    rest += ten_k;
  }
}

// Digits of the scaled upper bound `hi`, stopped as soon as they lie within delta of it; `w` is
// the scaled value. The value is then buf * 10^k10.
void digits(char* buf, int& len, int& k10, Fp lo, Fp w, Fp hi) {
  uint64_t delta = hi.f - lo.f, dist = hi.f - w.f;
  const int shift = -hi.e;
  const uint64_t one = uint64_t{1} << shift;
  uint32_t p1 = static_cast<uint32_t>(hi.f >> shift);  // integer part
  uint64_t p2 = hi.f & (one - 1);                      // fraction
  // The largest power of ten at most p1, and its number of digits.
  static const uint32_t kPow10[] = {1,      10,      100,      1000,      10000,
                                    100000, 1000000, 10000000, 100000000, 1000000000};
  int n = 10;
  while (n > 1 && p1 < kPow10[n - 1]) --n;
  uint32_t pow10 = kPow10[n - 1];
  while (n > 0) {
    buf[len++] = static_cast<char>('0' + p1 / pow10);
    p1 %= pow10;
    --n;
    const uint64_t rest = (uint64_t{p1} << shift) + p2;
    if (rest <= delta) {
      k10 += n;
      round_toward(buf, len, dist, delta, rest, uint64_t{pow10} << shift);
      return;
    }
    pow10 /= 10;
  }
  for (int m = 1;; ++m) {
    p2 *= 10;
    delta *= 10;
    dist *= 10;
    buf[len++] = static_cast<char>('0' + (p2 >> shift));
    p2 &= one - 1;
    if (p2 <= delta) {
      k10 -= m;
      round_toward(buf, len, dist, delta, p2, one);
      return;
    }
  }
}

// The shortest digits of v > 0 (finite) into buf, with v = buf * 10^k10.
void shortest(char* buf, int& len, int& k10, double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  const uint64_t frac = bits & ((uint64_t{1} << 52) - 1);
  const int biased = static_cast<int>(bits >> 52);
  const Fp x = biased == 0 ? Fp{frac, -1074} : Fp{frac | (uint64_t{1} << 52), biased - 1075};
  // The halfway points to the neighbours; the one below is closer at a power of two.
  const bool closer_below = frac == 0 && biased > 1;
  const Fp hi = normalized({2 * x.f + 1, x.e - 1});
  const Fp lo0 = closer_below ? Fp{4 * x.f - 1, x.e - 2} : Fp{2 * x.f - 1, x.e - 1};
  const Fp lo = {lo0.f << (lo0.e - hi.e), hi.e};
  int k = 0;
  const Fp c = cached_power(hi.e, k);
  const Fp sw = times(normalized(x), c), slo = times(lo, c), shi = times(hi, c);
  len = 0;
  k10 = -k;
  // One unit in from each end: the products are rounded.
  digits(buf, len, k10, {slo.f + 1, slo.e}, sw, {shi.f - 1, shi.e});
}

// "e+05"-style exponent, as printf's %g and nlohmann write it: a sign, at least two digits.
char* exponent(char* o, int e) {
  *o++ = 'e';
  *o++ = e < 0 ? '-' : '+';
  unsigned u = static_cast<unsigned>(e < 0 ? -e : e);
  if (u >= 100) *o++ = static_cast<char>('0' + u / 100), u %= 100;
  *o++ = static_cast<char>('0' + u / 10);
  *o++ = static_cast<char>('0' + u % 10);
  return o;
}

// Lays the digits out as nlohmann's dump does: whole numbers up to 15 digits as "240.0",
// decimals down to 1e-4 as "0.00012", the rest as "1.5e+30".
char* layout(char* o, const char* buf, int len, int k10) {
  const int n = len + k10;  // the position of the point after the first digit
  if (len <= n && n <= 15) {
    std::memcpy(o, buf, len);
    std::memset(o + len, '0', n - len);
    o += n;
    *o++ = '.';
    *o++ = '0';
    return o;
  }
  if (0 < n && n <= 15) {
    std::memcpy(o, buf, n);
    o[n] = '.';
    std::memcpy(o + n + 1, buf + n, len - n);
    return o + len + 1;
  }
  if (-4 < n && n <= 0) {
    *o++ = '0';
    *o++ = '.';
    std::memset(o, '0', -n);
    std::memcpy(o - n, buf, len);
    return o - n + len;
  }
  *o++ = buf[0];
  if (len > 1) {
    *o++ = '.';
    std::memcpy(o, buf + 1, len - 1);
    o += len - 1;
  }
  return exponent(o, n - 1);
}

}  // namespace grisu

// Decimal digits of n at o; returns the end.
char* put_unsigned(char* o, uint64_t n) {
  char tmp[20];
  int k = 0;
  do {
    tmp[k++] = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n > 0);
  while (k > 0) *o++ = tmp[--k];
  return o;
}

}  // namespace

size_t write_double(char* out, double v) {
  char* o = out;
  if (std::signbit(v)) {
    *o++ = '-';
    v = -v;
  }
  if (v == 0) {
    std::memcpy(o, "0.0", 3);
    return static_cast<size_t>(o + 3 - out);
  }
  char digits[20];
  int len = 0, k10 = 0;
  grisu::shortest(digits, len, k10, v);
  return static_cast<size_t>(grisu::layout(o, digits, len, k10) - out);
}

double read_decimal(const char* s, char** end) {
  const char* p = s;
  const bool neg = *p == '-';
  if (*p == '+' || *p == '-') ++p;
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) return std::strtod(s, end);  // a hex float
  uint64_t w = 0;  // the significant digits, at most 19 of them
  int digits = 0, scale = 0;
  bool any = false, dropped = false;
  const auto digit = [&](int d, bool fraction) {
    any = true;
    if (digits < 19) {
      w = w * 10 + static_cast<uint64_t>(d);
      digits += w != 0;
      scale -= fraction;
    } else {
      dropped = dropped || d != 0;
      scale += !fraction;
    }
  };
  for (; *p >= '0' && *p <= '9'; ++p) digit(*p - '0', false);
  if (*p == '.')
    for (++p; *p >= '0' && *p <= '9'; ++p) digit(*p - '0', true);
  if (!any || dropped || w > (uint64_t{1} << 53)) return std::strtod(s, end);  // inf, nan, long
  if (*p == 'e' || *p == 'E') {
    const char* q = p + 1;
    const bool eneg = *q == '-';
    if (*q == '+' || *q == '-') ++q;
    if (*q >= '0' && *q <= '9') {
      int e = 0;
      for (; *q >= '0' && *q <= '9'; ++q) e = std::min(e * 10 + (*q - '0'), 100000);
      scale += eneg ? -e : e;
      p = q;
    }
  }
  static constexpr double kTens[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  if (scale < -22 || scale > 22) return std::strtod(s, end);
  double v = static_cast<double>(w);  // exact: w <= 2^53
  v = scale < 0 ? v / kTens[-scale] : v * kTens[scale];
  if (end) *end = const_cast<char*>(p);
  return neg ? -v : v;
}

void append_json(Out& out, double v) {
  if (!std::isfinite(v)) {
    out << "null";
    return;
  }
  char* at = out.room(kDoubleRoom);
  out.commit(write_double(at, v));
}

void JsonWriter::next() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (depth_ == 0) return;
  const uint32_t bit = uint32_t{1} << (depth_ - 1);
  if (has_value_ & bit) out_ << ',';
  has_value_ |= bit;
}

JsonWriter& JsonWriter::obj() {
  next();
  out_ << '{';
  close_[depth_++] = '}';
  has_value_ &= ~(uint32_t{1} << (depth_ - 1));
  return *this;
}

JsonWriter& JsonWriter::arr() {
  next();
  out_ << '[';
  close_[depth_++] = ']';
  has_value_ &= ~(uint32_t{1} << (depth_ - 1));
  return *this;
}

JsonWriter& JsonWriter::end() {
  out_ << close_[--depth_];
  return *this;
}

JsonWriter& JsonWriter::inside_object() {
  close_[depth_++] = '}';
  has_value_ |= uint32_t{1} << (depth_ - 1);
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view k) {
  next();
  append_json(out_, k);
  out_ << ':';
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::num(double v) {
  next();
  append_json(out_, v);
  return *this;
}

JsonWriter& JsonWriter::integer(long long v) {
  next();
  char* at = out_.room(21);
  char* o = at;
  if (v < 0) *o++ = '-';
  o = put_unsigned(o, v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v));
  out_.commit(static_cast<size_t>(o - at));
  return *this;
}

JsonWriter& JsonWriter::str(std::string_view s) {
  next();
  append_json(out_, s);
  return *this;
}

JsonWriter& JsonWriter::boolean(bool b) {
  next();
  out_ << (b ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::value(const json& j) {
  next();
  append_json(out_, j);
  return *this;
}

JsonWriter& JsonWriter::nums(const std::vector<double>& v) {
  arr();
  for (double x : v) num(x);
  return end();
}

JsonWriter& JsonWriter::strs(const std::vector<std::string>& v) {
  arr();
  for (const std::string& x : v) str(x);
  return end();
}

void append_json(Out& out, const json& j) {
  switch (j.type()) {
    case json::value_t::object: {
      out << '{';
      for (auto it = j.begin(); it != j.end(); ++it) {
        if (it != j.begin()) out << ',';
        append_json(out, std::string_view(it.key()));
        out << ':';
        append_json(out, it.value());
      }
      out << '}';
      return;
    }
    case json::value_t::array: {
      out << '[';
      for (size_t i = 0; i < j.size(); ++i) {
        if (i) out << ',';
        append_json(out, j[i]);
      }
      out << ']';
      return;
    }
    case json::value_t::string:
      append_json(out, std::string_view(j.get_ref<const std::string&>()));
      return;
    case json::value_t::boolean:
      out << (j.get<bool>() ? "true" : "false");
      return;
    case json::value_t::number_integer: {
      const int64_t n = j.get<int64_t>();
      char* at = out.room(21);
      char* o = at;
      if (n < 0) *o++ = '-';
      // -n as unsigned, which is right for the most negative value too.
      o = put_unsigned(o, n < 0 ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n));
      out.commit(static_cast<size_t>(o - at));
      return;
    }
    case json::value_t::number_unsigned: {
      char* at = out.room(20);
      out.commit(static_cast<size_t>(put_unsigned(at, j.get<uint64_t>()) - at));
      return;
    }
    case json::value_t::number_float:
      append_json(out, j.get<double>());
      return;
    default:  // null, and the binary and discarded values a parsed request never holds
      out << "null";
      return;
  }
}

void Out::grow(size_t more) {
  // 4 KB at first: a calculator's derivation, values and response each fit, so a call makes one
  // allocation per buffer.
  size_t cap = cap_ ? cap_ : 4096;
  while (cap - n_ < more) cap *= 2;
  char* p = static_cast<char*>(std::realloc(p_, cap));
  if (!p) throw std::bad_alloc();
  p_ = p;
  cap_ = cap;
}

}  // namespace sb
