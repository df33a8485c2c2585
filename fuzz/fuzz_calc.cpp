// libFuzzer, schema-driven: the bytes pick a calculator or problem from the registry and fill each
// of its params with a value across its declared range (the ends, just past them, whole numbers,
// subnormals, text with units, every chip and dtype, the default text with its numbers changed or
// its lists lengthened), then call the JSON entry point as a page would: calc, problem, check
// (with answers that are right, wrong, bounds or junk) and variant.
//
// The answer must be either ok with every number finite (no null, NaN or inf where a value
// belongs, in values, answers, results, the derivation or any text), or an error with a code and a
// field naming one of the request's inputs. Anything else is a finding: libFuzzer saves the input.
// With SB_FUZZ_REPORT=1 in the environment, findings are printed once per (calculator or problem,
// place) with the request, and the run goes on (SB_FUZZ_SKIP=a,b leaves out a and b, to look past
// a sanitizer report that stops the run). No finding is tolerated.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/api.hpp"
#include "core/json.hpp"
#include "core/registry.hpp"
#include "core/units.hpp"
#include "core/work.hpp"
#include "fuzz/seeds.hpp"

namespace {

using sb::json;

// The input read from the front: one byte per choice, eight per number; zeros past the end.
class Bytes {
 public:
  Bytes(const uint8_t* p, size_t n) : p_(p), n_(n) {}
  uint8_t byte() { return n_ ? (--n_, *p_++) : 0; }
  uint64_t u64() {
    uint64_t x = 0;
    for (int i = 0; i < 8; ++i) x = (x << 8) | byte();
    return x;
  }
  double unit() { return static_cast<double>(u64() >> 11) * 0x1p-53; }  // in [0, 1)
  std::string text(size_t max) {
    size_t len = byte() % (max + 1);
    std::string s;
    while (len-- && n_) s += static_cast<char>(byte());
    return s;
  }

 private:
  const uint8_t* p_;
  size_t n_;
};

// Numbers a text param's digits may become.
const char* const kNumbers[] = {"0",  "1",    "2",    "3",       "4",           "7",
                                "8",  "16",   "60",   "64",      "1024",        "65536",
                                "-1", "1e12", "4096", "1048576", "99999999999", "2.5"};

// Log-uniform in [lo, hi] (both > 0), or uniform where lo is 0.
double across(double lo, double hi, double t) {
  if (hi <= lo) return lo;
  if (lo <= 0) return hi * t;
  return std::exp(std::log(lo) + t * (std::log(hi) - std::log(lo)));
}

// A value for a number param, or null for none (the default).
json number_value(const sb::Param& p, Bytes& in) {
  const double lo = p.positive && p.min <= 0 ? 5e-324 : p.min;
  switch (in.byte() % 16) {
    case 0:
      return nullptr;
    case 1:
      return p.min;
    case 2:
      return p.max;
    case 3:
      return p.def;
    case 4:
      return std::nextafter(p.max, INFINITY);  // just past the top: an error naming p
    case 5:
      return p.positive ? 0.0 : std::nextafter(p.min, -INFINITY);
    case 6:
      return across(lo, p.max, in.unit());
    case 7:
      return std::round(across(std::max(lo, 1.0), p.max, in.unit()));
    case 8:
      return lo;  // the smallest allowed: a subnormal where any positive value is
    case 9:
      return 1.0;
    case 10:
      return 2.0;
    case 11:  // as a reader types it, with its unit: "45 GB/s"
      return sb::units::format(across(lo, p.max, in.unit()), p.unit.empty() ? "count" : p.unit);
    case 12: {
      const uint64_t bits = in.u64();
      double v;
      std::memcpy(&v, &bits, sizeof v);
      return v;  // NaN and inf go out as null
    }
    case 13:
      return std::nextafter(lo, INFINITY);
    case 14:
      return std::nextafter(p.max, -INFINITY);
    default:
      return in.text(24);
  }
}

// s with each run of digits replaced by a number from kNumbers.
std::string renumbered(const std::string& s, Bytes& in) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (s[i] >= '0' && s[i] <= '9') {
      while (i < s.size() && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.')) ++i;
      out += kNumbers[in.byte() % (sizeof kNumbers / sizeof kNumbers[0])];
    } else {
      out += s[i++];
    }
  }
  return out;
}

// s with its last list item repeated until the list has `n` more, each with the index after its
// first run of letters: "A[I, J]" -> "A[I, J, J1, J2]", "1024, 4096" -> "1024, 4096, 4096, 4096",
// "{'X': 8, 'Y': 2}" -> "{'X': 8, 'Y': 2, 'Y1': 2}".
std::string lengthened(const std::string& s, int n) {
  const size_t comma = s.rfind(',');
  if (comma == std::string::npos) return s;
  size_t end = s.find_first_of("])}", comma);
  if (end == std::string::npos) end = s.size();
  const std::string item = s.substr(comma + 1, end - comma - 1);
  size_t letters = 0;
  while (letters < item.size() && !std::isalpha(static_cast<unsigned char>(item[letters])))
    ++letters;
  while (letters < item.size() && std::isalpha(static_cast<unsigned char>(item[letters])))
    ++letters;
  std::string more;
  for (int i = 1; i <= n; ++i) {
    const bool named = letters > 0 && std::isalpha(static_cast<unsigned char>(item[letters - 1]));
    more +=
        "," + (named ? item.substr(0, letters) + std::to_string(i) + item.substr(letters) : item);
  }
  return s.substr(0, end) + more + s.substr(end);
}

// A value for a text or choice param, or null for none.
json text_value(const sb::Param& p, Bytes& in, int repeat) {
  const uint8_t b = in.byte();
  if (p.kind == sb::Param::Kind::Choice && b % 4 != 3) {
    const std::vector<std::string> choices = sb::choices_of(p);
    if (b % 4 == 0 || choices.empty()) return nullptr;
    return choices[in.byte() % choices.size()];
  }
  const std::string def(p.def_text);
  switch (b % 5) {
    case 0:
      return nullptr;
    case 1:
      return renumbered(def, in);
    case 2:
      return lengthened(def, repeat);
    case 3:
      return in.text(40);
    default:
      return lengthened(renumbered(def, in), repeat);
  }
}

json inputs_for(std::span<const sb::Param> params, Bytes& in, int repeat) {
  json out = json::object();
  for (const auto& p : params) {
    json v = p.kind == sb::Param::Kind::Number ? number_value(p, in) : text_value(p, in, repeat);
    if (!v.is_null()) out[std::string(p.name)] = std::move(v);
  }
  return out;
}

// An answer for a slot: the model's own text, a bound on it, a number across the doubles, junk.
json answer_for(const sb::Slot& s, const json& expected_text, Bytes& in) {
  const std::string model = expected_text.is_string() ? expected_text.get<std::string>() : "1";
  switch (in.byte() % 8) {
    case 0:
      return model;
    case 1:
      return "< " + model;
    case 2:
      return "at most " + model;
    case 3:
      return across(5e-324, 1.7e308, in.unit());
    case 4:
      return sb::units::format(across(1e-30, 1e30, in.unit()), s.unit.empty() ? "count" : s.unit);
    case 5:
      return renumbered(model, in);
    case 6:
      return in.text(40);
    default:
      return s.kind == sb::Slot::Kind::Formula ? "2*B*D*F" : "1,5";
  }
}

struct Finding {
  std::string where, what;
};

// Every place in the answer where a value is missing or not finite. A text may echo the request's
// own texts, so "NaN" or "inf" in a text counts only where the request has no such word. The path
// to a node is kept as a stack of keys and spelled out only for a finding: most answers have none,
// and a string per node was a tenth of a run.
void scan(const json& j, std::vector<std::string_view>& path, const std::string& request,
          std::vector<Finding>& out) {
  const auto where = [&path](std::string_view last = {}) {
    std::string s;
    for (std::string_view k : path) s.append(k);
    return s.append(last);
  };
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& k = it.key();
      const json& v = it.value();
      if (v.is_null() && (k == "value" || k == "expected" || k == "got"))
        out.push_back({where("." + k), "null where a value belongs"});
      if (k == "code" && v == "no_answer")
        out.push_back({where(), "no finite answer to grade against"});
      path.push_back(".");
      path.push_back(k);
      scan(v, path, request, out);
      path.resize(path.size() - 2);
    }
  } else if (j.is_array()) {
    path.push_back("[]");
    for (const auto& v : j) scan(v, path, request, out);
    path.pop_back();
  } else if (j.is_number_float()) {
    if (!std::isfinite(j.get<double>())) out.push_back({where(), "a number that is not finite"});
  } else if (j.is_string()) {
    // "NaN" or "inf" as a word of a text: "inf days", "(NaN B)".
    const std::string& s = j.get_ref<const std::string&>();
    for (const char* bad : {"NaN", "nan", "inf"}) {
      if (request.find(bad) != std::string::npos) continue;
      for (size_t at = s.find(bad); at != std::string::npos; at = s.find(bad, at + 1)) {
        const size_t end = at + std::strlen(bad);
        const bool starts = at == 0 || !std::isalnum(static_cast<unsigned char>(s[at - 1]));
        const bool ends = end == s.size() || !std::isalnum(static_cast<unsigned char>(s[end]));
        if (starts && ends) out.push_back({where(), "the text '" + s.substr(0, 120) + "'"});
      }
    }
  }
}

// JSON text of j, ASCII, with any invalid UTF-8 of the fuzzed texts replaced.
std::string text_of(const json& j) {
  sb::Out out;
  sb::append_json(out, j);
  return out.str();
}

bool report_mode() {
  static const bool on = std::getenv("SB_FUZZ_REPORT") != nullptr;
  return on;
}

void found(const std::string& who, const Finding& f, const json& request) {
  const std::string key = who + " " + f.where;
  static std::set<std::string> seen;
  if (!seen.insert(key).second && report_mode()) return;
  std::fprintf(stderr, "FINDING %s: %s\n  request: %s\n", key.c_str(), f.what.c_str(),
               text_of(request).substr(0, 2000).c_str());
  if (!report_mode()) __builtin_trap();
}

// Calls the entry point with `request` and checks the answer; returns it.
// A place inside an input, as "answers.b_crit" or "scenarios.runs[0].model" (a pasted document).
bool inside_input(const std::string& field, const std::set<std::string>& fields) {
  const size_t dot = field.find('.');
  return dot != std::string::npos && fields.count(field.substr(0, dot));
}

json call(const std::string& who, const json& request, const std::set<std::string>& fields) {
  const std::string text = text_of(request);
  static const bool trace = std::getenv("SB_FUZZ_TRACE") != nullptr;
  if (trace) std::fprintf(stderr, "REQUEST %s\n", text.substr(0, 2000).c_str());
  const json r = json::parse(sb::api::handle(text));
  if (!r.is_object() || !r.contains("ok") || !r["ok"].is_boolean()) {
    found(who, {"", "an answer without ok"}, request);
    return r;
  }
  if (!r["ok"].get<bool>()) {
    const json& e = r["error"];
    const std::string code = e.value("code", ""), field = e.value("field", "");
    if (code.empty() || code == "internal")
      found(who, {"error", "an internal error: " + text_of(e)}, request);
    else if (code == "no_answer")
      found(who, {"error.no_answer", "no finite answer: " + text_of(e)}, request);
    else if (!fields.count(field) && !inside_input(field, fields))
      found(who, {"error.field", "an error naming no input: " + text_of(e)}, request);
    return r;
  }
  std::vector<Finding> bad;
  std::vector<std::string_view> path;
  scan(r, path, text, bad);
  for (const auto& f : bad) found(who, f, request);
  return r;
}

std::set<std::string> names_of(std::span<const sb::Param> params) {
  std::set<std::string> out = {"name", "id", "inputs", "given", "answers", "seed"};
  for (const auto& p : params) out.insert(std::string(p.name));
  return out;
}

// SB_FUZZ_SKIP=name,name,...: calculators and problems to leave out, to look past a crash that
// stops the run (a sanitizer report) in a report run.
bool skipped(std::string_view who) {
  static const std::string skip = [] {
    const char* s = std::getenv("SB_FUZZ_SKIP");
    return s ? "," + std::string(s) + "," : std::string();
  }();
  return !skip.empty() && skip.find("," + std::string(who) + ",") != std::string::npos;
}

// The seeds (fuzz/seeds.hpp): per calculator and per problem in each mode, the inputs that leave
// every param at its default (zeros), and fills that put numbers at their ends (1: min, 2: max) or
// across their range and pick choices and texts (renumbered, lengthened).
void write_seeds(const std::string& dir) {
  const auto& reg = sb::Registry::get();
  const std::string fills[] = {"",
                               std::string("\1\2\3\4\5\6\7\10", 8),
                               std::string(16, '\1'),
                               std::string(16, '\2'),
                               std::string(8, '\10') + std::string(8, '\6'),
                               std::string(8, '\3') + std::string(4, '\2') + std::string(4, '\1')};
  for (size_t i = 0; i < reg.calculators().size(); ++i)
    for (size_t k = 0; k < std::size(fills); ++k)
      sb::fuzz::write_seed(
          dir, "calc-" + std::string(reg.calculators()[i].name) + "-" + std::to_string(k),
          std::string("\0\4", 2) + sb::fuzz::index_bytes(i) + fills[k]);
  for (size_t i = 0; i < reg.problems().size(); ++i)
    for (char mode : {1, 2, 3})
      for (size_t k : {size_t{0}, size_t{5}})
        sb::fuzz::write_seed(dir,
                             "problem-" + std::string(reg.problems()[i].id) + "-" +
                                 std::to_string(mode) + "-" + std::to_string(k),
                             std::string{mode, 4} + sb::fuzz::index_bytes(i) + fills[k]);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  sb::fuzz::seeds_then_exit(write_seeds);
  // A hundredth of each search's work bound: the fuzzer is after inputs that break a calculator,
  // not after long searches (the planner may try 250,000 configurations at its largest inputs).
  sb::set_work_share(0.01);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in(data, size);
  const auto& reg = sb::Registry::get();
  const int mode = in.byte() % 4;
  const int repeat = 1 + in.byte() % 64;  // how much longer a lengthened list gets
  const size_t pick = in.byte() | (in.byte() << 8);
  if (mode == 0) {
    const auto& c = reg.calculators()[pick % reg.calculators().size()];
    if (skipped(c.name)) return 0;
    const json req = {
        {"op", "calc"}, {"name", c.name}, {"inputs", inputs_for(c.params, in, repeat)}};
    call(std::string(c.name), req, names_of(c.params));
    return 0;
  }
  const auto& p = reg.problems()[pick % reg.problems().size()];
  if (skipped(p.id)) return 0;
  std::set<std::string> fields = names_of(p.given);
  for (const auto& s : p.slots) fields.insert("answers." + std::string(s.name));
  const std::string who(p.id);
  if (mode == 3) {  // a variant must solve with finite answers
    const json v =
        call(who, {{"op", "variant"}, {"id", p.id}, {"seed", in.u64() % 1000000}}, fields);
    if (v.value("ok", false))
      call(who, {{"op", "problem"}, {"id", p.id}, {"given", v["given"]}}, fields);
    return 0;
  }
  const json given = inputs_for(p.given, in, repeat);
  const json solved = call(who, {{"op", "problem"}, {"id", p.id}, {"given", given}}, fields);
  if (mode == 2 && solved.value("ok", false)) {
    json answers = json::object();
    for (const auto& s : p.slots) {
      if (in.byte() % 3 == 0) continue;
      const json& a = solved["answers"][std::string(s.name)];
      answers[std::string(s.name)] =
          answer_for(s, a.is_object() ? a.value("text", json()) : json(), in);
    }
    call(who, {{"op", "check"}, {"id", p.id}, {"answers", answers}, {"given", given}}, fields);
  }
  return 0;
}
