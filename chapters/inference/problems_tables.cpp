// The inference chapter's two LLaMA 2-13B sweeps on one 8-chip v5e host (inference.E5 with 40 KV
// heads, E6 with 8): for each batch of the text's table, the KV bytes, the bytes read per step, the
// bandwidth-bound step time and the host's throughput; which batches fit in its HBM.
#include <cmath>
#include <string>

#include "chapters/inference/problems.hpp"
#include "core/units.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::inference {
namespace {

// The batches of the text's tables (the slot names carry them).
constexpr double kTableBatches[] = {1, 8, 16, 32, 64, 240};

#define SB_ROW(b)                                                        \
  number("kv_bytes_b" #b, "B", "KV cache, batch " #b),                   \
      number("total_bytes_b" #b, "B", "bytes read per step, batch " #b), \
      number("step_time_s_b" #b, "s", "step time, batch " #b),           \
      number("throughput_tokens_per_s_b" #b, "tokens_per_s", "tokens per second, batch " #b)

constexpr Slot kE5Slots[] = {
    SB_ROW(1),
    SB_ROW(8),
    SB_ROW(16),
    SB_ROW(32),
    SB_ROW(64),
    SB_ROW(240),
    number("largest_table_batch_that_fits", "tokens", "largest batch of the table that fits"),
    number("max_batch_that_fits", "tokens", "largest batch that fits"),
    number("host_hbm_bw_Bps", "B_per_s", "the host's HBM bandwidth"),
    number("host_peak_bf16_flops_per_s", "flop_per_s", "the host's bf16 peak")};
constexpr Slot kE6Slots[] = {
    SB_ROW(1),
    SB_ROW(8),
    SB_ROW(16),
    SB_ROW(32),
    SB_ROW(64),
    SB_ROW(240),
    number("largest_table_batch_that_fits", "tokens", "largest batch of the table that fits")};
#undef SB_ROW

// The text's host: its figures are stated, not drawn from another chip.
constexpr std::array<Param, 6> kHostGiven = {
    chips_given(8, "chips of the host (4x2)"),
    rate("hbm_bw_Bps", "B_per_s", 8.2e11, "HBM bandwidth per chip, W_hbm"),
    rate("peak_bf16_flops_per_s", "flop_per_s", 1.97e14, "peak bf16 FLOPs/s per chip, C"),
    memory("hbm_per_chip_B", 17179869184.0,
           "HBM per chip as the text's 128 GiB host implies (16 GiB)"),
    tokens("seq_len_tokens", 8192, "context S"),
    bytes_per("bytes_per_elem", 2, "bytes per weight and KV element (bf16)")};
constexpr auto kE5Given = with(kLlama13, kHostGiven);
constexpr auto kE6Given = [] {
  auto g =
      with(kLlama13,
           with(kHostGiven, std::array<Param, 1>{heads(
                                "K_weights", 40, "KV heads the weight count keeps (the 13B's)")}));
  g[4].def = 8;  // K: the cache has 8 KV heads
  return g;
}();

struct Host {
  double n, W, C, M, S, b, P, kv_tok;
};

// The table's rows, each from the bandwidth-bound step (the text's model for these tables).
Answers rows(const Host& h, Trace& tr) {
  Answers a;
  const double w = tr.step("Bytes of the weights", kWeightBytes, {h.P, h.b});
  for (double B : kTableBatches) {
    const std::string s = units::number(B);
    const double kv = tr.step("KV caches, batch " + s, kKvBatch, {B, h.S, h.kv_tok});
    a["kv_bytes_b" + s] = kv;
    a["total_bytes_b" + s] =
        tr.sum("Bytes read per step, batch " + s, "bytes", "B", {{"bytes_w", w}, {"kv_batch", kv}});
    const double t =
        tr.step("Step time, batch " + s, kTStepBw, {B, h.S, h.kv_tok, h.P, h.b, h.n, h.W});
    a["step_time_s_b" + s] = t;
    a["throughput_tokens_per_s_b" + s] = tr.step("Tokens per second, batch " + s, kTokS, {B, t});
  }
  // The largest batch of the table whose bytes fit in the host's HBM: a look-up.
  double fits = 0, fits_decimal = 0;
  for (double B : kTableBatches) {
    const double total = weight_bytes(h.P, h.b) + kv_bytes_batch(B, h.S, h.kv_tok);
    if (total <= h.n * h.M) fits = B;
    if (total <= h.n * 16e9) fits_decimal = B;
  }
  a["largest_table_batch_that_fits"] =
      tr.value("The largest batch of the table within the host's HBM", fits, "tokens");
  a.slip("largest_table_batch_that_fits", fits_decimal,
         "That reads the host's 128 GiB as 128e9 B: with 128 GiB = 1.374e11 B the next batch fits "
         "too.");
  return a;
}

Host host_of(const Inputs& in, Trace& tr, double K_weights) {
  Host h;
  h.n = in.num("n_chips");
  h.W = in.num("hbm_bw_Bps");
  h.C = in.num("peak_bf16_flops_per_s");
  h.M = in.num("hbm_per_chip_B");
  h.S = in.num("seq_len_tokens");
  h.b = in.num("bytes_per_elem");
  h.P = tr.step("Parameters (with the weights' KV heads)", kPTotal,
                {in.num("L"), 1, in.num("D"), in.num("F"), in.num("H"), in.num("N"), K_weights,
                 in.num("n_emb"), in.num("V")});
  h.kv_tok = tr.step("KV bytes per token", kKvTok, {in.num("L"), in.num("K"), in.num("H"), h.b});
  return h;
}

constexpr Problem kE5{
    .id = "inference.E5",
    .title = "LLaMA 2-13B decode sweep on 8 chips",
    .statement =
        "LLaMA 2-13B (L = {L}, D = {D}, F = {F}, N = K = {K}, H = {H}, V = {V}, separate "
        "embeddings, bf16 throughout) decodes sequences of {seq_len_tokens} on one host of "
        "{n_chips} (TPU v5e: {hbm_bw_Bps}, {peak_bf16_flops_per_s} and {hbm_per_chip_B} of HBM "
        "each, the 16 GiB of the text's 128 GiB host). Reading every byte once per step, find for "
        "batches 1, 8, 16, "
        "32, 64 and 240 the KV bytes, the bytes read per step, the step time and the host's "
        "tokens per second. Which of these batches fit, what is the largest batch that fits, and "
        "what are the host's HBM bandwidth and bf16 peak?",
    .kind = "numeric",
    .given = kE5Given,
    .slots = kE5Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const Host h = host_of(in, tr, in.num("K"));
          Answers a = rows(h, tr);
          const double free =
              tr.step("HBM left beside the weights", kFreeHbm, {h.n, h.M, weight_bytes(h.P, h.b)});
          a["max_batch_that_fits"] = tr.step("Largest batch", kMaxBatch, {free, h.S, h.kv_tok});
          a.slip("max_batch_that_fits",
                 max_batch(free_hbm(h.n, 16e9, weight_bytes(h.P, h.b)), h.S, h.kv_tok),
                 "That takes 16e9 B per chip: the text's host has 128 GiB, 16 GiB = 1.718e10 B "
                 "per chip.");
          a["host_hbm_bw_Bps"] = tr.step("The host's bandwidth", kSliceBw, {h.n, h.W});
          a["host_peak_bf16_flops_per_s"] = tr.step("The host's peak", kSlicePeak, {h.n, h.C});
          return a;
        },
    .hint = "Step = (weights + B x one sequence's cache) / (chips x W_hbm); tokens/s = B / step.",
};

constexpr Problem kE6{
    .id = "inference.E6",
    .title = "Same sweep with five-times smaller KV",
    .statement =
        "Now give LLaMA 2-13B {K} KV heads instead of {K_weights} (grouped-query attention) and, "
        "as the text does, keep the weights at the size with {K_weights}. On the same host of "
        "{n_chips} (TPU v5e: {hbm_bw_Bps} and {hbm_per_chip_B}, that is 16 GiB, each) and contexts "
        "of "
        "{seq_len_tokens}, find the same table for batches 1 to 240 and the largest of its "
        "batches that fits.",
    .kind = "numeric",
    .given = kE6Given,
    .slots = kE6Slots,
    .solve = [](const Inputs& in,
                Trace& tr) { return rows(host_of(in, tr, in.num("K_weights")), tr); },
    .hint = "Only the KV term shrinks: K / N = 1/5 of LLaMA 2-13B's cache.",
};

}  // namespace

void add_problems_tables(Registry& r) {
  static constexpr Problem kAll[] = {kE5, kE6};
  r.add(kAll);
}

}  // namespace sb::inference
