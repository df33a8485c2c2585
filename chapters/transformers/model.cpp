// Part 4: the equations of model.hpp. validated() checks a configuration once; the counting and
// FLOPs functions then only do arithmetic.
#include "chapters/transformers/model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "chapters/roofline/model.hpp"
#include "core/error.hpp"

namespace sb::transformers {

namespace {

// Sizes above this are not a model (and keep every product far from overflow).
constexpr double kMaxSize = 1e12;

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

// A whole number >= lo (and finite, below kMaxSize); InputError naming the field otherwise.
void whole(double v, std::string_view field, double lo) {
  if (!std::isfinite(v) || v != std::floor(v) || v < lo || v > kMaxSize)
    fail(field,
         std::string(field) + " must be a whole number " +
             (lo > 0 ? "of at least " + number_text(lo) : std::string("of 0 or more")) + " (got " +
             number_text(v) + ")",
         "out_of_range");
}

double mats(bool gated) { return gated ? 3 : 2; }

double expert_width(const Config& c) { return c.F_e > 0 ? c.F_e : c.F; }

// The feed-forward widths: F, and for MoE the expert count, top-k and expert width F_e.
void validate_ffn(Config& c) {
  whole(c.E, "E", 0);
  whole(c.n_dense, "n_dense", 0);
  whole(c.F_e, "F_e", 0);
  if (c.E > 0) {
    whole(c.k, "k", 1);
    whole(c.n_shared, "n_shared", 0);
    if (c.k > c.E)
      fail("k",
           "k (experts per token) cannot exceed E (experts): " + number_text(c.k) + " > " +
               number_text(c.E),
           "out_of_range");
    if (c.n_dense > c.L)
      fail("n_dense", "n_dense (dense first layers) cannot exceed L", "out_of_range");
  }
  // A dense layer needs F; an MoE model without dense layers may use F_e alone. Experts given
  // no width of their own are as wide as F.
  if (c.E == 0 || c.n_dense > 0 || c.F_e == 0)
    whole(c.F, "F", 1);
  else
    whole(c.F, "F", 0);
  if (c.E > 0 && c.F_e == 0) c.F_e = c.F;
}

// MLA's low-rank projections; H, when not given, is the value head dim.
void validate_mla(Config& c) {
  whole(c.m.q_lora_rank, "q_lora_rank", 0);
  whole(c.m.kv_lora_rank, "kv_lora_rank", 1);
  whole(c.m.qk_nope_head_dim, "qk_nope_head_dim", 0);
  whole(c.m.qk_rope_head_dim, "qk_rope_head_dim", 0);
  whole(c.m.v_head_dim, "v_head_dim", 1);
  if (c.m.qk_nope_head_dim + c.m.qk_rope_head_dim < 1)
    fail("qk_nope_head_dim", "MLA needs a query/key head dim (qk_nope + qk_rope) of at least 1",
         "out_of_range");
  if (c.H == 0) c.H = c.m.v_head_dim;
}

}  // namespace

// ------------------------------------------------------------------ configuration

Config validated(Config c) {
  whole(c.L, "L", 1);
  whole(c.D, "D", 1);
  whole(c.N, "N", 1);
  whole(c.K, "K", 1);
  whole(c.V, "V", 0);
  whole(c.H, "H", 0);
  whole(c.norms_per_layer, "norms_per_layer", 0);
  if (std::fmod(c.N, c.K) != 0)
    fail("K",
         "K (KV heads) must divide N (query heads): " + number_text(c.N) + " query heads cannot " +
             "be grouped over " + number_text(c.K) + " KV heads",
         "out_of_range");
  if (c.H == 0 && !c.mla) {
    if (std::fmod(c.D, c.N) != 0)
      fail("N",
           "N (query heads) must divide D when the head dim H is not given (H = D/N): " +
               number_text(c.D) + " is not a multiple of " + number_text(c.N),
           "out_of_range");
    c.H = c.D / c.N;
  }
  validate_ffn(c);
  if (c.mla) validate_mla(c);
  whole(c.window, "window", 0);
  whole(c.window_layers, "window_layers", 0);
  if (c.window_layers > c.L) fail("window_layers", "window_layers cannot exceed L", "out_of_range");
  if (c.window_layers > 0 && c.window < 1)
    fail("window", "sliding-window layers need a window of at least 1 token", "out_of_range");
  whole(c.mtp_layers, "mtp_layers", 0);
  return c;
}

double head_dim_qk(const Config& c) {
  return c.mla ? c.m.qk_nope_head_dim + c.m.qk_rope_head_dim : c.H;
}
double head_dim_v(const Config& c) { return c.mla ? c.m.v_head_dim : c.H; }

// ------------------------------------------------------------------ A.3 parameter counts

double mlp_params(double D, double F, bool gated) { return mats(gated) * D * F; }
double attention_params(double D, double N, double K, double H) { return 2 * D * (N + K) * H; }
double norm_params(double D, double count) { return count * D; }
double vocab_params(double D, double V, bool tied) { return (tied ? 1 : 2) * D * V; }

double book_params(double L, double D, double F, double N, double K, double H, double V,
                   double norms_per_layer) {
  return L * (mlp_params(D, F, true) + attention_params(D, N, K, H) +
              norm_params(D, norms_per_layer)) +
         vocab_params(D, V, false);
}

double mla_params(double D, double N, const Mla& m) {
  const double qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
  const double q = m.q_lora_rank > 0 ? D * m.q_lora_rank + m.q_lora_rank * N * qk : D * N * qk;
  const double kv_a = D * (m.kv_lora_rank + m.qk_rope_head_dim);
  const double kv_b = m.kv_lora_rank * N * (m.qk_nope_head_dim + m.v_head_dim);
  const double o = N * m.v_head_dim * D;
  return q + kv_a + kv_b + o;
}

double router_params(double D, double E) { return D * E; }

double moe_mlp_params(double experts, double n_shared, double D, double F_e, bool gated) {
  return (experts + n_shared) * mlp_params(D, F_e, gated);
}

double attention_share_of_layer(double attn, double mlp) { return attn / (attn + mlp); }
double attention_share_of_model(double L, double attn, double P) { return L * attn / P; }

namespace {

// What dense and MoE layers share: attention and norms.
LayerParams attention_and_norms(const Config& c) {
  LayerParams p;
  p.attn = c.mla ? mla_params(c.D, c.N, c.m) : attention_params(c.D, c.N, c.K, c.H);
  if (c.qkv_bias) p.attn_extra += (c.N + 2 * c.K) * c.H;
  if (c.o_bias) p.attn_extra += c.D;
  if (c.attn_sinks) p.attn_extra += c.N;
  if (c.qk_norm) p.attn_extra += 2 * c.H;
  p.norms = norm_params(c.D, c.norms_per_layer);
  if (c.mla) p.norms += c.m.q_lora_rank + c.m.kv_lora_rank;
  return p;
}

double mlp_bias_params(double D, double F, bool gated) { return (mats(gated) - 1) * F + D; }

}  // namespace

LayerParams dense_layer_params(const Config& c) {
  LayerParams p = attention_and_norms(c);
  p.mlp = p.mlp_active = mlp_params(c.D, c.F, c.gated);
  if (c.mlp_bias) p.mlp_bias = p.mlp_bias_active = mlp_bias_params(c.D, c.F, c.gated);
  return p;
}

LayerParams moe_layer_params(const Config& c) {
  LayerParams p = attention_and_norms(c);
  const double Fe = expert_width(c);
  p.mlp = moe_mlp_params(c.E, c.n_shared, c.D, Fe, c.gated);
  p.mlp_active = moe_mlp_params(c.k, c.n_shared, c.D, Fe, c.gated);
  if (c.mlp_bias) {
    const double b = mlp_bias_params(c.D, Fe, c.gated);
    p.mlp_bias = (c.E + c.n_shared) * b;
    p.mlp_bias_active = (c.k + c.n_shared) * b;
  }
  p.router = router_params(c.D, c.E);
  if (c.router_bias) p.router_bias = c.E;
  return p;
}

double dense_layers(const Config& c) { return c.E > 0 ? c.n_dense : c.L; }
double moe_layers(const Config& c) { return c.E > 0 ? c.L - c.n_dense : 0; }

double mlp_width_per_token(const Config& c) {
  return (dense_layers(c) * c.F + moe_layers(c) * (c.k + c.n_shared) * expert_width(c)) / c.L;
}

Params params(const Config& c) {
  const double nd = dense_layers(c), nm = moe_layers(c);
  LayerParams d = nd > 0 ? dense_layer_params(c) : LayerParams{};
  LayerParams m = nm > 0 ? moe_layer_params(c) : LayerParams{};
  Params p;
  p.attn = nd * d.attn + nm * m.attn;
  p.attn_extra = nd * d.attn_extra + nm * m.attn_extra;
  p.mlp = nd * d.mlp + nm * m.mlp;
  p.mlp_active = nd * d.mlp_active + nm * m.mlp_active;
  p.mlp_bias = nd * d.mlp_bias + nm * m.mlp_bias;
  p.mlp_bias_active = nd * d.mlp_bias_active + nm * m.mlp_bias_active;
  p.router = nd * d.router + nm * m.router;
  p.router_bias = nd * d.router_bias + nm * m.router_bias;
  p.norms = nd * d.norms + nm * m.norms + (c.final_norm ? norm_params(c.D, 1) : 0);
  p.embed = c.tied ? 0 : c.V * c.D;
  p.unembed = c.D * c.V;
  const double shared =
      p.attn + p.attn_extra + p.router + p.router_bias + p.norms + p.embed + p.unembed;
  p.total = shared + p.mlp + p.mlp_bias;
  p.active = shared + p.mlp_active + p.mlp_bias_active;
  p.matmul = p.attn + p.mlp + p.router + p.unembed;
  p.matmul_active = p.attn + p.mlp_active + p.router + p.unembed;
  p.mtp = c.mtp_layers * mtp_params(c);
  return p;
}

double mtp_params(const Config& c) {
  const LayerParams block = moe_layers(c) > 0 ? moe_layer_params(c) : dense_layer_params(c);
  return block.total() + 2 * c.D * c.D + norm_params(c.D, 3);
}

// ------------------------------------------------------------------ A.1, A.2

Einsum einsum_flops(std::string_view lhs, std::string_view rhs, std::string_view out,
                    const std::vector<std::pair<char, double>>& sizes, std::string_view field) {
  auto has = [](std::string_view s, char c) { return s.find(c) != std::string_view::npos; };
  auto size_of = [&](char c) {
    for (const auto& [label, n] : sizes)
      if (label == c) {
        if (!std::isfinite(n) || n < 1 || n > kMaxSize)
          fail(field, std::string("axis ") + c + " must have a size of at least 1", "out_of_range");
        return n;
      }
    fail(field, std::string("axis ") + c + " has no size", "bad_input");
  };
  for (char c : out)
    if (!has(lhs, c) && !has(rhs, c))
      fail(field, std::string("output axis ") + c + " is on neither input", "bad_input");
  Einsum e;
  std::string seen;
  double product = 1;
  for (std::string_view side : {lhs, rhs})
    for (char c : side) {
      if (has(seen, c)) continue;
      seen.push_back(c);
      product *= size_of(c);
      const bool both = has(lhs, c) && has(rhs, c);
      if (both && has(out, c))
        e.batching.push_back(c);
      else if (both)
        e.contracting.push_back(c);
      else
        e.free.push_back(c);
    }
  e.flops = (e.contracting.empty() ? 1 : 2) * product;
  return e;
}

double flops_per_param_token(Pass p) {
  switch (p) {
    case Pass::Forward:
      return 2;
    case Pass::Backward:
      return 4;
    case Pass::Train:
      return 6;
  }
  return 0;
}

double matmul_flops(double N, double P, double M, Pass p) {
  // The forward product is the roofline chapter's 2NPM; the backward pass does two more.
  return roofline::matmul_flops({N, P, M}) * flops_per_param_token(p) / 2;
}

double train_over_forward(double train_flops, double forward_flops) {
  return train_flops / forward_flops;
}
double flops_per_param_per_token(double flops, double P, double M, double N) {
  return flops / (P * M * N);
}

double flops_per_device(double global_flops, double shards) { return global_flops / shards; }
double device_share(double X, double Y) { return flops_per_device(1, X * Y); }
double mesh_share(double share, double X, double Y, double Z) { return share * X * Y * Z; }

// ------------------------------------------------------------------ A.4, A.5

double attention_core_flops(double B, double T, double S, double N, double H_qk, double H_v, Pass p,
                            bool causal) {
  // QK^T contracts H_qk, PV contracts S into H_v: 2BTSN(H_qk + H_v) forward.
  const double fwd = 2 * B * T * S * N * (H_qk + H_v);
  return fwd * flops_per_param_token(p) / 2 * (causal ? 0.5 : 1);
}

double core_flops_per_token(double L, double T, double N, double H_qk, double H_v, bool causal) {
  // One query token against T keys, in each layer.
  return L * attention_core_flops(1, 1, T, N, H_qk, H_v, Pass::Train, causal);
}

namespace {

LayerFlops layer_flops(const Config& c, const LayerParams& lp, double B, double T, double S, Pass p,
                       bool causal) {
  const double per_token = flops_per_param_token(p) * B * T;
  LayerFlops f;
  f.mlp = per_token * lp.mlp_active;
  f.qkvo = per_token * lp.attn;
  f.router = per_token * lp.router;
  f.core = attention_core_flops(B, T, S, c.N, head_dim_qk(c), head_dim_v(c), p, causal);
  return f;
}

}  // namespace

LayerFlops dense_layer_flops(const Config& c, double B, double T, double S, Pass p, bool causal) {
  return layer_flops(c, dense_layer_params(c), B, T, S, p, causal);
}

LayerFlops moe_layer_flops(const Config& c, double B, double T, double S, Pass p, bool causal) {
  return layer_flops(c, moe_layer_params(c), B, T, S, p, causal);
}

ModelFlops model_flops(const Config& c, double B, double T, Pass p, bool causal,
                       bool embed_as_matmul) {
  ModelFlops m;
  const double nd = dense_layers(c), nm = moe_layers(c);
  if (nd > 0) {
    const LayerFlops d = dense_layer_flops(c, B, T, T, p, causal);
    m.layers += nd * d.total();
    m.core += nd * d.core;
  }
  if (nm > 0) {
    const LayerFlops e = moe_layer_flops(c, B, T, T, p, causal);
    m.layers += nm * e.total();
    m.core += nm * e.core;
  }
  m.unembed = flops_per_param_token(p) * B * T * c.D * c.V;
  m.embed = embed_as_matmul ? m.unembed : 0;
  m.total = m.layers + m.unembed + m.embed;
  return m;
}

double train_flops_per_token(const Config& c, double T, bool causal, bool embed_as_matmul) {
  return model_flops(c, 1, T, Pass::Train, causal, embed_as_matmul).total / T;
}

double six_p_tokens(double params, double tokens, double per_param_token) {
  return per_param_token * params * tokens;
}

double rest_flops_per_token(const Config& c) {
  double rest = 0;
  if (dense_layers(c) > 0) rest += dense_layers(c) * dense_layer_params(c).matmul_active();
  if (moe_layers(c) > 0) rest += moe_layers(c) * moe_layer_params(c).matmul_active();
  return six_p_tokens(rest, 1);
}

double attention_flops_ratio(double core_per_token, double rest_per_token) {
  return core_per_token / rest_per_token;
}

double attention_flops_ratio(const Config& c, double T, bool causal) {
  return attention_flops_ratio(
      core_flops_per_token(c.L, T, c.N, head_dim_qk(c), head_dim_v(c), causal),
      rest_flops_per_token(c));
}

double attention_flops_ratio_book(double T, double D) { return T / attention_crossover_book(D); }

double attention_crossover_book(double D) { return 8 * D; }

double attention_crossover(double rest_per_token, double L, double N, double H_qk, double H_v,
                           bool causal) {
  return rest_per_token / core_flops_per_token(L, 1, N, H_qk, H_v, causal);
}

double attention_crossover(const Config& c, bool causal) {
  return attention_crossover(rest_flops_per_token(c), c.L, c.N, head_dim_qk(c), head_dim_v(c),
                             causal);
}

double attention_crossover_dense(double D, double F, double N, double K, double H) {
  Config c;  // one dense layer of the book's plain transformer
  c.L = 1;
  c.D = D;
  c.F = F;
  c.N = N;
  c.K = K;
  c.H = H;
  return attention_crossover(c);
}

double attention_vs_projections_crossover(double D, double N, double K) { return D * (N + K) / N; }

}  // namespace sb::transformers
