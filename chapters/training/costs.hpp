// What every widget of the training pages times, written once: one layer of a real model per
// token (LayerCosts), the per-layer terms of laying it over a mesh (SplitCosts), and a step with a
// rematerialisation policy and microbatches (StepCosts). The strategy widget, the planner's search,
// the regime map and the case study's planner all call these, so that the same inputs get the same
// answer everywhere: the model's own MLP by default (the chapter's 2 matrices as an option), the
// same remat choices, the same memory rule.
//
// Every term is one of model.hpp's functions (the chapter's collectives over bytes). Beyond the
// chapter: the HBM weight loads (the chapter assumes the local batch hides them), expert
// parallelism's all-to-alls, the pipeline schedule and the remat policies (Part 4).
#pragma once
#include <algorithm>
#include <string>

#include "chapters/training/model.hpp"
#include "chapters/transformers/model.hpp"

namespace sb::training {

// Which layer is timed: the MLP (the chapter's layer, A.2) with the model's own matrices (3 when
// gated) or the chapter's 2 (`book_mlp`); or, with `full`, the whole layer: attention projections,
// the attention core at `seq_len`, the MLP, and the output matmul (unembedding) spread over the
// layers.
struct LayerChoice {
  bool book_mlp = false;
  bool full = false;
  double seq_len = 4096;
};
// What the layer model leaves out, in words, for the calculators' notes.
std::string layer_words(const LayerChoice& c);

// The remat policies every widget tries (transformers A.9), in this order.
inline constexpr int kRemats = 3;
inline constexpr transformers::Remat kRematOrder[kRemats] = {
    transformers::Remat::BigMatmuls, transformers::Remat::SaveAll, transformers::Remat::Block};
int remat_index(transformers::Remat r);
const char* remat_label(transformers::Remat r);  // "save the big matmuls' outputs", ...

// One layer of the model per token, averaged over the stack (an MoE's dense first layers differ).
struct LayerCosts {
  double L = 0;
  double flops = 0;          // forward FLOPs per token per layer
  double w_bytes = 0;        // bf16 bytes of a layer's weights: what FSDP gathers, DP reduces
  double w_expert = 0;       // of which the routed experts' (what expert parallelism keeps local)
  double row = 0;            // bytes of a token's activation row, what TP gathers (2 D)
  double tp_blocks = 1;      // TP gather/scatter pairs per layer: 1 (MLP), 2 (attention and MLP)
  double routed = 0;         // MoE: bytes a token sends to its experts per layer, 2 k D (averaged)
  double E = 0;              // routed experts per MoE layer (0: dense)
  double act[kRemats] = {};  // bytes saved per token per layer, per remat policy
  double bwd[kRemats] = {};  // backward FLOPs over forward, per policy: 2, or 3 under block remat
  double P = 0;              // parameters the model stores
  double P_expert = 0;       // of which routed experts'
};
LayerCosts layer_costs(const transformers::Config& c, const LayerChoice& choice);

// Bytes per parameter the chips hold: bf16 weights, optional bf16 gradient buffers, Adam's two
// fp32 moments (A.6: 2 + 8 = 10; 12 with gradient buffers).
struct StateBytes {
  double weights = 2, grads = 0, optimizer = 8;
  double total() const { return weights + grads + optimizer; }
};

// The X axis's mode: nothing (X = 1), DP, FSDP, and for an MoE the same with the routed experts
// sharded over X (expert parallelism: gcd(X, E) chips hold distinct experts, replicated over the
// rest of X, whose gradients they all-reduce).
enum XModeId : int { kXNone = 0, kXDP = 1, kXFSDP = 2, kXDPEP = 3, kXFSDPEP = 4 };
inline bool fsdp_mode(int mode) { return mode == kXFSDP || mode == kXFSDPEP; }
inline bool ep_mode(int mode) { return mode >= kXDPEP; }

// A layout of the mesh: X data, Y tensor, Z pipeline degrees, the ICI axes X and Y span, and the
// longest X axis (for the all-to-all).
struct Layout {
  int X = 1, Y = 1, Z = 1;
  double M_X = 0, M_Y = 0;
  double A_max = 1;
  // On a GPU cluster (planner_gpu.cpp): M_X and M_Y are the NVLink-relative bandwidths of the
  // gpus chapter's hierarchical collectives, `a2a` one AllToAll's seconds per byte a GPU holds
  // over the experts' group (0: the torus's), and `valid` false for a layout the cluster forbids.
  double a2a = 0;
  bool valid = true;
};

// The per-layer terms of a layout for the pod's whole batch (one microbatch), each one of
// model.hpp's collectives; those of expert parallelism for every EP degree gcd(X, E).
struct SplitCosts {
  Layout lay;
  double Ls = 0;  // layers per stage
  double tokens_per_chip = 0;
  double math = 0, hbm = 0;      // forward T_math; one load of the chip's weights from HBM
  double fsdp = 0, fsdp_ep = 0;  // FSDP gathers of all weights; of the non-expert ones (EP)
  double dp = 0;                 // DP all-reduce of all gradients over X
  double dp_dense = 0;           // EP: of the non-expert gradients over X
  double dp_expert = 0;          // EP: of the experts' over their replicas (X above gcd(X, E))
  double hbm_ep = 0;             // EP: the chip's weight loads with its own experts only
  double tp = 0, dcn = 0, hop = 0, ep = 0;
  double ep_degree = 1;
};
SplitCosts split_costs(const LayerCosts& lc, const Hardware& h, double B_pod, double pods,
                       const Layout& lay);

// A configuration's phases and memory: per microbatch, with remat policy r (index into
// kRematOrder) and m microbatches. The per-step gradient reductions (DP, DCN) overlap the m
// backward passes, so each microbatch carries 1/m of them.
struct StepCosts {
  double math_f = 0, math_b = 0, hbm_f = 0, hbm_b = 0, fsdp_f = 0, fsdp_b = 0;
  double tp = 0, ep = 0, dp_b = 0, dcn_b = 0, hop = 0;
  double T_f = 0, T_b = 0, t_step = 0;
  double mem_w = 0, mem_g = 0, mem_opt = 0, mem_act = 0;  // bytes per chip
  double mem() const { return mem_w + mem_g + mem_opt + mem_act; }
};

// The terms of a step that depend on the layout and the X mode alone: the first half of
// step_costs, which the planner's search computes once per mode and not once per remat policy and
// microbatch count.
struct ModeCosts {
  int mode = kXNone;
  bool ep = false;
  double hbm_f = 0, fsdp_f = 0, dp = 0, ep_comm = 0;
  double mem_w = 0, mem_g = 0, mem_opt = 0;  // bytes per chip
};
inline ModeCosts mode_costs(const LayerCosts& lc, const SplitCosts& k, const StateBytes& sb,
                            int mode) {
  ModeCosts c;
  c.mode = mode;
  c.ep = ep_mode(mode);
  c.hbm_f = c.ep ? k.hbm_ep : k.hbm;
  c.fsdp_f = mode == kXFSDP ? k.fsdp : mode == kXFSDPEP ? k.fsdp_ep : 0;
  c.dp = mode == kXDP       ? k.dp
         : mode == kXDPEP   ? k.dp_dense + k.dp_expert
         : mode == kXFSDPEP ? k.dp_expert
                            : 0;
  c.ep_comm = c.ep ? k.ep : 0;
  // Parameters over the chips that shard them (experts under EP over their EP degree).
  const double yz = double(k.lay.Y) * k.lay.Z;
  const double dense_shards = yz * (fsdp_mode(mode) ? k.lay.X : 1);
  const double expert_shards = c.ep ? yz * k.ep_degree : dense_shards;
  const double params = (lc.P - lc.P_expert) / dense_shards + lc.P_expert / expert_shards;
  c.mem_w = sb.weights * params;
  c.mem_g = sb.grads * params;
  c.mem_opt = sb.optimizer * params;
  return c;
}

// The second half: remat policy r and m microbatches. Inlined into the search's loops, where the
// compiler keeps only the terms the ranking reads (bench/NOTES.md, "Fifteenth pass").
[[gnu::always_inline]] inline StepCosts step_costs(const LayerCosts& lc, const SplitCosts& k,
                                                   const ModeCosts& mc, int r, int m) {
  StepCosts t;
  const double inv_m = 1.0 / m;
  t.math_f = k.math * inv_m;
  t.math_b = t.math_f * lc.bwd[r];
  t.hbm_f = mc.hbm_f;
  t.hbm_b = 2 * t.hbm_f;
  t.fsdp_f = mc.fsdp_f;
  t.fsdp_b = 2 * t.fsdp_f;
  t.tp = k.tp * inv_m;
  t.ep = mc.ep_comm * inv_m;
  t.dp_b = mc.dp * inv_m;
  t.dcn_b = k.dcn * inv_m;
  t.hop = k.hop * inv_m;
  t.T_f = std::max(std::max(t.math_f, t.hbm_f), std::max(std::max(t.fsdp_f, t.tp), t.ep));
  t.T_b = std::max(std::max(std::max(t.math_b, t.hbm_b), std::max(t.fsdp_b, t.tp)),
                   std::max(std::max(t.dp_b, t.dcn_b), t.ep));
  const double micro = std::max(k.Ls * t.T_f, t.hop) + std::max(k.Ls * t.T_b, t.hop);
  t.t_step = pipeline_slots(k.lay.Z, m) * micro;
  t.mem_w = mc.mem_w;
  t.mem_g = mc.mem_g;
  t.mem_opt = mc.mem_opt;
  // The activations of the microbatches a stage holds at once (1F1B: at most Z) over its chips.
  t.mem_act = lc.act[r] * k.tokens_per_chip * pipeline_in_flight(k.lay.Z, m) * k.Ls;
  return t;
}

[[gnu::always_inline]] inline StepCosts step_costs(const LayerCosts& lc, const SplitCosts& k,
                                                   const StateBytes& sb, int mode, int r, int m) {
  return step_costs(lc, k, mode_costs(lc, k, sb, mode), r, m);
}

// How every widget ranks two configurations: one that fits before one that does not; then the
// faster (step times closer than kTie, relative, are a tie); then the one with less memory. Of two
// that do not fit, the one with less memory. (The planner breaks a tie between layouts on their
// simplicity before the memory.)
inline constexpr double kTie = 1e-9;
struct Rank {
  bool fits = false;
  double t = 0, mem = 0;
};
bool same_time(double a, double b);
bool ranks_before(const Rank& a, const Rank& b);

// Memory per chip by what it holds (A.6; gradient buffers only when StateBytes counts them).
struct MemoryBar {
  double weights = 0, grads = 0, optimizer = 0, activations = 0;
  double total() const { return weights + grads + optimizer + activations; }
};
inline MemoryBar memory_bar(const StepCosts& t) { return {t.mem_w, t.mem_g, t.mem_opt, t.mem_act}; }

// The largest comms term over the math, either phase (above 1: comms-bound).
double comms_ratio(const StepCosts& t);
// Every phase: T_math the largest term, and the stage copies under a layer's math.
bool compute_bound(const StepCosts& t, const SplitCosts& k);

// The step's timeline: how long each term keeps its resource busy over a step, the pipeline's
// idle share, and how much runs at the same time (the sum of the lanes over the step, less 1).
struct Timeline {
  double step = 0;
  double compute = 0, hbm = 0, fsdp = 0, tp = 0, ep = 0, dp = 0, dcn = 0, hop = 0;
  double bubble = 0;  // the time every chip of a stage idles while the pipeline fills and drains
  double overlap = 0;
};
Timeline timeline(const StepCosts& t, const SplitCosts& k, int m);

}  // namespace sb::training
