// The formula-answer parser: values worked out by hand, every error it can report, TeX echo.
#include "core/expr.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/error.hpp"
#include "tests/support/support.hpp"

using sb::InputError;
using sb::expr::Expr;

namespace {

// The symbols most tests bind: small distinct integers so products are easy to do by hand.
const std::map<std::string, double> kVars = {{"B", 3}, {"D", 4}, {"F", 5}, {"N", 8}, {"e", 10}};

double ev(const std::string& text, const std::map<std::string, double>& vars = kVars) {
  return Expr::parse(text, "answer").eval(vars);
}

InputError parse_error(const std::string& text, const std::string& field = "answers.b_crit") {
  InputError e = sb::test::thrown([&] { Expr::parse(text, field); });
  EXPECT_EQ(e.code, "bad_expression") << text;
  EXPECT_EQ(e.field, field) << text;
  return e;
}

InputError eval_error(const std::string& text, const std::map<std::string, double>& vars) {
  Expr x = Expr::parse(text, "answers.t");
  InputError e = sb::test::thrown([&] { x.eval(vars); });
  EXPECT_EQ(e.code, "unknown_symbol") << text;
  EXPECT_EQ(e.field, "answers.t") << text;
  return e;
}

bool has(const InputError& e, const std::string& part) {
  return std::string(e.what()).find(part) != std::string::npos;
}

TEST(Expr, PrecedenceAndAssociativity) {
  EXPECT_DOUBLE_EQ(ev("1 + 2*3"), 7);    // 1 + 6
  EXPECT_DOUBLE_EQ(ev("(1 + 2)*3"), 9);  // 3 * 3
  EXPECT_DOUBLE_EQ(ev("8 - 4 - 2"), 2);  // (8 - 4) - 2, left-associative
  EXPECT_DOUBLE_EQ(ev("8/4/2"), 1);      // (8 / 4) / 2
  EXPECT_DOUBLE_EQ(ev("2^3^2"), 512);    // 2^(3^2) = 2^9, right-associative
  EXPECT_DOUBLE_EQ(ev("2**3**2"), 512);  // same with **
  EXPECT_DOUBLE_EQ(ev("-2^2"), -4);      // -(2^2)
  EXPECT_DOUBLE_EQ(ev("(-2)^2"), 4);     // (-2)*(-2)
  EXPECT_DOUBLE_EQ(ev("2^-1"), 0.5);     // 1/2
  EXPECT_DOUBLE_EQ(ev("2*-3"), -6);      // 2 * (-3)
  EXPECT_DOUBLE_EQ(ev("--3"), 3);        // -(-3)
  EXPECT_DOUBLE_EQ(ev("+3 - -1"), 4);    // 3 + 1
  EXPECT_DOUBLE_EQ(ev("2*3^2/6"), 3);    // 2 * 9 / 6
  EXPECT_DOUBLE_EQ(ev("B*D + F"), 17);   // 3*4 + 5
  EXPECT_DOUBLE_EQ(ev("B^2 - D"), 5);    // 9 - 4
  EXPECT_DOUBLE_EQ(ev("2*B*D*F/(B*D + D*F + B*F)"), 120.0 / 47);  // 2*60 / (12 + 20 + 15)
}

TEST(Expr, Numbers) {
  EXPECT_DOUBLE_EQ(ev("1.97e14 / 8.2e11"), 1.97e14 / 8.2e11);  // 197000 / 820 = 240.24...
  EXPECT_NEAR(ev("1.97e14 / 8.2e11"), 240.2439, 1e-4);
  EXPECT_DOUBLE_EQ(ev(".5*4"), 2);  // 0.5 * 4
  EXPECT_DOUBLE_EQ(ev("2.5E-3"), 0.0025);
  EXPECT_DOUBLE_EQ(ev("1e+3"), 1000);
  EXPECT_DOUBLE_EQ(ev("3."), 3);
  // "e" with no digits after is the symbol e, multiplied: 2*e + B = 20 + 3.
  EXPECT_DOUBLE_EQ(ev("2e+B"), 23);
  EXPECT_DOUBLE_EQ(ev("2e"), 20);  // 2 * 10
}

TEST(Expr, ImplicitMultiplication) {
  EXPECT_DOUBLE_EQ(ev("2B"), 6);          // 2 * 3
  EXPECT_DOUBLE_EQ(ev("2 B"), 6);         // spaces do not matter
  EXPECT_DOUBLE_EQ(ev("2(B + D)"), 14);   // 2 * 7
  EXPECT_DOUBLE_EQ(ev("(B)(D)"), 12);     // 3 * 4
  EXPECT_DOUBLE_EQ(ev("(B + 1)D"), 16);   // 4 * 4
  EXPECT_DOUBLE_EQ(ev("2B^2"), 18);       // 2 * (3^2), the power binds first
  EXPECT_DOUBLE_EQ(ev("2B*D"), 24);       // 2 * 3 * 4
  EXPECT_DOUBLE_EQ(ev("2 sqrt(16)"), 8);  // 2 * 4
  EXPECT_DOUBLE_EQ(ev("4/2B"), 6);        // (4/2) * 3: implicit is an ordinary product
  EXPECT_DOUBLE_EQ(ev("-2B"), -6);
  // A number after ')' is not a product: "(B+1)2" is an error (below), "B2" a symbol.
  EXPECT_DOUBLE_EQ(ev("B2", {{"B2", 7}}), 7);
}

TEST(Expr, Functions) {
  EXPECT_DOUBLE_EQ(ev("max(B, D, F)"), 5);
  EXPECT_DOUBLE_EQ(ev("min(3, 1, 2)"), 1);
  EXPECT_DOUBLE_EQ(ev("max(1)"), 1);
  EXPECT_DOUBLE_EQ(ev("max(B*D, F^2)"), 25);  // max(12, 25)
  EXPECT_DOUBLE_EQ(ev("sqrt(16)"), 4);
  EXPECT_NEAR(ev("log(exp(2))"), 2, 1e-15);
  EXPECT_NEAR(ev("ln(exp(2))"), 2, 1e-15);
  EXPECT_DOUBLE_EQ(ev("log2(1024)"), 10);  // 2^10 = 1024
  EXPECT_DOUBLE_EQ(ev("log2(N)"), 3);      // 2^3 = 8
  EXPECT_DOUBLE_EQ(ev("log10(1e6)"), 6);
  EXPECT_DOUBLE_EQ(ev("abs(B - F)"), 2);  // |3 - 5|
  EXPECT_DOUBLE_EQ(ev("ceil(2.1)"), 3);
  EXPECT_DOUBLE_EQ(ev("floor(-2.1)"), -3);
  EXPECT_DOUBLE_EQ(ev("-sqrt(4)^2"), -4);  // -(2^2)
}

TEST(Expr, NonFiniteIsNaN) {
  EXPECT_TRUE(std::isnan(ev("1/0")));
  EXPECT_TRUE(std::isnan(ev("1/(B - B)")));  // 3 - 3 = 0
  EXPECT_TRUE(std::isnan(ev("1/(1/0)")));    // the NaN does not turn back into 0
  EXPECT_TRUE(std::isnan(ev("sqrt(-1)")));
  EXPECT_TRUE(std::isnan(ev("log(0)")));        // -inf
  EXPECT_TRUE(std::isnan(ev("10^400")));        // overflows to inf
  EXPECT_TRUE(std::isnan(ev("1^(0/0)")));       // pow(1, NaN) would be 1
  EXPECT_TRUE(std::isnan(ev("(0/0)^0")));       // pow(NaN, 0) would be 1
  EXPECT_TRUE(std::isnan(ev("max(1, 0/0)")));   // fmax would skip the NaN
  EXPECT_TRUE(std::isnan(Expr().eval(kVars)));  // an Expr never parsed
}

TEST(Expr, ParseErrorsNamePositionAndField) {
  EXPECT_TRUE(has(parse_error(""), "at character 1: the expression is empty"));
  EXPECT_TRUE(has(parse_error("   "), "at character 1: the expression is empty"));
  // "2*(B+D" has 6 characters; the missing ')' is at character 7.
  EXPECT_TRUE(has(parse_error("2*(B+D"),
                  "at character 7: expected ')' to close the '(' at "
                  "character 3 but found the end of the expression"));
  EXPECT_TRUE(has(parse_error("max(B, D"), "at character 9: expected ')'"));
  EXPECT_TRUE(has(parse_error("(B D)"), "at character 4: expected ')'"));
  EXPECT_TRUE(has(parse_error("(B D)"), "write B*D"));
  EXPECT_TRUE(has(parse_error("B+D)"), "at character 4: ')' has no matching '('"));
  EXPECT_TRUE(has(parse_error("B +"), "at character 4: expected a number, a symbol or '('"));
  EXPECT_TRUE(has(parse_error("*B"), "at character 1: expected a number, a symbol or '('"));
  EXPECT_TRUE(has(parse_error("2***3"), "at character 4: expected a number"));  // "**" then "*"
  EXPECT_TRUE(has(parse_error("B $ D"), "at character 3: unexpected character '$'"));
  EXPECT_TRUE(has(parse_error("2 3"), "at character 3: expected an operator before '3'"));
  EXPECT_TRUE(has(parse_error("B D"),
                  "at character 3: expected an operator before 'D' "
                  "(for a product write B*D)"));
  // After ')' a number does not multiply.
  EXPECT_TRUE(has(parse_error("(B+1)2"), "at character 6: expected an operator before '2'"));
  EXPECT_TRUE(has(parse_error("1.2.3"), "at character 4: expected an operator before '.3'"));
  EXPECT_TRUE(has(parse_error("foo(2)"), "at character 1: 'foo' is not a function"));
  EXPECT_TRUE(has(parse_error("B(D+F)"), "for a product write B*(...)"));
  EXPECT_TRUE(has(parse_error("2 + max"), "at character 5: 'max' is a function"));
  EXPECT_TRUE(has(parse_error("sqrt(1, 2)"), "at character 1: sqrt takes 1 argument, got 2"));
  EXPECT_TRUE(has(parse_error("max()"),
                  "at character 5: expected a number, a symbol or '(' "
                  "but found ')'"));
  EXPECT_TRUE(has(parse_error("max(1,)"), "at character 7: expected a number"));
  EXPECT_TRUE(has(parse_error("2 * 1e999"), "at character 5: the number 1e999 is too large"));
}

TEST(Expr, PositionsCountCharactersNotBytes) {
  // "×" is two bytes in UTF-8 but one character.
  EXPECT_TRUE(has(parse_error("B×D"),
                  "at character 2: unexpected character '×' "
                  "(write * for a product)"));
  EXPECT_TRUE(has(parse_error("é×B"), "at character 1: unexpected character 'é'"));
  EXPECT_TRUE(has(parse_error("2 − B"), "(write - for a minus)"));
  // A stray byte that is not UTF-8 is named by value, so the message stays valid UTF-8.
  EXPECT_TRUE(has(parse_error("B+\xff"), "at character 3: unexpected character byte 0xFF"));
  EXPECT_TRUE(has(parse_error(std::string("B\0", 2)),
                  "at character 2: unexpected character "
                  "byte 0x00"));
}

TEST(Expr, NestingLimit) {
  auto nested = [](int n) { return std::string(n, '(') + "1" + std::string(n, ')'); };
  EXPECT_DOUBLE_EQ(ev(nested(100)), 1);
  EXPECT_TRUE(has(parse_error(nested(101)), "at character 101: nested more than 100 levels"));
  EXPECT_DOUBLE_EQ(ev(std::string(100, '-') + "1"), 1);  // an even number of minus signs
  EXPECT_TRUE(has(parse_error(std::string(101, '-') + "1"), "nested more than 100"));
  std::string pow100, pow101;
  for (int i = 0; i < 100; ++i) pow100 += "1^";
  pow101 = pow100 + "1^";
  EXPECT_DOUBLE_EQ(ev(pow100 + "1"), 1);  // 1^(1^(...)) = 1
  EXPECT_TRUE(has(parse_error(pow101 + "1"), "nested more than 100"));
  std::string calls;
  for (int i = 0; i < 101; ++i) calls += "abs(";
  EXPECT_TRUE(has(parse_error(calls + "1" + std::string(101, ')')), "nested more than 100"));
  // Ten thousand '(' would overflow a naive parser's stack; ours stops at the 101st.
  EXPECT_TRUE(has(parse_error(std::string(1999, '(')), "nested more than 100"));
}

TEST(Expr, LengthLimit) {
  std::string s;
  for (int i = 0; i < 999; ++i) s += "1+";
  s += "11";  // 999*2 + 2 = 2000 characters: 999 ones plus 11 = 1010
  ASSERT_EQ(s.size(), 2000u);
  EXPECT_DOUBLE_EQ(ev(s), 1010);
  EXPECT_TRUE(has(parse_error(s + "1"),
                  "at character 2001: the expression is longer than "
                  "2000 characters"));
  EXPECT_TRUE(has(parse_error(std::string(100000, 'B')), "longer than 2000 characters"));
  // 2000 two-byte characters are 2000 characters, within the limit (they fail for another reason).
  std::string wide;
  for (int i = 0; i < 2000; ++i) wide += "é";
  EXPECT_TRUE(has(parse_error(wide), "at character 1: unexpected character 'é'"));
}

TEST(Expr, UnknownSymbols) {
  std::map<std::string, double> bdf = {{"B", 3}, {"D", 4}, {"F", 5}};
  InputError e = eval_error("2*BDF/(B + D)", bdf);
  EXPECT_TRUE(has(e, "at character 3: unknown symbol 'BDF'; did you mean B*D*F?"));
  EXPECT_TRUE(has(e, "(symbols here: B, D, F)"));
  EXPECT_TRUE(has(eval_error("2BD", bdf), "unknown symbol 'BD'; did you mean B*D?"));
  // Not all letters known: no product suggested.
  InputError x = eval_error("BX", bdf);
  EXPECT_TRUE(has(x, "at character 1: unknown symbol 'BX'"));
  EXPECT_FALSE(has(x, "did you mean"));
  EXPECT_TRUE(has(eval_error("b + 1", bdf), "unknown symbol 'b'; did you mean B?"));
  EXPECT_TRUE(has(eval_error("B + W_ici", bdf), "at character 5: unknown symbol 'W_ici'"));
  // The first unknown symbol from the left is the one reported.
  EXPECT_TRUE(has(eval_error("Q + R", bdf), "unknown symbol 'Q'"));
  // Parsing alone never needs the symbols.
  EXPECT_NO_THROW(Expr::parse("BDF", "answers.t"));
}

TEST(Expr, Symbols) {
  Expr x = Expr::parse("2*B*D/(max(B, F) + W_ici) + log2(N) + 1e3", "f");
  EXPECT_EQ(x.symbols(), (std::set<std::string>{"B", "D", "F", "N", "W_ici"}));
  EXPECT_TRUE(Expr::parse("2 + sqrt(9)", "f").symbols().empty());
  EXPECT_EQ(Expr::parse("BDF", "f").symbols(), (std::set<std::string>{"BDF"}));
}

std::string tex(const std::string& text) { return Expr::parse(text, "f").tex(); }

TEST(Expr, Tex) {
  EXPECT_EQ(tex("2*B*D*F/(B*D + D*F + B*F)"),
            "\\frac{2 \\cdot B \\cdot D \\cdot F}{B \\cdot D + D \\cdot F + B \\cdot F}");
  EXPECT_EQ(tex("(a + b)*c"), "\\left(a + b\\right) \\cdot c");
  EXPECT_EQ(tex("a - (b - c)"), "a - \\left(b - c\\right)");
  EXPECT_EQ(tex("a - (b*c)"), "a - b \\cdot c");  // no parentheses it does not need
  EXPECT_EQ(tex("a + (b + c)"), "a + b + c");
  EXPECT_EQ(tex("a*-b"), "a \\cdot \\left(-b\\right)");
  EXPECT_EQ(tex("-x^2"), "-x^{2}");
  EXPECT_EQ(tex("(-x)^2"), "\\left(-x\\right)^{2}");
  EXPECT_EQ(tex("2^-1"), "2^{-1}");
  EXPECT_EQ(tex("(a/b)^2"), "\\left(\\frac{a}{b}\\right)^{2}");
  EXPECT_EQ(tex("2B"), "2 \\cdot B");
  EXPECT_EQ(tex("sqrt(N)"), "\\sqrt{N}");
  EXPECT_EQ(tex("max(a, b)"), "\\max\\left(a, b\\right)");
  EXPECT_EQ(tex("min(B*D, F)"), "\\min\\left(B \\cdot D, F\\right)");
  EXPECT_EQ(tex("log2(N)"), "\\log_2\\left(N\\right)");
  EXPECT_EQ(tex("1.97e14"), "1.97 \\times 10^{14}");
  EXPECT_EQ(tex("1e-03"), "1 \\times 10^{-3}");
  EXPECT_EQ(tex(".5"), "0.5");
  EXPECT_EQ(tex("W_ici"), "W_{\\mathit{ici}}");
  EXPECT_EQ(tex("bm"), "\\mathit{bm}");
  EXPECT_EQ(tex("alpha"), "\\alpha");
}

}  // namespace
