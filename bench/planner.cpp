// The training planner's whole search for a full v5p pod (16x20x28, 8960 chips) with LLaMA 3-70B
// and a 4M-token batch, as `npm run bench` and bench/planner.sh measure it:
//   sb_bench_planner            time per search and per configuration (median of repeated runs)
//   sb_bench_planner --once     one search, for valgrind --tool=callgrind (instructions)
// Prints one JSON line.
#include "chapters/training/planner.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "chapters/transformers/models.hpp"
#include "core/hardware.hpp"

namespace {

sb::training::PlanInput pod_input() {
  const sb::hw::Chip& v5p = sb::hw::chip("v5p");
  sb::training::PlanInput in;
  in.model = sb::transformers::model("llama-3-70b").config;
  in.hw = sb::training::hardware_of(v5p);
  in.topo = sb::training::topology_for_shape(v5p, "16x20x28");
  in.B = 4194304;
  return in;
}

}  // namespace

int main(int argc, char** argv) {
  const bool once = argc > 1 && std::strcmp(argv[1], "--once") == 0;
  const sb::training::PlanInput in = pod_input();
  if (once) {
    const sb::training::PlanResult r = sb::training::plan(in);
    std::printf("{\"configs\": %lld, \"assignments\": %lld, \"best\": \"%s\"}\n", r.configs,
                r.assignments, sb::training::strategy_name(r.best.strategy).c_str());
    return 0;
  }
  using clock = std::chrono::steady_clock;
  sb::training::PlanResult r = sb::training::plan(in);  // warm up
  std::vector<double> runs;
  const auto start = clock::now();
  while (runs.size() < 20 || std::chrono::duration<double>(clock::now() - start).count() < 1.0) {
    const auto t0 = clock::now();
    r = sb::training::plan(in);
    runs.push_back(std::chrono::duration<double>(clock::now() - t0).count());
  }
  std::sort(runs.begin(), runs.end());
  const double median = runs[runs.size() / 2];
  std::printf(
      "{\"configs\": %lld, \"assignments\": %lld, \"runs\": %zu, \"ms_per_search\": %.3f, "
      "\"ns_per_config\": %.2f, \"best\": \"%s\", \"X\": %d, \"Y\": %d}\n",
      r.configs, r.assignments, runs.size(), median * 1e3, median / r.configs * 1e9,
      sb::training::strategy_name(r.best.strategy).c_str(), r.best.X, r.best.Y);
  return 0;
}
