// The training chapter's calculators: one parallelism strategy in full (what it shards, its
// collectives per layer with their bytes, T_math against T_comms, the compute-bound conditions,
// memory per chip) with the six side by side; the FSDP/TP split; the planner; the regime map.
// Model and chip come from the tables (data/models.json, data/chips.json); the arithmetic is in
// model.hpp and planner.hpp.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "chapters/tpus/model.hpp"
#include "chapters/training/model.hpp"
#include "chapters/training/planner.hpp"
#include "chapters/transformers/model.hpp"
#include "chapters/transformers/models.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::training {

namespace {

namespace tf = transformers;

constexpr Param zero_ok(Param p) {
  p.positive = false;
  return p;
}
constexpr Param override_param(Text name, Text doc, double max) {
  return zero_ok(num(name, "count", 0, doc, 0, max, true));
}
// The ids of data/models.json (a test checks them against the table), and custom.
constexpr Param kModel = choice(
    "model", "llama-3-70b",
    "llama-3-70b|llama-2-7b|llama-2-13b|llama-2-70b|llama-3-8b|llama-3.1-405b|mistral-7b|"
    "mixtral-8x7b|mixtral-8x22b|gemma-7b|gemma-2-9b|gemma-2-27b|qwen2.5-7b|qwen2.5-72b|qwen3-32b|"
    "qwen3-235b-a22b|deepseek-v3|gpt-oss-20b|gpt-oss-120b|book-q1|custom",
    "model from the table (data/models.json), or custom: the fields below");
constexpr Param kL = override_param("L", "layers; 0 = the model's", 1000);
constexpr Param kD = override_param("D", "model width d_model; 0 = the model's", 1e6);
constexpr Param kF =
    override_param("F", "MLP width d_ff (MoE: one expert's); 0 = the model's", 1e7);
constexpr Param kN = override_param("N", "query heads; 0 = the model's", 1e5);
constexpr Param kK = override_param("K", "KV heads (N for MHA, 1 for MQA); 0 = the model's", 1e5);
constexpr Param kH = override_param("H", "head dim; 0 = the model's (custom: D / N)", 1e5);
constexpr Param kV = override_param("V", "vocabulary; 0 = the model's (custom: none)", 1e7);
constexpr Param kMlp =
    choice("mlp", "book", "book|model",
           "book = the chapter's 2-matrix MLP; model = the model's own (3 matrices if gated)");
constexpr Param kChip = chip_param("v5p", "TPU from the hardware tables");
constexpr Param kChips = zero_ok(
    num("chips", "chips", 0, "chips N (per pod for DP over DCN); 0 = one full pod", 0, 1e8, true));
constexpr Param kBatch =
    num("B", "tokens", 4194304, "global batch in tokens (4M = 4 x 2^20 = 4,194,304)", 1, 1e15);
constexpr Param kAxes = zero_ok(
    num("axes", "count", 0, "ICI axes of the slice; 0 = the chip's torus rank", 0, 3, true));
constexpr Param kMY =
    num("M_Y", "count", 1, "axes given to TP in FSDP + TP (FSDP gets the rest)", 0.1, 2.9);

// The model of the inputs: a table entry with the reader's fields laid over it, or custom.
tf::Config config_of(const Inputs& in) {
  return model_config(in.text("model"), {in.num("L"), in.num("D"), in.num("F"), in.num("N"),
                                         in.num("K"), in.num("H"), in.num("V")});
}

Layer layer_from(const Inputs& in, const tf::Config& c) {
  Layer l = layer_of(c);
  if (in.text("mlp") == "book") l.n_mats = 2;
  return l;
}

const hw::Chip& tpu(const Inputs& in) {
  const hw::Chip& c = hw::chip(in.text("chip"));
  if (c.kind != "tpu")
    fail("chip",
         c.name + " has no ICI torus: this chapter shards over TPU slices (GPUs come in Part 12)",
         "no_figure");
  return c;
}

double pod_chips(const hw::Chip& c) { return tpus::chip_count(tpus::topology_of(c).max_pod); }

double chips_of(const Inputs& in, const hw::Chip& c) {
  return in.num("chips") > 0 ? in.num("chips") : pod_chips(c);
}

double axes_of(const Inputs& in, const hw::Chip& c) {
  return in.num("axes") > 0 ? in.num("axes") : tpus::topology_of(c).torus_dims;
}

std::string n_text(double v) { return units::number(v, 6); }

json layer_json(const Layer& l, const tf::Config& c) {
  return {{"L", c.L}, {"D", l.D}, {"F", l.F}, {"n_mats", l.n_mats}};
}

// ------------------------------------------------------------------ training.strategy

constexpr Text kStrategies = "DP|FSDP|TP|FSDP+TP|pipeline|DCN";
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

StrategyInput strategy_input(const Inputs& in, const tf::Config& c, const Layer& l,
                             const hw::Chip& chip, const Hardware& h) {
  StrategyInput s;
  s.layer = l;
  s.L = c.L;
  s.P = tf::params(c).total;
  s.B = in.num("B");
  s.N = chips_of(in, chip);
  s.axes = axes_of(in, chip);
  s.M_Y = in.num("M_Y");
  s.Y = in.num("Y");
  s.Z = in.num("Z");
  s.m = in.num("m");
  s.pods = in.num("pods");
  s.hw = h;
  return s;
}

json collective_json(const Collective& k) {
  return {{"phase", k.phase},
          {"op", k.op},
          {"array", k.array},
          {"axis", k.axis},
          {"bytes", k.bytes},
          {"t", k.t},
          {"critical", k.critical},
          {"t_text", units::format(k.t, "s")},
          {"bytes_text", units::format(k.bytes, "B")}};
}

json condition_json(const Condition& k) {
  return {{"text", k.text},
          {"unit", k.unit},
          {"lhs", k.lhs},
          {"rhs", k.rhs},
          {"upper", k.upper},
          {"holds", k.holds()},
          {"lhs_text", units::format(k.lhs, k.unit)},
          {"rhs_text", units::format(k.rhs, k.unit)}};
}

json phase_json(const Phase& p) {
  return {{"math", p.math},
          {"fsdp", p.fsdp},
          {"tp", p.tp},
          {"dp", p.dp},
          {"dcn", p.dcn},
          {"comms", p.comms()},
          {"compute_bound", p.compute_bound()}};
}

// One row of the side-by-side table.
json summary_json(const StrategyCost& c) {
  return {{"strategy", strategy_label(c.strategy)},
          {"X", c.split.X},
          {"Y", c.split.Y},
          {"fwd", phase_json(c.t.fwd)},
          {"bwd", phase_json(c.t.bwd)},
          {"step", c.step},
          {"mfu", c.mfu},
          {"mem", c.mem},
          {"fits", c.fits},
          {"compute_bound", c.compute_bound()},
          {"per_chip_batch", c.per_chip_batch},
          {"bubble", c.bubble}};
}

// One strategy as the calculator sees it.
struct StrategyRun {
  Layer l;
  tf::Config cfg;
  Hardware h;
  StrategyInput si;
  Strategy st;
  StrategyCost c;
};

// The derivation: alpha, each term of the forward (and backward) pass, the conditions.
void strategy_trace(const StrategyRun& u, Trace& tr) {
  const Layer& l = u.l;
  const Hardware& h = u.h;
  const Split& s = u.c.split;
  const LayerTimes& t = u.c.t;
  tr.step("ICI intensity", "\\alpha = C / W_{ici}", "\\frac{#}{#}", {h.C, h.W_ici}, alpha_ici(h),
          "tokens");
  const double B = u.st == Strategy::Pipeline ? u.si.B / u.si.m : u.si.B / s.pods;
  tr.step("Forward T_math per layer", "2 n B D F / (N C)",
          "\\frac{2 \\cdot # \\cdot # \\cdot # \\cdot #}{# \\cdot #}",
          {l.n_mats, B, l.D, l.F, s.X * s.Y, h.C}, t.fwd.math, "s");
  if (t.fwd.fsdp > 0)
    tr.step("FSDP weight gathers", "n \\cdot 2 D F / (Y W_{ici} M_X)",
            "\\frac{# \\cdot 2 \\cdot # \\cdot #}{# \\cdot # \\cdot #}",
            {l.n_mats, l.D, l.F, s.Y, h.W_ici, s.M_X}, t.fwd.fsdp, "s");
  if (t.fwd.tp > 0)
    tr.step("TP activation gather + reduce-scatter", "4 B D / (X W_{ici} M_Y)",
            "\\frac{4 \\cdot # \\cdot #}{# \\cdot # \\cdot #}", {B, l.D, s.X, h.W_ici, s.M_Y},
            t.fwd.tp, "s");
  if (t.bwd.dp > 0)
    tr.step("DP gradient all-reduce (backward)", "2 \\cdot n \\cdot 2 D F / (W_{ici} M_X)",
            "\\frac{4 \\cdot # \\cdot # \\cdot #}{# \\cdot #}",
            {l.n_mats, l.D, l.F, h.W_ici, s.M_X}, t.bwd.dp, "s");
  if (t.bwd.dcn > 0)
    tr.step("All-reduce across pods over DCN (backward)", "2 \\cdot n \\cdot 2 D F / (M W_{dcn})",
            "\\frac{4 \\cdot # \\cdot # \\cdot #}{# \\cdot #}",
            {l.n_mats, l.D, l.F, s.X * s.Y, h.W_dcn}, t.bwd.dcn, "s");
  for (const Condition& k : u.c.conditions)
    tr.note(std::string(k.text) + ": " + n_text(k.lhs) + (k.upper ? " < " : " > ") + n_text(k.rhs) +
            (k.holds() ? " holds" : " fails"));
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
  r.value("mfu", c.mfu, "ratio", "MFU bound (math share of the step)");
  r.value("mem", c.mem, "B", "memory per chip (10 P + checkpoints)");
  r.value("hbm", u.h.hbm, "B", "HBM per chip");
  r.value("fits", c.fits ? 1 : 0, "bool", "fits in HBM");
  r.value("compute_bound", c.compute_bound() ? 1 : 0, "bool", "compute-bound");
  for (size_t i = 0; i < c.conditions.size(); ++i)
    r.value("threshold_" + std::to_string(i + 1), c.conditions[i].rhs, c.conditions[i].unit,
            std::string("threshold: ") + c.conditions[i].text);
  if (c.x_opt > 0) {
    r.value("x_opt", c.x_opt, "count", "X_opt = sqrt((B/F)(M_X/M_Y) N)");
    r.value("x_min", c.window.lo, "count", "smallest compute-bound X");
    r.value("x_max", c.window.hi, "count", "largest compute-bound X");
  }
}

void strategy_notes(const StrategyRun& u, const Inputs& in, Result& r) {
  if (u.st == Strategy::Pipeline)
    r.note(
        "The chapter gives no bubble formula; the idle share (Z - 1) / (m + Z - 1) is the standard "
        "GPipe estimate.");
  if (u.st == Strategy::FSDP_TP || (u.st == Strategy::DCN && u.c.split.Y > 1))
    r.note(
        "The FSDP (X) and TP (Y) collectives run on different axes and overlap: T_comms is their "
        "max, as in the chapter.");
  if (in.text("mlp") == "model" && u.l.n_mats == 3)
    r.note(
        "Gated MLP: 3 matrices. The chapter's closed forms count 2; TP moves the same activations "
        "for 3 matrices of work, so its real limit is 1.5x the closed form's.");
}

// What the page draws: the sharding, the collectives, the conditions, both phases, and the six
// strategies side by side on the same inputs.
void strategy_extra(const StrategyRun& u, Result& r) {
  const StrategyCost& c = u.c;
  json sides = json::array();
  for (Strategy o : kAllStrategies) {
    try {
      sides.push_back(summary_json(strategy_cost(o, u.si)));
    } catch (const InputError& e) {
      sides.push_back({{"strategy", strategy_label(o)}, {"error", e.what()}, {"field", e.field}});
    }
  }
  json colls = json::array(), conds = json::array();
  for (const Collective& k : c.collectives) colls.push_back(collective_json(k));
  for (const Condition& k : c.conditions) conds.push_back(condition_json(k));
  json& x = r.extra;
  x["verdict"] = std::string(strategy_label(u.st)) + " on " + n_text(u.si.N * c.split.pods) +
                 " chips: " + (c.compute_bound() ? "compute-bound" : "comms-bound") + ", " +
                 (c.fits ? "fits" : "does not fit") + " in " + units::format(u.h.hbm, "B") +
                 " of HBM (" + units::format(c.mem, "B") + " per chip)";
  x["strategy"] = strategy_label(u.st);
  x["layer"] = layer_json(u.l, u.cfg);
  x["sharded"] = {{"weights", weights_text(u.st)}, {"activations", activations_text(u.st)}};
  x["collectives"] = std::move(colls);
  x["conditions"] = std::move(conds);
  x["fwd"] = phase_json(c.t.fwd);
  x["bwd"] = phase_json(c.t.bwd);
  x["strategies"] = std::move(sides);
}

void strategy_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& chip = tpu(in);
  StrategyRun u;
  u.h = hardware_of(chip);
  u.cfg = config_of(in);
  u.l = layer_from(in, u.cfg);
  u.si = strategy_input(in, u.cfg, u.l, chip, u.h);
  u.st = strategy_of(in.text("strategy"));
  u.c = strategy_cost(u.st, u.si);
  strategy_trace(u, tr);
  strategy_values(u, r);
  strategy_notes(u, in, r);
  strategy_extra(u, r);
}

// ------------------------------------------------------------------ training.split

// The divisors of a whole N, in order.
std::vector<double> divisors(double N) {
  std::vector<double> lo, hi;
  const long long n = static_cast<long long>(N);
  for (long long d = 1; d * d <= n; ++d)
    if (n % d == 0) {
      lo.push_back(static_cast<double>(d));
      if (d * d != n) hi.push_back(static_cast<double>(n / d));
    }
  lo.insert(lo.end(), hi.rbegin(), hi.rend());
  return lo;
}

// FSDP over M_X axes and TP over M_Y of N chips at batch B.
struct SplitRun {
  Layer l;
  Hardware h;
  double N = 0, B = 0, M_X = 0, M_Y = 0, alpha = 0;
};

SplitRun split_run(const Inputs& in) {
  const hw::Chip& chip = tpu(in);
  SplitRun u;
  u.h = hardware_of(chip);
  u.l = layer_from(in, config_of(in));
  u.N = chips_of(in, chip);
  u.B = in.num("B");
  const double axes = axes_of(in, chip);
  u.M_Y = in.num("M_Y");
  u.M_X = axes - u.M_Y;
  if (!(u.M_X > 0))
    fail("M_Y", "TP takes M_Y of the " + n_text(axes) + " axes and FSDP the rest", "out_of_range");
  if (!(u.B >= u.N))
    fail("B",
         "the batch (" + n_text(u.B) + " tokens) is smaller than the chip count (" + n_text(u.N) +
             ")",
         "out_of_range");
  u.alpha = alpha_ici(u.h);
  return u;
}

// Each forward term against X over the divisors of N, for the plot.
json split_plot(const SplitRun& u, double xo, const XWindow& w, double X) {
  json xs = json::array(), fsdp = json::array(), tp = json::array(), math = json::array();
  for (double d : divisors(u.N)) {
    const LayerTimes t = layer_times(u.l, u.B, {d, u.N / d, u.M_X, u.M_Y, XMode::FSDP, 1}, u.h);
    xs.push_back(d);
    fsdp.push_back(t.fwd.fsdp);
    tp.push_back(t.fwd.tp);
    math.push_back(t.fwd.math);
  }
  return {{"x", std::move(xs)},  {"fsdp", std::move(fsdp)},
          {"tp", std::move(tp)}, {"math", std::move(math)},
          {"x_opt", xo},         {"lo", w.lo},
          {"hi", w.hi},          {"X", X}};
}

void split_calc(const Inputs& in, Trace& tr, Result& r) {
  const SplitRun u = split_run(in);
  const double N = u.N, B = u.B, F = u.l.F, M_X = u.M_X, M_Y = u.M_Y, alpha = u.alpha;
  const double xo = tr.step("Optimal FSDP degree", "X_{opt} = \\sqrt{(B/F)(M_X/M_Y) N}",
                            "\\sqrt{(# / #)(# / #) \\cdot #}", {B, F, M_X, M_Y, N},
                            x_opt(B, F, N, M_X, M_Y), "count");
  const XWindow w = x_window(B, F, N, alpha, M_X, M_Y);
  tr.step("Smallest compute-bound X (TP term)", "N \\alpha / (F M_Y)",
          "\\frac{# \\cdot #}{# \\cdot #}", {N, alpha, F, M_Y}, w.lo, "count");
  tr.step("Largest compute-bound X (FSDP term)", "B M_X / \\alpha", "\\frac{# \\cdot #}{#}",
          {B, M_X, alpha}, w.hi, "count");
  const double floor =
      tr.step("Per-chip batch floor", "\\alpha^2 / (M_X M_Y F)", "\\frac{#^2}{# \\cdot # \\cdot #}",
              {alpha, M_X, M_Y, F}, mixed_min_batch_per_chip(alpha, F, M_X, M_Y), "tokens");
  const double X = round_split(xo, N), Y = N / X;
  const LayerTimes t = layer_times(u.l, B, {X, Y, M_X, M_Y, XMode::FSDP, 1}, u.h);
  r.value("x_opt", xo, "count", "X_opt");
  r.value("y_opt", N / xo, "count", "Y at X_opt");
  r.value("x_min", w.lo, "count", "smallest compute-bound X");
  r.value("x_max", w.hi, "count", "largest compute-bound X");
  r.value("per_chip_batch", B / N, "tokens", "batch per chip B/N");
  r.value("min_batch_per_chip", floor, "tokens", "per-chip floor alpha^2/(M_X M_Y F)");
  r.value("ratio_at_opt", mixed_ratio(B, F, N, alpha, M_X, M_Y), "ratio",
          "T_math / T_comms at X_opt");
  r.value("X", X, "count", "X rounded (nearest divisor of N)");
  r.value("Y", Y, "count", "Y = N / X");
  r.value("X_pow2", round_pow2(xo), "count", "X rounded to a power of two");
  r.value("t_math", t.fwd.math, "s", "forward T_math per layer");
  r.value("t_fsdp", t.fwd.fsdp, "s", "forward FSDP gathers per layer");
  r.value("t_tp", t.fwd.tp, "s", "forward TP collectives per layer");
  r.value("compute_bound", t.fwd.compute_bound() ? 1 : 0, "bool", "compute-bound at X, Y");
  if (w.empty())
    r.note("No X keeps both terms under T_math: the batch per chip is below the floor.");
  if (std::fmod(N, round_pow2(xo)) != 0)
    r.note("The power of two nearest X_opt does not divide " + n_text(N) + " chips.");
  r.extra["verdict"] = "X = " + n_text(X) + ", Y = " + n_text(Y) + ": " +
                       (t.fwd.compute_bound() ? "compute-bound" : "comms-bound") +
                       " (X_opt = " + n_text(xo) + ", window " + n_text(w.lo) + " to " +
                       n_text(w.hi) + ")";
  r.extra["plot"] = split_plot(u, xo, w, X);
}

// ------------------------------------------------------------------ training.plan

std::string factors_text(const std::array<int, 3>& f, size_t axes) {
  std::string s;
  for (size_t i = 0; i < axes; ++i) s += (i ? "x" : "") + std::to_string(f[i]);
  return s;
}

json plan_json(const Plan& p, const Slice& sl) {
  const size_t n = sl.dims.size();
  return {{"strategy", strategy_name(p.strategy)},
          {"X", p.X},
          {"Y", p.Y},
          {"Z", p.Z},
          {"m", p.m},
          {"x", factors_text(p.x, n)},
          {"y", factors_text(p.y, n)},
          {"z", factors_text(p.z, n)},
          {"M_X", p.M_X},
          {"M_Y", p.M_Y},
          {"remat", p.remat == tf::Remat::Block     ? "block"
                    : p.remat == tf::Remat::SaveAll ? "save all"
                                                    : "big matmuls"},
          {"mem", p.mem},
          {"fits", p.fits},
          {"t_step", p.t_step},
          {"mfu", p.mfu},
          {"comms_ratio", p.comms_ratio},
          {"bottleneck", term_name(p.bottleneck)},
          {"compute_bound", p.compute_bound},
          {"reason", reason_name(p.reason)},
          {"why", reason_text(p.reason)},
          {"slice", tpus::shape_text(tpus::Dims(sl.dims.begin(), sl.dims.end()))}};
}

PlanInput plan_input(const Inputs& in, const hw::Chip& chip) {
  PlanInput pi;
  pi.model = config_of(in);
  pi.hw = hardware_of(chip);
  const std::string shape = in.text("shape");
  pi.topo = shape.empty() ? topology_for_chips(chip, chips_of(in, chip), "chips")
                          : topology_for_shape(chip, shape, 1, "shape");
  pi.B = in.num("B");
  pi.layer = in.text("layer") == "full" ? LayerModel::Full : LayerModel::Book;
  pi.seq_len = in.num("seq_len");
  pi.state_bytes_per_param = in.text("grad_buffers") == "yes" ? 12 : 10;
  pi.pipeline = in.text("pipeline") == "yes";
  return pi;
}

// The best plan of each strategy: the best first, then those that fit, fastest first.
json plan_rows(const PlanResult& res, const Topology& topo) {
  json plans = json::array();
  for (int i = 0; i < kStrategyClasses; ++i)
    if (res.has[i])
      plans.push_back(plan_json(res.by_strategy[i], topo.slices[res.by_strategy[i].slice]));
  std::sort(plans.begin(), plans.end(), [](const json& a, const json& c) {
    if (a["reason"] == "best" || c["reason"] == "best") return a["reason"] == "best";
    if (a["fits"] != c["fits"]) return a["fits"].get<bool>();
    return a["t_step"].get<double>() < c["t_step"].get<double>();
  });
  return plans;
}

std::string plan_verdict(const PlanResult& res, double chips, double hbm) {
  const Plan& b = res.best;
  const std::string name = strategy_name(b.strategy);
  if (!res.fits)
    return "Fits nowhere: even the plan with the least memory (" + name + ") needs " +
           units::format(b.mem, "B") + " per chip, above " + units::format(hbm, "B") + " of HBM.";
  return "Best: " + name + " (X " + std::to_string(b.X) + ", Y " + std::to_string(b.Y) + ", Z " +
         std::to_string(b.Z) + ") on " + n_text(chips) + " chips, " + units::format(b.t_step, "s") +
         " per step, MFU bound " + units::number(b.mfu * 100, 3) + "%, " +
         (b.compute_bound ? "compute-bound" : std::string("bound by ") + term_name(b.bottleneck));
}

// The chip counts the page's slider offers. They depend on the chip only, and finding them tries
// every slice shape: once per chip.
const std::vector<double>& slider_counts(const hw::Chip& chip) {
  static std::map<std::string, std::vector<double>, std::less<>> counts;
  auto it = counts.find(chip.id);
  if (it == counts.end()) it = counts.emplace(chip.id, chip_counts(chip)).first;
  return it->second;
}

void plan_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& chip = tpu(in);
  const PlanInput pi = plan_input(in, chip);
  const PlanResult res = plan(pi);
  const Plan& b = res.best;
  const Slice& sl = pi.topo.slices[b.slice];
  const double chips = sl.chips() * res.pods;
  tr.note("Searched " + std::to_string(res.assignments) +
          " ways to split the axes into X, Y and Z (" + std::to_string(res.configs) +
          " configurations with the X mode, remat policy and microbatches).");
  r.value("chips", chips, "chips", "chips");
  r.value("per_chip_batch", pi.B / chips, "tokens", "batch per chip");
  r.value("X", b.X, "count", "best X (data / FSDP)");
  r.value("Y", b.Y, "count", "best Y (tensor parallel)");
  r.value("Z", b.Z, "count", "best Z (pipeline stages)");
  r.value("m", b.m, "count", "microbatches");
  r.value("mem", b.mem, "B", "memory per chip");
  r.value("hbm", pi.hw.hbm, "B", "HBM per chip");
  r.value("step", b.t_step, "s", "step-time bound");
  r.value("mfu", b.mfu, "ratio", "MFU bound");
  r.value("fits", res.fits ? 1 : 0, "bool", "some plan fits");
  r.value("configs", static_cast<double>(res.configs), "count", "configurations evaluated");
  r.value("assignments", static_cast<double>(res.assignments), "count", "axis assignments");
  if (!res.fits)
    r.note(
        "No layout of this model fits on these chips: more chips, a smaller batch, or a chip "
        "with more HBM.");
  r.note(pi.layer == LayerModel::Book
             ? "Layer model: the chapter's MLP (attention and embeddings left out of the time)."
             : "Layer model: the whole transformer layer (attention projections, MLP, TP around "
               "both blocks, the attention core at the sequence length).");
  r.extra["verdict"] = plan_verdict(res, chips, pi.hw.hbm);
  r.extra["fits"] = res.fits;
  r.extra["chip_counts"] = slider_counts(chip);
  r.extra["best"] = plan_json(b, sl);
  r.extra["plans"] = plan_rows(res, pi.topo);
}

// ------------------------------------------------------------------ training.regime

void regime_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& chip = tpu(in);
  const Hardware h = hardware_of(chip);
  const tf::Config cfg = config_of(in);
  const Layer l = layer_of(cfg);
  const tpus::Topology topo = tpus::topology_of(chip);
  const double pod = tpus::chip_count(topo.max_pod);
  const double alpha = alpha_ici(h);
  const double axes = topo.torus_dims;
  // Rows: 4 chips to 8 pods, two per octave; columns: 8 to 32768 tokens per chip, four per octave.
  std::vector<double> rows, cols;
  for (double n = 4; n <= 8 * pod * 1.0001; n *= std::sqrt(2.0)) rows.push_back(std::round(n));
  for (double b = 8; b <= 32768 * 1.0001; b *= std::pow(2.0, 0.25)) cols.push_back(b);
  const RegimeMap map = regime_map(cfg, h, topo.torus_dims, pod, rows, cols);
  tr.step("FSDP floor on every axis", "\\alpha / M_X", "\\frac{#}{#}", {alpha, axes},
          dp_min_batch_per_chip(alpha, axes), "tokens");
  tr.step("FSDP + TP floor", "\\alpha^2 / (M_X M_Y F)", "\\frac{#^2}{# \\cdot 1 \\cdot #}",
          {alpha, axes - 1, l.F}, mixed_min_batch_per_chip(alpha, l.F, axes - 1, 1), "tokens");
  r.value("fsdp_floor", dp_min_batch_per_chip(alpha, axes), "tokens",
          "DP/FSDP floor on every axis, alpha / M_X");
  if (axes >= 2)
    r.value("mixed_floor", mixed_min_batch_per_chip(alpha, l.F, axes - 1, 1), "tokens",
            "FSDP + TP floor, alpha^2 / (M_X M_Y F)");
  r.value("tp_max_chips", tp_max_degree(l.F, alpha, axes), "count",
          "TP over every axis: chips below M_Y F / alpha");
  if (h.W_dcn > 0) r.value("alpha_dcn", alpha_dcn(h), "tokens", "batch per pod for DCN, alpha_dcn");
  r.value("pod_chips", pod, "chips", "chips in a pod");
  const double B = in.num("B"), N = chips_of(in, chip);
  r.value("per_chip_batch", B / N, "tokens", "your batch per chip");
  json cells = json::array();
  for (uint8_t c : map.cells) cells.push_back(c);
  const std::string name = in.text("model") == kCustomModel ? std::string("custom model")
                                                            : tf::model(in.text("model")).name;
  r.extra["verdict"] = chip.name + ", " + name +
                       ": which strategies are compute-bound and fit, by chips and batch per chip";
  r.extra["map"] = {{"chips", map.chips},
                    {"batch_per_chip", map.batch_per_chip},
                    {"cells", std::move(cells)},
                    {"bits",
                     {{"DP", kRegimeDP},
                      {"FSDP", kRegimeFSDP},
                      {"TP", kRegimeTP},
                      {"FSDP+TP", kRegimeMixed},
                      {"DCN", kRegimeDCN},
                      {"multi_pod", kRegimeMultiPod}}},
                    {"point", {{"chips", N}, {"batch_per_chip", B / N}}}};
}

// ------------------------------------------------------------------ the records

constexpr Param kStrategyParams[] = {
    choice("strategy", "FSDP+TP", kStrategies,
           "DP, FSDP, TP, FSDP+TP, pipeline, or DCN (DP across pods, FSDP/TP inside)"),
    kModel,
    kL,
    kD,
    kF,
    kN,
    kK,
    kH,
    kV,
    kMlp,
    kChip,
    kChips,
    kBatch,
    kAxes,
    kMY,
    zero_ok(num("Y", "count", 0,
                "TP degree for FSDP+TP and DCN; 0 = X_opt rounded to a divisor of N (DCN: 1 = "
                "FSDP inside a pod)",
                0, 1e8, true)),
    count("Z", 4, "pipeline stages"),
    count("m", 16, "pipeline microbatches"),
    count("pods", 2, "pods for DP over DCN", {}, 1, 1e4)};

constexpr Param kSplitParams[] = {kModel, kL,   kD,    kF,     kN,     kK,    kH,
                                  kV,     kMlp, kChip, kChips, kBatch, kAxes, kMY};

constexpr Param kPlanParams[] = {
    kModel,
    kL,
    kD,
    kF,
    kN,
    kK,
    kH,
    kV,
    kChip,
    kChips,
    text("shape", "", "slice shape like 16x20x28; empty = every shape with that many chips"),
    kBatch,
    choice("layer", "book", "book|full",
           "book = the chapter's MLP layer; full = attention and MLP, the core at seq_len"),
    zero_ok(
        num("seq_len", "tokens", 4096, "sequence length (full layer: the attention core)", 0, 1e7)),
    choice("grad_buffers", "no", "no|yes", "count bf16 gradient buffers (12 B per parameter)"),
    choice("pipeline", "yes", "yes|no", "try pipeline stages too")};

constexpr Param kRegimeParams[] = {kModel, kL, kD, kF, kN, kK, kH, kV, kChip, kChips, kBatch};

constexpr Calculator kCalculators[] = {
    Calculator{.name = "training.strategy",
               .title = "One parallelism strategy, layer by layer",
               .doc = "DP, FSDP, TP, FSDP + TP, pipelining or DP across pods: what is sharded, the "
                      "collectives of each layer with their bytes, forward and backward T_math "
                      "against T_comms, the compute-bound conditions and memory per chip; the six "
                      "side by side.",
               .params = kStrategyParams,
               .run = strategy_calc},
    Calculator{.name = "training.split",
               .title = "FSDP x TP split",
               .doc = "For FSDP + TP on N chips: X_opt, the window of X that keeps both comm terms "
                      "under the math, the per-chip batch floor, and each term against X.",
               .params = kSplitParams,
               .run = split_calc},
    Calculator{.name = "training.plan",
               .title = "Training planner",
               .doc = "Every way to split a slice's axes into data (DP/FSDP), tensor and pipeline "
                      "parallelism, with memory per chip, step-time and MFU bounds; the best plan "
                      "and why each other strategy loses.",
               .params = kPlanParams,
               .run = plan_calc},
    Calculator{.name = "training.regime",
               .title = "Regime map",
               .doc = "Chips against batch per chip: where DP, FSDP, TP and FSDP + TP are "
                      "compute-bound and fit, and where DP across pods keeps up over DCN.",
               .params = kRegimeParams,
               .run = regime_calc},
};

}  // namespace

void add_calculators(Registry& r) { r.add(kCalculators); }

}  // namespace sb::training
