// What the case study's problems_*.cpp files share: the section adders, LLaMA 3-70B's figures as
// the chapter states them (70e9 parameters; L, K, H for the KV bytes), the chip figures the
// problems state (a v5e's), and the steps several problems take.
#pragma once
#include <string>

#include "chapters/applied_inference/model.hpp"
#include "chapters/inference/givens.hpp"
#include "chapters/inference/model.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"

namespace sb::applied_inference {

void add_problems_story(Registry& r);       // problems_story.cpp: S1-S3, E2
void add_problems_throughput(Registry& r);  // problems_throughput.cpp: S4-S9, E1
void add_problems_prefill(Registry& r);     // problems_prefill.cpp: S10-S12, Q1-Q3

// The chip figures are Part 7's givens (chapters/inference/givens.hpp).
using inference::kChipGiven;
using inference::kHbmBw;
using inference::kHbmBytes;
using inference::kIciBidi;
using inference::kPeakBf16;
using inference::kPeakInt8;

constexpr Param kL70 = count("L", 80, "layers L", {}, 1, 1000);
constexpr Param kK70 = count("K", 8, "KV heads K", {}, 1, 1e4);
constexpr Param kH70 = count("H", 128, "head dimension H", {}, 1, 1e4);
constexpr Param kD70 = count("D", 8192, "model width D", {}, 1, 1e6);
constexpr Param kF70 = count("F", 28672, "MLP width F", {}, 1, 1e7);
constexpr Param kP70 =
    param_count("param_count", 70e9, "parameters P (the chapter's 70e9; the config gives 70.55e9)");
constexpr Param bytes_per(Text name, double def, Text doc) {
  return ranged(name, "B", def, doc, 0.5, 4);
}
constexpr Param kSeq8k = tokens("seq_len_tokens", 8192, "tokens in each sequence's cache");
constexpr Param kLenDecode = tokens("decode_len_tokens", 512, "tokens generated per reply");

// The chapter's case: LLaMA 3-70B's counts and the chip, from a problem's givens.
struct Given {
  double L = 0, K = 0, H = 0, P = 0;
  double M = 0, W = 0, C = 0;  // HBM per chip, its bandwidth, the bf16 peak (0 where not given)
  inference::Machine machine;
};
// The parts of the givens a problem states: the model (L, K, H, param_count), the HBM per chip,
// the figures of a decode step (hbm_bw_Bps, peak_bf16_flops_per_s).
constexpr unsigned kModel = 1, kMemory = 2, kStep = 4;
Given given_of(const Inputs& in, unsigned parts);

// KV bytes per token for b bytes per element, as a step.
double kv_tok_step(const Given& g, double b, Trace& t, Text what = "KV bytes per token");
// The smallest slice of the chip with at least `chips` chips, as a step; InputError naming "chip"
// when its pod is too small.
double slice_step(const Given& g, double chips, Trace& t);

// S5-S8: one dtype's weights on the smallest slice that holds them, times `factor`.
struct Row {
  double b = 0, bytes_w = 0, kv_tok = 0, raw = 0, chips = 0, left = 0, B = 0;
  inference::Decode d;
};
Row row_steps(const Given& g, double b, double S, double factor, Trace& t);

inline constexpr Text kSlipKeysOnly =
    "That counts keys or values alone: the cache holds both, 2 L K H bytes per element size.";
inline constexpr Text kSlipNoKvRead =
    "That is the weights alone: every step also reads each sequence's KV cache.";
inline constexpr Text kSlipBookStep =
    "That keeps the book's 19 ms step; the batch is above the critical batch, so the FLOPs "
    "outlast the weight loads and the step is longer.";

}  // namespace sb::applied_inference
