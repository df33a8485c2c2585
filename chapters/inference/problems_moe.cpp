// The inference chapter's worked problems on its model's 16-expert, top-2 variant (inference.Q5,
// Q6) and on 2D weight-stationary sharding (inference.Q7).
#include <cmath>

#include "chapters/inference/problems.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::inference {
namespace {

constexpr std::array<Param, 2> kExperts = {heads("E", 16, "experts per layer E"),
                                           heads("k", 2, "experts per token k")};

double active_params(const Inputs& in, Trace& tr) {
  return tr.step("Parameters one token uses: $k$ experts", kPActive,
                 {in.num("L"), in.num("k"), in.num("D"), in.num("F"), in.num("H"), in.num("N"),
                  in.num("K"), in.num("n_emb"), in.num("V")});
}

// ---- Q5 -------------------------------------------------------------------------------------

constexpr auto kQ51Given = with(kWorked, kExperts);
constexpr Slot kQ51Slots[] = {
    number("total_params", "count", "parameters stored"),
    number("active_params", "count", "parameters per token"),
    number("total_over_dense_ratio", "ratio", "stored over the dense model's"),
    number("active_over_dense_ratio", "ratio", "per token over the dense model's")};
constexpr Problem kQ51{
    .id = "inference.Q5.1",
    .title = "MoE total and active parameters",
    .statement =
        "Every MLP of the worked problems' model (L = {L}, D = {D}, F = {F}, N = {N}, K = {K}, "
        "H = {H}, V = {V}, shared embeddings) becomes {E} experts of the same size, {k} of them "
        "used per token. How many parameters does the model store and use per token, and how do "
        "both compare with the dense model?",
    .kind = "numeric",
    .given = kQ51Given,
    .slots = kQ51Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Answers a;
          const double dense = book_params(in, tr, "The dense model");
          a["total_params"] = book_params(in, tr, "Stored: every expert", in.num("E"));
          a["active_params"] = active_params(in, tr);
          a["total_over_dense_ratio"] =
              tr.step("Stored over dense", kTotalOverDense, {a["total_params"], dense});
          a["active_over_dense_ratio"] =
              tr.step("Used over dense", kActiveOverDense, {a["active_params"], dense});
          return a;
        },
};

constexpr auto kQ52Given =
    with(kWorked, with(kExperts, std::array<Param, 4>{
                                     kChipGiven, kPeakBf16, kHbmBw,
                                     bytes_per("bytes_per_param", 2, "bytes per weight (bf16)")}));
constexpr Slot kQ52Slots[] = {
    number("b_crit_moe", "tokens", "batch for compute-bound (the book's factor)"),
    number("b_crit_moe_param_ratio", "tokens", "batch for compute-bound (counted parameters)")};
constexpr Problem kQ52{
    .id = "inference.Q5.2",
    .title = "MoE batch needed to be FLOPs-bound",
    .statement =
        "The {E}-expert, top-{k} variant serves in bf16 ({bytes_per_param} per weight) on a "
        "{chip} ({peak_bf16_flops_per_s}, {hbm_bw_Bps}). Every step reads every expert, but a "
        "token multiplies through {k} of them. Above which token batch are its matmuls "
        "compute-bound: with the book's factor E / k, and counting stored over used parameters?",
    .kind = "numeric",
    .given = kQ52Given,
    .slots = kQ52Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double bc = tr.step(
              "Dense critical batch", kBCrit,
              {in.num("bytes_per_param"), in.num("peak_bf16_flops_per_s"), in.num("hbm_bw_Bps")});
          Answers a;
          a["b_crit_moe"] = tr.step("Times E / k", kBCritMoeBook, {bc, in.num("E"), in.num("k")});
          const double total = book_params(in, tr, "Stored", in.num("E"));
          a["b_crit_moe_param_ratio"] = tr.step("Times stored over used parameters", kBCritMoe,
                                                {bc, total, active_params(in, tr)});
          a.slip("b_crit_moe", bc,
                 "That is the dense model's: an MoE reads all E experts each step but uses k, so "
                 "it needs E / k times the batch.");
          return a;
        },
};

constexpr auto kQ53Given =
    with(kWorked, with(kExperts, std::array<Param, 1>{
                                     bytes_per("bytes_per_kv", 1, "bytes per KV element (int8)")}));
constexpr Slot kQ53Slots[] = {number("kv_bytes_per_token_int8", "B", "KV bytes per token"),
                              boolean("same_as_dense", "the same as the dense model's")};
constexpr Problem kQ53{
    .id = "inference.Q5.3",
    .title = "MoE KV cache per token",
    .statement =
        "How many bytes of int8 ({bytes_per_kv} per element) KV cache does one token of the "
        "{E}-expert variant take (L = {L}, K = {K}, H = {H}), and is that the dense model's?",
    .kind = "numeric",
    .given = kQ53Given,
    .slots = kQ53Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double b = in.num("bytes_per_kv");
          tr.note(
              "Experts replace the MLPs only: attention, and with it the cache, is the dense "
              "model's.");
          Answers a;
          a["kv_bytes_per_token_int8"] =
              tr.step("KV bytes per token", kKvTok, {in.num("L"), in.num("K"), in.num("H"), b});
          a["same_as_dense"] = a["kv_bytes_per_token_int8"] ==
                                       kv_bytes_per_token(in.num("L"), in.num("K"), in.num("H"), b)
                                   ? 1
                                   : 0;
          return a;
        },
};

constexpr Slot kQ54Slots[] = {number("flops_per_token", "flop", "FLOPs per token")};
constexpr Problem kQ54{
    .id = "inference.Q5.4",
    .title = "MoE forward-pass FLOPs for T tokens",
    .statement =
        "How many FLOPs does a forward pass of the {E}-expert, top-{k} variant do per token "
        "(attention's own FLOPs left out)? A pass over T tokens does T times that.",
    .kind = "formula",
    .given = kQ51Given,
    .slots = kQ54Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Answers a;
          a["flops_per_token"] =
              tr.step("2 FLOPs per used parameter", kFlopsPerToken, {active_params(in, tr)});
          return a;
        },
};

// ---- Q6 -------------------------------------------------------------------------------------

constexpr auto kQ61Given = with(
    kWorked,
    with(kExperts, std::array<Param, 6>{heads("Y", 8, "mesh axis Y (model)"),
                                        heads("Z", 16, "mesh axis Z (experts)"), kHbmBytes, kHbmBw,
                                        bytes_per("bytes_int8", 1, "bytes per weight in int8"),
                                        bytes_per("bytes_bf16", 2, "bytes per weight in bf16")}));
constexpr Slot kQ61Slots[] = {
    number("weight_bytes_per_chip_int8", "B", "weights per chip, int8", 0.15),
    number("weight_load_time_s_int8", "s", "time to read them, int8", 0.15),
    number("free_hbm_per_chip_B_int8", "B", "HBM left per chip, int8", 0.15),
    number("weight_bytes_per_chip_bf16", "B", "weights per chip, bf16", 0.15),
    number("weight_load_time_s_bf16", "s", "time to read them, bf16", 0.15),
    number("free_hbm_per_chip_B_bf16", "B", "HBM left per chip, bf16", 0.15),
    number("weight_load_time_s_int8_attn_on_y_only", "s", "time, int8, attention split over Y only",
           0.15),
    number("free_hbm_per_chip_B_int8_attn_on_y_only", "B",
           "HBM left, int8, attention split over Y only", 0.15)};

Answers q61(const Inputs& in, Trace& tr) {
  const double L = in.num("L"), D = in.num("D"), Y = in.num("Y"), Z = in.num("Z");
  const double M = in.num("hbm_per_chip_B"), W = in.num("hbm_bw_Bps");
  const double exp = tr.step("Expert parameters", kPExperts, {L, in.num("E"), D, in.num("F")});
  const double att = tr.step("Attention", kPAttn, {L, D, in.num("H"), in.num("N"), in.num("K")});
  const double voc = tr.step("Vocabulary", kPVocab, {in.num("n_emb"), D, in.num("V")});
  const double rest =
      tr.sum("Outside the experts", "P_rest", "params", {{"P_attn", att}, {"P_vocab", voc}});
  const double P = tr.sum("All of it", "P_total", "params", {{"P_exp", exp}, {"P_rest", rest}});
  Answers a;
  for (const char* dt : {"int8", "bf16"}) {
    const std::string d = dt;
    const double b = in.num("bytes_" + d);
    const double w = tr.step("Weights in " + d, kWeightBytes, {P, b});
    const double chip = tr.step("Spread over the $Y Z$ chips", kBytesPerChip, {w, Y * Z});
    a["weight_bytes_per_chip_" + d] = chip;
    a["weight_load_time_s_" + d] = tr.step("Reading them", kTReadWeights, {chip, W});
    a["free_hbm_per_chip_B_" + d] = tr.step("HBM left on a chip", kFreeHbm, {1, M, chip});
  }
  const double split = tr.step("Experts over $Y Z$, attention and vocabulary over $Y$ only",
                               kBytesPerChipSplit, {exp, rest, in.num("bytes_int8"), Y, Z});
  a["weight_load_time_s_int8_attn_on_y_only"] = tr.step("Reading them", kTReadWeights, {split, W});
  a["free_hbm_per_chip_B_int8_attn_on_y_only"] = tr.step("HBM left", kFreeHbm, {1, M, split});
  return a;
}

constexpr Problem kQ61{
    .id = "inference.Q6.1",
    .title = "Expert-sharded weight load time",
    .statement =
        "The {E}-expert variant runs on an 8x16 slice with its expert weights laid out as "
        "W_in[E_Z, D_X, F_Y], Y = {Y}, Z = {Z} (X is an FSDP axis, unused at inference). Each "
        "chip has {hbm_per_chip_B} of HBM at {hbm_bw_Bps}. With the weights in int8 and then in "
        "bf16, spread over all the chips, how many bytes does each chip hold, how long does it "
        "take to read them, and how much HBM is left? And in int8 if attention and the "
        "vocabulary are split over Y only?",
    .kind = "numeric",
    .given = kQ61Given,
    .slots = kQ61Slots,
    .solve = q61,
};

constexpr auto kQ62Given = with(
    kWorked,
    with(kExperts, std::array<Param, 4>{kChipGiven, kHbmBytes,
                                        bytes_per("bytes_int8", 1, "bytes per weight in int8"),
                                        bytes_per("bytes_bf16", 2, "bytes per weight in bf16")}));
constexpr Slot kQ62Slots[] = {number("min_chips_raw_int8", "ratio", "chips' worth of HBM, int8"),
                              number("smallest_slice_chips_int8", "chips", "smallest slice, int8"),
                              number("min_chips_raw_bf16", "ratio", "chips' worth of HBM, bf16"),
                              number("smallest_slice_chips_bf16", "chips", "smallest slice, bf16")};
constexpr Problem kQ62{
    .id = "inference.Q6.2",
    .title = "Smallest slice holding the MoE",
    .statement =
        "On a {chip} ({hbm_per_chip_B} of HBM per chip), how many chips' worth of HBM do the "
        "{E}-expert variant's weights need in int8 and in bf16, caches aside, and what is the "
        "smallest slice that holds them?",
    .kind = "numeric",
    .given = kQ62Given,
    .slots = kQ62Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double M = in.num("hbm_per_chip_B");
          const std::vector<Slice> all = slices(tpu_of(hw::chip(in.text("chip")), "chip"));
          const double P = book_params(in, tr, "Parameters stored", in.num("E"));
          Answers a;
          for (const char* dt : {"int8", "bf16"}) {
            const std::string d = dt;
            const double w = tr.step("Weights in " + d, kWeightBytes, {P, in.num("bytes_" + d)});
            const double n = tr.step("Chips' worth of HBM", kMinChips, {w, 0, M});
            const Slice* s = smallest_slice(all, n);
            if (!s)
              fail("hbm_per_chip_B", "no slice of the chip holds the weights", "out_of_range");
            a["min_chips_raw_" + d] = n;
            a["smallest_slice_chips_" + d] = tr.value(
                "The smallest slice of at least that many (" + s->shape + ")", s->chips, "chips");
          }
          return a;
        },
};

// ---- Q7 -------------------------------------------------------------------------------------

constexpr Param kQ7Given[] = {width("D", 8192, "model width D"),
                              width("F", 32768, "MLP width F (4 D)"),
                              count("n_axes", 3, "axes of the 1D model parallelism", {}, 1, 3)};
constexpr Slot kQ7Slots[] = {
    number("crossover_chips", "chips", "chips above which 2D wins"),
    number("optimal_comm_coefficient", "ratio", "c in T = c B D / (sqrt(n) W_ici)")};
constexpr Problem kQ7{
    .id = "inference.Q7",
    .title = "2D weight-stationary versus 1D model sharding",
    .statement =
        "2D weight-stationary sharding lays an MLP out as W_in[D_X, F_YZ] and runs it in five "
        "steps: AllGather over YZ, the first matmul, AllReduce over X, the second matmul, "
        "ReduceScatter over YZ. With D = {D} and F = {F} in bf16, what is its best communication "
        "time on n chips, as c B D / (sqrt(n) W_ici), and above how many chips does it beat 1D "
        "model parallelism over {n_axes} {n_axes|axis|axes}?",
    .kind = "formula",
    .given = kQ7Given,
    .slots = kQ7Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double D = in.num("D"), F = in.num("F");
          tr.note(
              "$T_{2D} = 2 B D / (X W_{ici}) + 4 B F / (Y Z W_{ici})$ with $X Y Z = n$ is "
              "smallest at $X = \\sqrt{n D / (2 F)}$.");
          Answers a;
          a["optimal_comm_coefficient"] = tr.step("At the best X", kWsCoefficient, {F, D});
          a["crossover_chips"] = tr.step("Against $4 B D / (n_{axes} W_{ici})$", kWsCrossover,
                                         {F, D, in.num("n_axes")});
          return a;
        },
};

}  // namespace

void add_problems_moe(Registry& r) {
  static constexpr Problem kAll[] = {kQ51, kQ52, kQ53, kQ54, kQ61, kQ62, kQ7};
  r.add(kAll);
}

}  // namespace sb::inference
