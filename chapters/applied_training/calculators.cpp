// The case study's calculators: the chapter's questions for any model, chip, batch and pod count
// (applied-training.case), and the chapter's sharding recipe beside the training planner's best
// plan for the same setup (applied-training.plan). The arithmetic is in model.hpp and in the
// training chapter's model and planner.
#include <cmath>
#include <string>

#include "chapters/applied_training/model.hpp"
#include "chapters/tpus/model.hpp"
#include "chapters/training/model.hpp"
#include "chapters/training/planner.hpp"
#include "chapters/transformers/model.hpp"
#include "chapters/transformers/model_input.hpp"
#include "chapters/transformers/models.hpp"
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

// The model: the transformers chapter's one model input (the table's models, or custom).
constexpr Param kModel = tf::model_param();
constexpr Param field(Text name, Text doc, double max) {
  return zero_ok(num(name, "count", 0, doc, 0, max, true));
}
constexpr Param kFields[] = {field("L", "layers; 0 = the model's", 1000),
                             field("D", "model width d_model; 0 = the model's", 1e6),
                             field("F", "MLP width d_ff of the dense layers; 0 = the model's", 1e7),
                             field("N", "query heads; 0 = the model's", 1e5),
                             field("K", "KV heads (N for MHA, 1 for MQA); 0 = the model's", 1e5),
                             field("H", "head dim; 0 = the model's (custom: D / N)", 1e5),
                             field("V", "vocabulary; 0 = the model's (custom: none)", 1e7)};
constexpr Param kNorms = choice("norms", "book", "book|model",
                                "book = leave the norm vectors out, as the chapter's table does; "
                                "model = count them as the checkpoint stores them");
constexpr Param kChip = chip_param("v5p", "TPU from the hardware tables");
constexpr Param kTokens =
    num("tokens", "tokens", 15e12, "pre-training tokens (LLaMA 3: 15T)", 1, 1e16);
constexpr Param kBatch =
    num("batch", "tokens", 4194304, "global batch in tokens (4M = 4 x 2^20 = 4,194,304)", 1, 1e15);
constexpr Param kSeq = num("seq_len", "tokens", 4096, "sequence length", 1, 1e7);
constexpr Param kPods = count("pods", 1, "pods (DP across pods over DCN)", {}, 1, 1e4);
constexpr Param kMfu = num("mfu", "ratio", 0.4, "model FLOPs utilisation", 1e-3, 1);

tf::Config config_of(const Inputs& in) {
  tf::Config c = tr::model_config(
      in.text("model"),
      {in.num("L"), in.num("D"), in.num("F"), in.num("N"), in.num("K"), in.num("H"), in.num("V")});
  if (in.text("norms") == "book") {
    c.norms_per_layer = 0;
    c.final_norm = false;
    c.qk_norm = false;
  }
  return c;
}

const hw::Chip& tpu(const Inputs& in) {
  const hw::Chip& c = hw::chip(in.text("chip"));
  if (c.kind != "tpu")
    fail("chip",
         c.name + " has no ICI torus: the case study trains on TPU pods (GPUs come in Part 12)",
         "no_figure");
  return c;
}

CaseInput case_input(const Inputs& in) {
  const hw::Chip& chip = tpu(in);
  CaseInput ci;
  ci.model = config_of(in);
  ci.hw = tr::hardware_of(chip);
  ci.tokens = in.num("tokens");
  ci.batch = in.num("batch");
  ci.seq_len = in.num("seq_len");
  ci.pod_chips = tpus::chip_count(tpus::topology_of(chip).max_pod);
  ci.pods = in.num("pods");
  ci.mfu = in.num("mfu");
  return ci;
}

std::string days(double s) { return units::number(s / 86400, 3) + " days"; }

// ------------------------------------------------------------------ applied-training.case

void case_trace(const CaseInput& ci, const CaseStudy& s, Trace& t) {
  const double P = s.params.total;
  t.step("Parameters", "P", "#", {P}, P, "count");
  t.step("Training FLOPs", "6 P \\cdot \\text{tokens}", "6 \\cdot # \\cdot #", {P, ci.tokens},
         s.total_flops, "flop");
  t.step("Time on the chips", "\\frac{6 P \\cdot \\text{tokens}}{N C \\cdot MFU}",
         "\\frac{#}{# \\cdot # \\cdot #}", {s.total_flops, s.chips, ci.hw.C, ci.mfu}, s.time, "s");
  t.step("Training state", "2P + 8P + 2 D \\cdot \\text{batch} \\cdot c L", "# + # + #",
         {s.state.params, s.state.optimizer, s.state.checkpoints}, s.state.total(), "B");
  t.step("Fewest chips", "\\lceil \\text{state} / HBM \\rceil", "\\lceil # / # \\rceil",
         {s.state.total(), ci.hw.hbm}, s.min_chips, "chips");
}

// The chapter's questions in its order: parameters and FLOPs, memory, how to shard it.
void case_values(const CaseStudy& s, Result& r) {
  r.value("params", s.params.total, "count", "parameters");
  r.value("mlp_params", s.params.mlp, "count", "MLP parameters");
  r.value("attn_params", s.params.attn, "count", "attention parameters");
  r.value("vocab_params", s.params.embed + s.params.unembed, "count", "vocabulary parameters");
  r.value("flops_per_token", s.flops_per_token, "flop", "training FLOPs per token (6P)");
  r.value("total_flops", s.total_flops, "flop", "training FLOPs");
  r.value("time_one_chip", s.time_one_chip, "s", "on one chip at peak");
  r.value("chips", s.chips, "chips", "chips");
  r.value("time", s.time, "s", "training time on the chips");
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
  r.value("fsdp_compute_bound", s.fsdp_compute_bound ? 1 : 0, "bool", "FSDP alone compute-bound");
  r.value("mixed_threshold", s.mixed_threshold, "tokens", "FSDP + TP floor alpha^2/(M_X M_Y F)");
  r.value("mixed_compute_bound", s.mixed_compute_bound ? 1 : 0, "bool", "FSDP + TP compute-bound");
  r.value("tp_limit", s.tp_limit, "count", "TP limit M_Y F / alpha");
  r.value("x_opt", s.x_opt, "count", "X_opt per pod");
  r.value("x_min", s.x_window.lo, "count", "smallest compute-bound X");
  r.value("x_max", s.x_window.hi, "count", "largest compute-bound X");
  r.value("fsdp_degree", s.fsdp_degree, "count", "FSDP degree (X_opt rounded)");
  r.value("tp_degree", s.tp_degree, "count", "TP degree");
  if (s.dcn_threshold > 0) {
    r.value("per_pod_batch", s.per_pod_batch, "tokens", "batch per pod");
    r.value("dcn_threshold", s.dcn_threshold, "tokens", "DCN floor alpha_dcn");
  }
}

void case_verdict(const CaseInput& ci, const CaseStudy& s, Result& r) {
  const std::string recipe = s.fsdp_compute_bound ? "FSDP alone is compute-bound"
                             : s.mixed_compute_bound
                                 ? "FSDP alone is comms-bound; " + units::number(s.fsdp_degree) +
                                       "-way FSDP x " + units::number(s.tp_degree) +
                                       "-way TP is compute-bound"
                                 : "even the best FSDP + TP split is comms-bound: a larger "
                                   "batch or fewer chips";
  r.extra["verdict"] = units::number(s.params.total / 1e9, 4) + "B parameters, " +
                       units::format(s.total_flops, "flop") + ": " + days(s.time) + " on " +
                       units::number(s.chips) + " chips at " + units::number(ci.mfu * 100, 3) +
                       "% MFU; " + recipe + ".";
  if (ci.pods > 1)
    r.note(s.dcn_compute_bound
               ? "Across pods: " + units::format(s.per_pod_batch, "tokens") + " per pod, above " +
                     units::format(s.dcn_threshold, "tokens") + ": pure DP over DCN keeps up."
               : "Across pods: " + units::format(s.per_pod_batch, "tokens") + " per pod is below " +
                     units::format(s.dcn_threshold, "tokens") + ": DCN is the bottleneck.");
  if (s.min_chips > s.chips)
    r.note("The training state needs " + units::number(s.min_chips) + " chips, more than the " +
           units::number(s.chips) + " given.");
  r.extra["days"] = s.time / 86400;
}

void case_calc(const Inputs& in, Trace& t, Result& r) {
  CaseInput ci = case_input(in);
  ci.checkpoints_per_layer = in.num("checkpoints_per_layer");
  const CaseStudy s = case_study(ci);
  case_trace(ci, s, t);
  case_values(s, r);
  case_verdict(ci, s, r);
}

// ------------------------------------------------------------------ applied-training.plan

json plan_json(const tr::Plan& p) {
  return {{"strategy", tr::strategy_name(p.strategy)},
          {"X", p.X},
          {"Y", p.Y},
          {"Z", p.Z},
          {"m", p.m},
          {"M_X", p.M_X},
          {"M_Y", p.M_Y},
          {"mem", p.mem},
          {"fits", p.fits},
          {"t_step", p.t_step},
          {"mfu", p.mfu},
          {"compute_bound", p.compute_bound},
          {"bottleneck", tr::term_name(p.bottleneck)}};
}

json cost_json(const tr::StrategyCost& c) {
  return {{"strategy", tr::strategy_label(c.strategy)},
          {"X", c.split.X},
          {"Y", c.split.Y},
          {"M_X", c.split.M_X},
          {"M_Y", c.split.M_Y},
          {"mem", c.mem},
          {"fits", c.fits},
          {"t_step", c.step},
          {"mfu", c.mfu},
          {"compute_bound", c.compute_bound()}};
}

// The chapter's recipe: X_opt rounded to a divisor of the pod, FSDP over M_X axes and TP over M_Y,
// DP across pods.
tr::StrategyCost book_recipe(const CaseInput& ci, const CaseStudy& s) {
  tr::StrategyInput si;
  const tf::Config cfg = tf::validated(ci.model);
  si.layer = tr::layer_of(cfg);
  si.L = cfg.L;
  si.P = s.params.total;
  si.B = ci.batch;
  si.N = ci.pod_chips;
  si.axes = ci.M_X + ci.M_Y;
  si.M_Y = ci.M_Y;
  si.Y = s.tp_degree;
  si.pods = ci.pods;
  si.hw = ci.hw;
  return tr::strategy_cost(ci.pods > 1 ? tr::Strategy::DCN : tr::Strategy::FSDP_TP, si);
}

// The planner's search on the pod's slice (and whole pods over DCN).
tr::PlanResult planner_best(const hw::Chip& chip, const CaseInput& ci) {
  tr::PlanInput pi;
  pi.model = tf::validated(ci.model);
  pi.hw = ci.hw;
  pi.topo = tr::topology_for_chips(chip, ci.pod_chips * ci.pods, "pods");
  pi.B = ci.batch;
  return tr::plan(pi);
}

void compare_values(const tr::StrategyCost& book, const tr::PlanResult& res, Result& r) {
  const tr::Plan& b = res.best;
  r.value("book_X", book.split.X, "count", "chapter: FSDP degree X");
  r.value("book_Y", book.split.Y, "count", "chapter: TP degree Y");
  r.value("book_step", book.step, "s", "chapter: step-time bound");
  r.value("book_mfu", book.mfu, "ratio", "chapter: MFU bound");
  r.value("book_mem", book.mem, "B", "chapter: memory per chip");
  r.value("book_compute_bound", book.compute_bound() ? 1 : 0, "bool", "chapter: compute-bound");
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
  const hw::Chip& chip = tpu(in);
  const CaseInput ci = case_input(in);
  const CaseStudy s = case_study(ci);
  const tr::StrategyCost book = book_recipe(ci, s);
  const tr::PlanResult res = planner_best(chip, ci);
  const tr::Plan& b = res.best;
  t.note("The chapter's recipe: " + units::number(book.split.X) + "-way FSDP x " +
         units::number(book.split.Y) + "-way TP" +
         (ci.pods > 1 ? " in each pod, DP across " + units::number(ci.pods) + " pods" : "") +
         " ($X_{opt} = " + units::number(s.x_opt) + "$ rounded to a divisor of the pod).");
  t.note("The planner searched " + std::to_string(res.configs) + " configurations.");
  compare_values(book, res, r);
  r.extra["verdict"] =
      std::string("Chapter: ") + units::number(book.split.X) + " x " + units::number(book.split.Y) +
      (book.compute_bound() ? ", compute-bound" : ", comms-bound") +
      "; planner: " + tr::strategy_name(b.strategy) + " " + std::to_string(b.X) + " x " +
      std::to_string(b.Y) + (b.Z > 1 ? " x " + std::to_string(b.Z) + " stages" : "") +
      (b.compute_bound ? ", compute-bound"
                       : std::string(", bound by ") + tr::term_name(b.bottleneck));
  r.extra["book"] = cost_json(book);
  r.extra["plan"] = plan_json(b);
  r.extra["fits"] = res.fits;
  r.note(
      "Both use Part 5's MLP layer for the time and its checkpoints for memory (one [B, D] and "
      "n - 1 [B, F] per layer, not the case study's 4 [B, D]); the planner measures a split axis "
      "by its own bandwidth, so its M_X and M_Y need not be whole numbers.");
}

constexpr Param kCaseParams[] = {
    kModel,
    kFields[0],
    kFields[1],
    kFields[2],
    kFields[3],
    kFields[4],
    kFields[5],
    kFields[6],
    kNorms,
    kChip,
    kTokens,
    kBatch,
    kSeq,
    kPods,
    kMfu,
    zero_ok(num("checkpoints_per_layer", "count", 4,
                "bf16 [batch, D] checkpoints per layer (the chapter: 4; aggressive: 12)", 0,
                1000))};
constexpr Param kPlanParams[] = {kModel,     kFields[0], kFields[1], kFields[2], kFields[3],
                                 kFields[4], kFields[5], kFields[6], kNorms,     kChip,
                                 kTokens,    kBatch,     kSeq,       kPods,      kMfu};

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
               .doc = "The FSDP x TP split the chapter derives (X_opt rounded) and the training "
                      "planner's best layout for the same model, pods and batch: step time, MFU "
                      "bound, memory per chip.",
               .params = kPlanParams,
               .run = plan_calc,
               .heavy = true},
};

}  // namespace

void add_calculators(Registry& r) { r.add(kCalculators); }

}  // namespace sb::applied_training
