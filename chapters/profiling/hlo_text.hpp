// The lexical layer of the HLO reader (hlo.cpp): a cursor over one line whose errors carry the
// column, and the splitting of a line at its top-level commas, with brackets, braces and quoted
// strings (escapes included) kept whole.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sb::profiling::hlo::text {

// A line that cannot be read: the 1-based column and why.
struct Bad {
  size_t column = 0;
  std::string why;
};

struct Cursor {
  std::string_view s;
  size_t i = 0;
  size_t base = 0;  // column of s[0] in its line, 0-based

  [[noreturn]] void bad(const std::string& why) const { throw Bad{base + i + 1, why}; }
  bool done() const { return i >= s.size(); }
  char peek() const { return i < s.size() ? s[i] : '\0'; }
  void skip_space();
  bool eat(char c);  // after spaces
  void expect(char c, const char* what);
  bool eat_word(std::string_view w);  // w followed by a non-name character
  std::string_view name();            // [%]?[A-Za-z0-9_.-]+ without the '%'; bad() if none
  int64_t whole();                    // a non-negative whole number below 2^62
  std::vector<int64_t> whole_list(char open, char close);  // {1,0} or [2,4]
};

bool name_char(char c);

// The parts of s between its commas at depth 0 (outside (), [], {}, <> pairs of one kind and
// quoted strings), each with its offset in s. Throws Bad for an unbalanced bracket or an
// unterminated string.
struct Part {
  std::string_view text;
  size_t offset = 0;
};
std::vector<Part> split_top(std::string_view s, size_t base);

// The index just past the bracket closing the one at s[open] (quotes respected); Bad if none.
size_t closing(std::string_view s, size_t open, size_t base);

std::string_view trim(std::string_view s);

}  // namespace sb::profiling::hlo::text
