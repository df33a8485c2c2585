#include "core/units.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"

using sb::units::format;
using sb::units::parse;

TEST(Units, ParsesBareNumbersInBaseUnits) {
  EXPECT_DOUBLE_EQ(parse("240", "tokens", "b"), 240);
  EXPECT_DOUBLE_EQ(parse(" 1.97e14 ", "flop_per_s", "p"), 1.97e14);
  EXPECT_DOUBLE_EQ(parse("1,024", "count", "n"), 1024);
  EXPECT_DOUBLE_EQ(parse("8_192", "count", "n"), 8192);
  EXPECT_DOUBLE_EQ(parse("2k", "count", "n"), 2000);
  EXPECT_DOUBLE_EQ(parse("-3", "ratio", "r"), -3);
}

TEST(Units, ParsesPrefixesAndUnits) {
  EXPECT_DOUBLE_EQ(parse("1.2 ms", "s", "t"), 1.2e-3);
  EXPECT_DOUBLE_EQ(parse("300us", "s", "t"), 300e-6);
  EXPECT_DOUBLE_EQ(parse("2 min", "s", "t"), 120);
  EXPECT_DOUBLE_EQ(parse("45 GB/s", "B_per_s", "bw"), 45e9);
  EXPECT_DOUBLE_EQ(parse("4.5e10 B/s", "B_per_s", "bw"), 4.5e10);
  // 16 GiB = 16 * 2^30 = 17179869184 B; 16 GB = 16e9 B.
  EXPECT_DOUBLE_EQ(parse("16 GiB", "B", "hbm"), 17179869184.0);
  EXPECT_DOUBLE_EQ(parse("16 GB", "B", "hbm"), 16e9);
  // 400 Gb/s (bits) = 400e9 / 8 = 5e10 B/s.
  EXPECT_DOUBLE_EQ(parse("400 Gb/s", "B_per_s", "bw"), 5e10);
  EXPECT_DOUBLE_EQ(parse("197 TFLOPs/s", "flop_per_s", "p"), 1.97e14);
  EXPECT_DOUBLE_EQ(parse("197 TFLOPS", "flop_per_s", "p"), 1.97e14);
  EXPECT_DOUBLE_EQ(parse("240 FLOPs/B", "flop_per_B", "i"), 240);
  EXPECT_DOUBLE_EQ(parse("2 M tokens", "tokens", "b"), 2e6);
  EXPECT_DOUBLE_EQ(parse("50%", "ratio", "r"), 0.5);
  EXPECT_DOUBLE_EQ(parse("1.5 x 10^3", "count", "n"), 1500);
  EXPECT_DOUBLE_EQ(parse("yes", "bool", "q"), 1);
  EXPECT_DOUBLE_EQ(parse("No", "bool", "q"), 0);
  EXPECT_DOUBLE_EQ(parse("3 per s", "per_s", "r"), 3);
}

TEST(Units, RejectsBadInputNamingTheField) {
  for (const char* bad :
       {"", "   ", "abc", "1.2 parsecs", "1 GB/s/s", "--3", "1e400", "nan", "inf"}) {
    try {
      parse(bad, "s", "t_math");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const sb::InputError& e) {
      EXPECT_EQ(e.field, "t_math") << bad;
    }
  }
  // A size where a time is asked: the message names both kinds.
  try {
    parse("3 GB", "s", "t_math");
    ADD_FAILURE();
  } catch (const sb::InputError& e) {
    EXPECT_EQ(e.code, "wrong_unit");
    EXPECT_NE(std::string(e.what()).find("s"), std::string::npos);
  }
  EXPECT_THROW(parse("maybe", "bool", "q"), sb::InputError);
  EXPECT_THROW(parse(std::string(300, '1'), "count", "n"), sb::InputError);
}

TEST(Units, FormatsWithPrefixes) {
  EXPECT_EQ(format(1.37e-3, "s"), "1.37 ms");
  EXPECT_EQ(format(2.5e-6, "s"), "2.5 \xC2\xB5s");
  EXPECT_EQ(format(8.2e11, "B_per_s"), "820 GB/s");
  EXPECT_EQ(format(16e9, "B"), "16 GB");
  EXPECT_EQ(format(1.97e14, "flop_per_s"), "1.97e14 FLOPs/s");
  EXPECT_EQ(format(240.2439, "flop_per_B"), "240.2 FLOPs/B");
  EXPECT_EQ(format(1, "bool"), "yes");
  EXPECT_EQ(format(1, "chips"), "1 chip");  // one chip, and 256 chips
  EXPECT_EQ(format(256, "chips"), "256 chips");
  EXPECT_EQ(sb::units::number(8192), "8192");
  EXPECT_EQ(sb::units::number(123456), "123456");
  EXPECT_EQ(sb::units::number(2097152), "2.097e6");
}

// Parameter counts as the book writes them: LLaMA 3 70B's 70,553,706,496 weights are "70.55B"
// (4 digits: 70.55|37), DeepSeek-V3's 671e9 "671B", 1.5e12 "1.5T"; under a million, the number.
TEST(Units, ParameterCountsReadAndWriteAsTheBookDoes) {
  EXPECT_EQ(format(70553706496.0, "params"), "70.55B");
  EXPECT_EQ(format(671e9, "params"), "671B");
  EXPECT_EQ(format(1.5e12, "params"), "1.5T");
  EXPECT_EQ(format(1318912, "params"), "1.319M");  // 161 norms of 8192: 1,318,912
  EXPECT_EQ(format(8192, "params"), "8192");
  EXPECT_EQ(parse("70B", "params", "n_params"), 70e9);
  EXPECT_EQ(parse("17.44B parameters", "params", "n_params"), 17.44e9);
  EXPECT_EQ(parse("1.5T", "params", "n_params"), 1.5e12);
  EXPECT_EQ(parse("400M", "params", "n_params"), 400e6);
  // Bytes or chips are not a parameter count, and the error says which was asked.
  for (const char* bad : {"70 GB", "5 chips"}) {
    try {
      parse(bad, "params", "n_params");
      ADD_FAILURE() << bad;
    } catch (const sb::InputError& e) {
      EXPECT_EQ(e.field, "n_params");
      EXPECT_NE(std::string(e.what()).find("a parameter count"), std::string::npos) << e.what();
    }
  }
}

TEST(Units, RoundTripsWhatItFormats) {
  for (double v : {1.37e-3, 4.5e10, 1.97e14, 2.5e-6, 96e9})
    for (const char* u : {"s", "B", "B_per_s", "flop_per_s", "params"}) {
      double back = parse(format(v, u), u, "x");
      EXPECT_NEAR(back, v, v * 1e-3) << format(v, u);
    }
}

TEST(Units, NumberRoundsToSignificantDigits) {
  using sb::units::number;
  EXPECT_EQ(number(240.2439024), "240.2");  // 4 digits: 240.2|439
  EXPECT_EQ(number(9.99996), "10");         // rounds up into the next decade: 10.00 -> "10"
  EXPECT_EQ(number(0.5), "0.5");
  EXPECT_EQ(number(0.0012345), "0.001235");  // 1.2345e-3 -> 4 digits 1235 (round half away)
  EXPECT_EQ(number(0.00099), "9.9e-4");      // below 1e-3: exponent form
  EXPECT_EQ(number(-1.37e-3), "-0.00137");
  EXPECT_EQ(number(99999.6), "100000");    // a whole number past 4 digits keeps its digits
  EXPECT_EQ(number(999999.7), "1000000");  // under 1e6, so printed whole: 999999.7 -> 1000000
  EXPECT_EQ(number(1.97e14), "1.97e14");
  EXPECT_EQ(number(4.5e-11, 2), "4.5e-11");
  EXPECT_EQ(number(1.0 / 3.0, 17), "0.3333333333333333");  // round-trip form
}

// The decimal exponent comes from the binary one (floor((b - 1) log10 2), b from frexp), which can
// be one short; the rounding check must then move it up. Powers of ten and their neighbours
// are where that shows.
TEST(Units, NumberFindsTheDecadeAtEveryScale) {
  using sb::units::number;
  EXPECT_EQ(number(1000), "1000");  // 1000 = 0.977 * 2^10: (10 - 1) * 0.301 = 2.7 -> 2, one short
  EXPECT_EQ(number(1e6), "1e6");    // exponent form from 1e6 up
  EXPECT_EQ(number(1e22), "1e22");  // the largest power of ten that is an exact double
  EXPECT_EQ(number(1e23), "1e23");  // past the table of exact powers
  EXPECT_EQ(number(9.9996e-4),
            "1e-3");  // 9999.6 rounds to 10000 = top: the next decade, "1.000" -> "1"
  EXPECT_EQ(number(1e-300), "1e-300");
  EXPECT_EQ(number(1.5e300), "1.5e300");
  // Halves round away from zero. 1.0005 is stored as 1.000499999..., but times 1000 the product
  // rounds to exactly 1000.5, a half: 1001 -> "1.001". 2.5 and 0.125 are exact halves.
  EXPECT_EQ(number(1.0005), "1.001");
  EXPECT_EQ(number(2.5, 1), "3");
  EXPECT_EQ(number(0.125, 2), "0.13");
  EXPECT_EQ(number(1234.5), "1235");  // a whole-number print of 1234.5 rounds up too
  // Across 10^-40 .. 10^40, every value reads back within half a unit in the 4th digit (5e-4).
  for (int k = -40; k <= 40; ++k)
    for (double m : {1.0, 1.0001, 2.5, 9.9994, 9.9996}) {
      const double v = m * std::pow(10.0, k);
      EXPECT_NEAR(std::stod(number(v)), v, v * 5.0001e-4) << v << " -> " << number(v);
    }
}

// The unit table the site formats with (op "units") says what format() does: rendering each value
// by the table's rule gives format()'s text, for every unit, at every decade and at the edges of
// each form.
TEST(Units, TableDescribesFormat) {
  const sb::json table = sb::units::table_json();
  auto by_table = [](const sb::json& u, double v) {
    if (u.contains("words")) return u["words"][v != 0 ? 1 : 0].get<std::string>();
    if (u.contains("one") && v == 1) return u["one"].get<std::string>();
    const std::string before = u["before"], after = u["after"];
    if (u.contains("forms"))
      for (const auto& f : u["forms"])
        if (std::fabs(v) >= f["at"].get<double>())
          return before + sb::units::number(v / f["scale"].get<double>()) +
                 f["after"].get<std::string>();
    return before + sb::units::number(v) + after;
  };
  std::vector<double> values = {0, 1, 0.5, 3599, 3600, 86400, 1e-13, 0.9999999e-3, 0.99999e-3};
  for (int k = -14; k <= 20; ++k)
    for (double m : {1.0, 1.5, 9.99996, 0.99999999}) values.push_back(m * std::pow(10.0, k));
  ASSERT_GT(table.size(), 10u);
  for (const auto& u : table) {
    const std::string id = u["id"];
    EXPECT_TRUE(sb::units::known(id)) << id;
    EXPECT_EQ(u["symbol"], sb::units::symbol(id));
    EXPECT_EQ(u["example"], sb::units::example(id));
    EXPECT_EQ(u["prefixes"], u.contains("forms") ? "si" : "none") << id;
    for (double v : values)
      for (double s : {1.0, -1.0})
        EXPECT_EQ(by_table(u, s * v), format(s * v, id)) << id << " " << s * v;
  }
  // Spot checks of the table's own reading: 8.2e11 B/s -> "820 GB/s" (8.2e11 >= 1e9, 8.2e11 / 1e9
  // = 820); 1.97e14 FLOPs/s has no prefix forms; 2 h = 7200 s -> "2 h".
  auto unit = [&](const std::string& id) {
    for (const auto& u : table)
      if (u["id"] == id) return u;
    return sb::json();
  };
  EXPECT_EQ(by_table(unit("B_per_s"), 8.2e11), "820 GB/s");
  EXPECT_EQ(by_table(unit("flop_per_s"), 1.97e14), "1.97e14 FLOPs/s");
  EXPECT_EQ(by_table(unit("s"), 7200), "2 h");
  EXPECT_EQ(by_table(unit("hz"), 9.4e8), "940 MHz");
  EXPECT_EQ(by_table(unit("usd_per_hour"), 4.2), "$4.2/h");
}

// The book's shortcuts: rounding to a few digits, and a binary size called by its decimal name.
TEST(Units, RoundSigAndDecimalName) {
  EXPECT_DOUBLE_EQ(sb::units::round_sig(1024, 1), 1000);
  EXPECT_DOUBLE_EQ(sb::units::round_sig(134217728, 2), 1.3e8);  // tpus Q4: 2 x 4096 x 16384
  EXPECT_DOUBLE_EQ(sb::units::round_sig(20480, 2), 2e4);
  EXPECT_DOUBLE_EQ(sb::units::round_sig(1.5, 1), 2);  // half away from zero
  EXPECT_DOUBLE_EQ(sb::units::round_sig(-1.5, 1), -2);
  EXPECT_DOUBLE_EQ(sb::units::round_sig(0.0671, 1), 0.07);
  EXPECT_DOUBLE_EQ(sb::units::round_sig(0, 3), 0);
  // 2^34 B = 16 GiB reads 16 GB; 2^21 = 2 MiB reads 2e6; 32768 = 32 KiB reads 32e3;
  // 3 x 2^20 reads 3e6; under 1 KiB nothing changes.
  EXPECT_DOUBLE_EQ(sb::units::decimal_name(17179869184.0), 16e9);
  EXPECT_DOUBLE_EQ(sb::units::decimal_name(2097152), 2e6);
  EXPECT_DOUBLE_EQ(sb::units::decimal_name(32768), 32e3);
  EXPECT_DOUBLE_EQ(sb::units::decimal_name(3145728), 3e6);
  EXPECT_DOUBLE_EQ(sb::units::decimal_name(1000), 1000);
  // 2^50 B = 1 PiB reads 1e15; larger sizes keep the PiB step (2^60 B reads 1024e15).
  EXPECT_DOUBLE_EQ(sb::units::decimal_name(1125899906842624.0), 1e15);
  EXPECT_DOUBLE_EQ(sb::units::decimal_name(1152921504606846976.0), 1024e15);
  EXPECT_EQ(sb::units::decimal_name_text(17179869184.0), "2^34 B (16 GiB) as 16 GB");
  EXPECT_EQ(sb::units::decimal_name_text(3145728), "3 MiB as 3 MB");
  EXPECT_EQ(sb::units::decimal_name_text(512), "512 B as 512 B");
}
