// Part 5's planner: for a model, a chip, a slice (or a chip count) and a global batch, every way to
// lay the batch and the weights over the slice, with its memory per chip, step-time bound, MFU
// bound and bottleneck; the best plan, and why each other plan loses. Also the regime map: which
// strategies are compute-bound and fit, by chip count and batch per chip (the chapter's figure).
// Every configuration is costed by costs.hpp, as the strategy widget's are.
//
// What the search enumerates. Each axis of the slice (a) is split into ordered factors
// a = x * y * z: x chips to the data axis X (DP or FSDP), y to tensor parallelism Y, z to pipeline
// stages Z (z = 1 when pipelining is off). Whole axes are the cases where one factor is the axis;
// a split axis puts Y's chips side by side (a contiguous segment), Z's next, X's strided outermost.
// Y must be a TP degree the model's layers take (tp_degree_fits: it divides D and the heads), and
// Z at most the layers. For each assignment: X as DP or FSDP (one mode when X = 1), for an MoE
// also with its experts sharded over X (expert parallelism), each rematerialisation policy, and
// for Z > 1 the microbatch counts 1, 4, 16, ..., 4096 (at least one token per X group). Across
// pods, DP over DCN. On a full v5p pod (16x20x28) with LLaMA 3-70B (64 query heads, D = 8192) that
// is 15 x 18 x 18 = 4860 factorisations, of which those with a TP degree of 1, 2, 4, 8 or 16
// remain (bench/planner.cpp measures the search).
//
// The search is bounded by its work: when the configurations would pass max_configs, the
// microbatch counts thin out (1, 16, 256, ...), and past that the search stops at the bound; the
// result says which (PlanResult::bound).
//
// Bandwidth of a split axis (our extension; the book counts whole axes, M_X + M_Y = 3 on a 3D
// torus): a group's collective runs over the sum, over the axes it spans, of the axis weight
// (V / W_ici) / t_AllGather(V) from the sharding chapter: 1 for a whole wrapped axis of even
// length, n / 2(n - 1) for an open segment of n chips, and for X's strided sub-ring that weight
// divided by y z, the groups sharing each link. Whole axes reproduce the book's M_X and M_Y.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "chapters/training/costs.hpp"
#include "chapters/training/model.hpp"
#include "chapters/transformers/model.hpp"

namespace sb::hw {
struct Chip;
}

namespace sb::training {

// ------------------------------------------------------------------ inputs

// One slice: up to 3 axis lengths and whether each wraps (from the tpus chapter's rule).
struct Slice {
  std::vector<int> dims;
  std::vector<bool> wrap;
  double chips() const;
};
// A GPU cluster (the gpus chapter's model): nodes of d_node GPUs on NVLink (the fast axis, the
// slice's first) under a fat tree (the slow axis, the second, one entry per node).
struct GpuCluster {
  double d_node = 0;  // GPUs per NVLink domain; 0: not a GPU cluster
  double nodes = 0;
  double w_gpu = 0;            // NVLink egress per GPU, each way
  double w_node = 0;           // scale-out egress of a node
  bool cross_node_tp = false;  // let TP span nodes (the chapter keeps it inside one)
};
// The slices a request can run on, and how many pods (each one slice) it spans.
struct Topology {
  std::vector<Slice> slices;  // the candidates (one for a shape; every shape of a chip count)
  double pods = 1;
  GpuCluster gpu;  // set for a GPU cluster: one slice {d_node, nodes}, one pod
};
// A slice shape ("16x20x28") the chip comes in, over `pods` pods; InputError(field) otherwise.
Topology topology_for_shape(const hw::Chip& chip, std::string_view shape, double pods = 1,
                            std::string_view field = "shape");
// A chip count: every slice shape of that many chips the chip comes in; a full pod is the pod's
// own shape, and above one pod, whole pods of it; InputError(field) for a count no slice or whole
// number of pods has.
Topology topology_for_chips(const hw::Chip& chip, double chips, std::string_view field = "chips");
// The chip counts a slider may offer: the powers of two up to a pod that some slice has, the full
// pod, and 2 to `max_pods` whole pods.
std::vector<double> chip_counts(const hw::Chip& chip, double max_pods = 8);
// The chips of a full pod of the chip.
double pod_chips(const hw::Chip& chip);

// A GPU cluster of `chips` GPUs (planner_gpu.cpp): whole nodes under the chapter's two-tier fat
// tree. InputError(field) for a count that is not a whole number of nodes or is more than the
// tree takes, and for a GPU the book gives no NVLink or scale-out figures for.
Topology topology_for_gpus(const hw::Chip& chip, double chips, bool cross_node_tp = false,
                           std::string_view field = "chips");
// The GPU counts a slider offers: a node, then powers of two of nodes up to the fat tree's size.
std::vector<double> gpu_counts(const hw::Chip& chip);
// A GPU's figures as the planner's records take them: C, HBM, and W_ici read as NVLink's W_GPU
// (the fast axis' bandwidth per GPU, each way); w_uni the per-GPU scale-out (stage copies cross
// nodes).
Hardware gpu_hardware(const hw::Chip& chip, std::string_view field = "chip");
// The GPU count nearest `chips` that a cluster of the chip is built from: whole nodes (a 72-GPU
// NVL72 rack is one), at least one. A count that is already whole comes back as it is; one above
// the fat tree, or not a count at all, too, for topology_for_gpus to refuse.
double buildable_gpus(const hw::Chip& chip, double chips);
// What a calculator says when it built `used` GPUs for the `asked` ("" when they agree).
std::string snapped_words(const hw::Chip& chip, double asked, double used);
// A layout of X-way data, Y-way TP and Z pipeline stages on a GPU cluster, laid as the planner
// lays it: TP on a divisor of the node's GPUs or on whole nodes, stages on whole nodes, the data
// axis on the rest. M_X and M_Y are the hierarchical AllGathers' bandwidths over NVLink's (0 for a
// degree of 1). InputError naming `y_field` or `z_field` for a layout the cluster cannot hold.
struct GpuAxes {
  double M_X = 0, M_Y = 0;
};
GpuAxes gpu_axes(const GpuCluster& g, double Y, double Z, std::string_view y_field = "Y",
                 std::string_view z_field = "Z");
// The M_X and M_Y the FSDP + TP closed forms take on a GPU cluster: the layout's with TP at Y or,
// when it lacks TP or FSDP, that of TP over the node (over half of it on one node): both positive.
GpuAxes gpu_mixed_axes(const GpuCluster& g, double Y);
// The gpus chapter's TP degree (A.5 (2)): inside one node and under F / alpha, the largest divisor
// of the node's GPUs the model's layers take that also divides the `chips` (at least 1).
double gpu_tp_degree(const GpuCluster& g, double chips, double F, double alpha, double D,
                     double heads, double kv);

// The work a search may do: about 20 ms of the page's time in wasm.
inline constexpr double kMaxConfigs = 250000;

struct PlanInput {
  transformers::Config model;  // validated by plan()
  LayerChoice layer;
  Hardware hw;
  Topology topo;
  double B = 0;  // global batch, tokens
  StateBytes state;
  bool pipeline = true;  // enumerate pipeline stages
  double max_configs = kMaxConfigs;
};

// ------------------------------------------------------------------ plans

// A strategy is a set of these bits: "FSDP+TP", "DP+PP". DCN marks DP across pods, EP an MoE's
// experts sharded over the data axis.
enum StrategyBit : uint8_t { kDP = 1, kFSDP = 2, kTP = 4, kPP = 8, kDCN = 16, kEP = 32 };
std::string strategy_name(uint8_t strategy);
// The strategy classes within a pod: {none, DP, FSDP} x {TP?} x {PP?}, DP and FSDP also with EP;
// indexed by strategy_class(); 0 is the single chip.
inline constexpr int kStrategyClasses = 20;
int strategy_class(uint8_t strategy);

// The term a plan's time is bound by.
enum class Term : uint8_t { Math, Hbm, Fsdp, Tp, Ep, Dp, Dcn, Hop };
const char* term_name(Term t);  // "compute", "HBM", "FSDP gathers", ...

// Why a plan is not the best.
enum class Reason : uint8_t {
  Best,
  OutOfMemory,     // needs more HBM than the chip has
  CommsFsdp,       // FSDP weight gathers outlast the math
  CommsTp,         // TP activation collectives outlast the math
  CommsEp,         // expert parallelism's all-to-alls outlast the math
  CommsDp,         // DP gradient all-reduces outlast the math
  CommsDcn,        // the all-reduce across pods outlasts the math
  HbmBound,        // the local batch is too small to hide the weight loads (C / W_hbm)
  PipelineHop,     // the copies between stages outlast a stage's work
  PipelineBubble,  // compute-bound, but the pipeline idles (Z - 1) / (m + Z - 1)
  Recompute,       // compute-bound, but block remat replays the forward pass (8 vs 6)
  Tie,             // as fast as the best; loses on simplicity, comms headroom or memory
};
const char* reason_name(Reason r);
const char* reason_text(Reason r);  // one sentence for a reader

struct Plan {
  int slice = 0;                                          // index into the topology's slices
  std::array<int, 3> x{1, 1, 1}, y{1, 1, 1}, z{1, 1, 1};  // factors per axis
  int X = 1, Y = 1, Z = 1, m = 1;                         // degrees and microbatches
  double M_X = 0, M_Y = 0;                                // effective axes of X and Y
  double ep_degree = 1;                                   // EP: chips holding distinct experts
  uint8_t strategy = 0;
  transformers::Remat remat = transformers::Remat::BigMatmuls;
  // Results.
  double mem = 0;  // bytes per chip
  MemoryBar memory;
  bool fits = false;
  double t_step = 0;       // step-time bound, s
  double mfu = 0;          // MFU bound: useful FLOPs / (t_step chips C)
  double comms_ratio = 0;  // max over phases of T_comms / T_math
  Term bottleneck = Term::Math;
  bool compute_bound = false;  // every phase: T_math the largest term
  Reason reason = Reason::Tie;
  Timeline timeline;
};

struct PlanResult {
  bool fits = false;  // some plan fits; false: "fits nowhere", best is the closest
  Plan best;          // the fastest plan that fits (or, if none fits, least memory)
  std::array<Plan, kStrategyClasses> by_strategy;  // the best plan of each class ...
  std::array<bool, kStrategyClasses> has{};        // ... when the class occurs
  long long assignments = 0;  // ways to factor the axes into X, Y, Z (summed over slices)
  long long configs = 0;      // configurations evaluated
  long long full = 0;         // configurations the unbounded search has
  int micro_step = 4;         // the microbatch counts tried: 1, step, step^2, ...
  bool cut = false;           // the search stopped at its bound before the end
  double pods = 1;
};
// In words, when the bound changed the search: "" when it ran in full.
std::string bound_words(const PlanResult& r);

// The search. With `all`, every configuration's plan is appended, with its reason.
PlanResult plan(const PlanInput& in, std::vector<Plan>* all = nullptr);
// One layout (slice, factors, X mode, remat, microbatches) evaluated as the search does it;
// `strategy` takes kDP or kFSDP for the X axis (with kEP for experts over X; ignored when X = 1).
// InputError for factors that do not multiply to the slice's axes.
Plan evaluate(const PlanInput& in, int slice, std::array<int, 3> x, std::array<int, 3> y,
              std::array<int, 3> z, uint8_t x_mode, transformers::Remat remat, int m = 1);

// ------------------------------------------------------------------ the regime map

enum RegimeBit : uint8_t {
  kRegimeDP = 1,         // some DP layout compute-bound and fits
  kRegimeFSDP = 2,       // some FSDP layout (alone on the data axis)
  kRegimeTP = 4,         // TP over every chip
  kRegimeMixed = 8,      // some FSDP + TP layout
  kRegimeDCN = 16,       // more than one pod and DP across them keeps up
  kRegimeMultiPod = 32,  // the chip count spans more than one pod
  kRegimeEP = 64         // some layout with the experts sharded over the data axis (MoE)
};
struct RegimeMap {
  std::vector<double> chips;           // rows
  std::vector<double> batch_per_chip;  // columns, tokens
  std::vector<uint8_t> cells;          // rows x columns, RegimeBit set
  uint8_t at(size_t row, size_t col) const { return cells[row * batch_per_chip.size() + col]; }
};
// The planner's own question at each cell: on the chip counts' slices (and pods), with the
// planner's costs and its three remat policies, which strategies have a layout without pipelining
// that is compute-bound and fits at that batch per chip. Rows are chip counts the chip comes in
// (chip_counts).
RegimeMap regime_map(const PlanInput& base, const hw::Chip& chip, const std::vector<double>& chips,
                     const std::vector<double>& batch_per_chip);

}  // namespace sb::training
