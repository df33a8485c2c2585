// The model table, parsed once from the JSON that CMake embeds (models.json -> kModelsJson).
#include "chapters/transformers/models.hpp"

#include <cctype>
#include <cstddef>
#include <type_traits>

#include "core/error.hpp"
#include "core/json.hpp"

namespace sb::transformers {

extern const char* const kModelsJson;

namespace {

// The embedded data is ours, but a broken file must still surface as an error value.
[[noreturn]] void bad_data(const std::string& message) {
  throw InputError("bad_model_data", "models.json", "models.json: " + message);
}

std::string normalize(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == ' ' || c == '-' || c == '_' || c == '\t') continue;
    out.push_back(static_cast<char>(std::tolower(c)));
  }
  return out;
}

// A models.json field name and the member it sets, of Config or of its Mla part.
template <class Owner, class T>
struct Field {
  const char* name;
  T Owner::*member;
};

const Field<Config, double> kNumFields[] = {
    {"L", &Config::L},
    {"D", &Config::D},
    {"F", &Config::F},
    {"N", &Config::N},
    {"K", &Config::K},
    {"H", &Config::H},
    {"V", &Config::V},
    {"norms_per_layer", &Config::norms_per_layer},
    {"E", &Config::E},
    {"k", &Config::k},
    {"n_shared", &Config::n_shared},
    {"F_e", &Config::F_e},
    {"n_dense", &Config::n_dense},
    {"window", &Config::window},
    {"window_layers", &Config::window_layers},
    {"mtp_layers", &Config::mtp_layers},
};

const Field<Config, bool> kFlagFields[] = {
    {"gated", &Config::gated},
    {"tied", &Config::tied},
    {"final_norm", &Config::final_norm},
    {"qk_norm", &Config::qk_norm},
    {"qkv_bias", &Config::qkv_bias},
    {"o_bias", &Config::o_bias},
    {"mlp_bias", &Config::mlp_bias},
    {"attn_sinks", &Config::attn_sinks},
    {"router_bias", &Config::router_bias},
    {"mla", &Config::mla},
};

const Field<Mla, double> kMlaFields[] = {
    {"q_lora_rank", &Mla::q_lora_rank},
    {"kv_lora_rank", &Mla::kv_lora_rank},
    {"qk_nope_head_dim", &Mla::qk_nope_head_dim},
    {"qk_rope_head_dim", &Mla::qk_rope_head_dim},
    {"v_head_dim", &Mla::v_head_dim},
};

// Sets the member `table` names `key` from `v`, checking its JSON type. False if `key` is not
// in the table.
template <class Owner, class T, std::size_t N>
bool set_from(const Field<Owner, T> (&table)[N], Owner& owner, const std::string& key,
              const json& v) {
  constexpr bool kFlag = std::is_same_v<T, bool>;
  for (const auto& f : table)
    if (key == f.name) {
      if (kFlag ? !v.is_boolean() : !v.is_number())
        bad_data(key + (kFlag ? " is not true or false" : " is not a number"));
      owner.*f.member = v.get<T>();
      return true;
    }
  return false;
}

// Sets the Config member a models.json field names. Returns false for an unknown field.
bool set_field(Config& c, const std::string& key, const json& v) {
  return set_from(kNumFields, c, key, v) || set_from(kFlagFields, c, key, v) ||
         set_from(kMlaFields, c.m, key, v);
}

std::string text_of(const json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string();
}

ModelEntry parse_entry(const json& j) {
  if (!j.is_object() || text_of(j, "id").empty()) bad_data("a model without an id");
  ModelEntry m;
  m.id = text_of(j, "id");
  m.name = text_of(j, "name");
  m.config_source = text_of(j, "config_source");
  if (m.config_source.empty()) bad_data(m.id + " has no config_source");
  m.nominal_text = text_of(j, "nominal_text");
  m.nominal = j.value("nominal", 0.0);
  if (j.contains("aliases") && j["aliases"].is_array())
    for (const json& a : j["aliases"])
      if (a.is_string()) m.aliases.push_back(a.get<std::string>());
  const json& cfg = j.value("config", json::object());
  if (!cfg.is_object() || cfg.empty()) bad_data(m.id + " has no config");
  for (auto it = cfg.begin(); it != cfg.end(); ++it) {
    const json& f = it.value();
    if (!f.is_object() || !f.contains("value") || text_of(f, "key").empty())
      bad_data(m.id + "." + it.key() + " needs a value and the config key it comes from");
    if (!set_field(m.config, it.key(), f["value"]))
      bad_data(m.id + ": unknown config field " + it.key());
    m.field_keys.emplace_back(it.key(), text_of(f, "key"));
  }
  try {
    m.config = validated(m.config);
  } catch (const InputError& e) {
    bad_data(m.id + ": " + e.what());
  }
  if (j.contains("published") && j["published"].is_array())
    for (const json& p : j["published"]) {
      Published pub;
      pub.what = text_of(p, "what");
      pub.text = text_of(p, "text");
      pub.source = text_of(p, "source");
      if (pub.what.empty() || pub.source.empty() || !p.contains("value") || !p["value"].is_number())
        bad_data(m.id + ": a published figure needs what, value and source");
      pub.value = p["value"].get<double>();
      m.published.push_back(std::move(pub));
    }
  if (j.contains("notes") && j["notes"].is_array())
    for (const json& n : j["notes"])
      if (n.is_string()) m.notes.push_back(n.get<std::string>());
  return m;
}

struct Table {
  std::vector<ModelEntry> models;
  std::vector<std::pair<std::string, size_t>> names;  // normalized id, alias, config id -> index
};

Table load() {
  Table t;
  // The core's parser, as the chip tables': a second instantiation of nlohmann's (json::parse)
  // cost the modules with this table 5 KB gzipped.
  json doc;
  try {
    doc = parse_json(kModelsJson, kNoLimits);
  } catch (const InputError& e) {
    bad_data(std::string("not valid JSON: ") + e.what());
  }
  if (!doc.is_object()) bad_data("not valid JSON");
  const json& list = doc.value("models", json::array());
  if (!list.is_array() || list.empty()) bad_data("missing \"models\"");
  for (const json& j : list) {
    ModelEntry m = parse_entry(j);
    t.names.emplace_back(normalize(m.id), t.models.size());
    t.names.emplace_back(normalize(m.config_source), t.models.size());
    for (const std::string& a : m.aliases) t.names.emplace_back(normalize(a), t.models.size());
    t.models.push_back(std::move(m));
  }
  return t;
}

const Table& table() {
  static const Table t = load();
  return t;
}

}  // namespace

const std::vector<ModelEntry>& models() { return table().models; }

const ModelEntry& model(std::string_view id, std::string_view field) {
  if (id.size() <= 100) {
    const std::string want = normalize(id);
    if (!want.empty())
      for (const auto& [name, i] : table().names)
        if (name == want) return table().models[i];
  }
  std::string valid;
  for (const std::string& m : model_ids()) valid += (valid.empty() ? "" : ", ") + m;
  fail(field,
       "Unknown model \"" + std::string(id.substr(0, 100)) + "\". Valid models: " + valid + ".",
       "unknown_model");
}

std::vector<std::string> model_ids() {
  std::vector<std::string> ids;
  for (const ModelEntry& m : models()) ids.push_back(m.id);
  return ids;
}

double computed_counterpart(const ModelEntry& m, std::string_view what) {
  const Params p = params(m.config);
  if (what == "total") return p.total;
  if (what == "active") return p.active;
  if (what == "non_embedding") return p.total - p.embed - p.unembed;
  if (what == "embedding") return p.embed + p.unembed;
  // As the checkpoint stores it: each MTP module with its own copies of the embedding and head.
  if (what == "total_with_mtp")
    return p.total + p.mtp + m.config.mtp_layers * (p.embed + p.unembed);
  if (what == "active_excluding_embedding") return p.active - p.embed;
  fail("what", "no computed counterpart for a published \"" + std::string(what) + "\"",
       "bad_input");
}

}  // namespace sb::transformers
