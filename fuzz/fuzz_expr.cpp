// libFuzzer: any bytes typed as a formula answer. InputError is the expected outcome of bad
// input; any other exception, a crash or a sanitizer report is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>

#include "core/error.hpp"
#include "core/expr.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  // The symbols a roofline / sharding formula slot would bind, plus a zero and a huge value
  // to exercise division by zero and overflow.
  static const std::map<std::string, double> vars = {
      {"B", 3}, {"D", 4096}, {"F", 16384}, {"N", 8}, {"W_ici", 4.5e10}, {"z", 0}, {"h", 1e300}};
  try {
    sb::expr::Expr x = sb::expr::Expr::parse(text, "answer");
    (void)x.symbols();
    (void)x.tex();
    (void)x.eval(vars);
  } catch (const sb::InputError& e) {
    // Every error must name the field the reader has to fix.
    if (e.field != "answer" || (e.code != "bad_expression" && e.code != "unknown_symbol"))
      std::abort();
  }
  return 0;
}
