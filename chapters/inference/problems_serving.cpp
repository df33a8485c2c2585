// The inference chapter's examples beyond one chip: the decode limit on model parallelism (E7),
// Appendix A's toy layer (E8), latency-bound collectives (E9) and prefix caching (E10).
#include <cmath>

#include "chapters/inference/problems.hpp"
#include "core/error.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::inference {
namespace {

constexpr double kE7Bs[] = {8, 16, 32, 64};
constexpr Param kE7Given[] = {
    width("F", 16384, "MLP width F"),
    ratio_given("hbm_to_ici_bw_ratio", 8, "HBM over ICI bandwidth, as the text rounds it", 0.5,
                100),
    tokens("batch_tokens", 32, "decode batch B", kE7Bs)};
constexpr Slot kE7Slots[] = {number("y_max_decode", "count", "largest model-parallel degree")};
constexpr Problem kE7{
    .id = "inference.E7",
    .title = "Max model parallelism in bandwidth-bound decode",
    .statement =
        "In decode, a matmul split Y ways over F must load b D F / Y bytes of weights while its "
        "activations, b B D bytes, cross ICI. With F = {F}, a batch of {batch_tokens} and HBM "
        "{hbm_to_ici_bw_ratio} times faster than ICI (bidirectional), how far can Y go before the "
        "ICI takes longer than the weight loads?",
    .kind = "numeric",
    .given = kE7Given,
    .slots = kE7Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Answers a;
          a["y_max_decode"] =
              tr.step("ICI under the weight loads while", kYMaxDecode,
                      {in.num("F"), in.num("batch_tokens"), in.num("hbm_to_ici_bw_ratio")});
          return a;
        },
};

constexpr Param kE8Given[] = {
    width("D", 8192, "model width D"),
    width("F", 32768, "MLP width F"),
    count("matmuls_per_layer", 2, "D x F matrices in the layer", {}, 1, 3),
    bytes_per("bytes_per_param", 2, "bytes per weight (bf16)"),
    chips_given(4, "chips the weights are split over"),
    kChipGiven,
    kHbmBw};
constexpr Slot kE8Slots[] = {number("params_per_layer", "count", "parameters of the layer"),
                             number("min_layer_time_s", "s", "lowest time of the layer")};
constexpr Problem kE8{
    .id = "inference.E8",
    .title = "Minimum latency of the toy layer",
    .statement =
        "Appendix A times a layer of {matmuls_per_layer} matrices of D = {D} by F = {F} in bf16 "
        "({bytes_per_param} per weight), split over {n_chips} ({chip}, {hbm_bw_Bps} each). "
        "How many parameters does it hold, and how long does loading them take at best?",
    .kind = "numeric",
    .given = kE8Given,
    .slots = kE8Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Answers a;
          a["params_per_layer"] = tr.step("Parameters", kLayerParams,
                                          {in.num("matmuls_per_layer"), in.num("D"), in.num("F")});
          a["min_layer_time_s"] = tr.step("Loading them over the chips", kTParam,
                                          {a["params_per_layer"], in.num("bytes_per_param"),
                                           in.num("n_chips"), in.num("hbm_bw_Bps")});
          return a;
        },
    .erratum =
        "The text calls the layer about 600M parameters and gets 365 us from that; two "
        "8192 x 32768 matrices hold 537M, which gives 327 us.",
};

constexpr double kE9Ys[] = {4, 8, 16};
constexpr Param kE9Given[] = {
    width("D", 8192, "model width D"),
    count("batch_tokens", 16, "batch B (tokens)", {}, 1, 1e7),
    bytes_per("bytes_per_activation", 1, "bytes per activation (int8)"),
    count("shards", 8, "shards of the model-parallel collective, Y", kE9Ys, 1, 1e5),
    chip_spec(rate("ici_bw_oneway_Bps", "B_per_s", 4.5e10, "ICI bandwidth per link, one way"),
              "ici_bw_oneway"),
    ranged("hop_latency_s", "s", 1e-6, "latency of one ICI hop", 1e-9, 1e-3)};
constexpr Slot kE9Slots[] = {
    number("latency_bound_buffer_threshold_B", "B", "buffer below which it is latency-bound"),
    number("activation_bytes", "B", "bytes of the activation"),
    boolean("activation_is_latency_bound", "that activation is latency-bound"),
    number("y_threshold_for_b16_d8192", "count", "shards above which it is latency-bound")};
constexpr Problem kE9{
    .id = "inference.E9",
    .title = "When activation collectives become latency-bound",
    .statement =
        "An ICI hop costs {hop_latency_s} and a link moves {ici_bw_oneway_Bps} one way. Below what "
        "buffer does a model-parallel collective over {shards} shards turn latency-bound? Is a "
        "[{batch_tokens}, "
        "{D}] activation at {bytes_per_activation} per element below it, and above how many shards "
        "does that activation turn latency-bound?",
    .kind = "numeric",
    .given = kE9Given,
    .slots = kE9Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double W = in.num("ici_bw_oneway_Bps"), t = in.num("hop_latency_s");
          const double B = in.num("batch_tokens"), D = in.num("D");
          const double b = in.num("bytes_per_activation");
          Answers a;
          a["latency_bound_buffer_threshold_B"] =
              tr.step("Latency-bound below", kLatencyBytes, {in.num("shards"), W, t});
          a["activation_bytes"] = tr.step("The activation", kActMsg, {B, D, b});
          a["activation_is_latency_bound"] =
              a["activation_bytes"] < a["latency_bound_buffer_threshold_B"] ? 1 : 0;
          a["y_threshold_for_b16_d8192"] =
              tr.step("Latency-bound once Y exceeds", kYLatency, {B, D, b, W, t});
          return a;
        },
};

constexpr Param kE10Given[] = {
    tokens("seq_len_tokens", 3, "tokens of the new prompt"),
    tokens("shared_prefix_tokens", 2, "tokens it shares with a cached prompt")};
constexpr Slot kE10Slots[] = {number("fraction_of_compute", "ratio", "share of the prefill left")};
constexpr Problem kE10{
    .id = "inference.E10",
    .title = "Compute saved by a shared prefix",
    .statement =
        "The cache keeps the keys and values of the prompt [I, like, dogs]. A new prompt of "
        "{seq_len_tokens}, [I, like, cats], shares its first {shared_prefix_tokens} with it. What "
        "share of the new prompt's prefill is still to do?",
    .kind = "numeric",
    .given = kE10Given,
    .slots = kE10Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double T = in.num("seq_len_tokens"), c = in.num("shared_prefix_tokens");
          if (c >= T)
            fail("shared_prefix_tokens", "the shared prefix must be shorter than the prompt",
                 "out_of_range");
          Answers a;
          a["fraction_of_compute"] = tr.step("Only the tokens after the prefix", kPrefix, {T, c});
          return a;
        },
};

}  // namespace

void add_problems_serving(Registry& r) {
  static constexpr Problem kAll[] = {kE7, kE8, kE9, kE10};
  r.add(kAll);
}

}  // namespace sb::inference
