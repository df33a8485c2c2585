// What the training chapter's problems_*.cpp files share: the section adders, makers for givens in
// ranges that keep every answer finite, and the chip figures the problems state.
#pragma once
#include <cmath>

#include "chapters/training/model.hpp"
#include "chapters/transformers/counting_steps.hpp"
#include "chapters/transformers/model.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"

namespace sb::training {

void add_problems_data_parallel(Registry& r);    // problems_data_parallel.cpp: DP and FSDP
void add_problems_tensor_parallel(Registry& r);  // problems_tensor_parallel.cpp
void add_problems_mixed(Registry& r);            // problems_mixed.cpp: FSDP + TP
void add_problems_pods(Registry& r);             // problems_pods.cpp: across pods over DCN
void add_problems_questions(Registry& r);        // problems_questions.cpp: the end-of-chapter ones

constexpr Param axes(Text name, double def, Text doc, Variants v = {}) {
  return count(name, def, doc, v, 1, 3);
}
constexpr Param width(Text name, double def, Text doc, Variants v = {}) {
  return count(name, def, doc, v, 1, 1e7);
}

// Chip figures the problems state (v5p unless said otherwise).
constexpr Param kPeak459 =
    rate("peak_bf16_flops_per_s", "flop_per_s", 4.59e14, "peak bf16 FLOPs/s per chip, C");
constexpr Param kPeak460 = rate("peak_bf16_flops_per_s", "flop_per_s", 4.6e14,
                                "peak bf16 FLOPs/s per chip, C (the text's rounded figure)");
constexpr Param kWIci =
    rate("w_ici_Bps", "B_per_s", 1.8e11, "ICI bandwidth per axis, both directions, W_ici");
constexpr Param kAlphaGiven = tokens("alpha_ici_tokens", 2550, "ICI intensity alpha = C / W_ici");
constexpr Param kPod = chip_count("pod_chips", 8960, "chips in a v5p pod");

// alpha = C / W_ici from the problem's givens peak_bf16_flops_per_s and w_ici_Bps.
inline double alpha_of(const Inputs& in, Trace& tr) {
  Hardware h;
  h.C = in.num("peak_bf16_flops_per_s");
  h.W_ici = in.num("w_ici_Bps");
  return tr.step("ICI intensity", kAlpha, {h.C, h.W_ici});
}

// The transformers chapter's 6 P tokens (A.5) as a step.
using transformers::six_p_step;  // A.5, 6 P tokens

// Recognisable mistakes (Answers::slip), the same in several problems.
inline constexpr Text kSlipOneAxis =
    "That is the floor on one ICI axis: over M_X axes the collectives run M_X times faster, so "
    "the floor is alpha / M_X.";
inline constexpr Text kSlipAdditive =
    "That adds the FSDP and TP comm times, as older copies of the chapter did; the chapter now "
    "overlaps them (their max), which gives alpha^2 / (M_X M_Y F), 4 times lower.";
inline constexpr Text kSlipInverted =
    "That is sqrt((F/B)(M_X/M_Y) N): the ratio under the root is B / F, batch over MLP width.";
inline constexpr Text kSlipNoMfu =
    "That is the time at 100% utilisation: divide by the MFU as well.";
inline constexpr Text kSlipForward =
    "That counts the forward pass only (2 FLOPs per parameter per token); training does 6: 2 "
    "forward and 4 backward.";
inline constexpr Text kSlipNoAdam =
    "That is the bf16 weights alone: Adam adds two fp32 moments, 8 more bytes per parameter.";
inline constexpr Text kSlipAllD =
    "That counts every checkpoint as [B, D]: after the MLP's input matmuls they are [B, F] wide.";

// A count of millions read as the book sometimes reads "M", 2^20 ("3M" tokens as 3 x 2^20).
inline double binary_millions(double v) { return v / 1e6 * 1048576; }

// The book's reading of a whole number by its round thousands ("32k" for 32,768).
inline double thousands(double v) { return std::round(v / 1000) * 1000; }

// F values a problem about LLaMA-3 70B's MLP may take instead (the book's 30k among them).
inline constexpr double kLlamaFs[] = {20000, 28672, 30000, 53248};

}  // namespace sb::training
