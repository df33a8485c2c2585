// transformers.context: how the attention core's FLOPs grow with the context T against the other
// matmuls (the book's 8D rule and this model's exact crossover), and the attention core's
// arithmetic intensity for prefill and decoding against the chip.
#include <algorithm>
#include <cmath>

#include "chapters/roofline/model.hpp"
#include "chapters/transformers/calculators.hpp"

namespace sb::transformers::calc {
namespace {

// Roofline time of one MLP's forward matmuls for T tokens: the gated MLP's W_in1 and W_in2
// ([T, D] x [D, F]) and W_out ([T, F] x [F, D]), or the plain MLP's two.
double mlp_time(const Config& c, double T, double width, double b, double peak, double bw) {
  const roofline::OperandBytes ob{b, b, b};
  const roofline::MatmulCost in = roofline::matmul_cost({T, c.D, width}, ob);
  const roofline::MatmulCost out = roofline::matmul_cost({T, width, c.D}, ob);
  const double ins = c.gated ? 2 : 1;
  const double flops = ins * in.flops + out.flops, bytes = ins * in.bytes() + out.bytes();
  return roofline::t_lower(roofline::t_math(flops, peak), roofline::t_comms(bytes, bw));
}

// Roofline time of the attention core's forward pass for T queries against S keys: FLOPs over
// the peak against the bytes its intensity implies over HBM.
double core_time(const Config& c, double T, double S, double b, double peak, double bw) {
  const double flops =
      attention_core_flops(1, T, S, c.N, head_dim_qk(c), head_dim_v(c), Pass::Forward);
  const double bytes = flops / attention_intensity(T, S, c.N / c.K, b);
  return roofline::t_lower(roofline::t_math(flops, peak), roofline::t_comms(bytes, bw));
}

// The chip side of the page: its dtype's peak and HBM bandwidth.
struct Chip {
  const hw::Chip* chip = nullptr;
  std::string dtype;
  double b = 0, peak = 0, bw = 0;
};
Chip chip_of(const Inputs& in) {
  Chip k;
  k.chip = &hw::chip(in.text("chip"));
  k.dtype = in.text("dtype");
  k.b = hw::dtype_bytes(k.dtype, "dtype");
  k.peak = k.chip->peak(k.dtype, "dtype");
  k.bw = k.chip->get("hbm_bw", "chip");
  return k;
}

// The attention core against the other matmuls at T: both per token, their ratio, and where
// they are equal by the book's rule and exactly.
struct Crossing {
  double core = 0, rest = 0, ratio = 0, t8d = 0, exact = 0;
};
Crossing crossing_steps(const Config& c, const Params& p, double T, bool causal, Trace& tr) {
  Crossing x;
  const double hqk = head_dim_qk(c), hv = head_dim_v(c);
  x.core = tr.step(causal ? "Attention core, training FLOPs per token at $T$ (causal: half)"
                          : "Attention core, training FLOPs per token at $T$",
                   causal ? kCorePerTokenCausal : kCorePerToken, {c.L, T, c.N, hqk, hv});
  const double P =
      c.E == 0
          ? tr.sum("Matmul weights a token uses in the layers", "P_layers", "params",
                   {{"P_attn", p.attn}, {"P_mlp", p.mlp}})
          : tr.sum("Matmul weights a token uses in the layers", "P_layers", "params",
                   {{"P_attn", p.attn}, {"P_mlp_active", p.mlp_active}, {"P_router", p.router}});
  x.rest = tr.step("The other matmuls, training FLOPs per token", kSixP, {P});
  x.ratio =
      tr.step("Attention core over the other matmuls at $T$", kAttentionRatio, {x.core, x.rest});
  x.t8d = tr.step("The book's rule: attention dominates past $8D$", kCrossoverBook, {c.D});
  x.exact = tr.step(causal ? "Exact crossover for this model (a causal kernel: twice as far)"
                           : "Exact crossover for this model",
                    causal ? kCrossoverCausal : kCrossover, {x.rest, c.L, c.N, hqk, hv});
  return x;
}

// The attention core's intensity at prefill and decoding, against the chip's.
struct Intensity {
  double prefill = 0, decode = 0, i_hw = 0, min_T = 0, decode_limit = 0;
};
Intensity intensity_steps(const Config& c, double T, const Chip& k, Trace& tr) {
  Intensity x;
  const double G = c.N / c.K;
  x.prefill =
      tr.step("Attention intensity, prefill ($S = T$)", kAttentionIntensity, {T, T, G, k.b});
  x.decode = tr.step("Attention intensity, decoding one token against $S = T$ keys",
                     kAttentionIntensity, {1, T, G, k.b});
  x.i_hw = tr.step("Critical intensity of the " + k.chip->name + " (" + k.dtype + " against HBM)",
                   roofline::kCriticalIntensity, {k.peak, k.bw});
  x.min_T = tr.step("Prefill is compute-bound once $T$ exceeds", kMinTPrefill, {x.i_hw, G, k.b});
  x.decode_limit = tr.step("Decoding's intensity as $S$ grows", kDecodeIntensityLimit, {G, k.b});
  tr.note(x.decode_limit < x.i_hw
              ? "Decoding stays memory-bound: its intensity tends to $2G/b = " +
                    units::number(x.decode_limit) + "$, below $I_{hw} = " + units::number(x.i_hw) +
                    "$."
              : "With $G$ this large even decoding can reach the chip's intensity.");
  return x;
}

// Curves over T for the plot: from 128 tokens to well past both crossovers.
void curves_json(const Config& c, const Crossing& x, double T, bool causal, const Chip& k,
                 Result& r) {
  const double hi = std::max({4 * x.exact, 4 * x.t8d, 2 * T, 4096.0}), lo = 128;
  const double G = c.N / c.K, width = mlp_width_per_token(c);
  const int points = 64;
  json ts = json::array(), rs = json::array(), ips = json::array(), ids = json::array(),
       trs = json::array();
  for (int i = 0; i < points; ++i) {
    const double t = std::round(lo * std::pow(hi / lo, double(i) / (points - 1)));
    ts.push_back(t);
    rs.push_back(attention_flops_ratio(c, t, causal));
    ips.push_back(attention_intensity(t, t, G, k.b));
    ids.push_back(attention_intensity(1, t, G, k.b));
    trs.push_back(core_time(c, t, t, k.b, k.peak, k.bw) / mlp_time(c, t, width, k.b, k.peak, k.bw));
  }
  r.extra["curve"] = {{"T", std::move(ts)},
                      {"ratio", std::move(rs)},
                      {"intensity_prefill", std::move(ips)},
                      {"intensity_decode", std::move(ids)},
                      {"time_ratio", std::move(trs)}};
}

}  // namespace

void context_calc(const Inputs& in, Trace& tr, Result& r) {
  const ChosenModel ch = chosen_model(in);
  const Config& c = ch.config;
  const double T = in.num("T");
  const bool causal = in.text("causal") == "yes";
  const Chip k = chip_of(in);
  config_note(ch, tr);
  const Params p = params(c);
  const Crossing x = crossing_steps(c, p, T, causal, tr);
  const Intensity i = intensity_steps(c, T, k, tr);
  const double width = mlp_width_per_token(c);
  const double t_ratio =
      core_time(c, T, T, k.b, k.peak, k.bw) / mlp_time(c, T, width, k.b, k.peak, k.bw);
  const ModelFlops mf = model_flops(c, 1, T, Pass::Train, causal);

  r.value("ratio", x.ratio, "ratio", "attention core / other matmuls at T");
  r.value("core_share", mf.core / mf.total, "ratio", "attention core's share of all FLOPs at T");
  r.value("crossover_8d", x.t8d, "tokens", "the book's 8D rule");
  r.value("crossover", x.exact, "tokens", "exact crossover T*");
  r.value("intensity_prefill", i.prefill, "flop_per_B", "attention intensity, prefill at T");
  r.value("intensity_decode", i.decode, "flop_per_B", "attention intensity, decode at S = T");
  r.value("i_hw", i.i_hw, "flop_per_B", "critical intensity of the chip");
  r.value("min_T_prefill", i.min_T, "tokens", "prefill compute-bound above");
  r.value("decode_limit", i.decode_limit, "flop_per_B", "decode intensity as S grows (2G/b)");
  r.value("time_ratio", t_ratio, "ratio", "attention time / MLP time, one prefill at T");
  r.extra["verdict"] = x.ratio > 1 ? "attention core dominates at T" : "the matmuls dominate at T";
  if (moe_layers(c) > 0)
    r.note("The MLP time is that of one MLP as wide as the experts a token uses (" + n(width) +
           ", averaged over the layers); the weights of the other experts are not counted.");
  if (c.window_layers > 0)
    r.note("Sliding-window layers cap S at the window, which this count (full attention) ignores.");
  curves_json(c, x, T, causal, k, r);
  r.extra["markers"] = {{"T", T},
                        {"crossover", x.exact},
                        {"crossover_8d", x.t8d},
                        {"ratio_at_8d", attention_flops_ratio(c, x.t8d, causal)},
                        {"i_hw", i.i_hw},
                        {"min_T_prefill", i.min_T}};
  config_json(ch, r.extra);
}

}  // namespace sb::transformers::calc
