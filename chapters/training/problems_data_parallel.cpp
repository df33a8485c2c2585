// The training chapter's examples on data parallelism and FSDP (ids, slot names and units as in
// shared/book/problems/training.json); every expected answer is computed by the model (model.hpp)
// from the problem's own inputs.
#include <cmath>
#include <string>

#include "chapters/roofline/model.hpp"
#include "chapters/training/model.hpp"
#include "chapters/training/problems.hpp"
#include "chapters/transformers/model.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::training {
namespace {

namespace tf = transformers;

// ---- Data parallelism -------------------------------------------------------------------------

constexpr Param kEx1Given[] = {
    chip_spec(rate("peak_bf16_flops_per_s", "flop_per_s", 1.97e14, "peak bf16 FLOPs/s, C"),
              "peak_flops_bf16"),
    chip_spec(rate("hbm_bw_Bps", "B_per_s", 8.2e11, "HBM bandwidth, W_hbm"), "hbm_bw")};
constexpr Slot kEx1Slots[] = {number("b_crit_tokens", "tokens", "tokens per chip")};
constexpr Problem kEx1{
    .id = "training.Ex1",
    .title = "Single-chip compute-bound local batch",
    .statement =
        "Before any communication, each chip must be busy with its own matmuls. A TPU chip does "
        "{peak_bf16_flops_per_s} and reads HBM at {hbm_bw_Bps} (the chapter takes a v5e's). With "
        "bf16 weights and a local "
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
          return Answers{{"b_crit_tokens", tr.step("Critical batch: $b > C / W_{hbm}$",
                                                   roofline::kCriticalIntensity, {C, W})}};
        },
    .hint =
        "Intensity of the matmul against HBM is the local batch; compare with the chip's ratio.",
};

constexpr double kEx2BytesPerParam[] = {10, 12, 16};
constexpr Param kEx2Given[] = {
    chip_spec(memory("hbm_per_chip_B", 96e9, "HBM per chip"), "hbm_bytes"),
    per_param("bytes_per_param", 10, "bytes per parameter: bf16 weights 2 + Adam fp32 m and v 8",
              kEx2BytesPerParam)};
constexpr Slot kEx2Slots[] = {decimal_prefixes(number("max_params", "count", "parameters", 0.07))};
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
          Answers a{
              {"max_params", tr.step("Largest replicated model", kMaxParamsPureDp, {hbm, b})}};
          a.slip("max_params", max_params_pure_dp(hbm, tf::param_bytes(1)), kSlipNoAdam);
          return a;
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
              "Backward: $T_{math} = 8 B D F / (X C)$ against $T_{comms} = 8 D F / W_{ici}$, so "
              "the "
              "condition is $B/X > C / W_{ici}$.");
          Answers a{{"alpha_ici_tokens", alpha_of(in, tr)}};
          a.slip("alpha_ici_tokens", 2 * a["alpha_ici_tokens"],
                 "That divides by one direction of the axis; W_ici counts both (2 x 9e10 B/s on "
                 "v5p), as a ring sends both ways.");
          return a;
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
        "Now the data axis spans {m_axes} ICI {m_axes|axis|axes}, each carrying {w_ici_Bps}; a v5p "
        "chip does "
        "{peak_bf16_flops_per_s}. What batch per chip keeps data parallelism compute-bound, and "
        "what global batch does that mean for a full pod of {pod_chips}?",
    .kind = "numeric",
    .given = kEx4Given,
    .slots = kEx4Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double alpha = alpha_of(in, tr), M = in.num("m_axes"), N = in.num("pod_chips");
          const double b = tr.step("Per-chip batch", kDpFloor, {alpha, M});
          Answers a{{"per_chip_batch_tokens", b},
                    {"per_pod_batch_tokens", tr.step("Per pod", kGlobalBatch, {b, N})}};
          a.slip("per_chip_batch_tokens", dp_min_batch_per_chip(alpha, 1), kSlipOneAxis);
          a.slip("per_pod_batch_tokens", N * dp_min_batch_per_chip(alpha, 1), kSlipOneAxis);
          return a;
        },
    .hint = "A collective over M axes runs M times faster.",
};

// ---- FSDP -------------------------------------------------------------------------------------

constexpr double kEx5Batches[] = {16e6, 40e6, 60e6, 100e6};
constexpr Param kEx5Given[] = {tokens("batch_tokens", 40e6, "global batch B", kEx5Batches),
                               kAlphaGiven, axes("m_axes", 3, "ICI axes FSDP spans"), kPod};
constexpr Slot kEx5Slots[] = {number("max_chips", "chips", "chips"),
                              number("pods", "count", "pods", 0.06)};
constexpr Problem kEx5{
    .id = "training.Ex5",
    .title = "Chips reachable with a 40M batch",
    .statement =
        "Take a global batch of {batch_tokens} (DeepSeek-V2 trained with about 40M). With FSDP "
        "over {m_axes} {m_axes|axis|axes} of v5p ICI (alpha = {alpha_ici_tokens}), how many chips "
        "can share that "
        "batch before FSDP turns comms-bound, and how many pods of {pod_chips} is that?",
    .kind = "numeric",
    .given = kEx5Given,
    .slots = kEx5Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double B = in.num("batch_tokens"), alpha = in.num("alpha_ici_tokens"),
                       M = in.num("m_axes"), pod = in.num("pod_chips");
          const double n = tr.step("Most chips", kFsdpMaxChips, {B, M, alpha});
          Answers a{{"max_chips", n}, {"pods", tr.step("Pods", kPodsOf, {n, pod})}};
          a.slip("max_chips", fsdp_max_chips(B, alpha, 1), kSlipOneAxis);
          a.slip("pods", fsdp_max_chips(B, alpha, 1) / pod, kSlipOneAxis);
          return a;
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
    kAlphaGiven,
    axes("m_axes", 3, "ICI axes FSDP spans"),
    mfu_given(0.5, kEx6Mfus),
    kPod};
constexpr Slot kEx6Slots[] = {number("train_flops", "flop", "training FLOPs"),
                              number("chips", "chips", "chips at the FSDP limit"),
                              number("pods", "count", "pods", 0.06),
                              derived(number("train_time_s", "s", "training time"), From::Flops)};
constexpr Problem kEx6{
    .id = "training.Ex6",
    .title = "LLaMA-3 70B training time under FSDP",
    .statement =
        "A model of {params} parameters trains on {train_tokens} with a batch of {batch_tokens}, "
        "FSDP over {m_axes} {m_axes|axis|axes} of v5p (C = {peak_bf16_flops_per_s}, alpha = "
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
          const double f = six_p_step(tr, "Training FLOPs", P, T);
          const double n = tr.step("Chips at the FSDP limit", kFsdpMaxChips, {B, M, alpha});
          a["train_flops"] = f;
          a["chips"] = n;
          a["pods"] = tr.step("Pods", kPodsOf, {n, pod});
          a["train_time_s"] = tr.step("Training time", kTrainTime, {f, n, C, mfu});
          a.slip("train_flops", tf::six_p_tokens(P, T, 2), kSlipForward);
          a.slip("chips", fsdp_max_chips(B, alpha, 1), kSlipOneAxis);
          a.slip("train_time_s", train_time(f, n, C, 1), kSlipNoMfu);
          return a;
        },
    .hint = "The chip count is the batch over the per-chip floor alpha / 3.",
};

constexpr Problem kDataParallelProblems[] = {kEx1, kEx2, kEx3, kEx4, kEx5, kEx6};

}  // namespace

void add_problems_data_parallel(Registry& r) { r.add(kDataParallelProblems); }

}  // namespace sb::training
