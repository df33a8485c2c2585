// The HLO reader's cursor and splitter (hlo_text.hpp).
#include "chapters/profiling/hlo_text.hpp"

#include <cctype>

namespace sb::profiling::hlo::text {

bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

void Cursor::skip_space() {
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
}

bool Cursor::eat(char c) {
  skip_space();
  if (peek() != c) return false;
  ++i;
  return true;
}

void Cursor::expect(char c, const char* what) {
  if (!eat(c)) bad(std::string("expected ") + what);
}

bool Cursor::eat_word(std::string_view w) {
  skip_space();
  if (s.substr(i, w.size()) != w) return false;
  if (i + w.size() < s.size() && name_char(s[i + w.size()])) return false;
  i += w.size();
  return true;
}

std::string_view Cursor::name() {
  skip_space();
  if (peek() == '%') ++i;
  const size_t b = i;
  while (i < s.size() && name_char(s[i])) ++i;
  if (i == b) bad("expected a name");
  return s.substr(b, i - b);
}

int64_t Cursor::whole() {
  skip_space();
  if (!std::isdigit(static_cast<unsigned char>(peek()))) bad("expected a whole number");
  int64_t v = 0;
  while (std::isdigit(static_cast<unsigned char>(peek()))) {
    if (v > (int64_t{1} << 58)) bad("a number too large (2^62 or more)");
    v = v * 10 + (s[i++] - '0');
  }
  return v;
}

std::vector<int64_t> Cursor::whole_list(char open, char close) {
  std::vector<int64_t> v;
  expect(open, open == '{' ? "'{'" : "'['");
  if (eat(close)) return v;
  do v.push_back(whole());
  while (eat(','));
  if (!eat(close)) bad(close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
  return v;
}

namespace {

// Past the string whose opening quote is at s[q]; npos if it never closes.
size_t past_string(std::string_view s, size_t q) {
  for (size_t i = q + 1; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
      continue;
    }
    if (s[i] == '"') return i + 1;
  }
  return std::string_view::npos;
}

char closer(char c) { return c == '(' ? ')' : c == '[' ? ']' : c == '{' ? '}' : '\0'; }

}  // namespace

size_t closing(std::string_view s, size_t open, size_t base) {
  std::string stack(1, closer(s[open]));
  for (size_t i = open + 1; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"') {
      const size_t e = past_string(s, i);
      if (e == std::string_view::npos) throw Bad{base + i + 1, "a string that never closes"};
      i = e - 1;
    } else if (closer(c)) {
      stack.push_back(closer(c));
    } else if (c == ')' || c == ']' || c == '}') {
      if (c != stack.back())
        throw Bad{base + i + 1, std::string("'") + c + "' where '" + stack.back() + "' belongs"};
      stack.pop_back();
      if (stack.empty()) return i + 1;
    }
  }
  throw Bad{base + open + 1, std::string("'") + s[open] + "' that never closes"};
}

std::vector<Part> split_top(std::string_view s, size_t base) {
  std::vector<Part> parts;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"') {
      const size_t e = past_string(s, i);
      if (e == std::string_view::npos) throw Bad{base + i + 1, "a string that never closes"};
      i = e - 1;
    } else if (closer(c)) {
      i = closing(s, i, base) - 1;
    } else if (c == ')' || c == ']' || c == '}') {
      throw Bad{base + i + 1, std::string("'") + c + "' with no opening bracket"};
    } else if (c == ',') {
      parts.push_back({s.substr(start, i - start), start});
      start = i + 1;
    }
  }
  parts.push_back({s.substr(start), start});
  return parts;
}

}  // namespace sb::profiling::hlo::text
