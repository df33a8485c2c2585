// Part 5, "How to Parallelize a Transformer for Training": data parallelism, FSDP (ZeRO-3), tensor
// parallelism, FSDP + TP, pipelining and data parallelism across pods over DCN. For each: what is
// sharded, the collectives per layer and their bytes, T_math and T_comms per layer, the
// compute-bound conditions, and memory per chip. The planner (planner.hpp) searches over them.
// Quantities are doubles in SI base units. Section labels (A.2 ...) refer to the chapter notes
// shared/book/training.md.
//
// The chapter's layer is an MLP: In[B,D] . W_in[D,F] -> Tmp[B,F], Tmp . W_out[F,D] -> Out[B,D]
// (n_mats = 2; a gated MLP has 3 matrices, the gate behaving like W_in). B is the global batch in
// tokens. The formulas call the transformers chapter for counts and FLOPs, the sharding chapter for
// collective times and the roofline chapter for T_math and intensities.
#pragma once
#include <string_view>
#include <vector>

namespace sb::hw {
struct Chip;
}
namespace sb::transformers {
struct Config;
}

namespace sb::training {

// ------------------------------------------------------------------ A.1 hardware

struct Hardware {
  double C = 0;      // peak FLOPs/s per chip (bf16 unless stated)
  double W_ici = 0;  // ICI bandwidth per axis per chip, both directions, B/s (v5p 1.8e11)
  double W_dcn = 0;  // DCN egress per chip, B/s (v5p 6.25e9); 0 if the chip has none
  double W_hbm = 0;  // HBM bandwidth per chip, B/s
  double hbm = 0;    // HBM capacity per chip, B
  double w_uni = 0;  // one direction of one ICI link, B/s (W_ici = 2 w_uni)
};
// A.1: the figures of a chip from data/chips.json; InputError(field) for a missing one.
Hardware hardware_of(const hw::Chip& chip, std::string_view dtype = "bf16",
                     std::string_view field = "chip");
// A.1: alpha = C / W_ici, the ICI arithmetic intensity (v5p: 2550 tokens).
double alpha_ici(const Hardware& h);
// A.1: alpha_dcn = C / W_dcn (v5p: 73,440 tokens).
double alpha_dcn(const Hardware& h);
// A.1 / Ex14: per-chip DCN bandwidth, a host's over its chips (25 GB/s / 4 = 6.25e9 B/s).
double w_dcn_per_chip(double host_bw, double chips_per_host);

// ------------------------------------------------------------------ the model trained

// The model a calculator trains: the transformers chapter's one model input
// (transformers::choose_model) with these of its fields; F is the dense layers' MLP width.
struct ModelFields {
  double L = 0, D = 0, F = 0, N = 0, K = 0, H = 0, V = 0;
};
inline constexpr std::string_view kCustomModel = "custom";
transformers::Config model_config(std::string_view id, const ModelFields& f);

// ------------------------------------------------------------------ A.2 the layer

struct Layer {
  double D = 0, F = 0;
  double n_mats = 2;  // 2 in the chapter's formulas, 3 for a gated MLP
};
// The chapter's layer for a transformer: its D, its F (MoE: the width a token uses, (k + shared)
// F_e) and 3 matrices if gated.
Layer layer_of(const transformers::Config& c);
// A.2: forward FLOPs of one layer for B tokens: 2 B D F per matrix (4BDF for 2 matrices).
double layer_flops_fwd(const Layer& l, double B);
// A.2: backward does twice the forward: the weight and the input gradient of each matrix (8BDF).
double layer_flops_bwd(const Layer& l, double B);
// A.2: bytes of the layer's weights (bf16: 2 n_mats D F), what FSDP gathers and DP reduces.
double layer_weight_bytes(const Layer& l, double bytes_per_param = 2);
// A.2: bytes of one activation row per token, In[B,D] in bf16 (2D), what TP gathers.
double activation_row_bytes(const Layer& l, double bytes_per_elem = 2);

// ------------------------------------------------------------------ A.3, A.4 per-layer times

// One phase (forward or backward) of one layer: the time of each term on one chip.
struct Phase {
  double math = 0;             // T_math: FLOPs per chip / C
  double fsdp = 0;             // FSDP weight gathers (and gradient reduce-scatters)
  double tp = 0;               // TP activation gathers and reduce-scatters
  double dp = 0;               // DP gradient all-reduces
  double dcn = 0;              // gradient all-reduce across pods
  double comms() const;        // max of the comms terms: the book overlaps them (A.4 (4))
  double time() const;         // max(T_math, T_comms)                        (A.3)
  bool compute_bound() const;  // T_math > T_comms
};
struct LayerTimes {
  Phase fwd, bwd;
  double time() const { return fwd.time() + bwd.time(); }  // A.7: per-layer roofline
  bool compute_bound() const { return fwd.compute_bound() && bwd.compute_bound(); }
};

// A.4: how the slice's chips are used. X chips do data parallelism (FSDP or plain DP), Y do tensor
// parallelism; M_X, M_Y are the ICI axes each spans (collectives over M axes run M times faster).
// pods > 1 adds pure DP across pods over DCN, each pod holding X Y chips.
enum class XMode { DP, FSDP };
struct Split {
  double X = 1, Y = 1;
  double M_X = 1, M_Y = 1;
  XMode x_mode = XMode::FSDP;
  double pods = 1;
};

// A.4: T_math per phase: forward 2 n B D F / (N C), backward twice that. B is the batch the slice
// processes (the global batch over the pods).
double t_math_fwd(const Layer& l, double B, double chips, const Hardware& h);

// The collectives behind each strategy, over bytes (a layer's weights `weight_bytes`, or a batch's
// activation rows `act_bytes`), so that any layer (the chapter's MLP, or a whole transformer
// layer) can use them. Each is one of the sharding chapter's collectives.
// FSDP: AllGather the Y shard of the weights over X's M_X axes (A.4 (2)).
double t_weight_gather(double weight_bytes, double Y, double M_X, const Hardware& h);
// TP: AllGather In and ReduceScatter Out, each the X shard of the rows, over Y's M_Y axes (A.4
// (3)).
double t_act_gather_scatter(double act_bytes, double X, double M_Y, const Hardware& h);
// DP: AllReduce the Y shard of the weight gradients over X's M_X axes (A.4 (1)).
double t_grad_allreduce(double weight_bytes, double Y, double M_X, const Hardware& h);
// Across pods: AllReduce the gradients, each of a pod's M chips its 1/M over its DCN link (A.4
// (6)).
double t_grad_allreduce_dcn(double weight_bytes, double chips_per_pod, const Hardware& h);
// Pipelining: the one-hop copy of a stage's output rows (Y-sharded) to the next stage, over one
// link one way (A.4 (5)).
double t_pipeline_hop(double act_bytes, double Y, const Hardware& h);
// Pipelining: the idle share of a step with Z stages and m microbatches, (Z - 1) / (m + Z - 1):
// the GPipe/1F1B estimate, from outside the chapter (which gives no bubble formula).
double pipeline_bubble(double Z, double m);
// The same schedule's length in stage-steps: m + Z - 1 (each stage idles Z - 1 of them).
double pipeline_slots(double Z, double m);
// The share of the batch's checkpoints a stage holds at once: a 1F1B schedule keeps at most Z of
// the m microbatches in flight, min(m, Z) / m.
double pipeline_in_flight(double Z, double m);
// A.4 (2): FSDP forward gathers each weight matrix sharded over X, its Y shard 2DF/Y bytes:
// n AllGathers over M_X axes, 2 n D F / (Y W_ici M_X) (4DF/(Y W M_X) for 2 matrices).
double t_fsdp_fwd(const Layer& l, double Y, double M_X, const Hardware& h);
// A.4 (3): TP forward: AllGather In[B_X, D_Y] and ReduceScatter Out[B_X, D]{U_Y}, each 2 B D / X
// bytes over M_Y axes: 4 B D / (X W_ici M_Y).
double t_tp_fwd(const Layer& l, double B, double X, double M_Y, const Hardware& h);
// A.4 (1): DP backward: an AllReduce of each weight gradient (Y shard) over X's M_X axes:
// 2 x 2 n D F / (Y W_ici M_X) (8DF/(W M_X) for 2 matrices).
double t_dp_bwd(const Layer& l, double Y, double M_X, const Hardware& h);
// A.4 (6): across pods: an AllReduce of the layer's gradients, spread over the M chips of a pod,
// each with its own DCN bandwidth: 2 x 2 n D F / (M W_dcn) (8DF/(M W_dcn) for 2 matrices).
double t_dcn_bwd(const Layer& l, double chips_per_pod, const Hardware& h);
// A.4: both phases of one layer under a split. Backward: T_math doubles; FSDP gathers again and
// reduce-scatters the gradients (2 x forward); TP gathers dOut and reduce-scatters dIn (as
// forward; the summary table's 8BD/X for FSDP+TP is inconsistent with its TP row, A.5);
// DP all-reduces; DCN all-reduces across pods.
LayerTimes layer_times(const Layer& l, double B, const Split& s, const Hardware& h);

// ------------------------------------------------------------------ A.4 compute-bound conditions

// A.4 (1), (2): DP and FSDP are compute-bound iff B/X > alpha / M_X (v5p: 2550, 850 on 3 axes).
double dp_min_batch_per_chip(double alpha, double M_X);
// Ex5, Ex6: the most chips DP/FSDP keeps compute-bound for a batch: B M_X / alpha.
double fsdp_max_chips(double B, double alpha, double M_X);
// A.4 (3): TP is compute-bound iff Y < M_Y F / alpha, whatever the batch (Ex7, Ex8).
double tp_max_degree(double F, double alpha, double M_Y);
// Ex7: the F a TP degree Y needs: Y alpha / M_Y.
double tp_min_F(double Y, double alpha, double M_Y);
// A.4 (4): FSDP + TP at the best split is compute-bound iff B/N > alpha^2 / (M_X M_Y F).
double mixed_min_batch_per_chip(double alpha, double F, double M_X, double M_Y);
// A.4 (4), older copies of the chapter: with the FSDP and TP terms added instead of overlapped,
// the floor is 4 alpha^2 / (M_X M_Y F), four times higher (the book's model is the max).
double mixed_min_batch_per_chip_additive(double alpha, double F, double M_X, double M_Y);
// Ex12, Ex15.c: the global batch (or the chips) at that floor: N alpha^2 / (M_X M_Y F).
double mixed_min_batch(double N, double alpha, double F, double M_X, double M_Y);
double mixed_max_chips(double B, double alpha, double F, double M_X, double M_Y);
// A.4 (4): the FSDP degree where the two comm terms are equal, sqrt((B/F)(M_X/M_Y) N).
double x_opt(double B, double F, double N, double M_X, double M_Y);
// A.4 (4) (derived): X keeps both terms compute-bound on [N alpha / (F M_Y), B M_X / alpha].
struct XWindow {
  double lo = 0, hi = 0;
  bool empty() const { return lo > hi; }
};
XWindow x_window(double B, double F, double N, double alpha, double M_X, double M_Y);
// A.4 (4): T_math / T_comms at X_opt: sqrt(B F M_X M_Y) / (alpha sqrt(N)).
double mixed_ratio(double B, double F, double N, double alpha, double M_X, double M_Y);
// A.4 (6): across pods, the batch per pod must exceed alpha_dcn = C / W_dcn.
bool dcn_compute_bound(double B, double pods, const Hardware& h);
// The book's rounding of X_opt on its power-of-two slices: the nearest power of two on a log scale
// (Ex10: 13.7 -> 16; Q3: 1333 -> 1024). It need not divide N on other slices; see round_split.
double round_pow2(double x);
// The divisor of N nearest X_opt on a log scale, the book's rounding to a feasible degree (on a
// power-of-two slice, the nearest power of two: Ex10 13.7 -> 16; Q3 1333 -> 1024).
double round_split(double x_opt, double N);

// ------------------------------------------------------------------ A.4 one strategy, whole

// The strategies of A.4, as the chapter presents them one by one.
enum class Strategy { DP, FSDP, TP, FSDP_TP, Pipeline, DCN };
const char* strategy_label(Strategy s);  // "DP", "FSDP", "TP", "FSDP+TP", "pipeline", "DP over DCN"

// One strategy on N chips (per pod for DCN). The X group spans M_X ICI axes, the Y group M_Y: DP
// and FSDP use every axis (M_X = axes), TP too (M_Y = axes), FSDP + TP gives M_Y of them to TP and
// the rest to FSDP. Pipeline: Z stages of N / Z chips, FSDP inside each stage, m microbatches.
// DCN: `pods` pods of N chips, FSDP (Y = 1) or FSDP + TP (Y > 1) inside each.
struct StrategyInput {
  Layer layer;
  double L = 0;         // layers
  double P = 0;         // parameters the optimizer holds (10 P bytes, A.6)
  double B = 0;         // global batch, tokens
  double N = 0;         // chips (per pod for DCN)
  double axes = 3;      // ICI axes of the slice
  double M_Y = 1;       // FSDP + TP and DCN: axes given to TP
  double Y = 0;         // FSDP + TP and DCN: TP degree; 0 = X_opt rounded to a divisor of N
  double Z = 1, m = 1;  // pipeline stages and microbatches
  double pods = 1;      // DCN
  Hardware hw;
};
// One collective of one layer (or one stage boundary, for pipelining): what moves and its cost.
struct Collective {
  const char* phase;  // "forward", "backward"
  const char* op;     // "AllGather", "ReduceScatter", "AllReduce", "copy"
  const char* array;  // "W_in", "In", "dW_out", ...
  const char* axis;   // "X", "Y", "DCN", "next stage"
  double bytes = 0;   // V: the full size of what is gathered or reduced (the chapter's convention)
  double t = 0;       // seconds on one chip
  bool critical = false;  // on the critical path (TP's activations); else prefetched or async
};
// A compute-bound condition, lhs > rhs (or lhs < rhs for an upper bound), with its verdict.
struct Condition {
  const char* text;   // "B/N > alpha / M_X"
  const char* words;  // the same in a derivation's words, its math as TeX: "$B/N > \\alpha / M_X$"
  const char* unit;   // of both sides: "tokens", "count", "s"
  double lhs = 0, rhs = 0;
  bool upper = false;  // lhs < rhs
  bool holds() const { return upper ? lhs < rhs : lhs > rhs; }
};
struct StrategyCost {
  Strategy strategy = Strategy::DP;
  Split split;
  LayerTimes t;               // one layer (pipeline: one layer at the whole batch)
  double per_chip_batch = 0;  // B / chips over all pods
  double step = 0;            // L x per-layer roofline (pipeline: plus the bubble)
  double mfu = 0;             // MFU bound: T_math over the step
  double bubble = 0;          // pipeline: (Z - 1) / (m + Z - 1), from outside the chapter
  double hop = 0;             // pipeline: one stage boundary's copy for one microbatch
  double stage_math = 0;      // pipeline: one stage's math for one microbatch
  double mem = 0;             // bytes per chip (A.6)
  bool fits = false;          // mem <= HBM
  double x_opt = 0;           // FSDP + TP: sqrt((B/F)(M_X/M_Y) N); else 0
  XWindow window;             // FSDP + TP: the compute-bound X
  std::vector<Collective> collectives;
  std::vector<Condition> conditions;  // the chapter's closed forms for this strategy
  bool compute_bound() const;         // every phase: T_math above T_comms (and no hop wait)
};
// A.4: the strategy's sharding, collectives, times, conditions and memory. InputError naming the
// field for a Y that does not divide N, more stages than layers, and the like.
StrategyCost strategy_cost(Strategy s, const StrategyInput& in);

// ------------------------------------------------------------------ A.6 memory

// A.6: bf16 weights and Adam's two fp32 moments, 10 bytes per parameter (transformers A.11).
double params_optimizer_bytes(double P);
// A.4 (1) / Ex2: the largest model plain DP holds: HBM / 10 (96 GB -> 9.6e9).
double max_params_pure_dp(double hbm, double bytes_per_param = 10);
// A.6: bf16 checkpoints after each big matmul, one [B,D] and (n_mats - 1) [B,F] per layer:
// 2 L B (D + (n_mats - 1) F).
double checkpoint_bytes(const Layer& l, double L, double B);
// A.6: per chip, parameters and optimizer over the chips that shard them (DP: Y; FSDP: X Y) and
// activations over the chips that split them (X Y).
double memory_per_chip(double P, double activation_bytes, const Split& s);
// Q3, IQ7: sequences in a batch of B tokens, B / T: the largest DP degree without sequence
// sharding.
double sequences(double B, double T);

// ------------------------------------------------------------------ A.7 step and training time

// A.7: T_step = 6 B P / (N C MFU).
double step_time_at_mfu(double B, double P, double chips, double C, double mfu);
// A.7: training time, FLOPs / (N C MFU).
double train_time(double flops, double chips, double C, double mfu);

}  // namespace sb::training
