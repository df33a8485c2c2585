// The training chapter's worked examples in the text, section by section (data parallelism, FSDP,
// tensor parallelism, FSDP + TP, across pods). Ids, slot names and units are the catalogue's
// (shared/book/problems/training.json); every expected answer is computed by the model
// (model.hpp) from the problem's own inputs.
#include <cmath>
#include <string>

#include "chapters/roofline/model.hpp"
#include "chapters/training/model.hpp"
#include "chapters/transformers/model.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::training {
namespace {

namespace tf = transformers;

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
constexpr Param axes(Text name, double def, Text doc, Variants v = {}) {
  return count(name, def, doc, v, 1, 3);
}
constexpr Param chip_count(Text name, double def, Text doc, Variants v = {}) {
  Param p = count(name, def, doc, v, 1, 1e8);
  p.unit = "chips";
  return p;
}
constexpr Param width(Text name, double def, Text doc, Variants v = {}) {
  return count(name, def, doc, v, 1, 1e7);
}

// Chip figures the problems state (v5p unless said otherwise).
constexpr Param kPeak459 =
    rate("peak_bf16_flops_per_s", "flop_per_s", 4.59e14, "peak bf16 FLOPs/s per chip, C");
constexpr Param kPeak460 = rate("peak_bf16_flops_per_s", "flop_per_s", 4.6e14,
                                "peak bf16 FLOPs/s per chip, C (the text's rounded figure)");
constexpr Param kWIci =
    rate("w_ici_Bps", "B_per_s", 1.8e11, "ICI bandwidth per axis, both directions, W_ici");
constexpr Param kAlpha = tokens("alpha_ici_tokens", 2550, "ICI intensity alpha = C / W_ici");
constexpr Param kPod = chip_count("pod_chips", 8960, "chips in a v5p pod");

constexpr Text kNoteAlpha =
    "alpha = C / W_ici: the tokens of batch per chip at which a chip's share of the matmul "
    "takes as long as moving its weights (or gradients) over one ICI axis.";

double alpha_of(const Inputs& in, Trace& tr) {
  Hardware h;
  h.C = in.num("peak_bf16_flops_per_s");
  h.W_ici = in.num("w_ici_Bps");
  return tr.step("ICI intensity", "\\alpha = C / W_{ici}", "\\frac{#}{#}", {h.C, h.W_ici},
                 alpha_ici(h), "tokens");
}

// ---- Data parallelism -------------------------------------------------------------------------

constexpr Param kEx1Given[] = {
    rate("peak_bf16_flops_per_s", "flop_per_s", 1.97e14, "peak bf16 FLOPs/s of a TPU v5e"),
    rate("hbm_bw_Bps", "B_per_s", 8.2e11, "HBM bandwidth of a TPU v5e")};
constexpr Slot kEx1Slots[] = {number("b_crit_tokens", "tokens", "tokens per chip")};
constexpr Problem kEx1{
    .id = "training.Ex1",
    .title = "Single-chip compute-bound local batch",
    .statement =
        "Before any communication, each chip must be busy with its own matmuls. A TPU v5e does "
        "{peak_bf16_flops_per_s} and reads HBM at {hbm_bw_Bps}. With bf16 weights and a local "
        "batch of b tokens much smaller than the weight matrix, above which b is a layer's "
        "matmul compute-bound against HBM?",
    .kind = "numeric",
    .given = kEx1Given,
    .slots = kEx1Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double C = in.num("peak_bf16_flops_per_s"), W = in.num("hbm_bw_Bps");
          tr.note(
              "A [b, D] x [D, F] bf16 matmul does 2bDF FLOPs and loads 2DF bytes of weights: "
              "its intensity is b FLOPs per byte.");
          return Answers{
              {"b_crit_tokens", tr.step("Critical batch", "b > C / W_{hbm}", "\\frac{#}{#}", {C, W},
                                        roofline::critical_intensity(C, W), "tokens")}};
        },
    .hint =
        "Intensity of the matmul against HBM is the local batch; compare with the chip's ratio.",
};

constexpr double kEx2BytesPerParam[] = {10, 12, 16};
constexpr Param kEx2Given[] = {
    memory("hbm_per_chip_B", 96e9, "HBM per chip (TPU v5p)"),
    per_param("bytes_per_param", 10, "bytes per parameter: bf16 weights 2 + Adam fp32 m and v 8",
              kEx2BytesPerParam)};
constexpr Slot kEx2Slots[] = {number("max_params", "count", "parameters", 0.07)};
constexpr Problem kEx2{
    .id = "training.Ex2",
    .title = "Largest model for pure data parallelism",
    .statement =
        "Pure data parallelism keeps a full copy of the weights and the optimizer state on every "
        "chip. With {bytes_per_param} per parameter and {hbm_per_chip_B} of HBM per chip, how many "
        "parameters can the model have at most (ignoring activations)?",
    .kind = "numeric",
    .given = kEx2Given,
    .slots = kEx2Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double hbm = in.num("hbm_per_chip_B"), b = in.num("bytes_per_param");
          return Answers{
              {"max_params", tr.step("Largest replicated model", "P = HBM / b", "\\frac{#}{#}",
                                     {hbm, b}, max_params_pure_dp(hbm, b), "count")}};
        },
    .hint = "Adam keeps two fp32 moments (8 bytes) beside the bf16 weights (2 bytes).",
};

constexpr Param kEx3Given[] = {kPeak460, kWIci};
constexpr Slot kEx3Slots[] = {number("alpha_ici_tokens", "tokens", "tokens per chip")};
constexpr Problem kEx3{
    .id = "training.Ex3",
    .title = "ICI intensity for one-axis data parallelism",
    .statement =
        "Data parallelism over one ICI axis all-reduces each layer's weight gradients while the "
        "backward matmuls run. A v5p chip does {peak_bf16_flops_per_s}, and one axis carries "
        "{w_ici_Bps}. How many tokens of batch per chip keep the backward pass compute-bound?",
    .kind = "numeric",
    .given = kEx3Given,
    .slots = kEx3Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          tr.note(
              "Backward: T_math = 8 B D F / (X C) against T_comms = 8 D F / W_ici, so the "
              "condition is B/X > C / W_ici.");
          return Answers{{"alpha_ici_tokens", alpha_of(in, tr)}};
        },
};

constexpr Param kEx4Given[] = {kPeak460, kWIci, axes("m_axes", 3, "ICI axes the data axis spans"),
                               kPod};
constexpr Slot kEx4Slots[] = {number("per_chip_batch_tokens", "tokens", "tokens per chip"),
                              number("per_pod_batch_tokens", "tokens", "tokens per pod")};
constexpr Problem kEx4{
    .id = "training.Ex4",
    .title = "Data parallelism over three axes",
    .statement =
        "Now the data axis spans {m_axes} ICI axes, each carrying {w_ici_Bps}; a v5p chip does "
        "{peak_bf16_flops_per_s}. What batch per chip keeps data parallelism compute-bound, and "
        "what global batch does that mean for a full pod of {pod_chips}?",
    .kind = "numeric",
    .given = kEx4Given,
    .slots = kEx4Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double alpha = alpha_of(in, tr), M = in.num("m_axes"), N = in.num("pod_chips");
          const double b = tr.step("Per-chip batch", "\\alpha / M_X", "\\frac{#}{#}", {alpha, M},
                                   dp_min_batch_per_chip(alpha, M), "tokens");
          return Answers{{"per_chip_batch_tokens", b},
                         {"per_pod_batch_tokens", tr.step("Per pod", "N \\alpha / M_X",
                                                          "# \\cdot #", {N, b}, N * b, "tokens")}};
        },
    .hint = "A collective over M axes runs M times faster.",
};

// ---- FSDP -------------------------------------------------------------------------------------

constexpr double kEx5Batches[] = {16e6, 40e6, 60e6, 100e6};
constexpr Param kEx5Given[] = {tokens("batch_tokens", 40e6, "global batch B", kEx5Batches), kAlpha,
                               axes("m_axes", 3, "ICI axes FSDP spans"), kPod};
constexpr Slot kEx5Slots[] = {number("max_chips", "chips", "chips"),
                              number("pods", "count", "pods", 0.06)};
constexpr Problem kEx5{
    .id = "training.Ex5",
    .title = "Chips reachable with a 40M batch",
    .statement =
        "Take a global batch of {batch_tokens} (DeepSeek-V2 trained with about 40M). With FSDP "
        "over {m_axes} axes of v5p ICI (alpha = {alpha_ici_tokens}), how many chips can share that "
        "batch before FSDP turns comms-bound, and how many pods of {pod_chips} is that?",
    .kind = "numeric",
    .given = kEx5Given,
    .slots = kEx5Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double B = in.num("batch_tokens"), alpha = in.num("alpha_ici_tokens"),
                       M = in.num("m_axes"), pod = in.num("pod_chips");
          const double n = tr.step("Most chips", "N = B M_X / \\alpha", "\\frac{# \\cdot #}{#}",
                                   {B, M, alpha}, fsdp_max_chips(B, alpha, M), "chips");
          return Answers{
              {"max_chips", n},
              {"pods", tr.step("Pods", "N / N_{pod}", "\\frac{#}{#}", {n, pod}, n / pod, "count")}};
        },
};

constexpr double kEx6Params[] = {8e9, 70e9, 405e9};
constexpr double kEx6Batches[] = {4e6, 16e6, 32e6};
constexpr double kEx6Mfus[] = {0.4, 0.5, 0.6};
constexpr Param kEx6Given[] = {
    param_count("params", 70e9, "parameters P (LLaMA-3 70B)", kEx6Params),
    tokens("train_tokens", 15e12, "training tokens"),
    tokens("batch_tokens", 16e6, "global batch B", kEx6Batches),
    kPeak459,
    kAlpha,
    axes("m_axes", 3, "ICI axes FSDP spans"),
    mfu_given(0.5, kEx6Mfus),
    kPod};
constexpr Slot kEx6Slots[] = {number("train_flops", "flop", "training FLOPs"),
                              number("chips", "chips", "chips at the FSDP limit"),
                              number("pods", "count", "pods", 0.06),
                              number("train_time_s", "s", "training time")};
constexpr Problem kEx6{
    .id = "training.Ex6",
    .title = "LLaMA-3 70B training time under FSDP",
    .statement =
        "A model of {params} parameters trains on {train_tokens} with a batch of {batch_tokens}, "
        "FSDP over {m_axes} axes of v5p (C = {peak_bf16_flops_per_s}, alpha = "
        "{alpha_ici_tokens}). How many training FLOPs is that, how many chips keep FSDP "
        "compute-bound at that batch (and pods of {pod_chips}), and how long does training take "
        "on those chips at {mfu} MFU?",
    .kind = "numeric",
    .given = kEx6Given,
    .slots = kEx6Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double P = in.num("params"), T = in.num("train_tokens"), B = in.num("batch_tokens"),
                       C = in.num("peak_bf16_flops_per_s"), alpha = in.num("alpha_ici_tokens"),
                       M = in.num("m_axes"), mfu = in.num("mfu"), pod = in.num("pod_chips");
          Answers a;
          const double f = tr.step("Training FLOPs", "6 P \\cdot \\text{tokens}",
                                   "6 \\cdot # \\cdot #", {P, T}, tf::six_p_tokens(P, T), "flop");
          const double n =
              tr.step("Chips at the FSDP limit", "B M_X / \\alpha", "\\frac{# \\cdot #}{#}",
                      {B, M, alpha}, fsdp_max_chips(B, alpha, M), "chips");
          a["train_flops"] = f;
          a["chips"] = n;
          a["pods"] = tr.step("Pods", "N / N_{pod}", "\\frac{#}{#}", {n, pod}, n / pod, "count");
          a["train_time_s"] = tr.step(
              "Training time", "\\frac{6 P \\cdot \\text{tokens}}{N C \\cdot MFU}",
              "\\frac{#}{# \\cdot # \\cdot #}", {f, n, C, mfu}, train_time(f, n, C, mfu), "s");
          return a;
        },
    .hint = "The chip count is the batch over the per-chip floor alpha / 3.",
};

// ---- Tensor parallelism -----------------------------------------------------------------------

constexpr double kEx7Fs[] = {20000, 28672, 30000, 53248};
constexpr Param kEx7Given[] = {width("d_model", 8192, "model width D"),
                               width("d_ff", 30000, "MLP width F", kEx7Fs), kAlpha,
                               axes("m_y_axes", 1, "ICI axes TP spans")};
constexpr Slot kEx7Slots[] = {boolean("tp8_compute_bound", "8-way TP compute-bound?"),
                              boolean("tp16_compute_bound", "16-way TP compute-bound?"),
                              number("d_ff_needed_for_tp8", "count", "F needed for 8-way", 0.03)};
constexpr Problem kEx7{
    .id = "training.Ex7",
    .title = "Tensor-parallel limit for LLaMA-3 70B",
    .statement =
        "A model has D = {d_model} and F = {d_ff} (LLaMA-3 70B: F is about 30k). With tensor "
        "parallelism over {m_y_axes} axis of v5p ICI (alpha = {alpha_ici_tokens}), is 8-way TP "
        "compute-bound? 16-way? What F would 8-way TP need to stay compute-bound?",
    .kind = "numeric",
    .given = kEx7Given,
    .slots = kEx7Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double F = in.num("d_ff"), alpha = in.num("alpha_ici_tokens"),
                       M = in.num("m_y_axes");
          const double y =
              tr.step("Largest compute-bound TP degree", "Y < M_Y F / \\alpha",
                      "\\frac{# \\cdot #}{#}", {M, F, alpha}, tp_max_degree(F, alpha, M), "count");
          return Answers{{"tp8_compute_bound", 8 < y ? 1 : 0},
                         {"tp16_compute_bound", 16 < y ? 1 : 0},
                         {"d_ff_needed_for_tp8",
                          tr.step("F for 8-way", "F > Y \\alpha / M_Y", "\\frac{8 \\cdot #}{#}",
                                  {alpha, M}, tp_min_F(8, alpha, M), "count")}};
        },
    .hint = "TP moves 4BD bytes against 4BDF/Y FLOPs per chip: the batch cancels.",
};

constexpr double kEx8Fs[] = {24576, 49152, 50000};
constexpr Param kEx8Given[] = {width("d_ff", 50000, "MLP width F (Gemma 7B, about)", kEx8Fs),
                               kAlpha, axes("m_y_axes", 1, "ICI axes TP spans")};
constexpr Slot kEx8Slots[] = {number("tp_limit_F_over_alpha", "ratio", "M_Y F / alpha"),
                              boolean("tp16_compute_bound", "16-way TP compute-bound?")};
constexpr Problem kEx8{
    .id = "training.Ex8",
    .title = "Tensor-parallel limit for Gemma 7B",
    .statement =
        "A model has F = {d_ff} (Gemma 7B: about 50k). With TP over {m_y_axes} ICI axis (alpha = "
        "{alpha_ici_tokens}), up to which degree does tensor parallelism stay compute-bound, and "
        "is 16-way TP compute-bound?",
    .kind = "numeric",
    .given = kEx8Given,
    .slots = kEx8Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double F = in.num("d_ff"), alpha = in.num("alpha_ici_tokens"),
                       M = in.num("m_y_axes");
          const double y = tr.step("TP limit", "M_Y F / \\alpha", "\\frac{# \\cdot #}{#}",
                                   {M, F, alpha}, tp_max_degree(F, alpha, M), "ratio");
          tr.note("Y-way TP is compute-bound while Y < " + units::number(y) +
                  ": the first comms-bound whole degree is " + units::number(std::floor(y) + 1) +
                  ".");
          return Answers{{"tp_limit_F_over_alpha", y}, {"tp16_compute_bound", 16 < y ? 1 : 0}};
        },
    .erratum =
        "The book calls 19-way TP comms-bound for Gemma 7B. By its own rule Y < F / alpha = "
        "50000 / 2550 = 19.6, 19-way is still (barely) compute-bound and 20-way is the first "
        "comms-bound degree.",
};

constexpr Param kEx9Given[] = {
    tokens("alpha_bf16_tokens", 2550, "alpha in bf16, C / W_ici"),
    tokens("alpha_int8_tokens", 5100, "alpha in int8 (twice the OPs/s)")};
constexpr Problem kEx9{
    .id = "training.Ex9",
    .title = "int8 leaves the tensor-parallel limit unchanged",
    .statement =
        "In int8 a v5p chip does twice the operations per second, so its ICI intensity is "
        "{alpha_int8_tokens} instead of {alpha_bf16_tokens}. Why does the tensor-parallel limit "
        "Y < M_Y F / alpha not get twice as strict?",
    .kind = "conceptual",
    .given = kEx9Given,
    .model_answer =
        "TP's communication is activations: each layer gathers and reduce-scatters [B, D] arrays. "
        "In int8 those arrays take half the bytes, so T_comms halves exactly as T_math does when "
        "the peak doubles. The ratio T_math / T_comms is unchanged: the bound written with the "
        "bf16 alpha (2550) still holds, Y < M_Y F / 2550.",
};

// ---- FSDP + TP --------------------------------------------------------------------------------

constexpr double kEx10Batches[] = {24000, 48000, 96000, 192000};
constexpr double kEx10Fs[] = {16384, 32768};
constexpr Param kEx10Given[] = {chip_count("n_chips", 64, "chips N (a 4x4x4 slice)"),
                                tokens("batch_tokens", 48000, "global batch B", kEx10Batches),
                                width("d_ff", 32768, "MLP width F", kEx10Fs),
                                axes("m_x_axes", 2, "ICI axes FSDP spans, M_X"),
                                axes("m_y_axes", 1, "ICI axes TP spans, M_Y")};
constexpr Slot kEx10Slots[] = {number("x_opt", "count", "X_opt (real)"),
                               number("x_fsdp", "count", "FSDP degree X"),
                               number("y_tp", "count", "TP degree Y")};
constexpr Problem kEx10{
    .id = "training.Ex10",
    .title = "Optimal FSDP degree on a 4x4x4",
    .statement =
        "On a slice of {n_chips}, a batch of {batch_tokens} trains a model with F = "
        "{d_ff}, FSDP over {m_x_axes} axes and TP over {m_y_axes}. Where are the FSDP and TP "
        "comm terms equal (X_opt, a real number), and which split X x Y = N does that suggest "
        "(X a power of two)?",
    .kind = "numeric",
    .given = kEx10Given,
    .slots = kEx10Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double N = in.num("n_chips"), B = in.num("batch_tokens"), F = in.num("d_ff"),
                       MX = in.num("m_x_axes"), MY = in.num("m_y_axes");
          const double x = tr.step("Optimal FSDP degree", "X_{opt} = \\sqrt{(B/F)(M_X/M_Y) N}",
                                   "\\sqrt{(# / #)(# / #) \\cdot #}", {B, F, MX, MY, N},
                                   x_opt(B, F, N, MX, MY), "count");
          const double X = tr.step("Nearest power of two", "2^{\\mathrm{round}(\\log_2 X)}",
                                   "2^{\\mathrm{round}(\\log_2 #)}", {x}, round_pow2(x), "count");
          return Answers{
              {"x_opt", x},
              {"x_fsdp", X},
              {"y_tp", tr.step("TP degree", "Y = N / X", "\\frac{#}{#}", {N, X}, N / X, "count")}};
        },
    .hint =
        "The FSDP term grows with X and the TP term falls: set 4DF X / (N M_X) = 4BD / (X M_Y).",
};

constexpr double kEx11Fs[] = {16384, 28672, 32768, 53248};
constexpr Param kEx11Given[] = {kAlpha, width("d_ff", 32768, "MLP width F", kEx11Fs),
                                axes("m_x_axes", 2, "ICI axes FSDP spans, M_X"),
                                axes("m_y_axes", 1, "ICI axes TP spans, M_Y"),
                                axes("fsdp_axes", 3, "axes pure FSDP spans")};
constexpr Slot kEx11Slots[] = {number("min_batch_per_chip_tokens", "tokens", "tokens per chip"),
                               number("gain_vs_fsdp", "ratio", "FSDP floor / mixed floor", 0.08)};
constexpr Problem kEx11{
    .id = "training.Ex11",
    .title = "Per-chip batch floor for mixed sharding",
    .statement =
        "With FSDP over {m_x_axes} axes and TP over {m_y_axes} (alpha = {alpha_ici_tokens}, F = "
        "{d_ff}), the FSDP and TP collectives overlap on their own axes. At the best split, what "
        "batch per chip keeps the layer compute-bound, and how many times lower is that than pure "
        "FSDP's floor over {fsdp_axes} axes?",
    .kind = "numeric",
    .given = kEx11Given,
    .slots = kEx11Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double alpha = in.num("alpha_ici_tokens"), F = in.num("d_ff"),
                       MX = in.num("m_x_axes"), MY = in.num("m_y_axes"), M = in.num("fsdp_axes");
          const double b = tr.step("Mixed floor", "B/N > \\alpha^2 / (M_X M_Y F)",
                                   "\\frac{#^2}{# \\cdot # \\cdot #}", {alpha, MX, MY, F},
                                   mixed_min_batch_per_chip(alpha, F, MX, MY), "tokens");
          const double f = tr.step("Pure FSDP floor", "\\alpha / M_X", "\\frac{#}{#}", {alpha, M},
                                   dp_min_batch_per_chip(alpha, M), "tokens");
          return Answers{
              {"min_batch_per_chip_tokens", b},
              {"gain_vs_fsdp", tr.step("Gain", "\\text{FSDP floor} / \\text{mixed floor}",
                                       "\\frac{#}{#}", {f, b}, f / b, "ratio")}};
        },
};

constexpr double kEx12Chips[] = {1024, 4096, 8192};
constexpr double kEx12Ds[] = {4096, 8192, 16384};
constexpr Param kEx12Given[] = {
    chip_count("n_chips", 4096, "chips N (a 16x16x16 slice)", kEx12Chips),
    width("d_model", 8192, "model width D", kEx12Ds), kAlpha,
    axes("m_x_axes", 2, "ICI axes FSDP spans, M_X"), axes("m_y_axes", 1, "ICI axes TP spans, M_Y")};
constexpr Slot kEx12Slots[] = {number("crossover_batch_tokens", "tokens", "global batch")};
constexpr Problem kEx12{
    .id = "training.Ex12",
    .title = "Comms-bound crossover batch on 16x16x16",
    .statement =
        "A model with D = {d_model} and F = 4D trains on {n_chips} with FSDP over "
        "{m_x_axes} axes and TP over {m_y_axes} (alpha = {alpha_ici_tokens}). Below which global "
        "batch is even the best FSDP + TP split comms-bound?",
    .kind = "numeric",
    .given = kEx12Given,
    .slots = kEx12Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double N = in.num("n_chips"), D = in.num("d_model"),
                       alpha = in.num("alpha_ici_tokens"), MX = in.num("m_x_axes"),
                       MY = in.num("m_y_axes");
          const double F = tr.step("MLP width", "F = 4D", "4 \\cdot #", {D}, 4 * D, "count");
          return Answers{
              {"crossover_batch_tokens",
               tr.step("Crossover", "B = N \\alpha^2 / (M_X M_Y F)",
                       "\\frac{# \\cdot #^2}{# \\cdot # \\cdot #}", {N, alpha, MX, MY, F},
                       mixed_min_batch(N, alpha, F, MX, MY), "tokens")}};
        },
};

constexpr double kEx19Fs[] = {16384, 30000, 32768};
constexpr Param kEx19Given[] = {chip_count("n_chips", 64, "chips N (a 4x4x4 slice)"),
                                width("d_ff", 30000, "MLP width F", kEx19Fs),
                                kAlpha,
                                axes("m_x_axes", 2, "ICI axes FSDP spans in the mixed layout"),
                                axes("m_y_axes", 1, "ICI axes TP spans in the mixed layout"),
                                axes("fsdp_m_axes", 3, "axes pure FSDP spans"),
                                width("tp_only_degree", 64, "TP degree of pure TP"),
                                axes("tp_only_m_axes", 3, "axes pure TP spans")};
constexpr Slot kEx19Slots[] = {
    number("mixed_min_batch_per_chip_tokens", "tokens", "mixed FSDP + TP floor", 0.09),
    number("fsdp_min_batch_per_chip_tokens", "tokens", "pure FSDP floor"),
    boolean("tp_only_compute_bound", "pure TP compute-bound?")};
constexpr Problem kEx19{
    .id = "training.Ex19",
    .title = "Batch window where only mixed sharding works",
    .statement =
        "On {n_chips} (4x4x4) with F = {d_ff} and alpha = {alpha_ici_tokens}: from which "
        "batch per chip is FSDP + TP (FSDP on {m_x_axes} axes, TP on {m_y_axes}) compute-bound, "
        "from which is pure FSDP over {fsdp_m_axes} axes, and is pure {tp_only_degree}-way TP "
        "over {tp_only_m_axes} axes ever compute-bound?",
    .kind = "numeric",
    .given = kEx19Given,
    .slots = kEx19Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double F = in.num("d_ff"), alpha = in.num("alpha_ici_tokens"),
                       MX = in.num("m_x_axes"), MY = in.num("m_y_axes"), M = in.num("fsdp_m_axes"),
                       Y = in.num("tp_only_degree"), MT = in.num("tp_only_m_axes");
          Answers a;
          a["mixed_min_batch_per_chip_tokens"] =
              tr.step("Mixed floor", "\\alpha^2 / (M_X M_Y F)", "\\frac{#^2}{# \\cdot # \\cdot #}",
                      {alpha, MX, MY, F}, mixed_min_batch_per_chip(alpha, F, MX, MY), "tokens");
          a["fsdp_min_batch_per_chip_tokens"] =
              tr.step("FSDP floor", "\\alpha / M_X", "\\frac{#}{#}", {alpha, M},
                      dp_min_batch_per_chip(alpha, M), "tokens");
          const double lim = tr.step("TP limit", "M_Y F / \\alpha", "\\frac{# \\cdot #}{#}",
                                     {MT, F, alpha}, tp_max_degree(F, alpha, MT), "count");
          a["tp_only_compute_bound"] = Y < lim ? 1 : 0;
          tr.note("Pure TP's ratio T_math / T_comms does not depend on the batch: " +
                  units::number(Y) + "-way against a limit of " + units::number(lim) + ".");
          return a;
        },
};

constexpr Param kEx13Given[] = {chip_count("n_chips", 4096, "chips N (a 16x16x16 slice)")};
constexpr Problem kEx13{
    .id = "training.Ex13",
    .title = "Optimum in the interactive roofline plot",
    .statement =
        "The chapter's interactive plot of FSDP + TP on {n_chips} marks the split with the "
        "least communication. Where does it put it, and why can the companion not recompute that "
        "point exactly?",
    .kind = "conceptual",
    .given = kEx13Given,
    .model_answer =
        "The plot puts the lowest-comms split near 256-way FSDP with 16-way TP. That point is "
        "X_opt = sqrt((B/F)(M_X/M_Y) N) rounded to a split of the slice, and X_opt moves with the "
        "batch, which the plot does not state: so the number can only be read off the figure. "
        "The planner (training.plan) gives the optimum for any batch you type.",
};

// ---- Across pods ------------------------------------------------------------------------------

constexpr double kEx14HostBws[] = {12.5e9, 25e9, 50e9};
constexpr double kEx14ChipsPerHost[] = {4, 8};
constexpr Param kEx14Given[] = {
    rate("dcn_per_host_Bps", "B_per_s", 25e9, "DCN per host, full duplex (200 Gbps)", kEx14HostBws),
    count("chips_per_host", 4, "chips per host", kEx14ChipsPerHost, 1, 64), kPeak459};
constexpr Slot kEx14Slots[] = {
    number("w_dcn_per_chip_Bps", "B_per_s", "DCN per chip"),
    number("alpha_dcn_tokens", "tokens", "alpha_dcn"),
    number("alpha_dcn_section_takeaway_tokens", "tokens", "the section's takeaway"),
    number("alpha_dcn_summary_bullets_tokens", "tokens", "the chapter's summary bullets")};
constexpr Problem kEx14{
    .id = "training.Ex14",
    .title = "DCN arithmetic intensity on v5p",
    .statement =
        "Pods talk over DCN: {dcn_per_host_Bps} per host, shared by its {chips_per_host} chips. "
        "What DCN bandwidth does each chip get, and what batch per pod keeps pure data "
        "parallelism across pods compute-bound for chips doing {peak_bf16_flops_per_s}? (The "
        "chapter states the figure twice: in the section's takeaway and in its summary bullets.)",
    .kind = "numeric",
    .given = kEx14Given,
    .slots = kEx14Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Hardware h;
          h.C = in.num("peak_bf16_flops_per_s");
          const double host = in.num("dcn_per_host_Bps"), n = in.num("chips_per_host");
          h.W_dcn = tr.step("DCN per chip", "W_{dcn} = W_{host} / n", "\\frac{#}{#}", {host, n},
                            w_dcn_per_chip(host, n), "B_per_s");
          const double a = tr.step("DCN intensity", "\\alpha_{dcn} = C / W_{dcn}", "\\frac{#}{#}",
                                   {h.C, h.W_dcn}, alpha_dcn(h), "tokens");
          tr.note(
              "Across pods: T_math = 8BDF/(NC) against T_comms = 8DF/(M W_dcn): compute-bound "
              "while the batch per pod B/(N/M) exceeds alpha_dcn.");
          return Answers{{"w_dcn_per_chip_Bps", h.W_dcn},
                         {"alpha_dcn_tokens", a},
                         {"alpha_dcn_section_takeaway_tokens", a},
                         {"alpha_dcn_summary_bullets_tokens", a}};
        },
    .erratum =
        "The chapter's closing bullets still say about 71,000 tokens, a figure left from an older "
        "peak of 4.46e14 FLOPs/s; with the spec's 4.59e14 the section itself gets 73,440 (its "
        "takeaway: 73k).",
};

constexpr Param kEx15aGiven[] = {width("d_ff", 30000, "MLP width F (LLaMA-3 70B, about)", kEx7Fs),
                                 kAlpha};
constexpr Slot kEx15aSlots[] = {number("tp_limit_per_axis", "ratio", "TP degree per axis", 0.08)};
constexpr Problem kEx15a{
    .id = "training.Ex15.a",
    .title = "Tensor-parallel limit per axis",
    .statement =
        "Training on v5p (alpha = {alpha_ici_tokens}) a model with F = {d_ff} (LLaMA-3 70B: about "
        "30k), up to how many ways of TP per ICI axis stay compute-bound?",
    .kind = "numeric",
    .given = kEx15aGiven,
    .slots = kEx15aSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double F = in.num("d_ff"), alpha = in.num("alpha_ici_tokens");
          return Answers{
              {"tp_limit_per_axis", tr.step("TP limit per axis", "F / \\alpha", "\\frac{#}{#}",
                                            {F, alpha}, tp_max_degree(F, alpha, 1), "ratio")}};
        },
};

constexpr double kEx15Batches[] = {1e6, 2e6, 4e6, 8e6};
constexpr Param kEx15bGiven[] = {tokens("batch_tokens", 2e6, "global batch B", kEx15Batches),
                                 kAlpha, axes("m_x_axes", 3, "ICI axes FSDP spans"), kPod};
constexpr Slot kEx15bSlots[] = {number("max_chips", "chips", "chips", 0.03),
                                number("pod_fraction", "ratio", "share of a pod", 0.06)};
constexpr Problem kEx15b{
    .id = "training.Ex15.b",
    .title = "FSDP-only chip limit at 2M",
    .statement =
        "With a batch of {batch_tokens} and pure FSDP over {m_x_axes} axes (alpha = "
        "{alpha_ici_tokens}), how many chips stay compute-bound, and what share of a {pod_chips} "
        "pod is that?",
    .kind = "numeric",
    .given = kEx15bGiven,
    .slots = kEx15bSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double B = in.num("batch_tokens"), alpha = in.num("alpha_ici_tokens"),
                       M = in.num("m_x_axes"), pod = in.num("pod_chips");
          const double n = tr.step("Most chips", "B M_X / \\alpha", "\\frac{# \\cdot #}{#}",
                                   {B, M, alpha}, fsdp_max_chips(B, alpha, M), "chips");
          return Answers{{"max_chips", n},
                         {"pod_fraction", tr.step("Share of a pod", "N / N_{pod}", "\\frac{#}{#}",
                                                  {n, pod}, n / pod, "ratio")}};
        },
};

constexpr Param kEx15cGiven[] = {tokens("batch_tokens", 2e6, "global batch B", kEx15Batches),
                                 width("d_ff", 30000, "MLP width F", kEx7Fs),
                                 kAlpha,
                                 axes("m_x_axes", 2, "ICI axes FSDP spans, M_X"),
                                 axes("m_y_axes", 1, "ICI axes TP spans, M_Y"),
                                 kPod};
constexpr Slot kEx15cSlots[] = {number("min_batch_per_chip_tokens", "tokens", "tokens per chip"),
                                number("max_chips", "chips", "chips", 0.03),
                                boolean("exceeds_one_pod", "more than one pod?")};
constexpr Problem kEx15c{
    .id = "training.Ex15.c",
    .title = "Mixed FSDP+TP chip limit at 2M",
    .statement =
        "Same batch of {batch_tokens}, now FSDP over {m_x_axes} axes and TP over {m_y_axes} (F = "
        "{d_ff}, alpha = {alpha_ici_tokens}). What batch per chip does the best split need, how "
        "many chips does the batch then reach, and is that more than one pod of {pod_chips}?",
    .kind = "numeric",
    .given = kEx15cGiven,
    .slots = kEx15cSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double B = in.num("batch_tokens"), F = in.num("d_ff"),
                       alpha = in.num("alpha_ici_tokens"), MX = in.num("m_x_axes"),
                       MY = in.num("m_y_axes"), pod = in.num("pod_chips");
          const double b =
              tr.step("Mixed floor", "\\alpha^2 / (M_X M_Y F)", "\\frac{#^2}{# \\cdot # \\cdot #}",
                      {alpha, MX, MY, F}, mixed_min_batch_per_chip(alpha, F, MX, MY), "tokens");
          const double n = tr.step("Most chips", "B / \\text{floor}", "\\frac{#}{#}", {B, b},
                                   mixed_max_chips(B, alpha, F, MX, MY), "chips");
          return Answers{{"min_batch_per_chip_tokens", b},
                         {"max_chips", n},
                         {"exceeds_one_pod", n > pod ? 1 : 0}};
        },
};

constexpr double kEx15dBatches[] = {5e5, 1e6, 2e6};
constexpr Param kEx15dGiven[] = {tokens("batch_tokens", 1e6, "global batch B", kEx15dBatches),
                                 width("d_ff", 30000, "MLP width F", kEx7Fs),
                                 chip_count("n_chips", 8192, "chips N (X = 1024 times Y = 8)"),
                                 kAlpha,
                                 axes("m_x_axes", 2, "ICI axes FSDP spans, M_X"),
                                 axes("m_y_axes", 1, "ICI axes TP spans, M_Y")};
constexpr Slot kEx15dSlots[] = {number("per_chip_batch_tokens", "tokens", "tokens per chip"),
                                number("x_opt", "count", "X_opt")};
constexpr Problem kEx15d{
    .id = "training.Ex15.d",
    .title = "The 1M-token single-pod recipe",
    .statement =
        "The chapter suggests 1024-way FSDP with 8-way TP ({n_chips}) for a batch of "
        "{batch_tokens}, F = {d_ff}, FSDP over {m_x_axes} axes and TP over {m_y_axes} (alpha = "
        "{alpha_ici_tokens}). What is the batch per chip, and where is the real-valued optimum "
        "X_opt?",
    .kind = "numeric",
    .given = kEx15dGiven,
    .slots = kEx15dSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double B = in.num("batch_tokens"), F = in.num("d_ff"), N = in.num("n_chips"),
                       alpha = in.num("alpha_ici_tokens"), MX = in.num("m_x_axes"),
                       MY = in.num("m_y_axes");
          const double x = tr.step("Optimal FSDP degree", "\\sqrt{(B/F)(M_X/M_Y) N}",
                                   "\\sqrt{(# / #)(# / #) \\cdot #}", {B, F, MX, MY, N},
                                   x_opt(B, F, N, MX, MY), "count");
          const XWindow w = x_window(B, F, N, alpha, MX, MY);
          tr.note("X keeps both terms under T_math on [" + units::number(w.lo) + ", " +
                  units::number(w.hi) + "]: X = 1024 lies " +
                  (1024 <= w.hi && 1024 >= w.lo ? "inside" : "outside") + " it.");
          return Answers{{"per_chip_batch_tokens",
                          tr.step("Per chip", "B / N", "\\frac{#}{#}", {B, N}, B / N, "tokens")},
                         {"x_opt", x}};
        },
};

constexpr double kEx15ePods[] = {2, 4, 8};
constexpr Param kEx15eGiven[] = {tokens("batch_tokens", 2e6, "global batch B", kEx15Batches),
                                 count("n_pods", 2, "pods", kEx15ePods, 1, 1e4), kPod,
                                 tokens("alpha_dcn_tokens", 73440, "DCN intensity alpha_dcn")};
constexpr Slot kEx15eSlots[] = {number("per_pod_batch_tokens", "tokens", "tokens per pod"),
                                boolean("dcn_compute_bound", "DCN keeps up?"),
                                number("per_chip_batch_tokens", "tokens", "tokens per chip")};
constexpr Problem kEx15e{
    .id = "training.Ex15.e",
    .title = "Two pods over DCN at 2M",
    .statement =
        "Split a batch of {batch_tokens} over {n_pods} pods of {pod_chips} with pure data "
        "parallelism between them (alpha_dcn = {alpha_dcn_tokens}). What batch does each pod get, "
        "does DCN keep up, and what batch does each chip get?",
    .kind = "numeric",
    .given = kEx15eGiven,
    .slots = kEx15eSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double B = in.num("batch_tokens"), pods = in.num("n_pods"),
                       pod = in.num("pod_chips"), a = in.num("alpha_dcn_tokens");
          const double per_pod =
              tr.step("Per pod", "B / n_{pods}", "\\frac{#}{#}", {B, pods}, B / pods, "tokens");
          return Answers{{"per_pod_batch_tokens", per_pod},
                         {"dcn_compute_bound", per_pod > a ? 1 : 0},
                         {"per_chip_batch_tokens",
                          tr.step("Per chip", "B / (n_{pods} N_{pod})", "\\frac{#}{# \\cdot #}",
                                  {B, pods, pod}, B / (pods * pod), "tokens")}};
        },
};

constexpr Problem kProblems[] = {kEx1,  kEx2,   kEx3,   kEx4,   kEx5,   kEx6,  kEx7,
                                 kEx8,  kEx9,   kEx10,  kEx11,  kEx12,  kEx19, kEx13,
                                 kEx14, kEx15a, kEx15b, kEx15c, kEx15d, kEx15e};

}  // namespace

void add_section_problems(Registry& r) { r.add(kProblems); }

}  // namespace sb::training
