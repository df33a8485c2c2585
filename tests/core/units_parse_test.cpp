// Reading a reader's text (core/units.hpp): decimal prefixes and their binary readings, commas
// that group thousands against decimal commas, and bounds.
#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "core/units.hpp"

using sb::units::Bound;
using sb::units::parse;
using sb::units::parse_bound;
using sb::units::parse_quantity;
using sb::units::Relation;

namespace {

// The InputError parse throws for `text`, or a failure if it reads it.
sb::InputError refused(const std::string& text, const std::string& unit) {
  try {
    const double v = parse(text, unit, "answers.x");
    ADD_FAILURE() << "read '" << text << "' as " << v;
  } catch (const sb::InputError& e) {
    EXPECT_EQ(e.field, "answers.x") << text;
    return e;
  }
  return sb::InputError("", "", "");
}

}  // namespace

TEST(UnitsParse, PrefixesAloneAreDecimalWithABinaryReading) {
  // "2M" tokens: 2e6 as written, 2 * 2^20 = 2097152 in binary.
  auto q = parse_quantity("2M", "tokens", "x");
  EXPECT_DOUBLE_EQ(q.value, 2e6);
  ASSERT_TRUE(q.binary.has_value());
  EXPECT_DOUBLE_EQ(*q.binary, 2097152);
  // "1k" a count: 1000, or 1024.
  q = parse_quantity("1k", "count", "x");
  EXPECT_DOUBLE_EQ(q.value, 1000);
  EXPECT_DOUBLE_EQ(q.binary.value(), 1024);
  // "16G" bytes: the prefix alone scales the asked unit: 16e9 B, or 16 * 2^30 = 17179869184 B.
  q = parse_quantity("16G", "B", "x");
  EXPECT_DOUBLE_EQ(q.value, 16e9);
  EXPECT_DOUBLE_EQ(q.binary.value(), 17179869184.0);
  // With the unit written out, the same: "16 GB" is 16e9 B, or 16 GiB.
  q = parse_quantity("16 GB", "B", "x");
  EXPECT_DOUBLE_EQ(q.value, 16e9);
  EXPECT_DOUBLE_EQ(q.binary.value(), 17179869184.0);
  // A scale word before the unit: "2 M tokens" = 2e6, or 2^21.
  q = parse_quantity("2 M tokens", "tokens", "x");
  EXPECT_DOUBLE_EQ(q.value, 2e6);
  EXPECT_DOUBLE_EQ(q.binary.value(), 2097152);
  // Bits: 400 Gb/s = 400e9 / 8 = 5e10 B/s, or 400 * 2^30 / 8 = 53687091200 B/s.
  q = parse_quantity("400 Gb/s", "B_per_s", "x");
  EXPECT_DOUBLE_EQ(q.value, 5e10);
  EXPECT_DOUBLE_EQ(q.binary.value(), 53687091200.0);
  // A prefix under the line divides: 240 FLOPs/kB = 0.24 FLOPs/B, or 240/1024 = 0.234375.
  q = parse_quantity("240 FLOPs/kB", "flop_per_B", "x");
  EXPECT_DOUBLE_EQ(q.value, 0.24);
  EXPECT_DOUBLE_EQ(q.binary.value(), 0.234375);
  // No decimal prefix of k or above, no binary reading: a binary prefix, a small one, none.
  EXPECT_FALSE(parse_quantity("16 GiB", "B", "x").binary.has_value());
  EXPECT_FALSE(parse_quantity("1.2 ms", "s", "x").binary.has_value());
  EXPECT_FALSE(parse_quantity("240", "tokens", "x").binary.has_value());
  // More prefixes alone: T, P, E, and the binary ones.
  EXPECT_DOUBLE_EQ(parse("3T", "flop", "x"), 3e12);
  EXPECT_DOUBLE_EQ(parse("1.5P", "flop", "x"), 1.5e15);
  EXPECT_DOUBLE_EQ(parse("2E", "flop", "x"), 2e18);
  EXPECT_DOUBLE_EQ(parse("4Gi", "B", "x"), 4294967296.0);
  // A small prefix alone is a guess (minutes or milliseconds?): refused.
  EXPECT_EQ(refused("5m", "s").code, "bad_unit");
  EXPECT_EQ(refused("5 u", "s").code, "bad_unit");
}

TEST(UnitsParse, CommasGroupThousandsOnly) {
  EXPECT_DOUBLE_EQ(parse("1,024", "count", "x"), 1024);
  EXPECT_DOUBLE_EQ(parse("12,345,678.5", "count", "x"), 12345678.5);
  EXPECT_DOUBLE_EQ(parse("-1,000 tokens", "tokens", "x"), -1000);
  EXPECT_DOUBLE_EQ(parse("8_192", "count", "x"), 8192);
  EXPECT_DOUBLE_EQ(parse("1_0", "count", "x"), 10);  // underscores may group any way
  EXPECT_DOUBLE_EQ(parse("1,024 GB", "B", "x"), 1.024e12);
  // A decimal comma is not read as a thousands separator: "1,5" is not 15.
  for (const char* bad : {"1,5", "0,25", "1,0000", "1,24", "1.024,5", "1,024,5", "1234,567", "1,",
                          "1,5 ms", "12,34,567"}) {
    const sb::InputError e = refused(bad, "count");
    EXPECT_EQ(e.code, "bad_number") << bad;
    EXPECT_NE(std::string(e.what()).find("cannot read"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("decimal point"), std::string::npos) << e.what();
  }
}

TEST(UnitsParse, DollarsAndOtherForms) {
  EXPECT_DOUBLE_EQ(parse("$1.20", "usd", "x"), 1.2);
  EXPECT_DOUBLE_EQ(parse("$4.20/h", "usd_per_hour", "x"), 4.2 / 3600);
  EXPECT_DOUBLE_EQ(parse("$2 per hour", "usd_per_hour", "x"), 2.0 / 3600);
  EXPECT_DOUBLE_EQ(parse("$2M", "usd", "x"), 2e6);
  EXPECT_DOUBLE_EQ(parse("3 per s", "per_s", "x"), 3);
  EXPECT_DOUBLE_EQ(parse("1.5 x 10^3", "count", "x"), 1500);
  EXPECT_DOUBLE_EQ(parse("2\xC3\x97"
                         "10^-3 s",
                         "s", "x"),
                   2e-3);
  EXPECT_EQ(refused("1 GB/s/s", "B_per_s").code, "bad_unit");
  EXPECT_EQ(refused("3 GB", "s").code, "wrong_unit");
}

// A plain number (a count) typed with a unit is refused as such, never as "a quantity in chips"
// (the first unitless unit of the table), and the message gives the plain value: 2.11 GHz is
// 2.11 * 1e9 = 2.11e9 cycles per second.
TEST(UnitsParse, AUnitWhereAPlainNumberIsAsked) {
  const auto e = refused("2.11 GHz", "count");
  EXPECT_EQ(e.code, "wrong_unit");
  EXPECT_NE(std::string(e.what()).find("expected a plain number"), std::string::npos) << e.what();
  EXPECT_EQ(std::string(e.what()).find("chips"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("2.11 GHz is 2.11e9"), std::string::npos) << e.what();
  // A count's unit word names what it counts: "5 chips" is no number of layers, "7e10 params" no
  // chip count; where chips are asked, chips and devices are read.
  const auto chips = refused("5 chips", "count");
  EXPECT_EQ(chips.code, "wrong_unit");
  EXPECT_NE(std::string(chips.what()).find("not a number of chips"), std::string::npos)
      << chips.what();
  EXPECT_EQ(refused("7e10 params", "chips").code, "wrong_unit");
  EXPECT_DOUBLE_EQ(parse("8192 chips", "chips", "x"), 8192);
  EXPECT_DOUBLE_EQ(parse("2 k devices", "chips", "x"), 2000);  // 2 x 1e3
  EXPECT_DOUBLE_EQ(parse("7e10 params", "count", "x"), 7e10);
  // Where no bytes are asked, B is a billion, as the book writes counts.
  EXPECT_DOUBLE_EQ(parse("70B", "count", "x"), 7e10);                    // 70 x 1e9
  EXPECT_DOUBLE_EQ(parse("17.44B parameters", "count", "x"), 1.744e10);  // 17.44 x 1e9
  EXPECT_DOUBLE_EQ(parse("4B tokens", "tokens", "x"), 4e9);
  EXPECT_DOUBLE_EQ(parse("16 GB", "B", "x"), 1.6e10);  // bytes keep their B
  // Too long is about the value typed, a calculator's input as much as an answer.
  const auto longer = refused(std::string(201, '1'), "count");
  EXPECT_NE(std::string(longer.what()).find("the value is too long"), std::string::npos)
      << longer.what();
}

TEST(UnitsParse, Bounds) {
  struct Case {
    const char* text;
    Relation rel;
    double value;
    const char* name;
  };
  for (const Case& c : std::initializer_list<Case>{
           {"X < 8", Relation::Below, 8, "X"},
           {"X<8", Relation::Below, 8, "X"},
           {"< 8", Relation::Below, 8, ""},
           {"<= 8", Relation::AtMost, 8, ""},
           {"\xE2\x89\xA4 8", Relation::AtMost, 8, ""},  // ≤
           {"at most 8", Relation::AtMost, 8, ""},
           {"up to 8", Relation::AtMost, 8, ""},
           {"b_crit >= 240", Relation::AtLeast, 240, "b_crit"},
           {"at least 1,024", Relation::AtLeast, 1024, ""},
           {"more than 2k", Relation::Above, 2000, ""},
           {"over 8", Relation::Above, 8, ""},
           {"B > 3", Relation::Above, 3, "B"},
           {"8", Relation::Equal, 8, ""},
           {"~ 8", Relation::Equal, 8, ""},
       }) {
    const Bound b = parse_bound(c.text, "count", "answers.x");
    EXPECT_EQ(b.relation, c.rel) << c.text;
    EXPECT_DOUBLE_EQ(b.value, c.value) << c.text;
    EXPECT_EQ(b.name, c.name) << c.text;
  }
  // The quantity keeps its unit and its binary reading.
  const Bound t = parse_bound("T <= 2 ms", "s", "answers.t");
  EXPECT_EQ(t.relation, Relation::AtMost);
  EXPECT_DOUBLE_EQ(t.value, 2e-3);
  EXPECT_FALSE(t.binary.has_value());
  const Bound m = parse_bound("< 16 GB", "B", "answers.m");
  EXPECT_DOUBLE_EQ(m.binary.value(), 17179869184.0);
  // Not bounds: a name with no sign, a sign with no number, a word that only starts like one.
  for (const char* bad : {"X 8", "<", "at most", "overhead 8", "X < ", "< 1,5"}) {
    try {
      parse_bound(bad, "count", "answers.x");
      ADD_FAILURE() << "read '" << bad << "'";
    } catch (const sb::InputError& e) {
      EXPECT_EQ(e.field, "answers.x") << bad;
    }
  }
}
