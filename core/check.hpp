// Grading a reader's answers. Numbers: parsed with units and compared with the model's value, the
// book's shortcuts and the known mistakes (ENGINE.md gives the order); formulas: both sides
// evaluated at random positive points. A wrong answer off by a recognisable factor gets a hint
// naming the likely mistake, among those that fit what the slot measures.
#pragma once
#include <span>
#include <string>

#include "core/json.hpp"
#include "core/registry.hpp"

namespace sb::check {

enum class Verdict { Correct, Close, Wrong };
const char* name(Verdict v);

// Which rule decided a number: "exact" (within tolerance of the model's value), "book" (of a
// shortcut the book takes), "binary" (a prefix read as a power of 1024), "digits" (the exact value
// rounded to the digits typed), "slip" (a known mistake), "factor" (a factor that fits the slot),
// "close", "wrong"; "" for formulas and bools.
struct Result {
  Verdict verdict = Verdict::Wrong;
  std::string hint;  // why it is wrong or close; "" when correct
  std::string note;  // when correct: which rule accepted it and the exact value
  std::string rule;
};

// A typed answer to a Number slot graded against the solver's exact value `exact` and the other
// values it gives for that slot (Answers::book and Answers::slip; the alternatives of other slots
// are skipped). `got` is set to the value read. Throws InputError naming `field` for text it
// cannot read, a bound typed for a slot that is not one, or an empty bound ("X < ").
Result answer(const std::string& text, const Slot& slot, double exact,
              std::span<const Answers::Alt> books, std::span<const Answers::Alt> slips,
              const std::string& field, double& got);

// got and expected in base units, with no book values and no text: correct within tol_rel, the
// slot's own and generic factor hints, close within 5 * tol_rel (at least 10%).
Result number(double got, double expected, const Slot& slot);

// Grades a formula typed by the reader against slot.formula at random points of slot.vars.
// Throws InputError (field = field) for a malformed expression or an unknown symbol.
Result formula(const std::string& text, const Slot& slot, const std::string& field);

// The factor hint for got/expected, or "" if none fits: the slot's own hints first, then the
// generic factors that fit its quantity (Slot::quantity, Slot::from).
std::string factor_hint(double ratio, const Slot& slot);

// The significant digits of the number typed in `text` (after any name and relation): "2e6" 1,
// "1000" 1 (trailing zeros of a whole number are not significant), "1.50" 3, "2.1 M" 2, "1,024" 4;
// 0 if it holds no digit.
int typed_digits(std::string_view text);

// Grades every answer given for a problem: answers is {slot: "text"}; given overrides the
// problem's inputs (a variant). Returns {"id", "results": [{"slot", "verdict", "rule", "hint",
// "note", "expected", "expected_text", "got", "got_text"}], "trace", "inputs"}. Per-slot errors
// become {"verdict": "invalid", "error": {...}} so one bad slot does not hide the others.
json grade(const Problem& p, const json& answers, const json& given);

}  // namespace sb::check
