// Reading a request: nlohmann's SAX parser building the tree under a request's limits (JsonLimits).
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/json.hpp"

namespace sb {

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
    const size_t cap = string_cap();
    if (s.size() > cap)
      return stop("too_large",
                  "the text of " + path() + " is over " + std::to_string(cap) + " bytes long");
    if (s.size() > lim_.string_bytes) long_taken_ = true;
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
  // The longest the string being read may be: the long-string cap for the first long string that
  // is a member of the top object's member named long_string_in; string_bytes for any other.
  size_t string_cap() const {
    if (lim_.long_string_bytes <= lim_.string_bytes || long_taken_ || stack_.size() != 2)
      return lim_.string_bytes;
    const Level& top = stack_[0];
    if (!top.key || *top.key != lim_.long_string_in || !stack_[1].value->is_object())
      return lim_.string_bytes;
    return lim_.long_string_bytes;
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
  bool long_taken_ = false;  // a long string was read: no second one
};

}  // namespace

// Every parse of the program goes through here, so that a module holds one instantiation of
// nlohmann's parser, not this and json::parse's.
json parse_json(std::string_view text, const JsonLimits& limits) {
  Builder b(limits);
  if (!json::sax_parse(text, &b)) {
    if (b.code.empty()) fail("request", "the request is not valid JSON", "bad_json");
    fail(b.field, b.message, b.code);
  }
  return std::move(b.root);
}

}  // namespace sb
