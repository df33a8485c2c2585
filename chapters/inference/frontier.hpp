// Searches over the decode step model (model.hpp): the latency-throughput frontier (A.9), a sweep
// over batch, dtype and slice, and the serving planner, which picks the cheapest slice, dtype and
// batch that meet a time per output token (and first token) for a given traffic. Both are bounded
// by their work: at most kMaxConfigs configurations, and they say when the bound cuts them.
#pragma once
#include <string>
#include <vector>

#include "chapters/inference/model.hpp"

namespace sb::inference {

// The dtypes of one serving configuration: weights, KV cache and the matmuls' precision.
struct DtypeSet {
  std::string name;  // "int8 weights and KV, bf16 matmuls"
  std::string w, kv, matmul;
  double b_w = 2, b_kv = 2;
  double C_peak = 0;
};
// The sets a sweep tries on a chip: bf16; int8 weights and KV with bf16 matmuls; the same with
// int8 matmuls where the chip has an int8 peak; int4 weights and KV with bf16 matmuls.
std::vector<DtypeSet> dtype_sets(const Machine& t);
DtypeSet dtype_set(const Machine& t, std::string_view w, std::string_view kv,
                   std::string_view matmul, std::string_view field_matmul = "dtype_matmul");

inline constexpr long kMaxConfigs = 20000;  // a sweep or a plan evaluates at most this many

// One point of a sweep: a slice, a dtype set and a batch, and what its step costs.
struct Point {
  int slice = 0, dtype = 0;  // indices into the sweep's slices and dtypes
  double B = 0, B_max = 0;
  Decode d;
  double tok_s_chip = 0;
  double cost = 0;  // $ per million output tokens; 0 without a price
  bool pareto = false;
  bool full = false;  // the batch fills HBM (B = B_max)
};

struct SweepInput {
  const Served* model = nullptr;
  Machine machine;
  std::vector<DtypeSet> dtypes;
  double S = 8192;       // context of every sequence
  double max_chips = 0;  // largest slice tried; 0 = the pod
  int batches = 32;      // batch sizes per slice and dtype (a geometric grid to B_max)
  double price = 0;      // $ per chip-hour; 0 = none
};
struct Sweep {
  std::vector<Slice> slices;
  std::vector<DtypeSet> dtypes;
  std::vector<Point> points;  // by latency, the frontier marked
  long configs = 0;
  bool cut = false;  // the bound stopped the sweep early
};
// A.9: every (slice, dtype, batch) whose weights and caches fit, and the Pareto front of latency
// (T_step, lower is better) against throughput per chip (higher is better).
Sweep sweep(const SweepInput& in);

// ------------------------------------------------------------------ the serving planner

struct Traffic {
  double rps = 1;  // requests per second
  double len_prompt = 8192, len_decode = 512;
};
struct PlanInput {
  const Served* model = nullptr;
  Machine machine;
  std::vector<DtypeSet> dtypes;
  Traffic traffic;
  double tpot = 0.05;  // target time per output token (s)
  double ttft = 0;     // target time to first token (s); 0 = none
  double mfu = 0.4;    // prefill's share of the peak
  double price = 0;    // $ per chip-hour; 0 = rank by chip-hours
  double max_chips = 0;
};
// One way to serve: a generate slice with its dtype and batch, its replicas and the prefill
// servers that feed them (disaggregated, each prefill server the same slice).
struct Option {
  int slice = 0, dtype = 0;
  double B = 0, B_max = 0;
  Decode d;
  double T_prefill = 0;  // TTFT: max(prefill FLOPs at MFU, one read of the weights)
  double replicas = 0, prefill_servers = 0;
  double chips_total = 0;
  double chip_hours_per_m = 0;  // chip-hours per million output tokens
  double cost_per_m = 0;        // $ per million output tokens (0 without a price)
  bool fits = false, meets = false;
  std::string why;  // why it loses, or what limits it
};
struct Plan {
  std::vector<Slice> slices;
  std::vector<DtypeSet> dtypes;
  std::vector<Option> options;  // the best option of each (slice, dtype), cheapest first
  int best = -1;                // index into options; -1 when nothing meets the targets
  int closest = -1;             // when nothing meets them: the option that comes closest
  int smallest = -1;            // the option on the fewest chips that meets the targets
  long configs = 0;
  bool cut = false;
};
Plan plan(const PlanInput& in);

}  // namespace sb::inference
