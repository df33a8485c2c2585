// inference.engine: the serving engine around the step model (A.16, A.17): how many prefill servers
// keep a generate server fed, how fast the batch turns over under continuous batching and what
// interleaving prefills costs, what a prefix cache saves, and what speculative decoding buys.
#include <algorithm>
#include <cmath>
#include <string>

#include "chapters/inference/calculators.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace sb::inference::calc {
namespace {

struct Engine {
  Chosen ch;
  Served m;
  Machine t;
  double n = 1, B = 1, prompt = 1, len = 1, cached = 0, b_w = 2, b_kv = 2, C = 0, mfu = 0.4;
};

Engine engine_of(const Inputs& in) {
  Engine e;
  e.ch = model_of(in);
  e.m = served(e.ch.c);
  e.t = machine_in(in);
  e.n = in.num("chips");
  slice_of(e.t, e.n, "chips");
  e.B = in.num("B");
  e.prompt = in.num("prompt");
  e.len = in.num("len_decode");
  e.cached = in.num("cached");
  if (e.cached >= e.prompt)
    fail("cached",
         "the prefix cache can hold at most the prompt's tokens but the last (" +
             units::number(e.prompt - 1) + ")",
         "out_of_range");
  e.b_w = dtype_bytes(in.text("dtype_w"), "dtype_w");
  e.b_kv = dtype_bytes(in.text("dtype_kv"), "dtype_kv");
  e.C = peak_of(e.t, in.text("dtype_matmul"), "dtype_matmul");
  e.mfu = in.num("mfu");
  return e;
}

// The generate server's step at S = prompt + reply, failing as inference.step does when the batch
// does not fit.
Decode generate_step(const Engine& e, const Counts& k, double S, Trace& tr) {
  const double free = tr.step("HBM left beside the weights", kFreeHbm, {e.n, e.t.M_hbm, k.bytes_w});
  const double B_max =
      free > 0 ? tr.step("Largest batch of $S$-token caches", kMaxBatch, {free, S, k.kv_tok}) : 0;
  if (free <= 0)
    fail("chips",
         "the weights (" + units::format(k.bytes_w, "B") + ") do not fit in " + units::number(e.n) +
             " chips' HBM",
         "out_of_range");
  if (e.B > B_max)
    fail("B",
         "at most " + units::number(std::max(0.0, B_max)) + " sequences of " + units::number(S) +
             " tokens fit beside the weights",
         "out_of_range");
  Decode d;
  d.T_kv = tr.step("KV loading", kTKv, {e.B, S, k.kv_tok, e.n, e.t.W_hbm});
  d.T_param = tr.step("Weight loading", kTParam, {k.P_total, e.b_w, e.n, e.t.W_hbm});
  d.T_flops = tr.step("FLOPs", kTFlops, {e.B, k.P_active, e.n, e.C});
  d.T_step = tr.step("Decode step", kTStep, {d.T_kv, d.T_flops, d.T_param});
  // On GPUs the AllReduces of bf16 activations add (the engine has no activation dtype).
  d.T_step = gpu_comms_steps(e.t, e.m, e.B, 2, e.n, d.T_step, tr).T_step;
  return d;
}

double batching(const Engine& e, const Counts& k, const Decode& d, Trace& tr, Result& r) {
  const double pre = tr.step("Prefill of one prompt on a prefill server", kTPrefill,
                             {k.P_active, e.prompt, e.n, e.C, e.mfu});
  const double ratio =
      tr.step("Prefill servers per generate server", kServerRatio, {pre, e.B, d.T_step, e.len});
  const double done = tr.step("Sequences that finish per decode step", kChurn, {e.B, e.len});
  const double freed = tr.step("KV tokens they free per step", kKvFreed, {e.B, e.prompt, e.len});
  const double stall =
      tr.step("Interleaved instead: the prefills stall each step by", kStall, {e.B, e.len, pre});
  const double slowed = tr.sum("A step with interleaved prefills", "T_step", "s",
                               {{"T_decode", d.T_step}, {"T_stall", stall}});
  r.value("t_prefill", pre, "s", "prefill of one prompt");
  r.value("server_ratio", ratio, "ratio", "prefill servers per generate server");
  r.value("finished_per_step", done, "ratio", "sequences finishing per step");
  r.value("kv_freed_per_step", freed, "tokens", "KV tokens freed per step");
  r.value("stall", stall, "s", "average stall per step, interleaved");
  r.value("t_step_interleaved", slowed, "s", "step with interleaved prefills");
  if (e.cached > 0) {
    const double f =
        tr.step("Prefix cache: the share of the prefill left to do", kPrefix, {e.prompt, e.cached});
    const double cut = tr.step("Prefill of the uncached suffix", kTPrefill,
                               {k.P_active, e.prompt - e.cached, e.n, e.C, e.mfu});
    r.value("prefix_fraction", f, "ratio", "prefill work left with the cache");
    r.value("t_prefill_cached", cut, "s", "prefill with the cache");
  }
  return ratio;
}

// A.17 (beyond the book): gamma drafted tokens verified in one pass that reads the caches once.
void speculative(const Engine& e, const Counts& k, const Decode& d, const Inputs& in, Trace& tr,
                 Result& r) {
  const double gamma = in.num("gamma");
  if (gamma == 0) return;
  const double a = in.num("accept");
  const double n_tok =
      tr.step("Speculative decoding: tokens per target-model pass", kSpecTokens, {a, gamma});
  const double tf = tr.step("The pass scores $B (\\gamma + 1)$ tokens: its FLOPs", kTFlops,
                            {e.B * (gamma + 1), k.P_active, e.n, e.C});
  const double verify = tr.step("Its time: the caches read once", kTStep, {d.T_kv, tf, d.T_param});
  const double draft = tr.step("A drafter step", kDraftTime, {in.num("draft_cost"), d.T_step});
  const double per = tr.step("Time per token", kSpecTime, {gamma, draft, verify, n_tok});
  r.value("spec_tokens", n_tok, "tokens", "tokens per target pass");
  r.value("spec_time_per_token", per, "s", "time per token, speculative");
  r.value("spec_speedup", d.T_step / per, "ratio", "speed-up over plain decoding");
}

}  // namespace

void engine_calc(const Inputs& in, Trace& tr, Result& r) {
  const Engine e = engine_of(in);
  const double S = e.prompt + e.len;
  const Counts k = count_steps(e.ch, e.m, e.b_w, e.b_kv, S, tr);
  const Decode d = generate_step(e, k, S, tr);
  r.value("t_step", d.T_step, "s", "decode step");
  const double ratio = batching(e, k, d, tr, r);
  speculative(e, k, d, in, tr, r);
  r.note(
      "Disaggregated serving keeps prefills off the generate servers: no step waits for one. "
      "Interleaving them into the decode batch costs the stall above on the average step.");
  r.note(
      "Speculative decoding uses the acceptance formula of Leviathan et al. (2023): the book "
      "gives none.");
  append_json(r.member("verdict"),
              Text(units::number(ratio, 3) + " prefill servers per generate server"));
}

}  // namespace sb::inference::calc
