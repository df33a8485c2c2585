// The case study's questions (the click-to-reveal ones in the text, IQ1-IQ9) and its worked
// problems (Q1, Q2). Ids, slot names and units are the catalogue's
// (shared/book/problems/applied-training.json); every expected answer is computed by the models
// (this chapter's, training's, transformers') from the problem's own inputs.
#include <cmath>
#include <string>

#include "chapters/applied_training/model.hpp"
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

// Givens in ranges that keep every answer a finite number: rates (FLOPs/s, B/s) from 1 to 1e20,
// memory sizes up to 1e15 B, bytes per parameter 1/8 to 64, parameter counts up to 1e15, MFU
// from 0.1% to 100%, tokens up to 1e16.
constexpr Param ranged(Text name, Text unit, double def, Text doc, double lo, double hi,
                       Variants v = {}) {
  return with_variants(num(name, unit, def, doc, lo, hi), v);
}
constexpr Param rate(Text name, Text unit, double def, Text doc, Variants v = {}) {
  return ranged(name, unit, def, doc, 1, 1e20, v);
}
constexpr Param memory(Text name, double def, Text doc, Variants v = {}) {
  return ranged(name, "B", def, doc, 1, 1e15, v);
}
constexpr Param per_param(Text name, double def, Text doc, Variants v = {}) {
  return ranged(name, "B", def, doc, 0.125, 64, v);
}
constexpr Param param_count(Text name, double def, Text doc, Variants v = {}) {
  return ranged(name, "count", def, doc, 1, 1e15, v);
}
constexpr Param mfu_given(double def, Variants v = {}) {
  return ranged("mfu", "ratio", def, "model FLOPs utilisation", 1e-3, 1, v);
}
constexpr Param tokens(Text name, double def, Text doc, Variants v = {}) {
  return ranged(name, "tokens", def, doc, 1, 1e16, v);
}
constexpr Param chip_count(Text name, double def, Text doc, Variants v = {}) {
  Param p = count(name, def, doc, v, 1, 1e8);
  p.unit = "chips";
  return p;
}
constexpr Param width(Text name, double def, Text doc, Variants v = {}) {
  return count(name, def, doc, v, 1, 1e7);
}

// LLaMA 3-70B as the chapter's table gives it (and LLaMA 3.1-405B from its public config).
constexpr Param kL70 = width("L", 80, "layers L");
constexpr Param kD70 = width("D", 8192, "model width D");
constexpr Param kF70 = width("F", 28672, "MLP width F");
constexpr Param kN70 = width("N", 64, "query heads N");
constexpr Param kK70 = width("K", 8, "key/value heads K");
constexpr Param kH70 = width("H", 128, "head dimension H");
constexpr Param kV70 = width("V", 128256, "vocabulary V");
constexpr Param kMlp =
    choice("mlp", "gated", "gated|plain", "MLP: gated (3 matrices) or plain (2)");
constexpr Param kEmbeddings = choice("embeddings", "untied", "untied|tied",
                                     "input and output embeddings: separate (untied) or shared");
constexpr Param kNorms = choice("norms", "left out", "left out|counted",
                                "norm vectors: left out, as the chapter's table does, or counted");
constexpr Param kPeak =
    rate("peak_bf16_flops_per_s", "flop_per_s", 4.59e14, "peak bf16 FLOPs/s per chip, C");
constexpr Param kP70 =
    param_count("params_book", 70e9, "P as the chapter rounds it (the 70B of the name)");

tf::Config config_of(const Inputs& in) {
  tf::Config c;
  c.L = in.num("L");
  c.D = in.num("D");
  c.F = in.num("F");
  c.N = in.num("N");
  c.K = in.num("K");
  c.H = in.num("H");
  c.V = in.num("V");
  c.gated = in.text("mlp") == "gated";
  c.tied = in.text("embeddings") == "tied";
  c.norms_per_layer = in.text("norms") == "counted" ? 2 : 0;
  return tf::validated(c);
}

// P from the configuration, with its derivation.
double params_of(const Inputs& in, Trace& t) {
  const tf::Config c = config_of(in);
  const tf::Params p = tf::params(c);
  return t.step(
      "Parameters", "L (n D F + 2 D (N + K) H) + 2 D V",
      "# \\cdot (# \\cdot # \\cdot # + 2 \\cdot # (# + #) \\cdot #) + 2 \\cdot # \\cdot #",
      {c.L, c.gated ? 3.0 : 2.0, c.D, c.F, c.D, c.N, c.K, c.H, c.D, c.V}, p.total, "count");
}

// ---- Counting parameters and FLOPs -------------------------------------------------------------

constexpr double kIQ1Ls[] = {32, 80, 126};
constexpr double kIQ1Vs[] = {32000, 128256};
constexpr Param kIQ1Given[] = {
    width("L", 80, "layers L", kIQ1Ls),         kD70, kF70,        kN70,  kK70, kH70,
    width("V", 128256, "vocabulary V", kIQ1Vs), kMlp, kEmbeddings, kNorms};
constexpr Slot kIQ1Slots[] = {number("ffw_params", "count", "MLP parameters"),
                              number("vocab_params", "count", "vocabulary parameters"),
                              number("attention_params", "count", "attention parameters"),
                              number("total_params", "count", "total parameters"),
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
          const tf::Params p = tf::params(c);
          const double mats = c.gated ? 3 : 2;
          Answers a;
          a["ffw_params"] = t.step("MLP", "L \\cdot n D F", "# \\cdot # \\cdot # \\cdot #",
                                   {c.L, mats, c.D, c.F}, p.mlp, "count");
          a["vocab_params"] = t.step("Vocabulary", c.tied ? "D V" : "2 D V",
                                     c.tied ? "# \\cdot #" : "2 \\cdot # \\cdot #", {c.D, c.V},
                                     p.embed + p.unembed, "count");
          a["attention_params"] = t.step("Attention", "L \\cdot 2 D (N + K) H",
                                         "# \\cdot 2 \\cdot # \\cdot (# + #) \\cdot #",
                                         {c.L, c.D, c.N, c.K, c.H}, p.attn, "count");
          a["total_params"] = p.total;
          if (p.norms > 0)
            t.step("Norms", "2 D L", "2 \\cdot # \\cdot #", {c.D, c.L}, p.norms, "count");
          a["mlp_fraction"] = t.step("MLP share", "\\text{MLP} / P", "\\frac{#}{#}",
                                     {p.mlp, p.total}, p.mlp / p.total, "ratio");
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
          const double f =
              t.step("FLOPs per token", "6 P", "6 \\cdot #", {P}, tf::six_p_tokens(P, 1), "flop");
          return Answers{
              {"flops_per_token", f},
              {"time_per_token_one_chip", t.step("One chip at peak", "6P / C", "\\frac{#}{#}",
                                                 {f, C}, tr::train_time(f, 1, C, 1), "s")}};
        },
    .hint = "6 FLOPs per parameter per token: 2 forward, 4 backward.",
};

constexpr double kIQ3Tokens[] = {2e12, 15e12, 30e12};
constexpr Param kIQ3Given[] = {kL70,
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
          const double f = t.step("Training FLOPs", "6 P \\cdot \\text{tokens}",
                                  "6 \\cdot # \\cdot #", {P, T}, tf::six_p_tokens(P, T), "flop");
          const double s = t.step("One chip", "\\text{FLOPs} / C", "\\frac{#}{#}", {f, C},
                                  tr::train_time(f, 1, C, 1), "s");
          t.note("That is " + units::number(s / (365.25 * 86400), 3) + " years.");
          return Answers{{"total_flops", f}, {"time_one_chip", s}};
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
                               tokens("tokens", 15e12, "training tokens", kIQ3Tokens),
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
          const double f = tf::six_p_tokens(P, T);
          const double s = t.step(
              "Training time", "\\frac{6 P \\cdot \\text{tokens}}{N C \\cdot MFU}",
              "\\frac{#}{# \\cdot # \\cdot #}", {f, N, C, mfu}, tr::train_time(f, N, C, mfu), "s");
          t.note("That is " + units::number(s / 86400, 3) + " days.");
          return Answers{{"train_time", s}};
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
constexpr Slot kIQ5Slots[] = {number("param_bytes", "B", "bf16 parameters"),
                              number("optimizer_bytes", "B", "optimizer state"),
                              number("checkpoint_bytes", "B", "gradient checkpoints"),
                              number("total_bytes", "B", "total"),
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
          a["param_bytes"] = t.step("Weights", "b_w P", "# \\cdot #",
                                    {in.num("bytes_per_param"), P}, s.params, "B");
          a["optimizer_bytes"] = t.step("Adam", "b_{opt} P", "# \\cdot #",
                                        {in.num("opt_bytes_per_param"), P}, s.optimizer, "B");
          a["checkpoint_bytes"] =
              t.step("Checkpoints", "2 D \\cdot \\text{batch} \\cdot c L",
                     "2 \\cdot # \\cdot # \\cdot # \\cdot #", {D, B, c, L}, s.checkpoints, "B");
          a["total_bytes"] = s.total();
          const double hbm = in.num("hbm_per_chip_B");
          a["min_chips"] =
              t.step("Fewest chips", "\\lceil \\text{total} / HBM \\rceil", "\\lceil # / # \\rceil",
                     {s.total(), hbm}, min_chips(s.total(), hbm), "chips");
          const double f = tf::six_p_tokens(P, in.num("tokens"));
          a["train_time_on_min_chips"] = t.step(
              "Training time on them", "\\frac{6 P \\cdot \\text{tokens}}{N C \\cdot MFU}",
              "\\frac{#}{# \\cdot # \\cdot #}",
              {f, a["min_chips"], in.num("peak_bf16_flops_per_s"), in.num("mfu")},
              tr::train_time(f, a["min_chips"], in.num("peak_bf16_flops_per_s"), in.num("mfu")),
              "s");
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
constexpr Slot kIQ6Slots[] = {number("bytes_per_chip", "B", "per chip, baseline checkpoints"),
                              number("bytes_per_chip_12_ckpt", "B", "per chip, aggressive", 0.03)};
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
            t.step(std::string("State with ") + what,
                   "2P + 8P + 2 D \\cdot \\text{batch} \\cdot c L", "# + # + #",
                   {s.params, s.optimizer, s.checkpoints}, s.total(), "B");
            return t.step("Per chip", "\\text{state} / N", "\\frac{#}{#}", {s.total(), N},
                          bytes_per_chip(s.total(), N), "B");
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

// ---- How to shard LLaMA 3-70B -----------------------------------------------------------------

constexpr double kIQ7Seqs[] = {2048, 4096, 8192};
constexpr double kIQ7Batches[] = {4194304, 16777216, 41943040};
constexpr Param kIQ7Given[] = {
    tokens("tokens_per_batch", 4194304, "global batch (4 x 2^20)", kIQ7Batches),
    tokens("seq_len", 4096, "sequence length", kIQ7Seqs),
    chip_count("chips", 8960, "chips (a full v5p pod)")};
constexpr Slot kIQ7Slots[] = {number("sequences_per_batch", "count", "sequences per batch"),
                              boolean("fits_8960_chips", "one sequence per chip possible?")};
constexpr Problem kIQ7{
    .id = "applied-training.IQ7",
    .title = "Pure FSDP without sequence sharding",
    .statement =
        "LLaMA 3-70B trains with a batch of {tokens_per_batch} in sequences of {seq_len}. Without "
        "splitting a sequence over chips, data parallelism (or FSDP) can use at most one chip per "
        "sequence. How many sequences is the batch, and is that enough for {chips}?",
    .kind = "numeric",
    .given = kIQ7Given,
    .slots = kIQ7Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const double B = in.num("tokens_per_batch"), T = in.num("seq_len"), N = in.num("chips");
          const double s =
              t.step("Sequences", "B / T", "\\frac{#}{#}", {B, T}, tr::sequences(B, T), "count");
          t.note(s >= N ? "Enough sequences for one per chip."
                        : "Fewer sequences than chips: the sequences must be split (sequence "
                          "sharding) or another axis used.");
          return Answers{{"sequences_per_batch", s}, {"fits_8960_chips", s >= N ? 1 : 0}};
        },
};

constexpr Param kIQ8Given[] = {
    tokens("tokens_per_batch", 4194304, "global batch (4 x 2^20)", kIQ7Batches),
    chip_count("chips", 8960, "chips (a full v5p pod)"), kPeak,
    rate("ici_bw_bidir_Bps", "B_per_s", 1.8e11, "ICI per axis, both directions, W_ici"),
    count("M_X", 3, "ICI axes FSDP spans", {}, 1, 3)};
constexpr Slot kIQ8Slots[] = {number("per_chip_batch", "tokens", "batch per chip"),
                              number("fsdp_threshold", "tokens", "FSDP floor"),
                              boolean("compute_bound", "FSDP compute-bound?")};
constexpr Problem kIQ8{
    .id = "applied-training.IQ8",
    .title = "FSDP with sequence sharding on a pod",
    .statement =
        "Shard both batch and sequence so that FSDP uses all {chips} with a batch of "
        "{tokens_per_batch}. What batch does each chip get, what does FSDP over {M_X} axes need "
        "({peak_bf16_flops_per_s}, {ici_bw_bidir_Bps} per axis), and is it compute-bound?",
    .kind = "numeric",
    .given = kIQ8Given,
    .slots = kIQ8Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const double B = in.num("tokens_per_batch"), N = in.num("chips"), M = in.num("M_X");
          tr::Hardware h;
          h.C = in.num("peak_bf16_flops_per_s");
          h.W_ici = in.num("ici_bw_bidir_Bps");
          const double alpha = t.step("ICI intensity", "\\alpha = C / W_{ici}", "\\frac{#}{#}",
                                      {h.C, h.W_ici}, tr::alpha_ici(h), "tokens");
          const double b = t.step("Per chip", "B / N", "\\frac{#}{#}", {B, N}, B / N, "tokens");
          const double f = t.step("FSDP floor", "\\alpha / M_X", "\\frac{#}{#}", {alpha, M},
                                  tr::dp_min_batch_per_chip(alpha, M), "tokens");
          return Answers{
              {"per_chip_batch", b}, {"fsdp_threshold", f}, {"compute_bound", b > f ? 1 : 0}};
        },
};

constexpr double kIQ9Batches[] = {2097152, 4194304, 8388608};
constexpr Param kIQ9Given[] = {
    kF70,
    tokens("tokens_per_batch", 4194304, "global batch (4 x 2^20)", kIQ9Batches),
    chip_count("chips", 8960, "chips (a full v5p pod)"),
    tokens("alpha", 2550, "ICI intensity alpha = C / W_ici"),
    count("M_X", 2, "ICI axes FSDP spans", {}, 1, 3),
    count("M_Y", 1, "ICI axes TP spans", {}, 1, 3)};
constexpr Slot kIQ9Slots[] = {number("mixed_threshold", "tokens", "FSDP + TP floor per chip"),
                              boolean("compute_bound", "compute-bound?"),
                              number("x_opt", "count", "X_opt"),
                              number("fsdp_degree", "count", "FSDP degree X"),
                              number("tp_degree", "count", "TP degree Y"),
                              number("x_min_compute_bound", "count", "smallest compute-bound X"),
                              number("x_max_compute_bound", "count", "largest compute-bound X")};
constexpr Problem kIQ9{
    .id = "applied-training.IQ9",
    .title = "Mixed FSDP plus tensor parallelism",
    .statement =
        "So mix FSDP over {M_X} axes with TP over {M_Y} (F = {F}, alpha = {alpha}, a batch of "
        "{tokens_per_batch} on {chips}). What batch per chip does the best split need, and is "
        "this one compute-bound? Where is X_opt, which FSDP and TP degrees would you pick (a "
        "power of two, as the chapter rounds), and between which X do both comm terms stay under "
        "the math?",
    .kind = "numeric",
    .given = kIQ9Given,
    .slots = kIQ9Slots,
    .solve =
        [](const Inputs& in, Trace& t) {
          const double F = in.num("F"), B = in.num("tokens_per_batch"), N = in.num("chips"),
                       alpha = in.num("alpha"), MX = in.num("M_X"), MY = in.num("M_Y");
          Answers a;
          a["mixed_threshold"] = t.step("Per-chip floor", "\\alpha^2 / (M_X M_Y F)",
                                        "\\frac{#^2}{# \\cdot # \\cdot #}", {alpha, MX, MY, F},
                                        tr::mixed_min_batch_per_chip(alpha, F, MX, MY), "tokens");
          a["compute_bound"] = B / N > a["mixed_threshold"] ? 1 : 0;
          const double x = t.step("Optimal FSDP degree", "\\sqrt{(B/F)(M_X/M_Y) N}",
                                  "\\sqrt{(# / #)(# / #) \\cdot #}", {B, F, MX, MY, N},
                                  tr::x_opt(B, F, N, MX, MY), "count");
          a["x_opt"] = x;
          const double X =
              t.step("Nearest power of two", "2^{\\mathrm{round}(\\log_2 X)}",
                     "2^{\\mathrm{round}(\\log_2 #)}", {x}, tr::round_pow2(x), "count");
          a["fsdp_degree"] = X;
          a["tp_degree"] = t.step("TP degree (whole)", "\\lfloor N / X \\rfloor",
                                  "\\lfloor # / # \\rfloor", {N, X}, std::floor(N / X), "count");
          const tr::XWindow w = tr::x_window(B, F, N, alpha, MX, MY);
          a["x_min_compute_bound"] =
              t.step("Smallest X (TP term)", "N \\alpha / (F M_Y)",
                     "\\frac{# \\cdot #}{# \\cdot #}", {N, alpha, F, MY}, w.lo, "count");
          a["x_max_compute_bound"] = t.step("Largest X (FSDP term)", "B M_X / \\alpha",
                                            "\\frac{# \\cdot #}{#}", {B, MX, alpha}, w.hi, "count");
          const double d = tr::round_split(x, N);
          t.note("A power of two does not divide " + units::number(N) +
                 " chips: " + units::number(X) + " x " + units::number(a["tp_degree"]) + " uses " +
                 units::number(X * a["tp_degree"]) +
                 " of them. The nearest divisor of the pod is " + units::number(d) + " (x " +
                 units::number(N / d) + "); every X in the window keeps the layer compute-bound.");
          return a;
        },
    .hint =
        "X_opt balances the FSDP gathers (growing with X) against the TP collectives "
        "(falling with X).",
};

// ---- Worked problems --------------------------------------------------------------------------

constexpr double kQ1Pods[] = {2, 4, 8};
constexpr Param kQ1Given[] = {
    kF70,
    tokens("tokens_per_batch", 4194304, "global batch (4 x 2^20)", kIQ9Batches),
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
        "{peak_bf16_flops_per_s}), FSDP over {M_X} axes and TP over {M_Y} inside each pod (F = "
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
          tr::Hardware h;
          h.C = in.num("peak_bf16_flops_per_s");
          h.W_dcn = in.num("dcn_bw_per_chip_Bps");
          Answers a;
          a["per_chip_batch"] =
              t.step("Per chip", "B / (n_{pods} N_{pod})", "\\frac{#}{# \\cdot #}", {B, pods, pod},
                     B / (pods * pod), "tokens");
          a["mixed_threshold"] = t.step("Per-chip floor", "\\alpha^2 / (M_X M_Y F)",
                                        "\\frac{#^2}{# \\cdot # \\cdot #}", {alpha, MX, MY, F},
                                        tr::mixed_min_batch_per_chip(alpha, F, MX, MY), "tokens");
          a["per_pod_batch"] =
              t.step("Per pod", "B / n_{pods}", "\\frac{#}{#}", {B, pods}, B / pods, "tokens");
          a["dcn_threshold"] = t.step("DCN floor", "\\alpha_{dcn} = C / W_{dcn}", "\\frac{#}{#}",
                                      {h.C, h.W_dcn}, tr::alpha_dcn(h), "tokens");
          a["x_opt_per_pod"] =
              t.step("X_opt within a pod", "\\sqrt{(B_{pod}/F)(M_X/M_Y) N_{pod}}",
                     "\\sqrt{(# / #)(# / #) \\cdot #}", {a["per_pod_batch"], F, MX, MY, pod},
                     tr::x_opt(a["per_pod_batch"], F, pod, MX, MY), "count");
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
                               tokens("tokens", 15e12, "training tokens", kIQ3Tokens)};
constexpr Slot kQ2aSlots[] = {number("ffw_params", "count", "MLP parameters"),
                              number("attention_params", "count", "attention parameters"),
                              number("vocab_params", "count", "vocabulary parameters"),
                              number("total_params", "count", "total parameters"),
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
          const tf::Config c = config_of(in);
          const tf::Params p = tf::params(c);
          Answers a;
          a["ffw_params"] = t.step("MLP", "L \\cdot n D F", "# \\cdot # \\cdot # \\cdot #",
                                   {c.L, c.gated ? 3.0 : 2.0, c.D, c.F}, p.mlp, "count");
          a["attention_params"] = t.step("Attention", "L \\cdot 2 D (N + K) H",
                                         "# \\cdot 2 \\cdot # \\cdot (# + #) \\cdot #",
                                         {c.L, c.D, c.N, c.K, c.H}, p.attn, "count");
          a["vocab_params"] = t.step("Vocabulary", c.tied ? "D V" : "2 D V",
                                     c.tied ? "# \\cdot #" : "2 \\cdot # \\cdot #", {c.D, c.V},
                                     p.embed + p.unembed, "count");
          a["total_params"] = p.total;
          a["flops_per_token"] = t.step("FLOPs per token", "6 P", "6 \\cdot #", {p.total},
                                        tf::six_p_tokens(p.total, 1), "flop");
          a["total_flops"] = t.step("Training FLOPs", "6 P \\cdot \\text{tokens}",
                                    "6 \\cdot # \\cdot #", {p.total, in.num("tokens")},
                                    tf::six_p_tokens(p.total, in.num("tokens")), "flop");
          return a;
        },
};

constexpr double kQ2bPods[] = {4, 8, 16};
constexpr Param kQ2bGiven[] = {
    kF405,
    count("pods", 8, "pods", kQ2bPods, 1, 1e4),
    chip_count("chips_per_pod", 8960, "chips per pod"),
    tokens("tokens_per_batch_assumed", 4194304, "global batch (4 x 2^20)", kIQ9Batches),
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
        "Train LLaMA 3.1-405B (F = {F}) on {pods} pods of {chips_per_pod}, FSDP over {M_X} axes "
        "and TP over {M_Y} inside each pod, alpha = {alpha}. What batch per chip does FSDP + TP "
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
          const double N = pods * pod;
          Answers a;
          a["mixed_threshold"] = t.step("Per-chip floor", "\\alpha^2 / (M_X M_Y F)",
                                        "\\frac{#^2}{# \\cdot # \\cdot #}", {alpha, MX, MY, F},
                                        tr::mixed_min_batch_per_chip(alpha, F, MX, MY), "tokens");
          a["min_global_batch"] =
              t.step("Smallest batch", "N \\alpha^2 / (M_X M_Y F)", "# \\cdot #",
                     {N, a["mixed_threshold"]}, tr::mixed_min_batch(N, alpha, F, MX, MY), "tokens");
          a["per_chip_batch_4M"] =
              t.step("Per chip", "B / N", "\\frac{#}{#}", {B, N}, B / N, "tokens");
          a["comms_bound_4M"] = a["per_chip_batch_4M"] > a["mixed_threshold"] ? 0 : 1;
          a["tp_limit"] = t.step("TP limit", "M_Y F / \\alpha", "\\frac{# \\cdot #}{#}",
                                 {MY, F, alpha}, tr::tp_max_degree(F, alpha, MY), "count");
          a["per_pod_batch_4M"] =
              t.step("Per pod", "B / n_{pods}", "\\frac{#}{#}", {B, pods}, B / pods, "tokens");
          return a;
        },
};

constexpr Problem kProblems[] = {kIQ1, kIQ2, kIQ3, kIQ4, kIQ5, kIQ6,
                                 kIQ7, kIQ8, kIQ9, kQ1,  kQ2a, kQ2b};

}  // namespace

void add_problems(Registry& r) { r.add(kProblems); }

}  // namespace sb::applied_training
