// What the training chapter's calculators_*.cpp files share: the inputs every calculator takes (a
// model of the table or a custom one, a TPU, chips, batch, the layer model), their readers, and
// the calculators' run functions, which calculators.cpp lists as records.
#pragma once
#include <array>
#include <cstddef>
#include <string>

#include "chapters/tpus/model.hpp"
#include "chapters/training/costs.hpp"
#include "chapters/training/model.hpp"
#include "chapters/training/planner.hpp"
#include "chapters/transformers/model.hpp"
#include "chapters/transformers/model_input.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

namespace sb::training::calc {

namespace tf = transformers;

void strategy_calc(const Inputs& in, Trace& tr, Result& r);  // calculators_strategy.cpp
void split_calc(const Inputs& in, Trace& tr, Result& r);     // calculators_split.cpp
void plan_calc(const Inputs& in, Trace& tr, Result& r);      // calculators_planner.cpp
void regime_calc(const Inputs& in, Trace& tr, Result& r);    // calculators_regime.cpp
void versus_calc(const Inputs& in, Trace& tr, Result& r);    // calculators_versus.cpp
// The planner's best plan on one chip with the request's other inputs: {chip, name, kind, chips,
// where, hbm, fits, verdict, best} (calculators_planner.cpp).
json plan_column(const Inputs& in, const hw::Chip& chip);

constexpr Param zero_ok(Param p) {
  p.positive = false;
  return p;
}
// The model: the transformers chapter's one model input (a model of the table with the reader's
// fields laid over it, or custom), followed by a calculator's own params: params(...).
template <size_t M>
constexpr auto params(const std::array<Param, M>& own) {
  return tf::join(tf::kModelInput, own);
}

// The one rule every widget follows: the model's own MLP unless the reader picks the chapter's.
constexpr Param kMlp =
    choice("mlp", "model", "model|book",
           "the MLP's matrices: the model's own (3 when gated), or the chapter's simplification "
           "(2, as its formulas and several exercises take it)");
constexpr Param kLayer = choice("layer", "mlp", "mlp|full",
                                "the layer timed: the MLP alone, as the chapter does, or the whole "
                                "layer (attention, MLP and the output matmul)");
constexpr Param kSeqLen = zero_ok(
    num("seq_len", "tokens", 4096, "sequence length (the whole layer's attention core)", 0, 1e7));
constexpr Param kGradBuffers = choice(
    "grad_buffers", "no", "no|yes",
    "count bf16 gradient buffers besides the weights and Adam state (12 bytes per parameter)");
constexpr Param kChip = chip_param("v5p", "a TPU of the tables (the mesh lies on its ICI torus)");
constexpr Param kMeshChip =
    chip_param("v5p",
               "a TPU or a GPU (a TPU's mesh lies on its slice's ICI torus, a GPU's on NVLink "
               "nodes under a fat tree)");
constexpr Param kChips = zero_ok(num("chips", "chips", 0,
                                     "chips N (per pod for DP over DCN); 0: one full pod (or the "
                                     "GPUs the fat tree takes); GPUs come in whole nodes",
                                     0, 1e8, true));
constexpr Param kBatch = num("B", "tokens", 4194304,
                             "global batch in tokens (4M read as 4 x 2^20 = 4,194,304)", 1, 1e15);
constexpr Param kAxes =
    zero_ok(num("axes", "count", 0, "ICI axes of the slice (0: the chip's torus rank; a TPU only)",
                0, 3, true));
constexpr Param kMY = num(
    "M_Y", "count", 1, "axes given to TP in FSDP + TP (FSDP gets the rest; a TPU only)", 0.1, 2.9);

// The model of the inputs, validated, and its name ("LLaMA 3 70B", "custom model").
inline tf::Config config_of(const Inputs& in) { return tf::chosen_model(in).config; }
inline std::string model_name(const Inputs& in) { return tf::chosen_model(in).name; }

inline bool book_mlp(const Inputs& in) { return in.text("mlp") == "book"; }

inline StateBytes state_of(const Inputs& in) {
  StateBytes s;
  if (in.text("grad_buffers") == "yes") s.grads = 2;
  return s;
}

// The chip of the inputs: a TPU (a GPU is an error naming the chip field).
inline const hw::Chip& tpu(const Inputs& in) { return tpu_chip(in.text("chip"), "chip"); }

inline double chips_of(const Inputs& in, const hw::Chip& c) {
  return in.num("chips") > 0 ? in.num("chips") : pod_chips(c);
}

inline double axes_of(const Inputs& in, const hw::Chip& c) {
  return in.num("axes") > 0 ? in.num("axes") : tpus::topology_of(c).torus_dims;
}

// The machine a strategy or split lays its mesh on: a TPU slice's torus, or a GPU cluster of whole
// nodes (planner_gpu.cpp) with the GPUs asked for snapped to the nearest cluster that can be built
// (`snapped` says so). On a GPU the torus-only fields are an InputError naming the field unless
// left at their defaults: axes 0, M_Y 1.
struct Machine {
  const hw::Chip* chip = nullptr;
  Hardware h;
  double N = 0, axes = 0;
  GpuCluster gpu;  // d_node > 0 on a GPU cluster
  std::string snapped;
};
Machine machine_of(const Inputs& in);
// The GPU cluster's words for a note: "128 nodes of 8 NVIDIA H100 SXM GPUs: ...".
std::string gpu_words(const Machine& m);

inline std::string n_text(double v) { return units::number(v, 6); }

// The payloads the pages draw, each a plain JSON object written by one function (wasm/scaling.d.ts
// declares their types): memory per chip by what it holds, and a step's timeline.
void write_memory(JsonWriter& w, const MemoryBar& m, double hbm);
void write_timeline(JsonWriter& w, const Timeline& t);
json memory_json(const MemoryBar& m, double hbm);
json timeline_json(const Timeline& t);

}  // namespace sb::training::calc
