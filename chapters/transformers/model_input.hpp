// The one model input every chapter takes: which model (an id of the table, one of its aliases or
// names, or "custom") and the reader's fields laid over it. Each field means one thing everywhere:
// F is the MLP width of the dense layers and F_e the width of one expert; a field left at 0 (or
// "model") keeps the model's own value. A chapter lists kModelInput among its params (join() below)
// and reads the model with chosen_model(); training and the later chapters do the same.
#pragma once
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "chapters/transformers/model.hpp"
#include "chapters/transformers/models.hpp"
#include "core/registry.hpp"

namespace sb::transformers {

inline constexpr Text kCustom = "custom";

// The model choice: the table's ids and custom. What the reader types resolves as the table looks
// models up (an alias, a config id, a name; case, spaces, '-' and '_' ignored); an unknown model
// is an InputError naming the field and listing the ids.
std::vector<std::string> model_choice_values();
std::string resolve_model_choice(std::string_view text, std::string_view field);
std::string model_choice_label(std::string_view id);  // "LLaMA 3 70B (70B)", "custom: ..."
inline constexpr ChoiceSource kModelChoices{&model_choice_values, &resolve_model_choice,
                                            &model_choice_label};

constexpr Param model_param(Text def = "llama-3-70b") {
  return sourced("model", def, kModelChoices,
                 "a model of the table (LLaMA 3 70B, Mixtral 8x7B, DeepSeek-V3, ...), or custom to "
                 "enter its sizes below");
}

// The same input where only a mixture of experts makes sense (expert parallelism): a page offers
// the table's MoE models and custom, so a dense page-wide model leaves such a widget on its own;
// what the reader types still resolves as above (a dense model with E and k set is an MoE).
std::vector<std::string> moe_model_choice_values();
inline constexpr ChoiceSource kMoeModelChoices{&moe_model_choice_values, &resolve_model_choice,
                                               &model_choice_label};
constexpr Param moe_model_param(Text def) {
  return sourced("model", def, kMoeModelChoices,
                 "a mixture of experts of the table (Mixtral 8x7B, Qwen3-235B, DeepSeek-V3, ...), "
                 "or custom to enter its sizes below");
}

// A field laid over the model: a whole number, 0 keeping the model's own. The ranges keep every
// product (FLOPs of a long context on a huge model, KV bytes of a large batch) a finite double.
constexpr Param model_field(Text name, Text doc, double max) {
  Param p = num(name, "count", 0, doc, 0, max, true);
  p.positive = false;
  return p;
}

// The input, in the order forms show it.
inline constexpr std::array<Param, 16> kModelInput = {
    model_param(),
    model_field("L", "layers (0: the model's)", 1e4),
    model_field("D", "model width d_model (0: the model's)", 1e6),
    model_field("F", "MLP width of the dense layers, d_ff (0: the model's)", 1e7),
    model_field("N", "query heads (0: the model's)", 1e5),
    model_field("K", "KV heads: N for MHA, 1 for MQA, a divisor of N for GQA (0: the model's)",
                1e5),
    model_field("H", "head dimension (0: the model's; custom: D / N)", 1e5),
    model_field("V", "vocabulary (0: the model's; custom: none)", 1e7),
    choice("gated", "model", "model|yes|no",
           "a gated MLP of 3 matrices (3DF) or a plain one of 2 (2DF); model: the model's own"),
    choice("tied", "model", "model|yes|no",
           "one matrix for the input embedding and the output; model: the model's own"),
    choice("norms", "model", "model|0|1|2|4",
           "norm vectors of size D per layer, and no other norm (the book counts 2, its LLaMA "
           "table 0); model: the model's own"),
    model_field("E", "routed experts per MoE layer (0: the model's; custom: a dense model)", 1e5),
    model_field("k", "experts each token is routed to (0: the model's)", 1e5),
    model_field("F_e", "width of one expert (0: the model's; custom: F)", 1e7),
    model_field("n_shared", "shared experts every token uses (0: the model's)", 1e3),
    model_field("n_dense", "first layers that stay dense, of width F (0: the model's)", 1e4),
};

// Joins the model input (or any param arrays) with a calculator's own params into one constexpr
// array: constexpr auto kParams = join(kModelInput, kOwn).
template <size_t N, size_t M>
constexpr std::array<Param, N + M> join(const std::array<Param, N>& a,
                                        const std::array<Param, M>& b) {
  std::array<Param, N + M> out{};
  for (size_t i = 0; i < N; ++i) out[i] = a[i];
  for (size_t i = 0; i < M; ++i) out[N + i] = b[i];
  return out;
}

// The reader's fields: 0 (or -1 for the choices) keeps the model's own.
struct ModelFields {
  double L = 0, D = 0, F = 0, N = 0, K = 0, H = 0, V = 0;
  double E = 0, k = 0, F_e = 0, n_shared = 0, n_dense = 0;
  int gated = -1, tied = -1;  // 1 yes, 0 no
  double norms = -1;          // norm vectors per layer, and no other norm
};
// The fields of kModelInput as the inputs give them.
ModelFields model_fields(const Inputs& in);

struct ChosenModel {
  Config config;                      // validated
  const ModelEntry* entry = nullptr;  // the table's entry; null for custom
  std::string id;                     // "llama-3-70b" or "custom"
  std::string name;                   // "LLaMA 3 70B" or "custom model"
};

// The model of `id` (an id, alias or name of the table, or custom) with the fields laid over it:
// - custom starts from the book's plain transformer (gated MLP, untied embeddings, two norms per
//   layer, no biases) and needs L, D, N, K and F (an MoE model F or F_e): InputError naming the
//   first missing field;
// - a new D or N without an H derives H = D / N again (MLA keeps its own head dims);
// - norms n: n D-sized norms per layer and no final or QK norm (the book's count);
// - a field below the model's own count of dense or sliding-window layers shrinks them with it
//   (L = 2 on DeepSeek-V3: two dense layers); a reader's n_dense above L is an error;
// - an MoE model needs k; its experts are F_e wide (F_e = 0: as wide as F), its dense layers F.
// The result is validated: InputError naming the field that breaks a rule (K must divide N, ...).
ChosenModel choose_model(std::string_view id, const ModelFields& f,
                         std::string_view field = "model");
// choose_model(in.text("model"), model_fields(in)).
ChosenModel chosen_model(const Inputs& in);

}  // namespace sb::transformers
