// What the inference chapter's problems_*.cpp files share: the section adders, the chip figures
// the problems state, the two model configurations the chapter works with (LLaMA 2-13B and the
// worked problems' model), and the hints several problems give.
#pragma once
#include <array>

#include "chapters/inference/frontier.hpp"
#include "chapters/inference/givens.hpp"
#include "chapters/inference/model.hpp"
#include "chapters/inference/serving.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"

namespace sb::inference {

void add_problems_examples(Registry& r);   // problems_examples.cpp: the inline examples, pop quiz
void add_problems_tables(Registry& r);     // problems_tables.cpp: the LLaMA 2-13B sweeps
void add_problems_serving(Registry& r);    // problems_serving.cpp: sharding, latency, prefix
void add_problems_questions(Registry& r);  // problems_questions.cpp: worked problems Q1-Q4
void add_problems_moe(Registry& r);        // problems_moe.cpp: worked problems Q5-Q7

constexpr Param layers(double def) { return count("L", def, "layers L", {}, 1, 1000); }
constexpr Param width(Text name, double def, Text doc) { return count(name, def, doc, {}, 1, 1e6); }
constexpr Param heads(Text name, double def, Text doc) { return count(name, def, doc, {}, 1, 1e4); }
constexpr Param kEmbShared = count(
    "n_emb", 1, "vocabulary matrices: 1 when input and output embeddings are shared", {}, 1, 2);
constexpr Param kEmbSeparate =
    count("n_emb", 2, "vocabulary matrices: 2, separate input and output embeddings", {}, 1, 2);
constexpr Param bytes_per(Text name, double def, Text doc) {
  return ranged(name, "B", def, doc, 0.5, 4);
}
constexpr Param chips_given(double def, Text doc, Variants v = {}) {
  return chip_count("n_chips", def, doc, v);
}
constexpr Param ratio_given(Text name, double def, Text doc, double lo, double hi) {
  return ranged(name, "ratio", def, doc, lo, hi);
}

// LLaMA 2-13B (Part 7's running example): L 40, D 5120, F 13824, N = K = 40, H 128, V 32000.
constexpr std::array<Param, 8> kLlama13 = {layers(40),
                                           width("D", 5120, "model width D"),
                                           width("F", 13824, "MLP width F"),
                                           heads("N", 40, "query heads N"),
                                           heads("K", 40, "KV heads K"),
                                           heads("H", 128, "head dimension H"),
                                           width("V", 32000, "vocabulary V"),
                                           kEmbSeparate};
// The worked problems' model: L 64, D 4096, F 16384, N 32, K 8, H 256, V 32128, shared
// embeddings.
constexpr std::array<Param, 8> kWorked = {layers(64),
                                          width("D", 4096, "model width D"),
                                          width("F", 16384, "MLP width F"),
                                          heads("N", 32, "query heads N"),
                                          heads("K", 8, "KV heads K"),
                                          heads("H", 256, "head dimension H"),
                                          width("V", 32128, "vocabulary V"),
                                          kEmbShared};

// A model's givens followed by a problem's own, as one constexpr array.
template <size_t N, size_t M>
constexpr std::array<Param, N + M> with(const std::array<Param, N>& a,
                                        const std::array<Param, M>& b) {
  std::array<Param, N + M> out{};
  for (size_t i = 0; i < N; ++i) out[i] = a[i];
  for (size_t i = 0; i < M; ++i) out[N + i] = b[i];
  return out;
}

// The parameters of the book's plain model from a problem's givens (E = 1 for dense); the step is
// the record's.
double book_params(const Inputs& in, Trace& tr, Text what, double E = 1);

inline constexpr Text kSlipNoChips =
    "That is one chip's time: the weights and the caches are spread over every chip of the "
    "replica, so divide by all of their bandwidth.";
inline constexpr Text kSlipNoKv =
    "That is the weights alone: every step also reads each sequence's KV cache.";
inline constexpr Text kSlipUntied =
    "That counts the vocabulary twice: this model shares one matrix between the input and output "
    "embeddings (D V, not 2 D V).";

}  // namespace sb::inference
