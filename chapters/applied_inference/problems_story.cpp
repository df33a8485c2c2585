// "What's the LLaMA serving story?": the KV cache of LLaMA 3-70B (S1), the memory at batch 32
// (S2), the decode step on a 4x2 and a 4x4 (S3), and the chips' FLOPs per dollar (E2). Every
// expected answer is computed by the models from the problem's givens.
#include <cmath>

#include "chapters/applied_inference/problems.hpp"
#include "chapters/inference/serving.hpp"
#include "core/units.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::applied_inference {
namespace {

namespace inf = inference;

constexpr double kBatches[] = {120, 240, 480};
constexpr double kContexts[] = {8192, 32768, 131072};
constexpr Param kS1Given[] = {
    kL70,
    kK70,
    kH70,
    kP70,
    bytes_per("bytes_per_weight", 1, "bytes per weight (int8)"),
    bytes_per("bytes_per_kv", 1, "bytes per KV element (int8)"),
    kChipGiven,
    kHbmBytes,
    count("batch_tokens", 240, "sequences in the batch", kBatches),
    tokens("seq_len_tokens", 32768, "tokens in each sequence", kContexts)};
constexpr Slot kS1Slots[] = {
    number("kv_bytes_per_token", "B", "KV bytes per token"),
    number("kv_bytes_per_seq_32k", "B", "KV bytes per sequence"),
    number("kv_bytes_batch240_32k", "B", "KV bytes of the batch"),
    number("chips_to_hold_weights_and_kv", "chips", "chips that hold weights and caches")};
constexpr Problem kS1{
    .id = "applied-inference.S1",
    .title = "LLaMA 3-70B int8 KV cache size",
    .statement =
        "LLaMA 3-70B has L = {L} layers, K = {K} KV heads of H = {H} and {param_count}. With "
        "weights at {bytes_per_weight} and cache at {bytes_per_kv} per element, how many KV bytes "
        "does one token take, one sequence of {seq_len_tokens}, and {batch_tokens} such "
        "sequences? How many chips of {hbm_per_chip_B} ({chip}) hold that and the weights?",
    .kind = "numeric",
    .given = kS1Given,
    .slots = kS1Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const Given g = given_of(in, kModel | kMemory);
          const double B = in.num("batch_tokens"), S = in.num("seq_len_tokens");
          const double w =
              t.step("Weight bytes", inf::kWeightBytes, {g.P, in.num("bytes_per_weight")});
          Answers a;
          const double kv = a["kv_bytes_per_token"] = kv_tok_step(g, in.num("bytes_per_kv"), t);
          a["kv_bytes_per_seq_32k"] = t.step("One sequence", inf::kKvSeq, {S, kv});
          const double batch = a["kv_bytes_batch240_32k"] =
              t.step("The batch", inf::kKvBatch, {B, S, kv});
          a["chips_to_hold_weights_and_kv"] = t.step("Chips", kMinChips, {w, batch, g.M});
          a.book("chips_to_hold_weights_and_kv", min_chips(w, units::round_sig(batch, 2), g.M),
                 "rounds the caches to two digits before adding the weights");
          a.slip("kv_bytes_per_token", kv / 2, kSlipKeysOnly);
          a.slip("chips_to_hold_weights_and_kv", min_chips(0, batch, g.M),
                 "That holds the caches alone: the weights need HBM too.");
          return a;
        },
    .hint = "A token keeps a key and a value of H numbers per KV head in every layer.",
};

constexpr double kS2Batches[] = {16, 32, 64};
constexpr Param kS2Given[] = {kL70,
                              kK70,
                              kH70,
                              kP70,
                              bytes_per("bytes_per_weight", 1, "bytes per weight (int8)"),
                              bytes_per("bytes_per_kv", 1, "bytes per KV element (int8)"),
                              kChipGiven,
                              kHbmBytes,
                              count("batch_tokens", 32, "sequences in the batch", kS2Batches),
                              kSeq8k};
constexpr Slot kS2Slots[] = {number("kv_bytes_total", "B", "KV bytes of the batch"),
                             number("total_bytes", "B", "weights and caches"),
                             number("min_chips_raw", "ratio", "chips they fill"),
                             number("smallest_slice_chips", "chips", "smallest slice")};
constexpr Problem kS2{
    .id = "applied-inference.S2",
    .title = "Memory at batch 32, 8k context",
    .statement =
        "Serve LLaMA 3-70B ({param_count}; L = {L}, K = {K}, H = {H}) with weights at "
        "{bytes_per_weight} and cache at {bytes_per_kv} per element, {batch_tokens} sequences of "
        "{seq_len_tokens}. How many bytes do the caches take, how many with the weights, how many "
        "chips of {hbm_per_chip_B} is that, and what is the smallest {chip} slice that holds it?",
    .kind = "numeric",
    .given = kS2Given,
    .slots = kS2Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const Given g = given_of(in, kModel | kMemory);
          const double B = in.num("batch_tokens"), S = in.num("seq_len_tokens");
          const double w =
              t.step("Weight bytes", inf::kWeightBytes, {g.P, in.num("bytes_per_weight")});
          const double kv = kv_tok_step(g, in.num("bytes_per_kv"), t);
          Answers a;
          const double batch = a["kv_bytes_total"] =
              t.step("The caches", inf::kKvBatch, {B, S, kv});
          a["total_bytes"] = t.sum("Weights and caches", "M", "B", {{"M_w", w}, {"kv", batch}});
          a["min_chips_raw"] = t.step("Chips", inf::kMinChips, {w, batch, g.M});
          a["smallest_slice_chips"] = slice_step(g, std::ceil(a["min_chips_raw"]), t);
          const double kv_book = units::round_sig(kv, 2);
          a.book("kv_bytes_total", inf::kv_bytes_batch(B, S, kv_book),
                 "rounds the KV bytes per token to two digits");
          a.book("total_bytes", w + inf::kv_bytes_batch(B, S, kv_book),
                 "rounds the KV bytes per token to two digits");
          a.slip("total_bytes", batch, "That is the caches alone: add the weights.");
          t.note(
              "The counts leave out activations and working memory: a real server may need the "
              "next slice.");
          return a;
        },
};

constexpr double kS3Batches[] = {16, 32, 64};
constexpr Param kS3Given[] = {
    kL70,
    kK70,
    kH70,
    kF70,
    kP70,
    bytes_per("bytes_per_weight", 1, "bytes per weight (int8)"),
    bytes_per("bytes_per_kv", 1, "bytes per KV element (int8)"),
    kChipGiven,
    kPeakBf16,
    kHbmBw,
    kIciBidi,
    chip_count("n_chips", 8, "chips of the first slice (4x2)"),
    chip_count("n_chips_large", 16, "chips of the second slice (4x4)"),
    count("batch_tokens", 32, "sequences in the decode batch", kS3Batches),
    kSeq8k};
constexpr Slot kS3Slots[] = {
    number("b_crit_int8_w_bf16", "tokens", "critical batch"),
    boolean("memory_bound", "the step is bound by memory bandwidth"),
    number("step_time_s_4x2", "s", "step on the first slice"),
    number("throughput_tokens_per_s_4x2", "tokens_per_s", "tokens per second of the replica"),
    number("throughput_tokens_per_s_per_chip_4x2", "tokens_per_s", "per chip"),
    number("ici_bound_model_parallel_degree", "count", "model parallelism before ICI binds"),
    number("step_time_s_4x4", "s", "step on the second slice"),
    number("throughput_tokens_per_s_per_chip_4x4", "tokens_per_s", "per chip on it")};
// The ratio of HBM to ICI bandwidth as the chapter rounds it ("about 8").
constexpr double kBookRatio = 8;
constexpr Problem kS3{
    .id = "applied-inference.S3",
    .title = "Decode latency and throughput, 4x2 vs 4x4",
    .statement =
        "LLaMA 3-70B ({param_count}; L = {L}, K = {K}, H = {H}, F = {F}) serves a batch of "
        "{batch_tokens} sequences of {seq_len_tokens} with weights at {bytes_per_weight} and "
        "cache at {bytes_per_kv} per element, matmuls in bf16, fully model-parallel over "
        "{n_chips} ({chip}: {peak_bf16_flops_per_s}, HBM {hbm_bw_Bps}, ICI "
        "{ici_bw_bidi_Bps}). What is the critical batch, and is the step memory-bound? What are "
        "the step time and throughput? Up to what model-parallel degree does ICI stay hidden? And "
        "on {n_chips_large}?",
    .kind = "numeric",
    .given = kS3Given,
    .slots = kS3Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const Given g = given_of(in, kModel | kStep);
          const double B = in.num("batch_tokens"), S = in.num("seq_len_tokens");
          const double bw = in.num("bytes_per_weight");
          Answers a;
          a["b_crit_int8_w_bf16"] = t.step("Critical batch", inf::kBCrit, {bw, g.C, g.W});
          const double kv = kv_tok_step(g, in.num("bytes_per_kv"), t);
          auto step = [&](double n) {
            const double tk = t.step("Reading the caches", inf::kTKv, {B, S, kv, n, g.W});
            const double tp = t.step("Reading the weights", inf::kTParam, {g.P, bw, n, g.W});
            const double tf = t.step("The FLOPs", inf::kTFlops, {B, g.P, n, g.C});
            return t.step("The step", inf::kTStep, {tk, tf, tp});
          };
          const double n = in.num("n_chips"), n2 = in.num("n_chips_large");
          const double st = a["step_time_s_4x2"] = step(n);
          a["memory_bound"] = B < a["b_crit_int8_w_bf16"] ? 1 : 0;
          a["throughput_tokens_per_s_4x2"] = t.step("Tokens per second", inf::kTokS, {B, st});
          a["throughput_tokens_per_s_per_chip_4x2"] =
              t.step("Per chip", inf::kTokSChip, {B, n, st});
          const double r =
              t.step("HBM over ICI bandwidth", inf::kRHbmIci, {g.W, in.num("ici_bw_bidi_Bps")});
          a["ici_bound_model_parallel_degree"] = t.step("ICI hidden under the weight loads while",
                                                        inf::kYMaxDecode, {in.num("F"), B, r});
          const double st2 = a["step_time_s_4x4"] = step(n2);
          a["throughput_tokens_per_s_per_chip_4x4"] =
              t.step("Per chip", inf::kTokSChip, {B, n2, st2});
          a.book("ici_bound_model_parallel_degree", inf::y_max_decode(in.num("F"), B, kBookRatio),
                 "takes HBM as about 8 times faster than ICI");
          a.slip("step_time_s_4x2", inf::t_param(g.P, bw, n, g.W), kSlipNoKvRead);
          a.slip("step_time_s_4x4", inf::t_param(g.P, bw, n2, g.W), kSlipNoKvRead);
          t.note("Twice the chips halve the step but leave the tokens per chip as they were.");
          return a;
        },
};

constexpr Param kE2Given[] = {
    rate("peak_h100", "flop_per_s", 9.9e14, "H100 peak bf16 FLOPs/s"),
    ranged("price_h100", "usd_per_hour", 10.8, "H100 price per hour", 0.01, 1e4),
    rate("peak_v5p", "flop_per_s", 4.59e14, "TPU v5p peak bf16 FLOPs/s"),
    ranged("price_v5p", "usd_per_hour", 4.2, "TPU v5p price per hour", 0.01, 1e4),
    rate("peak_v5e", "flop_per_s", 1.97e14, "TPU v5e peak bf16 FLOPs/s"),
    ranged("price_v5e", "usd_per_hour", 1.2, "TPU v5e price per hour", 0.01, 1e4)};
constexpr Slot kE2Slots[] = {number("flops_per_usd_h100", "ratio", "H100: FLOPs per dollar"),
                             number("flops_per_usd_v5p", "ratio", "TPU v5p: FLOPs per dollar"),
                             number("flops_per_usd_v5e", "ratio", "TPU v5e: FLOPs per dollar"),
                             boolean("v5e_cheapest_per_flop", "the v5e buys the most")};
constexpr Problem kE2{
    .id = "applied-inference.E2",
    .title = "Which chip gives most FLOPs per dollar",
    .statement =
        "An H100 does {peak_h100} in bf16 for {price_h100}, a TPU v5p {peak_v5p} for "
        "{price_v5p}, a TPU v5e {peak_v5e} for {price_v5e}. How many bf16 FLOPs does a dollar buy "
        "on each, and is the v5e the cheapest per FLOP?",
    .kind = "numeric",
    .given = kE2Given,
    .slots = kE2Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          Answers a;
          const double h = a["flops_per_usd_h100"] =
              t.step("H100", inf::kFlopsPerDollar, {in.num("peak_h100"), in.num("price_h100")});
          const double p = a["flops_per_usd_v5p"] =
              t.step("TPU v5p", inf::kFlopsPerDollar, {in.num("peak_v5p"), in.num("price_v5p")});
          const double e = a["flops_per_usd_v5e"] =
              t.step("TPU v5e", inf::kFlopsPerDollar, {in.num("peak_v5e"), in.num("price_v5e")});
          a["v5e_cheapest_per_flop"] = e > h && e > p ? 1 : 0;
          a.slip("flops_per_usd_v5e", e / 3600,
                 "That is FLOPs per second per dollar-hour: a dollar buys 3600 seconds' worth.");
          return a;
        },
    .erratum =
        "The book prints 5.8e17 for the v5e; 1.97e14 x 3600 / 1.2 is 5.91e17, 5.9e17 "
        "rounded.",
};

}  // namespace

void add_problems_story(Registry& r) {
  static constexpr Problem kAll[] = {kS1, kS2, kS3, kE2};
  r.add(kAll);
}

}  // namespace sb::applied_inference
