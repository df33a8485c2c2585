// inference.moe: an MoE replica whose experts are spread over every chip (expert parallelism) and
// whose attention runs in data-parallel groups of TP chips. The book gives no formula for this
// layout: the records are the chapter's KV arithmetic and the sharding chapter's AllToAll, marked
// "beyond the book" (serving.hpp). Beside it, the book's plain model parallelism over the slice.
#include <algorithm>
#include <cmath>
#include <string>

#include "chapters/inference/calculators.hpp"
#include "chapters/transformers/model.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace sb::inference::calc {
namespace {

namespace tf = transformers;

struct Ep {
  Chosen ch;
  Served m;
  Machine t;
  Slice slice;
  double n = 1, TP = 1, DP = 1, B = 1, S = 1, b_w = 2, b_kv = 2, b_a = 2, C = 0;
  double P_exp = 0, L_moe = 0;
};

Ep ep_of(const Inputs& in) {
  Ep e;
  e.ch = model_of(in);
  if (e.ch.c.E == 0)
    fail("model",
         e.ch.name +
             " is dense; pick an MoE of the table (Mixtral, Qwen3-235B, "
             "DeepSeek-V3, gpt-oss) or set E and k",
         "out_of_range");
  e.m = served(e.ch.c);
  e.t = machine_in(in);
  e.n = in.num("chips");
  e.slice = slice_of(e.t, e.n, "chips");
  e.TP = in.num("TP") > 0 ? in.num("TP") : std::min(e.m.K, e.n);
  if (e.TP > e.n || std::fmod(e.n, e.TP) != 0)
    fail("TP",
         "the chips of an attention group must divide the replica's " + units::number(e.n) +
             " chips",
         "out_of_range");
  e.DP = e.n / e.TP;
  e.B = in.num("B");
  e.S = in.num("S");
  e.b_w = dtype_bytes(in.text("dtype_w"), "dtype_w");
  e.b_kv = dtype_bytes(in.text("dtype_kv"), "dtype_kv");
  e.b_a = dtype_bytes(in.text("dtype_a"), "dtype_a");
  e.C = peak_of(e.t, in.text("dtype_matmul"), "dtype_matmul");
  e.L_moe = tf::moe_layers(e.ch.c);
  e.P_exp = e.L_moe * tf::moe_layer_params(e.ch.c).mlp;
  return e;
}

struct EpTimes {
  double w_chip = 0, kv_chip = 0, T_kv = 0, T_param = 0, T_flops = 0, T_step = 0, V = 0, T_a2a = 0,
         T_total = 0;
};

// The layout beyond the book: weights and caches per chip, the AllToAlls, the step.
EpTimes ep_steps(const Ep& e, const Counts& k, Trace& tr) {
  EpTimes x;
  const double P_rest = k.P_total - e.P_exp;
  tr.value("Expert parameters, $P_{exp}$ (every MoE layer's experts, transformers chapter)",
           e.P_exp, "count");
  tr.value("Attention groups: $\\mathrm{DP} = n_{chips} / \\mathrm{TP}$", e.DP, "count");
  x.w_chip = tr.step("Weights per chip: a share of the experts, the group's share of the rest",
                     kWeightsPerChipDp, {e.P_exp, P_rest, e.b_w, e.n, e.TP});
  x.kv_chip = tr.step("KV cache per chip: the group's sequences, split over its heads",
                      kKvPerChipDp, {e.B, e.S, k.kv_tok, e.DP, e.TP, e.m.K});
  if (x.w_chip >= e.t.M_hbm)
    fail("chips",
         "each chip would hold " + units::format(x.w_chip, "B") + " of weights, more than its " +
             units::format(e.t.M_hbm, "B") + " of HBM",
         "out_of_range");
  if (x.w_chip + x.kv_chip > e.t.M_hbm)
    fail("B",
         "each chip would hold " + units::format(x.kv_chip, "B") + " of KV cache beside " +
             units::format(x.w_chip, "B") + " of weights, more than its " +
             units::format(e.t.M_hbm, "B") + " of HBM",
         "out_of_range");
  x.T_kv = tr.step("Reading a chip's caches", kTReadKv, {x.kv_chip, e.t.W_hbm});
  x.T_param = tr.step("Reading a chip's weights", kTReadWeights, {x.w_chip, e.t.W_hbm});
  x.T_flops = tr.step("FLOPs, spread over the chips", kTFlops, {e.B, k.P_active, e.n, e.C});
  x.T_step = tr.step("Step without the AllToAlls", kTStep, {x.T_kv, x.T_flops, x.T_param});
  x.V = tr.step("One dispatch: each token's activation to its $k$ experts", kA2aBytes,
                {e.B, e.m.k, e.m.D, e.b_a});
  x.T_a2a = e.t.gpu() ? gpu_alltoall_time(
                            e.t, x.V, e.n, "chips", &tr,
                            "Its AllToAll over the GPUs (NVLink inside a node, the scale-out "
                            "network across nodes)")
                      : tr.step("Its AllToAll over the slice", kA2aTime,
                                {x.V, e.slice.max_axis, e.n, e.t.W_ici});
  const double per_step =
      tr.step("Dispatch and return in every MoE layer", kA2aStep, {e.L_moe, x.T_a2a});
  x.T_total = tr.sum("Step with the AllToAlls", "T_total", "s",
                     {{"T_step", x.T_step}, {"T_a2a_step", per_step}});
  return x;
}

// On a GPU, one block's collectives are an AllReduce of the [B, D] activation over the GPUs.
double gpu_block(const Ep& e, Trace& tr) {
  const double msg = tr.step("... the activation a block reduces", kActMsg, {e.B, e.m.D, e.b_a});
  return gpu_allreduce_time(e.t, msg, e.n, "chips", &tr,
                            "... its AllReduce (a ReduceScatter and an AllGather) over the GPUs");
}

// The book's layout for comparison: every weight and cache split over all the chips (A.10).
double tp_steps(const Ep& e, const Counts& k, Trace& tr) {
  const double T_kv = tr.step("Model parallelism over all chips: KV reads", kTKv,
                              {e.B, e.S, k.kv_tok, e.n, e.t.W_hbm});
  const double T_param = tr.step("... weight reads", kTParam, {k.P_total, e.b_w, e.n, e.t.W_hbm});
  const double T_flops = tr.step("... FLOPs", kTFlops, {e.B, k.P_active, e.n, e.C});
  const double T_step = tr.step("... step", kTStep, {T_kv, T_flops, T_param});
  const double t1 = e.t.gpu() ? gpu_block(e, tr)
                              : tr.step(
                                    "... an AllGather and a ReduceScatter of the activations per "
                                    "block",
                                    kTWs1d, {e.B, e.m.D, std::max(1.0, e.slice.n_axes), e.t.W_ici});
  const double per_step = tr.step("... twice per layer, every layer", kT1dStep, {e.m.L, t1});
  return tr.sum("... step with the collectives", "T_total", "s",
                {{"T_step", T_step}, {"T_1D_step", per_step}});
}

void mesh(const Ep& e, Result& r) {
  auto n = [](double v) { return units::number(v); };
  Out& o = r.member("mesh");
  o << "{\"DP\":";
  append_json(o, e.DP);
  o << ",\"TP\":";
  append_json(o, e.TP);
  o << ",\"experts_per_chip\":";
  append_json(o, e.m.E / e.n);
  o << ",\"lines\":[";
  const std::string lines[] = {
      "mesh: dp " + n(e.DP) + " x tp " + n(e.TP) + " = " + units::format(e.n, "chips") + " (" +
          e.slice.shape + ")",
      "attention weights: W_Q[D, N_tp, H], W_K and W_V [D, K_tp, H], W_O[N_tp, H, D]",
      "KV cache: [2, B_dp, S, K_tp, H] (heads split " + n(std::min(e.m.K, e.TP)) + " ways)",
      "experts: W_in[E_{dp,tp}, D, F], W_out[E_{dp,tp}, F, D] (" + n(e.m.E / e.n) + " per chip)",
      "activations: X[B_dp, D] in attention; AllToAll over {dp,tp} to the experts and back"};
  for (size_t i = 0; i < 5; ++i) {
    if (i) o << ',';
    append_json(o, Text(lines[i]));
  }
  o << "]}";
}

}  // namespace

void moe_calc(const Inputs& in, Trace& tr, Result& r) {
  const Ep e = ep_of(in);
  tr.note(
      "Beyond the book: the chapter gives no formula for expert parallelism beside "
      "data-parallel attention; these steps apply its KV arithmetic and the sharding "
      "chapter's AllToAll.");
  const Counts k = count_steps(e.ch, e.m, e.b_w, e.b_kv, e.S, tr);
  const EpTimes x = ep_steps(e, k, tr);
  const double tp = tp_steps(e, k, tr);
  r.value("dp", e.DP, "count", "attention groups (DP)");
  r.value("tp", e.TP, "count", "chips per attention group (TP)");
  r.value("experts_per_chip", e.m.E / e.n, "ratio", "experts per chip");
  r.value("weights_chip", x.w_chip, "B", "weights per chip");
  r.value("kv_chip", x.kv_chip, "B", "KV cache per chip");
  r.value("a2a_bytes", x.V, "B", "one AllToAll (all chips)");
  r.value("a2a_time", x.T_a2a, "s", "one AllToAll");
  r.value("t_step_ep", x.T_total, "s", "step, EP with DP attention");
  r.value("t_step_tp", tp, "s", "step, model parallel over all chips");
  r.value("tokens_per_s_chip", tokens_per_s_chip(e.B, e.n, x.T_total), "tokens_per_s",
          "tokens per second per chip (EP)");
  const double price = price_in(in, e.t);
  if (price > 0)
    r.value("cost_out", cost_per_million(e.n, price, x.T_total, e.B), "usd",
            "$ per million output tokens (EP)");
  mesh(e, r);
  if (e.TP > e.m.K)
    r.note("TP is wider than the " + units::number(e.m.K) +
           " KV heads: each group repeats "
           "heads; split its batch instead (the book's KV[2, B_Z, S, K_Y, H]).");
  if (e.n > e.m.E)
    r.note("More chips than experts: each expert is itself split over " +
           units::format(e.n / e.m.E, "chips") + ".");
  append_json(r.member("verdict"),
              Text(x.T_total < tp ? "expert parallelism with DP attention is faster"
                                  : "plain model parallelism is faster"));
}

}  // namespace sb::inference::calc
