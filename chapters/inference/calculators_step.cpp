// inference.step: one replica on a slice, step by step: the model's counts, what fits in HBM, the
// decode step's three terms and the verdict, the critical batch under quantization, throughput,
// the first token and the cost. Every number is a record's (model.hpp); this file orders the steps
// and shapes the result.
#include <algorithm>
#include <cmath>
#include <string>

#include "chapters/inference/calculators.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/units.hpp"

namespace sb::inference::calc {
namespace {

std::string bytes_text(double b) { return units::format(b, "B"); }

struct Setup {
  Chosen ch;
  Served m;
  Machine t;
  Slice slice;
  double b_w = 2, b_kv = 2, b_a = 2, C_peak = 0, n = 1, B = 1, S = 1, price = 0;
};

Setup setup_of(const Inputs& in) {
  Setup s;
  s.ch = model_of(in);
  s.m = served(s.ch.c);
  s.t = machine_in(in);
  s.b_w = dtype_bytes(in.text("dtype_w"), "dtype_w");
  s.b_kv = dtype_bytes(in.text("dtype_kv"), "dtype_kv");
  s.b_a = dtype_bytes(in.text("dtype_a"), "dtype_a");
  s.C_peak = peak_of(s.t, in.text("dtype_matmul"), "dtype_matmul");
  s.n = in.num("chips");
  s.slice = slice_of(s.t, s.n, "chips");
  s.B = in.num("B");
  s.S = in.num("S");
  s.price = price_in(in, s.t);
  return s;
}

struct Memory {
  double M_free = 0, B_max = 0, kv_batch = 0, n_raw = 0, smallest = 0;
};

// A.6: what fits. Too few chips for the weights, a context whose one cache does not fit, and a
// batch over the largest are errors naming chips, S and B.
Memory memory_steps(const Setup& s, const Counts& k, Trace& tr) {
  Memory mem;
  const double M = s.t.M_hbm;
  mem.M_free = tr.step("HBM left beside the weights", kFreeHbm, {s.n, M, k.bytes_w});
  const std::vector<Slice> all = slices(s.t);
  if (mem.M_free <= 0) {
    const Slice* fit = smallest_slice(all, k.bytes_w / M);
    fail("chips",
         "the weights (" + bytes_text(k.bytes_w) + ") do not fit in " + units::number(s.n) +
             " chips' HBM (" + bytes_text(s.n * M) + "); " +
             (fit ? "the smallest " + s.t.name + " slice that holds them has " +
                        units::format(fit->chips, "chips")
                  : "no " + s.t.name + " slice holds them"),
         "out_of_range");
  }
  const double seq = tr.step("KV cache of one sequence of $S$ tokens", kKvSeq, {s.S, k.kv_tok});
  if (seq > mem.M_free)
    fail("S",
         "one sequence of " + units::number(s.S) + " tokens needs " + bytes_text(seq) +
             " of KV cache, but only " + bytes_text(mem.M_free) + " of HBM is left beside the " +
             "weights: at most " + units::whole(std::floor(mem.M_free / k.kv_tok)) +
             " tokens fit on " + units::format(s.n, "chips"),
         "out_of_range");
  mem.B_max = tr.step("The largest batch that fits", kMaxBatch, {mem.M_free, s.S, k.kv_tok});
  if (s.B > mem.B_max)
    fail("B",
         units::number(s.B) + " sequences of " + units::number(s.S) + " tokens need " +
             bytes_text(s.B * seq) + " of KV cache; " + bytes_text(mem.M_free) +
             " is free beside the weights: at most " + units::whole(mem.B_max) + " fit",
         "out_of_range");
  mem.kv_batch = tr.step("KV cache of the batch", kKvBatch, {s.B, s.S, k.kv_tok});
  mem.n_raw =
      tr.step("Chips whose HBM holds weights and caches", kMinChips, {k.bytes_w, mem.kv_batch, M});
  const Slice* fit = smallest_slice(all, mem.n_raw);
  mem.smallest =
      tr.value("The smallest slice of at least that many chips", fit ? fit->chips : s.n, "chips");
  return mem;
}

struct Times {
  double T_kv = 0, T_param = 0, T_flops = 0, T_step = 0, B_crit = 0, B_crit_moe = 0;
  double T_allreduce = 0, T_comms = 0;  // a GPU slice's AllReduces (in T_step)
  const char* regime = "";
};

Times step_steps(const Setup& s, const Counts& k, Trace& tr) {
  Times t;
  const double W = s.t.W_hbm;
  t.T_kv = tr.step("Reading the batch's KV caches", kTKv, {s.B, s.S, k.kv_tok, s.n, W});
  t.T_param = tr.step("Reading every weight once", kTParam, {k.P_total, s.b_w, s.n, W});
  t.T_flops = tr.step("The FLOPs: 2 per used parameter per token", kTFlops,
                      {s.B, k.P_active, s.n, s.C_peak});
  t.T_step = tr.step("Decode step: the KV reads, then the larger of FLOPs and weight loads", kTStep,
                     {t.T_kv, t.T_flops, t.T_param});
  const GpuComms g = gpu_comms_steps(s.t, s.m, s.B, s.b_a, s.n, t.T_step, tr);
  t.T_step = g.T_step;
  t.T_allreduce = g.T_allreduce;
  t.T_comms = g.T_comms;
  Decode d;
  d.T_kv = t.T_kv, d.T_param = t.T_param, d.T_flops = t.T_flops, d.T_step = t.T_step;
  d.T_comms = t.T_comms;
  t.regime = regime(d);
  t.B_crit =
      tr.step("Critical batch of the weight matmuls at these dtypes", kBCrit, {s.b_w, s.C_peak, W});
  t.B_crit_moe = t.B_crit;
  if (s.m.moe)
    t.B_crit_moe = tr.step("An MoE reads every expert but uses $k$: its critical batch", kBCritMoe,
                           {t.B_crit, k.P_total, k.P_active});
  tr.note(s.B > t.B_crit_moe ? "The batch is above the critical batch: the MLP matmuls are "
                               "compute-bound."
                             : "The batch is below the critical batch: the weight loads take "
                               "longer than their FLOPs.");
  return t;
}

void throughput_values(const Setup& s, const Counts& k, const Times& t, const Inputs& in, Trace& tr,
                       Result& r) {
  const double tok = tr.step("Tokens per second of the replica", kTokS, {s.B, t.T_step});
  const double per_chip = tr.step("Tokens per second per chip", kTokSChip, {s.B, s.n, t.T_step});
  const double len = in.num("len_decode");
  const double reply = tr.step("One reply", kReply, {len, t.T_step});
  const double qps = tr.step("Requests per second per chip", kQps, {s.B, t.T_step, len, s.n});
  const double prompt = in.num("prompt");
  const double pre = tr.step("Prefill of one prompt, compute-bound", kTPrefill,
                             {k.P_active, prompt, s.n, s.C_peak, in.num("mfu")});
  const double ttft =
      tr.max("Time to first token: the prefill, and at least one read of the weights", "TTFT", "s",
             {{"T_prefill", pre}, {"T_param", t.T_param}});
  r.value("tokens_per_s", tok, "tokens_per_s", "tokens per second, replica");
  r.value("tokens_per_s_chip", per_chip, "tokens_per_s", "tokens per second per chip");
  r.value("tpot", t.T_step, "s", "time per output token");
  r.value("ttft", ttft, "s", "time to first token (prefill)");
  r.value("reply", reply, "s", "one reply of the output length");
  r.value("qps_chip", qps, "per_s", "requests per second per chip");
  if (s.price <= 0) {
    r.note("The tables have no price for the " + s.t.name +
           ": enter one per chip-hour for the "
           "cost.");
    return;
  }
  const double out =
      tr.step("Cost per million output tokens", kCostOut, {s.n, s.price, t.T_step, s.B});
  const double inp =
      tr.step("Cost per million prompt tokens", kCostIn, {s.n, s.price, pre, prompt});
  r.value("price", s.price, "usd_per_hour", "price per chip-hour");
  r.value("cost_out", out, "usd", "$ per million output tokens");
  r.value("cost_in", inp, "usd", "$ per million prompt tokens");
}

// How quantization moves the critical batch: each weight dtype at the chosen matmul precision.
void quantization_table(const Setup& s, Out& o) {
  o << '[';
  const char* dts[] = {"bf16", "fp8", "int8", "int4"};
  for (size_t i = 0; i < 4; ++i) {
    if (i) o << ',';
    o << "{\"dtype_w\":";
    append_json(o, Text(dts[i]));
    o << ",\"b_crit\":";
    append_json(o, critical_batch(dtype_bytes(dts[i], "dtype_w"), s.C_peak, s.t.W_hbm));
    o << '}';
  }
  o << ']';
}

void step_extras(const Setup& s, const Counts& k, const Memory& mem, const Times& t, Result& r) {
  Out& bars = r.member("bars");
  bars << "{\"T_kv\":";
  append_json(bars, t.T_kv);
  bars << ",\"T_param\":";
  append_json(bars, t.T_param);
  bars << ",\"T_flops\":";
  append_json(bars, t.T_flops);
  bars << ",\"T_step\":";
  append_json(bars, t.T_step);
  if (t.T_comms > 0) {
    bars << ",\"T_comms\":";
    append_json(bars, t.T_comms);
  }
  bars << '}';
  Out& memo = r.member("memory");
  memo << "{\"weights\":";
  append_json(memo, k.bytes_w);
  memo << ",\"kv\":";
  append_json(memo, mem.kv_batch);
  memo << ",\"hbm\":";
  append_json(memo, s.n * s.t.M_hbm);
  memo << '}';
  quantization_table(s, r.member("quantization"));
  Out& v = r.member("verdict");
  append_json(v, Text(std::string(t.regime) + " (" + s.t.name + " " + s.slice.shape + ")"));
}

void step_values(const Setup& s, const Counts& k, const Memory& mem, const Times& t, Result& r) {
  r.value("params", k.P_total, "params", "parameters stored");
  if (s.m.moe) r.value("params_active", k.P_active, "params", "parameters one token uses");
  r.value("weight_bytes", k.bytes_w, "B", "weights");
  r.value("kv_per_token", k.kv_tok, "B", "KV cache per token");
  r.value("kv_batch", mem.kv_batch, "B", "KV cache of the batch");
  r.value("hbm_free", mem.M_free, "B", "HBM left beside the weights");
  r.value("b_max", mem.B_max, "count", "largest batch that fits");
  r.value("smallest_slice", mem.smallest, "chips", "smallest slice for this batch");
  r.value("t_kv", t.T_kv, "s", "KV-cache loading");
  r.value("t_param", t.T_param, "s", "weight loading");
  r.value("t_flops", t.T_flops, "s", "FLOPs");
  if (t.T_comms > 0) {
    r.value("t_allreduce", t.T_allreduce, "s", "one AllReduce of the activations");
    r.value("t_comms", t.T_comms, "s", "AllReduces per step (NVLink, scale-out)");
  }
  r.value("t_step", t.T_step, "s", "decode step");
  r.value("share_kv", t.T_kv / t.T_step, "ratio", "share of the step: KV loading");
  r.value("share_param", t.T_param / t.T_step, "ratio", "share of the step: weight loading");
  r.value("share_flops", t.T_flops / t.T_step, "ratio", "share of the step: FLOPs");
  if (t.T_comms > 0)
    r.value("share_comms", t.T_comms / t.T_step, "ratio", "share of the step: AllReduces");
  r.value("b_crit", t.B_crit, "tokens", "critical batch");
  if (s.m.moe) r.value("b_crit_moe", t.B_crit_moe, "tokens", "critical batch of the MoE");
  r.value("compute_bound", s.B > t.B_crit_moe ? 1 : 0, "bool", "MLP matmuls compute-bound");
}

}  // namespace

void step_calc(const Inputs& in, Trace& tr, Result& r) {
  const Setup s = setup_of(in);
  const Counts k = count_steps(s.ch, s.m, s.b_w, s.b_kv, s.S, tr);
  const Memory mem = memory_steps(s, k, tr);
  const Times t = step_steps(s, k, tr);
  step_values(s, k, mem, t, r);
  throughput_values(s, k, t, in, tr, r);
  const double cross = tr.step("Context above which one sequence's KV reads outweigh its FLOPs",
                               kKvCrossover, {k.P_active, s.t.W_hbm, s.C_peak, k.kv_tok});
  r.value("kv_crossover", cross, "tokens", "context where KV reads pass the FLOPs");
  r.note(
      "Weight loading and FLOPs overlap: the step counts the larger, so the shares add up to "
      "more than 1.");
  if (s.m.moe)
    r.note("An MoE streams all " + units::number(s.m.E) +
           " experts per step (every expert is "
           "picked by some token once the batch is large) but does the FLOPs of " +
           units::number(s.m.k) + ".");
  step_extras(s, k, mem, t, r);
}

}  // namespace sb::inference::calc
