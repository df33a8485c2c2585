// core/json.cpp writes numbers and trees itself (no nlohmann internals): its text must be the
// text nlohmann's own dump writes for every double, and read back as the same tree.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "core/json.hpp"

namespace {

std::string ours(double v) {
  sb::Out out;
  sb::append_json(out, v);
  return out.str();
}

double from_bits(uint64_t b) {
  double v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

void same_as_nlohmann(double v) {
  const std::string t = ours(v);
  ASSERT_EQ(t, sb::json(v).dump()) << v;
  if (std::isfinite(v)) ASSERT_EQ(std::strtod(t.c_str(), nullptr), v) << t;
}

}  // namespace

TEST(JsonNumbers, EveryBinaryExponentAsNlohmannWritesIt) {
  // Every exponent field from 0 (zero and the subnormals) to 2046 (the largest doubles), with
  // mantissas at both ends and random ones, both signs: the cached power of ten must fit each.
  std::mt19937_64 rng(20240613);
  for (uint64_t exp = 0; exp <= 2046; ++exp)
    for (uint64_t frac :
         {uint64_t{0}, uint64_t{1}, (uint64_t{1} << 52) - 1, rng() >> 12, rng() >> 12, rng() >> 12})
      for (uint64_t sign : {uint64_t{0}, uint64_t{1} << 63})
        same_as_nlohmann(from_bits(sign | (exp << 52) | frac));
}

TEST(JsonNumbers, RandomDoublesAndRoundNumbers) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; ++i) {
    const double v = from_bits(rng());
    if (std::isfinite(v)) same_as_nlohmann(v);
  }
  // Numbers people type, where the layout switches between its forms: whole up to 15 digits
  // ("1e15" is "1000000000000000.0"), exponent from 1e16, decimals down to 1e-4.
  for (int k = -30; k <= 30; ++k)
    for (double m : {1.0, 1.5, 2.0, 3.0, 9.0, 123.456, 0.1 + 0.2})
      same_as_nlohmann(m * std::pow(10.0, k));
  for (double v : {0.0, -0.0, 240.0, 0.1, 1e15, 1e16, 1e-4, 1e-5, 5e-324, 1.7976931348623157e308,
                   std::numeric_limits<double>::min(), 0.30000000000000004, 123456789012345.0,
                   1234567890123456.0})
    same_as_nlohmann(v);
  EXPECT_EQ(ours(NAN), "null");
  EXPECT_EQ(ours(INFINITY), "null");
}

TEST(JsonNumbers, TreesReadBackAsTheSameTree) {
  const sb::json j = {
      {"s", "µs \xFF tab\t"},
      {"n", {1, -2, 3.5, 1e300, -0.0, 18446744073709551615ull, -9223372036854775807ll - 1}},
      {"o", {{"a", true}, {"b", nullptr}, {"c", sb::json::object()}, {"d", sb::json::array()}}},
      {"bad", NAN}};
  sb::Out out;
  sb::append_json(out, j);
  const std::string t = out.str();
  for (unsigned char c : t) ASSERT_LT(c, 0x80) << t;
  // What nlohmann writes (invalid UTF-8 replaced) and what we write are the same tree.
  EXPECT_EQ(sb::json::parse(t),
            sb::json::parse(j.dump(-1, ' ', true, sb::json::error_handler_t::replace)))
      << t;
  EXPECT_EQ(sb::json::parse(t)["s"], "\xC2\xB5s \xEF\xBF\xBD tab\t");
  EXPECT_TRUE(sb::json::parse(t)["bad"].is_null());
}

namespace {

// read_decimal against strtod on one text: the same bits and the same stopping place.
void reads_as_strtod(const std::string& t) {
  char* a = nullptr;
  char* b = nullptr;
  const double ours = sb::read_decimal(t.c_str(), &a);
  const double theirs = std::strtod(t.c_str(), &b);
  uint64_t x, y;
  std::memcpy(&x, &ours, sizeof x);
  std::memcpy(&y, &theirs, sizeof y);
  EXPECT_EQ(x, y) << t;
  EXPECT_EQ(a - t.c_str(), b - t.c_str()) << t;
}

}  // namespace

TEST(ReadDecimal, HandCases) {
  // The fast path: 1.5e3 = 15 * 10^2 = 1500; 0.1 = 1 / 10; 55.84 = 5584 / 10^2; -0 keeps its sign.
  char* end = nullptr;
  EXPECT_EQ(sb::read_decimal("1.5e3", &end), 1500.0);
  EXPECT_EQ(*end, '\0');
  EXPECT_EQ(sb::read_decimal("0.1", nullptr), 0.1);
  EXPECT_EQ(sb::read_decimal("55.84", nullptr), 55.84);
  EXPECT_TRUE(std::signbit(sb::read_decimal("-0", nullptr)));
  // Where it stops: "1e" and "2e+" are 1 and 2 with the exponent left unread; "3 GB" stops at the
  // space.
  const char* t = "1e";
  EXPECT_EQ(sb::read_decimal(t, &end), 1.0);
  EXPECT_EQ(end, t + 1);
  t = "3 GB";
  EXPECT_EQ(sb::read_decimal(t, &end), 3.0);
  EXPECT_EQ(end, t + 1);
  // What the fast path leaves to strtod reads as strtod reads it: 20 significant digits, 2^53 + 1,
  // 1e23 (beyond 10^22), 1e-400 (underflow), hex floats, inf and nan, and no number at all.
  for (const char* s : {"12345678901234567890", "9007199254740993", "1e23", "1e-400", "0x1p3",
                        "-inf", "nan", "", ".", "-", "e5", "1.7976931348623157e308", "4.9e-324",
                        "00000000000000000000000000012.5", "0.000000000000000000000000001"})
    reads_as_strtod(s);
}

TEST(ReadDecimal, EveryShapeReadsAsStrtod) {
  // Random decimals as logs and readers write them: up to 20 digits, a point anywhere, an
  // exponent from -30 to 30 or none, a sign or none: bit for bit what strtod reads.
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; ++i) {
    std::string t;
    switch (rng() % 3) {
      case 0:
        t += '-';
        break;
      case 1:
        t += '+';
        break;
      default:
        break;
    }
    const int n = 1 + static_cast<int>(rng() % 20);
    const int point = static_cast<int>(rng() % (n + 2));
    for (int k = 0; k < n; ++k) {
      if (k == point) t += '.';
      t += static_cast<char>('0' + rng() % 10);
    }
    if (rng() % 2) t += "e" + std::to_string(static_cast<int>(rng() % 61) - 30);
    reads_as_strtod(t);
  }
}
