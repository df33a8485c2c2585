// Grading a reader's answers. Numbers: parsed with units, compared with the model's value within
// the slot's tolerance. Formulas: both sides evaluated at random positive points. Wrong answers
// that are off by a recognisable factor get a hint naming the likely mistake.
#pragma once
#include <string>

#include "core/json.hpp"
#include "core/registry.hpp"

namespace sb::check {

enum class Verdict { Correct, Close, Wrong };
const char* name(Verdict v);

struct Result {
  Verdict verdict = Verdict::Wrong;
  std::string hint;  // "" when correct
};

// got and expected in base units. Correct within tol_rel, close within 5 * tol_rel (at least 10%).
Result number(double got, double expected, const Slot& slot);

// Grades a formula typed by the reader against slot.formula at random points of slot.vars.
// Throws InputError (field = field) for a malformed expression or an unknown symbol.
Result formula(const std::string& text, const Slot& slot, const std::string& field);

// The factor hint for got/expected, or "" if none fits (used by both of the above).
std::string factor_hint(double ratio, const Slot& slot);

// Grades every answer given for a problem: answers is {slot: "text"}; given overrides the
// problem's inputs (a variant). Returns {"id", "results": [{"slot", "verdict", "hint",
// "expected", "expected_text", "got"}], "trace", "inputs"}. Per-slot parse errors become
// {"verdict": "invalid", "error": {...}} so one bad slot does not hide the others.
json grade(const Problem& p, const json& answers, const json& given);

}  // namespace sb::check
