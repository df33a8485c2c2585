// One strategy of the chapter in full (A.4): what it shards, the collectives of one layer with
// their bytes, T_math against T_comms per phase, the chapter's compute-bound conditions, the step
// and memory per chip. Its times and memory are costs.hpp's, as the planner's are, with the remat
// policy the planner would pick (the fastest that fits), so the strategy widget and the planner
// give the same answer for the same layout.
#pragma once
#include <vector>

#include "chapters/training/costs.hpp"
#include "chapters/training/model.hpp"
#include "chapters/training/planner.hpp"
#include "chapters/transformers/model.hpp"

namespace sb::training {

// The strategies of A.4, as the chapter presents them one by one.
enum class Strategy { DP, FSDP, TP, FSDP_TP, Pipeline, DCN };
const char* strategy_label(Strategy s);  // "DP", "FSDP", "TP", "FSDP+TP", "pipeline", "DP over DCN"

// One strategy on N chips (per pod for DCN). The X group spans M_X ICI axes, the Y group M_Y: DP
// and FSDP use every axis (M_X = axes), TP too (M_Y = axes), FSDP + TP gives M_Y of them to TP and
// the rest to FSDP. Pipeline: Z stages of N / Z chips, FSDP inside each, m microbatches. DCN:
// `pods` pods of N chips, FSDP (Y = 1) or FSDP + TP (Y > 1) inside each.
struct StrategyInput {
  transformers::Config model;  // validated by strategy_cost
  bool book_mlp = false;       // the chapter's 2-matrix MLP instead of the model's own
  StateBytes state;
  double B = 0;         // global batch, tokens
  double N = 0;         // chips (per pod for DCN)
  double axes = 3;      // ICI axes of the slice
  double M_Y = 1;       // FSDP + TP and DCN: axes given to TP
  double Y = 0;         // FSDP + TP and DCN: TP degree; 0 = the chapter's recipe (mixed_recipe)
  double Z = 1, m = 1;  // pipeline stages and microbatches
  double pods = 1;      // DCN
  Hardware hw;
  // A GPU cluster (d_node > 0): N whole nodes; the axes, M_Y and pods do not apply, M_X and M_Y
  // follow from where each group lies (planner_gpu.cpp), and the recipe keeps TP in the node.
  GpuCluster gpu;
};
// One collective of one layer (or one stage boundary, for pipelining): what moves and its cost.
struct Collective {
  const char* phase;  // "forward", "backward"
  const char* op;     // "AllGather", "ReduceScatter", "AllReduce", "copy"
  const char* array;  // "W_in", "In", "dW_out", ...
  const char* axis;   // "X", "Y", "DCN", "next stage"
  double bytes = 0;   // V: the full size of what is gathered or reduced (the chapter's convention)
  double t = 0;       // seconds on one chip
  bool critical = false;  // on the critical path (TP's activations); else prefetched or async
};
// A compute-bound condition of the chapter, lhs > rhs (or lhs < rhs for an upper bound).
struct Condition {
  const char* text;   // "B/N > alpha / M_X"
  const char* words;  // the same as TeX for a derivation: "$B/N > \\alpha / M_X$"
  const char* unit;   // of both sides: "tokens", "count", "s"
  double lhs = 0, rhs = 0;
  bool upper = false;  // lhs < rhs
  bool holds() const { return upper ? lhs < rhs : lhs > rhs; }
};
struct StrategyCost {
  Strategy strategy = Strategy::DP;
  Split split;               // X, Y, the axes, the X mode, the pods
  double Z = 1, m = 1;       // pipeline
  Recipe recipe;             // FSDP + TP: the layout (a sub-slice when some chips idle)
  bool from_recipe = false;  // the chapter's recipe chose Y
  LayerTimes t;              // one layer, one microbatch, each phase's terms
  transformers::Remat remat = transformers::Remat::BigMatmuls;  // the fastest that fits
  double per_chip_batch = 0;                                    // B / chips over all pods
  double step = 0;                                              // the step-time bound
  double mfu = 0;         // MFU bound: useful FLOPs over the step's capacity
  double bubble = 0;      // pipeline: (Z - 1) / (m + Z - 1), from outside the chapter
  double hop = 0;         // pipeline: one stage boundary's copy for one microbatch
  double stage_math = 0;  // pipeline: one stage's math for one microbatch
  MemoryBar memory;
  double mem = 0;     // bytes per chip
  bool fits = false;  // mem <= HBM
  double x_opt = 0;   // FSDP + TP: sqrt((B/F)(M_X/M_Y) N); else 0
  XWindow window;     // FSDP + TP: the compute-bound X
  Timeline timeline;
  bool compute_bound = false;  // every phase: T_math the largest term (and no hop wait)
  std::vector<Collective> collectives;
  std::vector<Condition> conditions;  // the chapter's closed forms for this strategy
};
// A.4: the strategy's sharding, collectives, times, conditions and memory. InputError naming the
// field for a Y that does not divide N or the model's heads, more stages than layers, and the like.
StrategyCost strategy_cost(Strategy s, const StrategyInput& in);

}  // namespace sb::training
