// Native half of `npm run bench`.
//
// sb_bench [seconds per calculator] [calculator name: only that one]
//   Time per call of every calculator through the same JSON text entry point the wasm module
//   exposes, so the two sides do the same work. Prints JSON lines {"name", "ns_per_call", "calls"}
//   for bench/run.mjs to set beside the wasm numbers.
//
// sb_bench --requests [DIR]
//   The worst requests under the 1 MiB cap (many distinct keys, duplicate keys, deep nesting, long
//   strings, many answers in a check, many numbers): the time of each through the same entry point,
//   one JSON line {"request", "bytes", "ms", "code"} each (ms: the median of 5 calls, or
//   one call past a second; code: the
//   response's error code, or "ok"). Every request must cost time linear in its size: the target is
//   100 ms natively. With DIR, each request is also written to DIR/<request>.json, so that the wasm
//   side can time the very same texts.
//
// sb_bench --hlo FILE
//   The HLO reader on a long module (bench/run.mjs writes a 10 MB one): the parse alone
//   (profiling::hlo::parse) and the whole profiling.hlo call through the entry point, medians of 3,
//   one JSON line {"bytes", "instructions", "parse_ms", "calc_ms"}.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "chapters/profiling/hlo.hpp"
#include "core/api.hpp"
#include "core/registry.hpp"

namespace {

using clock_type = std::chrono::steady_clock;

int calculators(double budget_s, const std::string& only) {
  for (const auto& c : sb::Registry::get().calculators()) {
    if (!only.empty() && c.name != only) continue;
    std::string req =
        sb::json{{"op", "calc"}, {"name", c.name}, {"inputs", sb::json::object()}}.dump();
    size_t sink = 0;
    for (int i = 0; i < 20; ++i) sink += sb::api::handle(req).size();  // warm up
    long calls = 0;
    auto start = clock_type::now();
    double elapsed = 0;
    while (elapsed < budget_s) {
      for (int i = 0; i < 50; ++i) sink += sb::api::handle(req).size();
      calls += 50;
      elapsed = std::chrono::duration<double>(clock_type::now() - start).count();
    }
    std::printf("{\"name\": \"%.*s\", \"ns_per_call\": %.1f, \"calls\": %ld, \"sink\": %zu}\n",
                static_cast<int>(c.name.size()), c.name.data(), elapsed / calls * 1e9, calls,
                sink % 7);
  }
  return 0;
}

constexpr size_t kCap = 1u << 20;  // the entry point's request cap (core/api.cpp)

// `head` + items made by item(i) joined by ',' + `tail`, as many as fit under the cap.
template <class F>
std::string fill(const std::string& head, F item, const std::string& tail) {
  std::string s = head;
  for (long i = 0;; ++i) {
    std::string it = (i ? "," : "") + item(i);
    if (s.size() + it.size() + tail.size() > kCap) break;
    s += it;
  }
  return s + tail;
}

std::string key(long i) { return "\"k" + std::to_string(i) + "\":0"; }

std::vector<std::pair<std::string, std::string>> worst_requests() {
  const std::string calc = R"({"op":"calc","name":"roofline.matmul",)";
  std::vector<std::pair<std::string, std::string>> r;
  r.emplace_back("distinct_input_keys", fill(calc + R"("inputs":{)", key, "}}"));
  r.emplace_back("distinct_top_keys", fill(calc, key, "}"));
  r.emplace_back("duplicate_input_keys",
                 fill(
                     calc + R"("inputs":{)", [](long) { return std::string("\"B\":512"); }, "}}"));
  // Many objects of 100 keys each: a per-object cap alone would let these through.
  r.emplace_back("objects_of_100_keys", fill(
                                            calc + R"("inputs":{"B":[)",
                                            [](long i) {
                                              std::string o = "{";
                                              for (int k = 0; k < 100; ++k)
                                                o += (k ? "," : "") + key(i * 100 + k);
                                              return o + "}";
                                            },
                                            "]}}"));
  r.emplace_back("answer_keys",
                 fill(R"({"op":"check","id":"roofline.Q2","answers":{)",
                      [](long i) { return "\"a" + std::to_string(i) + "\":\"120\""; }, "}}"));
  r.emplace_back("duplicate_answers",
                 fill(R"({"op":"check","id":"roofline.Q2","answers":{)",
                      [](long) { return std::string("\"b_crit\":\"120\""); }, "}}"));
  // As deep as a request may nest (core/json.hpp: 32 levels), over and over.
  const std::string deep = std::string(28, '[') + std::string(28, ']');
  r.emplace_back("deep_nesting",
                 fill(
                     calc + R"("inputs":{"B":[)", [&](long) { return deep; }, "]}}"));
  r.emplace_back("many_numbers",
                 fill(
                     calc + R"("inputs":{"B":[)", [](long) { return std::string("1e5"); }, "]}}"));
  // Every slot of a problem answered, the formula with the longest expression it takes (2000
  // characters: core/expr.hpp), evaluated at the grader's points.
  std::string sum = "B";
  while (sum.size() + 6 <= 2000) sum += "*D/D+B";
  r.emplace_back("long_formula_answer",
                 R"({"op":"check","id":"roofline.Q4","answers":{"flops":"1e12","bytes":"2e9",)"
                 R"("intensity":"500","intensity_formula":")" +
                     sum + "\"}}");
  const std::string big(kCap - 100, '7');
  r.emplace_back("long_name", R"({"op":"calc","name":")" + big + "\"}");
  r.emplace_back("long_input_text", calc + R"("inputs":{"B":")" + big + "\"}}");
  r.emplace_back("long_answer",
                 R"({"op":"check","id":"roofline.Q2","answers":{"b_crit":")" + big + "\"}}");
  r.emplace_back("long_parse_text", R"({"op":"parse","unit":"count","text":")" + big + "\"}");
  r.emplace_back("long_key", calc + R"("inputs":{")" + big + "\":1}}");
  return r;
}

int requests(const char* save_dir) {
  double worst = 0;
  for (const auto& [name, req] : worst_requests()) {
    if (save_dir) std::ofstream(std::string(save_dir) + "/" + name + ".json") << req;
    std::vector<double> ms;
    std::string out;
    for (int i = 0; i < 5; ++i) {
      auto start = clock_type::now();
      out = sb::api::handle(req);
      ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - start).count());
      if (ms.back() > 1000) break;  // far over the target: once is enough
    }
    std::sort(ms.begin(), ms.end());
    const sb::json r = sb::json::parse(out);
    const std::string code = r["ok"].get<bool>() ? "ok" : r["error"]["code"].get<std::string>();
    std::printf("{\"request\": \"%s\", \"bytes\": %zu, \"ms\": %.3f, \"code\": \"%s\"}\n",
                name.c_str(), req.size(), ms[ms.size() / 2], code.c_str());
    worst = std::max(worst, ms[ms.size() / 2]);
  }
  std::printf("{\"request\": \"worst\", \"ms\": %.3f, \"target_ms\": 100}\n", worst);
  return 0;
}

// The median of 3 runs of f: wall time, and the process's CPU time (which a loaded machine
// inflates less).
template <class F>
std::pair<double, double> median_ms(F f) {
  std::vector<double> ms, cpu;
  for (int i = 0; i < 3; ++i) {
    auto start = clock_type::now();
    const std::clock_t c0 = std::clock();
    f();
    cpu.push_back(1000.0 * static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
    ms.push_back(std::chrono::duration<double, std::milli>(clock_type::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  std::sort(cpu.begin(), cpu.end());
  return {ms[1], cpu[1]};
}

int hlo(const char* file) {
  std::ifstream f(file, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  size_t n = 0;
  const auto parse = median_ms([&] { n = sb::profiling::hlo::parse(text).instructions.size(); });
  const std::string req =
      sb::json{{"op", "calc"}, {"name", "profiling.hlo"}, {"inputs", {{"module", text}}}}.dump();
  size_t sink = 0;
  const auto calc = median_ms([&] { sink += sb::api::handle(req).size(); });
  std::printf(
      "{\"bytes\": %zu, \"instructions\": %zu, \"parse_ms\": %.1f, \"parse_cpu_ms\": %.1f, "
      "\"calc_ms\": %.1f, \"calc_cpu_ms\": %.1f, \"sink\": %zu}\n",
      text.size(), n, parse.first, parse.second, calc.first, calc.second, sink % 7);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 && std::string(argv[1]) == "--hlo") return hlo(argv[2]);
  if (argc > 1 && std::string(argv[1]) == "--requests")
    return requests(argc > 2 ? argv[2] : nullptr);
  return calculators(argc > 1 ? std::atof(argv[1]) : 0.3, argc > 2 ? argv[2] : "");
}
