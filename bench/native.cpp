// Native half of `npm run bench`: time per call of every calculator through the same JSON text
// entry point the wasm module exposes, so the two sides do the same work. Prints JSON lines
// {"name", "ns_per_call", "calls"} for bench/run.mjs to set beside the wasm numbers.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "core/api.hpp"
#include "core/registry.hpp"

// sb_bench [seconds per calculator] [calculator name: only that one]
int main(int argc, char** argv) {
  double budget_s = argc > 1 ? std::atof(argv[1]) : 0.3;  // per calculator
  const std::string only = argc > 2 ? argv[2] : "";
  for (const auto& c : sb::Registry::get().calculators()) {
    if (!only.empty() && c.name != only) continue;
    std::string req =
        sb::json{{"op", "calc"}, {"name", c.name}, {"inputs", sb::json::object()}}.dump();
    using clock = std::chrono::steady_clock;
    size_t sink = 0;
    for (int i = 0; i < 20; ++i) sink += sb::api::handle(req).size();  // warm up
    long calls = 0;
    auto start = clock::now();
    double elapsed = 0;
    while (elapsed < budget_s) {
      for (int i = 0; i < 50; ++i) sink += sb::api::handle(req).size();
      calls += 50;
      elapsed = std::chrono::duration<double>(clock::now() - start).count();
    }
    std::printf("{\"name\": \"%.*s\", \"ns_per_call\": %.1f, \"calls\": %ld, \"sink\": %zu}\n",
                static_cast<int>(c.name.size()), c.name.data(), elapsed / calls * 1e9, calls,
                sink % 7);
  }
  return 0;
}
