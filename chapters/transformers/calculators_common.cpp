// What the transformers chapter's calculators share: how a configuration is shown, and the steps
// of its parameter count and KV bytes per token.
#include "chapters/transformers/calculators.hpp"

namespace sb::transformers::calc {

std::vector<std::string> conventions(const Config& c) {
  std::vector<std::string> out;
  if (!c.gated) out.push_back("plain (ungated) MLP: 2DF per layer");
  if (c.tied) out.push_back("tied embeddings: one V x D matrix (DV, not 2DV)");
  if (c.norms_per_layer != 2)
    out.push_back(n(c.norms_per_layer) + " norms per layer (the book counts 2)");
  if (c.final_norm) out.push_back("a final norm before the output matrix (D more parameters)");
  if (!c.mla && c.N * c.H != c.D)
    out.push_back("query width N x H = " + n(c.N * c.H) + " differs from D = " + n(c.D));
  if (c.qkv_bias) out.push_back("biases on Q, K and V: (N + 2K) H per layer");
  if (c.o_bias) out.push_back("a bias on the output projection: D per layer");
  if (c.attn_sinks) out.push_back("one attention-sink logit per query head");
  if (c.qk_norm) out.push_back("norms on queries and keys: 2H per layer");
  if (c.mla)
    out.push_back("multi-head latent attention: low-rank projections (q_lora " +
                  n(c.m.q_lora_rank) + ", kv_lora " + n(c.m.kv_lora_rank) +
                  "); the KV cache keeps kv_lora + rope = " +
                  n(c.m.kv_lora_rank + c.m.qk_rope_head_dim) + " elements per token per layer");
  if (c.E > 0) {
    std::string moe =
        "MoE: " + n(c.E) + " routed experts of width " + n(c.F_e) + ", " + n(c.k) + " per token";
    if (c.n_shared > 0) moe += ", plus " + n(c.n_shared) + " shared";
    moe += "; a D x E router per MoE layer";
    if (c.router_bias) moe += " with a bias per expert";
    out.push_back(moe);
    if (c.n_dense > 0)
      out.push_back("the first " + n(c.n_dense) + " layers are dense (F = " + n(c.F) + ")");
  }
  if (c.mlp_bias) out.push_back("biases in every MLP matrix");
  if (c.window_layers > 0)
    out.push_back(n(c.window_layers) + " of the " + n(c.L) + " layers attend within a " +
                  n(c.window) + "-token sliding window (their KV cache stops growing there)");
  if (c.mtp_layers > 0)
    out.push_back(n(c.mtp_layers) +
                  " multi-token-prediction module(s), trained beside the model and not counted "
                  "in it");
  return out;
}

json full_config(const Config& c) {
  // One entry per field, written in a loop: as one initializer list of 31 JSON pairs it compiled
  // to 8 KB of wasm.
  struct Field {
    const char* name;
    double value;
    bool flag;  // written as true/false
  };
  const Field fields[] = {{"L", c.L, false},
                          {"D", c.D, false},
                          {"F", c.F, false},
                          {"N", c.N, false},
                          {"K", c.K, false},
                          {"H", c.H, false},
                          {"V", c.V, false},
                          {"gated", c.gated ? 1. : 0., true},
                          {"tied", c.tied ? 1. : 0., true},
                          {"norms_per_layer", c.norms_per_layer, false},
                          {"final_norm", c.final_norm ? 1. : 0., true},
                          {"qk_norm", c.qk_norm ? 1. : 0., true},
                          {"qkv_bias", c.qkv_bias ? 1. : 0., true},
                          {"o_bias", c.o_bias ? 1. : 0., true},
                          {"mlp_bias", c.mlp_bias ? 1. : 0., true},
                          {"attn_sinks", c.attn_sinks ? 1. : 0., true},
                          {"E", c.E, false},
                          {"k", c.k, false},
                          {"n_shared", c.n_shared, false},
                          {"F_e", c.F_e, false},
                          {"n_dense", c.n_dense, false},
                          {"router_bias", c.router_bias ? 1. : 0., true},
                          {"mla", c.mla ? 1. : 0., true},
                          {"q_lora_rank", c.m.q_lora_rank, false},
                          {"kv_lora_rank", c.m.kv_lora_rank, false},
                          {"qk_nope_head_dim", c.m.qk_nope_head_dim, false},
                          {"qk_rope_head_dim", c.m.qk_rope_head_dim, false},
                          {"v_head_dim", c.m.v_head_dim, false},
                          {"window", c.window, false},
                          {"window_layers", c.window_layers, false},
                          {"mtp_layers", c.mtp_layers, false}};
  json out = json::object();
  for (const Field& f : fields) {
    if (f.flag)
      out[f.name] = f.value != 0;
    else
      out[f.name] = f.value;
  }
  return out;
}

void config_json(const ChosenModel& ch, json& extra) {
  const Config& c = ch.config;
  json cfg = full_config(c);
  extra["config"] = std::move(cfg);
  extra["model"] = {{"id", ch.id}, {"name", ch.name}};
  json conv = json::array();
  for (const std::string& s : conventions(c)) conv.push_back(s);
  extra["conventions"] = std::move(conv);
}

void config_note(const ChosenModel& ch, Trace& tr) {
  const Config& c = ch.config;
  std::string s = ch.name + ": L " + n(c.L) + ", D " + n(c.D);
  // F is the dense layers' width, F_e an expert's: each where the model has such layers.
  if (dense_layers(c) > 0) s += ", F " + n(c.F);
  s += ", N " + n(c.N) + ", K " + n(c.K) + ", H " + n(c.H) + ", V " + n(c.V);
  if (c.E > 0) s += ", E " + n(c.E) + ", k " + n(c.k) + ", F_e " + n(c.F_e);
  tr.note(s + ".");
}

json published_json(const ModelEntry& m) {
  json out = json::array();
  for (const Published& q : m.published) {
    const double computed = computed_counterpart(m, q.what);
    out.push_back({{"what", q.what},
                   {"value", q.value},
                   {"text", q.text},
                   {"source", q.source},
                   {"computed", computed},
                   {"computed_over_published", computed / q.value}});
  }
  return out;
}

namespace {

// One attention layer's projections: plain (2D(N + K)H) or MLA's low-rank ones.
void attention_step(const Config& c, Trace& tr) {
  const Mla& m = c.m;
  const Text what =
      "MLA projections per layer ($q_a$, $q_b$, $\\mathrm{kv}_a$, $\\mathrm{kv}_b$, $o$)";
  if (!c.mla)
    tr.step("Attention projections per layer", kAttentionParams, {c.D, c.N, c.K, c.H});
  else if (m.q_lora_rank > 0)
    tr.step(what, kMlaParams,
            {c.D, c.N, m.q_lora_rank, m.kv_lora_rank, m.qk_nope_head_dim, m.qk_rope_head_dim,
             m.v_head_dim});
  else
    tr.step(what, kMlaParamsNoQRank,
            {c.D, c.N, m.kv_lora_rank, m.qk_nope_head_dim, m.qk_rope_head_dim, m.v_head_dim});
}

// The MLP of a dense layer, and an MoE layer's experts (all, and those one token uses) and router.
void mlp_steps(const Config& c, Trace& tr) {
  if (dense_layers(c) > 0)
    tr.step(c.gated ? "MLP per dense layer (gated)" : "MLP per dense layer (plain)",
            c.gated ? kMlpGated : kMlpPlain, {c.D, c.F});
  if (moe_layers(c) == 0) return;
  tr.step("Experts per MoE layer, all of them", c.gated ? kExpertsGated : kExpertsPlain,
          {c.E, c.n_shared, c.D, c.F_e});
  tr.step("Experts one token uses per MoE layer",
          c.gated ? kActiveExpertsGated : kActiveExpertsPlain, {c.k, c.n_shared, c.D, c.F_e});
  tr.step("Router per MoE layer", kRouterParams, {c.D, c.E});
}

}  // namespace

double params_steps(const Config& c, const Params& p, Trace& tr) {
  attention_step(c, tr);
  mlp_steps(c, tr);
  tr.step("Norms per layer", kNormParams, {c.D, c.norms_per_layer});
  tr.step(c.tied ? "Vocabulary (tied: one matrix)" : "Vocabulary (embedding and unembedding)",
          c.tied ? kVocabTied : kVocabUntied, {c.D, c.V});
  // Over the layers, with each model's biases, sinks and extra norms in their components.
  const double attn = p.attn + p.attn_extra, mlp = p.mlp + p.mlp_bias;
  const double vocab = p.embed + p.unembed;
  if (c.E == 0)
    return tr.sum(
        "Total parameters: attention, MLP and norms summed over the $L$ layers, and the "
        "vocabulary",
        "P", "params",
        {{"P_attn", attn}, {"P_mlp", mlp}, {"P_norms", p.norms}, {"P_vocab", vocab}});
  const double router = p.router + p.router_bias;
  const double total = tr.sum(
      "Total parameters: attention, MLP, routers and norms summed over the $L$ layers, and the "
      "vocabulary",
      "P", "params",
      {{"P_attn", attn},
       {"P_mlp", mlp},
       {"P_router", router},
       {"P_norms", p.norms},
       {"P_vocab", vocab}});
  tr.sum("Active parameters: what one token uses, summed over the layers", "P_active", "params",
         {{"P_attn", attn},
          {"P_mlp_active", p.mlp_active + p.mlp_bias_active},
          {"P_router", router},
          {"P_norms", p.norms},
          {"P_vocab", vocab}});
  return total;
}

double kv_token_step(const Config& c, double b, Trace& tr) {
  if (c.mla)
    return tr.step("KV cache per token, every layer (MLA: the latent and the RoPE key)",
                   kKvPerTokenMla, {c.L, c.m.kv_lora_rank, c.m.qk_rope_head_dim, b});
  return tr.step("KV cache per token, every layer: a key and a value per KV head", kKvPerToken,
                 {c.L, c.K, c.H, b});
}

}  // namespace sb::transformers::calc
