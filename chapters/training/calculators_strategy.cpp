// The training chapter's calculators of one strategy (training.strategy: what it shards, its
// collectives per layer with their bytes, T_math against T_comms, the compute-bound conditions,
// memory per chip, the six side by side) and of the FSDP x TP split (training.split).
#include <string>
#include <vector>

#include "chapters/training/calculators.hpp"
#include "chapters/training/model.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

namespace sb::training::calc {
namespace {

// ------------------------------------------------------------------ training.strategy

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
  tr.step("Forward $T_{math}$ per layer", "2 n B D F / (N C)",
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
    tr.note(std::string(k.words) + ": $" + n_text(k.lhs) + (k.upper ? " < " : " > ") +
            n_text(k.rhs) + "$" + (k.holds() ? " holds" : " fails"));
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

void run_strategy(const Inputs& in, Trace& tr, Result& r) {
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

void run_split(const Inputs& in, Trace& tr, Result& r) {
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

}  // namespace

void strategy_calc(const Inputs& in, Trace& tr, Result& r) { run_strategy(in, tr, r); }
void split_calc(const Inputs& in, Trace& tr, Result& r) { run_split(in, tr, r); }

}  // namespace sb::training::calc
