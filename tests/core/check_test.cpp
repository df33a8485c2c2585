#include "core/check.hpp"

#include <gtest/gtest.h>

#include <array>

#include "core/error.hpp"

namespace {

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
  f.unit = "s";
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

const sb::json* slot(const sb::json& r, const std::string& name) {
  for (const auto& x : r["results"])
    if (x["slot"] == name) return &x;
  return nullptr;
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

TEST(Check, HintsNameTheLikelyMistake) {
  sb::Slot s;
  s.unit = "s";
  // Half the answer: the factor-2 hint.
  EXPECT_NE(sb::check::number(0.5, 1, s).hint.find("factor of 2"), std::string::npos);
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
  EXPECT_NE(half.hint.find("factor of 2"), std::string::npos);
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
  EXPECT_EQ((*slot(r, "t"))["verdict"], "correct");
  EXPECT_NEAR((*slot(r, "t"))["expected"].get<double>(), 5.36870912e-6, 1e-15);
  EXPECT_EQ((*slot(r, "formula"))["verdict"], "correct");
  EXPECT_EQ((*slot(r, "compute_bound"))["verdict"], "correct");
  // A variant: B = 512 doubles the time to 1.073741824e-5 s.
  auto v = sb::check::grade(p, {{"t", "10.74 us"}}, {{"B", 512}});
  EXPECT_EQ((*slot(v, "t"))["verdict"], "correct");
  EXPECT_EQ((*slot(v, "formula"))["verdict"], "empty");
  // A bad slot is reported on its own; the others are still graded.
  auto bad = sb::check::grade(p, {{"t", "5.37 GB"}, {"compute_bound", "no"}}, {});
  EXPECT_EQ((*slot(bad, "t"))["verdict"], "invalid");
  EXPECT_EQ((*slot(bad, "t"))["error"]["field"], "answers.t");
  EXPECT_EQ((*slot(bad, "compute_bound"))["verdict"], "wrong");
  EXPECT_THROW(sb::check::grade(p, {{"nope", "1"}}, {}), sb::InputError);
  EXPECT_THROW(sb::check::grade(p, sb::json::array(), {}), sb::InputError);
  EXPECT_THROW(sb::check::grade(p, {}, {{"B", -1}}), sb::InputError);
}
