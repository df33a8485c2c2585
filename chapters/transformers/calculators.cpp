// The transformers chapter's calculators: the accounting of one model (parameters by component,
// total vs active, FLOPs per token and their breakdown, KV bytes, training memory), the
// context-length explorer (attention core against the other matmuls, and the attention core's
// intensity against the chip), the KV-cache sizer, saved activations per remat policy, and the
// model table. Every number comes from model.hpp (and models.hpp for the table); this file picks
// the configuration, records the derivation and shapes the results for the page.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "chapters/roofline/model.hpp"
#include "chapters/transformers/model.hpp"
#include "chapters/transformers/model_input.hpp"
#include "chapters/transformers/models.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

// Records are written with designated initializers; the members left out keep their defaults.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::transformers {
namespace {

// ------------------------------------------------------------------ the model input

constexpr Param zero_ok(Param p) {
  p.positive = false;
  return p;
}

// Every calculator that describes a model starts with the one model input (model_input.hpp).
using Chosen = ChosenModel;

std::string n(double v) { return units::number(v, 6); }

// Where a configuration differs from the book's plain transformer (gated MLP, untied embeddings,
// two norms per layer, no biases, N H = D, every layer dense and full attention).
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

// Every field of a configuration, named as data/models.json names them.
json full_config(const Config& c) {
  return {{"L", c.L},
          {"D", c.D},
          {"F", c.F},
          {"N", c.N},
          {"K", c.K},
          {"H", c.H},
          {"V", c.V},
          {"gated", c.gated},
          {"tied", c.tied},
          {"norms_per_layer", c.norms_per_layer},
          {"final_norm", c.final_norm},
          {"qk_norm", c.qk_norm},
          {"qkv_bias", c.qkv_bias},
          {"o_bias", c.o_bias},
          {"mlp_bias", c.mlp_bias},
          {"attn_sinks", c.attn_sinks},
          {"E", c.E},
          {"k", c.k},
          {"n_shared", c.n_shared},
          {"F_e", c.F_e},
          {"n_dense", c.n_dense},
          {"router_bias", c.router_bias},
          {"mla", c.mla},
          {"q_lora_rank", c.m.q_lora_rank},
          {"kv_lora_rank", c.m.kv_lora_rank},
          {"qk_nope_head_dim", c.m.qk_nope_head_dim},
          {"qk_rope_head_dim", c.m.qk_rope_head_dim},
          {"v_head_dim", c.m.v_head_dim},
          {"window", c.window},
          {"window_layers", c.window_layers},
          {"mtp_layers", c.mtp_layers}};
}

void config_json(const Chosen& ch, json& extra) {
  const Config& c = ch.config;
  json cfg = full_config(c);
  extra["config"] = std::move(cfg);
  extra["model"] = {{"id", ch.id}, {"name", ch.name}};
  json conv = json::array();
  for (const std::string& s : conventions(c)) conv.push_back(s);
  extra["conventions"] = std::move(conv);
}

void config_note(const Chosen& ch, Trace& tr) {
  const Config& c = ch.config;
  std::string s = ch.name + ": L " + n(c.L) + ", D " + n(c.D) + ", F " + n(c.F) + ", N " + n(c.N) +
                  ", K " + n(c.K) + ", H " + n(c.H) + ", V " + n(c.V);
  if (c.E > 0) s += ", E " + n(c.E) + ", k " + n(c.k);
  tr.note(s + ".");
}

// The figures a model's makers state, each beside what our formulas give for it.
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

double bytes_of(const Inputs& in, Text name) { return hw::dtype_bytes(in.text(name), name); }

// ------------------------------------------------------------------ transformers.accounting

void accounting_calc(const Inputs& in, Trace& tr, Result& r) {
  const Chosen ch = chosen_model(in);
  const Config& c = ch.config;
  const double T = in.num("T");
  const bool causal = in.text("causal") == "yes";
  const double b_kv = bytes_of(in, "dtype_kv");
  const double b_p = bytes_of(in, "dtype_params");
  const double tokens = in.num("tokens");
  config_note(ch, tr);

  const Params p = params(c);
  const double nd = dense_layers(c), nm = moe_layers(c);
  if (c.mla)
    tr.step("MLA projections per layer ($q_a$, $q_b$, $\\mathrm{kv}_a$, $\\mathrm{kv}_b$, $o$)",
            "D r_q + r_q N (h_n + h_r) + D (r_{kv} + h_r) + r_{kv} N (h_n + h_v) + N h_v D", "",
            mla_params(c.D, c.N, c.m), "count");
  else
    tr.step("Attention projections per layer", "2D(N + K)H", "2 \\cdot # \\cdot (# + #) \\cdot #",
            {c.D, c.N, c.K, c.H}, attention_params(c.D, c.N, c.K, c.H), "count");
  if (nd > 0)
    tr.step(std::string("MLP per dense layer (") + (c.gated ? "gated" : "plain") + ")",
            c.gated ? "3DF" : "2DF", c.gated ? "3 \\cdot # \\cdot #" : "2 \\cdot # \\cdot #",
            {c.D, c.F}, mlp_params(c.D, c.F, c.gated), "count");
  if (nm > 0) {
    const double Fe = c.F_e;
    const double one = mlp_params(c.D, Fe, c.gated);
    tr.step("Experts per MoE layer (all of them)", "(E + E_{shared}) \\cdot 3 D F_e",
            "(# + #) \\cdot #", {c.E, c.n_shared, one}, (c.E + c.n_shared) * one, "count");
    tr.step("Experts one token uses per MoE layer", "(k + E_{shared}) \\cdot 3 D F_e",
            "(# + #) \\cdot #", {c.k, c.n_shared, one}, (c.k + c.n_shared) * one, "count");
  }
  tr.step("Norms per layer", "n_{norm} D", "# \\cdot #", {c.norms_per_layer, c.D},
          norm_params(c.D, c.norms_per_layer), "count");
  tr.step(c.tied ? "Vocabulary (tied: one matrix)" : "Vocabulary (embedding and unembedding)",
          c.tied ? "DV" : "2DV", c.tied ? "# \\cdot #" : "2 \\cdot # \\cdot #", {c.D, c.V},
          vocab_params(c.D, c.V, c.tied), "count");
  tr.step("Total parameters",
          "P = \\sum_{layers} (\\text{attention} + \\text{MLP} + "
          "\\text{norms}) + \\text{vocabulary}",
          "", p.total, "count");
  if (c.E > 0) tr.step("Active parameters per token", "P_{active}", "", p.active, "count");

  // FLOPs per token: the matmul weights one token uses, 6 each to train, plus the attention core.
  const ModelFlops mf = model_flops(c, 1, T, Pass::Train, causal);
  const double per_token = mf.total / T;
  tr.step("Training FLOPs per token, matmuls", "6 P_{matmul}", "6 \\cdot #", {p.matmul_active},
          six_p_tokens(p.matmul_active, 1), "flop");
  tr.step(std::string("Training FLOPs per token, attention core at T") +
              (causal ? " (causal: half)" : ""),
          causal ? "6 T N (H_{qk} + H_v) L / 2" : "6 T N (H_{qk} + H_v) L", "", mf.core / T,
          "flop");
  tr.step("Training FLOPs per token", "6 P_{matmul} + \\text{attention core}", "# + #",
          {six_p_tokens(p.matmul_active, 1), mf.core / T}, per_token, "flop");
  const double kv = kv_bytes_per_token(c, b_kv);
  if (c.mla)
    tr.step("KV cache per token (MLA latent)", "L (r_{kv} + h_r) b", "# \\cdot (# + #) \\cdot #",
            {c.L, c.m.kv_lora_rank, c.m.qk_rope_head_dim, b_kv}, kv, "B");
  else
    tr.step("KV cache per token", "2 L K H b", "2 \\cdot # \\cdot # \\cdot # \\cdot #",
            {c.L, c.K, c.H, b_kv}, kv, "B");
  const double pb = param_bytes(p.total, b_p);
  const double gb = in.text("grads") == "yes" ? grad_bytes(p.total, b_p) : 0;
  const double ob = optimizer_bytes(p.total, in.num("optimizer_bytes"));
  tr.step("Parameter memory", "b_p P", "# \\cdot #", {b_p, p.total}, pb, "B");
  tr.step("Optimizer state (Adam: two fp32 moments, 8 bytes per parameter)", "b_{opt} P",
          "# \\cdot #", {in.num("optimizer_bytes"), p.total}, ob, "B");

  r.value("params_total", p.total, "count", "parameters, total");
  r.value("params_active", p.active, "count", "parameters one token uses");
  if (ch.entry && ch.entry->nominal > 0)
    r.value("nominal", ch.entry->nominal, "count", "nominal size (" + ch.entry->nominal_text + ")");
  r.value("attn", p.attn + p.attn_extra, "count", "attention (projections, biases, QK norms)");
  r.value("mlp", p.mlp + p.mlp_bias, "count", c.E > 0 ? "MLP (every expert)" : "MLP");
  if (c.E > 0) {
    r.value("mlp_active", p.mlp_active + p.mlp_bias_active, "count", "MLP one token uses");
    r.value("router", p.router + p.router_bias, "count", "routers");
  }
  r.value("norms", p.norms, "count", "norms");
  r.value("vocab", p.embed + p.unembed, "count", c.tied ? "vocabulary (tied)" : "vocabulary");
  if (p.mtp > 0) r.value("mtp", p.mtp, "count", "multi-token prediction (not counted)");
  r.value("flops_per_token", per_token, "flop", "training FLOPs per token at T");
  r.value("flops_per_token_forward", per_token / 3, "flop", "forward FLOPs per token at T");
  r.value("flops_6p", six_p_tokens(p.active, 1), "flop", "6 P per token (the rule of thumb)");
  r.value("attention_share", mf.core / mf.total, "ratio", "attention core's share of FLOPs");
  r.value("train_flops", per_token * tokens, "flop", "training FLOPs for the tokens");
  r.value("kv_bytes_per_token", kv, "B", "KV cache per token");
  r.value("param_bytes", pb, "B", "parameters in memory");
  if (gb > 0) r.value("grad_bytes", gb, "B", "gradients");
  r.value("optimizer_bytes", ob, "B", "optimizer state");
  r.value("memory_bytes", pb + gb + ob, "B", "parameters + gradients + optimizer");
  const hw::Chip& chip = hw::chip(in.text("chip"));
  const double hbm = chip.get("hbm_bytes", "chip");
  r.value("min_chips", std::ceil((pb + gb + ob) / hbm), "chips",
          "chips whose HBM holds that (" + chip.name + ")");

  // The breakdown a chart draws: parameters by component (total and active) and the training
  // FLOPs per token by component.
  json pbk = json::array();
  auto part = [&](const char* key, const char* label, double total, double active) {
    if (total > 0)
      pbk.push_back({{"key", key}, {"label", label}, {"total", total}, {"active", active}});
  };
  part("attn", "attention", p.attn + p.attn_extra, p.attn + p.attn_extra);
  part("mlp", c.E > 0 ? "MLP / experts" : "MLP", p.mlp + p.mlp_bias,
       p.mlp_active + p.mlp_bias_active);
  part("router", "routers", p.router + p.router_bias, p.router + p.router_bias);
  part("norms", "norms", p.norms, p.norms);
  part("embed", "embedding", p.embed, p.embed);
  part("unembed", c.tied ? "embedding = unembedding" : "unembedding", p.unembed, p.unembed);
  json fbk = json::array();
  LayerFlops sum;
  for (int dense = 0; dense < 2; ++dense) {
    const double count = dense ? nd : nm;
    if (count == 0) continue;
    const LayerFlops f = dense ? dense_layer_flops(c, 1, T, T, Pass::Train, causal)
                               : moe_layer_flops(c, 1, T, T, Pass::Train, causal);
    sum.mlp += count * f.mlp;
    sum.qkvo += count * f.qkvo;
    sum.router += count * f.router;
    sum.core += count * f.core;
  }
  auto fpart = [&](const char* key, const char* label, double v) {
    if (v > 0) fbk.push_back({{"key", key}, {"label", label}, {"per_token", v / T}});
  };
  fpart("qkvo", "attention projections", sum.qkvo);
  fpart("mlp", "MLP", sum.mlp);
  fpart("router", "routers", sum.router);
  fpart("core", "attention core", sum.core);
  fpart("unembed", "unembedding", mf.unembed);
  r.extra["breakdown"] = {{"params", std::move(pbk)}, {"flops", std::move(fbk)}};
  config_json(ch, r.extra);
  if (ch.entry) r.extra["published"] = published_json(*ch.entry);
  for (const std::string& s : conventions(c)) r.note(s);
}

constexpr std::array<Param, 8> kAccountingOwn = {
    num("T", "tokens", 4096, "context length T for the attention core's FLOPs", 1, 1e8, true),
    choice("causal", "no", "no|yes",
           "a causal kernel that skips the masked half of the attention core (the book does not)"),
    num("tokens", "tokens", 15e12, "training tokens (LLaMA 3: 15e12)", 1, 1e16),
    dtype_param("dtype_kv", "bf16", "element type of the KV cache"),
    dtype_param("dtype_params", "bf16", "element type of the parameters"),
    choice("grads", "no", "no|yes", "count a gradient buffer the size of the parameters"),
    zero_ok(
        num("optimizer_bytes", "B", 8, "optimizer bytes per parameter (Adam in fp32: 8)", 0, 64)),
    chip_param("v5p", "chip whose HBM holds the memory"),
};
constexpr auto kAccountingParams = join(kModelInput, kAccountingOwn);

// ------------------------------------------------------------------ transformers.context

// Roofline time of one MLP's forward matmuls for T tokens: the gated MLP's W_in1 and W_in2
// ([T, D] x [D, F]) and W_out ([T, F] x [F, D]), or the plain MLP's two.
double mlp_time(const Config& c, double T, double width, double b, double peak, double bw) {
  const roofline::OperandBytes ob{b, b, b};
  const roofline::MatmulCost in = roofline::matmul_cost({T, c.D, width}, ob);
  const roofline::MatmulCost out = roofline::matmul_cost({T, width, c.D}, ob);
  const double ins = c.gated ? 2 : 1;
  const double flops = ins * in.flops + out.flops, bytes = ins * in.bytes() + out.bytes();
  return roofline::t_lower(roofline::t_math(flops, peak), roofline::t_comms(bytes, bw));
}

// Roofline time of the attention core's forward pass for T queries against S keys: FLOPs over
// the peak against the bytes its intensity implies over HBM.
double core_time(const Config& c, double T, double S, double b, double peak, double bw) {
  const double flops =
      attention_core_flops(1, T, S, c.N, head_dim_qk(c), head_dim_v(c), Pass::Forward);
  const double bytes = flops / attention_intensity(T, S, c.N / c.K, b);
  return roofline::t_lower(roofline::t_math(flops, peak), roofline::t_comms(bytes, bw));
}

void context_calc(const Inputs& in, Trace& tr, Result& r) {
  const Chosen ch = chosen_model(in);
  const Config& c = ch.config;
  const double T = in.num("T");
  const bool causal = in.text("causal") == "yes";
  // A causal kernel does half of the attention core (attention_core_flops), so the crossover
  // moves out by 2.
  const double causal_factor = causal ? 2 : 1;
  const hw::Chip& chip = hw::chip(in.text("chip"));
  const std::string dt = in.text("dtype");
  const double b = hw::dtype_bytes(dt, "dtype");
  const double peak = chip.peak(dt, "dtype"), bw = chip.get("hbm_bw", "chip");
  const double G = c.N / c.K;
  config_note(ch, tr);

  const ModelFlops mf = model_flops(c, 1, T, Pass::Train, causal);
  const double rest = mf.layers - mf.core;
  const double ratio = tr.step("Attention core over the other matmuls of the layers at T",
                               "R(T) = \\frac{12 T^2 N H}{18 T D F + 12 T D (N + K) H}",
                               "\\frac{#}{#}", {mf.core, rest}, mf.core / rest, "ratio");
  const double t8d = tr.step("The book's rule: attention dominates past 8D", "T = 8D", "8 \\cdot #",
                             {c.D}, attention_crossover_book(c.D), "tokens");
  const double tx = tr.step(
      std::string("Exact crossover for this model") + (causal ? " (causal kernel: twice)" : ""),
      "T^* = \\frac{18 D F + 12 D H (N + K)}{12 N H}", "", attention_crossover(c) * causal_factor,
      "tokens");
  const double ip = tr.step("Attention intensity, prefill (S = T)", "\\frac{2 T S G}{b (T G + S)}",
                            "\\frac{2 \\cdot # \\cdot # \\cdot #}{# \\cdot (# \\cdot # + #)}",
                            {T, T, G, b, T, G, T}, attention_intensity(T, T, G, b), "flop_per_B");
  const double id =
      tr.step("Attention intensity, decoding one token against S = T keys",
              "\\frac{2 S G}{b (G + S)}", "\\frac{2 \\cdot # \\cdot #}{# \\cdot (# + #)}",
              {T, G, b, G, T}, attention_intensity(1, T, G, b), "flop_per_B");
  const double i_hw = tr.step("Critical intensity of the " + chip.name + " (" + dt + " vs HBM)",
                              "I_{hw} = \\mathrm{peak} / BW_{HBM}", "\\frac{#}{#}", {peak, bw},
                              roofline::critical_intensity(peak, bw), "flop_per_B");
  const double t_min =
      tr.step("Prefill is compute-bound once T exceeds", "\\frac{b}{2} I_{hw} \\frac{G + 1}{G}",
              "\\frac{#}{2} \\cdot # \\cdot \\frac{# + 1}{#}", {b, i_hw, G, G},
              attention_min_T_compute_bound(i_hw, G, b), "tokens");
  const double dec_lim = attention_decode_intensity_limit(G, b);
  const double width = mlp_width_per_token(c);
  const double t_ratio = core_time(c, T, T, b, peak, bw) / mlp_time(c, T, width, b, peak, bw);

  r.value("ratio", ratio, "ratio", "attention core / other matmuls at T");
  r.value("core_share", mf.core / mf.total, "ratio", "attention core's share of all FLOPs at T");
  r.value("crossover_8d", t8d, "tokens", "the book's 8D rule");
  r.value("crossover", tx, "tokens", "exact crossover T*");
  r.value("intensity_prefill", ip, "flop_per_B", "attention intensity, prefill at T");
  r.value("intensity_decode", id, "flop_per_B", "attention intensity, decode at S = T");
  r.value("i_hw", i_hw, "flop_per_B", "critical intensity of the chip");
  r.value("min_T_prefill", t_min, "tokens", "prefill compute-bound above");
  r.value("decode_limit", dec_lim, "flop_per_B", "decode intensity as S grows (2G/b)");
  r.value("time_ratio", t_ratio, "ratio", "attention time / MLP time, one prefill at T");
  r.extra["verdict"] = ratio > 1 ? "attention core dominates at T" : "the matmuls dominate at T";
  tr.note(dec_lim < i_hw
              ? "Decoding stays memory-bound: its intensity tends to $2G/b = " +
                    units::number(dec_lim) + "$, below $I_{hw} = " + units::number(i_hw) + "$."
              : "With $G$ this large even decoding can reach the chip's intensity.");
  if (moe_layers(c) > 0)
    r.note("The MLP time is that of one MLP as wide as the experts a token uses (" + n(width) +
           ", averaged over the layers); the weights of the other experts are not counted.");
  if (c.window_layers > 0)
    r.note("Sliding-window layers cap S at the window, which this count (full attention) ignores.");

  // Curves over T for the plot: from 128 tokens to well past both crossovers.
  const double hi = std::max({4 * tx, 4 * t8d, 2 * T, 4096.0});
  const double lo = 128;
  const int points = 64;
  json ts = json::array(), rs = json::array(), ips = json::array(), ids = json::array(),
       trs = json::array();
  for (int i = 0; i < points; ++i) {
    const double t = std::round(lo * std::pow(hi / lo, double(i) / (points - 1)));
    const ModelFlops f = model_flops(c, 1, t, Pass::Train, causal);
    ts.push_back(t);
    rs.push_back(f.core / (f.layers - f.core));
    ips.push_back(attention_intensity(t, t, G, b));
    ids.push_back(attention_intensity(1, t, G, b));
    trs.push_back(core_time(c, t, t, b, peak, bw) / mlp_time(c, t, width, b, peak, bw));
  }
  r.extra["curve"] = {{"T", std::move(ts)},
                      {"ratio", std::move(rs)},
                      {"intensity_prefill", std::move(ips)},
                      {"intensity_decode", std::move(ids)},
                      {"time_ratio", std::move(trs)}};
  const ModelFlops at8d = model_flops(c, 1, t8d, Pass::Train, causal);
  r.extra["markers"] = {{"T", T},
                        {"crossover", tx},
                        {"crossover_8d", t8d},
                        {"ratio_at_8d", at8d.core / (at8d.layers - at8d.core)},
                        {"i_hw", i_hw},
                        {"min_T_prefill", t_min}};
  config_json(ch, r.extra);
}

constexpr std::array<Param, 4> kContextOwn = {
    num("T", "tokens", 32768, "context length T (S = T: self-attention)", 1, 1e8, true),
    choice("causal", "no", "no|yes",
           "a causal kernel that skips the masked half of the attention core (the book does not)"),
    chip_param("v5e", "chip for the attention core's roofline"),
    dtype_param("dtype", "bf16", "element type of Q, K, V and of the compute"),
};
constexpr auto kContextParams = join(kModelInput, kContextOwn);

// ------------------------------------------------------------------ transformers.kv_cache

void kv_calc(const Inputs& in, Trace& tr, Result& r) {
  Chosen ch = chosen_model(in);
  // A window set here applies to every layer unless window_layers says how many.
  if (in.num("window") > 0) {
    ch.config.window = in.num("window");
    if (in.num("window_layers") == 0 && ch.config.window_layers == 0)
      ch.config.window_layers = ch.config.L;
  }
  if (in.num("window_layers") > 0) ch.config.window_layers = in.num("window_layers");
  ch.config = validated(ch.config);
  const Config& c = ch.config;
  const double S = in.num("S"), B = in.num("B");
  const std::string dt = in.text("dtype");
  const double b = hw::dtype_bytes(dt, "dtype");
  const hw::Chip& chip = hw::chip(in.text("chip"));
  config_note(ch, tr);

  double per_token;
  if (c.mla)
    per_token =
        tr.step("Bytes per token, every layer (MLA: the latent and the RoPE key)",
                "L (r_{kv} + h_r) b", "# \\cdot (# + #) \\cdot #",
                {c.L, c.m.kv_lora_rank, c.m.qk_rope_head_dim, b}, kv_bytes_per_token(c, b), "B");
  else
    per_token = tr.step("Bytes per token, every layer: a key and a value per KV head", "2 L K H b",
                        "2 \\cdot # \\cdot # \\cdot # \\cdot #", {c.L, c.K, c.H, b},
                        kv_bytes_per_token(c, b), "B");
  double seq;
  if (c.window_layers > 0)
    seq = tr.step("One sequence: full layers keep S tokens, window layers min(S, window)",
                  "\\frac{\\text{per token}}{L} ((L - L_w) S + L_w \\min(S, w))",
                  "\\frac{#}{#} \\cdot ((# - #) \\cdot # + # \\cdot \\min(#, #))",
                  {per_token, c.L, c.L, c.window_layers, S, c.window_layers, S, c.window},
                  kv_bytes_per_sequence(c, S, b), "B");
  else
    seq = tr.step("One sequence of S tokens", "S \\cdot \\text{per token}", "# \\cdot #",
                  {S, per_token}, kv_bytes_per_sequence(c, S, b), "B");
  const double batch = tr.step("A batch of B sequences", "B \\cdot \\text{sequence}", "# \\cdot #",
                               {B, seq}, kv_bytes_per_batch(c, B, S, b), "B");
  const Params p = params(c);
  const double weights = param_bytes(p.total, bytes_of(in, "dtype_params"));
  const double hbm = chip.get("hbm_bytes", "chip");
  const double left = hbm - weights;
  const double fit = left > 0 ? std::floor(left / seq) : 0;

  r.value("per_token", per_token, "B", "per token (every layer)");
  r.value("per_token_at_S", seq / S, "B", "per token, averaged over S");
  r.value("per_sequence", seq, "B", "one sequence of S tokens");
  r.value("per_batch", batch, "B", "the batch");
  if (!c.mla && c.K != c.N) {
    Config mha = c;
    mha.K = c.N;
    const double full = kv_bytes_per_token(mha, b);
    r.value("per_token_mha", full, "B", "per token with K = N (MHA)");
    r.value("gqa_saving", full / per_token, "ratio", "MHA bytes / these bytes");
  }
  r.value("weights", weights, "B", "weights");
  r.value("hbm", hbm, "B", "HBM of one " + chip.name);
  r.value("sequences_fit", fit, "count", "sequences of S that fit beside the weights");
  r.value("batch_fits", weights + batch <= hbm ? 1 : 0, "bool", "weights + batch fit on one chip");
  if (left <= 0)
    r.note("The weights alone (" + units::format(weights, "B") + ") exceed one " + chip.name +
           "'s HBM (" + units::format(hbm, "B") + "): they need " +
           units::number(std::ceil(weights / hbm)) + " chips before any KV cache.");
  if (c.window_layers > 0)
    r.note(n(c.window_layers) + " of " + n(c.L) + " layers keep at most " + n(c.window) +
           " tokens: above that the cache grows by fewer bytes per token.");
  r.extra["verdict"] =
      weights + batch <= hbm ? "fits on one " + chip.name : "does not fit on one " + chip.name;
  // Bytes per sequence against S for the page's plot.
  json ss = json::array(), bs = json::array();
  const double lo = std::min(128.0, S), hi = std::max({4 * S, 4 * c.window, 32 * lo});
  for (int i = 0; i < 48; ++i) {
    const double s = std::round(lo * std::pow(hi / lo, i / 47.0));
    ss.push_back(s);
    bs.push_back(kv_bytes_per_sequence(c, s, b));
  }
  r.extra["curve"] = {{"S", std::move(ss)}, {"bytes", std::move(bs)}};
  config_json(ch, r.extra);
}

constexpr std::array<Param, 7> kKvOwn = {
    num("S", "tokens", 8192, "tokens in each sequence's cache", 1, 1e9, true),
    num("B", "count", 1, "sequences in the batch", 1, 1e7, true),
    dtype_param("dtype", "bf16", "element type of the cache (int8: 1 byte)"),
    zero_ok(num("window", "tokens", 0, "sliding window in tokens (0: the model's)", 0, 1e9, true)),
    model_field("window_layers", "layers that use the window (0: the model's, else every layer)",
                1e4),
    chip_param("v5e", "chip whose HBM holds the weights and the cache"),
    dtype_param("dtype_params", "bf16", "element type of the weights"),
};
constexpr auto kKvParams = join(kModelInput, kKvOwn);

// ------------------------------------------------------------------ transformers.activations

Remat policy_of(const std::string& s) {
  if (s == "save_all") return Remat::SaveAll;
  if (s == "big_matmuls") return Remat::BigMatmuls;
  return Remat::Block;
}

void activations_calc(const Inputs& in, Trace& tr, Result& r) {
  const Chosen ch = chosen_model(in);
  const Config& c = ch.config;
  const double tokens = in.num("tokens"), T = in.num("T");
  if (T > tokens)
    fail("T", "T (tokens per sequence) cannot exceed the tokens per batch", "out_of_range");
  const std::string pol = in.text("policy");
  const double b = bytes_of(in, "dtype_act"), b_p = bytes_of(in, "dtype_params");
  const hw::Chip& chip = hw::chip(in.text("chip"));
  config_note(ch, tr);

  double arrays;
  if (pol == "custom")
    arrays = in.num("c");
  else if (pol == "exact")
    arrays = tr.step(
        "Saved elements per token per layer ($Q$, $K$, $V$, $O$, $W_{in1}$, $W_{in2}$, $W_{out}$) "
        "over $D$",
        "\\frac{NH + 2KH + D + 2F + D}{D}", "\\frac{#}{#}", {saved_elems_per_token_layer(c), c.D},
        saved_elems_per_token_layer(c) / c.D, "ratio");
  else
    arrays = saved_arrays_per_layer(policy_of(pol));
  const double act = tr.step("Saved activations", "M = b \\cdot c \\cdot (BT) \\cdot D \\cdot L",
                             "# \\cdot # \\cdot # \\cdot # \\cdot #", {b, arrays, tokens, c.D, c.L},
                             activation_bytes(tokens, c.D, c.L, arrays, b), "B");
  const Params p = params(c);
  const double pb =
      tr.step("Parameters", "b_p P", "# \\cdot #", {b_p, p.total}, param_bytes(p.total, b_p), "B");
  const double ob =
      tr.step("Optimizer state", "b_{opt} P", "# \\cdot #", {in.num("optimizer_bytes"), p.total},
              optimizer_bytes(p.total, in.num("optimizer_bytes")), "B");
  const double gb = in.text("grads") == "yes" ? grad_bytes(p.total, b_p) : 0;
  const double total = pb + ob + gb + act;
  const double hbm = chip.get("hbm_bytes", "chip");
  const double chips = std::ceil(total / hbm);
  tr.step("Chips whose HBM holds it all", "\\lceil M_{total} / HBM \\rceil",
          "\\lceil # / # \\rceil", {total, hbm}, chips, "chips");

  // FLOPs: block remat replays the forward pass (8 per parameter per token); saving the big
  // matmul outputs recomputes only the attention core's QK^T and PV (Q6).
  const Remat flops_policy = pol == "block" ? Remat::Block : Remat::SaveAll;
  const double per_param = remat_flops_per_param_token(flops_policy);
  const double step_flops = six_p_tokens(p.matmul_active, tokens, per_param);
  const double seqs = tokens / T;
  const double recompute = pol == "big_matmuls" || pol == "exact"
                               ? c.L * big_matmuls_recompute_flops(seqs, T, c.N, head_dim_qk(c))
                               : 0;
  if (recompute > 0)
    tr.step("Recomputed in the backward pass: $QK^T$ and $PV$ again per layer",
            "L \\cdot 4 B T^2 N H", "# \\cdot 4 \\cdot # \\cdot #^2 \\cdot # \\cdot #",
            {c.L, seqs, T, c.N, head_dim_qk(c)}, recompute, "flop");

  r.value("arrays_per_layer", arrays, "ratio", "[B,T,D]-sized arrays saved per layer");
  r.value("activation_bytes", act, "B", "saved activations");
  r.value("param_bytes", pb, "B", "parameters");
  if (gb > 0) r.value("grad_bytes", gb, "B", "gradients");
  r.value("optimizer_bytes", ob, "B", "optimizer state");
  r.value("total_bytes", total, "B", "total");
  r.value("min_chips", chips, "chips", "chips whose HBM holds it (" + chip.name + ")");
  r.value("bytes_per_chip", total / chips, "B", "per chip on those chips");
  r.value("flops_per_param_token", per_param, "ratio", "FLOPs per parameter per token");
  r.value("recompute_flops", recompute, "flop", "attention recomputed per step");
  r.value("step_flops", step_flops + recompute, "flop", "matmul FLOPs per step with remat");

  json bars = json::array();
  bars.push_back({{"key", "params"}, {"label", "parameters"}, {"bytes", pb}});
  bars.push_back({{"key", "optimizer"}, {"label", "optimizer state"}, {"bytes", ob}});
  if (gb > 0) bars.push_back({{"key", "grads"}, {"label", "gradients"}, {"bytes", gb}});
  bars.push_back({{"key", "activations"}, {"label", "saved activations"}, {"bytes", act}});
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
  r.extra["hbm"] = hbm;
  config_json(ch, r.extra);
}

constexpr std::array<Param, 9> kActivationsOwn = {
    num("tokens", "tokens", 4e6, "tokens per batch B T (the book's example: 4M)", 1, 1e12),
    num("T", "tokens", 4096, "tokens per sequence T (for the attention recompute)", 1, 1e8, true),
    choice("policy", "block", "save_all|big_matmuls|block|exact|custom",
           "what the backward pass keeps: every intermediate (about 20 arrays per layer), the 7 "
           "big matmul outputs, each block's input (1), the big outputs at their exact shapes, or "
           "c arrays"),
    num("c", "count", 4, "arrays per layer for the custom policy", 0.001, 1000),
    dtype_param("dtype_act", "bf16", "element type of the saved activations"),
    dtype_param("dtype_params", "bf16", "element type of the parameters"),
    choice("grads", "no", "no|yes", "count a gradient buffer the size of the parameters"),
    zero_ok(
        num("optimizer_bytes", "B", 8, "optimizer bytes per parameter (Adam in fp32: 8)", 0, 64)),
    chip_param("v5p", "chip whose HBM holds it all"),
};
constexpr auto kActivationsParams = join(kModelInput, kActivationsOwn);

// ------------------------------------------------------------------ transformers.models

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
  json row = {{"id", m.id},
              {"name", m.name},
              {"config_source", m.config_source},
              {"config", std::move(cfg)},
              {"config_keys", std::move(keys)},
              {"nominal", m.nominal},
              {"nominal_text", m.nominal_text},
              {"params_total", p.total},
              {"params_active", p.active},
              {"params_embedding", p.embed + p.unembed},
              {"kv_bytes_per_token", kv_bytes_per_token(c, b)},
              {"kv_bytes_per_token_at_T", kv_bytes_per_token(c, b, T)},
              {"flops_per_token", train_flops_per_token(c, T)},
              {"flops_6p", six_p_tokens(p.active, 1)},
              {"crossover", attention_crossover(c)},
              {"published", published_json(m)},
              {"conventions", std::move(conv)},
              {"notes", std::move(notes)}};
  if (p.mtp > 0) row["params_mtp"] = p.mtp;
  // How far the name's size is from the count: a large gap means a component the name leaves out.
  if (m.nominal > 0) row["total_over_nominal"] = p.total / m.nominal;
  return row;
}

void models_calc(const Inputs& in, Trace& tr, Result& r) {
  const double b = bytes_of(in, "dtype_kv");
  const double T = in.num("T");
  json rows = json::array();
  // The plain table `scaling models` prints, the header first.
  json table = json::array({{"model", "nominal", "params", "active", "KV B/token"}});
  for (const ModelEntry& m : models()) {
    json row = model_row(m, b, T);
    table.push_back({m.id, m.nominal_text, units::number(row["params_total"].get<double>()),
                     units::number(row["params_active"].get<double>()),
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

constexpr Param kModelsParams[] = {
    dtype_param("dtype_kv", "bf16", "element type of the KV cache"),
    num("T", "tokens", 8192, "context for the FLOPs per token and the windowed KV bytes", 1, 1e8,
        true),
};

constexpr Calculator kCalculators[] = {
    Calculator{
        .name = "transformers.accounting",
        .title = "Transformer accounting",
        .doc = "A model from the table or a configuration of your own: parameters by component, "
               "total and active, training FLOPs per token and where they go, KV bytes per token, "
               "and the memory of parameters, gradients and optimizer state.",
        .params = kAccountingParams,
        .run = accounting_calc},
    Calculator{
        .name = "transformers.context",
        .title = "Context length: attention against the matmuls",
        .doc = "How the attention core's FLOPs grow with the context T against the other matmuls "
               "(the book's 8D rule and this model's exact crossover), and the attention core's "
               "arithmetic intensity for prefill and decoding against the chip.",
        .params = kContextParams,
        .run = context_calc},
    Calculator{.name = "transformers.kv_cache",
               .title = "KV-cache sizer",
               .doc = "Bytes of the KV cache per token, per sequence and per batch for any element "
                      "type, with GQA, sliding windows and MLA as the model has them, and how many "
                      "sequences fit beside the weights on one chip.",
               .params = kKvParams,
               .run = kv_calc},
    Calculator{
        .name = "transformers.activations",
        .title = "Saved activations and rematerialisation",
        .doc = "What a training step keeps for the backward pass under each remat policy, beside "
               "the parameters and optimizer state; the FLOPs each policy costs; the chips whose "
               "HBM holds it all.",
        .params = kActivationsParams,
        .run = activations_calc},
    Calculator{.name = "transformers.models",
               .title = "The model table",
               .doc = "The book's models and popular open ones: each configuration with its "
                      "source, and what the chapter's formulas derive from it.",
               .params = kModelsParams,
               .run = models_calc,
               .command = "models"},
};

}  // namespace

void add_calculators(Registry& r) { r.add(kCalculators); }

}  // namespace sb::transformers
