// The case study's calculators, one per question of the chapter, each for any model of the table
// and any TPU: KV bytes and the chips that hold them (applied-inference.kv), the smallest slice,
// the batch it holds and the queries per second per chip for each dtype (applied-inference.slices),
// the prefill servers a generate server needs (applied-inference.servers) and what it all costs
// (applied-inference.cost). Every number comes from this chapter's model.hpp and Part 7's; the
// derivations come from their records.
#include <algorithm>
#include <array>
#include <string>

#include "chapters/applied_inference/model.hpp"
#include "chapters/inference/model.hpp"
#include "chapters/inference/serving.hpp"
#include "chapters/transformers/model.hpp"
#include "chapters/transformers/model_input.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::applied_inference {
namespace {

namespace inf = inference;
namespace tf = transformers;

constexpr Param zero_ok(Param p) {
  p.positive = false;
  return p;
}

constexpr Text kDtypes = "bf16|fp8|int8|int4";
constexpr Param kChip = chip_param("v5e", "TPU from the hardware tables");
constexpr Param kS =
    num("S", "tokens", 8192, "context: tokens in each sequence's KV cache", 1, 1e7, true);
constexpr Param kReplyLen =
    num("len_decode", "tokens", 512, "tokens generated per request (reply length)", 1, 1e6, true);
constexpr Param kFactor =
    num("slice_factor", "count", 1,
        "slice factor: the slice is the smallest that holds the weights, times this (2: twice the "
        "chips)",
        1, 256, true);
constexpr Param kPrice = zero_ok(num(
    "price", "usd_per_hour", 0, "price per chip-hour (0: the tables' price for the chip)", 0, 1e4));
constexpr Param kMfu = num("mfu", "ratio", 0.4, "prefill's share of the peak (MFU)", 0.01, 1);

// The model and TPU of the inputs, as the case study needs them. The chosen config outlives the
// setting's use of it (the caller keeps `chosen`).
struct Case {
  tf::ChosenModel chosen;
  Setting s;
  bool plain_kv = true;
};

Case case_of(const Inputs& in) {
  Case c;
  c.chosen = tf::chosen_model(in);
  const inf::Served m = inf::served(c.chosen.config);
  c.s.P_total = m.P_total;
  c.s.P_active = m.P_active;
  c.s.L = m.L;
  c.s.D = m.D;
  c.s.K = m.K;
  c.s.H = m.H;
  c.plain_kv = m.plain_kv;
  c.s.machine = inf::machine_of(hw::chip(in.text("chip"), "chip"), "chip");
  c.s.C_bf16 = inf::peak_of(c.s.machine, "bf16", "chip");
  c.s.C_int8 =
      c.s.machine.chip->has("peak_flops_int8") ? inf::peak_of(c.s.machine, "int8", "chip") : 0;
  c.s.S = in.num("S");
  c.s.kv_tok_bf16 = inf::kv_tok_of(m, 2, c.s.S);
  return c;
}

double price_of(const Inputs& in, const Case& c) {
  return in.num("price") > 0 ? in.num("price") : c.s.machine.price;
}

// The model's parameters and, for a dtype, its weight and KV bytes per token, as steps.
void params_step(const Case& c, Trace& t) {
  t.note(c.chosen.name + " on a " + c.s.machine.name + ".");
  t.value("Parameters stored, $P_{total}$ (the transformers chapter's count, from the config)",
          c.s.P_total, "count");
}

void model_steps(const Case& c, double b_w, double b_kv, Trace& t) {
  params_step(c, t);
  t.step("Weight bytes", inf::kWeightBytes, {c.s.P_total, b_w});
  if (c.plain_kv)
    t.step("KV bytes per token: a key and a value per KV head per layer", inf::kKvTok,
           {c.s.L, c.s.K, c.s.H, b_kv});
  else
    t.value(
        "KV bytes per token at $S$ (MLA's latent, or sliding-window layers: the transformers "
        "chapter's count)",
        c.s.kv_tok_bf16 * b_kv / 2, "B");
}

// ------------------------------------------------------------------ applied-inference.kv

constexpr std::array<Param, 5> kKvOwn = {
    kChip,
    choice("dtype_w", "int8", kDtypes, "weights' dtype"),
    choice("dtype_kv", "int8", kDtypes, "KV cache's dtype"),
    num("B", "count", 240, "sequences in the batch", 1, 1e6, true),
    num("S", "tokens", 32768, "context: tokens in each sequence's KV cache", 1, 1e7, true),
};
constexpr auto kKvParams = tf::join(tf::kModelInput, kKvOwn);

void kv_calc(const Inputs& in, Trace& t, Result& r) {
  const Case c = case_of(in);
  const double b_w = inf::dtype_bytes(in.text("dtype_w"), "dtype_w");
  const double b_kv = inf::dtype_bytes(in.text("dtype_kv"), "dtype_kv");
  const double B = in.num("B"), S = c.s.S, M = c.s.machine.M_hbm;
  model_steps(c, b_w, b_kv, t);
  const double bytes_w = inf::weight_bytes(c.s.P_total, b_w);
  const double kv_tok = c.s.kv_tok_bf16 * b_kv / 2;
  const double seq = t.step("One sequence's cache", inf::kKvSeq, {S, kv_tok});
  const double batch = t.step("The batch's caches", inf::kKvBatch, {B, S, kv_tok});
  const double raw = t.step("Chips, before rounding", inf::kMinChips, {bytes_w, batch, M});
  const double n = t.step("Fewest chips", kMinChips, {bytes_w, batch, M});
  std::string shape;
  const double slice = slice_at_least(c.s.machine, n, &shape);
  r.value("kv_tok", kv_tok, "B", "KV bytes per token");
  r.value("kv_seq", seq, "B", "KV bytes per sequence");
  r.value("kv_batch", batch, "B", "KV bytes of the batch");
  r.value("bytes_w", bytes_w, "B", "weight bytes");
  r.value("total", bytes_w + batch, "B", "weights and caches");
  r.value("chips_raw", raw, "ratio", "chips' HBM they fill");
  r.value("min_chips", n, "chips", "fewest chips that hold them");
  if (slice > 0) {
    t.value("The smallest slice of at least that many: a " + shape, slice, "chips");
    r.value("slice", slice, "chips", "smallest slice that holds them");
    r.extra["shape"] = shape;
  } else {
    r.note("No slice of a " + c.s.machine.name +
           " holds them: the pod has too few chips. Serve a "
           "smaller batch, a shorter context or a smaller dtype.");
    r.extra["shape"] = "";
  }
  r.note("Weights " + units::format(bytes_w, "B") + " plus caches " + units::format(batch, "B") +
         " over " + units::format(M, "B") + " per chip (GB = 1e9 B).");
}

// ------------------------------------------------------------------ applied-inference.slices

constexpr std::array<Text, 3> kCaseDtypes = {"bf16", "int8", "int4"};

constexpr std::array<Param, 5> kSlicesOwn = {kChip, kS, kReplyLen, kFactor, kPrice};
constexpr auto kSlicesParams = tf::join(tf::kModelInput, kSlicesOwn);

// One dtype's steps: its slice, the batch it holds, the step at that batch, its queries per second.
void dtype_steps(const Setting& s, const DtypeRow& w, Trace& t) {
  const double M = s.machine.M_hbm, W = s.machine.W_hbm;
  t.note(w.dtype + " weights and caches:");
  t.step("Weight bytes", inf::kWeightBytes, {s.P_total, w.b});
  t.step("Chips the weights fill", inf::kMinChips, {w.bytes_w, 0, M});
  if (!w.fits) {
    t.note(w.smallest == 0 ? "No slice of the pod holds the weights."
                           : "No slice of that size holds a cache beside the weights.");
    return;
  }
  t.value("The slice: a " + w.shape, w.chips, "chips");
  t.step("HBM left for caches", inf::kFreeHbm, {w.chips, M, w.bytes_w});
  t.step("Caches of $S$ tokens that fit", inf::kMaxBatch, {w.hbm_left, s.S, w.kv_tok});
  const double kv = t.step("Reading them", inf::kTKv, {w.B_max, s.S, w.kv_tok, w.chips, W});
  const double p = t.step("Reading the weights", inf::kTParam, {s.P_total, w.b, w.chips, W});
  const double f = t.step("The FLOPs", inf::kTFlops, {w.B_max, s.P_active, w.chips, s.C_bf16});
  const double st = inf::gpu_comms_steps(s.machine, layers_of(s), w.B_max, 2, w.chips,
                                         t.step("The step", inf::kTStep, {kv, f, p}), t)
                        .T_step;
  t.step("Replies per second of the replica", kSequencesPerS, {w.B_max, st, s.len_decode});
  t.step("Queries per second per chip", inf::kQps, {w.B_max, st, s.len_decode, w.chips});
}

// A dtype's answers under its own keys and labels ("int8: slice").
struct RowKeys {
  Text chips, chips_label, batch, batch_label, step, step_label, qps, qps_label;
};
constexpr RowKeys kRowKeys[] = {
    {"chips_bf16", "bf16: slice", "B_bf16", "bf16: largest batch", "step_bf16",
     "bf16: step at that batch", "qps_bf16", "bf16: queries per second per chip"},
    {"chips_int8", "int8: slice", "B_int8", "int8: largest batch", "step_int8",
     "int8: step at that batch", "qps_int8", "int8: queries per second per chip"},
    {"chips_int4", "int4: slice", "B_int4", "int4: largest batch", "step_int4",
     "int4: step at that batch", "qps_int4", "int4: queries per second per chip"},
};

void row_values(const DtypeRow& w, const RowKeys& k, Result& r) {
  r.value(k.chips, w.chips, "chips", k.chips_label);
  r.value(k.batch, w.B_max, "count", k.batch_label);
  r.value(k.step, w.step.T_step, "s", k.step_label);
  r.value(k.qps, w.qps_chip, "per_s", k.qps_label);
}

void write_rows(const std::vector<DtypeRow>& rows, Result& r) {
  json& out = r.extra["rows"] = json::array();
  for (const DtypeRow& w : rows) {
    json j = json::object();
    j["dtype"] = w.dtype;
    j["fits"] = w.fits;
    j["bytes_w"] = w.bytes_w;
    j["kv_tok"] = w.kv_tok;
    j["chips_raw"] = w.chips_raw;
    j["chips"] = w.chips;
    j["shape"] = w.shape;
    j["hbm_left"] = w.hbm_left;
    j["B_max"] = w.B_max;
    j["B_crit"] = w.B_crit;
    j["T_kv"] = w.step.T_kv;
    j["T_param"] = w.step.T_param;
    j["T_flops"] = w.step.T_flops;
    j["T_step"] = w.step.T_step;
    j["seq_s"] = w.seq_s;
    j["qps_chip"] = w.qps_chip;
    j["tok_s_chip"] = w.tok_s_chip;
    j["cost_per_m"] = w.cost_per_m;
    out.push_back(std::move(j));
  }
}

std::vector<DtypeRow> case_rows(const Inputs& in, Case& c, Trace* t) {
  c.s.len_decode = in.num("len_decode");
  c.s.slice_factor = in.num("slice_factor");
  c.s.price = price_of(in, c);
  std::vector<DtypeRow> rows;
  for (Text d : kCaseDtypes) {
    rows.push_back(dtype_row(c.s, std::string(d)));
    if (t) dtype_steps(c.s, rows.back(), *t);
  }
  return rows;
}

void slices_calc(const Inputs& in, Trace& t, Result& r) {
  Case c = case_of(in);
  params_step(c, t);
  const std::vector<DtypeRow> rows = case_rows(in, c, &t);
  for (size_t i = 0; i < rows.size(); ++i) row_values(rows[i], kRowKeys[i], r);
  write_rows(rows, r);
  for (const DtypeRow& w : rows) {
    if (!w.fits) {
      r.note(w.dtype + ": no slice of a " + c.s.machine.name + " holds the weights and one cache.");
      continue;
    }
    if (w.B_max > w.B_crit)
      r.note(w.dtype + ": the batch of " + units::number(w.B_max, 6) +
             " is above the critical batch (" + units::number(w.B_crit, 4) +
             "), so the FLOPs, not the weight loads, set the step; the book keeps its 19 ms.");
  }
  r.note(
      "Matmuls run in bf16; each dtype holds the weights and the caches. A batch that fills "
      "HBM makes every chip read about its whole HBM each step (" +
      units::format(inf::full_hbm_step(c.s.machine.M_hbm, c.s.machine.W_hbm), "s") +
      " here), whatever the dtype. Real servers reach about half of these figures.");
}

// ------------------------------------------------------------------ applied-inference.servers

constexpr std::array<Param, 9> kServersOwn = {
    kChip,
    zero_ok(num("chips", "chips", 0,
                "chips of a prefill server and of a generate server (0: the smallest slice that "
                "holds the weights and the batch)",
                0, 1e5, true)),
    choice("dtype", "bf16", kDtypes, "weights' and KV cache's dtype (matmuls in bf16)"),
    num("B", "count", 32, "decode batch of a generate server", 1, 1e6, true),
    kS,
    num("prompt", "tokens", 8192, "prompt tokens per request", 1, 1e7, true),
    kReplyLen,
    kMfu,
    num("len_finish", "tokens", 4096,
        "mean reply length for the churn of continuous batching (the chapter's 4096)", 1, 1e6,
        true),
};
constexpr auto kServersParams = tf::join(tf::kModelInput, kServersOwn);

void servers_calc(const Inputs& in, Trace& t, Result& r) {
  const Case c = case_of(in);
  const double b = inf::dtype_bytes(in.text("dtype"), "dtype");
  const double B = in.num("B"), S = c.s.S, T = in.num("prompt");
  const double len = in.num("len_decode"), W = c.s.machine.W_hbm, C = c.s.C_bf16;
  model_steps(c, b, b, t);
  const double kv_tok = c.s.kv_tok_bf16 * b / 2;
  const double bytes_w = inf::weight_bytes(c.s.P_total, b);
  double n = in.num("chips");
  if (n > 0) {
    inf::slice_of(c.s.machine, n, "chips");
  } else {
    const double need = t.step("Fewest chips for the weights and the batch", kMinChips,
                               {bytes_w, inf::kv_bytes_batch(B, S, kv_tok), c.s.machine.M_hbm});
    std::string shape;
    n = slice_at_least(c.s.machine, need, &shape);
    if (n == 0)
      fail("B",
           "no slice of a " + c.s.machine.name + " holds the weights and " + units::number(B, 6) +
               " caches of " + units::number(S, 6) + " tokens",
           "out_of_range");
    t.value("The smallest slice of at least that many: a " + shape, n, "chips");
  }
  const double M_free = inf::free_hbm(n, c.s.machine.M_hbm, bytes_w);
  if (M_free < B * S * kv_tok)
    fail("B",
         units::number(B, 6) + " caches of " + units::number(S, 6) +
             " tokens do not fit beside the weights on " + units::number(n, 6) +
             " chips (at most " +
             units::number(std::max(0.0, inf::max_batch(M_free, S, kv_tok)), 6) + ")",
         "out_of_range");
  const double pre =
      t.step("Prefill of one prompt", inf::kTPrefill, {c.s.P_active, T, n, C, in.num("mfu")});
  const double kv = t.step("Reading the caches", inf::kTKv, {B, S, kv_tok, n, W});
  const double p = t.step("Reading the weights", inf::kTParam, {c.s.P_total, b, n, W});
  const double f = t.step("The FLOPs", inf::kTFlops, {B, c.s.P_active, n, C});
  const double st = inf::gpu_comms_steps(c.s.machine, layers_of(c.s), B, 2, n,
                                         t.step("The decode step", inf::kTStep, {kv, f, p}), t)
                        .T_step;
  const double ratio =
      t.step("Prefill servers per generate server", inf::kServerRatio, {pre, B, st, len});
  const double lf = in.num("len_finish");
  const double done = t.step("Sequences done per step", inf::kChurn, {B, lf});
  const double freed = t.step("KV tokens freed per step", inf::kKvFreed, {B, T, lf});
  r.value("chips", n, "chips", "chips of each server");
  r.value("prefill", pre, "s", "prefill of one prompt");
  r.value("step", st, "s", "decode step");
  r.value("ratio", ratio, "ratio", "prefill servers per generate server");
  r.value("done", done, "count", "sequences done per step");
  r.value("freed", freed, "tokens", "KV tokens freed per step");
  r.note("A generate server finishes " + units::number(B / (st * len), 4) +
         " requests a second; a prefill server starts " + units::number(1 / pre, 4) + ": about " +
         units::number(ratio, 3) + " prefill servers keep one generate server fed.");
}

// ------------------------------------------------------------------ applied-inference.cost

constexpr std::array<Param, 8> kCostOwn = {
    kChip,
    kS,
    kReplyLen,
    kFactor,
    num("prompt", "tokens", 8192, "prompt tokens per request", 1, 1e7, true),
    kMfu,
    kPrice,
    choice("dtype", "int8", "bf16|int8|int4", "the dtype the cost is given for"),
};
constexpr auto kCostParams = tf::join(tf::kModelInput, kCostOwn);

void flops_table(Trace& t, Result& r) {
  json& out = r.extra["chips"] = json::array();
  for (const hw::Chip& chip : hw::chips()) {
    if (!chip.has("price_per_hour") || !chip.has("peak_flops_bf16")) continue;
    const double C = chip.get("peak_flops_bf16"), price = chip.get("price_per_hour");
    const double v =
        t.step("bf16 FLOPs per dollar, " + chip.name, inf::kFlopsPerDollar, {C, price});
    json j = json::object();
    j["chip"] = chip.name;
    j["flops_per_usd"] = v;
    j["price"] = price;
    out.push_back(std::move(j));
  }
}

void cost_calc(const Inputs& in, Trace& t, Result& r) {
  Case c = case_of(in);
  const std::string dtype = in.text("dtype");
  c.s.len_decode = in.num("len_decode");
  c.s.slice_factor = in.num("slice_factor");
  c.s.price = price_of(in, c);
  const DtypeRow w = dtype_row(c.s, dtype);
  params_step(c, t);
  dtype_steps(c.s, w, t);
  if (!w.fits)
    fail("dtype",
         "no slice of a " + c.s.machine.name + " holds the " + dtype +
             " weights and one cache of " + units::number(c.s.S, 6) + " tokens",
         "out_of_range");
  r.value("chips", w.chips, "chips", "slice");
  r.value("B", w.B_max, "count", "batch");
  if (c.s.price > 0) {
    const double out = t.step("Per million output tokens", inf::kCostOut,
                              {w.chips, c.s.price, w.step.T_step, w.B_max});
    const double T = in.num("prompt");
    const double pre = t.step("Prefill on the same slice", inf::kTPrefill,
                              {c.s.P_active, T, w.chips, c.s.C_bf16, in.num("mfu")});
    const double inp =
        t.step("Per million prompt tokens", inf::kCostIn, {w.chips, c.s.price, pre, T});
    r.value("cost_out", out, "usd", "$ per million output tokens");
    r.value("cost_in", inp, "usd", "$ per million prompt tokens");
    r.value("flops_per_usd", inf::flops_per_dollar(c.s.C_bf16, c.s.price), "ratio",
            "bf16 FLOPs per dollar of this chip");
    r.note(
        "At the largest batch of the slice; a smaller batch costs more per token. FLOPs per "
        "dollar use the tables' on-demand prices.");
  } else {
    r.note("The tables have no price for a " + c.s.machine.name +
           ": enter one (per chip-hour) for the cost per token.");
  }
  flops_table(t, r);
}

constexpr Calculator kCalculators[] = {
    Calculator{.name = "applied-inference.kv",
               .title = "KV cache and the chips that hold it",
               .doc = "KV bytes per token, per sequence and for the batch, with the weights: the "
                      "fewest chips and the smallest slice that hold them.",
               .params = kKvParams,
               .run = kv_calc},
    Calculator{.name = "applied-inference.slices",
               .title = "Smallest slice, batch and queries per chip, by dtype",
               .doc =
                   "For bf16, int8 and int4 weights and caches: the smallest slice, the HBM left, "
                   "the caches that fit, the step at that batch and the queries per second per "
                   "chip; a slice factor of 2 doubles each slice.",
               .params = kSlicesParams,
               .run = slices_calc},
    Calculator{.name = "applied-inference.servers",
               .title = "Prefill servers per generate server",
               .doc = "Disaggregated serving: prefill time, decode step, how many prefill servers "
                      "keep a generate server fed, and the churn of continuous batching.",
               .params = kServersParams,
               .run = servers_calc},
    Calculator{.name = "applied-inference.cost",
               .title = "The cost",
               .doc = "Dollars per million output and prompt tokens at a dtype's largest batch on "
                      "its slice, and the bf16 FLOPs a dollar buys on each priced chip.",
               .params = kCostParams,
               .run = cost_calc},
};

}  // namespace

void add_calculators(Registry& r) { r.add(kCalculators); }

}  // namespace sb::applied_inference
