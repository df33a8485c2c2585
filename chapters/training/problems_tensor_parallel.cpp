// The training chapter's examples on tensor parallelism (ids, slot names and units as in
// shared/book/problems/training.json); every expected answer is computed by the model (model.hpp)
// from the problem's own inputs.
#include <cmath>
#include <string>

#include "chapters/training/model.hpp"
#include "chapters/training/problems.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::training {
namespace {

namespace tf = transformers;

// ---- Tensor parallelism -----------------------------------------------------------------------

constexpr Param kEx7Given[] = {width("d_model", 8192, "model width D"),
                               width("d_ff", 30000, "MLP width F", kLlamaFs), kAlphaGiven,
                               axes("m_y_axes", 1, "ICI axes TP spans")};
constexpr Slot kEx7Slots[] = {
    boolean("tp8_compute_bound", "8-way TP compute-bound?"),
    boolean("tp16_compute_bound", "16-way TP compute-bound?"),
    at_least(number("d_ff_needed_for_tp8", "count", "F needed for 8-way (at least)", 0.03))};
constexpr Problem kEx7{
    .id = "training.Ex7",
    .title = "Tensor-parallel limit for LLaMA-3 70B",
    .statement =
        "A model has D = {d_model} and F = {d_ff} (LLaMA-3 70B: F is about 30k). With tensor "
        "parallelism over {m_y_axes} {m_y_axes|axis|axes} of v5p ICI (alpha = {alpha_ici_tokens}), "
        "is 8-way TP "
        "compute-bound? 16-way? What F would 8-way TP need to stay compute-bound?",
    .kind = "numeric",
    .given = kEx7Given,
    .slots = kEx7Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double F = in.num("d_ff"), alpha = in.num("alpha_ici_tokens"),
                       M = in.num("m_y_axes");
          const double y = tr.step("Largest compute-bound TP degree", kTpMaxDegree, {M, F, alpha});
          return Answers{{"tp8_compute_bound", 8 < y ? 1 : 0},
                         {"tp16_compute_bound", 16 < y ? 1 : 0},
                         {"d_ff_needed_for_tp8", tr.step("F for 8-way", kTpMinF, {8, alpha, M})}};
        },
    .hint = "TP moves 4BD bytes against 4BDF/Y FLOPs per chip: the batch cancels.",
};

constexpr double kEx8Fs[] = {24576, 49152, 50000};
constexpr Param kEx8Given[] = {width("d_ff", 50000, "MLP width F (Gemma 7B, about)", kEx8Fs),
                               kAlphaGiven, axes("m_y_axes", 1, "ICI axes TP spans")};
constexpr Slot kEx8Slots[] = {
    at_most(number("tp_limit_F_over_alpha", "ratio", "TP degree (at most)")),
    boolean("tp16_compute_bound", "16-way TP compute-bound?")};
constexpr Problem kEx8{
    .id = "training.Ex8",
    .title = "Tensor-parallel limit for Gemma 7B",
    .statement =
        "A model has F = {d_ff} (Gemma 7B: about 50k). With TP over {m_y_axes} ICI "
        "{m_y_axes|axis|axes} (alpha = "
        "{alpha_ici_tokens}), up to which degree does tensor parallelism stay compute-bound, and "
        "is 16-way TP compute-bound?",
    .kind = "numeric",
    .given = kEx8Given,
    .slots = kEx8Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double F = in.num("d_ff"), alpha = in.num("alpha_ici_tokens"),
                       M = in.num("m_y_axes");
          const double y = tr.step("TP limit", kTpMaxDegree, {M, F, alpha});
          tr.note("$Y$-way TP is compute-bound while $Y < " + units::number(y) +
                  "$: the first comms-bound whole degree is " + units::number(std::floor(y) + 1) +
                  ".");
          Answers a{{"tp_limit_F_over_alpha", y}, {"tp16_compute_bound", 16 < y ? 1 : 0}};
          a.book("tp_limit_F_over_alpha", std::floor(y),
                 "names the largest whole degree below M_Y F / alpha");
          return a;
        },
    .erratum =
        "The book calls 19-way TP comms-bound for Gemma 7B. By its own rule Y < F / alpha = "
        "50000 / 2550 = 19.6, 19-way is still (barely) compute-bound and 20-way is the first "
        "comms-bound degree: 19 is accepted as the largest whole degree that works.",
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

constexpr Problem kTensorParallelProblems[] = {kEx7, kEx8, kEx9};

}  // namespace

void add_problems_tensor_parallel(Registry& r) { r.add(kTensorParallelProblems); }

}  // namespace sb::training
