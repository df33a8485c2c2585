// units::number over every finite double: each decade from the smallest subnormal (5e-324) to the
// largest (1.8e308), several mantissas each, both signs. The printed text must say the value to
// within half a unit in its last printed digit: |v - M * 10^E| <= 10^E / 2, where M is the
// printed digits as an integer and E the power of ten of the last one. The scaling by 10^E is
// done in doubles, whose few roundings (each at most 2^-53 of M) are below 1e-7 of a unit for
// up to 8 digits; at 15 digits they may move the last digit, which the bound then allows.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "core/units.hpp"

namespace {

struct Printed {
  long double digits = 0;  // the printed digits as an integer (M)
  int last = 0;            // the power of ten of the last printed digit (E)
  int significant = 0;     // how many digits, leading zeros left out
  bool negative = false;
};

// Reads "-1.235e-3", "0.00137", "100000" without strtod, so that the check does not depend on the
// rounding it is checking. Fails the test on anything else.
Printed read(const std::string& t) {
  Printed p;
  size_t i = 0;
  if (i < t.size() && t[i] == '-') p.negative = true, ++i;
  int after_point = -1;  // digits seen after the point, -1 before it
  bool leading = true;
  for (; i < t.size() && t[i] != 'e'; ++i) {
    if (t[i] == '.') {
      EXPECT_EQ(after_point, -1) << t;
      after_point = 0;
      continue;
    }
    EXPECT_TRUE(t[i] >= '0' && t[i] <= '9') << t;
    p.digits = p.digits * 10 + (t[i] - '0');
    if (after_point >= 0) ++after_point;
    leading = leading && t[i] == '0';
    if (!leading) ++p.significant;
  }
  p.last = after_point > 0 ? -after_point : 0;
  if (i < t.size()) p.last += std::atoi(t.c_str() + i + 1);
  return p;
}

// |v - M 10^E| in units of 10^E, in long double (64-bit mantissa, exponents to 4932).
long double error_in_last_digit(double v, const Printed& p) {
  const long double scaled = std::fabs(static_cast<long double>(v)) * std::pow(10.0L, -p.last);
  return std::fabs(scaled - p.digits);
}

void check(double v, int sig) {
  const std::string t = sb::units::number(v, sig);
  const Printed p = read(t);
  EXPECT_EQ(p.negative, v < 0) << v << " -> " << t;
  // Within half a unit in the last digit, and the doubles' four roundings; the 1e-9 allows for the
  // long double scaling of the check itself.
  const long double arithmetic = 4 * p.digits * std::ldexp(1.0L, -53);
  EXPECT_LE(error_in_last_digit(v, p), 0.5L + arithmetic + 1e-9L)
      << v << " -> " << t << " (sig " << sig << ")";
  if (sig <= 8) EXPECT_LE(arithmetic, 1e-7L);
  // No more digits than asked for, except a whole number under 1e6, printed in full.
  if (std::fabs(v) >= 1e6 || p.last < 0) EXPECT_LE(p.significant, sig) << v << " -> " << t;
}

}  // namespace

TEST(NumberFormat, EveryDecadeOfDoublesBothSigns) {
  const double kMantissas[] = {1.0, 1.0001, 1.5,    2.5,    3.14159, 4.9406564584124654,
                               5.0, 7.7,    9.9994, 9.9996, 9.99999};
  int checked = 0;
  for (int k = -324; k <= 308; ++k)
    for (double m : kMantissas) {
      // m * 10^k as the nearest double, read from text: pow would lose the subnormals.
      const std::string text = std::to_string(m) + "e" + std::to_string(k);
      const double v = std::strtod(text.c_str(), nullptr);
      if (v == 0 || !std::isfinite(v)) continue;  // below 4.9e-324 or above 1.8e308
      for (double x : {v, -v})
        for (int sig : {1, 2, 4, 8, 15}) {
          check(x, sig);
          ++checked;
        }
    }
  // The ends themselves: the smallest subnormal, the largest subnormal, the smallest normal, the
  // largest double.
  for (double v : {std::numeric_limits<double>::denorm_min(),
                   std::numeric_limits<double>::min() - std::numeric_limits<double>::denorm_min(),
                   std::numeric_limits<double>::min(), std::numeric_limits<double>::max()})
    for (int sig : {1, 4, 15}) check(v, sig);
  // 633 decades, 11 mantissas, 2 signs, 5 widths, less the few past either end.
  EXPECT_GT(checked, 633 * 11 * 2 * 5 - 200);
}

TEST(NumberFormat, SubnormalsPrintAsNumbers) {
  using sb::units::number;
  EXPECT_EQ(number(5e-324), "4.941e-324");  // the smallest subnormal is 4.9406564584e-324
  EXPECT_EQ(number(-5e-324, 1), "-5e-324");
  EXPECT_EQ(number(1e-310), "1e-310");
  EXPECT_EQ(number(2.2250738585072014e-308), "2.225e-308");  // the smallest normal double
  EXPECT_EQ(number(1.7976931348623157e308), "1.798e308");    // the largest
  // With a unit: a tiny time is seconds, not a half-written exponent.
  EXPECT_EQ(sb::units::format(1e-322, "s"), "9.881e-323 s");
}

TEST(NumberFormat, AllDigitsReadBackInTheSameStyle) {
  using sb::units::number;
  // Past 15 digits: the shortest text that reads back as the same double, written as the rest of
  // number() writes (no JSON ".0", no "+" or padding zero in the exponent).
  EXPECT_EQ(number(512.0000000000001, 17), "512.0000000000001");
  EXPECT_EQ(number(10000001, 17), "10000001");
  EXPECT_EQ(number(1e30, 17), "1e30");
  EXPECT_EQ(number(1e-5, 17), "1e-5");
  EXPECT_EQ(number(-2.5e-300, 17), "-2.5e-300");
  EXPECT_EQ(number(0.1, 17), "0.1");
  for (double v : {512.0000000000001, 1e30, 1e-5, 1.0 / 3, 5e-324, 123456789012345678.0})
    EXPECT_EQ(std::strtod(number(v, 17).c_str(), nullptr), v) << number(v, 17);
}
