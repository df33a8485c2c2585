// What the training chapter's calculators_*.cpp files share: the inputs every calculator takes (a
// model of the table or a custom one, a TPU, chips, batch), their readers, and the calculators'
// run functions, which calculators.cpp lists as records.
#pragma once
#include <string>

#include "chapters/tpus/model.hpp"
#include "chapters/training/model.hpp"
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
void split_calc(const Inputs& in, Trace& tr, Result& r);     // calculators_strategy.cpp
void plan_calc(const Inputs& in, Trace& tr, Result& r);      // calculators_planner.cpp
void regime_calc(const Inputs& in, Trace& tr, Result& r);    // calculators_planner.cpp

constexpr Param zero_ok(Param p) {
  p.positive = false;
  return p;
}
constexpr Param override_param(Text name, Text doc, double max) {
  return zero_ok(num(name, "count", 0, doc, 0, max, true));
}
// The model: the transformers chapter's one model input (the table's models, or custom).
constexpr Param kModel = transformers::model_param();
constexpr Param kL = override_param("L", "layers; 0 = the model's", 1000);
constexpr Param kD = override_param("D", "model width d_model; 0 = the model's", 1e6);
constexpr Param kF =
    override_param("F", "MLP width d_ff of the dense layers; 0 = the model's", 1e7);
constexpr Param kN = override_param("N", "query heads; 0 = the model's", 1e5);
constexpr Param kK = override_param("K", "KV heads (N for MHA, 1 for MQA); 0 = the model's", 1e5);
constexpr Param kH = override_param("H", "head dim; 0 = the model's (custom: D / N)", 1e5);
constexpr Param kV = override_param("V", "vocabulary; 0 = the model's (custom: none)", 1e7);
constexpr Param kMlp =
    choice("mlp", "book", "book|model",
           "book = the chapter's 2-matrix MLP; model = the model's own (3 matrices if gated)");
constexpr Param kChip = chip_param("v5p", "TPU from the hardware tables");
constexpr Param kChips = zero_ok(
    num("chips", "chips", 0, "chips N (per pod for DP over DCN); 0 = one full pod", 0, 1e8, true));
constexpr Param kBatch =
    num("B", "tokens", 4194304, "global batch in tokens (4M = 4 x 2^20 = 4,194,304)", 1, 1e15);
constexpr Param kAxes = zero_ok(
    num("axes", "count", 0, "ICI axes of the slice; 0 = the chip's torus rank", 0, 3, true));
constexpr Param kMY =
    num("M_Y", "count", 1, "axes given to TP in FSDP + TP (FSDP gets the rest)", 0.1, 2.9);

// The model of the inputs: a table entry with the reader's fields laid over it, or custom.
inline tf::Config config_of(const Inputs& in) {
  return model_config(in.text("model"), {in.num("L"), in.num("D"), in.num("F"), in.num("N"),
                                         in.num("K"), in.num("H"), in.num("V")});
}

inline Layer layer_from(const Inputs& in, const tf::Config& c) {
  Layer l = layer_of(c);
  if (in.text("mlp") == "book") l.n_mats = 2;
  return l;
}

inline const hw::Chip& tpu(const Inputs& in) {
  const hw::Chip& c = hw::chip(in.text("chip"));
  if (c.kind != "tpu")
    fail("chip",
         c.name + " has no ICI torus: this chapter shards over TPU slices (GPUs come in Part 12)",
         "no_figure");
  return c;
}

inline double pod_chips(const hw::Chip& c) {
  return tpus::chip_count(tpus::topology_of(c).max_pod);
}

inline double chips_of(const Inputs& in, const hw::Chip& c) {
  return in.num("chips") > 0 ? in.num("chips") : pod_chips(c);
}

inline double axes_of(const Inputs& in, const hw::Chip& c) {
  return in.num("axes") > 0 ? in.num("axes") : tpus::topology_of(c).torus_dims;
}

inline std::string n_text(double v) { return units::number(v, 6); }

inline json layer_json(const Layer& l, const tf::Config& c) {
  return {{"L", c.L}, {"D", l.D}, {"F", l.F}, {"n_mats", l.n_mats}};
}

}  // namespace sb::training::calc
