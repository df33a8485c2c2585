// The registry's chapter records and the rules it enforces when a chapter registers.
#include "core/registry.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/api.hpp"
#include "core/work.hpp"

using sb::json;

namespace {

void no_op(const sb::Inputs&, sb::Trace&, sb::Result&) {}

constexpr sb::Chapter kFirst{"first_ch", "first-ch", 1, "First", "first", {}};
constexpr sb::Calculator kGood[] = {{.name = "first-ch.calc", .title = "t", .run = no_op}};
constexpr sb::Calculator kForeign[] = {{.name = "first_ch.calc", .title = "t", .run = no_op}};
// A heavy calculator's record without its run (the page's first module), and a light one without.
constexpr sb::Calculator kHeavy[] = {{.name = "first-ch.plan", .title = "t", .heavy = true}};
constexpr sb::Calculator kNoRun[] = {{.name = "first-ch.idle", .title = "t"}};
constexpr sb::Problem kForeignProblem[] = {{.id = "other.Q1", .title = "t"}};
constexpr sb::Problem kBareProblem[] = {{.id = "first-ch", .title = "t"}};

}  // namespace

TEST(Registry, FillsTheChapterOfWhatFollowsItsRecord) {
  sb::Registry r;
  r.add(kFirst);
  r.add(kGood);
  ASSERT_EQ(r.calculators().size(), 1u);
  EXPECT_EQ(r.calculators()[0].chapter, "first_ch");  // the id, not the prefix
}

TEST(Registry, RejectsNamesOutsideTheChaptersPrefix) {
  sb::Registry r;
  // Nothing may come before a chapter record.
  EXPECT_THROW(r.add(kGood), std::logic_error);
  r.add(kFirst);
  // The folder id "first_ch" is not the prefix "first-ch"; "other." is another chapter's; and the
  // bare prefix without ".<name>" names nothing.
  EXPECT_THROW(r.add(kForeign), std::logic_error);
  EXPECT_THROW(r.add(kForeignProblem), std::logic_error);
  EXPECT_THROW(r.add(kBareProblem), std::logic_error);
  // A second chapter with the same prefix, or the same id.
  EXPECT_THROW(r.add(sb::Chapter{"second", "first-ch", 2, "Second", "second", {}}),
               std::logic_error);
  EXPECT_THROW(r.add(sb::Chapter{"first_ch", "second", 2, "Second", "second", {}}),
               std::logic_error);
}

// A heavy calculator may come without its run, which register_heavy() supplies once; any other
// calculator needs one.
TEST(Registry, AHeavyCalculatorGetsItsRunLater) {
  sb::Registry r;
  r.add(kFirst);
  r.add(kHeavy);
  EXPECT_EQ(r.calculator("first-ch.plan").run, nullptr);
  EXPECT_THROW(r.add(kNoRun), std::logic_error);
  EXPECT_THROW(r.add_run("first-ch.calc", no_op), std::logic_error);  // not registered
  r.add(kGood);
  EXPECT_THROW(r.add_run("first-ch.calc", no_op), std::logic_error);  // not heavy
  r.add_run("first-ch.plan", no_op);
  EXPECT_EQ(r.calculator("first-ch.plan").run, &no_op);
  EXPECT_THROW(r.add_run("first-ch.plan", no_op), std::logic_error);  // it has one
}

// A program with every chapter (the CLI, these tests) computes every calculator, heavy ones too.
TEST(Registry, EveryCalculatorOfTheProgramRuns) {
  for (const auto& c : sb::Registry::get().calculators()) EXPECT_NE(c.run, nullptr) << c.name;
}

// The program's own registry: the records CMake generated from chapters/*/chapter.json.
TEST(Registry, ChaptersAreInTheBooksOrderAndOwnTheirNames) {
  const auto& r = sb::Registry::get();
  ASSERT_FALSE(r.chapters().empty());
  std::set<std::string> ids;
  int part = 0;
  for (const auto& c : r.chapters()) {
    EXPECT_GT(c.part, part) << c.id << " comes after part " << part;
    part = c.part;
    EXPECT_GE(c.part, 1);
    // 1-12: the book's chapters; 13: a page beyond them ("page": true in its record, the
    // validation page), listed after the Parts.
    EXPECT_LE(c.part, 13);
    EXPECT_FALSE(c.title.empty()) << c.id;
    EXPECT_FALSE(c.slug.empty()) << c.id;
    ids.insert(std::string(c.id));
  }
  // A base is a chapter (it may come later in the book, as the GPU chapter under training does),
  // and the bases never cycle: following them from any chapter never comes back to it.
  std::map<std::string, std::vector<std::string>> bases;
  for (const auto& c : r.chapters())
    for (sb::Text b : c.bases) {
      EXPECT_TRUE(ids.count(std::string(b))) << c.id << " base " << b;
      bases[std::string(c.id)].push_back(std::string(b));
    }
  for (const std::string& start : ids) {
    std::set<std::string> seen;
    std::vector<std::string> todo = bases[start];
    while (!todo.empty()) {
      const std::string b = todo.back();
      todo.pop_back();
      ASSERT_NE(b, start) << start << " is its own base, through its bases";
      if (seen.insert(b).second) todo.insert(todo.end(), bases[b].begin(), bases[b].end());
    }
  }
  auto prefix_of = [&](sb::Text chapter) {
    for (const auto& c : r.chapters())
      if (c.id == chapter) return std::string(c.prefix) + ".";
    return std::string("(no chapter ") + std::string(chapter) + ")";
  };
  for (const auto& c : r.calculators())
    EXPECT_EQ(std::string(c.name).rfind(prefix_of(c.chapter), 0), 0u) << c.name;
  for (const auto& p : r.problems())
    EXPECT_EQ(std::string(p.id).rfind(prefix_of(p.chapter), 0), 0u) << p.id;
}

// A search's work bound times the share (1 unless a fuzzer lowers it), whole, at least 1:
// 250,000 x 0.01 = 2500; 0.3 -> 1; a share outside (0, 1] is taken as 1.
TEST(Work, BoundScalesByTheShare) {
  EXPECT_EQ(sb::work_bound(250000), 250000);
  sb::set_work_share(0.01);
  EXPECT_EQ(sb::work_bound(250000), 2500);
  EXPECT_EQ(sb::work_bound(20000), 200);
  EXPECT_EQ(sb::work_bound(30), 1);  // 0.3 rounds down to 0: at least one configuration
  sb::set_work_share(5);
  EXPECT_EQ(sb::work_bound(250000), 250000);
  sb::set_work_share(0.01);
  sb::set_work_share(-1);
  EXPECT_EQ(sb::work_bound(20000), 20000);
  sb::set_work_share(1);
}

TEST(Registry, ListAnswersTheChapterRecords) {
  json list = sb::api::handle(json{{"op", "list"}});
  ASSERT_TRUE(list["ok"].get<bool>());
  const auto& chapters = sb::Registry::get().chapters();
  ASSERT_EQ(list["chapters"].size(), chapters.size());
  for (size_t i = 0; i < chapters.size(); ++i) {
    const json& c = list["chapters"][i];
    EXPECT_EQ(c["id"], chapters[i].id);
    EXPECT_EQ(c["prefix"], chapters[i].prefix);
    EXPECT_EQ(c["part"], chapters[i].part);
    EXPECT_EQ(c["title"], chapters[i].title);
    EXPECT_EQ(c["slug"], chapters[i].slug);
    ASSERT_EQ(c["bases"].size(), chapters[i].bases.size());
  }
  // Every calculator and problem names its chapter by id.
  std::set<std::string> ids;
  for (const auto& c : chapters) ids.insert(std::string(c.id));
  for (const auto& c : list["calculators"]) EXPECT_TRUE(ids.count(c["chapter"])) << c["name"];
  for (const auto& p : list["problems"]) EXPECT_TRUE(ids.count(p["chapter"])) << p["id"];
}

// ---- The exercise engine's records (ENGINE.md) ---------------------------------------------

TEST(Engine, AnswersKeepBookAndSlipValuesBesideTheExactOnes) {
  sb::Answers a{{"t", 0.0671}};
  a["n"] = 3;
  a.book("t", 0.0625, "reads 2^34 B as 16 GB");
  a.slip("n", 4, "N where N-1 belongs");
  a.book("t", NAN, "left out: no finite value");
  a.slip("n", INFINITY, "left out too");
  EXPECT_EQ(a.size(), 2u);
  ASSERT_EQ(a.books().size(), 1u);
  EXPECT_EQ(a.books()[0].slot, "t");
  EXPECT_DOUBLE_EQ(a.books()[0].value, 0.0625);
  EXPECT_EQ(a.books()[0].text, "reads 2^34 B as 16 GB");
  ASSERT_EQ(a.slips().size(), 1u);
  EXPECT_DOUBLE_EQ(a.slips()[0].value, 4);
  EXPECT_NE(a.find("n"), a.end());
}

TEST(Engine, SlotQuantityFromBound) {
  using sb::From;
  using sb::Quantity;
  EXPECT_EQ(sb::quantity_of(sb::number("f", "flop", "")), Quantity::Flops);
  EXPECT_EQ(sb::quantity_of(sb::number("b", "B", "")), Quantity::Bytes);
  EXPECT_EQ(sb::quantity_of(sb::number("t", "s", "")), Quantity::Time);
  EXPECT_EQ(sb::quantity_of(sb::number("w", "B_per_s", "")), Quantity::Bandwidth);
  EXPECT_EQ(sb::quantity_of(sb::number("p", "flop_per_s", "")), Quantity::FlopRate);
  EXPECT_EQ(sb::quantity_of(sb::number("i", "flop_per_B", "")), Quantity::Intensity);
  EXPECT_EQ(sb::quantity_of(sb::number("b", "tokens", "")), Quantity::Tokens);
  EXPECT_EQ(sb::quantity_of(sb::number("n", "chips", "")), Quantity::Count);
  EXPECT_EQ(sb::quantity_of(sb::number("r", "ratio", "")), Quantity::Ratio);
  EXPECT_EQ(sb::quantity_of(sb::boolean("ok", "")), Quantity::Bool);
  EXPECT_EQ(sb::quantity_of(sb::number("c", "usd", "")), Quantity::Money);
  // A hop count says so: its unit is a plain count.
  constexpr sb::Slot hops = sb::measures(sb::number("hops", "count", "hops"), Quantity::Hops);
  EXPECT_EQ(sb::quantity_of(hops), Quantity::Hops);
  constexpr sb::Slot t = sb::derived(sb::number("t", "s", "T"), From::Link);
  constexpr sb::Slot x = sb::at_most(sb::number("x", "count", "largest X"));
  const sb::json jt = sb::to_json(t), jx = sb::to_json(x), jh = sb::to_json(hops);
  EXPECT_EQ(jt["quantity"], "time");
  EXPECT_EQ(jt["from"], "link");
  EXPECT_EQ(jt["bound"], "none");
  EXPECT_EQ(jx["bound"], "upper");
  EXPECT_EQ(sb::to_json(sb::at_least(x))["bound"], "lower");
  EXPECT_EQ(jh["quantity"], "hops");
  EXPECT_EQ(jh["from"], "none");
}

TEST(Engine, ChipSpecGivenAndPluralStatement) {
  static constexpr sb::Param kGiven[] = {
      sb::chip_spec(sb::given("hbm_bw_Bps", "B_per_s", 8.2e11, "HBM bandwidth"), "hbm_bw"),
      sb::count("n_links", 1, "links"), sb::text("dest", "TPU{0,0}", "the chip")};
  EXPECT_EQ(sb::to_json(kGiven[0])["chip_spec"], "hbm_bw");
  EXPECT_FALSE(sb::to_json(kGiven[1]).contains("chip_spec"));
  sb::Problem p;
  p.id = "test.plural";
  p.given = kGiven;
  p.statement = "{n_links} {n_links|link|links} into {dest} at {hbm_bw_Bps}; {nope} {n_links|x}";
  // n = 1: the first form; the text given keeps its braces; an unknown name stays as written;
  // a single form is written for every n.
  EXPECT_EQ(sb::api::render_statement(p, sb::Inputs(p.given, sb::json::object())),
            "1 link into TPU{0,0} at 820 GB/s; {nope} x");
  EXPECT_EQ(sb::api::render_statement(p, sb::Inputs(p.given, {{"n_links", 4}})),
            "4 links into TPU{0,0} at 820 GB/s; {nope} x");
}

// A problem with no variant values and no chip spec has nothing for "new variant" to change.
TEST(Engine, ProblemResponseSaysWhetherItVaries) {
  for (const auto& p : sb::Registry::get().problems()) {
    bool any = false;
    for (const auto& g : p.given) any = any || !g.variants.empty() || !g.chip_spec.empty();
    const sb::json r = sb::api::handle(sb::json{{"op", "problem"}, {"id", p.id}});
    if (!r.value("ok", false)) continue;
    EXPECT_EQ(r["variable"].get<bool>(), any) << p.id;
  }
}
