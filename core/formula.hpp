// Formula records: each formula the book teaches, written once, in the model of the chapter that
// teaches it, beside the C++ function that computes it. A derivation step is made from a record
// (Trace::step): the value comes from the function, the TeX is rendered from the expression, the
// numbers are substituted by the trace, and the step's JSON carries the expression and the values
// so that any program can check it. One generic test (tests/core/formula_records_test.cpp) draws
// every record's symbols at random in their ranges and compares the expression with the function.
#pragma once
#include <span>
#include <string>
#include <vector>

#include "core/json.hpp"

namespace sb {

using Text = std::string_view;

// A symbol of the book's formulas, as a chapter's table declares it.
struct Symbol {
  Text name;  // as expressions write it: "B", "I_hw", "b_w", "FLOPs"
  Text unit;  // units id of its values ("flop_per_B", "count")
  // Where the record test draws it: log-uniform when lo > 0, else uniform; whole numbers when
  // `integer` (a count the function rounds, divides by or compares).
  double lo = 1, hi = 1e6;
  Text doc;  // what it stands for, in words
  bool integer = false;
  Text tex = {};  // TeX where the name rule (below) does not give the book's spelling
};

constexpr Symbol sym(Text name, Text unit, double lo, double hi, Text doc) {
  return Symbol{name, unit, lo, hi, doc};
}
constexpr Symbol whole(Text name, Text unit, double lo, double hi, Text doc) {
  Symbol s{name, unit, lo, hi, doc};
  s.integer = true;
  return s;
}
constexpr Symbol with_tex(Symbol s, Text tex) {
  s.tex = tex;
  return s;
}

// One formula of the book. The expression uses formula-check's grammar: numbers, symbols
// [A-Za-z][A-Za-z0-9_]*, + - * / ^, parentheses, min max sqrt log2 log exp ceil floor abs, and
// an explicit '*' for every product. There are no conditionals: a rule with branches ("3DF if
// gated, else 2DF") is one record per branch.
struct Formula {
  Text name;     // the quantity it gives, a symbol: "T_math"
  Text expr;     // its right-hand side: "FLOPs / peak"
  Text unit;     // units id of the result
  Text section;  // the book's section ("A.1 (1)"), or "beyond the book: " and where it is from
  Text args;     // the symbols in the order the function takes them: "FLOPs peak"
  double (*fn)(const double* x) = nullptr;  // the chapter's function; x in the order of args
  std::span<const Symbol> symbols;          // the chapter's table every name comes from
  Text doc = {};                            // one line in words, for the formula sheet
};

// A record, written beside its function:
// inline constexpr Formula kTMath = record("T_math", "FLOPs / peak", "s", "A.1 (1)", "FLOPs peak",
//                                          kSymbols, [](const double* x) { return t_math(x[0],
//                                          x[1]); });
constexpr Formula record(Text name, Text expr, Text unit, Text section, Text args,
                         std::span<const Symbol> symbols, double (*fn)(const double* x),
                         Text doc = {}) {
  return Formula{name, expr, unit, section, args, fn, symbols, doc};
}

// A chapter's records, as it registers them: constexpr const Formula* kFormulas[] = {&kTMath}.
using Formulas = std::span<const Formula* const>;

namespace records {

// What a derivation shows, rendered once per record and kept: the formula in TeX
// ("T_{\mathrm{math}} = \frac{\mathrm{FLOPs}}{\mathrm{peak}}") and the right-hand side with a
// slot for each symbol's number.
struct Piece {
  std::string text;  // TeX before the slot
  int arg = -1;      // the argument whose number fills the slot; -1 for the closing text
};
struct Rendered {
  std::string tex;                // "lhs = rhs"
  std::string rhs;                // the right-hand side alone
  std::vector<Piece> numbers;     // the right-hand side with the numbers' slots
  std::vector<std::string> args;  // the argument names, in order
};

// The record rendered (parsed on first use, then kept). A malformed record (a bad expression, a
// symbol missing from args or from the table) is a std::logic_error: a programming mistake.
const Rendered& rendered(const Formula& f);

// Everything wrong with a record, in words ("" when it is sound): the expression does not parse
// in the strict grammar, it uses a symbol that is not an argument or an argument it does not use,
// a name is missing from the symbol table, a range is empty.
std::string problems_of(const Formula& f);

// The TeX of a symbol's name: the table's spelling, else the rule: greek names as letters
// ("alpha" -> \alpha), "base_sub" as base_{sub}, a name of more than one letter upright
// ("FLOPs" -> \mathrm{FLOPs}, "T_math" -> T_{\mathrm{math}}).
std::string tex_name(Text name, std::span<const Symbol> table = {});
// The same, appended to `out` (core/formula_tex.cpp, at -O2: derivation steps call it per term).
void append_tex_name(Out& out, Text name, std::span<const Symbol> table = {});

// The numbers substituted into a record's right-hand side, as TeX (4 significant digits).
void fill(Out& out, const Rendered& r, const double* x);

// A record as the formula sheet lists it: {name, tex, expr, unit, section, doc,
// symbols: [{name, tex, unit, doc}]}.
json to_json(const Formula& f);

}  // namespace records
}  // namespace sb
