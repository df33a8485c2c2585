// The tree Expr::parse builds (expr.cpp), which evaluation and TeX rendering walk (expr_eval.cpp).
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace sb::expr {

enum class Op { Num, Var, Neg, Add, Sub, Mul, Div, Pow, Call };

struct Node {
  Op op = Op::Num;
  double value = 0;     // Num
  std::string text;     // Num: as typed (for tex); Var / Call: the name
  std::size_t pos = 0;  // 1-based character position, for eval's error messages
  std::vector<std::shared_ptr<const Node>> kids;
};

}  // namespace sb::expr
