#include "core/check.hpp"

#include <cmath>
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

struct Factor {
  double f;
  const char* why;
  bool bytes_only = false;  // binary prefixes only make sense for sizes and bandwidths
};

// The classic slips of the book's arithmetic, as factors got/expected.
const Factor kFactors[] = {
    {2,
     "a factor of 2: a multiply-add is 2 FLOPs, bf16 is 2 bytes per element, and a "
     "bidirectional link carries twice the one-way bandwidth; check which one applies"},
    {4, "a factor of 4: fp32 is 4 bytes where bf16 is 2 and int8 is 1; or two factors of 2"},
    {8, "a factor of 8: bits versus bytes"},
    {1e3, "a factor of 1000: a unit prefix slipped (ms vs s, GB vs MB, TFLOPs vs GFLOPs)"},
    {1e6, "a factor of a million: two unit prefixes slipped (us vs s, MB vs TB)"},
    {1e9, "a factor of 1e9: a unit prefix slipped (ns vs s, GB vs B)"},
    {1e12, "a factor of 1e12: a unit prefix slipped (T vs nothing)"},
    {1073741824.0 / 1e9, "GiB versus GB: 1 GiB is 2^30 = 1.074e9 bytes, 1 GB is 1e9", true},
    {1048576.0 / 1e6, "MiB versus MB: 1 MiB is 2^20 = 1.049e6 bytes, 1 MB is 1e6", true},
    {1.024, "KiB versus kB: 1 KiB is 1024 bytes, 1 kB is 1000", true},
};

std::string sized(double r, const std::string& why) {
  return std::string("Your answer is ") + (r > 1 ? "too large" : "too small") + " by " + why + ".";
}

}  // namespace

std::string factor_hint(double r, const Slot& slot) {
  if (!std::isfinite(r) || r <= 0) {
    if (r < 0) return "The sign is wrong: this quantity is positive.";
    return "";
  }
  double tol = std::max(slot.tol_rel, 0.005);
  for (const auto& [f, why] : slot.hints) {
    if (f > 0 && (near(r, f, tol) || near(1 / r, f, tol))) return std::string(why);
  }
  bool bytes = slot.unit == "B" || slot.unit == "B_per_s" || slot.unit == "s";
  for (const auto& fc : kFactors) {
    if (fc.bytes_only && !bytes) continue;
    // The binary-prefix factors lie within a few percent of each other: match them tightly.
    double t = fc.bytes_only ? 0.004 : tol;
    if (near(r, fc.f, t) || near(1 / r, fc.f, t)) return sized(r, fc.why);
  }
  return "";
}

Result number(double got, double expected, const Slot& slot) {
  Result out;
  double tol = slot.tol_rel > 0 ? slot.tol_rel : 0.02;
  bool ok = expected == 0 ? std::fabs(got) <= 1e-12 : near(got, expected, tol);
  if (ok) {
    out.verdict = Verdict::Correct;
    return out;
  }
  // A recognisable slip (GiB for GB is only 7% off) says more than "close".
  std::string slip = expected == 0 ? "" : factor_hint(got / expected, slot);
  double close_tol = std::max(5 * tol, 0.1);
  if (slip.empty() && expected != 0 && near(got, expected, close_tol)) {
    out.verdict = Verdict::Close;
    out.hint = "Close, but outside the tolerance of " + units::number(tol * 100, 3) +
               "%: check your rounding and the exact constants.";
    return out;
  }
  out.verdict = Verdict::Wrong;
  out.hint = slip;
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
  // Fixed seed: the same answer always gets the same verdict.
  std::mt19937_64 rng(0x5ca1ab1e);
  std::uniform_real_distribution<double> u(0, 1);
  const int kPoints = 8;
  int exact = 0, within = 0, valid = 0;
  double first_ratio = 0;
  bool constant_ratio = true;
  for (int i = 0; i < kPoints; ++i) {
    std::map<std::string, double> at;
    for (const auto& v : slot.vars) {
      double lo = std::max(v.lo, 1e-300), hi = std::max(v.hi, lo);
      at[std::string(v.name)] = std::exp(std::log(lo) + u(rng) * (std::log(hi) - std::log(lo)));
    }
    double want = slot.formula(at);
    double got = e.eval(at);
    if (!std::isfinite(want)) continue;
    ++valid;
    if (!std::isfinite(got)) {
      constant_ratio = false;
      continue;
    }
    double scale = std::max(std::fabs(want), std::fabs(got));
    if (std::fabs(got - want) <= 1e-9 * scale || scale == 0) ++exact;
    if (std::fabs(got - want) <= std::max(slot.tol_rel, 0.02) * std::fabs(want)) ++within;
    double r = want != 0 ? got / want : 0;
    if (valid == 1)
      first_ratio = r;
    else if (!(std::fabs(r - first_ratio) <= 1e-9 * std::fabs(first_ratio)))
      constant_ratio = false;
  }
  Result out;
  if (valid > 0 && exact == valid) {
    out.verdict = Verdict::Correct;
  } else if (valid > 0 && within == valid) {
    out.verdict = Verdict::Close;
    out.hint =
        "Agrees within a few percent at every point tried, but is not the same "
        "expression: you may have dropped a small term the question keeps.";
  } else {
    out.verdict = Verdict::Wrong;
    if (constant_ratio && first_ratio != 0) {
      out.hint = factor_hint(first_ratio, slot);
      if (out.hint.empty())
        out.hint = "Your expression is a constant " + units::number(first_ratio) +
                   " times the right one: the shape is right, a constant factor is off.";
    } else {
      out.hint =
          "The expression does not match at the points tried; compare your terms with "
          "the derivation.";
    }
  }
  return out;
}

json grade(const Problem& p, const json& answers, const json& given) {
  if (!answers.is_object())
    fail("answers", "answers must be a JSON object of slot: answer", "wrong_type");
  Inputs in(p.given, given);
  Trace tr;
  Answers expected = p.solve ? p.solve(in, tr) : Answers{};
  for (auto it = answers.begin(); it != answers.end(); ++it) {
    bool found = false;
    for (const auto& s : p.slots) found = found || s.name == it.key();
    if (!found) {
      std::string key = it.key().size() > 60 ? it.key().substr(0, 60) + "..." : it.key();
      fail("answers." + key, "this problem has no answer slot '" + key + "'", "unknown_slot");
    }
  }
  json results = json::array();
  for (const auto& s : p.slots) {
    json r = {{"slot", s.name}};
    const std::string field = "answers." + std::string(s.name);
    const json* a = answers.contains(s.name) ? &answers[s.name] : nullptr;
    std::string text;
    if (a && a->is_string())
      text = a->get<std::string>();
    else if (a && a->is_number())
      text = units::number(a->get<double>(), 17);
    else if (a && a->is_boolean())
      text = a->get<bool>() ? "yes" : "no";
    else if (a && !a->is_null()) {
      r["verdict"] = "invalid";
      r["error"] = {{"code", "wrong_type"},
                    {"field", field},
                    {"message", "the answer must be text or a number"}};
      results.push_back(r);
      continue;
    }
    const bool blank = text.find_first_not_of(" \t\r\n") == std::string::npos;
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
        results.push_back(r);
        continue;
      }
      r["expected"] = want;
      r["expected_text"] = units::format(want, s.unit);
    } else {
      r["expected_text"] = s.formula_tex;
    }
    if (blank) {
      r["verdict"] = "empty";
      results.push_back(r);
      continue;
    }
    try {
      Result res;
      if (s.kind == Slot::Kind::Formula) {
        res = formula(text, s, field);
      } else {
        double got = units::parse(text, s.kind == Slot::Kind::Bool ? "bool" : s.unit, field);
        r["got"] = got;
        r["got_text"] = units::format(got, s.kind == Slot::Kind::Bool ? "bool" : s.unit);
        res = number(got, r["expected"].is_number() ? r["expected"].get<double>() : NAN, s);
        if (s.kind == Slot::Kind::Bool && res.verdict != Verdict::Correct) {
          res.verdict = Verdict::Wrong;
          res.hint = "";
        }
      }
      r["verdict"] = name(res.verdict);
      r["hint"] = res.hint;
    } catch (const InputError& e) {
      r["verdict"] = "invalid";
      r["error"] = {{"code", e.code}, {"field", e.field}, {"message", e.what()}};
    }
    results.push_back(r);
  }
  return {{"id", p.id}, {"results", results}, {"trace", tr.to_json()}, {"inputs", in.all()}};
}

}  // namespace sb::check
