// What the inference chapter's calculators_*.cpp files share: the inputs every calculator takes (a
// model of the table or a custom one, a TPU, the dtypes), their readers, the steps that derive a
// model's counts, and the calculators' run functions, which calculators.cpp lists as records.
#pragma once
#include <array>
#include <string>

#include "chapters/inference/frontier.hpp"
#include "chapters/inference/model.hpp"
#include "chapters/inference/serving.hpp"
#include "chapters/transformers/model.hpp"
#include "chapters/transformers/model_input.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"

namespace sb::inference::calc {

void step_calc(const Inputs& in, Trace& tr, Result& r);      // calculators_step.cpp
void frontier_calc(const Inputs& in, Trace& tr, Result& r);  // calculators_frontier.cpp
void plan_calc(const Inputs& in, Trace& tr, Result& r);      // calculators_frontier.cpp
void sharding_calc(const Inputs& in, Trace& tr, Result& r);  // calculators_sharding.cpp
void moe_calc(const Inputs& in, Trace& tr, Result& r);       // calculators_moe.cpp
void engine_calc(const Inputs& in, Trace& tr, Result& r);    // calculators_engine.cpp

constexpr Param zero_ok(Param p) {
  p.positive = false;
  return p;
}
constexpr Param override_param(Text name, Text doc, double max) {
  return zero_ok(num(name, "count", 0, doc, 0, max, true));
}

// The model: the transformers chapter's one model input (the table's models, or custom).
using transformers::join;
using transformers::kModelInput;
constexpr Text kServingDtypes = "bf16|fp8|int8|int4";
constexpr Param kChip = chip_param("v5e", "TPU or GPU from the hardware tables");
constexpr Param kDtypeW = choice("dtype_w", "int8", kServingDtypes, "weights' dtype");
constexpr Param kDtypeKv = choice("dtype_kv", "int8", kServingDtypes, "KV cache's dtype");
constexpr Param kDtypeA =
    choice("dtype_a", "bf16", kServingDtypes, "activations' dtype (what the collectives move)");
constexpr Param kDtypeMatmul =
    choice("dtype_matmul", "bf16", "bf16|fp8|int8", "precision of the matmuls: sets the peak");
constexpr Param kPrice = zero_ok(num(
    "price", "usd_per_hour", 0, "price per chip-hour (0: the tables' price for the chip)", 0, 1e4));
constexpr Param kS =
    num("S", "tokens", 8192, "context: tokens in each sequence's KV cache", 1, 1e8, true);
constexpr Param kMfu = num("mfu", "ratio", 0.4, "prefill's share of the peak (MFU)", 0.01, 1);

// The model of the inputs (transformers::chosen_model): a table entry with the reader's fields laid
// over it, or custom. InputError naming the field.
struct Chosen {
  transformers::Config c;
  std::string id, name;
};
Chosen model_of(const Inputs& in);

// The chip of the inputs as a serving machine (a TPU, or a GPU), and the price: the reader's when
// given, else the tables' (0 when neither).
Machine machine_in(const Inputs& in);
double price_in(const Inputs& in, const Machine& t);

// The counts of a model as derivation steps: parameters stored and used (the transformers
// chapter's count), weight bytes, KV bytes per token at S. Returns kv_tok.
struct Counts {
  double P_total = 0, P_active = 0, bytes_w = 0, kv_tok = 0;
};
Counts count_steps(const Chosen& ch, const Served& m, double b_w, double b_kv, double S, Trace& tr);

// What the GPU steps leave out, said where a search may pick many GPUs.
constexpr Text kGpuNoLatency =
    "On GPUs the AllReduces are timed by bandwidth alone, as the GPU chapter's ring and "
    "hierarchical collectives are: the tables give no NVLink or InfiniBand latency, so the "
    "shortest steps over many nodes are optimistic.";

// "LLaMA 3 70B: L 80, D 8192, ..." for the derivation and the notes.
std::string config_text(const Chosen& ch);

}  // namespace sb::inference::calc
