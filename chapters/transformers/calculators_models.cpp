// transformers.models: the model table, each model's configuration with its source and what the
// chapter's formulas derive from it. `scaling models` prints it (Calculator::command).
#include "chapters/transformers/calculators.hpp"

namespace sb::transformers::calc {
namespace {

// One row of the table: the fields the entry sets with their config.json keys, what the
// chapter's formulas derive, and the makers' figures beside them.
json model_row(const ModelEntry& m, double b, double T) {
  const Config& c = m.config;
  const Params p = params(c);
  // The fields the entry sets, with the config.json key each comes from.
  const json all = full_config(c);
  json cfg = json::object(), keys = json::object();
  for (const auto& [f, key] : m.field_keys) {
    keys[f] = key;
    if (all.contains(f)) cfg[f] = all[f];
  }
  json conv = json::array(), notes = json::array();
  for (const std::string& s : conventions(c)) conv.push_back(s);
  for (const std::string& s : m.notes) notes.push_back(s);
  // Member by member (one call each) rather than one initializer list: smaller wasm, same text.
  json row = json::object();
  row["id"] = m.id;
  row["name"] = m.name;
  row["config_source"] = m.config_source;
  row["config"] = std::move(cfg);
  row["config_keys"] = std::move(keys);
  row["nominal"] = m.nominal;
  row["nominal_text"] = m.nominal_text;
  row["params_total"] = p.total;
  row["params_active"] = p.active;
  row["params_embedding"] = p.embed + p.unembed;
  row["kv_bytes_per_token"] = kv_bytes_per_token(c, b);
  row["kv_bytes_per_token_at_T"] = kv_bytes_per_token(c, b, T);
  row["flops_per_token"] = train_flops_per_token(c, T);
  row["flops_6p"] = six_p_tokens(p.active, 1);
  row["crossover"] = attention_crossover(c);
  row["published"] = published_json(m);
  row["conventions"] = std::move(conv);
  row["notes"] = std::move(notes);
  if (p.mtp > 0) row["params_mtp"] = p.mtp;
  // How far the name's size is from the count: a large gap means a component the name leaves out.
  if (m.nominal > 0) row["total_over_nominal"] = p.total / m.nominal;
  return row;
}

}  // namespace

void models_calc(const Inputs& in, Trace& tr, Result& r) {
  const double b = bytes_of(in, "dtype_kv");
  const double T = in.num("T");
  json rows = json::array();
  // The plain table `scaling models` prints, the header first.
  json table = json::array({{"model", "nominal", "params", "active", "KV B/token"}});
  for (const ModelEntry& m : models()) {
    json row = model_row(m, b, T);
    table.push_back({m.id, m.nominal_text,
                     units::format(row["params_total"].get<double>(), "params"),
                     units::format(row["params_active"].get<double>(), "params"),
                     units::format(row["kv_bytes_per_token"].get<double>(), "B")});
    rows.push_back(std::move(row));
  }
  tr.note(
      "Totals: L (attention + MLP + norms) + vocabulary, with each model's own conventions "
      "(biases, norms, MoE, MLA); FLOPs per token: 6 x the matmul weights a token uses + the "
      "attention core at $T$; KV bytes per token: $2 L K H b$ (MLA: $L (r_{kv} + h_r) b$).");
  r.value("models", static_cast<double>(models().size()), "count", "models in the table");
  r.extra["models"] = std::move(rows);
  r.extra["table"] = std::move(table);
}

}  // namespace sb::transformers::calc
