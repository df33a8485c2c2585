// The formula records of every chapter (core/formula.hpp): each record's expression, evaluated by
// the core's own expression reader at random points of its symbols' ranges, gives what the
// chapter's C++ function gives; every derivation step made from a record is one the registry
// knows; and every step with a formula and a value carries an expression that reproduces it.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>

#include "core/api.hpp"
#include "core/expr.hpp"
#include "core/formula.hpp"
#include "core/plain_tex.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"

namespace sb {
namespace {

const Symbol& symbol_of(const Formula& f, const std::string& name) {
  for (const Symbol& s : f.symbols)
    if (s.name == name) return s;
  throw std::logic_error("no symbol " + name);
}

double draw(const Symbol& s, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  double x = s.lo > 0 ? std::exp(std::log(s.lo) + u(rng) * (std::log(s.hi) - std::log(s.lo)))
                      : s.lo + u(rng) * (s.hi - s.lo);
  if (s.integer) x = std::max(std::ceil(s.lo), std::min(std::floor(s.hi), std::round(x)));
  return x;
}

bool agree(double a, double b, double rel) {
  if (a == b) return true;
  return std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b));
}

TEST(FormulaRecords, EveryRecordIsSound) {
  const auto& all = Registry::get().formulas();
  ASSERT_FALSE(all.empty());
  for (const auto& e : all) {
    EXPECT_EQ(records::problems_of(*e.f), "")
        << e.chapter << ": " << e.f->name << " = " << e.f->expr;
  }
}

// The heart of it: TeX and code cannot disagree, because both come from a record whose
// expression is checked against its function here.
TEST(FormulaRecords, ExpressionAgreesWithTheFunctionAtRandomPoints) {
  std::mt19937_64 rng(20261202);
  for (const auto& e : Registry::get().formulas()) {
    const Formula& f = *e.f;
    if (!records::problems_of(f).empty()) continue;  // reported above
    const records::Rendered& r = records::rendered(f);
    const expr::Expr ex = expr::Expr::parse(std::string(f.expr), "expr");
    int finite = 0;
    for (int i = 0; i < 400; ++i) {
      std::vector<double> x;
      std::map<std::string, double> vars;
      for (const std::string& a : r.args) {
        x.push_back(draw(symbol_of(f, a), rng));
        vars[a] = x.back();
      }
      const double want = f.fn(x.data());
      if (!std::isfinite(want)) continue;  // outside the function's domain (none exists there)
      ++finite;
      const double got = ex.eval(vars);
      if (!agree(got, want, 1e-12)) {
        std::string at;
        for (const auto& [k, v] : vars) at += " " + k + "=" + std::to_string(v);
        ADD_FAILURE() << e.chapter << ": " << f.name << " = " << f.expr << " gives " << got
                      << ", the function " << want << " at" << at;
        break;
      }
    }
    EXPECT_GE(finite, 20) << e.chapter << ": " << f.name << " = " << f.expr
                          << ": too few draws where the function has a value; narrow the ranges";
  }
}

TEST(FormulaRecords, TexRendersAndReadsPlain) {
  for (const auto& e : Registry::get().formulas()) {
    if (!records::problems_of(*e.f).empty()) continue;
    const records::Rendered& r = records::rendered(*e.f);
    EXPECT_FALSE(r.tex.empty());
    EXPECT_FALSE(plain_tex(r.tex).empty()) << r.tex;
  }
}

// Every derivation the CLI and the pages show, on the defaults: the steps made from a record name
// a registered one, and every step with a formula and a value carries expr and values that give
// the value (what ../shared/tools/formula-check reads), in every chapter.

void check_steps(const json& response, const std::string& chapter, const std::string& who,
                 const std::set<std::pair<std::string, std::string>>& known) {
  if (!response.contains("trace")) return;
  for (const json& st : response["trace"]) {
    if (!st.contains("formula") || !st.contains("value") || !st["value"].is_number()) continue;
    if (!st.contains("expr")) {
      ADD_FAILURE() << who << " (" << chapter << "): step '" << st.value("what", "")
                    << "' has a formula but no expr";
      continue;
    }
    std::map<std::string, double> vars;
    for (auto it = st["values"].begin(); it != st["values"].end(); ++it)
      vars[it.key()] = it.value().get<double>();
    const std::string e = st["expr"].get<std::string>();
    const double got = expr::Expr::parse(e, "expr").eval(vars);
    EXPECT_TRUE(agree(got, st["value"].get<double>(), 1e-9))
        << who << ": " << e << " = " << got << ", the step says " << st["value"];
    if (st.contains("section"))
      EXPECT_TRUE(known.count({e, st["section"].get<std::string>()}))
          << who << ": the step's record (" << e << ") is not registered";
  }
}

TEST(FormulaRecords, EveryFormulaStepCarriesACheckableExpression) {
  std::set<std::pair<std::string, std::string>> known;
  for (const auto& e : Registry::get().formulas())
    known.insert({std::string(e.f->expr), std::string(e.f->section)});
  const Registry& reg = Registry::get();
  for (const Calculator& c : reg.calculators()) {
    const json r = api::handle(json{{"op", "calc"}, {"name", c.name}});
    check_steps(r, std::string(c.chapter), std::string(c.name), known);
  }
  for (const Problem& p : reg.problems()) {
    const json r = api::handle(json{{"op", "problem"}, {"id", p.id}});
    check_steps(r, std::string(p.chapter), std::string(p.id), known);
  }
}

// The renderer: products as the book writes them, the numbers substituted in order.
double t_ratio(const double* x) { return x[0] / x[1]; }
double t_prod(const double* x) { return 2 * x[0] * x[1] * x[2]; }
constexpr Symbol kTable[] = {
    sym("B", "tokens", 1, 10, "batch"),   sym("D", "count", 1, 10, "d"),
    sym("F", "count", 1, 10, "f"),        sym("b_x", "B", 1, 2, "bytes"),
    sym("FLOPs", "flop", 1, 10, "flops"), sym("peak", "flop_per_s", 1, 9, "p")};
constexpr Formula kProd = record("FLOPs", "2 * B * D * F", "flop", "t", "B D F", kTable, t_prod);
constexpr Formula kRatio =
    record("T_math", "FLOPs / peak", "s", "t", "FLOPs peak", kTable, t_ratio);
constexpr Formula kSub = record("x", "b_x * B - D", "B", "t", "b_x B D", kTable, t_ratio);

TEST(FormulaRecords, RendersTheBooksSpelling) {
  EXPECT_EQ(records::rendered(kProd).tex, "\\mathrm{FLOPs} = 2BDF");
  EXPECT_EQ(records::rendered(kRatio).tex,
            "T_{\\mathrm{math}} = \\frac{\\mathrm{FLOPs}}{\\mathrm{peak}}");
  EXPECT_EQ(records::rendered(kSub).rhs, "b_{x}\\,B - D");
  Out out;
  const double x[] = {512, 8192, 32768};
  records::fill(out, records::rendered(kProd), x);
  EXPECT_EQ(out.view(), "2 \\cdot 512 \\cdot 8192 \\cdot 32768");
  out.clear();
  const double y[] = {2, -3, -4};  // a negative number after an operator is parenthesised
  records::fill(out, records::rendered(kSub), y);
  EXPECT_EQ(out.view(), "2 \\cdot \\left(-3\\right) - \\left(-4\\right)");
}

TEST(FormulaRecords, StepJsonCarriesExprValuesAndSection) {
  Trace tr;
  // FLOPs / peak = 2.749e11 / 1.97e14 = 1.3954e-3 s
  const double v = tr.step("Compute time", kRatio, {2.749e11, 1.97e14});
  EXPECT_DOUBLE_EQ(v, 2.749e11 / 1.97e14);
  const json j = tr.to_json()[0];
  EXPECT_EQ(j["expr"], "FLOPs / peak");
  EXPECT_EQ(j["values"]["FLOPs"], 2.749e11);
  EXPECT_EQ(j["values"]["peak"], 1.97e14);
  EXPECT_EQ(j["section"], "t");
  EXPECT_EQ(j["numbers"], "\\frac{2.749 \\times 10^{11}}{1.97 \\times 10^{14}}");
  // A sum of earlier values: 3 + 4 = 7, with its expression over their names.
  const double s = tr.sum("Total", "P", "count", {{"P_attn", 3}, {"P_mlp", 4}});
  EXPECT_EQ(s, 7);
  const json k = tr.to_json()[1];
  EXPECT_EQ(k["expr"], "P_attn + P_mlp");
  EXPECT_EQ(k["formula"], "P = P_{\\mathrm{attn}} + P_{\\mathrm{mlp}}");
  EXPECT_EQ(tr.max("Slowest", "T", "s", {{"T_a", 1}, {"T_b", 5}}), 5);
  EXPECT_EQ(tr.to_json()[2]["expr"], "max(T_a, T_b)");
}

// A product of earlier values (a dimension's shards), and sums and maxima over a list built at run
// time (the axes of a mesh, the collectives of a plan).
TEST(FormulaRecords, ProductsAndRunTimeListsOfTerms) {
  Trace tr;
  // 8 * 2 = 16 shards of a dimension split over X and Y.
  EXPECT_EQ(tr.product("Shards", "S", "count", {{"N_X", 8}, {"N_Y", 2}}), 16);
  const json p = tr.to_json()[0];
  EXPECT_EQ(p["expr"], "N_X * N_Y");
  EXPECT_EQ(p["formula"], "S = N_{X}\\,N_{Y}");
  EXPECT_EQ(p["numbers"], "8 \\cdot 2");
  EXPECT_EQ(p["values"]["N_Y"], 2);
  const std::vector<Trace::Term> terms = {{"T_1", 3}, {"T_2", 4}, {"T_3", 5}};
  EXPECT_EQ(tr.sum("Total", "T", "s", terms), 12);  // 3 + 4 + 5
  EXPECT_EQ(tr.to_json()[1]["expr"], "T_1 + T_2 + T_3");
  EXPECT_EQ(tr.max("Slowest", "T", "s", terms), 5);
  EXPECT_EQ(tr.to_json()[2]["expr"], "max(T_1, T_2, T_3)");
  EXPECT_EQ(tr.product("Volume", "V", "B", terms), 60);  // 3 * 4 * 5
  EXPECT_EQ(tr.to_json()[3]["numbers"], "3 \\cdot 4 \\cdot 5");
  // A negative factor after the first is parenthesised, as in a sum.
  EXPECT_EQ(tr.product("Signed", "x", "count", {{"a", 2}, {"b", -3}}), -6);
  EXPECT_EQ(tr.to_json()[4]["numbers"], "2 \\cdot \\left(-3\\right)");
}

TEST(FormulaRecords, MalformedRecordsAreNamed) {
  constexpr Formula implicit = record("x", "2B", "B", "t", "B", kTable, t_prod);
  EXPECT_NE(records::problems_of(implicit).find("'*'"), std::string::npos);
  constexpr Formula unused = record("x", "2 * B", "B", "t", "B D", kTable, t_prod);
  EXPECT_NE(records::problems_of(unused).find("D is not in the expression"), std::string::npos);
  constexpr Formula stray = record("x", "2 * B * Q", "B", "t", "B", kTable, t_prod);
  EXPECT_NE(records::problems_of(stray).find("Q"), std::string::npos);
  constexpr Formula untabled = record("x", "2 * q", "B", "t", "q", kTable, t_prod);
  EXPECT_NE(records::problems_of(untabled).find("not in the chapter's table"), std::string::npos);
  constexpr Formula func = record("x", "log10(B)", "B", "t", "B", kTable, t_prod);
  EXPECT_NE(records::problems_of(func).find("unknown function"), std::string::npos);
}

}  // namespace
}  // namespace sb
