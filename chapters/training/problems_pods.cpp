// The training chapter's examples on scaling across pods over DCN (ids, slot names and units as in
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
          h.W_dcn = tr.step("DCN per chip", kWDcnPerChip, {host, n});
          const double a = tr.step("DCN intensity", kAlphaDcn, {h.C, h.W_dcn});
          tr.note(
              "Across pods: $T_{math} = 8BDF/(NC)$ against $T_{comms} = 8DF/(M W_{dcn})$: "
              "compute-bound while the batch per pod $B/(N/M)$ exceeds $\\alpha_{dcn}$.");
          Answers r{{"w_dcn_per_chip_Bps", h.W_dcn},
                    {"alpha_dcn_tokens", a},
                    {"alpha_dcn_section_takeaway_tokens", a},
                    {"alpha_dcn_summary_bullets_tokens", a}};
          r.slip("w_dcn_per_chip_Bps", host,
                 "That is the whole host's DCN bandwidth: its chips share it.");
          return r;
        },
    .erratum =
        "The chapter's closing bullets still say about 71,000 tokens, a figure left from an older "
        "peak of 4.46e14 FLOPs/s; with the spec's 4.59e14 the section itself gets 73,440 (its "
        "takeaway: 73k).",
};

constexpr Param kEx15aGiven[] = {width("d_ff", 30000, "MLP width F (LLaMA-3 70B, about)", kLlamaFs),
                                 kAlphaGiven};
constexpr Slot kEx15aSlots[] = {
    at_most(number("tp_limit_per_axis", "ratio", "TP degree per axis (at most)"))};
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
          Answers a{
              {"tp_limit_per_axis", tr.step("TP limit per axis", kTpMaxDegree, {1, F, alpha})}};
          a.book("tp_limit_per_axis", std::floor(a["tp_limit_per_axis"]),
                 "names the largest whole degree below F / alpha");
          return a;
        },
};

constexpr double kEx15Batches[] = {1e6, 2e6, 4e6, 8e6};
constexpr Param kEx15bGiven[] = {tokens("batch_tokens", 2e6, "global batch B", kEx15Batches),
                                 kAlphaGiven, axes("m_x_axes", 3, "ICI axes FSDP spans"), kPod};
constexpr Slot kEx15bSlots[] = {number("max_chips", "chips", "chips", 0.03),
                                number("pod_fraction", "ratio", "share of a pod", 0.06)};
constexpr Problem kEx15b{
    .id = "training.Ex15.b",
    .title = "FSDP-only chip limit at 2M",
    .statement =
        "With a batch of {batch_tokens} and pure FSDP over {m_x_axes} {m_x_axes|axis|axes} (alpha "
        "= "
        "{alpha_ici_tokens}), how many chips stay compute-bound, and what share of a {pod_chips} "
        "pod is that?",
    .kind = "numeric",
    .given = kEx15bGiven,
    .slots = kEx15bSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double B = in.num("batch_tokens"), alpha = in.num("alpha_ici_tokens"),
                       M = in.num("m_x_axes"), pod = in.num("pod_chips");
          const double n = tr.step("Most chips", kFsdpMaxChips, {B, M, alpha});
          Answers a{{"max_chips", n},
                    {"pod_fraction", tr.step("Share of a pod", kPodsOf, {n, pod})}};
          a.slip("max_chips", fsdp_max_chips(B, alpha, 1), kSlipOneAxis);
          return a;
        },
};

constexpr Param kEx15cGiven[] = {tokens("batch_tokens", 2e6, "global batch B", kEx15Batches),
                                 width("d_ff", 30000, "MLP width F", kLlamaFs),
                                 kAlphaGiven,
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
        "Same batch of {batch_tokens}, now FSDP over {m_x_axes} {m_x_axes|axis|axes} and TP over "
        "{m_y_axes} {m_y_axes|axis|axes} (F = "
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
          const double b = tr.step("Mixed floor", kMixedFloor, {alpha, MX, MY, F});
          const double n = tr.step("Most chips", kMixedMaxChips, {B, MX, MY, F, alpha});
          Answers a{{"min_batch_per_chip_tokens", b},
                    {"max_chips", n},
                    {"exceeds_one_pod", n > pod ? 1 : 0}};
          const double additive = mixed_min_batch_per_chip_additive(alpha, F, MX, MY);
          a.slip("min_batch_per_chip_tokens", additive, kSlipAdditive);
          a.slip("max_chips", B / additive, kSlipAdditive);
          return a;
        },
};

constexpr double kEx15dBatches[] = {5e5, 1e6, 2e6};
constexpr Param kEx15dGiven[] = {tokens("batch_tokens", 1e6, "global batch B", kEx15dBatches),
                                 width("d_ff", 30000, "MLP width F", kLlamaFs),
                                 chip_count("n_chips", 8192, "chips N (X = 1024 times Y = 8)"),
                                 kAlphaGiven,
                                 axes("m_x_axes", 2, "ICI axes FSDP spans, M_X"),
                                 axes("m_y_axes", 1, "ICI axes TP spans, M_Y")};
constexpr Slot kEx15dSlots[] = {number("per_chip_batch_tokens", "tokens", "tokens per chip"),
                                number("x_opt", "count", "X_opt")};
constexpr Problem kEx15d{
    .id = "training.Ex15.d",
    .title = "The 1M-token single-pod recipe",
    .statement =
        "The chapter suggests 1024-way FSDP with 8-way TP ({n_chips}) for a batch of "
        "{batch_tokens}, F = {d_ff}, FSDP over {m_x_axes} {m_x_axes|axis|axes} and TP over "
        "{m_y_axes} {m_y_axes|axis|axes} (alpha = "
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
          const double x = tr.step("Optimal FSDP degree", kXOpt, {B, F, MX, MY, N});
          const XWindow w = x_window(B, F, N, alpha, MX, MY);
          const double b = tr.step("Per chip", kPerChipBatch, {B, N});
          tr.note(w.empty()
                      ? "No FSDP degree keeps both terms under $T_{math}$: " +
                            window_words(w, b, mixed_min_batch_per_chip(alpha, F, MX, MY)) + "."
                      : "$X$ keeps both terms under $T_{math}$ on [" + units::number(w.lo) + ", " +
                            units::number(w.hi) + "]: $X = 1024$ lies " +
                            (1024 <= w.hi && 1024 >= w.lo ? "inside" : "outside") + " it.");
          Answers a{{"per_chip_batch_tokens", b}, {"x_opt", x}};
          a.slip("x_opt", x_opt(F, B, N, MX, MY), kSlipInverted);
          return a;
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
          const double per_pod = tr.step("Per pod", kPerPodBatch, {B, pods});
          const double chips = tr.step("Chips", kTotalChips, {pod, pods});
          return Answers{{"per_pod_batch_tokens", per_pod},
                         {"dcn_compute_bound", per_pod > a ? 1 : 0},
                         {"per_chip_batch_tokens", tr.step("Per chip", kPerChipBatch, {B, chips})}};
        },
};

constexpr Problem kPodsProblems[] = {kEx14, kEx15a, kEx15b, kEx15c, kEx15d, kEx15e};

}  // namespace

void add_problems_pods(Registry& r) { r.add(kPodsProblems); }

}  // namespace sb::training
