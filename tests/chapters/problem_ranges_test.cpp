// Every problem of the roofline, tpus and sharding chapters with each number given at the ends of
// its declared range (one at a time, the others at their defaults; then all at their mins and all
// at their maxes): the answer must be ok with every number finite, or an error naming a given
// (the one at its end, or another it must agree with) and not no_answer (issue 10: never a
// garbage number). Where a given's range starts at 0 but zero is not allowed, the smallest
// positive double stands in for its min, as fuzz/fuzz_calc.cpp draws it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/api.hpp"
#include "core/json.hpp"
#include "core/registry.hpp"
#include "tests/support/support.hpp"

using sb::json;

using sb::test::expect_sound;

namespace {

void each_given_at_its_ends(const std::string& chapter) {
  int problems = 0;
  for (const sb::Problem& p : sb::Registry::get().problems()) {
    if (p.chapter != chapter) continue;
    ++problems;
    std::vector<std::string> names;
    for (const sb::Param& g : p.given) names.emplace_back(g.name);
    json lo = json::object(), hi = json::object();
    for (const sb::Param& g : p.given) {
      if (g.kind != sb::Param::Kind::Number) continue;
      lo[g.name] = g.positive && g.min <= 0 ? 5e-324 : g.min;
      hi[g.name] = g.max;
      std::vector<double> ends = {g.min, g.max};
      if (g.positive && g.min <= 0) ends.push_back(5e-324);
      for (double v : ends) {
        const json r = json::parse(sb::api::handle(
            json{{"op", "problem"}, {"id", p.id}, {"given", {{std::string(g.name), v}}}}.dump()));
        expect_sound(r, names,
                     std::string(p.id) + " " + std::string(g.name) + "=" + std::to_string(v));
      }
    }
    // And all of them at their mins, then all at their maxes.
    for (const json& all : {lo, hi})
      expect_sound(json::parse(sb::api::handle(
                       json{{"op", "problem"}, {"id", p.id}, {"given", all}}.dump())),
                   names, std::string(p.id) + " " + all.dump());
  }
  EXPECT_GT(problems, 0) << chapter;
}

}  // namespace

TEST(ProblemRanges, RooflineGivensAtTheEndsOfTheirRanges) { each_given_at_its_ends("roofline"); }
TEST(ProblemRanges, TpusGivensAtTheEndsOfTheirRanges) { each_given_at_its_ends("tpus"); }
TEST(ProblemRanges, ShardingGivensAtTheEndsOfTheirRanges) { each_given_at_its_ends("sharding"); }

namespace {

json solve_text(const std::string& id, const json& given) {
  return json::parse(sb::api::handle(json{{"op", "problem"}, {"id", id}, {"given", given}}.dump()));
}

void expect_refusal(const json& r, const std::string& field, const std::string& code) {
  ASSERT_FALSE(r["ok"].get<bool>()) << r.dump().substr(0, 600);
  EXPECT_EQ(r["error"]["field"], field) << r.dump();
  EXPECT_EQ(r["error"]["code"], code) << r.dump();
}

}  // namespace

// Givens in range that still leave no answer are errors naming the given to change.
TEST(ProblemRanges, NoAnswerIsAnErrorNamingAGiven) {
  // D = F = 64 never reaches the v5e's critical intensity (D/2 = 32 < 240): no critical batch.
  expect_refusal(solve_text("roofline.Q3", {{"d_f_small", 64}}), "d_f_small", "out_of_range");
  // One device on X: nothing to gather or reduce, so no ratio of the strategies' comms.
  expect_refusal(solve_text("sharding.Q4", {{"mesh", "{'X': 1}"}}), "mesh", "out_of_range");
  expect_refusal(solve_text("sharding.Q9.c", {{"mesh", "{'X': 1}"}}), "mesh", "out_of_range");
  // A mesh without the axis the problem gathers over, and a sharding the matmul cannot take.
  expect_refusal(solve_text("sharding.Q2.b", {{"mesh", "{'X': 4}"}}), "mesh", "bad_input");
  const json r = solve_text("sharding.Q6.a", {{"sharding_B", "B[K, L]"}});
  ASSERT_FALSE(r["ok"].get<bool>());
  EXPECT_EQ(r["error"]["field"], "sharding_B") << r.dump();
}
