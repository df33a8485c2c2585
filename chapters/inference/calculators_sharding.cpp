// inference.sharding: the weights split over a slice (A.10): the limits for prefill and decode, one
// decode matmul's HBM, ICI and FLOP times, when the collectives turn latency-bound (A.11), how the
// KV cache splits, and 2D weight-stationary sharding against 1D (A.12). Numbers from serving.hpp.
#include <algorithm>
#include <cmath>
#include <string>

#include "chapters/gpus/llm.hpp"
#include "chapters/inference/calculators.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace sb::inference::calc {
namespace {

struct Shard {
  Chosen ch;
  Served m;
  Machine t;
  Slice slice;
  double Y = 1, B = 1, b_w = 2, b_a = 2, C = 0, n_axes = 1;
};

Shard shard_of(const Inputs& in) {
  Shard s;
  s.ch = model_of(in);
  s.m = served(s.ch.c);
  s.t = machine_in(in);
  s.Y = in.num("chips");
  s.slice = slice_of(s.t, s.Y, "chips");
  s.B = in.num("B");
  s.b_w = dtype_bytes(in.text("dtype_w"), "dtype_w");
  s.b_a = dtype_bytes(in.text("dtype_a"), "dtype_a");
  s.C = peak_of(s.t, in.text("dtype_matmul"), "dtype_matmul");
  s.n_axes = std::max(1.0, s.slice.n_axes);
  return s;
}

void kv_split(const Shard& s, Trace& tr, Result& r);

// Part 12, A.5: a GPU's critical ratio over NVLink, C / W_GPU (what A.10's ICI intensity is on a
// TPU), and TP's prefill limit: F / alpha inside a node; D_node + F / alpha over the scale-out
// network once the GPUs span nodes.
struct GpuLimit {
  double alpha = 0, y_c = 0;
};
GpuLimit gpu_limit(const Shard& s, Trace& tr) {
  GpuLimit g;
  g.alpha = tr.step("NVLink intensity of the GPU", gpus::kAlpha, {s.C, s.t.W_ici});
  g.y_c = tr.step("Compute-bound (prefill): TP inside a node hides its collectives up to",
                  gpus::kTpMax, {s.m.F, g.alpha});
  if (s.slice.dims[1] > 1) {
    const double a_node =
        tr.step("... over the node's scale-out egress", gpus::kAlpha, {s.C, s.t.w_node});
    g.y_c = tr.step("TP spanning nodes stays compute-bound (prefill) up to", gpus::kTpMaxSpanning,
                    {s.m.F, a_node, s.t.d_node});
  }
  return g;
}

// A GPU's collective of the [B, D] activation over the slice; the tables give no NVLink latency
// per hop, so where it turns latency-bound (A.11, a TPU's hop latency) is not said.
void gpu_latency(const Shard& s, double msg, Trace& tr, Result& r) {
  const double t =
      gpu_allgather_time(s.t, msg, s.Y, "chips", &tr, "An AllGather of it over the $Y$ GPUs");
  r.value("msg", msg, "B", "activation per collective");
  r.value("t_collective", t, "s", "one AllGather");
  r.note("The tables give no NVLink latency per hop for the " + s.t.name +
         ", so where its collectives turn latency-bound is left out (on a TPU the ICI hop "
         "latency sets it).");
}

// A.10: the two limits and one decode matmul's three times at Y = the slice's chips.
void limits(const Shard& s, Trace& tr, Result& r) {
  const double F = s.m.F, D = s.m.D;
  const bool gpu = s.t.gpu();
  const GpuLimit g = gpu ? gpu_limit(s, tr) : GpuLimit{};
  const double alpha =
      gpu ? g.alpha : tr.step("ICI intensity of the chip", kAlphaIci, {s.C, s.t.W_ici});
  const double ratio = tr.step(gpu ? "HBM over NVLink bandwidth" : "HBM over ICI bandwidth",
                               kRHbmIci, {s.t.W_hbm, s.t.W_ici});
  const double y_c =
      gpu ? g.y_c
          : tr.step("Compute-bound (prefill): model parallelism hides its collectives up to",
                    kYMaxCompute, {s.n_axes, F, alpha});
  const double y_d =
      tr.step(gpu ? "Bandwidth-bound decode: NVLink hides under the weight loads up to"
                  : "Bandwidth-bound decode: the ICI hides under the weight loads up to",
              kYMaxDecode, {F, s.B, ratio});
  const double hbm = tr.step("One decode matmul $[B, D] \\times [D, F/Y]$: its weight loads",
                             kMmTHbm, {s.b_w, D, F, s.Y, s.t.W_hbm});
  const double ici =
      gpu ? gpu_allgather_time(s.t, activation_msg(s.B, D, s.b_a), s.Y, "chips", &tr,
                               "... an AllGather of its activations over the GPUs")
          : tr.step("... its activations over ICI", kMmTIci, {s.b_a, s.B, D, s.t.W_ici});
  const double math = tr.step("... its FLOPs", kMmTMath, {s.B, D, F, s.Y, s.C});
  const bool hidden = ici <= std::max(hbm, math);
  const std::string link = gpu ? "NVLink" : "ICI";
  tr.note(hidden ? "The " + link + " time hides under the matmul's loads and FLOPs."
                 : "The " + link +
                       " time is longer than the matmul's loads and FLOPs: this many shards "
                       "cost latency.");
  r.value("alpha_ici", alpha, "flop_per_B", gpu ? "NVLink intensity" : "ICI intensity");
  r.value("r_hbm_ici", ratio, "ratio",
          gpu ? "HBM over NVLink bandwidth" : "HBM over ICI bandwidth");
  r.value("y_max_prefill", y_c, "count", "largest model parallelism, prefill");
  r.value("y_max_decode", y_d, "count", "largest model parallelism, decode at B");
  r.value("t_hbm", hbm, "s", "one matmul: weight loads");
  r.value("t_ici", ici, "s", gpu ? "one matmul: NVLink" : "one matmul: ICI");
  r.value("t_math", math, "s", "one matmul: FLOPs");
  r.value("ici_hidden", hidden ? 1 : 0, "bool", link + " hidden under the matmul");
  append_json(r.member("verdict"),
              Text(hidden ? link + " hidden at " + units::number(s.Y) + "-way model parallelism"
                          : link + "-bound at " + units::number(s.Y) + "-way model parallelism"));
}

// A.11: latency-bound collectives; A.10: how the KV cache splits.
void latency_and_kv(const Shard& s, Trace& tr, Result& r) {
  const double msg = tr.step("Activation a collective moves", kActMsg, {s.B, s.m.D, s.b_a});
  if (s.t.gpu()) {
    gpu_latency(s, msg, tr, r);
    kv_split(s, tr, r);
    return;
  }
  const double lat =
      tr.step("Latency-bound below", kLatencyBytes, {s.Y, s.t.W_ici_1way, s.t.t_hop});
  const double y_lat = tr.step("Latency-bound once $Y$ exceeds", kYLatency,
                               {s.B, s.m.D, s.b_a, s.t.W_ici_1way, s.t.t_hop});
  const double t =
      tr.step("A ring AllGather over $Y$ chips", kTCollective, {s.t.t_hop, s.Y, msg, s.t.W_ici});
  r.value("msg", msg, "B", "activation per collective");
  r.value("latency_bytes", lat, "B", "latency-bound below");
  r.value("y_latency", y_lat, "count", "latency-bound above Y");
  r.value("t_collective", t, "s", "one AllGather");
  r.value("latency_bound", msg < lat ? 1 : 0, "bool", "collectives latency-bound");
  kv_split(s, tr, r);
}

// A.10: the KV cache splits by head, then by batch.
void kv_split(const Shard& s, Trace& tr, Result& r) {
  const double heads = std::min(s.m.K, s.Y);
  const double batch_ways = s.Y / heads;
  r.value("kv_heads_split", heads, "count", "KV cache split by head");
  r.value("kv_batch_split", batch_ways, "count", "then by batch");
  tr.note("The KV cache splits over $\\min(K, Y) = " + units::number(heads) + "$ heads, then " +
          units::number(batch_ways) +
          " ways over the batch ($KV[2, B_Z, S, K_Y, H]$), with two "
          "AllToAlls per attention layer; never replicated.");
  if (s.B < batch_ways)
    r.note("The batch (" + units::number(s.B) + ") is smaller than the " +
           units::number(batch_ways) +
           " batch shards: some chips hold no cache and the rest repeat heads.");
}

// A.12: 2D weight-stationary against 1D, in the book's bf16 form.
void two_d(const Shard& s, Trace& tr, Result& r) {
  if (s.t.gpu()) {
    r.note("2D weight-stationary sharding splits the weights over two axes of an ICI torus; an " +
           s.t.name +
           " node joins its GPUs through one NVLink switch, not a torus, so it is left "
           "out here (the GPU chapter's layouts lay TP inside a node instead).");
    return;
  }
  const double n = s.slice.chips, D = s.m.D, F = s.m.F, W = s.t.W_ici;
  const double t1 = tr.step("1D model parallelism: an AllGather and a ReduceScatter per MLP",
                            kTWs1d, {s.B, D, s.n_axes, W});
  const double x_opt = tr.step("2D: the best split of $D$", kWsBestX, {n, D, F});
  double X = 1;
  while (X * 2 <= n && std::fmod(n, X * 2) == 0 &&
         std::fabs(std::log2(X * 2 / x_opt)) < std::fabs(std::log2(X / x_opt)))
    X *= 2;
  X = tr.value("$X$: the power of two nearest that which divides the chips", X, "count");
  const double t2 =
      tr.step("2D weight-stationary, $YZ = n_{chips} / X$", kTWs2d, {s.B, D, F, X, n / X, 1, W});
  const double c = tr.step("Its best coefficient, $T_{2D} = c B D / (\\sqrt{n} W_{ici})$",
                           kWsCoefficient, {F, D});
  const double cross = tr.step("2D beats 1D above", kWsCrossover, {F, D, s.n_axes});
  r.value("t_1d", t1, "s", "1D: comm per MLP");
  r.value("x_2d", X, "count", "2D: X");
  r.value("t_2d", t2, "s", "2D: comm per MLP");
  r.value("c_2d", c, "ratio", "2D coefficient");
  r.value("crossover_2d", cross, "chips", "2D beats 1D above");
  r.note("The 2D expressions are the book's, with bf16 activations folded in.");
}

}  // namespace

void sharding_calc(const Inputs& in, Trace& tr, Result& r) {
  const Shard s = shard_of(in);
  tr.note(config_text(s.ch) + ". The weights are split " + units::number(s.Y) + " ways over the " +
          s.slice.shape + (s.t.gpu() ? "" : " slice") + " ($Y = " + units::number(s.Y) + "$).");
  if (s.m.moe)
    tr.note("An MoE: $F$ is one expert's width; the MoE calculator spreads the experts instead.");
  limits(s, tr, r);
  latency_and_kv(s, tr, r);
  two_d(s, tr, r);
}

}  // namespace sb::inference::calc
