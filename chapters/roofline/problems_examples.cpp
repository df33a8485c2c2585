// The roofline chapter's worked examples, in the order of the text (roofline.E*).
#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "chapters/roofline/model.hpp"
#include "chapters/roofline/problems.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

// Problems are written with designated initializers; the members left out keep their
// defaults, which is what this warning is about.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::roofline {
namespace {

// ---- Worked examples in the text -------------------------------------------------------------

constexpr double kE1WorkFlops[] = {1e11, 5e12, 1e13, 1e15};
constexpr double kE1H100PeakBf16FlopsPerS[] = {9.89e14, 1.979e15 / 2};
constexpr double kE1V6ePeakBf16FlopsPerS[] = {9.1e14, 9.2e14};
constexpr Param kE1Given[] = {
    ranged("work_flops", "flop", 1e12, "FLOPs to perform", 1, 1e30, kE1WorkFlops),
    rate("h100_peak_bf16_flops_per_s", "flop_per_s", 9.89e14, "H100 dense bf16 peak",
         kE1H100PeakBf16FlopsPerS),
    rate("v6e_peak_bf16_flops_per_s", "flop_per_s", 9.1e14, "v6e bf16 peak",
         kE1V6ePeakBf16FlopsPerS)};
constexpr Slot kE1Slots[] = {derived(number("t_math_h100", "s", "time on the H100"), From::Flops),
                             derived(number("t_math_v6e", "s", "time on the v6e"), From::Flops)};
constexpr Problem kE1{
    .id = "roofline.E1",
    .title = "Time for 1e12 FLOPs on two chips",
    .statement =
        "A job needs {work_flops} of arithmetic. How long does it take at peak on an "
        "H100 ({h100_peak_bf16_flops_per_s}, dense bf16) and on a TPU v6e "
        "({v6e_peak_bf16_flops_per_s}, the figure roofline.md quotes)?",
    .kind = "numeric",
    .given = kE1Given,
    .slots = kE1Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double w = in.num("work_flops");
          const double ph = in.num("h100_peak_bf16_flops_per_s");
          const double pv = in.num("v6e_peak_bf16_flops_per_s");
          Answers a;
          a["t_math_h100"] = tr.step("H100", kTMath, {w, ph});
          a["t_math_v6e"] = tr.step("TPU v6e", kTMath, {w, pv});
          return a;
        },
    .hint = "Compute time is the work divided by the rate; mind the ms.",
};

constexpr Param kE2Given[] = {
    chip_param("v5e", "the chip"),
    chip_spec(rate("peak_bf16_flops_per_s", "flop_per_s", 1.97e14, "bf16 peak"), "peak_flops_bf16"),
    chip_spec(rate("hbm_bw_Bps", "B_per_s", 8.2e11, "HBM bandwidth"), "hbm_bw")};
constexpr Slot kE2Slots[] = {number("i_crit", "flop_per_B", "critical intensity")};
constexpr Problem kE2{
    .id = "roofline.E2",
    .title = "MXU critical intensity versus HBM",
    .statement =
        "A {chip} peaks at {peak_bf16_flops_per_s} in bf16 and reads HBM at "
        "{hbm_bw_Bps}. How many FLOPs must an operation do per byte it loads to keep "
        "the MXU busy?",
    .kind = "numeric",
    .given = kE2Given,
    .slots = kE2Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double p = in.num("peak_bf16_flops_per_s"), bw = in.num("hbm_bw_Bps");
          return Answers{{"i_crit", tr.step("Critical intensity", kCriticalIntensity, {p, bw})}};
        },
};

constexpr double kE3SampleN[] = {128, 4096, 65536, 1000000};
constexpr Param kE3Given[] = {
    elem_bytes(2, "bytes per element (bf16)"),
    count("sample_n", 1024, "N to evaluate at", kE3SampleN), chip_param("v5p", "the chip"),
    chip_spec(rate("v5p_vpu_flops_per_s_per_core", "flop_per_s", 7e12, "VPU FLOPs/s, one core"),
              "vpu_flops_per_core"),
    chip_spec(rate("v5p_hbm_bw_Bps", "B_per_s", 2.8e12, "HBM bandwidth"), "hbm_bw")};
constexpr Slot kE3Slots[] = {
    number("intensity_limit", "flop_per_B", "intensity as N grows"),
    number("intensity_at_sample_n", "flop_per_B", "intensity at the sample N"),
    boolean("compute_bound", "compute-bound on the VPU?"),
    formula(
        "intensity", "flop_per_B", "intensity as a formula in N (bf16)", kN,
        [](const Vars& v) { return dot_intensity(at(v, "N"), 2); }, "\\frac{2N - 1}{4N + 2}")};
constexpr Problem kE3{
    .id = "roofline.E3",
    .title = "Arithmetic intensity of a bf16 dot product",
    .statement =
        "x and y are bf16 vectors of length N ({bytes_per_elem} per element); their "
        "dot product is a bf16 scalar. What is its arithmetic intensity as a "
        "function of N, its value at N = {sample_n} and its limit for large N? A "
        "{chip} core's VPU does {v5p_vpu_flops_per_s_per_core} against {v5p_hbm_bw_Bps} of "
        "HBM: is the dot product compute-bound?",
    .kind = "formula",
    .given = kE3Given,
    .slots = kE3Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double b = in.num("bytes_per_elem"), n = in.num("sample_n");
          const double vpu = in.num("v5p_vpu_flops_per_s_per_core");
          const double bw = in.num("v5p_hbm_bw_Bps");
          Answers a;
          tr.step("FLOPs: N multiplies and N - 1 adds", kDotFlops, {n});
          tr.step("Bytes: both vectors in, one scalar out", kDotBytes, {n, b});
          a["intensity_at_sample_n"] = tr.step("Intensity at the sample N", kDotIntensity, {n, b});
          a["intensity_limit"] = tr.step("Large-N limit", kDotIntensityLimit, {b});
          const double ridge =
              tr.step("VPU ridge: one core's VPU against HBM", kCriticalIntensity, {vpu, bw});
          a["compute_bound"] = a["intensity_limit"] > ridge ? 1 : 0;
          tr.note(a["compute_bound"] ? "Above the VPU ridge: compute-bound."
                                     : "Below even the VPU ridge at every N: memory-bound, and "
                                       "batching cannot help because the intensity is a constant.");
          return a;
        },
    .hint = "Count the scalar output too; then let N grow.",
};

constexpr Param kE4Given[] = {
    rate("peak_bf16_flops_per_s", "flop_per_s", 1.97e14, "v5e bf16 peak"),
    rate("hbm_bw_Bps", "B_per_s", 8.2e11, "v5e HBM bandwidth"),
    rate("gpu_peak_bf16_flops_per_s", "flop_per_s", 9.89e14, "H100 dense bf16 peak"),
    rate("gpu_hbm_bw_Bps", "B_per_s", 3.35e12, "H100 HBM bandwidth")};
constexpr Slot kE4Slots[] = {number("b_crit_v5e", "tokens", "critical batch on v5e"),
                             number("b_crit_gpu", "tokens", "critical batch on the GPU")};
constexpr Problem kE4{
    .id = "roofline.E4",
    .title = "bf16 matmul intensity and critical batch",
    .statement =
        "For an all-bf16 matmul X[B,D] . W[D,F] with B much smaller than D and F, "
        "above which token batch B is it compute-bound on a TPU v5e "
        "({peak_bf16_flops_per_s}, HBM {hbm_bw_Bps})? And on an H100 "
        "({gpu_peak_bf16_flops_per_s} dense, HBM {gpu_hbm_bw_Bps})?",
    .kind = "numeric",
    .given = kE4Given,
    .slots = kE4Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Answers a;
          const std::pair<const char*, const char*> chips[] = {{"b_crit_v5e", "TPU v5e"},
                                                               {"b_crit_gpu", "GPU"}};
          const double peaks[] = {in.num("peak_bf16_flops_per_s"),
                                  in.num("gpu_peak_bf16_flops_per_s")};
          const double bws[] = {in.num("hbm_bw_Bps"), in.num("gpu_hbm_bw_Bps")};
          const double b_w = hw::dtype_bytes("bf16", "hbm_bw_Bps");
          tr.note(
              "With $B \\ll D, F$ the weights dominate the bytes: $I = BDF/(BD + DF + BF) \\approx "
              "B$, "
              "so the matmul is compute-bound once $B > I_{hw}$.");
          for (int i = 0; i < 2; ++i) {
            const double ih = tr.step(std::string(chips[i].second) + ": critical intensity",
                                      kCriticalIntensity, {peaks[i], bws[i]});
            a[chips[i].first] =
                tr.step(std::string(chips[i].second) + ": critical batch (bf16 weights)",
                        kCriticalBatchApprox, {b_w, ih});
          }
          return a;
        },
};

constexpr double kE5Sequences[] = {256, 1024, 2048};
constexpr double kE5TokensPerSequence[] = {2048, 8192, 32768};
constexpr double kE5NGpus[] = {256, 1024, 4096, 8192};
constexpr Param kE5Given[] = {
    count("sequences", 512, "sequences per step", kE5Sequences, 1, 1e9),
    tokens("tokens_per_sequence", 4096, "tokens per sequence", kE5TokensPerSequence),
    count("n_gpus", 2048, "devices", kE5NGpus, 1, 1e8)};
constexpr Slot kE5Slots[] = {number("global_batch_tokens", "tokens", "global batch"),
                             number("local_batch_tokens", "tokens", "tokens per device")};
constexpr Problem kE5{
    .id = "roofline.E5",
    .title = "Global versus per-device token batch",
    .statement =
        "A training step processes {sequences} sequences of {tokens_per_sequence} "
        "each on {n_gpus} GPUs. How many tokens is the global batch, and how many "
        "does each device see (the batch that B_crit is about)?",
    .kind = "numeric",
    .given = kE5Given,
    .slots = kE5Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double s = in.num("sequences"), t = in.num("tokens_per_sequence");
          const double n = in.num("n_gpus");
          Answers a;
          a["global_batch_tokens"] = tr.step("Global batch", kGlobalBatch, {s, t});
          a["local_batch_tokens"] =
              tr.step("Per-device batch", kLocalBatch, {a["global_batch_tokens"], n});
          return a;
        },
};

constexpr Param kE6Given[] = {
    chip_spec(rate("peak_bf16_flops_per_s", "flop_per_s", 1.97e14, "bf16 peak per chip"),
              "peak_flops_bf16"),
    chip_spec(rate("link_bw_one_way_Bps", "B_per_s", 4.5e10, "link bandwidth, one direction"),
              "ici_bw_oneway")};
constexpr Slot::Hint kE6DCritHints[] = {
    {2,
     "Off by 2: each chip holds only D/2 of the contraction (intensity "
     "D/2), and the full-duplex link counts one way."}};
constexpr Slot kE6Slots[] = {
    derived(number("i_crit_link", "flop_per_B", "critical intensity of the link"), From::Link),
    hinted(number("d_crit", "count", "smallest compute-bound D"), kE6DCritHints)};
constexpr Problem kE6{
    .id = "roofline.E6",
    .title = "Two-chip D-sharded matmul network roofline",
    .statement =
        "X: bf16[B, D] and Y: bf16[D, F] are split along D over two chips, each "
        "peaking at {peak_bf16_flops_per_s}. Each chip multiplies its halves and the "
        "two exchange their bf16[B, F] partial sums over a link carrying "
        "{link_bw_one_way_Bps} in each direction. What is the link's critical "
        "intensity, and above which D is the sharded matmul compute-bound?",
    .kind = "numeric",
    .given = kE6Given,
    .slots = kE6Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double p = in.num("peak_bf16_flops_per_s"), bw = in.num("link_bw_one_way_Bps");
          tr.note(
              "Per chip: $T_{math} = BDF/\\mathrm{peak}$ and $T_{comms} = 2BF/BW$, so the "
              "intensity "
              "is $D/2$ whatever $B$ is.");
          Answers a;
          a["i_crit_link"] = tr.step("Link critical intensity", kCriticalIntensity, {p, bw});
          a.slip("i_crit_link", critical_intensity(p, 2 * bw),
                 "That divides by the bidirectional bandwidth: each chip sends its partial sum "
                 "one way over the full-duplex link, so the one-way figure applies.");
          // Each chip sends its partial sum in bf16: b_o = 2 bytes.
          a["d_crit"] = tr.step("Compute-bound iff $D/b_o > I_{link}$", kNetworkDCrit,
                                {p, bw, hw::dtype_bytes("bf16", "link_bw_one_way_Bps")});
          return a;
        },
};

constexpr Problem kE6b{
    .id = "roofline.E6b",
    .title = "Why the network threshold ignores batch",
    .statement =
        "In the two-chip D-sharded matmul, explain why whether it is compute-bound "
        "depends on D and not on the batch B.",
    .kind = "conceptual",
    .model_answer =
        "Per chip, the work is 2B(D/2)F = BDF FLOPs and the traffic is one bf16[B, F] partial "
        "sum, 2BF bytes. Both grow in proportion to B, so B divides out of their ratio: the "
        "intensity is D/2, the slice of the contraction each chip does for every byte it "
        "sends. A bigger batch adds work and traffic in equal measure; only a longer "
        "contraction adds work without adding bytes, so the test is D/2 > peak / link "
        "bandwidth.",
};

constexpr double kE7SampleM[] = {4096, 16384};
constexpr double kE7SampleK[] = {4096, 16384};
constexpr double kE7SampleN[] = {4096, 16384};
constexpr double kE7SampleBm[] = {128, 256, 1024};
constexpr double kE7SampleBk[] = {128, 256, 1024};
constexpr double kE7SampleBn[] = {128, 256, 1024};
constexpr Param kE7Given[] = {elem_bytes(2, "bytes per element (bf16)"),
                              count("sample_m", 8192, "m", kE7SampleM),
                              count("sample_k", 8192, "k", kE7SampleK),
                              count("sample_n", 8192, "n", kE7SampleN),
                              count("sample_bm", 512, "tile rows bm", kE7SampleBm),
                              count("sample_bk", 512, "tile depth bk", kE7SampleBk),
                              count("sample_bn", 512, "tile columns bn", kE7SampleBn)};
constexpr Slot::Hint kE7FlopsHints[] = {{2, kTwoForMultiplyAdd}};
constexpr Slot kE7Slots[] = {
    hinted(number("flops", "flop", "FLOPs"), kE7FlopsHints), number("bytes", "B", "bytes moved"),
    number("intensity_full", "flop_per_B", "intensity"),
    number("intensity_approx", "flop_per_B", "intensity, output write neglected"),
    formula(
        "intensity_formula", "flop_per_B", "intensity without the output write, in bm and bn",
        kBmBn, [](const Vars& v) { return tiled_intensity_approx(at(v, "bm"), at(v, "bn"), 2); },
        "\\frac{b_m b_n}{b_m + b_n}")};
constexpr Problem kE7{
    .id = "roofline.E7",
    .title = "Arithmetic intensity of a tiled matmul",
    .statement =
        "An (m, k) . (k, n) bf16 matmul ({bytes_per_elem} per element) with m = "
        "{sample_m}, k = {sample_k}, n = {sample_n} runs in tiles of bm = "
        "{sample_bm}, bk = {sample_bk}, bn = {sample_bn}. Each output tile streams "
        "its strip of the left and right operands through fast memory and is written "
        "back once. Count the FLOPs and the bytes, the intensity, and the intensity "
        "when the output write is neglected (as a formula in bm and bn, too).",
    .kind = "formula",
    .given = kE7Given,
    .slots = kE7Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const Tiling t{in.num("sample_m"),  in.num("sample_k"),  in.num("sample_n"),
                         in.num("sample_bm"), in.num("sample_bk"), in.num("sample_bn")};
          if (t.bm > t.m) fail("sample_bm", "sample_bm must not exceed sample_m", "out_of_range");
          if (t.bk > t.k) fail("sample_bk", "sample_bk must not exceed sample_k", "out_of_range");
          if (t.bn > t.n) fail("sample_bn", "sample_bn must not exceed sample_n", "out_of_range");
          const double b = in.num("bytes_per_elem");
          const double tm = tr.step("Tiles along m", kTilesM, {t.m, t.bm});
          const double tk = tr.step("Tiles along k", kTilesK, {t.k, t.bk});
          const double tn = tr.step("Tiles along n", kTilesN, {t.n, t.bn});
          tr.step("Tiles in all", kTileCount, {tm, tk, tn});
          Answers a;
          a["flops"] = tr.step("FLOPs", kTiledFlops, {tm, tn, tk, t.bm, t.bn, t.bk});
          a["bytes"] = tr.step("Bytes", kTiledBytes, {tm, tn, tk, t.bm, t.bk, t.bn, b});
          a["intensity_full"] = tr.step("Intensity", kIntensity, {a["flops"], a["bytes"]});
          a["intensity_approx"] =
              tr.step("Without the output write", kTiledIntensityApprox, {t.bm, t.bn, b});
          return a;
        },
    .erratum =
        "Until May 2026 the book's tiling footnote counted the output-tile write twice "
        "(2 bm bn per tile); the current text counts it once, b_m b_n elements, as "
        "here.",
};

constexpr double kE8TMath[] = {1e-4, 5e-4, 2e-3};
constexpr double kE8TComms[] = {1e-4, 1e-3, 3e-3};
constexpr Param kE8Given[] = {
    ranged("t_math", "s", 1e-3, "an example T_math", 1e-12, 1e6, kE8TMath),
    ranged("t_comms", "s", 6e-4, "an example T_comms", 1e-12, 1e6, kE8TComms)};
constexpr Problem kE8{
    .id = "roofline.E8",
    .title = "Overlap bounds are within 2x",
    .statement =
        "Show that the no-overlap estimate T_math + T_comms is never more than twice "
        "the full-overlap estimate max(T_math, T_comms). (Example: T_math = "
        "{t_math}, T_comms = {t_comms}.)",
    .kind = "conceptual",
    .given = kE8Given,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double a = in.num("t_math"), c = in.num("t_comms");
          const double lo = tr.step("Full overlap", kTLower, {a, c});
          const double hi = tr.step("No overlap", kTUpper, {a, c});
          tr.step("Ratio, always between 1 and 2", kOverlapRatio, {hi, lo});
          return Answers{};
        },
    .model_answer =
        "Call the larger of the two times M and the smaller m, with 0 <= m <= M. Full overlap "
        "costs M; no overlap costs M + m. Since m <= M, M + m <= 2M, and since m >= 0, "
        "M <= M + m. So max <= sum <= 2 max: the sum is at most twice the max, with equality "
        "when the two times are equal, which is exactly when overlap helps most.",
};

constexpr Problem kExamples[] = {kE1, kE2, kE3, kE4, kE5, kE6, kE6b, kE7, kE8};

}  // namespace

void add_problems_examples(Registry& r) { r.add(kExamples); }

}  // namespace sb::roofline
