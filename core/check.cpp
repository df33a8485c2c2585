#include "core/check.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <random>

#include "core/error.hpp"
#include "core/expr.hpp"
#include "core/units.hpp"

namespace sb::check {

const char* name(Verdict v) {
  switch (v) {
    case Verdict::Correct:
      return "correct";
    case Verdict::Close:
      return "close";
    case Verdict::Wrong:
      return "wrong";
  }
  return "wrong";
}

namespace {

bool near(double a, double b, double tol) { return std::fabs(a - b) <= tol * std::fabs(b); }

// The mistakes a factor between the answer and the exact value may stand for, and whether each
// fits the slot (what it measures, what it derives from).
struct Fits {
  bool multiply_add = false;  // a multiply-add is 2 FLOPs
  bool element = false;       // bytes per element (int8 1, bf16 2, fp32 4)
  bool bits = false;          // bits versus bytes
  bool binary = false;        // GiB versus GB
  bool link = false;          // one-way versus bidirectional
  bool prefixes = false;      // a unit prefix (x1000)
  bool inverse = false;       // the quantity falls as bytes grow (an intensity)
};

Fits fits_of(const Slot& s) {
  const Quantity q = quantity_of(s);
  const From f = s.from;
  const bool from_bytes = f == From::Bytes || f == From::Link;
  Fits x;
  x.multiply_add = q == Quantity::Flops || q == Quantity::FlopRate || q == Quantity::Intensity ||
                   f == From::Flops;
  x.element = q == Quantity::Bytes || q == Quantity::Intensity || from_bytes;
  x.bits = q == Quantity::Bytes || q == Quantity::Bandwidth || from_bytes;
  x.binary = x.bits;
  x.link = f == From::Link;
  x.prefixes =
      q != Quantity::Hops && q != Quantity::Tokens && q != Quantity::Count && q != Quantity::Bool;
  x.inverse = q == Quantity::Intensity;
  return x;
}

// The reasons a factor of 2 (or 4) may have, for an answer too large (`large`) or too small.
std::string reasons_two(const Fits& x, const Slot& s, bool large) {
  const Quantity q = quantity_of(s);
  std::string out;
  auto add = [&](const std::string& r) { (out += out.empty() ? "" : "; or ") += r; };
  if (x.multiply_add)
    add(large ? "a multiply-add is 2 FLOPs, counted once (a matmul is 2BDF, not 4BDF)"
              : "a multiply-add is 2 FLOPs (a matmul is 2BDF, not BDF)");
  if (x.element) {
    // More bytes make bytes and times larger but an intensity smaller.
    const bool more_bytes = large != x.inverse;
    add(more_bytes ? "check the bytes per element: bf16 is 2 bytes, int8 1 (fp32 is 4)"
                   : "each bf16 element is 2 bytes, not 1 (int8 is 1)");
  }
  if (x.link) {
    if (q == Quantity::Time)
      add(large ? "both directions of the link carry data here: use the bidirectional "
                  "bandwidth (twice the one-way figure)"
                : "one direction of the link applies here: use the one-way bandwidth, not "
                  "the bidirectional figure");
    else if (q == Quantity::Bandwidth)
      add(large ? "one direction of the link applies here: the bidirectional figure is twice "
                  "the one-way bandwidth"
                : "both directions count here: the bidirectional bandwidth is twice the one-way "
                  "figure");
    else
      add("one-way versus bidirectional bandwidth differ by 2");
  }
  return out;
}

// The hint of a generic factor that fits the slot, for r = got / expected, or "".
std::string generic_hint(double r, const Slot& s, double tol) {
  const Fits x = fits_of(s);
  const bool large = r > 1;
  const double f = large ? r : 1 / r;
  const std::string lead = std::string("Your answer is ") + (large ? "too large" : "too small");
  if (near(f, 2, tol)) {
    const std::string why = reasons_two(x, s, large);
    if (!why.empty())
      return std::string(large ? "Your answer is twice the right value: "
                               : "Your answer is half the right value: ") +
             why + ".";
  }
  if (near(f, 4, tol) && x.element) {
    const bool more_bytes = large != x.inverse;
    return lead + " by a factor of 4: " +
           (more_bytes ? "fp32 is 4 bytes where int8 is 1 (or two factors of 2)"
                       : "an fp32 element is 4 bytes, not 1 (or two factors of 2)") +
           ".";
  }
  if (near(f, 8, tol) && x.bits)
    return lead + " by a factor of 8: " +
           (large ? "a count of bits taken for bytes? 1 byte is 8 bits"
                  : "bytes taken for bits? 1 byte is 8 bits (Gbps versus GB/s)") +
           ".";
  // The binary prefixes lie within a few percent of each other: matched tightly.
  struct Binary {
    double f;
    const char *big, *dec;
  };
  static constexpr Binary kBinary[] = {
      {1073741824.0 / 1e9, "GiB", "GB"}, {1048576.0 / 1e6, "MiB", "MB"}, {1.024, "KiB", "kB"}};
  if (x.binary)
    for (const auto& b : kBinary)
      if (near(f, b.f, 0.004))
        return lead + " by " + units::number((b.f - 1) * 100, 2) + "%: " +
               (large ? std::string(b.big) + " where " + b.dec + " is meant? 1 " + b.big +
                            " is a power of 2, 1 " + b.dec + " a power of 10"
                      : std::string(b.dec) + " where " + b.big + " is meant? 1 " + b.big +
                            " is a power of 2, 1 " + b.dec + " a power of 10") +
               ".";
  if (x.prefixes) {
    static constexpr double kPrefix[] = {1e3, 1e6, 1e9, 1e12};
    static constexpr const char* kWhat[] = {"1000: one unit prefix (ms for s, MB for GB)",
                                            "a million: two unit prefixes (us for s, MB for TB)",
                                            "1e9: a unit prefix (ns for s, B for GB)",
                                            "1e12: a unit prefix (T against nothing)"};
    for (int i = 0; i < 4; ++i)
      if (near(f, kPrefix[i], tol)) return lead + " by " + kWhat[i] + " slipped.";
  }
  return "";
}

std::string digits_text(int d) { return std::to_string(d) + (d == 1 ? " digit" : " digits"); }

// The value as the slot's unit writes it.
std::string shown(double v, const Slot& s) {
  return units::format(v, s.unit.empty() ? "count" : s.unit);
}

}  // namespace

int typed_digits(std::string_view t) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  auto word = [](char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || (c >= '0' && c <= '9');
  };
  size_t i = 0;
  while (i < t.size()) {
    const char c = t[i];
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (i < t.size() && word(t[i])) ++i;  // a name before the number ("X", "b_crit")
      continue;
    }
    if (digit(c) || (c == '.' && i + 1 < t.size() && digit(t[i + 1]))) break;
    ++i;
  }
  std::string ds;
  bool point = false;
  for (; i < t.size(); ++i) {
    const char c = t[i];
    if (digit(c)) {
      ds += c;
    } else if (c == '.' && !point) {
      point = true;
    } else if ((c == ',' || c == '_') && i + 1 < t.size() && digit(t[i + 1])) {
      continue;  // digit grouping
    } else {
      break;
    }
  }
  const size_t first = ds.find_first_not_of('0');
  if (ds.empty()) return 0;
  if (first == std::string::npos) return 1;  // zero
  ds = ds.substr(first);
  if (!point) ds = ds.substr(0, ds.find_last_not_of('0') + 1);
  return static_cast<int>(ds.size());
}

std::string factor_hint(double r, const Slot& slot) {
  if (!std::isfinite(r) || r <= 0) {
    if (r < 0) return "The sign is wrong: this quantity is positive.";
    return "";
  }
  const double tol = std::max(slot.tol_rel, 0.005);
  for (const auto& [f, why] : slot.hints) {
    if (f > 0 && (near(r, f, tol) || near(1 / r, f, tol))) return std::string(why);
  }
  return generic_hint(r, slot, tol);
}

namespace {

// Rules 5 to 7 of the grading order: a slip, a factor that fits, close, wrong.
Result miss(double got, double want, const Slot& slot, std::span<const Answers::Alt> slips,
            double tol) {
  Result out;
  for (const auto& a : slips)
    if (a.slot == slot.name && near(got, a.value, tol)) {
      out.hint = a.text;
      out.rule = "slip";
      return out;
    }
  out.hint = want == 0 ? "" : factor_hint(got / want, slot);
  if (!out.hint.empty()) {
    out.rule = "factor";
    return out;
  }
  const double close_tol = std::max(5 * tol, 0.1);
  if (want != 0 && near(got, want, close_tol)) {
    out.verdict = Verdict::Close;
    out.rule = "close";
    out.hint = "Close, but outside the tolerance of " + units::number(tol * 100, 3) +
               "%: check your rounding and the exact constants.";
    return out;
  }
  out.rule = "wrong";
  return out;
}

// A bound ("< 8 GB") for a slot that wants a plain number is refused; one that points against
// the slot's bound (">" for an upper bound) is graded wrong here. nullopt: grade the value.
std::optional<Result> check_bound(const units::Bound& b, const Slot& slot, std::string_view unit,
                                  const std::string& field) {
  using Rel = units::Relation;
  if (slot.bound == Slot::Bound::None && b.relation != Rel::Equal)
    fail(field,
         "this answer is a number, not a bound: type the value alone, like " + units::example(unit),
         "not_a_bound");
  const bool up = b.relation == Rel::Below || b.relation == Rel::AtMost;
  const bool down = b.relation == Rel::Above || b.relation == Rel::AtLeast;
  if ((slot.bound == Slot::Bound::Upper && down) || (slot.bound == Slot::Bound::Lower && up)) {
    Result out;
    out.rule = "wrong";
    out.hint = std::string("The inequality points the wrong way: the answer is ") +
               (slot.bound == Slot::Bound::Upper ? "an upper bound (at most "
                                                 : "a lower bound (at least ") +
               "some value).";
    return out;
  }
  return std::nullopt;
}

// How a typed formula agrees with the slot's at random points of the variables' ranges.
struct Agreement {
  int valid = 0;               // points where the right formula is finite
  int exact = 0;               // ... and the typed one equals it
  int within = 0;              // ... or is within the slot's tolerance
  double first_ratio = 0;      // typed / right at the first valid point
  bool constant_ratio = true;  // the same ratio at every valid point
};

Agreement sample(const expr::Expr& e, const Slot& slot) {
  // Fixed seed: the same answer always gets the same verdict.
  std::mt19937_64 rng(0x5ca1ab1e);
  std::uniform_real_distribution<double> u(0, 1);
  const int kPoints = 8;
  Agreement a;
  for (int i = 0; i < kPoints; ++i) {
    std::map<std::string, double> at;
    for (const auto& v : slot.vars) {
      double lo = std::max(v.lo, 1e-300), hi = std::max(v.hi, lo);
      at[std::string(v.name)] = std::exp(std::log(lo) + u(rng) * (std::log(hi) - std::log(lo)));
    }
    double want = slot.formula(at);
    double got = e.eval(at);
    if (!std::isfinite(want)) continue;
    ++a.valid;
    if (!std::isfinite(got)) {
      a.constant_ratio = false;
      continue;
    }
    double scale = std::max(std::fabs(want), std::fabs(got));
    if (std::fabs(got - want) <= 1e-9 * scale || scale == 0) ++a.exact;
    if (std::fabs(got - want) <= std::max(slot.tol_rel, 0.02) * std::fabs(want)) ++a.within;
    double r = want != 0 ? got / want : 0;
    if (a.valid == 1)
      a.first_ratio = r;
    else if (!(std::fabs(r - a.first_ratio) <= 1e-9 * std::fabs(a.first_ratio)))
      a.constant_ratio = false;
  }
  return a;
}

}  // namespace

Result number(double got, double expected, const Slot& slot) {
  const double tol = slot.tol_rel > 0 ? slot.tol_rel : 0.02;
  if (expected == 0 ? std::fabs(got) <= 1e-12 : near(got, expected, tol)) {
    Result out;
    out.verdict = Verdict::Correct;
    out.rule = "exact";
    return out;
  }
  return miss(got, expected, slot, {}, tol);
}

Result answer(const std::string& text, const Slot& slot, double want,
              std::span<const Answers::Alt> books, std::span<const Answers::Alt> slips,
              const std::string& field, double& got) {
  const std::string_view unit = slot.unit.empty() ? "count" : slot.unit;
  const units::Bound b = units::parse_bound(text, unit, field);
  got = b.value;
  if (std::optional<Result> wrong_way = check_bound(b, slot, unit, field)) return *wrong_way;
  Result out;
  const double tol = slot.tol_rel > 0 ? slot.tol_rel : 0.02;
  const std::string exact = "exact " + shown(want, slot);
  auto correct = [&](const char* rule, std::string note) {
    out.verdict = Verdict::Correct;
    out.rule = rule;
    out.note = std::move(note);
    return out;
  };
  // 1. The model's value.
  if (want == 0 ? std::fabs(got) <= 1e-12 : near(got, want, tol))
    return correct("exact", std::fabs(got - want) <= 1e-9 * std::fabs(want) ? "" : exact);
  // 2. A shortcut the book takes.
  for (const auto& a : books)
    if (a.slot == slot.name && near(got, a.value, tol))
      return correct("book", "the book " + a.text + "; " + exact);
  // 3. A decimal prefix meant as a power of 1024 ("2M" tokens = 2^21), for sizes and counts.
  const Quantity q = quantity_of(slot);
  const bool sized = q == Quantity::Bytes || q == Quantity::Tokens || q == Quantity::Count;
  if (sized && !slot.decimal && b.binary && near(*b.binary, want, tol))
    return correct("binary",
                   "read with binary prefixes (k = 2^10, M = 2^20, G = 2^30), as the book means "
                   "them here; " +
                       exact);
  // 4. The exact value (or a shortcut's) rounded to the digits typed, unless the answer is a
  // known mistake: "10" is 10.4 to 1 digit. Hop counts and small whole counts are exact.
  bool slipped = false;
  for (const auto& a : slips) slipped = slipped || (a.slot == slot.name && near(got, a.value, tol));
  const bool small_whole = (q == Quantity::Count || q == Quantity::Tokens) &&
                           std::fabs(want) < 100 && std::floor(want) == want;
  const int d = std::min(typed_digits(text), 17);
  if (!slipped && d > 0 && q != Quantity::Hops && q != Quantity::Bool && !small_whole) {
    if (near(got, units::round_sig(want, d), 1e-9))
      return correct("digits", "correct to " + digits_text(d) + "; " + exact);
    for (const auto& a : books)
      if (a.slot == slot.name && near(got, units::round_sig(a.value, d), 1e-9))
        return correct("digits", "correct to " + digits_text(d) + " of the book's " +
                                     shown(a.value, slot) + " (the book " + a.text + "); " + exact);
  }
  // 5-7. A known mistake, a factor that fits, close, wrong.
  out = miss(got, want, slot, slips, tol);
  if (out.verdict == Verdict::Close && d > 0 && d < 6)
    out.hint = "Close, but outside the tolerance of " + units::number(tol * 100, 3) + "%: to " +
               digits_text(d) + " the exact value is " + shown(units::round_sig(want, d), slot) +
               ".";
  return out;
}

Result formula(const std::string& text, const Slot& slot, const std::string& field) {
  auto e = expr::Expr::parse(text, field);
  std::map<std::string, double> allowed;
  for (const auto& v : slot.vars) allowed[std::string(v.name)] = 1;
  for (const auto& s : e.symbols()) {
    if (!allowed.count(s)) {
      std::string all;
      for (const auto& v : slot.vars) (all += all.empty() ? "" : ", ") += v.name;
      fail(field, "unknown symbol '" + s + "'; this formula uses " + all, "unknown_symbol");
    }
  }
  const Agreement a = sample(e, slot);
  Result out;
  if (a.valid > 0 && a.exact == a.valid) {
    out.verdict = Verdict::Correct;
  } else if (a.valid > 0 && a.within == a.valid) {
    out.verdict = Verdict::Close;
    out.hint =
        "Agrees within a few percent at every point tried, but is not the same "
        "expression: you may have dropped a small term the question keeps.";
  } else {
    out.verdict = Verdict::Wrong;
    if (a.constant_ratio && a.first_ratio != 0) {
      out.hint = factor_hint(a.first_ratio, slot);
      if (out.hint.empty())
        out.hint = "Your expression is a constant " + units::number(a.first_ratio) +
                   " times the right one: the shape is right, a constant factor is off.";
    } else {
      out.hint =
          "The expression does not match at the points tried; compare your terms with "
          "the derivation.";
    }
  }
  return out;
}

namespace {

// An answer under a name that is no slot of the problem is refused, naming it (cut to 60
// characters: the name comes from the request).
void refuse_unknown_slots(const Problem& p, const json& answers) {
  for (auto it = answers.begin(); it != answers.end(); ++it) {
    bool found = false;
    for (const auto& s : p.slots) found = found || s.name == it.key();
    if (!found) {
      std::string key = it.key().size() > 60 ? it.key().substr(0, 60) + "..." : it.key();
      fail("answers." + key, "this problem has no answer slot '" + key + "'", "unknown_slot");
    }
  }
}

// The reader's answer as text: a string as typed, a number in full, a boolean as yes or no, none
// as empty; nullopt for any other JSON type.
std::optional<std::string> answer_text(const json* a) {
  if (!a || a->is_null()) return std::string();
  if (a->is_string()) return a->get<std::string>();
  if (a->is_number()) return units::number(a->get<double>(), 17);
  if (a->is_boolean()) return std::string(a->get<bool>() ? "yes" : "no");
  return std::nullopt;
}

// Reads and grades one answer into r (verdict, what was read, rule, hint, note).
void grade_answer(const Slot& s, const std::string& text, const Answers& expected,
                  const std::string& field, json& r) {
  Result res;
  if (s.kind == Slot::Kind::Formula) {
    res = formula(text, s, field);
  } else if (s.kind == Slot::Kind::Bool) {
    const double got = units::parse(text, "bool", field);
    r["got"] = got;
    r["got_text"] = units::format(got, "bool");
    res.verdict =
        (got != 0) == (r["expected"].get<double>() != 0) ? Verdict::Correct : Verdict::Wrong;
  } else {
    double got = 0;
    res = answer(text, s, r["expected"].get<double>(), expected.books(), expected.slips(), field,
                 got);
    r["got"] = got;
    r["got_text"] = units::format(got, s.unit);
  }
  r["verdict"] = name(res.verdict);
  if (!res.rule.empty()) r["rule"] = res.rule;
  r["hint"] = res.hint;
  if (!res.note.empty()) r["note"] = res.note;
}

// One slot's result: the expected value, then the verdict on the reader's answer, or the error
// naming the field.
json grade_slot(const Slot& s, const json& answers, const Answers& expected) {
  json r = {{"slot", s.name}};
  const std::string field = "answers." + std::string(s.name);
  const std::optional<std::string> text =
      answer_text(answers.contains(s.name) ? &answers[s.name] : nullptr);
  if (!text) {
    r["verdict"] = "invalid";
    r["error"] = {{"code", "wrong_type"},
                  {"field", field},
                  {"message", "the answer must be text or a number"}};
    return r;
  }
  const bool blank = text->find_first_not_of(" \t\r\n") == std::string::npos;
  if (s.kind != Slot::Kind::Formula) {
    auto e = expected.find(s.name);
    double want = e == expected.end() ? NAN : e->second;
    if (!std::isfinite(want)) {  // nothing to grade against: say so, not "wrong"
      r["verdict"] = blank ? "empty" : "invalid";
      if (!blank)
        r["error"] = {
            {"code", "no_answer"},
            {"field", "given"},
            {"message", "these givens leave " + std::string(s.label.empty() ? s.name : s.label) +
                            " with no finite value (a division by zero or an overflow)"}};
      return r;
    }
    r["expected"] = want;
    r["expected_text"] = units::format(want, s.unit);
  } else {
    r["expected_text"] = s.formula_tex;
  }
  if (blank) {
    r["verdict"] = "empty";
    return r;
  }
  try {
    grade_answer(s, *text, expected, field, r);
  } catch (const InputError& e) {
    r["verdict"] = "invalid";
    r["error"] = {{"code", e.code}, {"field", e.field}, {"message", e.what()}};
  }
  return r;
}

}  // namespace

json grade(const Problem& p, const json& answers, const json& given) {
  if (!answers.is_object())
    fail("answers", "answers must be a JSON object of slot: answer", "wrong_type");
  Inputs in(p.given, given);
  Trace tr;
  Answers expected = p.solve ? p.solve(in, tr) : Answers{};
  refuse_unknown_slots(p, answers);
  json results = json::array();
  for (const auto& s : p.slots) results.push_back(grade_slot(s, answers, expected));
  return {{"id", p.id}, {"results", results}, {"trace", tr.to_json()}, {"inputs", in.all()}};
}

}  // namespace sb::check
