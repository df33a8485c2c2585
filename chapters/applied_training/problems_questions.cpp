// The case study's worked problems (Q1, Q2) (ids, slot names and units as in
// shared/book/problems/applied-training.json); every expected answer is computed by the models
// (this chapter's, training's, transformers') from the problem's own inputs.
#include <cmath>
#include <string>

#include "chapters/applied_training/model.hpp"
#include "chapters/applied_training/problems.hpp"
#include "chapters/training/model.hpp"
#include "chapters/transformers/model.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::applied_training {
namespace {

namespace tf = transformers;
namespace tr = training;

// ---- Worked problems --------------------------------------------------------------------------

constexpr double kQ1Pods[] = {2, 4, 8};
constexpr Param kQ1Given[] = {
    kF70,
    tokens("tokens_per_batch", 4194304, "global batch (4 x 2^20)", kPow2Batches),
    count("pods", 4, "pods", kQ1Pods, 1, 1e4),
    chip_count("chips_per_pod", 8960, "chips per pod"),
    tokens("alpha", 2550, "ICI intensity alpha = C / W_ici"),
    count("M_X", 2, "ICI axes FSDP spans", {}, 1, 3),
    count("M_Y", 1, "ICI axes TP spans", {}, 1, 3),
    rate("dcn_bw_per_chip_Bps", "B_per_s", 6.25e9, "DCN egress per chip"),
    kPeak};
constexpr Slot kQ1Slots[] = {number("per_chip_batch", "tokens", "batch per chip"),
                             number("mixed_threshold", "tokens", "FSDP + TP floor per chip"),
                             number("per_pod_batch", "tokens", "batch per pod"),
                             number("dcn_threshold", "tokens", "DCN floor per pod"),
                             number("x_opt_per_pod", "count", "X_opt within a pod")};
constexpr Problem kQ1{
    .id = "applied-training.Q1",
    .title = "LLaMA 3-70B on four pods",
    .statement =
        "Keep the batch at {tokens_per_batch} but train on {pods} pods of {chips_per_pod}: DP "
        "across pods over DCN ({dcn_bw_per_chip_Bps} per chip, chips of "
        "{peak_bf16_flops_per_s}), FSDP over {M_X} {M_X|axis|axes} and TP over {M_Y} "
        "{M_Y|axis|axes} inside each pod (F = "
        "{F}, alpha = {alpha}). What batch does each chip get, against which floor? What batch "
        "does each pod get, against which DCN floor? Where is X_opt inside a pod?",
    .kind = "numeric",
    .given = kQ1Given,
    .slots = kQ1Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const double F = in.num("F"), B = in.num("tokens_per_batch"), pods = in.num("pods"),
                       pod = in.num("chips_per_pod"), alpha = in.num("alpha"), MX = in.num("M_X"),
                       MY = in.num("M_Y");
          Answers a;
          const double chips = t.step("Chips", tr::kTotalChips, {pod, pods});
          a["per_chip_batch"] = t.step("Per chip", tr::kPerChipBatch, {B, chips});
          a["mixed_threshold"] = t.step("Per-chip floor", tr::kMixedFloor, {alpha, MX, MY, F});
          a["per_pod_batch"] = t.step("Per pod", tr::kPerPodBatch, {B, pods});
          a["dcn_threshold"] =
              t.step("DCN floor", tr::kAlphaDcn,
                     {in.num("peak_bf16_flops_per_s"), in.num("dcn_bw_per_chip_Bps")});
          a["x_opt_per_pod"] =
              t.step("$X_{opt}$ within a pod", tr::kXOpt, {a["per_pod_batch"], F, MX, MY, pod});
          a.slip("mixed_threshold", tr::mixed_min_batch_per_chip_additive(alpha, F, MX, MY),
                 kSlipAdditive);
          a.slip("x_opt_per_pod", tr::x_opt(F, a["per_pod_batch"], pod, MX, MY), kSlipInverted);
          t.note(a["per_chip_batch"] > a["mixed_threshold"]
                     ? "Just above the floor: FSDP x TP stays compute-bound inside each pod."
                     : "Below the floor: even the best FSDP x TP split is comms-bound.");
          return a;
        },
};

constexpr Param kL405 = width("L", 126, "layers L");
constexpr Param kD405 = width("D", 16384, "model width D");
constexpr Param kF405 = width("F", 53248, "MLP width F");
constexpr Param kN405 = width("N", 128, "query heads N");
constexpr Param kK405 = width("K", 8, "key/value heads K");
constexpr Param kH405 = width("H", 128, "head dimension H");
constexpr Param kV405 = width("V", 128256, "vocabulary V");
constexpr double kQ2aTokens[] = {1e12, 2e12, 5e12, 15e12, 18e12, 30e12};
constexpr Param kQ2aGiven[] = {kL405,
                               kD405,
                               kF405,
                               kN405,
                               kK405,
                               kH405,
                               kV405,
                               kMlp,
                               kEmbeddings,
                               kNorms,
                               tokens("tokens", 15e12, "training tokens", kQ2aTokens)};
constexpr Slot kQ2aSlots[] = {
    decimal_prefixes(number("ffw_params", "count", "MLP parameters")),
    decimal_prefixes(number("attention_params", "count", "attention parameters")),
    decimal_prefixes(number("vocab_params", "count", "vocabulary parameters")),
    decimal_prefixes(number("total_params", "count", "total parameters")),
    number("flops_per_token", "flop", "training FLOPs per token"),
    number("total_flops", "flop", "training FLOPs")};
constexpr Problem kQ2a{
    .id = "applied-training.Q2.a",
    .title = "LLaMA 3-405B params and FLOPs",
    .statement =
        "LLaMA 3.1-405B (from its public config): {L} layers, D = {D}, F = {F}, {N} query and "
        "{K} key/value heads of {H}, a vocabulary of {V}, a {mlp} MLP, {embeddings} embeddings, "
        "norms {norms}. How many parameters are in its MLPs, attention and vocabulary matrices, "
        "and in total? How many training FLOPs per token, and for {tokens}?",
    .kind = "numeric",
    .given = kQ2aGiven,
    .slots = kQ2aSlots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const tf::CountSteps n = tf::count_steps(t, config_of(in));
          Answers a;
          a["ffw_params"] = n.mlp;
          a["attention_params"] = n.attn;
          a["vocab_params"] = n.vocab;
          a["total_params"] = n.total;
          a["flops_per_token"] = t.step("FLOPs per token", tf::kMatmulFlopsPerToken, {n.total});
          a["total_flops"] = tf::six_p_step(t, "Training FLOPs", n.total, in.num("tokens"));
          return a;
        },
};

constexpr double kQ2bPods[] = {4, 8, 16};
constexpr Param kQ2bGiven[] = {
    kF405,
    count("pods", 8, "pods", kQ2bPods, 1, 1e4),
    chip_count("chips_per_pod", 8960, "chips per pod"),
    tokens("tokens_per_batch_assumed", 4194304, "global batch (4 x 2^20)", kPow2Batches),
    tokens("alpha", 2550, "ICI intensity alpha = C / W_ici"),
    count("M_X", 2, "ICI axes FSDP spans", {}, 1, 3),
    count("M_Y", 1, "ICI axes TP spans", {}, 1, 3)};
constexpr Slot kQ2bSlots[] = {number("mixed_threshold", "tokens", "FSDP + TP floor per chip"),
                              number("min_global_batch", "tokens", "smallest compute-bound batch"),
                              number("per_chip_batch_4M", "tokens", "batch per chip"),
                              boolean("comms_bound_4M", "comms-bound at this batch?"),
                              number("tp_limit", "count", "largest compute-bound TP degree"),
                              number("per_pod_batch_4M", "tokens", "batch per pod")};
constexpr Problem kQ2b{
    .id = "applied-training.Q2.b",
    .title = "LLaMA 3-405B on eight pods",
    .statement =
        "Train LLaMA 3.1-405B (F = {F}) on {pods} pods of {chips_per_pod}, FSDP over {M_X} "
        "{M_X|axis|axes} "
        "and TP over {M_Y} {M_Y|axis|axes} inside each pod, alpha = {alpha}. What batch per chip "
        "does FSDP + TP "
        "need, and what global batch is that? With {tokens_per_batch_assumed}, what does each "
        "chip get, and is that comms-bound? Up to which degree does TP stay compute-bound, and "
        "what batch does each pod get?",
    .kind = "numeric",
    .given = kQ2bGiven,
    .slots = kQ2bSlots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const double F = in.num("F"), pods = in.num("pods"), pod = in.num("chips_per_pod"),
                       B = in.num("tokens_per_batch_assumed"), alpha = in.num("alpha"),
                       MX = in.num("M_X"), MY = in.num("M_Y");
          Answers a;
          const double N = t.step("Chips", tr::kTotalChips, {pod, pods});
          a["mixed_threshold"] = t.step("Per-chip floor", tr::kMixedFloor, {alpha, MX, MY, F});
          a["min_global_batch"] =
              t.step("Smallest batch", tr::kMixedMinBatch, {N, alpha, MX, MY, F});
          a["per_chip_batch_4M"] = t.step("Per chip", tr::kPerChipBatch, {B, N});
          a["comms_bound_4M"] = a["per_chip_batch_4M"] > a["mixed_threshold"] ? 0 : 1;
          a["tp_limit"] = t.step("TP limit", tr::kTpMaxDegree, {MY, F, alpha});
          a["per_pod_batch_4M"] = t.step("Per pod", tr::kPerPodBatch, {B, pods});
          const double additive = tr::mixed_min_batch_per_chip_additive(alpha, F, MX, MY);
          a.slip("mixed_threshold", additive, kSlipAdditive);
          a.slip("min_global_batch", N * additive, kSlipAdditive);
          return a;
        },
};

constexpr Problem kQuestionsProblems[] = {kQ1, kQ2a, kQ2b};

}  // namespace

void add_problems_questions(Registry& r) { r.add(kQuestionsProblems); }

}  // namespace sb::applied_training
