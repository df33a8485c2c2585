// Helpers the chapter tests share: calls through the JSON entry point, problems solved directly,
// relative comparison, and the errors bad input must raise.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/api.hpp"
#include "core/error.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"

namespace sb::test {

// Relative comparison for values spanning many decades.
inline void near_rel(double got, double want, double rel = 1e-9) {
  EXPECT_NEAR(got, want, std::fabs(want) * rel) << "got " << got << ", want " << want;
}

// Runs f, which must throw InputError; returns it so the test can look at its field and code.
template <class F>
InputError thrown(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e;
  } catch (...) {
    ADD_FAILURE() << "threw something other than sb::InputError";
    return InputError("", "", "");
  }
  ADD_FAILURE() << "no InputError thrown";
  return InputError("", "", "");
}

// The field an InputError names, or "" if f throws none.
template <class F>
std::string field_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.field;
  }
  return "";
}

// Runs f, expects an InputError naming `field` whose code is `code` and whose message holds `part`.
template <class F>
void expect_error(F&& f, const std::string& field, const std::string& code,
                  const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "no error; expected " << code << " containing '" << part << "'";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field, field) << e.what();
    EXPECT_EQ(e.code, code) << e.what();
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

// The same without the code: an InputError naming `field` whose message holds `part`.
template <class F>
void expect_error(F&& f, const std::string& field, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one naming " << field;
  } catch (const InputError& e) {
    EXPECT_EQ(e.field, field) << e.what();
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

// No null (a NaN or inf written out) anywhere in a response.
inline bool all_finite(const json& j) {
  if (j.is_null()) return false;
  if (j.is_number()) return std::isfinite(j.get<double>());
  if (j.is_object() || j.is_array())
    for (const auto& x : j)
      if (!all_finite(x)) return false;
  return true;
}

// Ok with every number finite, or an error (not no_answer) naming one of `fields` (the given at
// its end, or another given it must agree with: a tile no larger than its matrix).
inline void expect_sound(const json& r, const std::vector<std::string>& fields,
                         const std::string& what) {
  if (r["ok"].get<bool>()) {
    EXPECT_TRUE(all_finite(r)) << what << ": " << r.dump().substr(0, 600);
    return;
  }
  EXPECT_NE(r["error"]["code"], "no_answer") << what << ": " << r.dump().substr(0, 600);
  const std::string field = r["error"].value("field", "");
  EXPECT_NE(std::find(fields.begin(), fields.end(), field), fields.end())
      << what << ": " << r.dump().substr(0, 600);
}

// {"op": "calc"}, {"op": "problem"} and {"op": "check"} through the JSON entry point.
inline json calc(const std::string& name, const json& inputs = json::object()) {
  return api::handle(json{{"op", "calc"}, {"name", name}, {"inputs", inputs}});
}
inline json problem(const std::string& id, const json& given = json::object()) {
  return api::handle(json{{"op", "problem"}, {"id", id}, {"given", given}});
}
inline json check(const std::string& id, const json& answers, const json& given = json::object()) {
  return api::handle(json{{"op", "check"}, {"id", id}, {"answers", answers}, {"given", given}});
}

// The first step of a response's derivation whose expression is `expr` (null, and a test
// failure, if none is).
inline json step_with(const json& r, const std::string& expr) {
  for (const json& st : r["trace"])
    if (st.value("expr", "") == expr) return st;
  ADD_FAILURE() << "no step with expr " << expr << " in " << r["trace"].dump().substr(0, 2000);
  return json();
}

// A named value of a calculator's response, an answer of a problem's, and the field an error
// response names; each a test failure (and NaN or "") when the response is not what it expects.
inline double value_of(const json& r, const std::string& key) {
  const bool has = r.value("ok", false) && r.contains("values") && r["values"].contains(key);
  EXPECT_TRUE(has) << key << " missing in " << r.dump().substr(0, 300);
  return has ? r["values"][key]["value"].get<double>() : std::nan("");
}
inline double answer_of(const json& r, const std::string& slot) {
  const bool has = r.value("ok", false) && r.contains("answers") && r["answers"].contains(slot);
  EXPECT_TRUE(has) << slot << " missing in " << r.dump().substr(0, 300);
  return has ? r["answers"][slot]["value"].get<double>() : std::nan("");
}
inline std::string error_field(const json& r) {
  EXPECT_FALSE(r.value("ok", true)) << r.dump().substr(0, 300);
  return r.contains("error") ? r["error"]["field"].get<std::string>() : "";
}

// A bad input must come back as an error value naming the field.
inline void expect_error_value(const json& r, const std::string& field) {
  ASSERT_FALSE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(r["error"]["field"], field) << r.dump();
  EXPECT_FALSE(r["error"]["message"].get<std::string>().empty());
}

// The verdict a check response gives one slot ("missing" if it gives none).
inline std::string verdict_of(const json& r, const std::string& slot) {
  for (const auto& x : r.value("results", json::array()))
    if (x.value("slot", "") == slot) return x.value("verdict", "");
  return "missing";
}

// A problem's answers straight from its solve(), on its defaults merged with `given`.
inline Answers solve(const std::string& id, const json& given = json::object()) {
  const Problem& p = Registry::get().problem(id);
  Inputs in(p.given, given);
  Trace tr;
  return p.solve(in, tr);
}

// A slot of a registered problem.
inline const Slot& slot(const std::string& id, const std::string& name) {
  for (const auto& s : Registry::get().problem(id).slots)
    if (s.name == name) return s;
  throw std::runtime_error("no slot " + name + " in " + id);
}

}  // namespace sb::test
