// Part 5, "How to Parallelize a Transformer for Training": data parallelism, FSDP (ZeRO-3), tensor
// parallelism, FSDP + TP, pipelining and data parallelism across pods over DCN. For each: what is
// sharded, the collectives per layer and their bytes, T_math and T_comms per layer, the
// compute-bound conditions, and memory per chip. Quantities are doubles in SI base units. Section
// labels (A.2 ...) refer to the chapter notes shared/book/training.md.
//
// The chapter's layer is an MLP: In[B,D] . W_in[D,F] -> Tmp[B,F], Tmp . W_out[F,D] -> Out[B,D]
// (n = 2 matrices; a gated MLP has 3, the gate behaving like W_in). B is the global batch in
// tokens. The formulas call the transformers chapter for counts and FLOPs, the sharding chapter for
// collective times and the roofline chapter for T_math and intensities. Each formula is a record
// (core/formula.hpp) beside its function; the derivations are rendered from the records.
//
// What every widget times (the layer of a real model, the planner's search) is in costs.hpp; one
// strategy of the chapter in full is in strategy.hpp; the search in planner.hpp. The symbols are in
// symbols.hpp and the compute-bound conditions (A.4) in conditions.hpp, both included here.
#pragma once
#include <string>
#include <string_view>

#include "chapters/training/conditions.hpp"
#include "chapters/training/symbols.hpp"
#include "core/formula.hpp"

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
// The chip of a torus-only training calculator (strategy, split, regime map, the case study): a
// TPU of the tables. A GPU is an InputError naming `field` that says what it lacks here, the torus
// axes, and that the planner takes GPU clusters (planner_gpu.cpp).
const hw::Chip& tpu_chip(std::string_view id, std::string_view field = "chip");
// A.1: the figures of a chip from data/chips.json; InputError(field) for a missing one.
Hardware hardware_of(const hw::Chip& chip, std::string_view dtype = "bf16",
                     std::string_view field = "chip");
// A.1: alpha = C / W_ici, the ICI arithmetic intensity (v5p: 2550 tokens).
double alpha_ici(const Hardware& h);
inline constexpr Formula kAlpha =
    record("alpha", "C / W_ici", "tokens", "A.1", "C W_ici", kSymbols, [](const double* x) {
      Hardware h;
      h.C = x[0], h.W_ici = x[1];
      return alpha_ici(h);
    });
// A.4 (6): alpha_dcn = C / W_dcn (v5p: 73,440 tokens).
double alpha_dcn(const Hardware& h);
inline constexpr Formula kAlphaDcn =
    record("alpha_dcn", "C / W_dcn", "tokens", "A.4 (6)", "C W_dcn", kSymbols, [](const double* x) {
      Hardware h;
      h.C = x[0], h.W_dcn = x[1];
      return alpha_dcn(h);
    });
// A.1 / Ex14: per-chip DCN bandwidth, a host's over its chips (25 GB/s / 4 = 6.25e9 B/s).
double w_dcn_per_chip(double host_bw, double chips_per_host);
inline constexpr Formula kWDcnPerChip =
    record("W_dcn", "W_host / n_host", "B_per_s", "A.1", "W_host n_host", kSymbols,
           [](const double* x) { return w_dcn_per_chip(x[0], x[1]); });

// ------------------------------------------------------------------ A.2 the layer

struct Layer {
  double D = 0, F = 0;
  double n_mats = 2;  // 2 in the chapter's formulas, 3 for a gated MLP
};
// The chapter's layer for a transformer: its D, the MLP width a token uses (an MoE: (k + shared)
// experts' widths) and its own matrix count (3 when gated); `book` takes the chapter's 2 matrices.
Layer layer_of(const transformers::Config& c, bool book = false);
// A.2: forward FLOPs of one layer for B tokens: 2 B D F per matrix (4BDF for 2 matrices).
double layer_flops_fwd(const Layer& l, double B);
inline constexpr Formula kLayerFlopsFwd =
    record("FLOPs", "2 * n * B * D * F", "flop", "A.2", "n B D F", kSymbols, [](const double* x) {
      return layer_flops_fwd({x[2], x[3], x[0]}, x[1]);
    });
// A.2: backward does twice the forward: the weight and the input gradient of each matrix (8BDF).
double layer_flops_bwd(const Layer& l, double B);
inline constexpr Formula kLayerFlopsBwd =
    record("FLOPs", "4 * n * B * D * F", "flop", "A.2", "n B D F", kSymbols, [](const double* x) {
      return layer_flops_bwd({x[2], x[3], x[0]}, x[1]);
    });
// A.2: bytes of the layer's weights (bf16: 2 n D F), what FSDP gathers and DP reduces.
double layer_weight_bytes(const Layer& l, double bytes_per_param = 2);
inline constexpr Formula kLayerWeightBytes =
    record("V_w", "b * n * D * F", "B", "A.2", "b n D F", kSymbols, [](const double* x) {
      return layer_weight_bytes({x[2], x[3], x[1]}, x[0]);
    });
// A.2: bytes of one activation row per token, In[B,D] in bf16 (2D), what TP gathers.
double activation_row_bytes(const Layer& l, double bytes_per_elem = 2);
// A.2: T_math of a layer phase on N chips from its FLOPs per token f: f B / (N C).
double t_math_layer(double flops_per_token, double B, double chips, double C);
inline constexpr Formula kTMathLayer =
    record("T_math", "f * B / (N * C)", "s", "A.2", "f B N C", kSymbols,
           [](const double* x) { return t_math_layer(x[0], x[1], x[2], x[3]); });
// A.2: the weights of a layer loaded from HBM once per phase, V_w / (Y W_hbm): hidden while the
// local batch is above C / W_hbm (about 240 tokens), which the chapter assumes.
double t_weight_load(double weight_bytes, double Y, const Hardware& h);
inline constexpr Formula kTWeightLoad =
    record("T_HBM", "V_w / (Y * W_hbm)", "s", "A.2", "V_w Y W_hbm", kSymbols, [](const double* x) {
      Hardware h;
      h.W_hbm = x[2];
      return t_weight_load(x[0], x[1], h);
    });

// ------------------------------------------------------------------ A.3, A.4 per-layer times

// One phase (forward or backward) of one layer: the time of each term on one chip.
struct Phase {
  double math = 0;             // T_math: FLOPs per chip / C
  double fsdp = 0;             // FSDP weight gathers (and gradient reduce-scatters)
  double tp = 0;               // TP activation gathers and reduce-scatters
  double dp = 0;               // DP gradient all-reduces
  double dcn = 0;              // gradient all-reduce across pods
  double hbm = 0;              // weights loaded from HBM (beyond the chapter, which hides them)
  double ep = 0;               // expert parallelism's all-to-alls (beyond the chapter)
  double comms() const;        // max of the other terms: the book overlaps them (A.4 (4))
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
inline constexpr Formula kTMathFwd = record("T_math", "2 * n * B * D * F / (N * C)", "s", "A.4",
                                            "n B D F N C", kSymbols, [](const double* x) {
                                              Hardware h;
                                              h.C = x[5];
                                              return t_math_fwd({x[2], x[3], x[0]}, x[1], x[4], h);
                                            });

// The collectives behind each strategy, over bytes (a layer's weights V_w, or a batch's activation
// rows V_a), so that any layer (the chapter's MLP, or a whole transformer layer) can use them.
// Each is one of the sharding chapter's collectives.
// FSDP: AllGather the Y shard of the weights over X's M_X axes (A.4 (2)).
double t_weight_gather(double weight_bytes, double Y, double M_X, const Hardware& h);
inline constexpr Formula kTWeightGather =
    record("T_FSDP", "V_w / (Y * W_ici * M_X)", "s", "A.4 (2)", "V_w Y W_ici M_X", kSymbols,
           [](const double* x) {
             Hardware h;
             h.W_ici = x[2];
             return t_weight_gather(x[0], x[1], x[3], h);
           });
// TP: AllGather In and ReduceScatter Out, each the X shard of the rows, over Y's M_Y axes (A.4
// (3)).
double t_act_gather_scatter(double act_bytes, double X, double M_Y, const Hardware& h);
inline constexpr Formula kTActGatherScatter =
    record("T_TP", "2 * V_a / (X * W_ici * M_Y)", "s", "A.4 (3)", "V_a X W_ici M_Y", kSymbols,
           [](const double* x) {
             Hardware h;
             h.W_ici = x[2];
             return t_act_gather_scatter(x[0], x[1], x[3], h);
           });
// DP: AllReduce the Y shard of the weight gradients over X's M_X axes (A.4 (1)).
double t_grad_allreduce(double weight_bytes, double Y, double M_X, const Hardware& h);
inline constexpr Formula kTGradAllReduce =
    record("T_DP", "2 * V_w / (Y * W_ici * M_X)", "s", "A.4 (1)", "V_w Y W_ici M_X", kSymbols,
           [](const double* x) {
             Hardware h;
             h.W_ici = x[2];
             return t_grad_allreduce(x[0], x[1], x[3], h);
           });
// Across pods: AllReduce the gradients, each of a pod's M chips its 1/M over its DCN link (A.4
// (6)).
double t_grad_allreduce_dcn(double weight_bytes, double chips_per_pod, const Hardware& h);
inline constexpr Formula kTGradAllReduceDcn = record(
    "T_DCN", "2 * V_w / (M * W_dcn)", "s", "A.4 (6)", "V_w M W_dcn", kSymbols, [](const double* x) {
      Hardware h;
      h.W_dcn = x[2];
      return t_grad_allreduce_dcn(x[0], x[1], h);
    });
// Pipelining: the one-hop copy of a stage's output rows (Y-sharded) to the next stage, over one
// link one way (A.4 (5)).
double t_pipeline_hop(double act_bytes, double Y, const Hardware& h);
inline constexpr Formula kTPipelineHop = record("T_hop", "V_a / (Y * w_uni)", "s", "A.4 (5)",
                                                "V_a Y w_uni", kSymbols, [](const double* x) {
                                                  Hardware h;
                                                  h.w_uni = x[2];
                                                  return t_pipeline_hop(x[0], x[1], h);
                                                });
// Pipelining: the activation rows a stage passes on for one microbatch, b D B / (m X) (the
// stage's X chips each send their share).
double stage_copy_bytes(double D, double B, double m, double X, double bytes_per_elem = 2);
inline constexpr Formula kStageCopyBytes =
    record("V_a", "b * D * B / (m * X)", "B", "A.4 (5)", "b D B m X", kSymbols,
           [](const double* x) { return stage_copy_bytes(x[1], x[2], x[3], x[4], x[0]); });
// Pipelining: the idle share of a step with Z stages and m microbatches, (Z - 1) / (m + Z - 1):
// the GPipe estimate, from outside the chapter (which gives no bubble formula).
double pipeline_bubble(double Z, double m);
inline constexpr Formula kPipelineBubble =
    record("bubble", "(Z - 1) / (m + Z - 1)", "ratio",
           "beyond the book: GPipe's bubble (Huang et al., 2019)", "Z m", kSymbols,
           [](const double* x) { return pipeline_bubble(x[0], x[1]); });
// The same schedule's length in stage-steps: m + Z - 1 (each stage idles Z - 1 of them).
double pipeline_slots(double Z, double m);
inline constexpr Formula kPipelineSlots =
    record("slots", "m + Z - 1", "count", "beyond the book: GPipe's schedule (Huang et al., 2019)",
           "Z m", kSymbols, [](const double* x) { return pipeline_slots(x[0], x[1]); });
// The share of the batch's checkpoints a stage holds at once: a 1F1B schedule keeps at most Z of
// the m microbatches in flight, min(m, Z) / m.
double pipeline_in_flight(double Z, double m);
inline constexpr Formula kPipelineInFlight =
    record("in_flight", "min(m, Z) / m", "ratio",
           "beyond the book: the 1F1B schedule (PipeDream-Flush, Narayanan et al., 2021)", "Z m",
           kSymbols, [](const double* x) { return pipeline_in_flight(x[0], x[1]); });
// A.4 (2): FSDP forward gathers each weight matrix sharded over X, its Y shard 2DF/Y bytes:
// n AllGathers over M_X axes, 2 n D F / (Y W_ici M_X) (4DF/(Y W M_X) for 2 matrices).
double t_fsdp_fwd(const Layer& l, double Y, double M_X, const Hardware& h);
inline constexpr Formula kTFsdpFwd =
    record("T_FSDP", "2 * n * D * F / (Y * W_ici * M_X)", "s", "A.4 (4)", "n D F Y W_ici M_X",
           kSymbols, [](const double* x) {
             Hardware h;
             h.W_ici = x[4];
             return t_fsdp_fwd({x[1], x[2], x[0]}, x[3], x[5], h);
           });
// A.4 (3): TP forward: AllGather In[B_X, D_Y] and ReduceScatter Out[B_X, D]{U_Y}, each 2 B D / X
// bytes over M_Y axes: 4 B D / (X W_ici M_Y).
double t_tp_fwd(const Layer& l, double B, double X, double M_Y, const Hardware& h);
inline constexpr Formula kTTpFwd = record("T_TP", "4 * B * D / (X * W_ici * M_Y)", "s", "A.4 (4)",
                                          "B D X W_ici M_Y", kSymbols, [](const double* x) {
                                            Hardware h;
                                            h.W_ici = x[3];
                                            return t_tp_fwd({x[1], 1, 2}, x[0], x[2], x[4], h);
                                          });
// A.4 (1): DP backward: an AllReduce of each weight gradient (Y shard) over X's M_X axes:
// 2 x 2 n D F / (Y W_ici M_X) (8DF/(W M_X) for 2 matrices).
double t_dp_bwd(const Layer& l, double Y, double M_X, const Hardware& h);
inline constexpr Formula kTDpBwd =
    record("T_DP", "4 * n * D * F / (Y * W_ici * M_X)", "s", "A.4 (1)", "n D F Y W_ici M_X",
           kSymbols, [](const double* x) {
             Hardware h;
             h.W_ici = x[4];
             return t_dp_bwd({x[1], x[2], x[0]}, x[3], x[5], h);
           });
// A.4 (6): across pods: an AllReduce of the layer's gradients, spread over the M chips of a pod,
// each with its own DCN bandwidth: 2 x 2 n D F / (M W_dcn) (8DF/(M W_dcn) for 2 matrices).
double t_dcn_bwd(const Layer& l, double chips_per_pod, const Hardware& h);
inline constexpr Formula kTDcnBwd = record("T_DCN", "4 * n * D * F / (M * W_dcn)", "s", "A.4 (6)",
                                           "n D F M W_dcn", kSymbols, [](const double* x) {
                                             Hardware h;
                                             h.W_dcn = x[4];
                                             return t_dcn_bwd({x[1], x[2], x[0]}, x[3], h);
                                           });
// Expert parallelism (not in Part 5): an MoE layer's experts sharded over the data axis, each
// token sent to its k experts' chips and back: two AllToAlls forward and two backward, each of a
// chip's V_a = b k D (tokens per chip) bytes, priced by the sharding chapter's AllToAll on a
// torus, (V / N) A_max / (4 W_ici) per device (Part 3, A4.4).
double t_expert_alltoall(double act_bytes_per_chip, double max_axis, const Hardware& h);
inline constexpr Formula kTExpertAllToAll =
    record("T_EP", "2 * V_a * A_max / (4 * W_ici)", "s",
           "beyond the book: Part 3's AllToAll (A4.4) for an MoE layer's dispatch and return "
           "(transformers A.8)",
           "V_a A_max W_ici", kSymbols, [](const double* x) {
             Hardware h;
             h.W_ici = x[2];
             return t_expert_alltoall(x[0], x[1], h);
           });
// A.4: both phases of one layer under a split. Backward: T_math doubles; FSDP gathers again and
// reduce-scatters the gradients (2 x forward); TP gathers dOut and reduce-scatters dIn (as
// forward; the summary table's 8BD/X for FSDP+TP is inconsistent with its TP row, A.5);
// DP all-reduces; DCN all-reduces across pods.
LayerTimes layer_times(const Layer& l, double B, const Split& s, const Hardware& h);

// ------------------------------------------------------------------ A.6 memory

// A.6: weights and optimizer state: (b_w + b_opt) P (bf16 weights and Adam's two fp32 moments:
// 10 P).
double state_bytes(double P, double bytes_per_weight = 2, double optimizer_bytes_per_param = 8);
inline constexpr Formula kStateBytes =
    record("S", "(b_w + b_opt) * P", "B", "A.6", "b_w b_opt P", kSymbols,
           [](const double* x) { return state_bytes(x[2], x[0], x[1]); });
// A.6: the chapter's 10 bytes per parameter.
double params_optimizer_bytes(double P);
inline constexpr Formula kParamsOptimizerBytes =
    record("S", "10 * P", "B", "A.6", "P", kSymbols,
           [](const double* x) { return params_optimizer_bytes(x[0]); });
// A.4 (1) / Ex2: the largest model plain DP holds: HBM / 10 (96 GB -> 9.6e9).
double max_params_pure_dp(double hbm, double bytes_per_param = 10);
inline constexpr Formula kMaxParamsPureDp =
    record("P", "HBM / b", "count", "A.4 (1)", "HBM b", kSymbols,
           [](const double* x) { return max_params_pure_dp(x[0], x[1]); });
// A.6: bf16 checkpoints after each big matmul, one [B,D] and (n - 1) [B,F] per layer:
// 2 L B (D + (n - 1) F).
double checkpoint_bytes(const Layer& l, double L, double B);
inline constexpr Formula kCheckpointBytes = record(
    "A", "2 * L * B * (D + (n - 1) * F)", "B", "A.6", "L B D n F", kSymbols, [](const double* x) {
      return checkpoint_bytes({x[2], x[4], x[3]}, x[0], x[1]);
    });
// A.6: per chip, parameters and optimizer state S over the chips that shard them (DP: Y; FSDP:
// X Y) and activations A over the chips that split them (X Y, and the pods).
double memory_per_chip(double state, double activation_bytes, const Split& s);
inline constexpr Formula kMemoryFsdp =
    record("mem", "S / (X * Y) + A / (pods * X * Y)", "B", "A.6", "S A X Y pods", kSymbols,
           [](const double* x) {
             return memory_per_chip(x[0], x[1], {x[2], x[3], 1, 1, XMode::FSDP, x[4]});
           });
inline constexpr Formula kMemoryDp = record(
    "mem", "S / Y + A / (pods * X * Y)", "B", "A.6", "S A X Y pods", kSymbols, [](const double* x) {
      return memory_per_chip(x[0], x[1], {x[2], x[3], 1, 1, XMode::DP, x[4]});
    });
// The HBM of a slice: N HBM.
double slice_hbm(double chips, double hbm);
inline constexpr Formula kSliceHbm = record("HBM", "N * HBM", "B", "A.6", "N HBM", kSymbols,
                                            [](const double* x) { return slice_hbm(x[0], x[1]); });
// Q3, IQ7: sequences in a batch of B tokens, B / T: the largest DP degree without sequence
// sharding.
double sequences(double B, double T);
inline constexpr Formula kSequences = record("n_seq", "B / T", "count", "A.1", "B T", kSymbols,
                                             [](const double* x) { return sequences(x[0], x[1]); });

// ------------------------------------------------------------------ A.7 step and training time

// A.7: T_step = 6 B P / (N C MFU).
double step_time_at_mfu(double B, double P, double chips, double C, double mfu);
inline constexpr Formula kStepTimeAtMfu =
    record("T_step", "6 * B * P / (N * C * MFU)", "s", "A.7", "B P N C MFU", kSymbols,
           [](const double* x) { return step_time_at_mfu(x[0], x[1], x[2], x[3], x[4]); });
// A.7: training time, FLOPs / (N C MFU).
double train_time(double flops, double chips, double C, double mfu);
inline constexpr Formula kTrainTime =
    record("T", "FLOPs / (N * C * MFU)", "s", "A.7", "FLOPs N C MFU", kSymbols,
           [](const double* x) { return train_time(x[0], x[1], x[2], x[3]); });

// Every record of the chapter, as register.cpp adds them.
inline constexpr const Formula* kFormulas[] = {&kAlpha,
                                               &kAlphaDcn,
                                               &kWDcnPerChip,
                                               &kLayerFlopsFwd,
                                               &kLayerFlopsBwd,
                                               &kLayerWeightBytes,
                                               &kTMathLayer,
                                               &kTWeightLoad,
                                               &kTMathFwd,
                                               &kTWeightGather,
                                               &kTActGatherScatter,
                                               &kTGradAllReduce,
                                               &kTGradAllReduceDcn,
                                               &kTPipelineHop,
                                               &kStageCopyBytes,
                                               &kPipelineBubble,
                                               &kPipelineSlots,
                                               &kPipelineInFlight,
                                               &kTFsdpFwd,
                                               &kTTpFwd,
                                               &kTDpBwd,
                                               &kTDcnBwd,
                                               &kTExpertAllToAll,
                                               &kPerChipBatch,
                                               &kPerPodBatch,
                                               &kGlobalBatch,
                                               &kTotalChips,
                                               &kPodsOf,
                                               &kDpFloor,
                                               &kFsdpMaxChips,
                                               &kTpMaxDegree,
                                               &kTpMinF,
                                               &kMixedFloor,
                                               &kMixedFloorAdditive,
                                               &kMixedMinBatch,
                                               &kMixedMaxChips,
                                               &kXOpt,
                                               &kXWindowLo,
                                               &kMixedRatio,
                                               &kFloorGain,
                                               &kRoundPow2,
                                               &kMlpWidth4D,
                                               &kStateBytes,
                                               &kParamsOptimizerBytes,
                                               &kMaxParamsPureDp,
                                               &kCheckpointBytes,
                                               &kMemoryFsdp,
                                               &kMemoryDp,
                                               &kSliceHbm,
                                               &kSequences,
                                               &kStepTimeAtMfu,
                                               &kTrainTime};

}  // namespace sb::training
