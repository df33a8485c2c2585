// Expressions in the book's symbols, for formula answers: "2*B*D*F/(B*D + D*F + B*F)",
// "2B*D", "max(a, b)", "N^2", "log2(N)". Numbers may carry an exponent (1.97e14).
// A number or ")" followed by a symbol or "(" multiplies ("2B", "2(B+D)", "(a)(b)", "(a)b").
// A run of letters is ONE symbol ("BDF" is not B*D*F); eval suggests the product when it fits.
// Errors: code "bad_expression" (parse) or "unknown_symbol" (eval), message "at character N: ...".
#pragma once
#include <cstddef>
#include <map>
#include <memory>
#include <set>
#include <string>

namespace sb::expr {

struct Node;

class Expr {
 public:
  // Hostile input is refused, not crashed on: longer texts and deeper nesting are InputErrors.
  static constexpr std::size_t kMaxLength = 2000;  // characters (UTF-8 code points)
  static constexpr int kMaxDepth = 100;            // parentheses, signs and powers nested

  // Parses `text`; throws InputError naming `field` and the character position on bad input.
  static Expr parse(const std::string& text, const std::string& field);
  // Evaluates with the given symbol values; throws InputError for a symbol not in `vars`.
  // Division by zero or any NaN/inf on the way gives NaN (a mismatch for the grader).
  double eval(const std::map<std::string, double>& vars) const;
  // The symbols the expression uses.
  std::set<std::string> symbols() const;
  // A TeX rendering of the parsed expression (for echoing the reader's answer).
  std::string tex() const;

 private:
  std::shared_ptr<const Node> root_;
  std::string field_;
};

}  // namespace sb::expr
