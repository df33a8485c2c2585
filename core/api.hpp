// The JSON entry point every face uses: the wasm binding, the CLI's --json, the fuzzer.
// Request: {"op": "...", ...}; response: {"ok": true, ...} or {"ok": false, "error": {"code",
// "message", "field"}}. It never throws.
//   {"op": "list"}                                   chapters, calculators and problems with
//   schemas
//   {"op": "calc", "name", "inputs": {}}             a calculator's result and trace
//   {"op": "problem", "id", "given": {}}             statement, inputs, slots, answers, trace
//   {"op": "check", "id", "answers": {}, "given": {}} grading (see core/check.hpp)
//   {"op": "variant", "id", "seed"}                  new inputs for "new variant"
//   {"op": "chips"}                                  the hardware tables with sources
//   {"op": "parse", "text", "unit"}                  a quantity parsed to base units
#pragma once
#include <cstdint>
#include <string>

#include "core/json.hpp"
#include "core/registry.hpp"

namespace sb::api {

json handle(const json& request);
std::string handle(const std::string& request_text);

// The problem ops ("problem", "check", "variant") answer only in a program that registers problems:
// its generated registration (gen/chapters_*.cpp) calls this. A page's first module registers
// calculators alone and links none of the problem code; there those ops answer not_in_module.
void enable_problem_ops();
namespace detail {
using ProblemOp = json (*)(const std::string& op, const json& request);
void set_problem_op(ProblemOp op);
// A request's string or object member; an InputError naming the key when missing or mistyped
// (an absent or null object is an empty one).
std::string str(const json& req, const char* key);
const json& obj(const json& req, const char* key);
}  // namespace detail

// Problem description + computed answers (used by `scaling problems --json` too).
json solve_problem(const std::string& id, const json& given);

// Whether "new variant" has anything to change in p, and a draw of new givens for it from a seed
// ({"id", "given"}), each a real chip's where the givens state one; an InputError (no_variant)
// when there is nothing to vary or no draw solves.
bool variable(const Problem& p);
json variant(const Problem& p, uint64_t seed);

// A problem's statement with its inputs filled in (Problem::statement says how).
std::string render_statement(const Problem& p, const Inputs& in);

}  // namespace sb::api
