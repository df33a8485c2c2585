#include "core/check.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <string>

#include "core/error.hpp"

namespace {

using sb::From;
using sb::Quantity;

constexpr sb::Slot::Var kBDF[] = {
    {"B", "batch", 1, 4096}, {"D", "model dim", 128, 16384}, {"F", "ffw dim", 128, 65536}};

// A problem made up for the grader alone: the time of a matmul, T = 2*B*D*F / P.
const sb::Param kGiven[] = {sb::num("B", "count", 256, "batch"),
                            sb::num("P", "flop_per_s", 1e14, "peak")};
const std::array<sb::Slot, 3> kSlots = [] {
  sb::Slot t;
  t.name = "t";
  t.unit = "s";
  sb::Slot f;
  f.name = "formula";
  f.unit = "flop";
  f.kind = sb::Slot::Kind::Formula;
  f.vars = kBDF;
  f.formula = [](const std::map<std::string, double>& v) {
    return 2 * v.at("B") * v.at("D") * v.at("F");
  };
  sb::Slot yes;
  yes.name = "compute_bound";
  yes.unit = "bool";
  yes.kind = sb::Slot::Kind::Bool;
  return std::array<sb::Slot, 3>{t, f, yes};
}();

sb::Problem matmul_time() {
  sb::Problem p;
  p.id = "test.T";
  p.chapter = "test";
  p.title = "matmul time";
  p.kind = "formula";
  p.given = kGiven;
  p.slots = kSlots;
  p.solve = [](const sb::Inputs& in, sb::Trace&) {
    // T = 2 * B * 1024 * 1024 / P
    return sb::Answers{{"t", 2 * in.num("B") * 1024 * 1024 / in.num("P")}, {"compute_bound", 1}};
  };
  return p;
}

const sb::json& slot(const sb::json& r, const std::string& name) {
  for (const auto& x : r["results"])
    if (x["slot"] == name) return x;
  static const sb::json none = sb::json::object();
  ADD_FAILURE() << "no result for " << name;
  return none;
}

// A problem for the grading rules: an array of 2^34 bytes (A) sent to one chip over 2 links of
// 4.5e10 B/s one way, a ring of N chips, a batch, a ratio, hops and a bound.
constexpr sb::Param kRuleGiven[] = {sb::count("N", 4, "chips on the ring", {}, 2, 64)};
constexpr sb::Slot kRuleSlots[] = {
    sb::number("bytes", "B", "bytes of A"),
    sb::number("bytes_dec", "B", "a decimal size"),
    sb::derived(sb::number("t", "s", "time over the links"), From::Link),
    sb::derived(sb::number("t_ring", "s", "ring time"), From::Link),
    sb::number("t_plain", "s", "a time from nothing in particular"),
    sb::number("tokens", "tokens", "global batch"),
    sb::number("ratio", "ratio", "a ratio"),
    sb::measures(sb::number("hops", "count", "hops"), Quantity::Hops),
    sb::at_most(sb::number("x_max", "count", "largest X")),
    sb::number("flops", "flop", "FLOPs"),
    sb::derived(sb::number("bw", "B_per_s", "link bandwidth"), From::Link),
    sb::number("intensity", "flop_per_B", "intensity"),
    sb::derived(sb::number("t_math", "s", "compute time"), From::Flops)};

sb::Problem rules() {
  sb::Problem p;
  p.id = "test.rules";
  p.chapter = "test";
  p.title = "grading rules";
  p.kind = "numeric";
  p.given = kRuleGiven;
  p.slots = kRuleSlots;
  p.solve = [](const sb::Inputs& in, sb::Trace&) {
    const double A = 17179869184.0, n = in.num("N");
    sb::Answers a;
    a["bytes"] = A;
    a.book("bytes", 16e9, "reads 2^34 B as 16 GB");
    a["bytes_dec"] = 16e9;
    // 2^34 / (2 x 4.5e10) = 0.190887435 s; the book's 16e9 / 9e10 = 0.177777 s.
    a["t"] = A / (2 * 4.5e10);
    a.book("t", 16e9 / (2 * 4.5e10), "reads 2^34 B as 16 GB");
    // (N - 1) / N x 1 GB / 1 GB/s: 0.75 s at N = 4; the slip N / N = 1 s.
    a["t_ring"] = (n - 1) / n;
    a.slip("t_ring", n / n, "used N where N-1 belongs");
    a["t_plain"] = 0.5;
    a["tokens"] = 2097152;             // 512 x 4096 = 2^21
    a["ratio"] = 226.3148 / 136.0857;  // 1.66306
    a["hops"] = 3;
    a["x_max"] = 8192 / 5100.0;  // 1.6063
    a["flops"] = 1e12;
    a["bw"] = 4.5e10;
    a["intensity"] = 240;
    a["t_math"] = 1e-3;
    return a;
  };
  return p;
}

// Grades one answer of test.rules; given N = `n`.
sb::json graded(const std::string& slot_name, const std::string& answer, double n = 4) {
  const sb::json r = sb::check::grade(rules(), {{slot_name, answer}}, {{"N", n}});
  return slot(r, slot_name);
}

bool has(const sb::json& x, const char* key, const std::string& part) {
  return x.value(key, "").find(part) != std::string::npos;
}

}  // namespace

TEST(Check, NumberVerdicts) {
  sb::Slot s;
  s.unit = "tokens";
  EXPECT_EQ(sb::check::number(120, 120.12, s).verdict, sb::check::Verdict::Correct);
  // 115 is 4.3% off: outside 2%, inside the 10% "close" band.
  EXPECT_EQ(sb::check::number(115, 120.12, s).verdict, sb::check::Verdict::Close);
  EXPECT_EQ(sb::check::number(60, 120.12, s).verdict, sb::check::Verdict::Wrong);
}

// Rule 1: within tolerance of the exact value. 2^34 / 9e10 = 0.19089 s; 190.9 ms is 0.007% off.
TEST(Check, RuleExact) {
  auto x = graded("t", "190.9 ms");
  EXPECT_EQ(x["verdict"], "correct");
  EXPECT_EQ(x["rule"], "exact");
  EXPECT_TRUE(has(x, "note", "exact 190.9 ms")) << x.dump();
  // The exact value itself needs no note.
  EXPECT_FALSE(graded("hops", "3").contains("note"));
}

// Rule 2: a value the book's shortcut gives. 16e9 / 9e10 = 0.17778 s is 6.9% below the exact
// 0.19089 s: correct, with the shortcut and the exact value in the note.
TEST(Check, RuleBook) {
  auto x = graded("t", "177.8 ms");
  EXPECT_EQ(x["verdict"], "correct");
  EXPECT_EQ(x["rule"], "book");
  EXPECT_EQ(x["note"], "the book reads 2^34 B as 16 GB; exact 190.9 ms");
  EXPECT_EQ(graded("bytes", "16e9")["rule"], "book");
  // Without the shortcut the same 16e9 would be a GiB/GB slip (2^34 / 16e9 = 1.0737).
  EXPECT_EQ(graded("bytes", "17.18 GB")["rule"], "exact");
}

// Rule 3: a decimal prefix read as binary where the slot is a size or count. "2M" is 2e6, 4.6%
// below 2^21 = 2097152, and 2 x 2^20 exactly.
TEST(Check, RuleBinaryReading) {
  auto x = graded("tokens", "2M");
  EXPECT_EQ(x["verdict"], "correct");
  EXPECT_EQ(x["rule"], "binary");
  EXPECT_TRUE(has(x, "note", "binary prefixes"));
  // 16G bytes: 16e9 is the book's value; 16 x 2^30 = 2^34 the exact one.
  EXPECT_EQ(graded("bytes", "16G")["rule"], "book");
  // A time is not a size: "177.8 ms" is the book's, "190.9" the exact, and nothing reads binary.
  EXPECT_EQ(graded("t_plain", "0.5k")["verdict"], "wrong");
}

// Rule 4: the exact value rounded to the digits typed; trailing zeros of a whole number are not
// significant.
TEST(Check, RuleDigits) {
  EXPECT_EQ(sb::check::typed_digits("2e6"), 1);
  EXPECT_EQ(sb::check::typed_digits("1000"), 1);
  EXPECT_EQ(sb::check::typed_digits("30"), 1);
  EXPECT_EQ(sb::check::typed_digits("1024"), 4);
  EXPECT_EQ(sb::check::typed_digits("1,024"), 4);
  EXPECT_EQ(sb::check::typed_digits("1.50"), 3);
  EXPECT_EQ(sb::check::typed_digits("0.050"), 2);
  EXPECT_EQ(sb::check::typed_digits("2.1 M tokens"), 2);
  EXPECT_EQ(sb::check::typed_digits("X < 1.6"), 2);
  EXPECT_EQ(sb::check::typed_digits("b_crit2 <= 240"), 2);
  EXPECT_EQ(sb::check::typed_digits("$1.20/h"), 3);
  EXPECT_EQ(sb::check::typed_digits("none"), 0);
  // 2^21 = 2097152 to 1 digit is 2e6.
  auto x = graded("tokens", "2e6");
  EXPECT_EQ(x["verdict"], "correct");
  EXPECT_EQ(x["rule"], "digits");
  EXPECT_TRUE(has(x, "note", "correct to 1 digit; exact")) << x.dump();
  // 1.66306 is "2" to 1 digit and "1.7" to 2; "1.6" is neither: 3.8% off, close, and the hint
  // gives the exact value to the digits typed.
  EXPECT_EQ(graded("ratio", "2")["rule"], "digits");
  EXPECT_EQ(graded("ratio", "1.7")["rule"], "digits");
  auto close = graded("ratio", "1.6");
  EXPECT_EQ(close["verdict"], "close");
  EXPECT_TRUE(has(close, "hint", "to 2 digits the exact value is 1.7")) << close.dump();
  // 17179869184 B to 1 digit is 2e10, and 16e9 (the book's) to 1 digit too.
  EXPECT_EQ(graded("bytes", "2e10")["rule"], "digits");
  // The book's 0.17778 s to 1 digit is 0.2 s; the exact 0.19089 s is too.
  EXPECT_EQ(graded("t", "0.2")["rule"], "digits");
  // Hop counts are exact: 3 hops typed as 4 is wrong, never "correct to 1 digit".
  EXPECT_EQ(graded("hops", "4")["verdict"], "wrong");
}

// Rule 5: a known mistake, even where rounding would accept it. On a ring of 32 the exact
// 31/32 = 0.96875 s is "1" to 1 digit, but 1 s is the slip N/N.
TEST(Check, RuleSlip) {
  auto x = graded("t_ring", "1 s");
  EXPECT_EQ(x["verdict"], "wrong");
  EXPECT_EQ(x["rule"], "slip");
  EXPECT_EQ(x["hint"], "used N where N-1 belongs");
  auto y = graded("t_ring", "1", 32);
  EXPECT_EQ(y["verdict"], "wrong");
  EXPECT_EQ(y["hint"], "used N where N-1 belongs");
  // 0.97 s is the exact 0.96875 within 2%.
  EXPECT_EQ(graded("t_ring", "0.97", 32)["verdict"], "correct");
}

// Rule 6: the factor hints that fit what each slot measures; too large and too small differ.
TEST(Check, FactorHintsFitTheQuantity) {
  // FLOPs: 5e11 is half of 1e12, 2e12 twice: the multiply-add, in two different texts.
  auto half = graded("flops", "5e11"), twice = graded("flops", "2e12");
  EXPECT_TRUE(has(half, "hint", "half the right value: a multiply-add is 2 FLOPs")) << half.dump();
  EXPECT_TRUE(has(twice, "hint", "twice the right value: a multiply-add is 2 FLOPs, counted once"));
  EXPECT_NE(half["hint"], twice["hint"]);
  EXPECT_EQ(half["rule"], "factor");
  // Bytes: 2 x 2^34 is the element size, 2^34 / 8 bits, 1000 x 2^34 a prefix.
  EXPECT_TRUE(has(graded("bytes", "34359738368"), "hint", "bytes per element"));
  EXPECT_FALSE(has(graded("bytes", "34359738368"), "hint", "multiply-add"));
  EXPECT_TRUE(has(graded("bytes", "2147483648"), "hint", "8 bits"));
  EXPECT_TRUE(has(graded("bytes", "17179869184000"), "hint", "1000: one unit prefix"));
  // 16e9 B where 16e9 is exact: 17.18 GB is 2^34, 7.4% too large, GiB for GB.
  auto gib = graded("bytes_dec", "17.18 GB");
  EXPECT_TRUE(has(gib, "hint", "too large by 7.4%: GiB where GB is meant")) << gib.dump();
  // (typed with a prefix, 14.90 GB would read as 14.90 GiB = 16e9 under rule 3)
  auto gb = graded("bytes_dec", "14.90e9");
  EXPECT_TRUE(has(gb, "hint", "too small by 7.4%: GB where GiB")) << gb.dump();
  // A time over links, twice or half: both directions or one.
  auto slow = graded("t", "381.8 ms"), fast = graded("t", "95.44 ms");
  EXPECT_TRUE(has(slow, "hint", "both directions of the link")) << slow.dump();
  EXPECT_TRUE(has(fast, "hint", "one direction of the link")) << fast.dump();
  EXPECT_TRUE(has(slow, "hint", "bytes per element"));  // a transfer moves bytes
  // A time from FLOPs: the multiply-add, and not the link or the element size.
  auto tm = graded("t_math", "0.5 ms");
  EXPECT_TRUE(has(tm, "hint", "multiply-add"));
  EXPECT_FALSE(has(tm, "hint", "link"));
  EXPECT_FALSE(has(tm, "hint", "element"));
  // A time from nothing in particular: only the prefixes.
  EXPECT_EQ(graded("t_plain", "1 s")["hint"], "");
  EXPECT_TRUE(has(graded("t_plain", "500 s"), "hint", "too large by 1000"));
  EXPECT_TRUE(has(graded("t_plain", "0.5 ms"), "hint", "too small by 1000"));
  // A link bandwidth: 9e10 is the bidirectional figure where one way applies.
  EXPECT_TRUE(has(graded("bw", "90 GB/s"), "hint", "one direction of the link applies"));
  EXPECT_TRUE(has(graded("bw", "360 GB/s"), "hint", "1 byte is 8 bits"));
  // An intensity: more bytes make it smaller. 120 is half of 240: the multiply-add or bytes.
  auto in = graded("intensity", "120");
  EXPECT_TRUE(has(in, "hint", "multiply-add")) << in.dump();
  EXPECT_TRUE(has(in, "hint", "bytes per element"));
  // A hop count off by 2 is not told about bf16, nor about prefixes.
  EXPECT_EQ(graded("hops", "6")["hint"], "");
  EXPECT_EQ(graded("hops", "1.5")["hint"], "");
  // Tokens get no prefix hint: 2097152000 is 1000 x the batch, and just wrong.
  EXPECT_EQ(graded("tokens", "2097152000")["hint"], "");
  // A ratio gets the prefixes.
  EXPECT_TRUE(has(graded("ratio", "1663"), "hint", "1000"));
  // The sign.
  EXPECT_EQ(graded("ratio", "-1.663")["hint"], "The sign is wrong: this quantity is positive.");
}

TEST(Check, Bounds) {
  // x_max = 8192 / 5100 = 1.6063: an upper bound, typed as a number or an inequality.
  for (const char* ok : {"1.606", "X < 1.61", "x <= 1.6063", "at most 1.606", "< 1.6", "X < 2"})
    EXPECT_EQ(graded("x_max", ok)["verdict"], "correct") << ok;
  auto other = graded("x_max", "X > 1.6");
  EXPECT_EQ(other["verdict"], "wrong");
  EXPECT_TRUE(has(other, "hint", "points the wrong way")) << other.dump();
  // "X < " with nothing after it cannot be read.
  auto empty = graded("x_max", "X < ");
  EXPECT_EQ(empty["verdict"], "invalid");
  EXPECT_EQ(empty["error"]["field"], "answers.x_max");
  EXPECT_EQ(empty["error"]["code"], "empty");
  // A bound typed for a slot that is a plain number.
  auto nb = graded("ratio", "< 8");
  EXPECT_EQ(nb["verdict"], "invalid");
  EXPECT_EQ(nb["error"]["code"], "not_a_bound");
  EXPECT_EQ(graded("ratio", "~1.663")["verdict"], "correct");
}

TEST(Check, BadInput) {
  // A decimal comma is refused, not read as 15.
  auto comma = graded("ratio", "1,5");
  EXPECT_EQ(comma["verdict"], "invalid");
  EXPECT_EQ(comma["error"]["code"], "bad_number");
  EXPECT_TRUE(has(comma["error"], "message", "cannot read")) << comma.dump();
  EXPECT_EQ(graded("t", "5.37 GB")["verdict"], "invalid");
  EXPECT_EQ(graded("t", "fast")["verdict"], "invalid");
}

TEST(Check, HintsNameTheLikelyMistake) {
  sb::Slot s;
  s.unit = "s";
  s.from = From::Bytes;
  // Half the answer of a time from bytes: the element size.
  EXPECT_NE(sb::check::number(0.5, 1, s).hint.find("half the right value"), std::string::npos);
  // 8x: bits versus bytes.
  EXPECT_NE(sb::check::number(8, 1, s).hint.find("bits"), std::string::npos);
  // 1000x: a prefix.
  EXPECT_NE(sb::check::number(1000, 1, s).hint.find("prefix"), std::string::npos);
  // 16e9 where 16 * 2^30 was meant: GiB vs GB (ratio 1.0737).
  EXPECT_NE(sb::check::number(16e9, 17179869184.0, s).hint.find("GiB"), std::string::npos);
  // A slot-specific factor: N/(N-1) with N = 4 is 4/3.
  static constexpr sb::Slot::Hint kNForNMinus1[] = {{4.0 / 3.0, "used N where N-1 belongs"}};
  s.hints = kNForNMinus1;
  EXPECT_EQ(sb::check::number(4, 3, s).hint, "used N where N-1 belongs");
  EXPECT_EQ(sb::check::number(-1, 1, s).hint, "The sign is wrong: this quantity is positive.");
}

TEST(Check, FormulaByEvaluation) {
  auto p = matmul_time();
  const auto& f = p.slots[1];
  EXPECT_EQ(sb::check::formula("2*B*D*F", f, "x").verdict, sb::check::Verdict::Correct);
  EXPECT_EQ(sb::check::formula("2B*D*F", f, "x").verdict, sb::check::Verdict::Correct);
  EXPECT_EQ(sb::check::formula("F*D*B + B*D*F", f, "x").verdict, sb::check::Verdict::Correct);
  auto half = sb::check::formula("B*D*F", f, "x");
  EXPECT_EQ(half.verdict, sb::check::Verdict::Wrong);
  EXPECT_NE(half.hint.find("multiply-add"), std::string::npos);
  EXPECT_EQ(sb::check::formula("B*D + F", f, "x").verdict, sb::check::Verdict::Wrong);
  try {
    sb::check::formula("2*B*D*G", f, "answers.formula");
    ADD_FAILURE();
  } catch (const sb::InputError& e) {
    EXPECT_EQ(e.field, "answers.formula");
    EXPECT_NE(std::string(e.what()).find("G"), std::string::npos);
  }
  EXPECT_THROW(sb::check::formula("2*(B", f, "x"), sb::InputError);
}

TEST(Check, GradeReportsEachSlot) {
  auto p = matmul_time();
  // Expected t = 2 * 256 * 2^20 / 1e14 = 5.36870912e-6 s.
  auto r =
      sb::check::grade(p, {{"t", "5.37 us"}, {"formula", "2*B*D*F"}, {"compute_bound", "yes"}}, {});
  EXPECT_EQ(slot(r, "t")["verdict"], "correct");
  EXPECT_NEAR(slot(r, "t")["expected"].get<double>(), 5.36870912e-6, 1e-15);
  EXPECT_EQ(slot(r, "formula")["verdict"], "correct");
  EXPECT_EQ(slot(r, "compute_bound")["verdict"], "correct");
  // A variant: B = 512 doubles the time to 1.073741824e-5 s.
  auto v = sb::check::grade(p, {{"t", "10.74 us"}}, {{"B", 512}});
  EXPECT_EQ(slot(v, "t")["verdict"], "correct");
  EXPECT_EQ(slot(v, "formula")["verdict"], "empty");
  // A bad slot is reported on its own; the others are still graded.
  auto bad = sb::check::grade(p, {{"t", "5.37 GB"}, {"compute_bound", "no"}}, {});
  EXPECT_EQ(slot(bad, "t")["verdict"], "invalid");
  EXPECT_EQ(slot(bad, "t")["error"]["field"], "answers.t");
  EXPECT_EQ(slot(bad, "compute_bound")["verdict"], "wrong");
  EXPECT_THROW(sb::check::grade(p, {{"nope", "1"}}, {}), sb::InputError);
  EXPECT_THROW(sb::check::grade(p, sb::json::array(), {}), sb::InputError);
  EXPECT_THROW(sb::check::grade(p, {}, {{"B", -1}}), sb::InputError);
}
