// The model table: the book's models and popular open ones, loaded from the chapter's models.json
// (embedded at build time). Each entry holds a configuration for model.hpp's counts, the key of
// the published config.json each field comes from, the nominal size of the model's name, and the
// totals its makers state, with their sources, for comparison with what model.hpp computes.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "chapters/transformers/model.hpp"

namespace sb::transformers {

// A figure the model's makers state. `what`: total, active, non_embedding, embedding,
// total_with_mtp, or active_excluding_embedding (a count that leaves the input embedding out).
struct Published {
  std::string what;
  double value = 0;
  std::string text;    // as printed: "46.7B", "8,324,201,984"
  std::string source;  // where it is printed
};

struct ModelEntry {
  std::string id;    // "llama-3-70b"
  std::string name;  // "LLaMA 3 70B"
  std::vector<std::string> aliases;
  std::string config_source;  // the config.json's model id, "meta-llama/Meta-Llama-3-70B"
  double nominal = 0;         // the size in the name (70e9); 0 when the name has none
  std::string nominal_text;   // "70B"
  Config config;              // validated
  // Each config field set by the entry and the config.json key (or architecture fact) it is from.
  std::vector<std::pair<std::string, std::string>> field_keys;
  std::vector<Published> published;
  std::vector<std::string> notes;
};

const std::vector<ModelEntry>& models();
// By id, alias or config id, ignoring case, spaces, '-' and '_'; InputError(field) naming the
// valid ids when none matches.
const ModelEntry& model(std::string_view id, std::string_view field = "model");
std::vector<std::string> model_ids();

// What our formulas give for a published figure's `what` (total, active, non_embedding, ...).
// total_with_mtp counts the MTP modules as the checkpoint stores them, with their own copies of
// the embedding and the output head.
double computed_counterpart(const ModelEntry& m, std::string_view what);

}  // namespace sb::transformers
