// The case study's calculators: the chapter's questions for any model, chip, batch and pod count
// (applied-training.case), and the chapter's sharding recipe beside the training planner's best
// plan for the same setup (applied-training.plan). The arithmetic is in model.hpp and in the
// training chapter's model, strategy and planner; the derivations come from their records.
#include <array>
#include <cmath>
#include <cstddef>
#include <string>

#include "chapters/applied_training/model.hpp"
#include "chapters/tpus/model.hpp"
#include "chapters/training/costs.hpp"
#include "chapters/training/model.hpp"
#include "chapters/training/planner.hpp"
#include "chapters/training/strategy.hpp"
#include "chapters/transformers/counting_steps.hpp"
#include "chapters/transformers/model.hpp"
#include "chapters/transformers/model_input.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::applied_training {
namespace {

namespace tf = transformers;
namespace tr = training;

constexpr Param zero_ok(Param p) {
  p.positive = false;
  return p;
}

// The model: the transformers chapter's one model input, with the chapter's table's count of norm
// vectors as the default: none.
constexpr auto model_input() {
  auto in = tf::kModelInput;
  for (Param& p : in)
    if (p.name == "norms") p.def_text = "0";
  return in;
}
template <size_t M>
constexpr auto params(const std::array<Param, M>& own) {
  return tf::join(model_input(), own);
}

constexpr Param kMlpMatrices = choice(
    "mlp", "model", "model|book",
    "the MLP's matrices: the model's own (3 when gated), or the chapter's simplification (2)");
constexpr Param kChip =
    chip_param("v5p",
               "a TPU (the mesh lies on its pod's ICI torus) or a GPU (a cluster of NVLink nodes, "
               "the most the chapter's fat tree takes, with no pods)");
constexpr Param kTokens =
    num("tokens", "tokens", 15e12, "pre-training tokens (LLaMA 3: 15T)", 1, 1e16);
constexpr Param kBatch = num("batch", "tokens", 4194304,
                             "global batch in tokens (4M read as 4 x 2^20 = 4,194,304, as the "
                             "chapter's sharding questions do; its memory questions read 4e6)",
                             1, 1e15);
constexpr Param kSeq = num("seq_len", "tokens", 4096, "sequence length", 1, 1e7);
constexpr Param kPods = count("pods", 1, "pods (DP across pods over DCN)", {}, 1, 1e4);
constexpr Param kMfu = num("mfu", "ratio", 0.4, "model FLOPs utilisation", 1e-3, 1);

tf::Config chosen_config(const Inputs& in) { return tf::chosen_model(in).config; }

// A GPU cluster's "pod": the most GPUs the chapter's fat tree takes, its M's at the layouts the
// chapter's questions ask about (FSDP alone; TP inside the node beside FSDP), no pods over DCN.
void gpu_case(const hw::Chip& chip, CaseInput& ci) {
  if (ci.pods != 1)
    fail("pods",
         "a GPU cluster's nodes share one fat tree, and the chapter joins no clusters over a "
         "DCN; leave it at 1 (the cluster is " +
             units::number(tr::gpu_counts(chip).back()) + " GPUs), or pick a TPU",
         "not_tpu");
  ci.hw = tr::gpu_hardware(chip);
  ci.pod_chips = tr::gpu_counts(chip).back();
  ci.gpu = tr::topology_for_gpus(chip, ci.pod_chips, false, "chip").gpu;
  const tf::Config c = tf::validated(ci.model);
  const double F = tr::layer_of(c, ci.book_mlp).F;
  ci.Y_gpu = tr::gpu_tp_degree(ci.gpu, ci.pod_chips, F, tr::alpha_ici(ci.hw), c.D, c.N, c.K);
  ci.M_X_fsdp = tr::gpu_axes(ci.gpu, 1, 1).M_X;
  const tr::GpuAxes a = tr::gpu_mixed_axes(ci.gpu, ci.Y_gpu);
  ci.M_X = a.M_X, ci.M_Y = a.M_Y;
}

CaseInput case_input(const Inputs& in, const hw::Chip& chip) {
  CaseInput ci;
  ci.model = chosen_config(in);
  ci.book_mlp = in.text("mlp") == "book";
  ci.tokens = in.num("tokens");
  ci.batch = in.num("batch");
  ci.seq_len = in.num("seq_len");
  ci.pods = in.num("pods");
  ci.mfu = in.num("mfu");
  if (chip.kind == "gpu") {
    gpu_case(chip, ci);
  } else {
    ci.hw = tr::hardware_of(chip);
    ci.pod_chips = tr::pod_chips(chip);
  }
  return ci;
}

// What a GPU cluster changes, for a note.
std::string gpu_words(const CaseInput& ci) {
  return "A GPU cluster: " + units::number(ci.gpu.nodes) + " nodes of " +
         units::number(ci.gpu.d_node) +
         " GPUs (the most the chapter's fat tree takes), NVLink inside a node and the fat tree "
         "across nodes. M_X and M_Y are each group's AllGather bandwidth over NVLink's at the "
         "layout, not counts of axes; the recipe keeps TP inside the node (Y = " +
         units::number(ci.Y_gpu) + ").";
}

std::string days(double s) { return units::number(s / 86400, 3) + " days"; }

// ------------------------------------------------------------------ applied-training.case

void counting_trace(const CaseInput& ci, const CaseStudy& s, Trace& t) {
  const double P = s.params.total, Pa = s.params.matmul_active;
  t.value("Parameters the model stores", P, "count");
  t.value("Matmul weights a token uses (an MoE's active experts; the input embedding is a look-up)",
          Pa, "count");
  const double f =
      tf::six_p_step(t, "Training FLOPs (P: the matmul weights a token uses)", Pa, ci.tokens);
  t.step("Time on the chips", tr::kTrainTime, {f, s.chips, ci.hw.C, ci.mfu});
}

void memory_trace(const CaseInput& ci, const CaseStudy& s, Trace& t) {
  const double S = t.step("Weights and Adam state", tr::kStateBytes, {2, 8, s.params.total});
  const tf::Config c = tf::validated(ci.model);
  const double A = t.step("Gradient checkpoints", kCheckpointBytes,
                          {c.D, ci.batch, ci.checkpoints_per_layer, c.L});
  const double M = t.sum("Training state", "M", "B", {{"S", S}, {"A", A}});
  t.step("Fewest chips", kMinChips, {M, ci.hw.hbm});
  t.step("Per chip, all sharded", kBytesPerChip, {M, s.chips});
}

void sharding_trace(const CaseInput& ci, const CaseStudy& s, Trace& t) {
  const tf::Config c = tf::validated(ci.model);
  const double F = tr::layer_of(c, ci.book_mlp).F;
  const double alpha =
      t.step(ci.gpu.d_node > 0 ? "Intensity over NVLink (W_ici read as W_GPU)" : "ICI intensity",
             tr::kAlpha, {ci.hw.C, ci.hw.W_ici});
  t.step("Batch per chip", tr::kPerChipBatch, {ci.batch, s.chips});
  t.step("FSDP floor", tr::kDpFloor, {alpha, ci.M_X_fsdp});
  t.step("FSDP + TP floor", tr::kMixedFloor, {alpha, ci.M_X, ci.M_Y, F});
  const double Bp = t.step("Batch per pod", tr::kPerPodBatch, {ci.batch, ci.pods});
  const double xo = t.step("$X_{opt}$ in a pod", tr::kXOpt, {Bp, F, ci.M_X, ci.M_Y, ci.pod_chips});
  t.step("Smallest compute-bound X (TP term)", tr::kXWindowLo, {ci.pod_chips, alpha, F, ci.M_Y});
  t.step("Largest compute-bound X (FSDP term)", tr::kFsdpMaxChips, {Bp, ci.M_X, alpha});
  if (ci.gpu.d_node == 0)
    t.step("$X_{opt}$ rounded to a power of two, as the chapter does", tr::kRoundPow2, {xo});
}

// The chapter's questions in its order: parameters and FLOPs, memory, how to shard it.
void case_values(const CaseStudy& s, Result& r) {
  r.value("params", s.params.total, "params", "parameters");
  r.value("active_params", s.params.matmul_active, "params", "matmul weights a token uses");
  r.value("mlp_params", s.params.mlp, "params", "MLP parameters");
  r.value("attn_params", s.params.attn, "params", "attention parameters");
  r.value("vocab_params", s.params.embed + s.params.unembed, "params", "vocabulary parameters");
  r.value("flops_per_token", s.flops_per_token, "flop", "training FLOPs per token (6 P_active)");
  r.value("flops_per_token_book", s.flops_per_token_book, "flop",
          "the chapter's 6P per token (every parameter)");
  r.value("total_flops", s.total_flops, "flop", "training FLOPs (6 P_active tokens)");
  r.value("time_one_chip", s.time_one_chip, "s", "on one chip at peak");
  r.value("chips", s.chips, "chips", "chips");
  r.value("time", s.time, "s", "training time on the chips");
  r.value("time_book", s.time_book, "s", "the same with the chapter's 6P");
  r.value("param_bytes", s.state.params, "B", "bf16 parameters");
  r.value("optimizer_bytes", s.state.optimizer, "B", "Adam state (fp32)");
  r.value("checkpoint_bytes", s.state.checkpoints, "B", "gradient checkpoints");
  r.value("state_bytes", s.state.total(), "B", "training state in total");
  r.value("min_chips", s.min_chips, "chips", "fewest chips that hold it");
  r.value("time_on_min_chips", s.time_on_min_chips, "s", "training time on that many");
  r.value("bytes_per_chip", s.bytes_per_chip, "B", "per chip, all sharded");
  r.value("sequences", s.sequences, "count", "sequences per batch");
  r.value("per_chip_batch", s.per_chip_batch, "tokens", "batch per chip");
  r.value("fsdp_threshold", s.fsdp_threshold, "tokens", "FSDP floor alpha / M_X");
  r.value("fsdp_compute_bound", s.fsdp_compute_bound ? 1 : 0, "bool",
          "FSDP alone compute-bound (the chapter's floor)");
  r.value("mixed_threshold", s.mixed_threshold, "tokens", "FSDP + TP floor alpha^2/(M_X M_Y F)");
  r.value("mixed_compute_bound", s.mixed_compute_bound ? 1 : 0, "bool",
          "FSDP + TP compute-bound (the chapter's floor)");
  r.value("recipe_compute_bound", s.recipe_costed_bound ? 1 : 0, "bool",
          "the recipe compute-bound, as the planner costs it");
  r.value("tp_limit", s.tp_limit, "count", "TP limit M_Y F / alpha");
  r.value("x_opt", s.x_opt, "count", "X_opt per pod");
  r.value("x_min", s.x_window.lo, "count", "smallest compute-bound X");
  r.value("x_max", s.x_window.hi, "count", "largest compute-bound X");
  r.value(
      "fsdp_degree", s.recipe.X, "count",
      s.gpu ? "FSDP degree (the GPUs TP leaves)" : "FSDP degree (X_opt rounded to a power of two)");
  r.value("tp_degree", s.recipe.Y, "count",
          s.gpu ? "TP degree (inside a node, under F / alpha)"
                : "TP degree (the largest the model takes beside it)");
  r.value("idle_chips", s.recipe.idle, "chips", "chips of each pod the split leaves idle");
  if (s.dcn_threshold > 0) {
    r.value("per_pod_batch", s.per_pod_batch, "tokens", "batch per pod");
    r.value("dcn_threshold", s.dcn_threshold, "tokens", "DCN floor alpha_dcn");
  }
}

void case_notes(const CaseInput& ci, const CaseStudy& s, Result& r) {
  r.note("Training FLOPs count 6 per matmul weight a token uses (" +
         units::number(s.params.matmul_active / 1e9, 4) +
         "B: an MoE's routed experts it uses, not the input embedding, a look-up). The chapter's "
         "exercises count 6 per parameter (" +
         units::number(s.params.total / 1e9, 4) +
         "B): " + units::format(s.total_flops_book, "flop") + ", " + days(s.time_book) + ".");
  r.note("The batch is " + units::format(ci.batch, "tokens") +
         (ci.batch == 4194304 ? " (4M read as 4 x 2^20 = 4,194,304, as the chapter's sharding "
                                "questions do)"
                              : "") +
         "; the chapter's memory questions (IQ5, IQ6) read 4M as 4e6, which gives 4.6% fewer "
         "checkpoint bytes than 4 x 2^20.");
  if (ci.pods > 1)
    r.note(s.dcn_compute_bound
               ? "Across pods: " + units::format(s.per_pod_batch, "tokens") + " per pod, above " +
                     units::format(s.dcn_threshold, "tokens") + ": pure DP over DCN keeps up."
               : "Across pods: " + units::format(s.per_pod_batch, "tokens") + " per pod is below " +
                     units::format(s.dcn_threshold, "tokens") + ": DCN is the bottleneck.");
  if (s.min_chips > s.chips)
    r.note("The training state needs " + units::format(s.min_chips, "chips") + ", more than the " +
           units::number(s.chips) + " given.");
}

void case_calc(const Inputs& in, Trace& t, Result& r) {
  const hw::Chip& chip = hw::chip(in.text("chip"), "chip");
  CaseInput ci = case_input(in, chip);
  ci.checkpoints_per_layer = in.num("checkpoints_per_layer");
  const CaseStudy s = case_study(ci);
  counting_trace(ci, s, t);
  memory_trace(ci, s, t);
  sharding_trace(ci, s, t);
  case_values(s, r);
  case_notes(ci, s, r);
  if (ci.gpu.d_node > 0) r.note(gpu_words(ci));
  r.extra["verdict"] = units::number(s.params.total / 1e9, 4) + "B parameters (" +
                       units::number(s.params.matmul_active / 1e9, 4) + "B a token uses), " +
                       units::format(s.total_flops, "flop") + ": " + days(s.time) + " on " +
                       units::format(s.chips, "chips") + " at " + units::number(ci.mfu * 100, 3) +
                       "% MFU; " + case_recipe_words(s) + ".";
  r.extra["days"] = s.time / 86400;
  r.extra["machine"] = s.gpu ? "gpu" : "tpu";
  r.extra["convention"] = {{"flops", "6 x the matmul weights a token uses"},
                           {"flops_book", "6 x every parameter, as the chapter's exercises"},
                           {"batch", "4M read as 4 x 2^20; the memory exercises read 4e6"}};
}

// ------------------------------------------------------------------ applied-training.plan

json cost_json(const tr::StrategyCost& c) {
  return {{"strategy", tr::strategy_label(c.strategy)},
          {"X", c.split.X},
          {"Y", c.split.Y},
          {"M_X", c.split.M_X},
          {"M_Y", c.split.M_Y},
          {"idle", c.recipe.idle * c.split.pods},
          {"remat", tr::remat_label(c.remat)},
          {"mem", c.mem},
          {"fits", c.fits},
          {"t_step", c.step},
          {"mfu", c.mfu},
          {"compute_bound", c.compute_bound},
          {"bottleneck", c.compute_bound ? "compute" : "comms"}};
}

json plan_json(const tr::Plan& p) {
  return {{"strategy", tr::strategy_name(p.strategy)},
          {"X", p.X},
          {"Y", p.Y},
          {"Z", p.Z},
          {"m", p.m},
          {"M_X", p.M_X},
          {"M_Y", p.M_Y},
          {"idle", 0},
          {"remat", tr::remat_label(p.remat)},
          {"mem", p.mem},
          {"fits", p.fits},
          {"t_step", p.t_step},
          {"mfu", p.mfu},
          {"compute_bound", p.compute_bound},
          {"bottleneck", tr::term_name(p.bottleneck)}};
}

// The chapter's recipe: X_opt rounded to a power of two, FSDP over M_X axes and TP over M_Y (on a
// sub-slice when no power of two uses the whole pod), DP across pods; costed as the planner does.
tr::StrategyCost book_recipe(const CaseInput& ci) {
  tr::StrategyInput si;
  si.model = tf::validated(ci.model);
  si.book_mlp = ci.book_mlp;
  si.B = ci.batch;
  si.N = ci.pod_chips;
  si.axes = ci.M_X + ci.M_Y;
  si.M_Y = ci.M_Y;
  si.Y = 0;
  si.pods = ci.pods;
  si.hw = ci.hw;
  si.gpu = ci.gpu;
  return tr::strategy_cost(ci.pods > 1 ? tr::Strategy::DCN : tr::Strategy::FSDP_TP, si);
}

// The planner's search on the pod's slice (and whole pods over DCN).
tr::PlanResult planner_best(const hw::Chip& chip, const CaseInput& ci) {
  tr::PlanInput pi;
  pi.model = tf::validated(ci.model);
  pi.layer.book_mlp = ci.book_mlp;
  pi.hw = ci.hw;
  pi.topo = ci.gpu.d_node > 0 ? tr::topology_for_gpus(chip, ci.pod_chips, false, "chip")
                              : tr::topology_for_chips(chip, ci.pod_chips * ci.pods, "pods");
  pi.B = ci.batch;
  return tr::plan(pi);
}

void compare_values(const tr::StrategyCost& book, const tr::PlanResult& res, Result& r) {
  const tr::Plan& b = res.best;
  r.value("book_X", book.split.X, "count", "chapter: FSDP degree X");
  r.value("book_Y", book.split.Y, "count", "chapter: TP degree Y");
  r.value("book_idle", book.recipe.idle * book.split.pods, "chips", "chapter: chips left idle");
  r.value("book_step", book.step, "s", "chapter: step-time bound");
  r.value("book_mfu", book.mfu, "ratio", "chapter: MFU bound");
  r.value("book_mem", book.mem, "B", "chapter: memory per chip");
  r.value("book_compute_bound", book.compute_bound ? 1 : 0, "bool", "chapter: compute-bound");
  r.value("plan_X", b.X, "count", "planner: X");
  r.value("plan_Y", b.Y, "count", "planner: Y");
  r.value("plan_Z", b.Z, "count", "planner: pipeline stages");
  r.value("plan_step", b.t_step, "s", "planner: step-time bound");
  r.value("plan_mfu", b.mfu, "ratio", "planner: MFU bound");
  r.value("plan_mem", b.mem, "B", "planner: memory per chip");
  r.value("plan_compute_bound", b.compute_bound ? 1 : 0, "bool", "planner: compute-bound");
  r.value("configs", static_cast<double>(res.configs), "count", "configurations searched");
}

void plan_calc(const Inputs& in, Trace& t, Result& r) {
  const hw::Chip& chip = hw::chip(in.text("chip"), "chip");
  const CaseInput ci = case_input(in, chip);
  const CaseStudy s = case_study(ci);
  const tr::StrategyCost book = book_recipe(ci);
  const tr::PlanResult res = planner_best(chip, ci);
  const tr::Plan& b = res.best;
  if (ci.gpu.d_node > 0)
    t.note(gpu_words(ci));
  else
    t.note("The chapter's recipe: " + tr::recipe_words(book.recipe, s.x_opt) +
           (ci.pods > 1 ? ", in each pod, DP across " + units::number(ci.pods) + " pods" : "") +
           ".");
  t.note("The planner searched " + std::to_string(res.configs) + " configurations.");
  compare_values(book, res, r);
  const double steps = ci.tokens / ci.batch;
  r.value("plan_days", steps * b.t_step / 86400, "count",
          "planner: days for the tokens at its step-time bound");
  r.extra["verdict"] =
      std::string("Chapter: ") + units::number(book.split.X) + " x " + units::number(book.split.Y) +
      (book.compute_bound ? ", compute-bound" : ", comms-bound") +
      "; planner: " + tr::strategy_name(b.strategy) + " " + std::to_string(b.X) + " x " +
      std::to_string(b.Y) + (b.Z > 1 ? " x " + std::to_string(b.Z) + " stages" : "") +
      (b.compute_bound ? ", compute-bound"
                       : std::string(", bound by ") + tr::term_name(b.bottleneck));
  r.extra["book"] = cost_json(book);
  r.extra["plan"] = plan_json(b);
  r.extra["fits"] = res.fits;
  r.note(tr::layer_words(tr::LayerChoice{ci.book_mlp, false, ci.seq_len}));
  r.note(
      "Both are costed the same way (the planner's terms, its remat policies); the planner "
      "measures a split axis by its own bandwidth, so its M_X and M_Y need not be whole numbers. "
      "Its days assume the step-time bound, an MFU near 100%: the case study's days use the MFU "
      "you give.");
  if (const std::string bound = tr::bound_words(res); !bound.empty()) r.note(bound);
}

}  // namespace

namespace {

constexpr auto kCaseParams = params(std::to_array<Param>(
    {kMlpMatrices, kChip, kTokens, kBatch, kSeq, kPods, kMfu,
     zero_ok(num("checkpoints_per_layer", "count", 4,
                 "bf16 [batch, D] checkpoints per layer (the chapter: 4; aggressive: 12)", 0,
                 1000))}));
constexpr auto kPlanParams =
    params(std::to_array<Param>({kMlpMatrices, kChip, kTokens, kBatch, kSeq, kPods, kMfu}));

constexpr Calculator kCalculators[] = {
    Calculator{.name = "applied-training.case",
               .title = "Training LLaMA 3 on TPUs: the case study",
               .doc = "The chapter's questions for any model and chip: parameters, FLOPs, time on "
                      "the pods at an MFU, training-state memory and the fewest chips, the batch "
                      "per chip against each strategy's floor, and the FSDP x TP recipe.",
               .params = kCaseParams,
               .run = case_calc},
    Calculator{.name = "applied-training.plan",
               .title = "The chapter's recipe beside the planner's",
               .doc = "The FSDP x TP split the chapter derives (X_opt rounded to a power of two) "
                      "and the training planner's best layout for the same model, pods and batch: "
                      "step time, MFU bound, memory per chip.",
               .params = kPlanParams,
               .heavy = true},  // its run: add_heavy
};

}  // namespace

void add_calculators(Registry& r) { r.add(kCalculators); }
void add_heavy(Registry& r) { r.add_run("applied-training.plan", plan_calc); }

}  // namespace sb::applied_training
