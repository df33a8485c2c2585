// training.strategy: one strategy of the chapter in full (what it shards, its collectives per layer
// with their bytes, T_math against T_comms, the compute-bound conditions, memory per chip and the
// step's timeline, the six side by side). Its derivation is rendered from model.hpp's records.
#include <string>
#include <vector>

#include "chapters/gpus/llm.hpp"
#include "chapters/training/calculators.hpp"
#include "chapters/training/strategy.hpp"

namespace sb::training::calc {
namespace {

constexpr Strategy kAllStrategies[] = {Strategy::DP,      Strategy::FSDP,     Strategy::TP,
                                       Strategy::FSDP_TP, Strategy::Pipeline, Strategy::DCN};

Strategy strategy_of(const std::string& s) {
  for (Strategy st : kAllStrategies)
    if (s == strategy_label(st) || (st == Strategy::DCN && s == "DCN")) return st;
  fail("strategy", "unknown strategy '" + s + "'", "bad_choice");
}

// What each strategy shards (A.4, A.6): weights, gradients and optimizer state; activations.
const char* weights_text(Strategy s) {
  switch (s) {
    case Strategy::DP:
      return "replicated on every chip";
    case Strategy::FSDP:
      return "sharded over X (the same axis as the batch)";
    case Strategy::TP:
      return "sharded over Y along F (W_in[D, F_Y], W_out[F_Y, D])";
    case Strategy::FSDP_TP:
      return "sharded over both: W_in[D_X, F_Y], W_out[F_Y, D_X]";
    case Strategy::Pipeline:
      return "split by layer over the stages, and over X inside a stage: W_in[L_Z, D_X, F]";
    case Strategy::DCN:
      return "replicated across pods; FSDP (and TP) inside each pod";
  }
  return "";
}
const char* activations_text(Strategy s) {
  switch (s) {
    case Strategy::DP:
    case Strategy::FSDP:
      return "the batch over X: In[B_X, D]";
    case Strategy::TP:
      return "D over Y between the blocks (In[B, D_Y]); every chip sees the whole batch";
    case Strategy::FSDP_TP:
      return "batch over X, D over Y: In[B_X, D_Y]";
    case Strategy::Pipeline:
      return "microbatches move from stage to stage; the batch over X inside a stage";
    case Strategy::DCN:
      return "the batch over pods, then as inside one pod";
  }
  return "";
}

StrategyInput strategy_input(const Inputs& in, const tf::Config& c, const Machine& mc) {
  StrategyInput s;
  s.model = c;
  s.book_mlp = book_mlp(in);
  s.state = state_of(in);
  s.B = in.num("B");
  s.N = mc.N;
  s.axes = mc.axes;
  s.gpu = mc.gpu;
  s.M_Y = in.num("M_Y");
  s.Y = in.num("Y");
  s.Z = in.num("Z");
  s.m = in.num("m");
  s.pods = in.num("pods");
  s.hw = mc.h;
  return s;
}

void write_collective(JsonWriter& w, const Collective& k) {
  w.obj().key("phase").str(k.phase).key("op").str(k.op).key("array").str(k.array);
  w.key("axis").str(k.axis).key("bytes").num(k.bytes).key("t").num(k.t);
  w.key("critical").boolean(k.critical).key("t_text").str(units::format(k.t, "s"));
  w.key("bytes_text").str(units::format(k.bytes, "B")).end();
}

void write_condition(JsonWriter& w, const Condition& k) {
  w.obj().key("text").str(k.text).key("unit").str(k.unit).key("lhs").num(k.lhs);
  w.key("rhs").num(k.rhs).key("upper").boolean(k.upper).key("holds").boolean(k.holds());
  w.key("lhs_text").str(units::format(k.lhs, k.unit));
  w.key("rhs_text").str(units::format(k.rhs, k.unit)).end();
}

void write_phase(JsonWriter& w, const Phase& p) {
  w.obj().key("math").num(p.math).key("fsdp").num(p.fsdp).key("tp").num(p.tp);
  w.key("dp").num(p.dp).key("dcn").num(p.dcn).key("hbm").num(p.hbm).key("ep").num(p.ep);
  w.key("comms").num(p.comms()).key("compute_bound").boolean(p.compute_bound()).end();
}

// One row of the side-by-side table.
void write_summary(JsonWriter& w, const StrategyCost& c) {
  w.obj().key("strategy").str(strategy_label(c.strategy)).key("X").num(c.split.X);
  w.key("Y").num(c.split.Y).key("fwd");
  write_phase(w, c.t.fwd);
  w.key("bwd");
  write_phase(w, c.t.bwd);
  w.key("step").num(c.step).key("mfu").num(c.mfu).key("mem").num(c.mem);
  w.key("fits").boolean(c.fits).key("compute_bound").boolean(c.compute_bound);
  w.key("remat").str(remat_label(c.remat)).key("per_chip_batch").num(c.per_chip_batch);
  w.key("bubble").num(c.bubble).end();
}

// One strategy as the calculator sees it.
struct StrategyRun {
  Layer l;
  LayerCosts lc;
  tf::Config cfg;
  Hardware h;
  StrategyInput si;
  Strategy st;
  StrategyCost c;
};

// The bytes of a layer's weights: the chapter's b n D F for a dense layer; an MoE's every expert.
double weight_bytes_step(const StrategyRun& u, Trace& tr) {
  if (u.lc.E == 0)
    return tr.step("Bytes of a layer's weights", kLayerWeightBytes, {2, u.l.n_mats, u.l.D, u.l.F});
  return tr.value("Bytes of a layer's weights, every expert's (averaged over the layers)",
                  u.lc.w_bytes, "B");
}

// The derivation: alpha, each term of the forward (and backward) pass, the conditions.
void strategy_trace(const StrategyRun& u, Trace& tr) {
  const Layer& l = u.l;
  const Hardware& h = u.h;
  const Split& s = u.c.split;
  const LayerTimes& t = u.c.t;
  if (u.si.gpu.d_node > 0)
    tr.step("NVLink intensity (W_GPU inside a node)", gpus::kAlpha, {h.C, h.W_ici});
  else
    tr.step("ICI intensity", kAlpha, {h.C, h.W_ici});
  const bool pipe = u.st == Strategy::Pipeline;
  const double B = pipe ? u.si.B / u.si.m : u.si.B / s.pods;
  tr.step("Forward $T_{math}$ per layer", kTMathFwd, {l.n_mats, B, l.D, l.F, s.X * s.Y, h.C});
  const double V_w = weight_bytes_step(u, tr);
  tr.step("Weight loads from HBM (hidden while the local batch is large)", kTWeightLoad,
          {V_w, s.Y, h.W_hbm});
  if (t.fwd.fsdp > 0) tr.step("FSDP weight gathers", kTWeightGather, {V_w, s.Y, h.W_ici, s.M_X});
  if (t.fwd.tp > 0)
    tr.step("TP activation gather + reduce-scatter", kTTpFwd, {B, l.D, s.X, h.W_ici, s.M_Y});
  if (t.bwd.dp > 0)
    tr.step("DP gradient all-reduce (backward)", kTGradAllReduce, {V_w, s.Y, h.W_ici, s.M_X});
  if (t.bwd.dcn > 0)
    tr.step("All-reduce across pods over DCN (backward)", kTGradAllReduceDcn,
            {V_w, s.X * s.Y, h.W_dcn});
  if (pipe) {
    const double V = tr.step("Rows a stage passes on (one microbatch)", kStageCopyBytes,
                             {2, l.D, u.si.B, u.si.m, s.X});
    tr.step("Copy to the next stage", kTPipelineHop, {V, 1, h.w_uni});
    tr.step("Pipeline bubble (beyond the chapter)", kPipelineBubble, {u.si.Z, u.si.m});
  }
  for (const Condition& k : u.c.conditions)
    tr.note(std::string(k.words) + ": $" + n_text(k.lhs) + (k.upper ? " < " : " > ") +
            n_text(k.rhs) + "$" + (k.holds() ? " holds" : " fails"));
}

// Memory per chip: the state over the chips that shard it, the checkpoints over those that split
// them (A.6); under a pipeline's 1F1B schedule a stage holds at most Z microbatches' checkpoints.
void memory_trace(const StrategyRun& u, Trace& tr) {
  const StrategyCost& c = u.c;
  const double P = u.lc.P;
  const double b_w = u.si.state.weights + u.si.state.grads;
  const double S = tr.step(
      u.si.state.grads > 0 ? "Weights, gradient buffers and Adam state" : "Weights and Adam state",
      kStateBytes, {b_w, u.si.state.optimizer, P});
  if (u.st == Strategy::Pipeline) {
    tr.value("Memory per chip (a stage's layers; 1F1B: at most Z microbatches in flight)", c.mem,
             "B");
    return;
  }
  const double B = u.si.B;
  const double A = c.remat == tf::Remat::BigMatmuls
                       ? tr.step("Checkpoints after the big matmuls", kCheckpointBytes,
                                 {u.cfg.L, B, u.l.D, u.l.n_mats, u.l.F})
                       : tr.value(std::string("Activations saved: ") + remat_label(c.remat),
                                  u.lc.act[remat_index(c.remat)] * u.cfg.L * B, "B");
  const Split& s = c.split;
  tr.step("Memory per chip", s.x_mode == XMode::FSDP && s.X > 1 ? kMemoryFsdp : kMemoryDp,
          {S, A, s.X, s.Y, s.pods});
}

void strategy_values(const StrategyRun& u, Result& r) {
  const StrategyCost& c = u.c;
  const bool pipe = u.st == Strategy::Pipeline;
  r.value("X", c.split.X, "count", "X (data / FSDP degree)");
  r.value("Y", c.split.Y, "count", "Y (tensor-parallel degree)");
  if (pipe) {
    r.value("Z", u.si.Z, "count", "pipeline stages");
    r.value("m", u.si.m, "count", "microbatches");
  }
  if (u.st == Strategy::DCN) r.value("pods", u.si.pods, "count", "pods");
  if (c.recipe.idle > 0) r.value("idle_chips", c.recipe.idle, "chips", "chips left idle");
  r.value("per_chip_batch", c.per_chip_batch, "tokens", "batch per chip");
  r.value("t_math_fwd", c.t.fwd.math, "s", "forward T_math per layer");
  r.value("t_comms_fwd", c.t.fwd.comms(), "s", "forward T_comms per layer");
  r.value("t_math_bwd", c.t.bwd.math, "s", "backward T_math per layer");
  r.value("t_comms_bwd", c.t.bwd.comms(), "s", "backward T_comms per layer");
  if (pipe) {
    r.value("t_hop", c.hop, "s", "copy to the next stage (one microbatch)");
    r.value("bubble", c.bubble, "ratio", "idle share (GPipe estimate, not the chapter's)");
  }
  r.value("step", c.step, "s", "step-time bound");
  r.value("mfu", c.mfu, "ratio", "MFU bound (useful FLOPs over the step)");
  r.value("mem", c.mem, "B", "memory per chip");
  r.value("hbm", u.h.hbm, "B", "HBM per chip");
  r.value("fits", c.fits ? 1 : 0, "bool", "fits in HBM");
  r.value("compute_bound", c.compute_bound ? 1 : 0, "bool", "compute-bound");
  for (size_t i = 0; i < c.conditions.size(); ++i)
    r.value("threshold_" + std::to_string(i + 1), c.conditions[i].rhs, c.conditions[i].unit,
            std::string("threshold: ") + c.conditions[i].text);
  if (c.x_opt > 0) {
    r.value("x_opt", c.x_opt, "count", "X_opt = sqrt((B/F)(M_X/M_Y) N)");
    r.value("x_min", c.window.lo, "count", "smallest compute-bound X");
    r.value("x_max", c.window.hi, "count", "largest compute-bound X");
  }
}

// On a GPU cluster: the nodes, the GPUs snapped to whole nodes, the recipe, TP across nodes.
void gpu_notes(const StrategyRun& u, const Machine& mc, Result& r) {
  const StrategyCost& c = u.c;
  r.note(gpu_words(mc));
  if (!mc.snapped.empty()) r.note(mc.snapped);
  if (c.from_recipe)
    r.note("The gpus chapter's recipe (A.5 (2)): TP on NVLink inside a node, the largest degree " +
           std::string("under F / alpha = ") +
           units::number(gpus::tp_max(u.l.F, alpha_ici(u.h)), 3) +
           " that the node and the model take (Y = " + n_text(c.split.Y) +
           "), FSDP over the rest (X = " + n_text(c.split.X) + ").");
  if (c.split.Y > mc.gpu.d_node)
    r.note("TP spans " + n_text(c.split.Y / mc.gpu.d_node) +
           " nodes, over the fat tree: the gpus chapter keeps it inside one node (A.5 (2)).");
}

void strategy_notes(const StrategyRun& u, const Inputs& in, Result& r) {
  const StrategyCost& c = u.c;
  if (c.from_recipe && u.si.gpu.d_node == 0)
    r.note("The chapter's recipe: " + recipe_words(c.recipe, c.x_opt) + ".");
  if (c.x_opt > 0 && c.window.empty())
    r.note("No compute-bound split: " +
           window_words(c.window, u.si.B / u.si.N / c.split.pods,
                        mixed_min_batch_per_chip(alpha_ici(u.h), u.l.F, c.split.M_X, c.split.M_Y)) +
           ".");
  r.note(std::string("Memory with the remat policy the planner would pick (the fastest that "
                     "fits): ") +
         remat_label(c.remat) + ".");
  if (u.st == Strategy::Pipeline)
    r.note(
        "The chapter gives no bubble formula; the idle share (Z - 1) / (m + Z - 1) is the standard "
        "GPipe estimate.");
  if (u.st == Strategy::FSDP_TP || (u.st == Strategy::DCN && c.split.Y > 1))
    r.note(
        "The FSDP (X) and TP (Y) collectives run on different axes and overlap: T_comms is their "
        "max, as in the chapter.");
  if (!book_mlp(in) && u.l.n_mats == 3)
    r.note(
        "Gated MLP: 3 matrices (the model's own). The chapter's closed forms count 2; TP moves the "
        "same activations for 3 matrices of work, so its real limit is 1.5 times the closed "
        "form's.");
  if (u.lc.E > 0)
    r.note(
        "A mixture of experts: the math counts the experts a token uses, FSDP gathers every "
        "expert's weights, so the chapter's conditions (on the width a token uses) are looser than "
        "the times. The planner also tries expert parallelism.");
}

// What the page draws: the sharding, the collectives, the conditions, both phases, memory, the
// timeline, and the six strategies side by side on the same inputs.
void strategy_extra(const StrategyRun& u, Result& r) {
  const StrategyCost& c = u.c;
  const double used = c.split.X * c.split.Y * c.Z * c.split.pods;
  JsonWriter x = r.writer();
  x.key("verdict").str(
      std::string(strategy_label(u.st)) + " on " + units::format(used, "chips") +
      (c.recipe.idle > 0 ? " (" + n_text(c.recipe.idle * c.split.pods) + " idle)" : "") + ": " +
      (c.compute_bound ? "compute-bound" : "comms-bound") + ", " +
      (c.fits ? "fits" : "does not fit") + " in " + units::format(u.h.hbm, "B") + " of HBM (" +
      units::format(c.mem, "B") + " per chip)");
  x.key("strategy").str(strategy_label(u.st)).key("layer").obj().key("L").num(u.cfg.L);
  x.key("D").num(u.l.D).key("F").num(u.l.F).key("n_mats").num(u.l.n_mats).end();
  x.key("sharded").obj().key("weights").str(weights_text(u.st));
  x.key("activations").str(activations_text(u.st)).end().key("collectives").arr();
  for (const Collective& k : c.collectives) write_collective(x, k);
  x.end().key("conditions").arr();
  for (const Condition& k : c.conditions) write_condition(x, k);
  x.end().key("fwd");
  write_phase(x, c.t.fwd);
  x.key("bwd");
  write_phase(x, c.t.bwd);
  x.key("remat").str(remat_label(c.remat)).key("memory");
  write_memory(x, c.memory, u.h.hbm);
  x.key("timeline");
  write_timeline(x, c.timeline);
  x.key("strategies").arr();
  for (Strategy o : kAllStrategies) {
    StrategyCost row;
    try {
      row = strategy_cost(o, u.si);
    } catch (const InputError& e) {
      x.obj().key("strategy").str(strategy_label(o)).key("error").str(e.what());
      x.key("field").str(e.field).end();
      continue;
    }
    write_summary(x, row);
  }
  x.end();
}

}  // namespace

void strategy_calc(const Inputs& in, Trace& tr, Result& r) {
  const Machine mc = machine_of(in);
  StrategyRun u;
  u.h = mc.h;
  u.cfg = config_of(in);
  u.l = layer_of(u.cfg, book_mlp(in));
  LayerChoice choice;
  choice.book_mlp = book_mlp(in);
  u.lc = layer_costs(u.cfg, choice);
  u.si = strategy_input(in, u.cfg, mc);
  u.st = strategy_of(in.text("strategy"));
  u.c = strategy_cost(u.st, u.si);
  strategy_trace(u, tr);
  memory_trace(u, tr);
  strategy_values(u, r);
  strategy_notes(u, in, r);
  if (mc.gpu.d_node > 0) gpu_notes(u, mc, r);
  strategy_extra(u, r);
}

}  // namespace sb::training::calc
