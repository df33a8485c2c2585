// The prediction of one run: the training chapter's costs of its exact layout (costs.hpp), or the
// inference chapter's prefill and decode step, at peak rates (the bound) and at the rates the
// factors allow (the expected figure).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "chapters/gpus/collectives.hpp"
#include "chapters/inference/model.hpp"
#include "chapters/roofline/model.hpp"
#include "chapters/training/model.hpp"
#include "chapters/transformers/model_memory.hpp"
#include "chapters/validation/model.hpp"
#include "core/error.hpp"

namespace sb::validation {

namespace tf = transformers;
namespace tr = training;

namespace {

// The chip's rates at the factors. The layer's matmuls run at one rate in the training costs: a
// routed expert's FLOPs at the `moe` share of it enter as the rate that takes as long.
tr::Hardware at_factors(const Scenario& s, const Factors& f, const tr::LayerCosts& lc) {
  tr::Hardware h = s.hw;
  const double expert = 2 * routed_active_params(s.model) / (lc.L * lc.flops);
  h.C = blended_rate(h.C * mxu_share(s, f), expert, f.moe);
  h.W_ici *= f.link, h.W_dcn *= f.link, h.w_uni *= f.link;
  h.W_hbm *= f.hbm;
  return h;
}

// The layout of the run's degrees on its chips. A TPU lays tensor parallelism on one torus axis
// and the data axis on the others (the book's whole axes, A.4: M_X + M_Y = the torus' axes); a GPU
// keeps tensor parallelism inside its NVLink node, and the data axis reaches past the node over
// each GPU's own NIC (the gpus chapter's scale-out share).
tr::Layout layout(const Scenario& s, const tr::Hardware& h) {
  tr::Layout lay;
  lay.X = static_cast<int>(s.data / s.pods * s.fsdp * s.context);
  lay.Y = static_cast<int>(s.tensor), lay.Z = static_cast<int>(s.pipeline);
  if (s.family == "TPU") {
    lay.M_Y = lay.Y > 1 ? 1 : 0;
    lay.M_X = lay.X > 1 ? std::max(1.0, s.torus_dims - (lay.Y > 1 ? 1 : 0)) : 0;
    lay.A_max = std::ceil(std::pow(lay.X, 1.0 / std::max(1.0, lay.M_X)));
    return lay;
  }
  const double node = s.gpus_per_node;
  const double x_node = std::max(1.0, std::min<double>(lay.X, node / lay.Y));
  const bool x_spans_nodes = lay.X > x_node;
  const double scale = h.W_dcn > 0 ? h.W_dcn : h.W_ici;
  lay.M_Y = lay.Y > 1 ? (lay.Y <= node ? 1 : scale / h.W_ici) : 0;
  lay.M_X = lay.X > 1 ? (x_spans_nodes ? scale / h.W_ici : 1) : 0;
  if (s.expert > 1) {
    const double g = s.expert;
    lay.a2a = gpus::expert_a2a_time(g, g, x_node, h.W_ici, scale * x_node);
  }
  return lay;
}

int x_mode(const Scenario& s, const tr::Layout& lay) {
  if (lay.X == 1) return tr::kXNone;
  const bool ep = s.expert > 1;
  if (s.fsdp > 1) return ep ? tr::kXFSDPEP : tr::kXFSDP;
  return ep ? tr::kXDPEP : tr::kXDP;
}

// Beyond the book: an interleaved schedule of v stages per chip (Narayanan et al. 2021, Sec. 2.2)
// idles (Z - 1) / v stage-steps of a whole stage's work, not Z - 1: m + (Z - 1) / v slots.
double interleaved_slots(double Z, double m, double v) { return m + (Z - 1) / v; }

// Beyond the book: saved activations offloaded to host memory leave HBM, and cross the host link
// twice a step (out in the forward pass, back in the backward), overlapped with the layers' work.
// The host link's rate takes the collectives' share (`link`), as h's ICI does.
double offload_time(const Scenario& s, const tr::StepCosts& t, const tr::Hardware& h) {
  return roofline::t_comms(2 * t.mem_act, s.host_bw * h.W_ici / s.hw.W_ici);
}

struct TrainRun {
  tr::StepCosts t;
  tr::SplitCosts k;
};
// The whole layer; causal attention: each token attends to T/2 keys on average, unless the kernel
// is unfused, which computes every score and masks half of them.
tr::LayerCosts layer_of(const Scenario& s) {
  const double keys = s.unfused_attention ? s.seq_len : s.seq_len / 2;
  return tr::layer_costs(s.model, tr::LayerChoice{false, true, keys});
}

// Beyond the book: an unfused attention (before flash attention) writes the [heads, T, T] scores
// to HBM and reads them back for the softmax, then writes the probabilities and reads them back for
// the product with V: four passes over a bf16 T x T array per head in the forward pass. The
// backward pass moves twice that (its matmuls take twice the forward's, A.4), and a remat policy
// that replays the forward pass (block, or selective: the attention core) does it again. These
// are elementwise kernels between the matmuls: their time adds to the step's. Per chip and
// microbatch: its N / Y heads of the microbatch's sequences.
double unfused_scores_time(const Scenario& s, const tr::SplitCosts& k, const tr::Hardware& h) {
  if (!s.unfused_attention) return 0;
  const double seqs = k.tokens_per_chip * k.lay.Y / (s.micro * s.seq_len);
  const double array = 2 * (s.model.N / k.lay.Y) * s.seq_len * s.seq_len * seqs;
  const double passes = 4 * (s.remat == tf::Remat::SaveAll ? 3 : 4);
  return k.Ls * passes * array / h.W_hbm;
}

// Beyond the book: unless the stack splits the matmuls to overlap them (the book's collective
// matmul, which XLA does on a TPU; TransformerEngine's userbuffers or async TP on a GPU), the
// tensor-parallel collectives run between the matmuls. Megatron's row-parallel output is summed
// before the next norm and residual, and the next matmul needs the whole sum. Each microbatch's
// layer then adds its forward pass's collectives, as many again in the backward pass, and a third
// time when block remat replays the forward pass.
TrainRun train_costs(const Scenario& s, const tr::LayerCosts& lc, const tr::Hardware& h) {
  const tr::Layout lay = layout(s, h);
  const double B = s.sequences * s.seq_len;
  const int m = static_cast<int>(s.micro), r = tr::remat_index(s.remat);
  TrainRun run;
  run.k = tr::split_costs(lc, h, B / s.pods, s.pods, lay);
  const double tp = run.k.tp;
  if (!s.tp_overlap) run.k.tp = 0;
  run.t = tr::step_costs(lc, run.k, tr::StateBytes{}, x_mode(s, lay), r, m);
  if (!s.tp_overlap && tp > 0) {
    const double passes = s.remat == tf::Remat::Block ? 3 : 2;
    run.t.tp = tp / m;
    run.t.t_step += tr::pipeline_slots(lay.Z, m) * run.k.Ls * passes * run.t.tp;
  }
  run.t.t_step += tr::pipeline_slots(lay.Z, m) * unfused_scores_time(s, run.k, h);
  run.t.t_step *=
      interleaved_slots(lay.Z, s.micro, s.virtual_stages) / tr::pipeline_slots(lay.Z, s.micro);
  if (s.offload) run.t.t_step = std::max(run.t.t_step, offload_time(s, run.t, h));
  return run;
}

const char* term_of(const tr::StepCosts& t) {
  const double terms[] = {t.math_b, t.hbm_b, t.fsdp_b, t.tp, t.ep, t.dp_b, t.dcn_b};
  static const char* kNames[] = {"compute",     "HBM",           "FSDP gathers",  "TP collectives",
                                 "all-to-alls", "DP all-reduce", "DCN all-reduce"};
  return kNames[std::max_element(std::begin(terms), std::end(terms)) - std::begin(terms)];
}

Figures train_figures(const Scenario& s, const tr::StepCosts& t) {
  Figures f;
  f.step = t.t_step;
  f.tokens_per_s_chip = s.sequences * s.seq_len / (t.t_step * s.chips);
  f.mfu = convention_flops_per_token(s) * f.tokens_per_s_chip / s.conv_peak;
  f.primary = s.measured_key == "step_time_s" ? f.step : f.tokens_per_s_chip;
  return f;
}

}  // namespace

double mxu_share(const Scenario& s, const Factors& f) {
  // FP4 (a Blackwell's NVFP4) takes the FP8 share of its own peak: no fitted run is FP4.
  if (s.compute == "fp8" || s.compute == "fp4") return f.mxu_fp8;
  return s.family == "TPU" ? f.mxu_tpu : f.mxu_gpu;
}

double routed_active_params(const tf::Config& c) {
  if (tf::moe_layers(c) <= 0) return 0;
  return tf::moe_layers(c) * c.k * tf::mlp_params(c.D, c.F_e > 0 ? c.F_e : c.F, c.gated);
}

double blended_rate(double C, double e, double moe) { return C / (1 - e + e / moe); }

void judge(Prediction& p) {
  if (!(p.measured > 0)) return;
  p.error = p.expected.primary / p.measured - 1;
  p.above_bound = p.higher_is_better ? p.measured > p.bound.primary * (1 + 1e-9)
                                     : p.measured < p.bound.primary * (1 - 1e-9);
}

double convention_flops_per_token(const Scenario& s) {
  const tf::Params p = tf::params(s.model);
  const double P = s.conv_params == "all" ? p.total : p.matmul_active;
  const double passes = s.conv_recompute && s.remat == tf::Remat::Block ? 4 : 3;
  const double T = s.seq_len > 0 ? s.seq_len : s.prompt;
  const double attn =
      s.conv_attention == "none"
          ? 0
          : s.model.L * tf::attention_core_flops(1, 1, T, s.model.N, tf::head_dim_qk(s.model),
                                                 tf::head_dim_v(s.model), tf::Pass::Forward,
                                                 s.conv_attention == "causal");
  return passes * (2 * P + attn);
}

double measured_figure(const Scenario& s) {
  const std::string& k = s.measured_key;
  if (k == "tflops_per_chip") return s.measured * 1e12 / convention_flops_per_token(s);
  if (k == "mfu") return s.measured * s.conv_peak / convention_flops_per_token(s);
  if (k == "tokens_per_s" || k == "output_tokens_per_s") return s.measured / s.chips;
  return s.measured;
}

Prediction predict_inference(const Scenario& s, const Factors& f);  // predict_inference.cpp

Prediction predict(const Scenario& s, const Factors& f) {
  if (s.kind == "inference") return predict_inference(s, f);
  Prediction p;
  const tr::LayerCosts lc = layer_of(s);
  const TrainRun b = train_costs(s, lc, s.hw), e = train_costs(s, lc, at_factors(s, f, lc));
  p.bound = train_figures(s, b.t), p.expected = train_figures(s, e.t);
  p.mem = b.t.mem() - (s.offload ? b.t.mem_act : 0), p.hbm = s.hw.hbm, p.fits = p.mem <= p.hbm;
  p.bottleneck = term_of(e.t);
  p.unit = s.measured_key == "step_time_s" ? "s" : "tokens/s per chip";
  p.higher_is_better = s.measured_key != "step_time_s";
  p.measured = measured_figure(s);
  judge(p);
  return p;
}

}  // namespace sb::validation
