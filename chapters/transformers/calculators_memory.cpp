// transformers.kv_cache and transformers.activations: the memory a model needs beside its
// weights. The KV cache per token, sequence and batch (GQA, sliding windows and MLA as the model
// has them) and what fits beside the weights on one chip; the activations a training step saves
// under each remat policy, beside the parameters and optimizer state, with the FLOPs each costs.
#include <algorithm>
#include <cmath>

#include "chapters/transformers/calculators.hpp"
#include "core/error.hpp"

namespace sb::transformers::calc {
namespace {

// ------------------------------------------------------------------ transformers.kv_cache

// The model with the sliding window the reader sets: a window applies to every layer unless
// window_layers says how many.
ChosenModel windowed_model(const Inputs& in) {
  ChosenModel ch = chosen_model(in);
  Config& c = ch.config;
  if (in.num("window") > 0) {
    c.window = in.num("window");
    if (in.num("window_layers") == 0 && c.window_layers == 0) c.window_layers = c.L;
  }
  if (in.num("window_layers") > 0) c.window_layers = in.num("window_layers");
  c = validated(c);
  return ch;
}

struct Kv {
  double per_token = 0, seq = 0, batch = 0;
};
Kv kv_steps(const Config& c, double S, double B, double b, Trace& tr) {
  Kv kv;
  kv.per_token = kv_token_step(c, b, tr);
  kv.seq = c.window_layers > 0
               ? tr.step("One sequence: full layers keep $S$ tokens, window layers $\\min(S, w)$",
                         kKvSequenceWindowed, {kv.per_token, c.L, c.window_layers, S, c.window})
               : tr.step("One sequence of $S$ tokens", kKvSequence, {S, kv.per_token});
  kv.batch = tr.step("A batch of $B$ sequences", kKvBatch, {B, kv.seq});
  return kv;
}

// Bytes per sequence against S for the page's plot.
json kv_curve(const Config& c, double S, double b) {
  json ss = json::array(), bs = json::array();
  const double lo = std::min(128.0, S), hi = std::max({4 * S, 4 * c.window, 32 * lo});
  for (int i = 0; i < 48; ++i) {
    const double s = std::round(lo * std::pow(hi / lo, i / 47.0));
    ss.push_back(s);
    bs.push_back(kv_bytes_per_sequence(c, s, b));
  }
  return {{"S", std::move(ss)}, {"bytes", std::move(bs)}};
}

void kv_values(const Config& c, const Kv& kv, double S, double b, Result& r) {
  r.value("per_token", kv.per_token, "B", "per token (every layer)");
  r.value("per_token_at_S", kv.seq / S, "B", "per token, averaged over S");
  r.value("per_sequence", kv.seq, "B", "one sequence of S tokens");
  r.value("per_batch", kv.batch, "B", "the batch");
  if (!c.mla && c.K != c.N) {
    Config mha = c;
    mha.K = c.N;
    const double full = kv_bytes_per_token(mha, b);
    r.value("per_token_mha", full, "B", "per token with K = N (MHA)");
    r.value("gqa_saving", full / kv.per_token, "ratio", "MHA bytes / these bytes");
  }
}

// ------------------------------------------------------------------ transformers.activations

Remat policy_of(const std::string& s) {
  if (s == "save_all") return Remat::SaveAll;
  if (s == "big_matmuls") return Remat::BigMatmuls;
  return Remat::Block;
}

// c, the [B, T, D]-sized arrays saved per layer: the reader's, the exact shapes', or the policy's.
double arrays_step(const Inputs& in, const Config& c, Trace& tr) {
  const std::string& pol = in.text("policy");
  if (pol == "custom") return tr.value("Arrays saved per layer (yours)", in.num("c"), "count");
  if (pol != "exact")
    return tr.value("Arrays saved per layer under this policy",
                    saved_arrays_per_layer(policy_of(pol)), "count");
  const double e = tr.step(
      "Elements saved per token per layer: the outputs of $Q$, $K$, $V$, $O$, $W_{in1}$, "
      "$W_{in2}$, $W_{out}$",
      kSavedElems,
      {c.N, c.mla ? c.N : c.K, head_dim_qk(c), head_dim_v(c), c.D, c.gated ? 3.0 : 2.0,
       mlp_width_per_token(c)});
  return tr.step("As $[B, T, D]$-sized arrays", kSavedArraysExact, {e, c.D});
}

struct TrainingMemory {
  double act = 0, params = 0, grads = 0, optimizer = 0, total = 0, chips = 0;
};
TrainingMemory memory_steps(const Inputs& in, const Config& c, double arrays, double hbm,
                            Trace& tr) {
  TrainingMemory m;
  const double tokens = in.num("tokens"), b_p = bytes_of(in, "dtype_params");
  const double P = params(c).total;
  m.act = tr.step("Saved activations", kActivationBytes,
                  {tokens, c.D, c.L, arrays, bytes_of(in, "dtype_act")});
  m.params = tr.step("Parameters", kParamBytes, {P, b_p});
  m.optimizer = tr.step("Optimizer state", kOptimizerBytes, {P, in.num("optimizer_bytes")});
  if (in.text("grads") == "yes") {
    m.grads = tr.step("Gradient buffers", kGradBytes, {P, b_p});
    m.total = tr.sum(
        "Training memory", "M", "B",
        {{"M_params", m.params}, {"M_grads", m.grads}, {"M_opt", m.optimizer}, {"M_act", m.act}});
  } else {
    m.total = tr.sum("Training memory", "M", "B",
                     {{"M_params", m.params}, {"M_opt", m.optimizer}, {"M_act", m.act}});
  }
  m.chips = tr.step("Chips whose HBM holds it all", kMinChips, {m.total, hbm});
  return m;
}

// The policies side by side, and the bars of the memory chart.
void activations_json(const Config& c, const TrainingMemory& m, double tokens, double b,
                      Result& r) {
  json bars = json::array();
  bars.push_back({{"key", "params"}, {"label", "parameters"}, {"bytes", m.params}});
  bars.push_back({{"key", "optimizer"}, {"label", "optimizer state"}, {"bytes", m.optimizer}});
  if (m.grads > 0) bars.push_back({{"key", "grads"}, {"label", "gradients"}, {"bytes", m.grads}});
  bars.push_back({{"key", "activations"}, {"label", "saved activations"}, {"bytes", m.act}});
  json policies = json::array();
  const std::pair<const char*, Remat> all[] = {
      {"save_all", Remat::SaveAll}, {"big_matmuls", Remat::BigMatmuls}, {"block", Remat::Block}};
  for (const auto& [name, rp] : all)
    policies.push_back(
        {{"policy", name},
         {"arrays", saved_arrays_per_layer(rp)},
         {"bytes", activation_bytes(tokens, c.D, c.L, saved_arrays_per_layer(rp), b)},
         {"flops_per_param_token", remat_flops_per_param_token(rp)}});
  r.extra["bars"] = std::move(bars);
  r.extra["policies"] = std::move(policies);
}

}  // namespace

void kv_calc(const Inputs& in, Trace& tr, Result& r) {
  const ChosenModel ch = windowed_model(in);
  const Config& c = ch.config;
  const double S = in.num("S"), b = hw::dtype_bytes(in.text("dtype"), "dtype");
  const hw::Chip& chip = hw::chip(in.text("chip"));
  config_note(ch, tr);
  const Kv kv = kv_steps(c, S, in.num("B"), b, tr);
  const double weights =
      tr.step("Weights", kParamBytes, {params(c).total, bytes_of(in, "dtype_params")});
  const double hbm = chip.get("hbm_bytes", "chip");
  const bool fits = weights + kv.batch <= hbm;
  double seqs = 0;
  if (weights < hbm)
    seqs = tr.step("Sequences of $S$ tokens one " + chip.name + " holds beside the weights",
                   kSequencesBesideWeights, {hbm, weights, kv.seq});
  else
    r.note("The weights alone (" + units::format(weights, "B") + ") exceed one " + chip.name +
           "'s HBM (" + units::format(hbm, "B") + "): they need " +
           units::number(min_chips(weights, hbm)) + " chips before any KV cache.");
  tr.note(fits ? "The weights and the batch's cache fit in one " + chip.name + "'s HBM."
               : "The weights and the batch's cache do not fit in one " + chip.name + "'s HBM.");
  kv_values(c, kv, S, b, r);
  r.value("weights", weights, "B", "weights");
  r.value("hbm", hbm, "B", "HBM of one " + chip.name);
  r.value("sequences_fit", seqs, "count", "sequences of S that fit beside the weights");
  r.value("batch_fits", fits ? 1 : 0, "bool", "weights + batch fit on one chip");
  if (c.window_layers > 0)
    r.note(n(c.window_layers) + " of " + n(c.L) + " layers keep at most " + n(c.window) +
           " tokens: above that the cache grows by fewer bytes per token.");
  r.extra["verdict"] = (fits ? "fits on one " : "does not fit on one ") + chip.name;
  r.extra["curve"] = kv_curve(c, S, b);
  config_json(ch, r.extra);
}

void activations_calc(const Inputs& in, Trace& tr, Result& r) {
  const ChosenModel ch = chosen_model(in);
  const Config& c = ch.config;
  const double tokens = in.num("tokens"), T = in.num("T");
  if (T > tokens)
    fail("T", "T (tokens per sequence) cannot exceed the tokens per batch", "out_of_range");
  const std::string& pol = in.text("policy");
  const double hbm = hw::chip(in.text("chip")).get("hbm_bytes", "chip");
  config_note(ch, tr);
  const double arrays = arrays_step(in, c, tr);
  const TrainingMemory m = memory_steps(in, c, arrays, hbm, tr);
  // FLOPs: block remat replays the forward pass (8 per parameter per token); saving the big
  // matmul outputs recomputes only the attention core's QK^T and PV (Q6).
  const double per_param =
      remat_flops_per_param_token(pol == "block" ? Remat::Block : Remat::SaveAll);
  const double step_flops = six_p_tokens(params(c).matmul_active, tokens, per_param);
  const double recompute =
      pol == "big_matmuls" || pol == "exact"
          ? tr.step("Recomputed in the backward pass: $QK^T$ and $PV$ again in every layer",
                    kRecomputeLayers, {c.L, tokens / T, T, c.N, head_dim_qk(c)})
          : 0;
  r.value("arrays_per_layer", arrays, "ratio", "[B,T,D]-sized arrays saved per layer");
  r.value("activation_bytes", m.act, "B", "saved activations");
  r.value("param_bytes", m.params, "B", "parameters");
  if (m.grads > 0) r.value("grad_bytes", m.grads, "B", "gradients");
  r.value("optimizer_bytes", m.optimizer, "B", "optimizer state");
  r.value("total_bytes", m.total, "B", "total");
  r.value("min_chips", m.chips, "chips",
          "chips whose HBM holds it (" + hw::chip(in.text("chip")).name + ")");
  r.value("bytes_per_chip",
          tr.step("Per chip, all of it sharded over them", kBytesPerChip, {m.total, m.chips}), "B",
          "per chip on those chips");
  r.value("flops_per_param_token", per_param, "ratio", "FLOPs per parameter per token");
  r.value("recompute_flops", recompute, "flop", "attention recomputed per step");
  r.value("step_flops", step_flops + recompute, "flop", "matmul FLOPs per step with remat");
  activations_json(c, m, tokens, bytes_of(in, "dtype_act"), r);
  r.extra["hbm"] = hbm;
  config_json(ch, r.extra);
}

}  // namespace sb::transformers::calc
