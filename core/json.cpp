#include "core/json.hpp"

#include <cmath>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#include "core/error.hpp"

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

namespace {

// A key as it appears in a field or message: at most 60 bytes.
std::string short_key(std::string_view k) {
  return k.size() > 60 ? std::string(k.substr(0, 60)) + "..." : std::string(k);
}

// nlohmann's SAX interface, building the tree as nlohmann's own parser would, but counting as it
// goes: a request past a limit stops at the value that crosses it, before any more is built.
class Builder {
 public:
  explicit Builder(const JsonLimits& limits) : lim_(limits) {}

  bool null() { return add(json(nullptr)); }
  bool boolean(bool b) { return add(json(b)); }
  bool number_integer(json::number_integer_t n) { return add(json(n)); }
  bool number_unsigned(json::number_unsigned_t n) { return add(json(n)); }
  bool number_float(json::number_float_t x, const json::string_t&) { return add(json(x)); }
  bool string(json::string_t& s) {
    if (s.size() > lim_.string_bytes)
      return stop("too_large", "the text of " + path() + " is over " +
                                   std::to_string(lim_.string_bytes) + " bytes long");
    return add(json(std::move(s)));
  }
  bool binary(json::binary_t&) { return stop("bad_json", "binary values are not JSON"); }
  bool start_object(std::size_t) { return open(json::object()); }
  bool start_array(std::size_t) { return open(json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(json::string_t& k) {
    Level& top = stack_.back();
    top.key = nullptr;  // the path of an error here ends in k, not in the previous key
    if (k.size() > lim_.key_bytes)
      return stop("too_large", "a key of over " + std::to_string(lim_.key_bytes) + " bytes", &k);
    if (++top.keys > lim_.keys_per_object)
      return stop("too_large",
                  "an object has over " + std::to_string(lim_.keys_per_object) + " keys", &k);
    if (++keys_ > lim_.keys)
      return stop("too_large", "the request has over " + std::to_string(lim_.keys) + " keys", &k);
    // Under the caps above this scan of the object's keys is short.
    auto [it, fresh] = top.value->get_ref<json::object_t&>().emplace(k, json());
    if (!fresh) return stop("duplicate_key", "the key '" + short_key(k) + "' is given twice", &k);
    top.key = &it->first;
    top.slot = &it->second;
    return true;
  }

  bool parse_error(std::size_t, const std::string&, const json::exception& e) {
    if (e.id == 406)  // a number that overflows a double
      return stop("out_of_range",
                  path() + " is a number beyond the range of doubles (about 1.8e308)");
    // "[json.exception.parse_error.101] parse error at ...": the part after the tag, which may
    // quote a long token, so at most 200 bytes of it.
    std::string what = e.what();
    if (size_t close = what.find("] "); close != std::string::npos) what.erase(0, close + 2);
    if (what.size() > 200) what = what.substr(0, 200) + "...";
    return stop("bad_json", "the request is not valid JSON: " + what);
  }

  json root;
  std::string code, field, message;  // why parsing stopped

 private:
  struct Level {
    json* value;                       // the array or object being filled
    size_t keys = 0;                   // members so far (objects)
    const std::string* key = nullptr;  // the current member's key (objects)
    json* slot = nullptr;              // where the current member's value goes (objects)
  };

  // Places v in the container being filled; returns where it landed.
  json* place(json&& v) {
    if (stack_.empty()) {
      root = std::move(v);
      return &root;
    }
    Level& top = stack_.back();
    if (top.value->is_array()) {
      top.value->push_back(std::move(v));
      return &top.value->back();
    }
    *top.slot = std::move(v);
    return top.slot;
  }
  bool add(json&& v) {
    if (++values_ > lim_.values)
      return stop("too_large", "the request has over " + std::to_string(lim_.values) + " values");
    place(std::move(v));
    return true;
  }
  bool open(json&& container) {
    if (stack_.size() >= lim_.depth)
      return stop("bad_json", "the request nests deeper than " + std::to_string(lim_.depth) +
                                  " levels of arrays and objects");
    if (++values_ > lim_.values)
      return stop("too_large", "the request has over " + std::to_string(lim_.values) + " values");
    stack_.push_back({place(std::move(container))});
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }
  // The keys leading to the current value, joined by '.'; "request" at the top level.
  std::string path(const std::string* last = nullptr) const {
    std::string p;
    for (const Level& l : stack_)
      if (l.key) (p += p.empty() ? "" : ".") += short_key(*l.key);
    if (last) (p += p.empty() ? "" : ".") += short_key(*last);
    return p.empty() ? "request" : p;
  }
  bool stop(const char* c, const std::string& m, const std::string* at = nullptr) {
    code = c;
    field = path(at);
    message = m;
    return false;
  }

  const JsonLimits& lim_;
  std::vector<Level> stack_;
  size_t keys_ = 0, values_ = 0;
};

}  // namespace

json parse_json(std::string_view text, const JsonLimits& limits) {
  Builder b(limits);
  if (!json::sax_parse(text, &b)) {
    if (b.code.empty()) fail("request", "the request is not valid JSON", "bad_json");
    fail(b.field, b.message, b.code);
  }
  return std::move(b.root);
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
