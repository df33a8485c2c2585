// The costs of costs.hpp: a real model's layer per token, and its terms on a layout.
#include "chapters/training/costs.hpp"

#include <cmath>
#include <numeric>
#include <string>

#include "core/units.hpp"

namespace sb::training {

namespace tf = transformers;

std::string layer_words(const LayerChoice& c) {
  if (c.full)
    return "Layer model: the whole layer (attention projections, the attention core at " +
           units::number(c.seq_len, 6) +
           " tokens with no causal discount, the model's own MLP, and the output matmul spread "
           "over the layers). Left out: norms, softmax and other elementwise work, the optimizer "
           "update, and the input embedding (a look-up, not a matmul).";
  return std::string("Layer model: the MLP alone, as the chapter times it, with ") +
         (c.book_mlp ? "the chapter's 2 matrices" : "the model's own matrices (3 when gated)") +
         ". Left out of the time: attention (projections and core), the embeddings and the output "
         "matmul, norms, elementwise work and the optimizer update; the memory counts every "
         "parameter.";
}

int remat_index(tf::Remat r) {
  for (int i = 0; i < kRemats; ++i)
    if (kRematOrder[i] == r) return i;
  return 0;
}

const char* remat_label(tf::Remat r) {
  switch (r) {
    case tf::Remat::BigMatmuls:
      return "save the big matmuls' outputs";
    case tf::Remat::SaveAll:
      return "save every activation";
    case tf::Remat::Block:
      return "block remat (replay the forward pass)";
  }
  return "?";
}

namespace {

// The MLP alone: the dense layers' and the MoE layers' (the experts a token uses for the FLOPs,
// every expert for the weights), averaged over the stack.
void mlp_costs(const tf::Config& c, const LayerChoice& ch, LayerCosts& x) {
  const double n = ch.book_mlp ? 2 : (c.gated ? 3 : 2);
  const double nd = tf::dense_layers(c), nm = tf::moe_layers(c);
  const double Fe = c.F_e > 0 ? c.F_e : c.F;
  const double dense = n * c.D * c.F;
  const double active = (nd * dense + nm * n * c.D * (c.k + c.n_shared) * Fe) / c.L;
  const double stored = (nd * dense + nm * n * c.D * (c.E + c.n_shared) * Fe) / c.L;
  x.flops = tf::flops_per_param_token(tf::Pass::Forward) * active;
  x.w_bytes = tf::param_bytes(stored);
  x.w_expert = tf::param_bytes(nm * n * c.D * c.E * Fe / c.L);
  x.tp_blocks = 1;
  x.act[0] = checkpoint_bytes(layer_of(c, ch.book_mlp), 1, 1);
}

// The whole layer: attention and MLP weights as the transformers chapter counts them, the core at
// the sequence length, and the output matmul shared out over the layers.
void full_costs(const tf::Config& c, const LayerChoice& ch, LayerCosts& x) {
  const double nd = tf::dense_layers(c), nm = tf::moe_layers(c);
  const tf::LayerParams d = nd > 0 ? tf::dense_layer_params(c) : tf::LayerParams{};
  const tf::LayerParams e = nm > 0 ? tf::moe_layer_params(c) : tf::LayerParams{};
  const double active = (nd * d.matmul_active() + nm * e.matmul_active()) / c.L;
  const double stored = (nd * d.total() + nm * e.total()) / c.L;
  const double head = c.D * c.V / c.L;  // the unembedding, a share per layer
  const double core = ch.seq_len > 0
                          ? tf::attention_core_flops(1, 1, ch.seq_len, c.N, tf::head_dim_qk(c),
                                                     tf::head_dim_v(c), tf::Pass::Forward)
                          : 0;
  const double fwd = tf::flops_per_param_token(tf::Pass::Forward);
  x.flops = fwd * (active + head) + core;
  x.w_bytes = tf::param_bytes(stored + head);
  x.w_expert =
      tf::param_bytes(nm * c.E * tf::mlp_params(c.D, c.F_e > 0 ? c.F_e : c.F, c.gated) / c.L);
  x.tp_blocks = 2;
  x.act[0] = 2 * tf::saved_elems_per_token_layer(c);
}

}  // namespace

LayerCosts layer_costs(const tf::Config& c0, const LayerChoice& ch) {
  const tf::Config c = tf::validated(c0);
  LayerCosts x;
  x.L = c.L;
  if (ch.full)
    full_costs(c, ch, x);
  else
    mlp_costs(c, ch, x);
  const double nm = tf::moe_layers(c);
  x.row = 2 * c.D;
  x.E = nm > 0 ? c.E : 0;
  x.routed = nm > 0 ? 2 * c.k * c.D * nm / c.L : 0;
  const tf::Params p = tf::params(c);
  x.P = p.total;
  x.P_expert = nm * c.E * tf::mlp_params(c.D, c.F_e > 0 ? c.F_e : c.F, c.gated);
  x.act[1] = tf::activation_bytes(1, c.D, 1, tf::saved_arrays_per_layer(tf::Remat::SaveAll), 2);
  x.act[2] = tf::activation_bytes(1, c.D, 1, tf::saved_arrays_per_layer(tf::Remat::Block), 2);
  const double fwd = tf::flops_per_param_token(tf::Pass::Forward);
  for (int r = 0; r < kRemats; ++r)
    x.bwd[r] = (tf::remat_flops_per_param_token(kRematOrder[r]) - fwd) / fwd;
  return x;
}

SplitCosts split_costs(const LayerCosts& lc, const Hardware& h, double B_pod, double pods,
                       const Layout& lay) {
  SplitCosts k;
  k.lay = lay;
  const double X = lay.X, Y = lay.Y, Z = lay.Z;
  k.Ls = std::ceil(lc.L / Z);
  k.tokens_per_chip = B_pod / (X * Y);
  k.math = t_math_layer(lc.flops, B_pod, X * Y, h.C);
  k.hbm = t_weight_load(lc.w_bytes, Y, h);
  if (X > 1) {
    k.fsdp = t_weight_gather(lc.w_bytes, Y, lay.M_X, h);
    k.dp = t_grad_allreduce(lc.w_bytes, Y, lay.M_X, h);
  }
  if (lc.E > 0 && X > 1) {
    // Experts over gcd(X, E) chips of the data axis, replicated over the rest of it.
    k.ep_degree = std::gcd(static_cast<long long>(X), static_cast<long long>(lc.E));
    const double dense = lc.w_bytes - lc.w_expert;
    k.fsdp_ep = t_weight_gather(dense, Y, lay.M_X, h);
    k.dp_dense = t_grad_allreduce(dense, Y, lay.M_X, h);
    if (X > k.ep_degree) k.dp_expert = t_grad_allreduce(lc.w_expert / k.ep_degree, Y, lay.M_X, h);
    k.hbm_ep = t_weight_load(dense + lc.w_expert / k.ep_degree, Y, h);
    const double rows = lc.routed * k.tokens_per_chip;
    // Dispatch and return, as kTExpertAllToAll counts them; a GPU cluster's from the gpus chapter.
    k.ep = lay.a2a > 0 ? 2 * rows * lay.a2a
                       : t_expert_alltoall(rows, std::min(k.ep_degree, lay.A_max), h);
  }
  if (Y > 1) k.tp = lc.tp_blocks * t_act_gather_scatter(lc.row * B_pod, X, lay.M_Y, h);
  if (pods > 1) k.dcn = t_grad_allreduce_dcn(lc.w_bytes, X * Y, h);
  if (Z > 1) k.hop = t_pipeline_hop(lc.row * B_pod / X, Y, h);
  return k;
}

bool same_time(double a, double b) { return std::fabs(a - b) <= kTie * std::max(a, b); }

bool ranks_before(const Rank& a, const Rank& b) {
  if (a.fits != b.fits) return a.fits;
  if (!a.fits) return a.mem < b.mem;
  if (!same_time(a.t, b.t)) return a.t < b.t;
  return a.mem < b.mem;
}

double comms_ratio(const StepCosts& t) {
  const double f = std::max(std::max(t.hbm_f, t.fsdp_f), std::max(t.tp, t.ep));
  const double b = std::max(std::max(std::max(t.hbm_b, t.fsdp_b), std::max(t.tp, t.dp_b)),
                            std::max(t.dcn_b, t.ep));
  return std::max(f / t.math_f, b / t.math_b);
}

bool compute_bound(const StepCosts& t, const SplitCosts& k) {
  // The chapter's verdict: T_math above every other term (a tie counts as comms-bound).
  const double f = std::max(std::max(t.hbm_f, t.fsdp_f), std::max(t.tp, t.ep));
  const double b = std::max(std::max(std::max(t.hbm_b, t.fsdp_b), std::max(t.tp, t.dp_b)),
                            std::max(t.dcn_b, t.ep));
  return t.math_f > f && t.math_b > b && t.hop / k.Ls < t.math_f;
}

Timeline timeline(const StepCosts& t, const SplitCosts& k, int m) {
  Timeline tl;
  const double runs = k.Ls * m;  // layer passes a stage runs in a step, each way
  tl.step = t.t_step;
  tl.compute = runs * (t.math_f + t.math_b);
  tl.hbm = runs * (t.hbm_f + t.hbm_b);
  tl.fsdp = runs * (t.fsdp_f + t.fsdp_b);
  tl.tp = runs * 2 * t.tp;
  tl.ep = runs * 2 * t.ep;
  tl.dp = runs * t.dp_b;
  tl.dcn = runs * t.dcn_b;
  tl.hop = k.lay.Z > 1 ? 2 * m * t.hop : 0;
  tl.bubble = t.t_step * pipeline_bubble(k.lay.Z, m);
  const double busy = tl.compute + tl.hbm + tl.fsdp + tl.tp + tl.ep + tl.dp + tl.dcn + tl.hop;
  tl.overlap = std::max(0.0, busy - (t.t_step - tl.bubble));
  return tl;
}

}  // namespace sb::training
