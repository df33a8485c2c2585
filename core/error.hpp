// Errors are values at every face: the core throws InputError, the faces turn it into
// {"ok": false, "error": {"code", "message", "field"}}. Nothing else should escape the core.
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>

namespace sb {

struct InputError : std::runtime_error {
  std::string code;   // "bad_number", "out_of_range", "unknown_chip", "bad_expression", ...
  std::string field;  // the input the reader has to fix ("B", "chip", "answers.b_crit")
  InputError(std::string code_, std::string field_, const std::string& message)
      : std::runtime_error(message), code(std::move(code_)), field(std::move(field_)) {}
};

// Out of line: a throw written at each of the hundreds of call sites costs code at each.
[[noreturn]] void fail(std::string_view field, const std::string& message,
                       std::string_view code = "bad_input");

}  // namespace sb
