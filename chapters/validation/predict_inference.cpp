// An inference run: the inference chapter's prefill (A.8, here as a roofline: the FLOPs or the
// weight stream, whichever is longer) and decode step (A.7: KV and weight loads beside the FLOPs),
// on the run's chips as one replica. Attention's FLOPs come from the transformers chapter (causal
// in a prefill); the tensor-parallel collectives of a step are left out (the chapter's own step
// leaves them out too); an MoE's expert all-to-all on GPUs is counted.
#include <algorithm>
#include <cmath>
#include <string>

#include "chapters/gpus/collectives.hpp"
#include "chapters/inference/model.hpp"
#include "chapters/roofline/model.hpp"
#include "chapters/transformers/model_memory.hpp"
#include "chapters/validation/model.hpp"

namespace sb::validation {

namespace tf = transformers;
namespace inf = inference;

namespace {

struct Rates {
  double C = 0, W_hbm = 0;
  double W_fast = 0, W_node = 0;  // a GPU's NVLink egress; its node's scale-out egress
};

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
  const tf::Params p = tf::params(s.model);
  const double n = s.chips;
  const double flops = inf::t_flops(seqs * T, p.matmul_active, n, r.C) +
                       roofline::t_math(attention_flops(s.model, seqs, T, T, true), n * r.C);
  return std::max(flops, inf::t_param(p.total, s.b_w, n, r.W_hbm));
}

// A decode step of B sequences whose caches hold S tokens.
double decode_step(const Scenario& s, const Rates& r, double B, double S) {
  const tf::Params p = tf::params(s.model);
  const double n = s.chips, kv_tok = tf::kv_bytes_per_token(s.model, s.b_kv);
  const double flops = inf::t_flops(B, p.matmul_active, n, r.C) +
                       roofline::t_math(attention_flops(s.model, B, 1, S, false), n * r.C);
  return std::max(inf::step_time(inf::t_kv(B, S, kv_tok, n, r.W_hbm), flops,
                                 inf::t_param(p.total, s.b_w, n, r.W_hbm)),
                  expert_a2a(s, r, B));
}

Figures figures(const Scenario& s, const Rates& r) {
  Figures f;
  const double n = s.chips, S_mid = s.prompt + s.output / 2;
  f.ttft = prefill(s, r, 1, s.prompt);
  if (s.phase == "prefill") {
    f.latency = prefill(s, r, s.batch, s.prompt);
  } else if (s.phase == "static") {
    f.tpot = decode_step(s, r, s.batch, S_mid);
    f.latency = prefill(s, r, s.batch, s.prompt) + s.output * f.tpot;
    f.out_per_s_chip = s.batch * s.output / (f.latency * n);
  } else if (s.phase == "serve") {
    // Each request's prefill runs between the others' decode steps: its time is shared over the
    // output tokens of the requests in flight.
    f.tpot = decode_step(s, r, s.batch, S_mid) + prefill(s, r, s.batch, s.prompt) / s.output;
    f.out_per_s_chip = s.batch / (f.tpot * n);
  } else {
    f.tpot = decode_step(s, r, s.batch, S_mid);
    f.out_per_s_chip = s.batch / (f.tpot * n);
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
  const Rates peak{s.hw.C, s.hw.W_hbm, s.hw.W_ici, node};
  const Rates at{s.hw.C * mxu_share(s, fa), s.hw.W_hbm * fa.hbm, s.hw.W_ici * fa.link,
                 node * fa.link};
  p.bound = figures(s, peak), p.expected = figures(s, at);
  const tf::Params pr = tf::params(s.model);
  const double kv = tf::kv_bytes_per_token(s.model, s.b_kv) * s.batch * (s.prompt + s.output);
  p.mem = (inf::weight_bytes(pr.total, s.b_w) + kv) / s.chips;
  p.hbm = s.hw.hbm, p.fits = p.mem <= p.hbm;
  const double step_kv = inf::t_kv(s.batch, s.prompt + s.output / 2,
                                   tf::kv_bytes_per_token(s.model, s.b_kv), s.chips, at.W_hbm);
  const double a2a = expert_a2a(s, at, s.batch);
  p.bottleneck = s.phase == "prefill"              ? "compute"
                 : a2a >= 0.99 * p.expected.tpot   ? "expert all-to-all"
                 : step_kv > 0.3 * p.expected.tpot ? "KV loads"
                                                   : "weights and FLOPs";
  const std::string& k = s.measured_key;
  p.higher_is_better = k == "output_tokens_per_s_per_chip" || k.empty();
  p.unit = p.higher_is_better ? "output tokens/s per chip" : "s";
  p.measured = s.measured;
  judge(p);
  return p;
}

}  // namespace sb::validation
