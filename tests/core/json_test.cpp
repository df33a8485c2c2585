// The JSON text writer behind calculator results and derivations: what it writes must read back
// through nlohmann as the same strings and numbers.
#include "core/json.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/registry.hpp"
#include "core/trace.hpp"

namespace {

std::string str(std::string_view s) {
  sb::Out out;
  sb::append_json(out, s);
  return out.str();
}

std::string num(double v) {
  sb::Out out;
  sb::append_json(out, v);
  return out.str();
}

TEST(JsonWriter, EscapesQuotesBackslashesAndControls) {
  EXPECT_EQ(str("plain"), "\"plain\"");
  // TeX is full of backslashes: each is doubled.
  EXPECT_EQ(str("\\frac{a}{b}"), "\"\\\\frac{a}{b}\"");
  EXPECT_EQ(str("say \"hi\""), "\"say \\\"hi\\\"\"");
  EXPECT_EQ(str("a\nb"), "\"a\\nb\"");
  EXPECT_EQ(str(std::string_view("\x01\x1f", 2)), "\"\\u0001\\u001f\"");
  EXPECT_EQ(str(""), "\"\"");
}

TEST(JsonWriter, WritesAsciiOnlyAndReplacesBrokenBytes) {
  // Outside ASCII everything becomes \u escapes: µ is U+00B5 (C2 B5), ≤ is U+2264 (E2 89 A4).
  EXPECT_EQ(str("µs ≤ 1"), "\"\\u00b5s \\u2264 1\"");
  // Four bytes F0 9F 98 80 are U+1F600; minus 0x10000 that is 0xF600, whose top ten bits (0x3D)
  // and low ten bits (0x200) make the surrogate pair D83D DE00.
  EXPECT_EQ(str("\xF0\x9F\x98\x80"), "\"\\ud83d\\ude00\"");
  EXPECT_EQ(str("a\xFFz"), "\"a\\ufffdz\"");                    // a lone 0xFF -> U+FFFD
  EXPECT_EQ(str("\xC3"), "\"\\ufffd\"");                        // truncated two-byte sequence
  EXPECT_EQ(str("\xC0\xAF"), "\"\\ufffd\\ufffd\"");             // overlong '/' : two bad bytes
  EXPECT_EQ(str("\xED\xA0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");  // a surrogate
  // Read back, the escapes are the same characters again.
  EXPECT_EQ(sb::json::parse(str("µs ≤ 1")).get<std::string>(), "µs ≤ 1");
  EXPECT_EQ(sb::json::parse(str("\xF0\x9F\x98\x80")).get<std::string>(), "\xF0\x9F\x98\x80");
  // Whatever goes in, nlohmann reads the output back as a string, and the output is ASCII.
  for (std::string s :
       {"\xFF\xFE", "x\xE2\x82", "\xF4\x90\x80\x80", "\"\\\n\t", "\xC2\xB5\xF0\x9F\x98"}) {
    const std::string out = str(s);
    EXPECT_TRUE(sb::json::parse(out).is_string()) << s;
    for (unsigned char c : out) EXPECT_LT(c, 0x80) << s;
  }
}

TEST(JsonWriter, NumbersReadBackExactly) {
  EXPECT_EQ(num(240), "240.0");  // as nlohmann writes a double
  EXPECT_EQ(num(0.1), "0.1");
  EXPECT_EQ(num(1.97e14), "197000000000000.0");
  EXPECT_EQ(num(NAN), "null");
  EXPECT_EQ(num(-INFINITY), "null");
  for (double v : {1.0 / 3, 8.75e9, 6.02214076e23, 5e-324, -2.5e-7})
    EXPECT_EQ(sb::json::parse(num(v)).get<double>(), v) << v;
}

TEST(JsonWriter, OutGrowsAndKeepsEverything) {
  sb::Out out;
  std::string want;
  // 3000 pieces of 7 chars = 21000 chars: past the first 4096-char block and three doublings
  // (8192, 16384, 32768).
  for (int i = 0; i < 3000; ++i) {
    out << "abc" << 'd' << std::string_view("efg");
    want += "abcdefg";
  }
  EXPECT_EQ(out.view(), want);
  out.clear();
  EXPECT_TRUE(out.empty());
  out << "x";
  EXPECT_EQ(out.str(), "x");
}

double ratio(const double* x) { return x[0] / x[1]; }
constexpr sb::Symbol kSyms[] = {sb::sym("I", "flop_per_B", 1, 1e6, "intensity"),
                                sb::sym("peak", "flop_per_s", 1, 1e16, "peak FLOPs/s"),
                                sb::sym("BW", "B_per_s", 1, 1e13, "bandwidth")};
constexpr sb::Formula kIntensity =
    sb::record("I", "peak / BW", "flop_per_B", "test", "peak BW", kSyms, ratio);

TEST(JsonWriter, TraceStepsAreJson) {
  sb::Trace tr;
  // \frac{1.97 \times 10^{14}}{8.2 \times 10^{11}} = 240.2 FLOPs/B
  const double v = tr.step("Critical intensity", kIntensity, {1.97e14, 8.2e11});
  tr.note("a note");
  EXPECT_DOUBLE_EQ(v, 1.97e14 / 8.2e11);
  const sb::json j = tr.to_json();
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["numbers"], "\\frac{1.97 \\times 10^{14}}{8.2 \\times 10^{11}}");
  EXPECT_EQ(j[0]["unit"], "flop_per_B");
  EXPECT_EQ(j[0]["text"], "240.2 FLOPs/B");
  EXPECT_EQ(j[1], sb::json({{"what", "a note"}}));
  // A pattern with more '#' than numbers keeps the extra '#'.
  EXPECT_EQ(sb::tex_fill("# + #", {2}), "2 + #");
}

TEST(JsonWriter, ResultMembersHoldValuesNotesAndExtras) {
  sb::Result r;
  r.value("t", 0.0012, "s", "time");
  r.value("nan", NAN, "s", "undefined");
  r.note("careful");
  r.extra["verdict"] = "compute-bound";
  sb::Out out;
  out << '{';
  r.write_members(out);
  out << '}';
  const sb::json j = sb::json::parse(out.view());
  EXPECT_EQ(j["values"]["t"]["text"], "1.2 ms");
  EXPECT_TRUE(j["values"]["nan"]["value"].is_null());
  EXPECT_EQ(j["notes"], sb::json::array({"careful"}));
  EXPECT_EQ(j["verdict"], "compute-bound");
}

// The writer's text is the text append_json writes for the tree it spells: commas between the
// values of a container and none before its first, a double as "8.0" (nlohmann's dump), an
// integer() as "8", a number that is not finite as null.
TEST(JsonWriter, WriterPutsCommasBetweenValuesOnly) {
  sb::Out out;
  sb::JsonWriter w(out);
  w.obj().key("sizes").arr().integer(4).integer(-8).end().key("t").num(8);
  w.key("names").strs({"X", "Y"}).key("empty").arr().end().key("inner").obj().end();
  w.key("ok").boolean(true).key("xs").nums({0.5, NAN}).key("tree").value(sb::json{{"a", 1}});
  w.key("rows").arr().arr().integer(1).end().arr().integer(2).integer(3).end().end().end();
  EXPECT_EQ(out.view(),
            "{\"sizes\":[4,-8],\"t\":8.0,\"names\":[\"X\",\"Y\"],\"empty\":[],\"inner\":{},"
            "\"ok\":true,\"xs\":[0.5,null],\"tree\":{\"a\":1},\"rows\":[[1],[2,3]]}");
}

// Result::writer's members follow those of `extra`, each after a comma, in the order written.
TEST(JsonWriter, ResultWriterMembersFollowTheExtras) {
  sb::Result r;
  r.extra["verdict"] = "fits";
  sb::JsonWriter w = r.writer();
  w.key("plan").obj().key("steps").arr().end().end().key("case").integer(3);
  sb::Out out;
  out << '{';
  r.write_members(out);
  out << '}';
  EXPECT_EQ(out.view(),
            "{\"values\":{},\"notes\":[],\"verdict\":\"fits\",\"plan\":{\"steps\":[]},\"case\":3}");
}

}  // namespace
