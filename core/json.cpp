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

// Everything outside ASCII is written as \u escapes, so a response is pure ASCII: a browser turns
// ASCII bytes into a string about 7x faster than UTF-8 (0.6 us against 4.4 us for a 4.5 KB
// calculator response in node 20), and that decode was a tenth of a wasm call.
void append_json(Out& out, std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  // Written straight into the buffer, which needs at most 6 bytes out per byte in: a control or
  // broken byte becomes one escape (6), a UTF-8 sequence of n >= 2 bytes one escape or, for n = 4,
  // a surrogate pair (12).
  char* const start = out.room(6 * s.size() + 2);
  char* o = start;
  const auto u_escape = [&](unsigned cp) {
    *o++ = '\\';
    *o++ = 'u';
    *o++ = kHex[cp >> 12];
    *o++ = kHex[(cp >> 8) & 15];
    *o++ = kHex[(cp >> 4) & 15];
    *o++ = kHex[cp & 15];
  };
  *o++ = '"';
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      *o++ = static_cast<char>(c);
    } else if (c >= 0x80) {
      const size_t n = utf8_len(s, i);
      if (n == 0) {
        u_escape(0xFFFD);  // a byte that is not valid UTF-8
        continue;
      }
      unsigned cp = c & (0x7F >> n);
      for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
      if (cp >= 0x10000) {  // a surrogate pair
        cp -= 0x10000;
        u_escape(0xD800 | (cp >> 10));
        u_escape(0xDC00 | (cp & 0x3FF));
      } else {
        u_escape(cp);
      }
      i += n - 1;
    } else if (c == '"' || c == '\\') {
      *o++ = '\\';
      *o++ = static_cast<char>(c);
    } else if (c == '\n') {
      *o++ = '\\';
      *o++ = 'n';
    } else {
      u_escape(c);
    }
  }
  *o++ = '"';
  out.commit(static_cast<size_t>(o - start));
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
  nlohmann::detail::serializer<json> s(std::make_shared<OutAdapter>(out), ' ',
                                       json::error_handler_t::replace);
  s.dump(j, false, true, 0);  // ensure_ascii, as above
}

void Out::grow(size_t more) {
  // 4 KB at first: a calculator's derivation, values and response each fit, so a call makes one
  // allocation per buffer instead of five doublings (malloc was a tenth of a call in wasm).
  size_t cap = cap_ ? cap_ : 4096;
  while (cap - n_ < more) cap *= 2;
  char* p = static_cast<char*>(std::realloc(p_, cap));
  if (!p) throw std::bad_alloc();
  p_ = p;
  cap_ = cap;
}

}  // namespace sb
