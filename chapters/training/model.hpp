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
// strategy of the chapter in full is in strategy.hpp; the search in planner.hpp.
#pragma once
#include <string>
#include <string_view>

#include "core/formula.hpp"

namespace sb::hw {
struct Chip;
}
namespace sb::transformers {
struct Config;
}

namespace sb::training {

// The chapter's symbols: their units and the ranges the record test draws them from.
inline constexpr Symbol kSymbols[] = {
    sym("C", "flop_per_s", 1e12, 1e16, "peak FLOPs/s of one chip"),
    sym("W_ici", "B_per_s", 1e9, 1e13, "ICI bandwidth of one axis per chip, both directions"),
    sym("W_dcn", "B_per_s", 1e8, 1e12, "DCN bandwidth per chip"),
    sym("W_hbm", "B_per_s", 1e10, 1e14, "HBM bandwidth per chip"),
    sym("W_host", "B_per_s", 1e9, 1e12, "DCN bandwidth of one host"),
    whole("n_host", "count", 1, 64, "chips per host"),
    sym("w_uni", "B_per_s", 1e9, 1e12, "one direction of one ICI link"),
    sym("alpha", "tokens", 10, 1e5, "ICI intensity, C / W_ici"),
    sym("alpha_dcn", "tokens", 100, 1e7, "DCN intensity, C / W_dcn"),
    sym("B", "tokens", 1, 1e9, "global batch in tokens"),
    sym("N", "chips", 1, 1e6, "chips"),
    sym("N_pod", "chips", 1, 1e5, "chips in a pod"),
    sym("M", "chips", 1, 1e5, "chips of one pod (each with its own DCN link)"),
    sym("X", "count", 1, 1e5, "data (FSDP or DP) degree"),
    sym("Y", "count", 1, 1e5, "tensor-parallel degree"),
    sym("X_opt", "count", 1, 1e6, "the FSDP degree where the FSDP and TP terms are equal"),
    sym("M_X", "count", 0.1, 3, "ICI axes the data axis spans"),
    sym("M_Y", "count", 0.1, 3, "ICI axes tensor parallelism spans"),
    sym("D", "count", 64, 1e5, "model width"),
    sym("F", "count", 64, 1e6, "MLP width a token uses"),
    whole("n", "count", 2, 3, "matrices of the MLP (2; 3 when gated)"),
    sym("L", "count", 1, 1000, "layers"),
    sym("P", "count", 1e6, 1e13, "parameters"),
    sym("b", "B", 0.5, 8, "bytes per element"),
    sym("b_w", "B", 0.5, 8, "bytes per weight"),
    sym("b_opt", "B", 1, 16, "bytes of optimizer state per parameter"),
    with_tex(sym("HBM", "B", 1e9, 1e12, "HBM per chip"), "\\mathrm{HBM}"),
    sym("V_w", "B", 1, 1e13, "bytes of weights (a layer's, or one matrix's)"),
    sym("V_a", "B", 1, 1e13, "bytes of activations"),
    sym("f", "flop", 1e3, 1e12, "forward FLOPs per token of one layer"),
    whole("Z", "count", 1, 1000, "pipeline stages"),
    whole("m", "count", 1, 4096, "microbatches"),
    sym("pods", "count", 1, 1e4, "pods"),
    sym("MFU", "ratio", 0.01, 1, "model FLOPs utilisation"),
    sym("FLOPs", "flop", 1e15, 1e27, "training FLOPs"),
    sym("T", "tokens", 1, 1e6, "sequence length"),
    sym("S", "B", 1, 1e15, "bytes of parameters and optimizer state"),
    sym("A", "B", 1, 1e16, "bytes of activation checkpoints"),
    sym("k", "count", 1, 64, "experts a token is routed to"),
    sym("A_max", "count", 1, 64, "chips along the longest axis of the all-to-all's group"),
    sym("b_FSDP", "tokens", 1, 1e5, "FSDP's floor on the batch per chip"),
    sym("B_chip", "tokens", 1, 1e6, "batch per chip"),
    sym("b_mixed", "tokens", 0.01, 1e5, "FSDP + TP's floor on the batch per chip"),
};

// ------------------------------------------------------------------ A.1 hardware

struct Hardware {
  double C = 0;      // peak FLOPs/s per chip (bf16 unless stated)
  double W_ici = 0;  // ICI bandwidth per axis per chip, both directions, B/s (v5p 1.8e11)
  double W_dcn = 0;  // DCN egress per chip, B/s (v5p 6.25e9); 0 if the chip has none
  double W_hbm = 0;  // HBM bandwidth per chip, B/s
  double hbm = 0;    // HBM capacity per chip, B
  double w_uni = 0;  // one direction of one ICI link, B/s (W_ici = 2 w_uni)
};
// The chip of a training calculator: a TPU of the tables. Any other chip (a GPU) is an InputError
// naming `field` that says what it lacks here: an ICI torus to lay the mesh on.
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

// ------------------------------------------------------------------ A.4 compute-bound conditions

// The batch each chip (or each pod) processes: B / N, B / pods.
double per_chip_batch(double B, double chips);
inline constexpr Formula kPerChipBatch =
    record("B_chip", "B / N", "tokens", "A.4", "B N", kSymbols,
           [](const double* x) { return per_chip_batch(x[0], x[1]); });
double per_pod_batch(double B, double pods);
inline constexpr Formula kPerPodBatch =
    record("B_pod", "B / pods", "tokens", "A.4 (6)", "B pods", kSymbols,
           [](const double* x) { return per_pod_batch(x[0], x[1]); });
// The global batch N chips carry at a batch per chip: B_chip N.
double global_batch(double per_chip, double chips);
inline constexpr Formula kGlobalBatch =
    record("B", "B_chip * N", "tokens", "A.4 (1)", "B_chip N", kSymbols,
           [](const double* x) { return global_batch(x[0], x[1]); });
// The chips of several pods: N_pod pods.
double total_chips(double pod_chips, double pods);
inline constexpr Formula kTotalChips =
    record("N", "N_pod * pods", "chips", "A.4 (6)", "N_pod pods", kSymbols,
           [](const double* x) { return total_chips(x[0], x[1]); });
// How many pods N chips make: N / N_pod.
double pods_of(double chips, double pod_chips);
inline constexpr Formula kPodsOf =
    record("pods", "N / N_pod", "count", "A.4 (6)", "N N_pod", kSymbols,
           [](const double* x) { return pods_of(x[0], x[1]); });
// A.4 (1), (2): DP and FSDP are compute-bound iff B/X > alpha / M_X (v5p: 2550, 850 on 3 axes).
double dp_min_batch_per_chip(double alpha, double M_X);
inline constexpr Formula kDpFloor =
    record("b_FSDP", "alpha / M_X", "tokens", "A.4 (1)", "alpha M_X", kSymbols,
           [](const double* x) { return dp_min_batch_per_chip(x[0], x[1]); });
// Ex5, Ex6: the most chips DP/FSDP keeps compute-bound for a batch: B M_X / alpha.
double fsdp_max_chips(double B, double alpha, double M_X);
inline constexpr Formula kFsdpMaxChips =
    record("N", "B * M_X / alpha", "chips", "A.4 (2)", "B M_X alpha", kSymbols,
           [](const double* x) { return fsdp_max_chips(x[0], x[2], x[1]); });
// A.4 (3): TP is compute-bound iff Y < M_Y F / alpha, whatever the batch (Ex7, Ex8).
double tp_max_degree(double F, double alpha, double M_Y);
inline constexpr Formula kTpMaxDegree =
    record("Y", "M_Y * F / alpha", "count", "A.4 (3)", "M_Y F alpha", kSymbols,
           [](const double* x) { return tp_max_degree(x[1], x[2], x[0]); });
// Ex7: the F a TP degree Y needs: Y alpha / M_Y.
double tp_min_F(double Y, double alpha, double M_Y);
inline constexpr Formula kTpMinF =
    record("F", "Y * alpha / M_Y", "count", "A.4 (3)", "Y alpha M_Y", kSymbols,
           [](const double* x) { return tp_min_F(x[0], x[1], x[2]); });
// A.4 (4): FSDP + TP at the best split is compute-bound iff B/N > alpha^2 / (M_X M_Y F).
double mixed_min_batch_per_chip(double alpha, double F, double M_X, double M_Y);
inline constexpr Formula kMixedFloor =
    record("b_mixed", "alpha^2 / (M_X * M_Y * F)", "tokens", "A.4 (4)", "alpha M_X M_Y F", kSymbols,
           [](const double* x) { return mixed_min_batch_per_chip(x[0], x[3], x[1], x[2]); });
// A.4 (4), older copies of the chapter: with the FSDP and TP terms added instead of overlapped,
// the floor is 4 alpha^2 / (M_X M_Y F), four times higher (the book's model is the max).
double mixed_min_batch_per_chip_additive(double alpha, double F, double M_X, double M_Y);
inline constexpr Formula kMixedFloorAdditive = record(
    "b_mixed", "4 * alpha^2 / (M_X * M_Y * F)", "tokens",
    "beyond the book: Part 5 before Aug 2025, which added the FSDP and TP terms", "alpha M_X M_Y F",
    kSymbols,
    [](const double* x) { return mixed_min_batch_per_chip_additive(x[0], x[3], x[1], x[2]); });
// Ex12, Ex15.c: the global batch (or the chips) at that floor: N alpha^2 / (M_X M_Y F).
double mixed_min_batch(double N, double alpha, double F, double M_X, double M_Y);
inline constexpr Formula kMixedMinBatch =
    record("B", "N * alpha^2 / (M_X * M_Y * F)", "tokens", "A.4 (4)", "N alpha M_X M_Y F", kSymbols,
           [](const double* x) { return mixed_min_batch(x[0], x[1], x[4], x[2], x[3]); });
double mixed_max_chips(double B, double alpha, double F, double M_X, double M_Y);
inline constexpr Formula kMixedMaxChips =
    record("N", "B * M_X * M_Y * F / alpha^2", "chips", "A.4 (4)", "B M_X M_Y F alpha", kSymbols,
           [](const double* x) { return mixed_max_chips(x[0], x[4], x[3], x[1], x[2]); });
// A.4 (4): the FSDP degree where the two comm terms are equal, sqrt((B/F)(M_X/M_Y) N).
double x_opt(double B, double F, double N, double M_X, double M_Y);
inline constexpr Formula kXOpt =
    record("X_opt", "sqrt(B / F * (M_X / M_Y) * N)", "count", "A.4 (4)", "B F M_X M_Y N", kSymbols,
           [](const double* x) { return x_opt(x[0], x[1], x[4], x[2], x[3]); });
// A.4 (4) (derived): X keeps both terms compute-bound on [N alpha / (F M_Y), B M_X / alpha]; the
// lower end is the TP limit restated, the upper FSDP's (fsdp_max_chips).
struct XWindow {
  double lo = 0, hi = 0;
  bool empty() const { return lo > hi; }
};
double x_window_lo(double N, double alpha, double F, double M_Y);
inline constexpr Formula kXWindowLo =
    record("X", "N * alpha / (F * M_Y)", "count", "A.4 (4)", "N alpha F M_Y", kSymbols,
           [](const double* x) { return x_window_lo(x[0], x[1], x[2], x[3]); });
XWindow x_window(double B, double F, double N, double alpha, double M_X, double M_Y);
// The window in a reader's words: "every X from 797 to 3290", or, when it is empty, that no such
// degree exists and why (the batch per chip below the floor).
std::string window_words(const XWindow& w, double per_chip, double floor);
// A.4 (4): T_math / T_comms at X_opt: sqrt(B F M_X M_Y) / (alpha sqrt(N)).
double mixed_ratio(double B, double F, double N, double alpha, double M_X, double M_Y);
inline constexpr Formula kMixedRatio =
    record("ratio", "sqrt(B * F * M_X * M_Y) / (alpha * sqrt(N))", "ratio", "A.4 (4)",
           "B F M_X M_Y alpha N", kSymbols,
           [](const double* x) { return mixed_ratio(x[0], x[1], x[5], x[4], x[2], x[3]); });
// How many times lower the mixed floor is than FSDP's: b_FSDP / b_mixed (Ex11).
double floor_gain(double fsdp_floor, double mixed_floor);
inline constexpr Formula kFloorGain =
    record("gain", "b_FSDP / b_mixed", "ratio", "A.4 (4)", "b_FSDP b_mixed", kSymbols,
           [](const double* x) { return floor_gain(x[0], x[1]); });
// A.4 (6): across pods, the batch per pod must exceed alpha_dcn = C / W_dcn.
bool dcn_compute_bound(double B, double pods, const Hardware& h);
// The book's rounding of X_opt on its power-of-two slices: the nearest power of two on a log scale
// (Ex10: 13.7 -> 16; Q3: 1333 -> 1024; IQ9: 1619 -> 2048).
double round_pow2(double x);
inline constexpr Formula kRoundPow2 =
    record("X", "2^floor(log2(X_opt) + 0.5)", "count", "A.4 (4)", "X_opt", kSymbols,
           [](const double* x) { return round_pow2(x[0]); });
// The 16x16x16 figure's model: F = 4D (Ex12).
double mlp_width_4d(double D);
inline constexpr Formula kMlpWidth4D = record("F", "4 * D", "count", "A.4 (4)", "D", kSymbols,
                                              [](const double* x) { return mlp_width_4d(x[0]); });

// ------------------------------------------------------------------ layouts a mesh can hold

// A TP degree a model's layers can be split into: Y divides D and the KV heads, or the query heads
// with the KV heads replicated (Y above K). Any Y for a model with no heads (the chapter's MLP
// alone: N = 0).
bool tp_degree_fits(double Y, double D, double N_heads, double K_heads);
// The words of a TP degree that does not fit: "5 divides neither the 8 KV heads nor the 64 query
// heads".
std::string tp_degree_misfit(double Y, double D, double N_heads, double K_heads);
// The chapter's FSDP x TP recipe on N chips: X_opt rounded to a power of two (as the chapter
// rounds, at most N), and Y the largest power-of-two TP degree the model takes with X Y <= N. When
// no factorisation uses every chip (8960 = 2^8 x 35), the recipe runs on a sub-slice of X Y chips
// and the others stay idle (the chapter's IQ9: 2048 x 4 of 8960, 768 idle).
struct Recipe {
  double X = 1, Y = 1;
  double used = 1, idle = 0;  // chips
};
Recipe mixed_recipe(double x_opt, double N, double D, double N_heads, double K_heads);
// "2048-way FSDP x 4-way TP on 8192 of the 8960 chips, 768 idle (the optimal FSDP degree, 1619,
// rounded to a power of two, as the chapter does)".
std::string recipe_words(const Recipe& r, double x_opt);

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
