// The CLI's derivations as plain text: the TeX the chapters write, read without a renderer.
#include "core/plain_tex.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/api.hpp"
#include "core/json.hpp"
#include "core/registry.hpp"

using sb::plain_tex;

TEST(PlainTex, ReadsTheChaptersFormulas) {
  // Issue 9's example: a fraction of names, then of numbers in scientific form.
  EXPECT_EQ(plain_tex("T_{math} = \\frac{\\mathrm{FLOPs}}{\\mathrm{peak}}"),
            "T_math = FLOPs / peak");
  EXPECT_EQ(plain_tex("\\frac{2.749 \\times 10^{11}}{1.97 \\times 10^{14}}"), "2.749e11 / 1.97e14");
  // A bare power of ten is a number too; a negative exponent keeps its sign.
  EXPECT_EQ(plain_tex("\\frac{10^{12}}{9.89 \\times 10^{14}}"), "1e12 / 9.89e14");
  EXPECT_EQ(plain_tex("0.001 + 6 \\times 10^{-4}"), "0.001 + 6e-4");
  // A numerator of several terms keeps its parentheses; one term does not need them.
  EXPECT_EQ(plain_tex("B_{crit} \\approx \\frac{2 \\cdot 240.2}{2}"), "B_crit ~ (2 * 240.2) / 2");
  // Sub- and superscripts: a word subscript joins with '_', a compound power is parenthesised.
  EXPECT_EQ(plain_tex("N_{per chip}^{n+1}"), "N_per_chip^(n+1)");
  EXPECT_EQ(plain_tex("x^2"), "x^2");
  EXPECT_EQ(plain_tex("10^{n}"), "10^n");  // a power of ten that is not a number
  // sharding.Q1's product over the axes A does not use.
  EXPECT_EQ(plain_tex("r = \\prod_{\\text{unused axes}} |X|"), "r = prod over unused axes |X|");
  // Floors, ceilings, roots, max, relations and spacing commands.
  EXPECT_EQ(plain_tex("\\lfloor n_i/2 \\rfloor"), "floor(n_i/2)");
  EXPECT_EQ(plain_tex("\\lceil \\frac{a}{b} \\rceil"), "ceil(a / b)");
  EXPECT_EQ(plain_tex("\\sqrt{(B_{pod}/F) N}"), "sqrt((B_pod/F) N)");
  EXPECT_EQ(plain_tex("\\max(5.592 \\times 10^{-4}, 0)"), "max(5.592e-4, 0)");
  EXPECT_EQ(plain_tex("\\mathrm{per\\ chip} \\le C_{HBM}"), "per chip <= C_HBM");
  EXPECT_EQ(plain_tex("x \\geq 1 \\; \\text{and} \\, y \\to \\infty"), "x >= 1 and y -> inf");
  EXPECT_EQ(plain_tex("\\left( a + b \\right)"), "(a + b)");
  EXPECT_EQ(plain_tex("B \\ll D \\;\\; T \\gg 1"), "B << D T >> 1");
}

TEST(PlainTex, SentencesKeepTheirWords) {
  EXPECT_EQ(sb::plain_sentence("compute-bound once $B > I_{hw}$."), "compute-bound once B > I_hw.");
  EXPECT_EQ(sb::plain_sentence("$C[I_X, K]$ then $T_{math}$"), "C[I_X, K] then T_math");
  EXPECT_EQ(sb::plain_sentence("costs $5 and"), "costs $5 and");  // no pair: words
  EXPECT_EQ(sb::plain_sentence(""), "");
}

TEST(PlainTex, OddInputStaysReadable) {
  EXPECT_EQ(plain_tex(""), "");
  EXPECT_EQ(plain_tex("a}b"), "a}b");       // a stray brace is kept
  EXPECT_EQ(plain_tex("\\frac{a"), "a /");  // an unclosed group ends the input
  EXPECT_EQ(plain_tex("\\"), "");
  EXPECT_EQ(plain_tex("\\unknown x"), "unknown x");
  EXPECT_EQ(plain_tex("\\{0,0\\}"), "{0,0}");
}

// Every derivation step of every problem and calculator on its defaults reads as plain text: no
// backslash, no brace of a TeX group, no x 10^.
TEST(PlainTex, EveryDerivationReadsPlain) {
  auto scan = [](const std::string& who, const sb::json& r) {
    ASSERT_TRUE(r["ok"].get<bool>()) << who;
    if (!r.contains("trace")) return;
    for (const auto& s : r["trace"]) {
      // A step's words keep their math between dollar signs (the page typesets it): outside them
      // no sub- or superscript and no relation written in ASCII.
      const std::string what = s.value("what", "");
      std::string words;
      size_t dollars = 0;
      for (char c : what) {
        if (c == '$')
          ++dollars;
        else if (dollars % 2 == 0)
          words += c;
      }
      EXPECT_EQ(dollars % 2, 0u) << who << ": " << what;
      for (const char* raw : {"_", "^", "<<", ">>", ">=", "<="})
        EXPECT_EQ(words.find(raw), std::string::npos) << who << ": raw math in '" << what << "'";
      EXPECT_EQ(sb::plain_sentence(what).find('\\'), std::string::npos) << who << ": " << what;
      for (const char* k : {"formula", "numbers"}) {
        if (!s.contains(k)) continue;
        const std::string p = plain_tex(s[k].get<std::string>());
        EXPECT_EQ(p.find('\\'), std::string::npos) << who << ": " << p;
        EXPECT_EQ(p.find("_("), std::string::npos) << who << ": " << p;
        EXPECT_EQ(p.find("10^"), std::string::npos) << who << ": " << p;
        EXPECT_EQ(p.find("(unused"), std::string::npos) << who << ": " << p;
      }
    }
  };
  for (const auto& p : sb::Registry::get().problems())
    scan(std::string(p.id), sb::api::handle(sb::json{{"op", "problem"}, {"id", p.id}}));
  for (const auto& c : sb::Registry::get().calculators())
    scan(std::string(c.name),
         sb::api::handle(
             sb::json{{"op", "calc"}, {"name", c.name}, {"inputs", sb::json::object()}}));
}
