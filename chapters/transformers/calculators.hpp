// What the transformers chapter's calculators_*.cpp files share: the model they describe (the one
// model input, model_input.hpp), how a configuration is shown (its note, its conventions, its
// fields), and the calculators' run functions, which calculators.cpp lists as records.
#pragma once
#include <string>
#include <vector>

#include "chapters/transformers/model.hpp"
#include "chapters/transformers/model_input.hpp"
#include "chapters/transformers/models.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

namespace sb::transformers::calc {

void accounting_calc(const Inputs& in, Trace& tr, Result& r);   // calculators_accounting.cpp
void context_calc(const Inputs& in, Trace& tr, Result& r);      // calculators_context.cpp
void kv_calc(const Inputs& in, Trace& tr, Result& r);           // calculators_memory.cpp
void activations_calc(const Inputs& in, Trace& tr, Result& r);  // calculators_memory.cpp
void models_calc(const Inputs& in, Trace& tr, Result& r);       // calculators_models.cpp

// A count as the notes write it: 6 significant digits.
inline std::string n(double v) { return units::number(v, 6); }

// Bytes per element of a dtype input.
inline double bytes_of(const Inputs& in, Text name) { return hw::dtype_bytes(in.text(name), name); }

// Where a configuration differs from the book's plain transformer (gated MLP, untied embeddings,
// two norms per layer, no biases, N H = D, every layer dense and full attention), in words.
std::vector<std::string> conventions(const Config& c);
// Every field of a configuration, named as the model table (models.json) names them.
json full_config(const Config& c);
// The response's "config", "model" {id, name} and "conventions".
void config_json(const ChosenModel& ch, json& extra);
// The derivation's first line: the model and its sizes.
void config_note(const ChosenModel& ch, Trace& tr);
// The figures a model's makers state, each beside what our formulas give for it.
json published_json(const ModelEntry& m);

// The parameter count by component (one layer of each kind, then the model), as steps; returns
// the total.
double params_steps(const Config& c, const Params& p, Trace& tr);
// The KV bytes one token adds to the cache (every layer), as a step.
double kv_token_step(const Config& c, double bytes_per_elem, Trace& tr);

}  // namespace sb::transformers::calc
