// The case study's questions on counting parameters, FLOPs and memory (IQ1-IQ6) (ids, slot names
// and units as in shared/book/problems/applied-training.json); every expected answer is computed by
// the models (this chapter's, training's, transformers') from the problem's own inputs.
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

// ---- Counting parameters and FLOPs -------------------------------------------------------------

constexpr double kIQ1Ls[] = {32, 80, 126};
constexpr double kIQ1Vs[] = {32000, 128256};
constexpr double kIQ1Ds[] = {4096, 5120, 8192, 16384};
constexpr double kIQ1Fs[] = {14336, 28672, 53248};
constexpr Param kIQ1Given[] = {width("L", 80, "layers L", kIQ1Ls),
                               width("D", 8192, "model width D", kIQ1Ds),
                               width("F", 28672, "MLP width F", kIQ1Fs),
                               kN70,
                               kK70,
                               kH70,
                               width("V", 128256, "vocabulary V", kIQ1Vs),
                               kMlp,
                               kEmbeddings,
                               kNorms};
constexpr Slot kIQ1Slots[] = {
    decimal_prefixes(number("ffw_params", "count", "MLP parameters")),
    decimal_prefixes(number("vocab_params", "count", "vocabulary parameters")),
    decimal_prefixes(number("attention_params", "count", "attention parameters")),
    decimal_prefixes(number("total_params", "count", "total parameters")),
    number("mlp_fraction", "ratio", "MLP share of the total")};
constexpr Problem kIQ1{
    .id = "applied-training.IQ1",
    .title = "LLaMA 3-70B parameter count",
    .statement =
        "A LLaMA 3-style model has {L} layers, D = {D}, F = {F}, {N} query heads and {K} key/value "
        "heads of dimension {H}, a vocabulary of {V}, a {mlp} MLP and {embeddings} embeddings "
        "(norms {norms}). How many parameters are in the MLPs, the vocabulary matrices and "
        "attention, how many in total, and what share of them is MLP?",
    .kind = "numeric",
    .given = kIQ1Given,
    .slots = kIQ1Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const tf::Config c = config_of(in);
          const tf::CountSteps n = tf::count_steps(t, c);
          Answers a;
          a["ffw_params"] = n.mlp;
          a["vocab_params"] = n.vocab;
          a["attention_params"] = n.attn;
          a["total_params"] = n.total;
          a["mlp_fraction"] = t.step("MLP share", kMlpShare, {n.mlp, n.total});
          return a;
        },
    .hint = "Grouped-query attention: W_K and W_V have K heads, W_Q and W_O have N.",
};

constexpr Param kIQ2Given[] = {kL70, kD70, kF70,        kN70,   kK70,  kH70,
                               kV70, kMlp, kEmbeddings, kNorms, kPeak, kP70};
constexpr Slot kIQ2Slots[] = {
    number("flops_per_token", "flop", "training FLOPs per token"),
    number("time_per_token_one_chip", "s", "time per token on one chip", 0.09)};
constexpr Problem kIQ2{
    .id = "applied-training.IQ2",
    .title = "Training FLOPs per token",
    .statement =
        "LLaMA 3-70B ({L} layers, D = {D}, F = {F}, {N} query and {K} key/value heads of {H}, "
        "vocabulary {V}, {mlp} MLP, {embeddings} embeddings, norms {norms}). How many FLOPs does "
        "training take per token, and how long would one chip at {peak_bf16_flops_per_s} need "
        "for it at peak?",
    .kind = "numeric",
    .given = kIQ2Given,
    .slots = kIQ2Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const double P = params_of(in, t), C = in.num("peak_bf16_flops_per_s");
          const double f = t.step("FLOPs per token", tf::kMatmulFlopsPerToken, {P});
          Answers a{{"flops_per_token", f},
                    {"time_per_token_one_chip",
                     t.step("One chip at peak", tr::kTrainTime, {f, 1, C, 1})}};
          const double fwd = tf::six_p_tokens(P, 1, 2);
          a.slip("flops_per_token", fwd, kSlipForward);
          a.slip("time_per_token_one_chip", tr::train_time(fwd, 1, C, 1), kSlipForward);
          return a;
        },
    .hint = "6 FLOPs per parameter per token: 2 forward, 4 backward.",
};

constexpr double kIQ3Tokens[] = {1e12, 2e12, 5e12, 15e12, 18e12, 30e12};
constexpr Param kIQ3Given[] = {width("L", 80, "layers L", kIQ1Ls),
                               kD70,
                               kF70,
                               kN70,
                               kK70,
                               kH70,
                               kV70,
                               kMlp,
                               kEmbeddings,
                               kNorms,
                               tokens("tokens", 15e12, "training tokens", kIQ3Tokens),
                               kPeak,
                               kP70};
constexpr Slot kIQ3Slots[] = {number("total_flops", "flop", "training FLOPs"),
                              number("time_one_chip", "s", "time on one chip at peak")};
constexpr Problem kIQ3{
    .id = "applied-training.IQ3",
    .title = "Total pre-training FLOPs",
    .statement =
        "LLaMA 3-70B ({L} layers, D = {D}, F = {F}, {N} query and {K} key/value heads of {H}, "
        "vocabulary {V}) trains on {tokens}. How many FLOPs is that, and how long would a single "
        "chip at {peak_bf16_flops_per_s} take at peak?",
    .kind = "numeric",
    .given = kIQ3Given,
    .slots = kIQ3Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const double P = params_of(in, t), T = in.num("tokens"),
                       C = in.num("peak_bf16_flops_per_s");
          const double f = tf::six_p_step(t, "Training FLOPs", P, T);
          const double s = t.step("One chip", tr::kTrainTime, {f, 1, C, 1});
          t.note("That is " + units::number(s / (365.25 * 86400), 3) + " years.");
          Answers a{{"total_flops", f}, {"time_one_chip", s}};
          const double fwd = tf::six_p_tokens(P, T, 2);
          a.slip("total_flops", fwd, kSlipForward);
          a.slip("time_one_chip", tr::train_time(fwd, 1, C, 1), kSlipForward);
          return a;
        },
};

constexpr double kIQ4Mfus[] = {0.3, 0.4, 0.5};
constexpr double kIQ4Chips[] = {8960, 17920, 35840};
constexpr Param kIQ4Given[] = {kL70,
                               kD70,
                               kF70,
                               kN70,
                               kK70,
                               kH70,
                               kV70,
                               kMlp,
                               kEmbeddings,
                               kNorms,
                               tokens("tokens", 15e12, "training tokens", kTrainTokens),
                               chip_count("chips", 8960, "chips (a full v5p pod)", kIQ4Chips),
                               kPeak,
                               mfu_given(0.4, kIQ4Mfus),
                               kP70};
constexpr Slot kIQ4Slots[] = {number("train_time", "s", "training time", 0.025)};
constexpr Problem kIQ4{
    .id = "applied-training.IQ4",
    .title = "Training time on one v5p pod",
    .statement =
        "LLaMA 3-70B ({L} layers, D = {D}, F = {F}, {N} query and {K} key/value heads of {H}, "
        "vocabulary {V}) trains on {tokens} with {chips} of {peak_bf16_flops_per_s} at {mfu} "
        "MFU. How long does it take, assuming it stays compute-bound?",
    .kind = "numeric",
    .given = kIQ4Given,
    .slots = kIQ4Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const double P = params_of(in, t), T = in.num("tokens"), N = in.num("chips"),
                       C = in.num("peak_bf16_flops_per_s"), mfu = in.num("mfu");
          const double f = tf::six_p_step(t, "Training FLOPs", P, T);
          const double s = t.step("Training time", tr::kTrainTime, {f, N, C, mfu});
          t.note("That is " + units::number(s / 86400, 3) + " days.");
          Answers a{{"train_time", s}};
          a.slip("train_time", tr::train_time(f, N, C, 1), kSlipNoMfu);
          a.slip("train_time", tr::train_time(tf::six_p_tokens(P, T, 2), N, C, mfu), kSlipForward);
          return a;
        },
};

constexpr double kIQ5Batches[] = {2e6, 4e6, 8e6};
constexpr double kIQ5Ckpts[] = {2, 4, 12};
constexpr Param kIQ5Given[] = {
    kL70,
    kD70,
    kF70,
    kN70,
    kK70,
    kH70,
    kV70,
    kMlp,
    kEmbeddings,
    kNorms,
    tokens("tokens_per_batch", 4e6, "global batch (the chapter's memory arithmetic: 4e6)",
           kIQ5Batches),
    count("checkpoints_per_layer", 4, "bf16 [batch, D] checkpoints per layer", kIQ5Ckpts, 0, 1000),
    per_param("bytes_per_param", 2, "bytes per bf16 weight"),
    per_param("opt_bytes_per_param", 8, "bytes of Adam state per parameter (fp32 m and v)"),
    memory("hbm_per_chip_B", 96e9, "HBM per chip (v5p)"),
    kPeak,
    mfu_given(0.4, kIQ4Mfus),
    tokens("tokens", 15e12, "training tokens"),
    kP70};
constexpr Slot kIQ5Slots[] = {
    decimal_prefixes(number("param_bytes", "B", "bf16 parameters")),
    decimal_prefixes(number("optimizer_bytes", "B", "optimizer state")),
    decimal_prefixes(number("checkpoint_bytes", "B", "gradient checkpoints")),
    decimal_prefixes(number("total_bytes", "B", "total")),
    number("min_chips", "chips", "fewest chips"),
    number("train_time_on_min_chips", "s", "training time on them")};
constexpr Problem kIQ5{
    .id = "applied-training.IQ5",
    .title = "Fewest chips that hold training state",
    .statement =
        "Train LLaMA 3-70B ({L} layers, D = {D}, F = {F}, {N} query and {K} key/value heads of "
        "{H}, vocabulary {V}) with a batch of {tokens_per_batch}: {bytes_per_param} per weight, "
        "{opt_bytes_per_param} of Adam state per parameter, and {checkpoints_per_layer} bf16 "
        "checkpoints of [batch, D] per layer. How many bytes do weights, optimizer and "
        "checkpoints take, how many chips with {hbm_per_chip_B} of HBM hold them at the least, "
        "and how long would training on {tokens} take on that many chips ({peak_bf16_flops_per_s}, "
        "{mfu} MFU)?",
    .kind = "numeric",
    .given = kIQ5Given,
    .slots = kIQ5Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const double P = params_of(in, t), D = in.num("D"), L = in.num("L"),
                       B = in.num("tokens_per_batch"), c = in.num("checkpoints_per_layer");
          TrainingState s = training_state(P, B, D, L, c);
          s.params = tf::param_bytes(P, in.num("bytes_per_param"));
          s.optimizer = tf::optimizer_bytes(P, in.num("opt_bytes_per_param"));
          Answers a;
          a["param_bytes"] =
              t.product("Weights", "M_params", "B", {{"b_w", in.num("bytes_per_param")}, {"P", P}});
          a["optimizer_bytes"] =
              t.product("Adam", "M_opt", "B", {{"b_opt", in.num("opt_bytes_per_param")}, {"P", P}});
          a["checkpoint_bytes"] = t.step("Checkpoints", kCheckpointBytes, {D, B, c, L});
          a["total_bytes"] =
              t.sum("In total", "M", "B",
                    {{"M_w", s.params}, {"M_opt", s.optimizer}, {"A", a["checkpoint_bytes"]}});
          const double hbm = in.num("hbm_per_chip_B");
          a["min_chips"] = t.step("Fewest chips", kMinChips, {a["total_bytes"], hbm});
          const double f = tf::six_p_tokens(P, in.num("tokens"));
          a["train_time_on_min_chips"] =
              t.step("Training time on them", tr::kTrainTime,
                     {f, a["min_chips"], in.num("peak_bf16_flops_per_s"), in.num("mfu")});
          a.slip("total_bytes", s.params + a["checkpoint_bytes"], kSlipNoAdam);
          a.slip("min_chips", min_chips(s.params + a["checkpoint_bytes"], hbm), kSlipNoAdam);
          a.slip("train_time_on_min_chips",
                 tr::train_time(f, a["min_chips"], in.num("peak_bf16_flops_per_s"), 1), kSlipNoMfu);
          return a;
        },
    .hint =
        "Checkpoints dominate: 2 bytes x D x batch tokens, for each of c checkpoints in each "
        "layer.",
};

constexpr double kIQ6Chips[] = {4480, 8960, 17920};
constexpr Param kIQ6Given[] = {
    kL70,
    kD70,
    kF70,
    kN70,
    kK70,
    kH70,
    kV70,
    kMlp,
    kEmbeddings,
    kNorms,
    tokens("tokens_per_batch", 4e6, "global batch (4e6, as in the chapter's memory arithmetic)",
           kIQ5Batches),
    count("checkpoints_per_layer", 4, "checkpoints per layer (the chapter's baseline)", {}, 0,
          1000),
    count("checkpoints_per_layer_aggressive", 12,
          "checkpoints per layer (a more aggressive policy)", {}, 0, 1000),
    chip_count("chips", 8960, "chips (a full v5p pod)", kIQ6Chips),
    per_param("bytes_per_param", 2, "bytes per bf16 weight"),
    per_param("opt_bytes_per_param", 8, "bytes of Adam state per parameter"),
    kP70};
constexpr Slot kIQ6Slots[] = {
    decimal_prefixes(number("bytes_per_chip", "B", "per chip, baseline checkpoints")),
    decimal_prefixes(number("bytes_per_chip_12_ckpt", "B", "per chip, aggressive", 0.03))};
constexpr Problem kIQ6{
    .id = "applied-training.IQ6",
    .title = "Memory per chip on a full pod",
    .statement =
        "Spread LLaMA 3-70B's training state ({L} layers, D = {D}, F = {F}, {N} query and {K} "
        "key/value heads of {H}, vocabulary {V}; {bytes_per_param} per weight and "
        "{opt_bytes_per_param} of Adam state per parameter; a batch of {tokens_per_batch}) evenly "
        "over {chips}. How many bytes sit on each chip with {checkpoints_per_layer} checkpoints "
        "per layer, and with {checkpoints_per_layer_aggressive}?",
    .kind = "numeric",
    .given = kIQ6Given,
    .slots = kIQ6Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const double P = params_of(in, t), D = in.num("D"), L = in.num("L"),
                       B = in.num("tokens_per_batch"), N = in.num("chips");
          auto per_chip = [&](double c, const char* what) {
            TrainingState s = training_state(P, B, D, L, c);
            s.params = tf::param_bytes(P, in.num("bytes_per_param"));
            s.optimizer = tf::optimizer_bytes(P, in.num("opt_bytes_per_param"));
            const double A =
                t.step(std::string("Checkpoints with ") + what, kCheckpointBytes, {D, B, c, L});
            const double M = t.sum(std::string("State with ") + what, "M", "B",
                                   {{"M_w", s.params}, {"M_opt", s.optimizer}, {"A", A}});
            return t.step("Per chip", kBytesPerChip, {M, N});
          };
          return Answers{
              {"bytes_per_chip", per_chip(in.num("checkpoints_per_layer"), "the baseline")},
              {"bytes_per_chip_12_ckpt",
               per_chip(in.num("checkpoints_per_layer_aggressive"), "aggressive checkpoints")}};
        },
    .erratum =
        "The book rounds the aggressive case up to 8 GB; its own formula gives 7.1 GB per "
        "chip.",
};

constexpr Problem kCountingProblems[] = {kIQ1, kIQ2, kIQ3, kIQ4, kIQ5, kIQ6};

}  // namespace

void add_problems_counting(Registry& r) { r.add(kCountingProblems); }

}  // namespace sb::applied_training
