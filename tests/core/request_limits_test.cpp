// The limits of a request (core/json.hpp JsonLimits, core/api.cpp): each one is an error value
// naming the field, at the value that crosses it, and a request just inside each limit passes
// the reader to the op's own checks.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "core/api.hpp"
#include "core/error.hpp"
#include "core/json.hpp"
#include "core/registry.hpp"

using sb::json;

namespace {

json call(const std::string& text) { return json::parse(sb::api::handle(text)); }

// {"k0":0,"k1":0,...} with n keys.
std::string keys(int n, const std::string& prefix = "k") {
  std::string s = "{";
  for (int i = 0; i < n; ++i) s += (i ? ",\"" : "\"") + prefix + std::to_string(i) + "\":0";
  return s + "}";
}

void expect_error(const std::string& req, const std::string& code, const std::string& field) {
  const json r = call(req);
  ASSERT_FALSE(r["ok"].get<bool>()) << req.substr(0, 200);
  EXPECT_EQ(r["error"]["code"], code) << req.substr(0, 200) << " " << r.dump();
  EXPECT_EQ(r["error"]["field"], field) << req.substr(0, 200) << " " << r.dump();
}

const std::string kCalc = R"({"op":"calc","name":"roofline.matmul",)";

}  // namespace

TEST(RequestLimits, NumbersBeyondDoublesNameTheirField) {
  // 1e999 overflows a double: out_of_range on the key that holds it, not bad_json on the request.
  // Inputs and givens are named as the input checks name them; other values by their key path.
  expect_error(kCalc + R"("inputs":{"B":1e999}})", "out_of_range", "B");
  expect_error(kCalc + R"("inputs":{"B":-1e999}})", "out_of_range", "B");
  expect_error(R"({"op":"problem","id":"roofline.Q2","given":{"B":1e400}})", "out_of_range", "B");
  expect_error(R"({"op":"check","id":"roofline.Q2","answers":{"b_crit":1e999}})", "out_of_range",
               "answers.b_crit");
  expect_error(R"({"op":"variant","id":"roofline.Q2","seed":1e999})", "out_of_range", "seed");
  // A whole number of 400 digits overflows too.
  expect_error(kCalc + R"("inputs":{"D":1)" + std::string(400, '0') + "}}", "out_of_range", "D");
  // 1e-999 underflows to 0, a number like any other: B must then be greater than zero.
  expect_error(kCalc + R"("inputs":{"B":1e-999}})", "out_of_range", "B");
}

TEST(RequestLimits, KeysPerObjectAndInAll) {
  // 128 keys in one object are read (then refused by the op as unknown inputs); 129 are too many.
  expect_error(kCalc + R"("inputs":)" + keys(128) + "}", "unknown_input", "k0");
  expect_error(kCalc + R"("inputs":)" + keys(129) + "}", "too_large", "k128");
  // Objects of 128 keys in an array under B, which the calculator refuses as not a number once
  // the tree is built. Seven of them are 4 + 7 * 128 = 900 keys with op, name, inputs and B: read.
  // With nine, key 1025 is the 1021st object key: object 7 (counting from 0), key 1020 - 7 * 128
  // = 124 in it.
  const auto objects = [](int n) {
    std::string a = "[";
    for (int i = 0; i < n; ++i) a += (i ? "," : "") + keys(128, "o" + std::to_string(i) + "_");
    return a + "]";
  };
  expect_error(kCalc + R"("inputs":{"B":)" + objects(7) + "}}", "wrong_type", "B");
  expect_error(kCalc + R"("inputs":{"B":)" + objects(9) + "}}", "too_large", "B.o7_124");
}

TEST(RequestLimits, DuplicateAndUnknownKeys) {
  expect_error(kCalc + R"("inputs":{"B":1,"B":2}})", "duplicate_key", "B");
  expect_error(R"({"op":"list","op":"list"})", "duplicate_key", "op");
  expect_error(R"({"op":"check","id":"roofline.Q2","answers":{"b_crit":"1","b_crit":"2"}})",
               "duplicate_key", "answers.b_crit");
  // A key the op does not read: "input" for "inputs" is an error, not a call with the defaults.
  expect_error(kCalc + R"("input":{"B":1}})", "unknown_key", "input");
  expect_error(R"({"op":"list","verbose":true})", "unknown_key", "verbose");
  expect_error(R"({"op":"problem","id":"roofline.Q2","answers":{}})", "unknown_key", "answers");
  // Every key an op reads is accepted.
  EXPECT_TRUE(call(R"({"op":"check","id":"roofline.Q2","answers":{},"given":{}})")["ok"]);
  EXPECT_TRUE(call(R"({"op":"variant","id":"roofline.Q2","seed":3})")["ok"]);
  EXPECT_TRUE(call(R"({"op":"parse","text":"1 ms","unit":"s"})")["ok"]);
}

TEST(RequestLimits, DepthValuesAndLengths) {
  // 32 levels of arrays and objects: the request object is one, so 31 more fit below it.
  const auto nest = [](int n) { return std::string(n, '[') + std::string(n, ']'); };
  expect_error(kCalc + R"("inputs":{"B":)" + nest(30) + "}}", "wrong_type", "B");
  expect_error(kCalc + R"("inputs":{"B":)" + nest(31) + "}}", "bad_json", "B");
  // 10000 values in all, the request's own included.
  std::string nums = "[";
  for (int i = 0; i < 10000; ++i) nums += i ? ",0" : "0";
  expect_error(kCalc + R"("inputs":{"B":)" + nums + "]}}", "too_large", "B");
  // Keys up to 128 bytes, texts up to 16384 bytes.
  expect_error(kCalc + R"("inputs":{")" + std::string(128, 'k') + R"(":0}})", "unknown_input",
               std::string(60, 'k') + "...");
  expect_error(kCalc + R"("inputs":{")" + std::string(129, 'k') + R"(":0}})", "too_large",
               std::string(60, 'k') + "...");
  expect_error(kCalc + R"("inputs":{"B":")" + std::string(16384, '1') + R"("}})", "bad_number",
               "B");
  expect_error(kCalc + R"("inputs":{"B":")" + std::string(16385, '1') + R"("}})", "too_large", "B");
}

TEST(RequestLimits, ParseJsonKeepsOrderAndTypes) {
  const json j =
      sb::parse_json(R"({"b":[1,-2,3.5,"x",true,null,{}],"a":{"c":18446744073709551615}})");
  EXPECT_EQ(j.begin().key(), "b");  // ordered as written
  EXPECT_EQ(j["b"][1].get<int>(), -2);
  EXPECT_DOUBLE_EQ(j["b"][2].get<double>(), 3.5);
  EXPECT_TRUE(j["b"][5].is_null());
  EXPECT_TRUE(j["b"][6].is_object());
  EXPECT_EQ(j["a"]["c"].get<unsigned long long>(), 18446744073709551615ull);
  EXPECT_EQ(j, json::parse(j.dump()));
  // Not JSON: the message says where.
  try {
    sb::parse_json("{\"a\": tru}");
    ADD_FAILURE();
  } catch (const sb::InputError& e) {
    EXPECT_EQ(e.code, "bad_json");
    EXPECT_NE(std::string(e.what()).find("column"), std::string::npos) << e.what();
  }
  // Trailing text after the value is not JSON either.
  EXPECT_THROW(sb::parse_json("{} {}"), sb::InputError);
}

// A long-text input (core/registry.hpp long_text: a pasted log, an HLO module) may be up to 16 MiB;
// every other text stays at 16 KiB, and one request carries at most one long text, in "inputs".
namespace {

constexpr sb::Param kLogSchema[] = {
    sb::long_text("log", "a pasted log"),
    sb::text("label", "", "a short label"),
    sb::num("n", "count", 1, "a count"),
};

// A long text of `bytes` bytes: lines of 63 letters and a newline, cut at `bytes`.
std::string log_of(size_t bytes) {
  std::string line(63, 'a');
  line += '\n';
  std::string s;
  s.reserve(bytes);
  while (s.size() + line.size() <= bytes) s += line;
  s.append(line, 0, bytes - s.size());
  return s;
}

std::string error_of(const std::function<void()>& f, std::string* field = nullptr) {
  try {
    f();
  } catch (const sb::InputError& e) {
    if (field) *field = e.field;
    return e.code;
  }
  return "ok";
}

}  // namespace

TEST(RequestLimits, LongTextUpToSixteenMiBInInputs) {
  const size_t cap = size_t{16} << 20;
  ASSERT_EQ(sb::kLongTextBytes, cap);
  // Exactly 16 MiB is read and kept whole; one byte more is refused, naming the input.
  const std::string at_cap = log_of(cap);
  const sb::Inputs in(kLogSchema, json{{"log", at_cap}});
  EXPECT_EQ(in.text("log").size(), cap);
  EXPECT_EQ(in.text("log"), at_cap);
  std::string field;
  EXPECT_EQ(error_of(
                [&] {
                  sb::Inputs(kLogSchema, json{{"log", log_of(cap + 1)}});
                },
                &field),
            "too_large");
  EXPECT_EQ(field, "log");
  // A param that is not a long text keeps the 16 KiB cap (and its own 500-byte one for text).
  EXPECT_EQ(error_of(
                [&] {
                  sb::Inputs(kLogSchema, json{{"label", std::string(16385, 'x')}});
                },
                &field),
            "too_large");
  EXPECT_EQ(field, "label");
  EXPECT_EQ(error_of(
                [&] {
                  sb::Inputs(kLogSchema, json{{"n", std::string(16385, '1')}});
                },
                &field),
            "too_large");
  EXPECT_EQ(field, "n");
  EXPECT_EQ(error_of([&] {
              sb::Inputs(kLogSchema, json{{"label", std::string(501, 'x')}});
            }),
            "too_long");
  // The long text is not echoed: the caller has it, and a 16 MiB echo would double the response.
  EXPECT_FALSE(in.all().contains("log"));
  sb::Out out;
  in.write(out);
  EXPECT_EQ(out.view(), R"({"label":"","n":1.0})");
}

TEST(RequestLimits, TheParserReadsOneLongStringInInputsOnly) {
  const size_t cap = sb::kLongTextBytes;
  const auto request = [](const std::string& where, const std::string& text) {
    return std::string(R"({"op":"calc","name":"x",)") + where + "\"" + text + "\"}}";
  };
  const std::string at_cap(cap, 'a');
  // In "inputs": 16 MiB is read, 16 MiB + 1 is refused naming the input's path.
  json j = sb::parse_json(request(R"("inputs":{"log":)", at_cap), sb::kRequestLimits);
  EXPECT_EQ(j["inputs"]["log"].get_ref<const std::string&>().size(), cap);
  std::string field;
  EXPECT_EQ(
      error_of(
          [&] { sb::parse_json(request(R"("inputs":{"log":)", at_cap + "a"), sb::kRequestLimits); },
          &field),
      "too_large");
  EXPECT_EQ(field, "inputs.log");
  // Anywhere else, and for a second long string, the cap is 16 KiB.
  const std::string over(sb::kStringBytes + 1, 'a');
  EXPECT_EQ(
      error_of([&] { sb::parse_json(request(R"("given":{"log":)", over), sb::kRequestLimits); },
               &field),
      "too_large");
  EXPECT_EQ(field, "given.log");
  EXPECT_EQ(error_of(
                [&] {
                  sb::parse_json(R"({"inputs":{"a":{"log":")" + over + "\"}}}", sb::kRequestLimits);
                },
                &field),
            "too_large");
  EXPECT_EQ(field, "inputs.a.log");
  EXPECT_EQ(error_of(
                [&] {
                  sb::parse_json(R"({"inputs":{"a":")" + over + R"(","b":")" + over + "\"}}",
                                 sb::kRequestLimits);
                },
                &field),
            "too_large");
  EXPECT_EQ(field, "inputs.b");
  // The default limits (any text the program reads but a request) allow no long string.
  EXPECT_EQ(error_of([&] { sb::parse_json(request(R"("inputs":{"log":)", over)); }), "too_large");
}

TEST(RequestLimits, RequestsPastOneMiBOnlyWithALongText) {
  // 1 MiB + 1 byte with no long text: refused once read, as the request.
  std::string pad = R"({"op":"list"})";
  pad += std::string(sb::kRequestBytes + 1 - pad.size(), ' ');
  expect_error(pad, "too_large", "request");
  // 33 MiB + 1 byte: refused before it is read.
  expect_error(std::string(sb::kLongRequestBytes + 1, '['), "too_large", "request");
  ASSERT_EQ(sb::kLongRequestBytes, size_t{33} << 20);
  // A long text for a calculator that takes none: the parser reads it, the calculator's input
  // refuses it naming the field (a normal param: 16 KiB) or as an input it does not have.
  const std::string big(2 << 20, 'a');
  expect_error(kCalc + R"("inputs":{"chip":")" + big + "\"}}", "too_large", "chip");
  expect_error(kCalc + R"("inputs":{"log":")" + big + "\"}}", "unknown_input", "log");
  // ...and a long text in a request that is not a calc is an unknown key or over 16 KiB.
  expect_error(R"({"op":"list","inputs":{"log":")" + big + "\"}}", "unknown_key", "inputs");
  expect_error(R"({"op":"check","id":"roofline.Q2","answers":{"b_crit":")" + big + "\"}}",
               "too_large", "answers.b_crit");
}
