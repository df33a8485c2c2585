// An inference run: the inference chapter's prefill (A.8, here as a roofline: the FLOPs or the
// weight stream, whichever is longer) and decode step (A.7: KV and weight loads beside the FLOPs),
// on the chips of one replica (the data-parallel groups that expert parallelism does not join are
// replicas of their own, each with its share of the batch). Attention's FLOPs come from the
// transformers chapter (causal in a prefill). The tensor-parallel collectives of every layer (A.10)
// hide under a prefill's matmuls (A.10: compute-bound, they overlap) and add to a decode step (the
// chapter's step with its collectives, 2 L T_1D beside T_step); the weight gathers of a
// weight-gathered layout (`fsdp`) and an MoE's expert all-to-all on GPUs overlap the step.
#include <algorithm>
#include <cmath>
#include <string>

#include "chapters/gpus/collectives.hpp"
#include "chapters/inference/model.hpp"
#include "chapters/inference/serving.hpp"
#include "chapters/roofline/model.hpp"
#include "chapters/sharding/model.hpp"
#include "chapters/tpus/torus.hpp"
#include "chapters/transformers/model_memory.hpp"
#include "chapters/validation/model.hpp"
#include "core/hardware.hpp"

namespace sb::validation {

namespace tf = transformers;
namespace inf = inference;

namespace {

struct Rates {
  double C = 0, C_moe = 0, W_hbm = 0;  // C_moe: the routed experts' matmuls
  double W_fast = 0, W_node = 0;       // TPU: one torus axis; GPU: NVLink egress, node scale-out
  double t_hop = 0;                    // TPU: ICI latency per hop
  double C_vec = 0;                    // GPU: the CUDA cores (a `cuda_cores` decode attention)
};

// The chips and sequences of one replica.
struct Replica {
  double n = 0, batch = 0;
};
Replica replica_of(const Scenario& s) {
  const double r = replicas(s);
  return {s.chips / r, s.batch / r};
}

// The axes a collective over `Y` chips of a TPU slice spans (a 2x4 slice: 2; 4x4x4: 3).
double slice_axes(const Scenario& s, double Y) {
  return std::max(1.0, std::min(s.torus_dims, std::floor(std::log2(Y))));
}

// A weight-gathered layout (Pope et al.'s, `fsdp` > 1): the tokens split over the fsdp chips, every
// layer's weights AllGathered over them once per pass (the sharding chapter's AllGather over the
// slice's axes; the gpus chapter's ring in a node, hierarchical past it).
double weight_gathers(const Scenario& s, const Rates& r) {
  const double X = s.fsdp, node = s.gpus_per_node;
  if (X <= 1) return 0;
  const double bytes = inf::weight_bytes(tf::params(s.model).total, s.b_w);
  if (s.family == "TPU") return sharding::t_allgather_multi(bytes, slice_axes(s, X), r.W_fast);
  if (X <= node) return gpus::ag_time(bytes, X, r.W_fast);
  return gpus::hier_ag_time(bytes, node, r.W_fast, X / node, r.W_node);
}

// The tensor-parallel collectives of one pass over `tokens` tokens: every layer's attention and
// MLP blocks each AllGather their input and ReduceScatter their output, bf16 rows of D, over the
// Y = tensor chips (A.10's 1D model parallelism, twice per layer). On a TPU each collective runs
// over the axes a Y-chip slice spans, with A.11's latency floor; on a GPU it is the gpus chapter's
// ring inside the NVLink node (A.4 (1)), hierarchical past the node (A.4 (8)).
double tp_collectives(const Scenario& s, const Rates& r, double tokens) {
  const double Y = s.tensor, node = s.gpus_per_node;
  if (Y <= 1) return 0;
  const double msg = inf::activation_msg(tokens, s.model.D, 2);
  double block = 0;
  if (s.family == "TPU") {
    // A.11's ring of Y chips runs along each axis the slice spans: about axes Y^(1/axes) hops.
    const double axes = slice_axes(s, Y), ring = axes * std::pow(Y, 1 / axes);
    block = 2 * inf::latency_collective_time(r.t_hop, ring, msg, axes * r.W_fast);
  } else if (Y <= node) {
    block = 2 * gpus::ag_time(msg, Y, r.W_fast);
  } else {
    block = 2 * gpus::hier_ag_time(msg, node, r.W_fast, Y / node, r.W_node);
  }
  return inf::t_1d_step(s.model.L, block);
}

// The FLOPs of `tokens` tokens through the matmuls, the routed experts' at their own rate.
double matmul_time(const Scenario& s, const Rates& r, double tokens, double n) {
  const double routed = routed_active_params(s.model);
  return inf::t_flops(tokens, tf::params(s.model).matmul_active - routed, n, r.C) +
         inf::t_flops(tokens, routed, n, r.C_moe);
}

// Expert parallelism's dispatch and combine in one decode step: every token's activation row to
// its k experts and back (bf16), over the experts' GPUs with the gpus chapter's AllToAll (A.4 (4)
// inside a node, A.4 (10) across nodes). It overlaps the step's other work (two microbatches in
// flight), so the step is the longer of the two.
double expert_a2a(const Scenario& s, const Rates& r, double B) {
  if (s.expert <= 1 || s.family != "GPU") return 0;
  const double bytes = 2 * B * tf::moe_layers(s.model) * s.model.k * s.model.D * 2;
  return gpus::expert_a2a_time(bytes, s.expert, s.gpus_per_node, r.W_fast, r.W_node);
}

double attention_flops(const tf::Config& c, double B, double T, double S, bool causal) {
  return c.L * tf::attention_core_flops(B, T, S, c.N, tf::head_dim_qk(c), tf::head_dim_v(c),
                                        tf::Pass::Forward, causal);
}

// A prefill of `seqs` prompts of T tokens on the replica.
double prefill(const Scenario& s, const Rates& r, double seqs, double T) {
  const double n = replica_of(s).n;
  const double flops = matmul_time(s, r, seqs * T, n) +
                       roofline::t_math(attention_flops(s.model, seqs, T, T, true), n * r.C);
  return std::max({flops, inf::t_param(tf::params(s.model).total, s.b_w, n, r.W_hbm),
                   tp_collectives(s, r, seqs * T), weight_gathers(s, r)});
}

// The attention of a decode step on the CUDA cores (`cuda_cores`): its own kernel, as long as the
// longer of its cache reads and its FLOPs at the vector rate (a roofline of its own, A.1 (2)'s
// rate for the peak). With grouped-query heads this kernel does N / K times the FLOPs a byte of a
// head's cache carries, which puts it past its compute limit where an FP8 cache halves the bytes.
double vector_attention(const Scenario& s, const Rates& r, double B, double S, double t_kv) {
  const double n = replica_of(s).n;
  return roofline::t_lower(roofline::t_math(attention_flops(s.model, B, 1, S, false), n * r.C_vec),
                           t_kv);
}

// A decode step of B sequences whose caches hold S tokens.
double decode_step(const Scenario& s, const Rates& r, double B, double S) {
  const double n = replica_of(s).n, kv_tok = tf::kv_bytes_per_token(s.model, s.b_kv);
  const double t_kv = inf::t_kv(B, S, kv_tok, n, r.W_hbm);
  const double t_param = inf::t_param(tf::params(s.model).total, s.b_w, n, r.W_hbm);
  // The step's attention either runs in the matmuls' time at the Tensor Cores' rate beside its
  // cache reads (A.7), or as a CUDA-core kernel of its own in place of them.
  const double step =
      s.vector_attention
          ? inf::step_time(vector_attention(s, r, B, S, t_kv), matmul_time(s, r, B, n), t_param)
          : inf::step_time(t_kv,
                           matmul_time(s, r, B, n) +
                               roofline::t_math(attention_flops(s.model, B, 1, S, false), n * r.C),
                           t_param);
  return std::max({step + tp_collectives(s, r, B), expert_a2a(s, r, B), weight_gathers(s, r)});
}

Figures figures(const Scenario& s, const Rates& r) {
  Figures f;
  const auto [n, B] = replica_of(s);
  const double S_mid = decode_context(s);
  f.ttft = prefill(s, r, 1, s.prompt);
  if (s.phase == "prefill") {
    f.latency = prefill(s, r, B, s.prompt);
  } else if (s.phase == "static") {
    f.tpot = decode_step(s, r, B, S_mid);
    f.latency = prefill(s, r, B, s.prompt) + s.output * f.tpot;
    f.out_per_s_chip = B * s.output / (f.latency * n);
  } else if (s.phase == "serve") {
    // Each request's prefill runs between the others' decode steps: its time is shared over the
    // output tokens of the requests in flight.
    f.tpot = decode_step(s, r, B, S_mid) + prefill(s, r, B, s.prompt) / s.output;
    f.out_per_s_chip = B / (f.tpot * n);
  } else {
    f.tpot = decode_step(s, r, B, S_mid);
    f.out_per_s_chip = B / (f.tpot * n);
  }
  const std::string& k = s.measured_key;
  f.primary = k == "latency_s" ? f.latency
              : k == "tpot_s"  ? f.tpot
              : k == "ttft_s"  ? f.ttft
                               : f.out_per_s_chip;
  return f;
}

}  // namespace

Prediction predict_inference(const Scenario& s, const Factors& fa) {
  Prediction p;
  const double node = s.hw.W_dcn * s.gpus_per_node;
  const double hop = s.family == "TPU" ? tpus::hop_latency(hw::chip(s.chip_id)) : 0;
  const Rates peak{s.hw.C, s.hw.C, s.hw.W_hbm, s.hw.W_ici, node, hop, s.C_vec};
  const double C = s.hw.C * mxu_share(s, fa);
  const Rates at{C,   C * fa.moe,         s.hw.W_hbm * fa.hbm, s.hw.W_ici * fa.link, node * fa.link,
                 hop, s.C_vec * fa.vector};
  p.bound = figures(s, peak), p.expected = figures(s, at);
  const auto [n, B] = replica_of(s);
  const tf::Params pr = tf::params(s.model);
  const double kv = tf::kv_bytes_per_token(s.model, s.b_kv) * B * (s.prompt + s.output);
  p.mem = (inf::weight_bytes(pr.total, s.b_w) + kv) / n;
  p.hbm = s.hw.hbm, p.fits = p.mem <= p.hbm;
  const double S_mid = decode_context(s);
  const double step_kv = inf::t_kv(B, S_mid, tf::kv_bytes_per_token(s.model, s.b_kv), n, at.W_hbm);
  const double step_vec = s.vector_attention ? vector_attention(s, at, B, S_mid, 0) : 0;
  const double a2a = expert_a2a(s, at, B);
  const double tp = tp_collectives(s, at, s.phase == "prefill" ? B * s.prompt : B);
  const bool prefill = s.phase == "prefill";
  const double step = prefill ? p.expected.latency : p.expected.tpot;
  // A prefill's collectives overlap its work (they bind when they are the longer); a decode
  // step's add to it (they bind when they are most of it).
  p.bottleneck = tp >= (prefill ? 0.99 : 0.5) * step    ? "TP collectives"
                 : weight_gathers(s, at) >= 0.99 * step ? "weight gathers"
                 : a2a >= 0.99 * step                   ? "expert all-to-all"
                 : prefill                              ? "compute"
                 : step_vec > std::max(step_kv, 0.3 * p.expected.tpot)
                     ? "decode attention (CUDA cores)"
                 : step_kv > 0.3 * p.expected.tpot ? "KV loads"
                                                   : "weights and FLOPs";
  const std::string& k = s.measured_key;
  p.higher_is_better = k.rfind("output_tokens_per_s", 0) == 0 || k.empty();
  p.unit = p.higher_is_better ? "output tokens/s per chip" : "s";
  p.measured = measured_figure(s);
  judge(p);
  return p;
}

}  // namespace sb::validation
