#include "core/json.hpp"

#include <cmath>
#include <cstdlib>
#include <memory>
#include <new>

namespace sb {

namespace {
// Length of the valid UTF-8 sequence starting at s[i], or 0 if there is none.
size_t utf8_len(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  size_t n = c < 0xC2 ? 0 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF5 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((b(i + k) & 0xC0) != 0x80) return 0;
  // Overlong three- and four-byte forms, surrogates, and code points above U+10FFFF.
  if ((c == 0xE0 && b(i + 1) < 0xA0) || (c == 0xED && b(i + 1) >= 0xA0) ||
      (c == 0xF0 && b(i + 1) < 0x90) || (c == 0xF4 && b(i + 1) >= 0x90))
    return 0;
  return n;
}
}  // namespace

void append_json(Out& out, std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  out << '"';
  size_t run = 0;  // start of the stretch of bytes that need no escaping: appended in one go
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') continue;
    if (c >= 0x80) {
      if (size_t n = utf8_len(s, i)) {
        i += n - 1;
        continue;
      }
    }
    out << s.substr(run, i - run);
    run = i + 1;
    if (c == '"' || c == '\\') {
      const char esc[2] = {'\\', static_cast<char>(c)};
      out << std::string_view(esc, 2);
    } else if (c == '\n') {
      out << "\\n";
    } else if (c < 0x20) {
      const char esc[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
      out << std::string_view(esc, 6);
    } else {
      out << "\xEF\xBF\xBD";  // U+FFFD for a byte that is not valid UTF-8
    }
  }
  out << s.substr(run) << '"';
}

void append_json(Out& out, double v) {
  if (!std::isfinite(v)) {
    out << "null";
    return;
  }
  // nlohmann's own shortest round-trip writer (Grisu2), so that numbers read the same whichever
  // way a response was written.
  char* at = out.room(64);
  out.commit(static_cast<size_t>(nlohmann::detail::to_chars(at, at + 64, v) - at));
}

namespace {
// nlohmann's serializer writing into an Out.
struct OutAdapter : nlohmann::detail::output_adapter_protocol<char> {
  explicit OutAdapter(Out& o) : out(o) {}
  void write_character(char c) override { out << c; }
  void write_characters(const char* s, std::size_t n) override { out << std::string_view(s, n); }
  Out& out;
};
}  // namespace

void append_json(Out& out, const json& j) {
  nlohmann::detail::serializer<json> s(std::make_shared<OutAdapter>(out), ' ', json::error_handler_t::replace);
  s.dump(j, false, false, 0);
}

void Out::grow(size_t more) {
  size_t cap = cap_ ? cap_ : 256;
  while (cap - n_ < more) cap *= 2;
  char* p = static_cast<char*>(std::realloc(p_, cap));
  if (!p) throw std::bad_alloc();
  p_ = p;
  cap_ = cap;
}

}  // namespace sb
