// inference.frontier (the latency-throughput sweep, A.9) and inference.plan (the serving planner):
// the searches are frontier.hpp's; this file reads the inputs, derives one point step by step from
// the records and writes the payloads the page draws.
#include <algorithm>
#include <cmath>
#include <string>

#include "chapters/inference/calculators.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "core/work.hpp"

namespace sb::inference::calc {
namespace {

std::vector<DtypeSet> chosen_sets(const Inputs& in, const Machine& t) {
  const std::string& d = in.text("dtypes");
  if (d == "all") return dtype_sets(t);
  if (d == "bf16") return {dtype_set(t, "bf16", "bf16", "bf16", "dtypes")};
  if (d == "int8") return {dtype_set(t, "int8", "int8", "bf16", "dtypes")};
  if (d == "int8-int8") return {dtype_set(t, "int8", "int8", "int8", "dtypes")};
  return {dtype_set(t, "int4", "int4", "bf16", "dtypes")};
}

void put(Out& o, Text key, double v) {
  o << ",\"" << key << "\":";
  append_json(o, v);
}
void put(Out& o, Text key, Text v) {
  o << ",\"" << key << "\":";
  append_json(o, v);
}

// The derivation of one configuration from the records: its bytes, memory and step.
Decode point_steps(const Served& m, const Machine& t, const DtypeSet& ds, double n, double B,
                   double S, Trace& tr) {
  const double w = tr.step("Weight bytes", kWeightBytes, {m.P_total, ds.b_w});
  const double kv_tok = m.plain_kv ? tr.step("KV bytes per token", kKvTok, {m.L, m.K, m.H, ds.b_kv})
                                   : tr.value("KV bytes per token at $S$ (transformers chapter)",
                                              kv_tok_of(m, ds.b_kv, S), "B");
  const double free = tr.step("HBM left beside the weights", kFreeHbm, {n, t.M_hbm, w});
  tr.step("Largest batch that fits", kMaxBatch, {free, S, kv_tok});
  Decode d;
  d.T_kv = tr.step("KV loading", kTKv, {B, S, kv_tok, n, t.W_hbm});
  d.T_param = tr.step("Weight loading", kTParam, {m.P_total, ds.b_w, n, t.W_hbm});
  d.T_flops = tr.step("FLOPs", kTFlops, {B, m.P_active, n, ds.C_peak});
  d.T_step = tr.step("Step: time per output token", kTStep, {d.T_kv, d.T_flops, d.T_param});
  d.T_step = gpu_comms_steps(t, m, B, 2, n, d.T_step, tr).T_step;
  tr.step("Tokens per second per chip", kTokSChip, {B, n, d.T_step});
  return d;
}

void write_points(const Sweep& sw, Out& o) {
  o << '[';
  for (size_t i = 0; i < sw.points.size(); ++i) {
    const Point& p = sw.points[i];
    o << (i ? ",{" : "{") << "\"latency\":";
    append_json(o, p.d.T_step);
    put(o, "tok_s_chip", p.tok_s_chip);
    put(o, "cost", p.cost);
    put(o, "B", p.B);
    put(o, "B_max", p.B_max);
    put(o, "chips", sw.slices[p.slice].chips);
    put(o, "shape", sw.slices[p.slice].shape);
    put(o, "dtype", sw.dtypes[p.dtype].name);
    put(o, "dtype_w", sw.dtypes[p.dtype].w);
    put(o, "share_kv", p.d.T_kv / p.d.T_step);
    o << ",\"pareto\":" << (p.pareto ? "true" : "false")
      << ",\"full\":" << (p.full ? "true" : "false") << '}';
  }
  o << ']';
}

}  // namespace

void frontier_calc(const Inputs& in, Trace& tr, Result& r) {
  const Chosen ch = model_of(in);
  const Served m = served(ch.c);
  SweepInput si;
  si.model = &m;
  si.machine = machine_in(in);
  si.dtypes = chosen_sets(in, si.machine);
  si.S = in.num("S");
  si.max_chips = in.num("max_chips");
  si.batches = static_cast<int>(in.num("batches"));
  si.price = price_in(in, si.machine);
  const Sweep sw = sweep(si);
  tr.note(config_text(ch) +
          ". Each point is one slice, dtype set and batch; its step is "
          "$T_{kv} + \\max(T_{flops}, T_{param})$.");
  if (sw.points.empty())
    fail(in.num("max_chips") > 0 ? "max_chips" : "S",
         "no slice of the " + si.machine.name + " holds the weights and one sequence of " +
             units::number(si.S) + " tokens" +
             (in.num("max_chips") > 0 ? " within the largest slice allowed" : ""),
         "out_of_range");
  // The derivation of the front's point with the most tokens per second per chip.
  const Point* top = &sw.points[0];
  for (const Point& p : sw.points)
    if (p.pareto && p.tok_s_chip > top->tok_s_chip) top = &p;
  tr.note(
      "The front's point with the most tokens per second per chip: " + sw.dtypes[top->dtype].name +
      " on " + sw.slices[top->slice].shape + ", batch " + units::number(top->B) + ".");
  point_steps(m, si.machine, sw.dtypes[top->dtype], sw.slices[top->slice].chips, top->B, si.S, tr);
  long front = 0;
  for (const Point& p : sw.points) front += p.pareto;
  r.value("configs", static_cast<double>(sw.configs), "count", "configurations evaluated");
  r.value("front", static_cast<double>(front), "count", "points on the Pareto front");
  r.value("best_tok_s_chip", top->tok_s_chip, "tokens_per_s", "most tokens per second per chip");
  r.value("best_latency", top->d.T_step, "s", "its time per token");
  r.value("min_latency", sw.points[0].d.T_step, "s", "lowest time per token");
  if (sw.cut)
    r.note("The sweep stopped at " + units::number(work_bound(kMaxConfigs)) +
           " configurations: fewer batches or a smaller largest slice cover the rest.");
  if (si.machine.gpu()) r.note(kGpuNoLatency);
  write_points(sw, r.member("points"));
  append_json(r.member("verdict"),
              Text("best throughput " + units::format(top->tok_s_chip, "tokens_per_s") +
                   " per chip at " + units::format(top->d.T_step, "s") + " per token"));
}

// ------------------------------------------------------------------ inference.plan

namespace {

std::string option_text(const Plan& p, const Option& o) {
  return p.dtypes[o.dtype].name + " on a " + p.slices[o.slice].shape + " (" +
         units::number(p.slices[o.slice].chips) + " chips), batch " + units::number(o.B);
}

void write_options(const Plan& p, Out& o) {
  o << '[';
  for (size_t i = 0; i < p.options.size(); ++i) {
    const Option& x = p.options[i];
    o << (i ? ",{" : "{") << "\"dtype\":";
    append_json(o, Text(p.dtypes[x.dtype].name));
    put(o, "shape", p.slices[x.slice].shape);
    put(o, "chips", p.slices[x.slice].chips);
    put(o, "B", x.B);
    put(o, "B_max", x.B_max);
    put(o, "tpot", x.d.T_step);
    put(o, "ttft", x.T_prefill);
    put(o, "replicas", x.replicas);
    put(o, "prefill_servers", x.prefill_servers);
    put(o, "chips_total", x.chips_total);
    put(o, "chip_hours_per_m", x.chip_hours_per_m);
    put(o, "cost_per_m", x.cost_per_m);
    put(o, "why", x.why);
    o << ",\"fits\":" << (x.fits ? "true" : "false")
      << ",\"meets\":" << (x.meets ? "true" : "false")
      << ",\"best\":" << (static_cast<int>(i) == p.best ? "true" : "false") << '}';
  }
  o << ']';
}

void plan_values(const Plan& p, const Option& o, double price, Result& r) {
  r.value("chips", p.slices[o.slice].chips, "chips", "chips per replica");
  r.value("B", o.B, "count", "batch per replica");
  r.value("tpot", o.d.T_step, "s", "time per output token");
  r.value("ttft", o.T_prefill, "s", "time to first token (prefill)");
  r.value("replicas", o.replicas, "count", "generate replicas");
  r.value("prefill_servers", o.prefill_servers, "count", "prefill servers");
  r.value("chips_total", o.chips_total, "chips", "chips in all");
  r.value("chip_hours_per_m", o.chip_hours_per_m, "ratio", "chip-hours per million output tokens");
  if (price > 0) r.value("cost_per_m", o.cost_per_m, "usd", "$ per million output tokens");
  if (p.smallest >= 0)
    r.value("smallest_chips", p.slices[p.options[p.smallest].slice].chips, "chips",
            "smallest slice that meets the targets");
}

}  // namespace

void plan_calc(const Inputs& in, Trace& tr, Result& r) {
  const Chosen ch = model_of(in);
  const Served m = served(ch.c);
  PlanInput pi;
  pi.model = &m;
  pi.machine = machine_in(in);
  pi.dtypes = chosen_sets(in, pi.machine);
  pi.traffic = {in.num("rps"), in.num("prompt"), in.num("len_decode")};
  pi.tpot = in.num("tpot");
  pi.ttft = in.num("ttft");
  pi.mfu = in.num("mfu");
  pi.price = price_in(in, pi.machine);
  pi.max_chips = in.num("max_chips");
  const Plan p = plan(pi);
  const double S = pi.traffic.len_prompt + pi.traffic.len_decode;
  tr.note(config_text(ch) + ". Every sequence's cache holds its prompt and its reply, $S = " +
          units::number(S) + "$ tokens; prefill servers are slices of the same size.");
  const int at = p.best >= 0 ? p.best : p.closest;
  if (at < 0)
    fail(pi.max_chips > 0 ? "max_chips" : "model",
         ch.name + " with a " + units::number(S) + "-token context fits on no " + pi.machine.name +
             " slice" + (pi.max_chips > 0 ? " within the largest allowed" : ""),
         "out_of_range");
  const Option& o = p.options[at];
  const DtypeSet& ds = p.dtypes[o.dtype];
  const double n = p.slices[o.slice].chips;
  tr.note(p.best >= 0
              ? "The cheapest configuration that meets the targets: " + option_text(p, o) + "."
              : "Nothing meets the targets; the closest: " + option_text(p, o) + ".");
  point_steps(m, pi.machine, ds, n, o.B, S, tr);
  tr.step("Prefill of one prompt (first token)", kTPrefill,
          {m.P_active, pi.traffic.len_prompt, n, ds.C_peak, pi.mfu});
  if (p.best >= 0) {
    tr.value("Replicas: the output tokens per second needed over one replica's, rounded up",
             o.replicas, "count");
    tr.value("Prefill servers: requests per second times a prefill's time, rounded up",
             o.prefill_servers, "count");
    if (pi.price > 0)
      tr.step("One replica's cost per million output tokens", kCostOut,
              {n, pi.price, o.d.T_step, o.B});
  }
  plan_values(p, o, pi.price, r);
  write_options(p, r.member("options"));
  r.member("met") << (p.best >= 0 ? "true" : "false");
  const std::string verdict =
      p.best >= 0
          ? "Best: " + option_text(p, o) + ", " + units::format(o.d.T_step, "s") + " per token"
          : "Nothing meets the target. Closest: " + option_text(p, o) + ", " +
                units::format(o.d.T_step, "s") + " per token";
  append_json(r.member("verdict"), Text(verdict));
  if (p.best < 0) r.note("No slice, dtype and batch meets the targets; the closest is shown.");
  if (pi.machine.gpu()) r.note(kGpuNoLatency);
  if (pi.price <= 0)
    r.note("The tables have no price for the " + pi.machine.name +
           ": the plan is ranked by chip-hours; enter a price for dollars.");
}

}  // namespace sb::inference::calc
