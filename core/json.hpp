#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>
namespace sb {
// Ordered: a calculator's values and a chip's specs keep the order the code gives them, which is
// the order a reader should see them in.
using json = nlohmann::ordered_json;

// A growable text buffer for the responses a calculator call writes. Ours, not std::string: the
// libc++ of Debian's emscripten is prebuilt for size with inlining off, so a std::string append
// there is a chain of calls, where this is a memcpy (bench/NOTES.md).
class Out {
 public:
  Out() = default;
  Out(const Out&) = delete;
  Out& operator=(const Out&) = delete;
  ~Out() { std::free(p_); }
  Out& operator<<(std::string_view s) {
    if (s.empty()) return *this;  // memcpy must not see the null buffer of an empty Out
    if (cap_ - n_ < s.size()) grow(s.size());
    std::memcpy(p_ + n_, s.data(), s.size());
    n_ += s.size();
    return *this;
  }
  Out& operator<<(char c) {
    if (n_ == cap_) grow(1);
    p_[n_++] = c;
    return *this;
  }
  // Room for `k` more chars at the end: write them, then commit(how many were written).
  char* room(size_t k) {
    if (cap_ - n_ < k) grow(k);
    return p_ + n_;
  }
  void commit(size_t k) { n_ += k; }
  std::string_view view() const { return {p_, n_}; }
  bool empty() const { return n_ == 0; }
  void clear() { n_ = 0; }
  std::string str() const { return std::string(view()); }

 private:
  void grow(size_t more);
  char* p_ = nullptr;
  size_t n_ = 0, cap_ = 0;
};

// Writing JSON text directly, for the parts of a response that are written once and never read
// back (a calculator's values, a derivation). Requests and the rarer responses use json.
// A quoted, escaped string; bytes that are not valid UTF-8 become U+FFFD.
void append_json(Out& out, std::string_view s);
// A number as nlohmann writes it (shortest text that reads back the same); null if not finite.
void append_json(Out& out, double v);
// Any json value, as nlohmann's dump with ensure_ascii writes it: every character outside ASCII
// as a \u escape, invalid UTF-8 replaced by U+FFFD, a number that is not finite as null.
void append_json(Out& out, const json& j);

// A JSON value written as text, member by member, for the large results a calculator writes once
// and never reads back (a plan, a map, the blocks each device holds). Each call is one call out of
// line, where a json tree built from initializer lists inlines the construction of every pair
// into its caller: several KB of module per tree (bench/NOTES.md, "Seventh pass"). The text is
// what append_json would write for the same tree: a double as nlohmann writes a double ("8.0"),
// an integer() as an integer ("8").
//   JsonWriter w(out);
//   w.obj().key("sizes").arr().num(4).num(8).end().key("name").str("X").end();
class JsonWriter {
 public:
  explicit JsonWriter(Out& out) : out_(out) {}
  JsonWriter& obj();                    // opens an object
  JsonWriter& arr();                    // opens an array
  JsonWriter& end();                    // closes the innermost open object or array
  JsonWriter& key(std::string_view k);  // the next member's key, in an open object
  JsonWriter& num(double v);
  JsonWriter& integer(long long v);
  JsonWriter& str(std::string_view s);
  JsonWriter& boolean(bool b);
  JsonWriter& value(const json& j);
  JsonWriter& nums(const std::vector<double>& v);       // an array of doubles
  JsonWriter& strs(const std::vector<std::string>& v);  // an array of strings
  // Writes into an object that already holds members (Result::writer: its members follow
  // `extra`'s): the first key takes a comma.
  JsonWriter& inside_object();

 private:
  void next();  // the comma before a value that is not its container's first
  static constexpr int kDepth = 32;
  Out& out_;
  int depth_ = 0;
  bool after_key_ = false;
  uint32_t has_value_ = 0;  // bit d: the container at depth d holds a value already
  char close_[kDepth] = {};
};

// The shortest decimal text that reads back as the finite double v, laid out as nlohmann's dump
// writes a double ("240.0", "0.1", "1e+30", "-5e-324"), at out, which has room for kDoubleRoom
// chars; returns its length.
constexpr size_t kDoubleRoom = 32;
size_t write_double(char* out, double v);

// The decimal at the start of s ("-1.5e3", "42", ".5") as strtod reads it, bit for bit, and where
// it stops (*end). A decimal of at most 19 significant digits whose power of ten is within 10^22
// takes one exactly rounded multiply or divide (Clinger's fast path); anything else goes to
// strtod, whose long double arithmetic wasm runs in software (a fifth of a log fit's time there).
double read_decimal(const char* s, char** end);

// The caps of a request (docs/API.md "What a request may hold"). A request is at most
// kRequestBytes; each string in it at most kStringBytes. The one exception is a calculator's
// long-text input (Param::long_text: a pasted log, an HLO module): its text may be up to
// kLongTextBytes once decoded, and a request carrying one up to kLongRequestBytes: 1 MiB for the
// rest, and room for the JSON escapes of the text's newlines and tabs (two bytes each).
constexpr size_t kRequestBytes = size_t{1} << 20;
constexpr size_t kStringBytes = 16384;
constexpr size_t kLongTextBytes = size_t{16} << 20;
constexpr size_t kLongRequestBytes = kRequestBytes + 2 * kLongTextBytes;  // 33 MiB

// What a request may hold. Each limit keeps the work of reading a request linear in its size:
// nlohmann's ordered objects scan their keys on every insert, so keys per object and in all are
// capped before the tree is built, not after.
struct JsonLimits {
  size_t depth = 32;                     // nested arrays and objects
  size_t keys_per_object = 128;          // members of one object
  size_t keys = 1024;                    // members of all objects together
  size_t values = 10000;                 // every value, containers included
  size_t key_bytes = 128;                // length of one key
  size_t string_bytes = kStringBytes;    // length of one string value
  size_t long_string_bytes = 0;          // one string may be this long (0: none may) ...
  std::string_view long_string_in = {};  // ... if it is a member of this member of the top object
};

// No limits: for JSON text the program holds or wrote itself (the embedded tables, a derivation).
constexpr JsonLimits kNoLimits{SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX};

// A request's limits: a long-text input may stand in "inputs" (core/registry.cpp checks that it
// is one).
constexpr JsonLimits kRequestLimits{.long_string_bytes = kLongTextBytes,
                                    .long_string_in = "inputs"};

// Parses `text` into a json tree within `limits`, in one pass. Throws InputError with field =
// the path of keys to the offending value ("inputs.B"; "request" at the top): code "bad_json"
// for text that is not JSON or nests too deeply, "duplicate_key" for a key given twice in one
// object, "too_large" past a limit, "out_of_range" for a number outside the doubles (1e999).
json parse_json(std::string_view text, const JsonLimits& limits = {});
}  // namespace sb
