// The one model input: the choice among the table's models and the reader's fields laid over it.
#include "chapters/transformers/model_input.hpp"

#include "core/error.hpp"

namespace sb::transformers {

namespace {

// Lower case without spaces, '-' or '_': how "Custom" and "custom" compare.
bool is_custom(std::string_view text) {
  std::string s;
  for (char c : text)
    if (c != ' ' && c != '-' && c != '_') s.push_back(static_cast<char>(std::tolower(c)));
  return s == kCustom;
}

// Custom needs every size the book's plain transformer has no default for.
void require_sizes(const ModelFields& f) {
  struct Need {
    double v;
    const char* field;
    const char* what;
  };
  const Need needs[] = {{f.L, "L", "the number of layers"},
                        {f.D, "D", "the model width"},
                        {f.N, "N", "the query heads"},
                        {f.K, "K", "the KV heads (N for MHA)"},
                        {f.F + (f.E > 0 ? f.F_e : 0), "F", "the MLP width"}};
  for (const Need& n : needs)
    if (n.v == 0)
      fail(n.field, std::string(n.field) + ": enter " + n.what + " (or pick a model)", "missing");
}

// Lays the reader's non-zero fields over c. A new D or N without an H derives H = D / N again.
void lay_over(Config& c, const ModelFields& f) {
  const bool heads = (f.D > 0 && f.D != c.D) || (f.N > 0 && f.N != c.N);
  struct Over {
    double value;
    double Config::*member;
  };
  const Over overs[] = {{f.L, &Config::L},
                        {f.D, &Config::D},
                        {f.F, &Config::F},
                        {f.N, &Config::N},
                        {f.K, &Config::K},
                        {f.H, &Config::H},
                        {f.V, &Config::V},
                        {f.E, &Config::E},
                        {f.k, &Config::k},
                        {f.F_e, &Config::F_e},
                        {f.n_shared, &Config::n_shared},
                        {f.n_dense, &Config::n_dense}};
  for (const Over& o : overs)
    if (o.value > 0) c.*o.member = o.value;
  if (heads && f.H == 0 && !c.mla) c.H = 0;
  if (f.gated >= 0) c.gated = f.gated == 1;
  if (f.tied >= 0) c.tied = f.tied == 1;
  if (f.norms >= 0) {
    c.norms_per_layer = f.norms;
    c.final_norm = false;
    c.qk_norm = false;
  }
}

// The clamping rule: the model's own dense first layers and sliding-window layers shrink with a
// smaller L; a count the reader set is left for validated() to judge.
void shrink_with_layers(Config& c, const ModelFields& f) {
  if (f.n_dense == 0 && c.n_dense > c.L) c.n_dense = c.L;
  if (c.window_layers > c.L) c.window_layers = c.L;
}

int yes_no(const std::string& s) { return s == "model" ? -1 : s == "yes" ? 1 : 0; }

}  // namespace

std::vector<std::string> model_choice_values() {
  std::vector<std::string> out = model_ids();
  out.emplace_back(kCustom);
  return out;
}

std::vector<std::string> moe_model_choice_values() {
  std::vector<std::string> out;
  for (const std::string& id : model_ids())
    if (model(id).config.E > 0) out.push_back(id);
  out.emplace_back(kCustom);
  return out;
}

std::string resolve_model_choice(std::string_view text, std::string_view field) {
  if (is_custom(text)) return std::string(kCustom);
  try {
    return model(text, field).id;
  } catch (const InputError& e) {
    fail(field, std::string(e.what()) + " Or custom, to enter the sizes yourself.", e.code);
  }
}

std::string model_choice_label(std::string_view id) {
  if (id == kCustom) return "custom: enter the sizes";
  const ModelEntry& m = model(id);
  return m.nominal_text.empty() || m.name.find(m.nominal_text) != std::string::npos
             ? m.name
             : m.name + " (" + m.nominal_text + ")";
}

ModelFields model_fields(const Inputs& in) {
  ModelFields f;
  f.L = in.num("L");
  f.D = in.num("D");
  f.F = in.num("F");
  f.N = in.num("N");
  f.K = in.num("K");
  f.H = in.num("H");
  f.V = in.num("V");
  f.E = in.num("E");
  f.k = in.num("k");
  f.F_e = in.num("F_e");
  f.n_shared = in.num("n_shared");
  f.n_dense = in.num("n_dense");
  f.gated = yes_no(in.text("gated"));
  f.tied = yes_no(in.text("tied"));
  const std::string& norms = in.text("norms");
  f.norms = norms == "model" ? -1 : std::stod(norms);
  return f;
}

ChosenModel choose_model(std::string_view id, const ModelFields& f, std::string_view field) {
  ChosenModel ch;
  ch.id = resolve_model_choice(id, field);
  if (ch.id == kCustom) {
    require_sizes(f);
    ch.name = "custom model";
  } else {
    ch.entry = &model(ch.id, field);
    ch.config = ch.entry->config;
    ch.name = ch.entry->name;
  }
  lay_over(ch.config, f);
  shrink_with_layers(ch.config, f);
  if (ch.config.E > 0 && ch.config.k == 0)
    fail("k", "an MoE model needs the experts each token is routed to", "missing");
  ch.config = validated(ch.config);
  return ch;
}

ChosenModel chosen_model(const Inputs& in) {
  return choose_model(in.text("model"), model_fields(in));
}

}  // namespace sb::transformers
