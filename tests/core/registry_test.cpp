// The registry's chapter records and the rules it enforces when a chapter registers.
#include "core/registry.hpp"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

#include "core/api.hpp"

using sb::json;

namespace {

void no_op(const sb::Inputs&, sb::Trace&, sb::Result&) {}

constexpr sb::Chapter kFirst{"first_ch", "first-ch", 1, "First", "first", {}};
constexpr sb::Calculator kGood[] = {{.name = "first-ch.calc", .title = "t", .run = no_op}};
constexpr sb::Calculator kForeign[] = {{.name = "first_ch.calc", .title = "t", .run = no_op}};
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
    EXPECT_LE(c.part, 12);
    EXPECT_FALSE(c.title.empty()) << c.id;
    EXPECT_FALSE(c.slug.empty()) << c.id;
    // A base is a chapter earlier in the book.
    for (sb::Text b : c.bases) EXPECT_TRUE(ids.count(std::string(b))) << c.id << " base " << b;
    ids.insert(std::string(c.id));
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
