// What the case study's problems_*.cpp files share: the section adders, makers for givens in ranges
// that keep every answer finite, LLaMA 3-70B's configuration as the chapter's table gives it, and
// the configuration of a problem's givens.
#pragma once
#include "chapters/transformers/counting_steps.hpp"
#include "chapters/transformers/model.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"

namespace sb::applied_training {

void add_problems_counting(Registry& r);   // problems_counting.cpp: parameters, FLOPs, memory
void add_problems_sharding(Registry& r);   // problems_sharding.cpp: how to shard LLaMA 3-70B
void add_problems_questions(Registry& r);  // problems_questions.cpp: the worked problems

constexpr Param width(Text name, double def, Text doc, Variants v = {}) {
  return count(name, def, doc, v, 1, 1e7);
}

// LLaMA 3-70B as the chapter's table gives it (and LLaMA 3.1-405B from its public config).
constexpr Param kL70 = width("L", 80, "layers L");
constexpr Param kD70 = width("D", 8192, "model width D");
constexpr Param kF70 = width("F", 28672, "MLP width F");
constexpr Param kN70 = width("N", 64, "query heads N");
constexpr Param kK70 = width("K", 8, "key/value heads K");
constexpr Param kH70 = width("H", 128, "head dimension H");
constexpr Param kV70 = width("V", 128256, "vocabulary V");
constexpr Param kMlp =
    choice("mlp", "gated", "gated|plain", "MLP: gated (3 matrices) or plain (2)");
constexpr Param kEmbeddings = choice("embeddings", "untied", "untied|tied",
                                     "input and output embeddings: separate (untied) or shared");
constexpr Param kNorms = choice("norms", "left out", "left out|counted",
                                "norm vectors: left out, as the chapter's table does, or counted");
constexpr Param kPeak =
    rate("peak_bf16_flops_per_s", "flop_per_s", 4.59e14, "peak bf16 FLOPs/s per chip, C");
constexpr Param kP70 =
    param_count("params_book", 70e9, "P as the chapter rounds it (the 70B of the name)");

inline transformers::Config config_of(const Inputs& in) {
  transformers::Config c;
  c.L = in.num("L");
  c.D = in.num("D");
  c.F = in.num("F");
  c.N = in.num("N");
  c.K = in.num("K");
  c.H = in.num("H");
  c.V = in.num("V");
  c.gated = in.text("mlp") == "gated";
  c.tied = in.text("embeddings") == "tied";
  c.norms_per_layer = in.text("norms") == "counted" ? 2 : 0;
  return transformers::validated(c);
}

// P from the configuration, with its derivation.
inline double params_of(const Inputs& in, Trace& t) {
  return transformers::count_steps(t, config_of(in)).total;
}

// Recognisable mistakes (Answers::slip), the same in several problems.
inline constexpr Text kSlipForward =
    "That counts the forward pass only (2 FLOPs per parameter per token, 2ND); training does 6 "
    "(6ND): 2 forward and 4 backward.";
inline constexpr Text kSlipNoMfu =
    "That is the time at 100% utilisation: divide by the MFU as well.";
inline constexpr Text kSlipNoAdam =
    "That leaves out Adam's state: two fp32 moments, 8 bytes per parameter.";
inline constexpr Text kSlipOneAxis =
    "That is the floor on one ICI axis: over M_X axes the collectives run M_X times faster, so "
    "the floor is alpha / M_X.";
inline constexpr Text kSlipAdditive =
    "That adds the FSDP and TP comm times, as older copies of Part 5 did; it now overlaps them "
    "(their max), which gives alpha^2 / (M_X M_Y F), 4 times lower.";
inline constexpr Text kSlipInverted =
    "That is sqrt((F/B)(M_X/M_Y) N): the ratio under the root is B / F, batch over MLP width.";

// Values a problem's training tokens and its power-of-two batch may take instead.
inline constexpr double kTrainTokens[] = {2e12, 15e12, 30e12};
inline constexpr double kPow2Batches[] = {2097152, 4194304, 8388608};

}  // namespace sb::applied_training
