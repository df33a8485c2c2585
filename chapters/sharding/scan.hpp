// Character scanning shared by the notation's parsers (notation.cpp, literal.cpp, mesh.cpp):
// positions counted in characters, and errors that point at one.
#pragma once
#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>

#include "chapters/sharding/notation.hpp"
#include "core/error.hpp"

namespace sb::sharding::scan {

using Text = std::string_view;

// 1-based character (code point) position of byte offset i, so that UTF-8 text points right.
inline std::size_t char_pos(Text s, std::size_t i) {
  std::size_t n = 0;
  for (std::size_t k = 0; k < i && k < s.size(); ++k)
    if ((static_cast<unsigned char>(s[k]) & 0xC0) != 0x80) ++n;
  return n + 1;
}

inline std::string shown(Text s, std::size_t i) {
  if (i >= s.size()) return "end of input";
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x20 || c >= 0x7F) return "a non-ASCII or control character";
  return std::string("'") + s[i] + "'";
}

[[noreturn]] inline void fail_at(Text field, Text s, std::size_t i, const std::string& msg,
                                 Text code) {
  fail(field, "at character " + std::to_string(char_pos(s, i)) + " (" + shown(s, i) + "): " + msg,
       code);
}

inline bool is_alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
inline bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
inline bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

inline void check_length(Text text, Text field, const char* what) {
  if (text.size() > kMaxNotationLength)
    fail(field,
         std::string(what) + " is " + std::to_string(text.size()) + " characters long; at most " +
             std::to_string(kMaxNotationLength) + " are accepted",
         "too_long");
}

}  // namespace sb::sharding::scan
