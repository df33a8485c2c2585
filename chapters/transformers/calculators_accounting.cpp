// transformers.accounting: one model's parameters by component (total and active), its training
// FLOPs per token and where they go, its KV bytes per token, and the memory of its parameters,
// gradients and optimizer state with the chips whose HBM holds it.
#include <cmath>

#include "chapters/transformers/calculators.hpp"

namespace sb::transformers::calc {
namespace {

// Training FLOPs per token at T: 6 per matmul weight a token uses, plus the attention core.
struct TokenFlops {
  double matmuls = 0, core = 0, total = 0;
};
TokenFlops flops_steps(const Config& c, const Params& p, double T, bool causal, Trace& tr) {
  TokenFlops f;
  const double P =
      c.E == 0
          ? tr.sum("Matmul weights one token uses (the output matrix too)", "P_matmul", "params",
                   {{"P_attn", p.attn}, {"P_mlp", p.mlp}, {"P_unembed", p.unembed}})
          : tr.sum("Matmul weights one token uses (the output matrix too)", "P_matmul", "params",
                   {{"P_attn", p.attn},
                    {"P_mlp_active", p.mlp_active},
                    {"P_router", p.router},
                    {"P_unembed", p.unembed}});
  f.matmuls = tr.step("Training FLOPs per token, matmuls", kMatmulFlopsPerToken, {P});
  f.core = tr.step(causal ? "Training FLOPs per token, attention core at $T$ (causal: half)"
                          : "Training FLOPs per token, attention core at $T$",
                   causal ? kCorePerTokenCausal : kCorePerToken,
                   {c.L, T, c.N, head_dim_qk(c), head_dim_v(c)});
  f.total = tr.sum("Training FLOPs per token", "FLOPs", "flop",
                   {{"FLOPs_matmul", f.matmuls}, {"FLOPs_core", f.core}});
  return f;
}

// Parameters, optimizer state and (if asked) gradient buffers, and the chips that hold them.
struct Memory {
  double params = 0, grads = 0, optimizer = 0, total = 0, chips = 0;
};
Memory memory_steps(const Inputs& in, double P, double hbm, Trace& tr) {
  Memory m;
  const double b_p = bytes_of(in, "dtype_params"), b_opt = in.num("optimizer_bytes");
  m.params = tr.step("Parameter memory", kParamBytes, {P, b_p});
  m.optimizer = tr.step("Optimizer state (Adam: two fp32 moments, 8 bytes per parameter)",
                        kOptimizerBytes, {P, b_opt});
  if (in.text("grads") == "yes") {
    m.grads = tr.step("Gradient buffers", kGradBytes, {P, b_p});
    m.total = tr.sum("Parameters, gradients and optimizer state", "M", "B",
                     {{"M_params", m.params}, {"M_grads", m.grads}, {"M_opt", m.optimizer}});
  } else {
    m.total = tr.sum("Parameters and optimizer state", "M", "B",
                     {{"M_params", m.params}, {"M_opt", m.optimizer}});
  }
  m.chips = tr.step("Chips whose HBM holds it", kMinChips, {m.total, hbm});
  return m;
}

void accounting_values(const ChosenModel& ch, const Params& p, const TokenFlops& f, double kv,
                       const Memory& m, double tokens, const hw::Chip& chip, Result& r) {
  const Config& c = ch.config;
  r.value("params_total", p.total, "params", "parameters, total");
  r.value("params_active", p.active, "params", "parameters one token uses");
  if (ch.entry && ch.entry->nominal > 0)
    r.value("nominal", ch.entry->nominal, "params",
            "nominal size (" + ch.entry->nominal_text + ")");
  r.value("attn", p.attn + p.attn_extra, "params", "attention (projections, biases, QK norms)");
  r.value("mlp", p.mlp + p.mlp_bias, "params", c.E > 0 ? "MLP (every expert)" : "MLP");
  if (c.E > 0) {
    r.value("mlp_active", p.mlp_active + p.mlp_bias_active, "params", "MLP one token uses");
    r.value("router", p.router + p.router_bias, "params", "routers");
  }
  r.value("norms", p.norms, "params", "norms");
  r.value("vocab", p.embed + p.unembed, "params", c.tied ? "vocabulary (tied)" : "vocabulary");
  if (p.mtp > 0) r.value("mtp", p.mtp, "params", "multi-token prediction (not counted)");
  r.value("flops_per_token", f.total, "flop", "training FLOPs per token at T");
  r.value("flops_per_token_forward", f.total / 3, "flop", "forward FLOPs per token at T");
  r.value("flops_6p", six_p_tokens(p.active, 1), "flop", "6 P per token (the rule of thumb)");
  r.value("attention_share", f.core / f.total, "ratio", "attention core's share of FLOPs");
  r.value("train_flops", f.total * tokens, "flop", "training FLOPs for the tokens");
  r.value("kv_bytes_per_token", kv, "B", "KV cache per token");
  r.value("param_bytes", m.params, "B", "parameters in memory");
  if (m.grads > 0) r.value("grad_bytes", m.grads, "B", "gradients");
  r.value("optimizer_bytes", m.optimizer, "B", "optimizer state");
  r.value("memory_bytes", m.total, "B", "parameters + gradients + optimizer");
  r.value("min_chips", m.chips, "chips", "chips whose HBM holds that (" + chip.name + ")");
}

// The breakdown a chart draws: parameters by component (total and active) and the training
// FLOPs per token by component.
json breakdown_json(const Config& c, const Params& p, double T, bool causal) {
  json params = json::array(), flops = json::array();
  auto part = [&](const char* key, const char* label, double total, double active) {
    if (total > 0)
      params.push_back({{"key", key}, {"label", label}, {"total", total}, {"active", active}});
  };
  part("attn", "attention", p.attn + p.attn_extra, p.attn + p.attn_extra);
  part("mlp", c.E > 0 ? "MLP / experts" : "MLP", p.mlp + p.mlp_bias,
       p.mlp_active + p.mlp_bias_active);
  part("router", "routers", p.router + p.router_bias, p.router + p.router_bias);
  part("norms", "norms", p.norms, p.norms);
  part("embed", "embedding", p.embed, p.embed);
  part("unembed", c.tied ? "embedding = unembedding" : "unembedding", p.unembed, p.unembed);
  LayerFlops sum;
  for (const bool dense : {true, false}) {
    const double count = dense ? dense_layers(c) : moe_layers(c);
    if (count == 0) continue;
    const LayerFlops f = dense ? dense_layer_flops(c, 1, T, T, Pass::Train, causal)
                               : moe_layer_flops(c, 1, T, T, Pass::Train, causal);
    sum.mlp += count * f.mlp;
    sum.qkvo += count * f.qkvo;
    sum.router += count * f.router;
    sum.core += count * f.core;
  }
  auto fpart = [&](const char* key, const char* label, double v) {
    if (v > 0) flops.push_back({{"key", key}, {"label", label}, {"per_token", v / T}});
  };
  fpart("qkvo", "attention projections", sum.qkvo);
  fpart("mlp", "MLP", sum.mlp);
  fpart("router", "routers", sum.router);
  fpart("core", "attention core", sum.core);
  fpart("unembed", "unembedding", model_flops(c, 1, T, Pass::Train, causal).unembed);
  return {{"params", std::move(params)}, {"flops", std::move(flops)}};
}

}  // namespace

void accounting_calc(const Inputs& in, Trace& tr, Result& r) {
  const ChosenModel ch = chosen_model(in);
  const Config& c = ch.config;
  const double T = in.num("T");
  const bool causal = in.text("causal") == "yes";
  const hw::Chip& chip = hw::chip(in.text("chip"));
  config_note(ch, tr);
  const Params p = params(c);
  params_steps(c, p, tr);
  const TokenFlops f = flops_steps(c, p, T, causal, tr);
  const double kv = kv_token_step(c, bytes_of(in, "dtype_kv"), tr);
  const Memory m = memory_steps(in, p.total, chip.get("hbm_bytes", "chip"), tr);
  accounting_values(ch, p, f, kv, m, in.num("tokens"), chip, r);
  r.extra["breakdown"] = breakdown_json(c, p, T, causal);
  config_json(ch, r.extra);
  if (ch.entry) r.extra["published"] = published_json(*ch.entry);
  for (const std::string& s : conventions(c)) r.note(s);
}

}  // namespace sb::transformers::calc
