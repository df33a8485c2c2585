#include "core/api.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "core/hardware.hpp"
#include "core/registry.hpp"

using sb::json;

namespace {
std::string a_text(const json& v) { return v["text"].get<std::string>(); }
json call(const std::string& text) { return json::parse(sb::api::handle(text)); }
}  // namespace

TEST(Api, BadRequestsAreErrorValues) {
  struct Case {
    std::string req, code, field;
  };
  for (const auto& c : std::vector<Case>{
           {"", "bad_json", "request"},
           {"{", "bad_json", "request"},
           {"[]", "wrong_type", "request"},
           {"{}", "missing", "op"},
           {R"({"op": 3})", "wrong_type", "op"},
           {R"({"op": "fly"})", "unknown_op", "op"},
           {R"({"op": "calc"})", "missing", "name"},
           {R"({"op": "calc", "name": "no.such"})", "unknown_calculator", "name"},
           {R"({"op": "problem", "id": "no.such"})", "unknown_problem", "id"},
           {R"({"op": "parse", "text": "1 GB", "unit": "s"})", "wrong_unit", "text"},
           {std::string(100, '[') + std::string(100, ']'), "bad_json", "request"},
       }) {
    json r = call(c.req);
    EXPECT_FALSE(r["ok"].get<bool>()) << c.req;
    EXPECT_EQ(r["error"]["code"], c.code) << c.req;
    EXPECT_EQ(r["error"]["field"], c.field) << c.req;
  }
}

TEST(Api, ParseOp) {
  json r = call(R"({"op": "parse", "text": "45 GB/s", "unit": "B_per_s"})");
  ASSERT_TRUE(r["ok"].get<bool>());
  EXPECT_DOUBLE_EQ(r["value"].get<double>(), 45e9);
  EXPECT_EQ(r["text"], "45 GB/s");
}

// The unit table of the site: every unit a calculator or problem uses is in it, with its symbol.
TEST(Api, UnitsOpListsEveryUnitInUse) {
  json r = call(R"({"op": "units"})");
  ASSERT_TRUE(r["ok"].get<bool>());
  std::set<std::string> ids;
  for (const auto& u : r["units"]) ids.insert(u["id"].get<std::string>());
  json list = call(R"({"op": "list"})");
  for (const auto& c : list["calculators"])
    for (const auto& p : c["params"])
      if (p["kind"] == "number") EXPECT_TRUE(ids.count(p["unit"].get<std::string>())) << c["name"];
  for (const auto& p : list["problems"]) {
    json q = call(json({{"op", "problem"}, {"id", p["id"]}}).dump());
    for (const auto& s : q["slots"])
      if (s["kind"] == "number") EXPECT_TRUE(ids.count(s["unit"].get<std::string>())) << p["id"];
  }
  // 820 GB/s: the bytes-per-second unit takes decimal prefixes; FLOPs/s is written plain.
  for (const auto& u : r["units"]) {
    if (u["id"] == "B_per_s") EXPECT_EQ(u["prefixes"], "si");
    if (u["id"] == "flop_per_s") EXPECT_EQ(u["prefixes"], "none");
  }
}

TEST(Api, EveryProblemSolvesAndHasUniqueId) {
  std::set<std::string> ids;
  for (const auto& p : sb::Registry::get().problems()) {
    EXPECT_TRUE(ids.insert(std::string(p.id)).second) << "duplicate " << p.id;
    json r = sb::api::handle(json{{"op", "problem"}, {"id", p.id}});
    ASSERT_TRUE(r["ok"].get<bool>()) << p.id << ": " << r.dump();
    EXPECT_FALSE(r["statement"].get<std::string>().empty()) << p.id;
    if (p.slots.empty())
      EXPECT_FALSE(p.model_answer.empty()) << p.id << " has neither slots nor a model answer";
    for (const auto& s : r["slots"]) {
      const auto& a = r["answers"][s["name"].get<std::string>()];
      if (s["kind"] != "formula") EXPECT_TRUE(a["value"].is_number()) << p.id << "." << s["name"];
    }
    // The model's own answers grade as correct.
    json answers = json::object();
    for (const auto& s : r["slots"])
      if (s["kind"] != "formula")
        answers[s["name"].get<std::string>()] = a_text(r["answers"][s["name"].get<std::string>()]);
    json g = sb::api::handle(json{{"op", "check"}, {"id", p.id}, {"answers", answers}});
    ASSERT_TRUE(g["ok"].get<bool>()) << p.id;
    for (const auto& x : g["results"])
      if (x["verdict"] != "empty")
        EXPECT_EQ(x["verdict"], "correct") << p.id << "." << x["slot"] << " " << x.dump();
    // A problem that varies draws a variant that still solves; one that does not says so.
    json v = sb::api::handle(json{{"op", "variant"}, {"id", p.id}, {"seed", 3}});
    if (!r["variable"].get<bool>()) {
      EXPECT_FALSE(v["ok"].get<bool>()) << p.id;
      EXPECT_EQ(v["error"]["code"], "no_variant") << p.id;
      continue;
    }
    ASSERT_TRUE(v["ok"].get<bool>()) << p.id << " " << v.dump();
    json again = sb::api::handle(json{{"op", "problem"}, {"id", p.id}, {"given", v["given"]}});
    EXPECT_TRUE(again["ok"].get<bool>())
        << p.id << " variant " << v["given"].dump() << " " << again.dump();
  }
}

TEST(Api, EveryCalculatorRunsOnItsDefaults) {
  for (const auto& c : sb::Registry::get().calculators()) {
    json r = sb::api::handle(json{{"op", "calc"}, {"name", c.name}, {"inputs", json::object()}});
    EXPECT_TRUE(r["ok"].get<bool>()) << c.name << ": " << r.dump();
    EXPECT_FALSE(r["trace"].empty()) << c.name << " records no derivation";
    // Wrong JSON types for every input are errors naming that input.
    for (const auto& p : c.params) {
      json bad = sb::api::handle(
          json{{"op", "calc"}, {"name", c.name}, {"inputs", {{p.name, json::array()}}}});
      EXPECT_FALSE(bad["ok"].get<bool>()) << c.name << "." << p.name;
      EXPECT_EQ(bad["error"]["field"], p.name) << c.name;
    }
  }
}

// An error carries its field apart from its message, and the page shows the message beside the
// field's label: a message that starts with the field's own name ("chips: a TPU v5e comes in ...")
// puts an internal name on screen and reads "error in chips: chips: ..." in the CLI. Every param
// of every calculator, given text it cannot take as it is, a value far out of range and a chip of
// the other kind.
TEST(Api, NoErrorMessageRepeatsItsField) {
  const char* values[] = {"x", "-1", "0", "1e99", "5 chips", "h100", "v5e", "9999999"};
  int errors = 0;
  for (const auto& c : sb::Registry::get().calculators()) {
    for (const auto& p : c.params) {
      for (const char* v : values) {
        json r = sb::api::handle(json{{"op", "calc"}, {"name", c.name}, {"inputs", {{p.name, v}}}});
        if (r["ok"].get<bool>()) continue;
        ++errors;
        const std::string field = r["error"]["field"], message = r["error"]["message"];
        EXPECT_NE(message.rfind(field + ": ", 0), 0u)
            << c.name << " with " << p.name << " = " << v << ": " << message;
      }
    }
  }
  EXPECT_GT(errors, 100);  // the values above are refused often enough to test something
}

// The catalogue (../shared/book/problems, one <prefix>.json per chapter) lies beside the repo on
// these machines; where it is, every item of every chapter registered here must exist with the
// same slot names and units.
TEST(Api, CatalogueCoverage) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(SB_SOURCE_DIR) / ".." / "shared" / "book" / "problems";
  if (!fs::exists(dir)) GTEST_SKIP() << "no catalogue at " << dir;
  for (const sb::Chapter& chapter : sb::Registry::get().chapters()) {
    if (chapter.part > 12) continue;  // a page beyond the book's Parts has no problems to cover
    const fs::path file = dir / (std::string(chapter.prefix) + ".json");
    if (!fs::exists(file)) {
      ADD_FAILURE() << "chapter " << chapter.id << ": no catalogue " << file;
      continue;
    }
    std::ifstream f(file);
    json cat = json::parse(f);
    for (const auto& item : cat) {
      std::string id = item["id"];
      const sb::Problem* p = nullptr;
      for (const auto& q : sb::Registry::get().problems())
        if (q.id == id) p = &q;
      if (!p) {
        ADD_FAILURE() << "missing problem " << id;
        continue;
      }
      for (const auto& s : item["answers"]) {
        bool found = false;
        for (const auto& slot : p->slots)
          if (slot.name == s["slot"]) {
            found = true;
            EXPECT_EQ(slot.unit, s["unit"].get<std::string>()) << id << "." << slot.name;
          }
        EXPECT_TRUE(found) << "missing slot " << id << "." << s["slot"];
      }
    }
  }
}

// Every answer the catalogue publishes (its `exact`) is what the chapter's model computes from the
// book's inputs, within the catalogue's tolerance: what ../shared/tools/book-check asks of the CLI,
// asked here of both builds (the native tree compiles a unity build, the ASan tree file by file),
// so that the two computing different answers fails the suite in one of them.
TEST(Api, PublishedAnswersAgree) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(SB_SOURCE_DIR) / ".." / "shared" / "book" / "problems";
  if (!fs::exists(dir)) GTEST_SKIP() << "no catalogue at " << dir;
  int compared = 0;
  for (const sb::Chapter& chapter : sb::Registry::get().chapters()) {
    const fs::path file = dir / (std::string(chapter.prefix) + ".json");
    if (!fs::exists(file)) continue;  // CatalogueCoverage reports it
    std::ifstream f(file);
    for (const auto& item : json::parse(f)) {
      const std::string id = item["id"];
      const json r = sb::api::handle(json{{"op", "problem"}, {"id", id}});
      if (!r.value("ok", false)) continue;  // CatalogueCoverage reports a missing problem
      for (const auto& s : item["answers"]) {
        if (!s.contains("exact") || !s["exact"].is_number()) continue;
        const std::string slot = s["slot"];
        const double exact = s["exact"].get<double>();
        const double tol = std::max(s.value("tol_rel", 0.02), 1e-9);
        ASSERT_TRUE(r["answers"].contains(slot)) << id << "." << slot;
        const double got = r["answers"][slot]["value"].get<double>();
        EXPECT_LE(std::fabs(got - exact), exact != 0 ? tol * std::fabs(exact) : 1e-12)
            << id << "." << slot << ": got " << got << ", the book's exact value " << exact;
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 400);  // 451 published slots over the eight chapters of 2026-12
}

// "New variant" (issue 9): it always changes a given besides the chip's name, every chip spec of
// a draw is one real chip's (the problem's chip param names that chip), and the statement it
// renders has no placeholder and no count written with the wrong number ("1 links").
TEST(Api, VariantsChangeAGivenAndStayOnOneChip) {
  int drawn = 0, on_chips = 0;
  for (const auto& p : sb::Registry::get().problems()) {
    const json book = sb::api::handle(json{{"op", "problem"}, {"id", p.id}});
    if (!book["variable"].get<bool>()) continue;
    for (int seed = 1; seed <= 6; ++seed) {
      const json v = sb::api::handle(json{{"op", "variant"}, {"id", p.id}, {"seed", seed}});
      ASSERT_TRUE(v["ok"].get<bool>()) << p.id << " " << v.dump();
      const json r = sb::api::handle(json{{"op", "problem"}, {"id", p.id}, {"given", v["given"]}});
      ASSERT_TRUE(r["ok"].get<bool>()) << p.id << " " << r.dump();
      ++drawn;
      bool changed = false;
      const sb::hw::Chip* chip = nullptr;
      for (size_t i = 0; i < p.given.size(); ++i) {
        const sb::Param& g = p.given[i];
        if (g.chip) {
          chip = &sb::hw::chip(r["given"][i]["value"].get<std::string>());
          continue;
        }
        changed = changed || r["given"][i]["value"] != book["given"][i]["value"];
      }
      EXPECT_TRUE(changed) << p.id << " seed " << seed << ": the book's values again";
      // Chip specs: all from one chip of the tables, the chip param's when there is one.
      std::vector<const sb::hw::Chip*> fits;
      for (const auto& c : sb::hw::chips()) {
        bool all = chip == nullptr || &c == chip;
        for (size_t i = 0; i < p.given.size() && all; ++i) {
          const sb::Param& g = p.given[i];
          if (g.chip_spec.empty() || g.kind != sb::Param::Kind::Number) continue;
          const std::string key(g.chip_spec);
          const size_t slash = key.find('/');
          double want = 0;
          if (slash == std::string::npos) {
            all = c.has(key);
            if (all) want = c.get(key);
          } else {
            all = c.has(key.substr(0, slash)) && c.has(key.substr(slash + 1));
            if (all) want = c.get(key.substr(0, slash)) / c.get(key.substr(slash + 1));
          }
          all = all && r["given"][i]["value"].get<double>() == want;
        }
        if (all) fits.push_back(&c);
      }
      bool specs = false;
      for (const auto& g : p.given) specs = specs || !g.chip_spec.empty();
      if (specs) {
        ++on_chips;
        EXPECT_FALSE(fits.empty())
            << p.id << " seed " << seed << ": specs of no one chip " << v["given"].dump();
      }
      const std::string text = r["statement"].get<std::string>();
      for (size_t at = text.find('{'); at != std::string::npos; at = text.find('{', at + 1))
        EXPECT_FALSE(std::islower(static_cast<unsigned char>(text[at + 1])) || text[at + 1] == '_')
            << p.id << ": a placeholder in " << text;  // TPU{0,0} is the book's notation
      for (const char* bad : {" 1 links", " 1 trays", " 1 chips", " 1 hosts", " 1 axes", " 1 hops"})
        EXPECT_EQ(text.find(bad), std::string::npos) << p.id << ": " << text;
    }
  }
  EXPECT_GT(drawn, 300);
  EXPECT_GT(on_chips, 30);
}
