// A check against an answer the model cannot give (NaN or inf for these givens) says so: the
// slot is "invalid" with the error no_answer on "given", not "wrong" against a null.
#include <gtest/gtest.h>

#include <cmath>
#include <span>

#include "core/check.hpp"
#include "core/registry.hpp"

namespace {

// The slots of a test problem, as a List or a span, whichever the record holds.
template <class L>
void set_slots(L& slots, std::span<const sb::Slot> items) {
  if constexpr (requires { slots.push(items[0]); }) {
    for (const auto& s : items) slots.push(s);
  } else {
    slots = items;
  }
}

const sb::Slot kSlots[] = {sb::number("x", "count", "the x"), sb::number("y", "count", "the y")};

}  // namespace

TEST(NoAnswer, CheckSaysThereIsNothingToGradeAgainst) {
  sb::Problem p;
  p.id = "test.no_answer";
  set_slots(p.slots, kSlots);
  // x has no finite value (0/0), y is 2.
  p.solve = [](const sb::Inputs&, sb::Trace&) { return sb::Answers{{"x", NAN}, {"y", 2}}; };
  const sb::json r = sb::check::grade(p, {{"x", "1"}, {"y", "2"}}, sb::json::object());
  ASSERT_EQ(r["results"].size(), 2u);
  const sb::json& x = r["results"][0];
  EXPECT_EQ(x["verdict"], "invalid");
  EXPECT_EQ(x["error"]["code"], "no_answer");
  EXPECT_EQ(x["error"]["field"], "given");
  EXPECT_NE(x["error"]["message"].get<std::string>().find("the x"), std::string::npos);
  EXPECT_FALSE(x.contains("expected"));  // no null where a value would be
  EXPECT_EQ(r["results"][1]["verdict"], "correct");
}
