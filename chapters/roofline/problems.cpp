// The roofline chapter's worked examples and end-of-chapter problems. Ids, slot names and units
// are the catalogue's (shared/book/problems/roofline.json); every expected answer is computed by
// the model from the problem's own inputs, so "new variant" just feeds other inputs.
// The records are constant data (see core/registry.hpp); only solve() and the formula slots run.
#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "chapters/roofline/model.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"

// Problems are written with designated initializers; the members left out are meant to keep
// their defaults, which is what this warning complains about.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::roofline {
namespace {

using Vars = std::map<std::string, double>;

constexpr Param tokens(Text name, double def, Text doc, Variants variants = {}) {
  Param p = count(name, def, doc, variants, 1, 1e9);
  p.unit = "tokens";
  return p;
}
// Element size in bytes: one of the sizes the book uses (fp32 4 ... int4 0.5).
constexpr Param elem_bytes(double def, Text doc) {
  return num("bytes_per_elem", "B", def, doc, 0.5, 8);
}

double at(const Vars& v, const char* k) { return v.at(k); }

// Sampling ranges for the book's symbols (log-uniform).
constexpr Slot::Var kB{"B", "batch tokens", 1, 4096};
constexpr Slot::Var kD{"D", "contracting dimension", 128, 65536};
constexpr Slot::Var kF{"F", "output dimension", 128, 65536};
constexpr Slot::Var kBDF[] = {kB, kD, kF};
constexpr Slot::Var kN[] = {{"N", "vector length", 1, 1e6}};
constexpr Slot::Var kBmBn[] = {{"bm", "output-tile rows", 8, 4096},
                               {"bn", "output-tile columns", 8, 4096}};
constexpr Slot::Var kBDFPW[] = {
    kB, kD, kF, {"P", "int8 peak OPs/s", 1e13, 1e16}, {"W", "HBM bandwidth in B/s", 1e10, 1e13}};

constexpr Text kTwoForMultiplyAdd =
    "Each (b, d, f) term is one multiply and one add: a matmul is 2BDF operations, not BDF.";
constexpr Text kInt8OneByte = "int8 is 1 byte per element, not 2 as for bf16.";

// Peaks and bandwidths from the chip tables, for variants.
constexpr double kPeaks[] = {1.97e14, 4.59e14, 9.2e14, 2.3e15};
constexpr double kHbm[] = {8.2e11, 1.6e12, 2.8e12, 7.4e12};

// ---- Worked examples in the text -------------------------------------------------------------

constexpr double kE1WorkFlops[] = {1e11, 5e12, 1e13, 1e15};
constexpr double kE1H100PeakBf16FlopsPerS[] = {9.89e14, 1.979e15 / 2};
constexpr double kE1V6ePeakBf16FlopsPerS[] = {9.1e14, 9.2e14};
constexpr Param kE1Given[] = {given("work_flops", "flop", 1e12, "FLOPs to perform", kE1WorkFlops),
                              given("h100_peak_bf16_flops_per_s", "flop_per_s", 9.89e14,
                                    "H100 dense bf16 peak", kE1H100PeakBf16FlopsPerS),
                              given("v6e_peak_bf16_flops_per_s", "flop_per_s", 9.1e14,
                                    "v6e bf16 peak", kE1V6ePeakBf16FlopsPerS)};
constexpr Slot kE1Slots[] = {number("t_math_h100", "s", "time on the H100"),
                             number("t_math_v6e", "s", "time on the v6e")};
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
          a["t_math_h100"] = tr.step("H100", "T_{math} = \\mathrm{FLOPs} / \\mathrm{peak}",
                                     "\\frac{#}{#}", {w, ph}, t_math(w, ph), "s");
          a["t_math_v6e"] = tr.step("TPU v6e", "T_{math} = \\mathrm{FLOPs} / \\mathrm{peak}",
                                    "\\frac{#}{#}", {w, pv}, t_math(w, pv), "s");
          return a;
        },
    .hint = "Compute time is the work divided by the rate; mind the ms.",
};

constexpr Param kE2Given[] = {
    given("peak_bf16_flops_per_s", "flop_per_s", 1.97e14, "bf16 peak", kPeaks),
    given("hbm_bw_Bps", "B_per_s", 8.2e11, "HBM bandwidth", kHbm)};
constexpr Slot kE2Slots[] = {number("i_crit", "flop_per_B", "critical intensity")};
constexpr Problem kE2{
    .id = "roofline.E2",
    .title = "v5e MXU critical intensity versus HBM",
    .statement =
        "A TPU v5e peaks at {peak_bf16_flops_per_s} in bf16 and reads HBM at "
        "{hbm_bw_Bps}. How many FLOPs must an operation do per byte it loads to keep "
        "the MXU busy?",
    .kind = "numeric",
    .given = kE2Given,
    .slots = kE2Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double p = in.num("peak_bf16_flops_per_s"), bw = in.num("hbm_bw_Bps");
          return Answers{{"i_crit", tr.step("Critical intensity", "I_{hw} = \\mathrm{peak} / BW",
                                            "\\frac{#}{#}", {p, bw}, critical_intensity(p, bw),
                                            "flop_per_B")}};
        },
};

constexpr double kE3SampleN[] = {128, 4096, 65536, 1000000};
constexpr double kE3V5pVpuFlopsPerSPerCore[] = {7e12, 1.4e13};
constexpr double kE3V5pHbmBwBps[] = {2.8e12};
constexpr Param kE3Given[] = {
    elem_bytes(2, "bytes per element (bf16)"),
    count("sample_n", 1024, "N to evaluate at", kE3SampleN),
    given("v5p_vpu_flops_per_s_per_core", "flop_per_s", 7e12, "VPU FLOPs/s, one core",
          kE3V5pVpuFlopsPerSPerCore),
    given("v5p_hbm_bw_Bps", "B_per_s", 2.8e12, "v5p HBM bandwidth", kE3V5pHbmBwBps)};
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
        "function of N, its value at N = {sample_n} and its limit for large N? A v5p "
        "core's VPU does {v5p_vpu_flops_per_s_per_core} against {v5p_hbm_bw_Bps} of "
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
          tr.step("FLOPs: N multiplies and N - 1 adds", "2N - 1", "2 \\cdot # - 1", {n},
                  dot_flops(n), "flop");
          tr.step("Bytes: both vectors in, one scalar out", "2bN + b", "2 \\cdot # \\cdot # + #",
                  {b, n, b}, dot_bytes(n, b), "B");
          a["intensity_at_sample_n"] =
              tr.step("Intensity at the sample N", "\\frac{2N - 1}{2bN + b}", "\\frac{#}{#}",
                      {dot_flops(n), dot_bytes(n, b)}, dot_intensity(n, b), "flop_per_B");
          a["intensity_limit"] = tr.step("Large-N limit", "\\lim I = 2 / 2b", "1 / #", {b},
                                         dot_intensity_limit(b), "flop_per_B");
          const double ridge =
              tr.step("VPU ridge against HBM", "I_{VPU} = \\mathrm{VPU} / BW", "\\frac{#}{#}",
                      {vpu, bw}, critical_intensity(vpu, bw), "flop_per_B");
          a["compute_bound"] = a["intensity_limit"] > ridge ? 1 : 0;
          tr.note(a["compute_bound"] ? "Above the VPU ridge: compute-bound."
                                     : "Below even the VPU ridge at every N: memory-bound, and "
                                       "batching cannot help because the intensity is a constant.");
          return a;
        },
    .hint = "Count the scalar output too; then let N grow.",
};

constexpr double kE4GpuPeakBf16FlopsPerS[] = {9.89e14, 2.25e15};
constexpr double kE4GpuHbmBwBps[] = {3.35e12, 8e12};
constexpr Param kE4Given[] = {
    given("peak_bf16_flops_per_s", "flop_per_s", 1.97e14, "v5e bf16 peak", kPeaks),
    given("hbm_bw_Bps", "B_per_s", 8.2e11, "v5e HBM bandwidth", kHbm),
    given("gpu_peak_bf16_flops_per_s", "flop_per_s", 9.89e14, "H100 dense bf16 peak",
          kE4GpuPeakBf16FlopsPerS),
    given("gpu_hbm_bw_Bps", "B_per_s", 3.35e12, "H100 HBM bandwidth", kE4GpuHbmBwBps)};
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
          tr.note(
              "With B << D, F the weights dominate the bytes: I = BDF/(BD + DF + BF) ~ B, so "
              "the matmul is compute-bound once B > I_hw.");
          for (int i = 0; i < 2; ++i) {
            const double ih =
                tr.step(std::string(chips[i].second) + ": critical intensity",
                        "I_{hw} = \\mathrm{peak} / BW", "\\frac{#}{#}", {peaks[i], bws[i]},
                        critical_intensity(peaks[i], bws[i]), "flop_per_B");
            a[chips[i].first] = tr.step(std::string(chips[i].second) + ": critical batch",
                                        "B_{crit} \\approx b_w I_{hw} / 2", "\\frac{2 \\cdot #}{2}",
                                        {ih}, critical_batch_approx(2, ih), "tokens");
          }
          return a;
        },
};

constexpr double kE5Sequences[] = {256, 1024, 2048};
constexpr double kE5TokensPerSequence[] = {2048, 8192, 32768};
constexpr double kE5NGpus[] = {256, 1024, 4096, 8192};
constexpr Param kE5Given[] = {
    given("sequences", "count", 512, "sequences per step", kE5Sequences, true),
    given("tokens_per_sequence", "tokens", 4096, "tokens per sequence", kE5TokensPerSequence, true),
    given("n_gpus", "count", 2048, "devices", kE5NGpus, true)};
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
          a["global_batch_tokens"] =
              tr.step("Global batch", "B_{global} = \\mathrm{sequences} \\cdot \\mathrm{tokens}",
                      "# \\cdot #", {s, t}, global_batch_tokens(s, t), "tokens");
          a["local_batch_tokens"] =
              tr.step("Per-device batch", "B_{local} = B_{global} / N", "\\frac{#}{#}",
                      {a["global_batch_tokens"], n},
                      local_batch_tokens(a["global_batch_tokens"], n), "tokens");
          return a;
        },
};

constexpr double kE6LinkBwOneWayBps[] = {4.5e10, 9e10, 1e11, 1.6e10};
constexpr Param kE6Given[] = {
    given("peak_bf16_flops_per_s", "flop_per_s", 1.97e14, "bf16 peak per chip", kPeaks),
    given("link_bw_one_way_Bps", "B_per_s", 4.5e10, "link bandwidth, one direction",
          kE6LinkBwOneWayBps)};
constexpr Slot::Hint kE6DCritHints[] = {
    {2,
     "Off by 2: each chip holds only D/2 of the contraction (intensity "
     "D/2), and the full-duplex link counts one way."}};
constexpr Slot kE6Slots[] = {
    number("i_crit_link", "flop_per_B", "critical intensity of the link"),
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
              "Per chip: T_math = BDF/peak and T_comms = 2BF/BW, so the intensity is D/2 "
              "whatever B is.");
          Answers a;
          a["i_crit_link"] =
              tr.step("Link critical intensity", "I_{link} = \\mathrm{peak} / BW", "\\frac{#}{#}",
                      {p, bw}, critical_intensity(p, bw), "flop_per_B");
          a["d_crit"] = tr.step("Compute-bound iff D/2 > I_link", "D_{crit} = 2 I_{link}",
                                "2 \\cdot #", {a["i_crit_link"]}, network_d_crit(p, bw), "count");
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
          const double tm = tiles(t.m, t.bm), tk = tiles(t.k, t.bk), tn = tiles(t.n, t.bn);
          tr.step("Tiles t_m t_k t_n", "t_m t_k t_n", "# \\cdot # \\cdot #", {tm, tk, tn},
                  tm * tk * tn, "count");
          Answers a;
          a["flops"] = tr.step("FLOPs", "2 t_m t_n t_k b_m b_n b_k",
                               "2 \\cdot # \\cdot # \\cdot # \\cdot # \\cdot # \\cdot #",
                               {tm, tn, tk, t.bm, t.bn, t.bk}, tiled_flops(t), "flop");
          a["bytes"] = tr.step("Bytes", "b\\, t_m t_n (t_k (b_m b_k + b_k b_n) + b_m b_n)",
                               "# \\cdot # \\cdot # (# (# + #) + #)",
                               {b, tm, tn, tk, t.bm * t.bk, t.bk * t.bn, t.bm * t.bn},
                               tiled_bytes(t, b), "B");
          a["intensity_full"] =
              tr.step("Intensity", "\\mathrm{FLOPs} / \\mathrm{bytes}", "\\frac{#}{#}",
                      {a["flops"], a["bytes"]}, tiled_intensity(t, b), "flop_per_B");
          a["intensity_approx"] =
              tr.step("Without the output write", "\\frac{2}{b} \\cdot \\frac{b_m b_n}{b_m + b_n}",
                      "\\frac{2}{#} \\cdot \\frac{# \\cdot #}{# + #}", {b, t.bm, t.bn, t.bm, t.bn},
                      tiled_intensity_approx(t.bm, t.bn, b), "flop_per_B");
          return a;
        },
    .erratum =
        "Until May 2026 the book's tiling footnote counted the output-tile write twice "
        "(2 bm bn per tile); the current text counts it once, b_m b_n elements, as "
        "here.",
};

constexpr double kE8TMath[] = {1e-4, 5e-4, 2e-3};
constexpr double kE8TComms[] = {1e-4, 1e-3, 3e-3};
constexpr Param kE8Given[] = {given("t_math", "s", 1e-3, "an example T_math", kE8TMath),
                              given("t_comms", "s", 6e-4, "an example T_comms", kE8TComms)};
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
          const double lo = tr.step("Full overlap", "T_{lower} = \\max(T_{math}, T_{comms})",
                                    "\\max(#, #)", {a, c}, t_lower(a, c), "s");
          const double hi = tr.step("No overlap", "T_{upper} = T_{math} + T_{comms}", "# + #",
                                    {a, c}, t_upper(a, c), "s");
          tr.step("Ratio, always between 1 and 2", "T_{upper} / T_{lower}", "\\frac{#}{#}",
                  {hi, lo}, hi / lo, "ratio");
          return Answers{};
        },
    .model_answer =
        "Call the larger of the two times M and the smaller m, with 0 <= m <= M. Full overlap "
        "costs M; no overlap costs M + m. Since m <= M, M + m <= 2M, and since m >= 0, "
        "M <= M + m. So max <= sum <= 2 max: the sum is at most twice the max, with equality "
        "when the two times are equal, which is exactly when overlap helps most.",
};

constexpr Problem kExamples[] = {kE1, kE2, kE3, kE4, kE5, kE6, kE6b, kE7, kE8};

// ---- End-of-chapter problems ----------------------------------------------------------------

// Shape inputs shared by the Q1 parts and Q4.
constexpr double kSampleBs[] = {64, 128, 512, 1024};
constexpr double kSampleDs[] = {4096, 16384};
constexpr double kSampleFs[] = {16384, 65536};
constexpr Param kSampleB = tokens("sample_b_tokens", 256, "batch B (tokens)", kSampleBs);
constexpr Param kSampleD = count("sample_d", 8192, "contracting dimension D", kSampleDs);
constexpr Param kSampleF = count("sample_f", 32768, "output dimension F", kSampleFs);

MatmulShape shape_of(const Inputs& in) {
  return {in.num("sample_b_tokens"), in.num("sample_d"), in.num("sample_f")};
}

constexpr Param kQ1aGiven[] = {elem_bytes(1, "bytes per element (int8)"), kSampleB, kSampleD,
                               kSampleF};
constexpr Slot::Hint kQ1aBytesReadHints[] = {{2, kInt8OneByte}};
constexpr Slot::Hint kQ1aBytesWrittenHints[] = {{2, kInt8OneByte}};
constexpr Slot::Hint kQ1aBytesTotalHints[] = {{2, "int8 is 1 byte per element, not 2."}};
constexpr Slot kQ1aSlots[] = {
    hinted(number("bytes_read", "B", "bytes read (X and Y)"), kQ1aBytesReadHints),
    hinted(number("bytes_written", "B", "bytes written (Z)"), kQ1aBytesWrittenHints),
    hinted(formula(
               "bytes_total", "B", "total bytes as a formula in B, D, F", kBDF,
               [](const Vars& v) {
                 return matmul_bytes({at(v, "B"), at(v, "D"), at(v, "F")}, {1, 1, 1});
               },
               "BD + DF + BF"),
           kQ1aBytesTotalHints)};
constexpr Problem kQ1a{
    .id = "roofline.Q1.a",
    .title = "Bytes moved by an int8 matmul",
    .statement =
        "X[B, D] . Y[D, F] -> Z[B, F] with every array in int8 ({bytes_per_elem} per "
        "element). How many bytes are read from HBM and how many written back? Give "
        "the total as a formula in B, D, F, and the two counts at B = "
        "{sample_b_tokens}, D = {sample_d}, F = {sample_f}.",
    .kind = "formula",
    .given = kQ1aGiven,
    .slots = kQ1aSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double e = in.num("bytes_per_elem");
          const MatmulShape s = shape_of(in);
          const MatmulCost c = matmul_cost(s, {e, e, e});
          Answers a;
          a["bytes_read"] = tr.step("Read X and Y", "b (BD + DF)", "# (# + #)",
                                    {e, s.B * s.D, s.D * s.F}, c.bytes_read(), "B");
          a["bytes_written"] =
              tr.step("Write Z", "b BF", "# \\cdot #", {e, s.B * s.F}, c.bytes_written(), "B");
          tr.step("Total", "b (BD + DF + BF)", "# + #", {a["bytes_read"], a["bytes_written"]},
                  c.bytes(), "B");
          return a;
        },
};

constexpr Param kQ1bGiven[] = {kSampleB, kSampleD, kSampleF};
constexpr Slot::Hint kQ1bOpsHints[] = {{2, kTwoForMultiplyAdd}};
constexpr Slot::Hint kQ1bOpsFormulaHints[] = {{2, kTwoForMultiplyAdd}};
constexpr Slot kQ1bSlots[] = {
    hinted(number("ops", "flop", "operations"), kQ1bOpsHints),
    hinted(formula(
               "ops_formula", "flop", "operations as a formula in B, D, F", kBDF,
               [](const Vars& v) {
                 return matmul_flops({at(v, "B"), at(v, "D"), at(v, "F")});
               },
               "2BDF"),
           kQ1bOpsFormulaHints)};
constexpr Problem kQ1b{
    .id = "roofline.Q1.b",
    .title = "Operation count of an int8 matmul",
    .statement =
        "For the same int8 matmul X[B, D] . Y[D, F], how many integer operations are "
        "performed? Give a formula in B, D, F and its value at B = "
        "{sample_b_tokens}, D = {sample_d}, F = {sample_f}.",
    .kind = "formula",
    .given = kQ1bGiven,
    .slots = kQ1bSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const MatmulShape s = shape_of(in);
          return Answers{{"ops", tr.step("One multiply and one add per (b, d, f)", "2BDF",
                                         "2 \\cdot # \\cdot # \\cdot #", {s.B, s.D, s.F},
                                         matmul_flops(s), "flop")}};
        },
};

constexpr double kQ1cPeakInt8OpsPerS[] = {3.94e14, 9.18e14, 1.84e15};
constexpr Param kQ1cGiven[] = {
    elem_bytes(1, "bytes per element (int8)"),
    given("peak_int8_ops_per_s", "flop_per_s", 3.94e14, "int8 peak", kQ1cPeakInt8OpsPerS),
    given("hbm_bw_Bps", "B_per_s", 8.2e11, "HBM bandwidth", kHbm)};
constexpr Slot::Hint kQ1cBCritHints[] = {
    {2,
     "With 1-byte weights I ~ 2BDF / DF = 2B: the batch only has to "
     "reach half the critical intensity."}};
constexpr Slot kQ1cSlots[] = {number("i_hw_int8", "flop_per_B", "critical intensity (int8)"),
                              hinted(number("b_crit", "tokens", "critical batch"), kQ1cBCritHints)};
constexpr Problem kQ1c{
    .id = "roofline.Q1.c",
    .title = "int8 matmul intensity and critical batch",
    .statement =
        "The same all-int8 matmul ({bytes_per_elem} per element) runs on a TPU v5e "
        "whose int8 rate is {peak_int8_ops_per_s} (OPs/s) and whose HBM moves "
        "{hbm_bw_Bps}. "
        "What is the chip's critical intensity for int8, and above which batch B "
        "(B much smaller than D and F) is the matmul compute-bound?",
    .kind = "numeric",
    .given = kQ1cGiven,
    .slots = kQ1cSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double e = in.num("bytes_per_elem");
          const double p = in.num("peak_int8_ops_per_s"), bw = in.num("hbm_bw_Bps");
          Answers a;
          a["i_hw_int8"] =
              tr.step("Critical intensity", "I_{hw} = \\mathrm{peak}_{int8} / BW", "\\frac{#}{#}",
                      {p, bw}, critical_intensity(p, bw), "flop_per_B");
          tr.note("I = 2BDF / (BD + DF + BF) ~ 2B / b when B << D, F.");
          a["b_crit"] = tr.step("Critical batch", "B_{crit} \\approx b \\, I_{hw} / 2",
                                "\\frac{# \\cdot #}{2}", {e, a["i_hw_int8"]},
                                critical_batch_approx(e, a["i_hw_int8"]), "tokens");
          return a;
        },
};

constexpr double kQ1dPeakInt8OpsPerS[] = {3.94e14, 9.18e14, 1.84e15};
constexpr Param kQ1dGiven[] = {
    elem_bytes(1, "bytes per element (int8)"),
    given("peak_int8_ops_per_s", "flop_per_s", 3.94e14, "int8 peak P", kQ1dPeakInt8OpsPerS),
    given("hbm_bw_Bps", "B_per_s", 8.2e11, "HBM bandwidth W", kHbm),
    kSampleB,
    kSampleD,
    kSampleF};
constexpr Slot::Hint kQ1dTMathHints[] = {{2, kTwoForMultiplyAdd}};
constexpr Slot::Hint kQ1dTCommsHints[] = {{2, kInt8OneByte}};
constexpr Slot kQ1dSlots[] = {
    hinted(number("t_math", "s", "T_math"), kQ1dTMathHints),
    hinted(number("t_comms", "s", "T_comms"), kQ1dTCommsHints),
    number("t_lower", "s", "T_lower (full overlap)"),
    number("t_upper", "s", "T_upper (no overlap)"),
    formula(
        "t_lower_formula", "s", "T_lower as a formula in B, D, F, P, W", kBDFPW,
        [](const Vars& v) {
          return matmul_t_lower({at(v, "B"), at(v, "D"), at(v, "F")}, {1, 1, 1}, at(v, "P"),
                                at(v, "W"));
        },
        "\\max\\left(\\frac{2BDF}{P}, \\frac{BD + DF + BF}{W}\\right)")};
constexpr Problem kQ1d{
    .id = "roofline.Q1.d",
    .title = "Roofline time bounds for int8 matmul",
    .statement =
        "For the all-int8 matmul at B = {sample_b_tokens}, D = {sample_d}, F = "
        "{sample_f} on a chip with P = {peak_int8_ops_per_s} and W = {hbm_bw_Bps}, "
        "estimate T_math and T_comms, and the lower (full overlap) and upper (no "
        "overlap) bounds on the runtime. Give the lower bound as a formula too.",
    .kind = "formula",
    .given = kQ1dGiven,
    .slots = kQ1dSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double e = in.num("bytes_per_elem");
          const double p = in.num("peak_int8_ops_per_s"), bw = in.num("hbm_bw_Bps");
          const MatmulShape s = shape_of(in);
          const MatmulCost c = matmul_cost(s, {e, e, e});
          Answers a;
          a["t_math"] = tr.step("Compute time", "T_{math} = 2BDF / P",
                                "\\frac{2 \\cdot # \\cdot # \\cdot #}{#}", {s.B, s.D, s.F, p},
                                t_math(c.flops, p), "s");
          a["t_comms"] = tr.step("HBM time", "T_{comms} = b (BD + DF + BF) / W", "\\frac{#}{#}",
                                 {c.bytes(), bw}, t_comms(c.bytes(), bw), "s");
          a["t_lower"] =
              tr.step("Full overlap", "T_{lower} = \\max(T_{math}, T_{comms})", "\\max(#, #)",
                      {a["t_math"], a["t_comms"]}, t_lower(a["t_math"], a["t_comms"]), "s");
          a["t_upper"] =
              tr.step("No overlap", "T_{upper} = T_{math} + T_{comms}", "# + #",
                      {a["t_math"], a["t_comms"]}, t_upper(a["t_math"], a["t_comms"]), "s");
          tr.note(bound_name(verdict(a["t_math"], a["t_comms"])) +
                  std::string(", though the two times are close at this shape."));
          return a;
        },
};

constexpr Param kQ2Given[] = {
    dtype_param("dtype_w", "int8", "storage type of the weights"),
    given("peak_bf16_flops_per_s", "flop_per_s", 1.97e14, "bf16 peak", kPeaks),
    given("hbm_bw_Bps", "B_per_s", 8.2e11, "HBM bandwidth", kHbm)};
constexpr Slot::Hint kQ2BCritHints[] = {
    {2,
     "The weights set the bytes: with 1-byte weights I ~ 2B, so the "
     "critical batch is half of I_hw, while the arithmetic stays at the "
     "bf16 rate."}};
constexpr Slot kQ2Slots[] = {hinted(number("b_crit", "tokens", "critical batch"), kQ2BCritHints)};
constexpr Problem kQ2{
    .id = "roofline.Q2",
    .title = "int8 weights with bf16 activations",
    .statement =
        "Activations X are bf16[B, D], the weights W are stored as {dtype_w}[D, F] "
        "and the output is bf16[B, F]; the arithmetic runs in bf16 at "
        "{peak_bf16_flops_per_s} with {hbm_bw_Bps} of HBM bandwidth. Above which "
        "batch B (much smaller than D and F) is the matmul compute-bound?",
    .kind = "numeric",
    .given = kQ2Given,
    .slots = kQ2Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double bw_bytes = hw::dtype_bytes(in.text("dtype_w"), "dtype_w");
          const double p = in.num("peak_bf16_flops_per_s"), bw = in.num("hbm_bw_Bps");
          const double ih =
              tr.step("Critical intensity (bf16 arithmetic)", "I_{hw} = \\mathrm{peak}_{bf16} / BW",
                      "\\frac{#}{#}", {p, bw}, critical_intensity(p, bw), "flop_per_B");
          tr.note("Weight bytes dominate: I ~ 2BDF / (b_w DF) = 2B / b_w.");
          return Answers{{"b_crit", tr.step("Critical batch", "B_{crit} \\approx b_w I_{hw} / 2",
                                            "\\frac{# \\cdot #}{2}", {bw_bytes, ih},
                                            critical_batch_approx(bw_bytes, ih), "tokens")}};
        },
};

constexpr Param kQ3Given[] = {
    given("peak_bf16_flops_per_s", "flop_per_s", 1.97e14, "bf16 peak", kPeaks),
    given("hbm_bw_Bps", "B_per_s", 8.2e11, "HBM bandwidth", kHbm),
    count("d_f_large", 4096, "D = F, the larger shape"),
    count("d_f_small", 1024, "D = F, the smaller shape"),
    num("b_min", "count", 1, "smallest batch (tokens) on the curve", 1, 1e6, true),
    num("b_max", "count", 511, "largest batch (tokens) on the curve", 1, 1e6, true)};
constexpr Slot kQ3Slots[] = {
    number("b_crit_d4096", "tokens", "critical batch, larger D = F"),
    number("b_crit_d1024", "tokens", "critical batch, smaller D = F"),
    number("b_crit_ratio_small_to_large", "ratio", "ratio small / large"),
    number("flops_per_s_b64_d4096", "flop_per_s", "FLOPs/s at B = 64, larger"),
    number("flops_per_s_b64_d1024", "flop_per_s", "FLOPs/s at B = 64, smaller"),
    number("flops_per_s_b128_d4096", "flop_per_s", "FLOPs/s at B = 128, larger"),
    number("flops_per_s_b128_d1024", "flop_per_s", "FLOPs/s at B = 128, smaller"),
    number("flops_per_s_b200_d4096", "flop_per_s", "FLOPs/s at B = 200, larger"),
    number("flops_per_s_b200_d1024", "flop_per_s", "FLOPs/s at B = 200, smaller"),
    number("flops_per_s_b511_d1024", "flop_per_s", "FLOPs/s at B = 511, smaller")};
constexpr Problem kQ3{
    .id = "roofline.Q3",
    .title = "Roofline curve for int8-weight bf16 matmul",
    .statement =
        "Keep the Q2 setup (bf16 X and Z, int8 W, bf16 arithmetic at "
        "{peak_bf16_flops_per_s}, HBM {hbm_bw_Bps}) but count every byte exactly: "
        "2BD + DF + 2BF. For D = F = {d_f_large} and D = F = {d_f_small}, find the "
        "batch at which each becomes compute-bound, the ratio of the two, and the "
        "achieved FLOPs/s at a few batch sizes between {b_min} and {b_max}.",
    .kind = "numeric",
    .given = kQ3Given,
    .slots = kQ3Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double p = in.num("peak_bf16_flops_per_s"), bw = in.num("hbm_bw_Bps");
          const double big = in.num("d_f_large"), small = in.num("d_f_small");
          if (in.num("b_min") > in.num("b_max"))
            fail("b_min", "b_min must not exceed b_max", "out_of_range");
          const OperandBytes ob{2, 1, 2};  // bf16 X, int8 W, bf16 Z
          const double ih =
              tr.step("Critical intensity", "I_{hw} = \\mathrm{peak} / BW", "\\frac{#}{#}", {p, bw},
                      critical_intensity(p, bw), "flop_per_B");
          Answers a;
          const std::pair<const char*, double> shapes[] = {{"d4096", big}, {"d1024", small}};
          for (const auto& [tag, d] : shapes) {
            const auto b = critical_batch_exact(d, d, ob, ih);
            if (b) {
              a[std::string("b_crit_") + tag] = tr.step(
                  "Exact crossover at D = F = " + tex(d),
                  "B_{crit} = \\frac{DF}{2DF / I_{hw} - 2D - 2F}",
                  "\\frac{#}{2 \\cdot # / # - 4 \\cdot #}", {d * d, d * d, ih, d}, *b, "tokens");
            } else {
              a[std::string("b_crit_") + tag] = NAN;
              tr.note("At D = F = " + tex(d) +
                      " the activation and output bytes alone outpace "
                      "the arithmetic: no batch is compute-bound.");
            }
          }
          a["b_crit_ratio_small_to_large"] =
              tr.step("Ratio", "B_{crit}(small) / B_{crit}(large)", "\\frac{#}{#}",
                      {a["b_crit_d1024"], a["b_crit_d4096"]}, a["b_crit_d1024"] / a["b_crit_d4096"],
                      "ratio");
          // Achieved FLOPs/s = 2BDF / max(T_math, T_comms) on the exact byte count.
          auto achieved = [&](double B, double d) {
            const MatmulCost c = matmul_cost({B, d, d}, ob);
            const double tm = t_math(c.flops, p), tc = t_comms(c.bytes(), bw);
            return tr.step("Achieved FLOPs/s at B = " + tex(B) + ", D = F = " + tex(d),
                           "\\frac{2BDF}{\\max(2BDF / \\mathrm{peak},\\ (2BD + DF + 2BF) / BW)}",
                           "\\frac{#}{\\max(#, #)}", {c.flops, tm, tc},
                           achieved_flops_per_s(c.flops, tm, tc), "flop_per_s");
          };
          for (int B : {64, 128, 200}) {
            a["flops_per_s_b" + std::to_string(B) + "_d4096"] = achieved(B, big);
            a["flops_per_s_b" + std::to_string(B) + "_d1024"] = achieved(B, small);
          }
          a["flops_per_s_b511_d1024"] = achieved(511, small);
          achieved(in.num("b_min"), small);
          achieved(in.num("b_max"), big);
          return a;
        },
    .hint = "Set 2BDF / peak equal to (2BD + DF + 2BF) / BW and solve for B.",
};

constexpr Param kQ4Given[] = {elem_bytes(1, "bytes per element (int8)"), kSampleB, kSampleD,
                              kSampleF};
constexpr Slot::Hint kQ4FlopsHints[] = {{2, kTwoForMultiplyAdd}};
constexpr Slot::Hint kQ4IntensityFormulaHints[] = {{2, kTwoForMultiplyAdd}};
constexpr Slot kQ4Slots[] = {
    hinted(number("flops", "flop", "FLOPs"), kQ4FlopsHints), number("bytes", "B", "bytes moved"),
    number("intensity", "flop_per_B", "arithmetic intensity"),
    hinted(formula(
               "intensity_formula", "flop_per_B", "intensity as a formula in B, D, F", kBDF,
               [](const Vars& v) {
                 return matmul_intensity({at(v, "B"), at(v, "D"), at(v, "F")}, {1, 1, 1}, true);
               },
               "\\frac{2BDF}{BD + BDF + BF}"),
           kQ4IntensityFormulaHints)};
constexpr Problem kQ4{
    .id = "roofline.Q4",
    .title = "Per-example weight matrices intensity",
    .statement =
        "Now every batch row has its own weight matrix: X is int8[B, D], W is "
        "int8[B, D, F] and Z[b] = X[b] . W[b] is int8[B, F] ({bytes_per_elem} per "
        "element). Count the FLOPs and the bytes and give the arithmetic intensity, "
        "as a formula and at B = {sample_b_tokens}, D = {sample_d}, F = {sample_f}.",
    .kind = "formula",
    .given = kQ4Given,
    .slots = kQ4Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double e = in.num("bytes_per_elem");
          const MatmulShape s = shape_of(in);
          const MatmulCost c = matmul_cost(s, {e, e, e}, true);
          Answers a;
          a["flops"] = tr.step("FLOPs", "2BDF", "2 \\cdot # \\cdot # \\cdot #", {s.B, s.D, s.F},
                               c.flops, "flop");
          a["bytes"] =
              tr.step("Bytes: X, a whole W per row, Z", "b (BD + BDF + BF)", "# (# + # + #)",
                      {e, s.B * s.D, s.B * s.D * s.F, s.B * s.F}, c.bytes(), "B");
          a["intensity"] =
              tr.step("Intensity, the same for every B", "\\frac{2DF}{D + DF + F}", "\\frac{#}{#}",
                      {c.flops, c.bytes()}, c.intensity(), "flop_per_B");
          tr.note(
              "About 2 FLOPs per byte whatever the batch: far below any chip's ridge, so it "
              "is always memory-bound.");
          return a;
        },
};

constexpr double kQ5PeakBf16SparseFlopsPerS[] = {1.979e15, 4.5e15};
constexpr double kQ5SparsityFactor[] = {2};
constexpr double kQ5HbmBwBps[] = {3.35e12, 8e12};
constexpr Param kQ5Given[] = {
    given("peak_bf16_sparse_flops_per_s", "flop_per_s", 1.979e15,
          "spec-sheet bf16 peak (with sparsity)", kQ5PeakBf16SparseFlopsPerS),
    given("sparsity_factor", "ratio", 2, "factor the sparse figure assumes", kQ5SparsityFactor),
    given("hbm_bw_Bps", "B_per_s", 3.35e12, "HBM bandwidth", kQ5HbmBwBps)};
constexpr Slot::Hint kQ5PeakDenseHints[] = {
    {2,
     "The spec-sheet figure assumes 2:4 sparsity; the dense rate is "
     "half."}};
constexpr Slot::Hint kQ5BCritHints[] = {
    {2,
     "Use the dense peak (half the spec sheet's sparse figure), and for "
     "bf16 weights B_crit = I_hw."}};
constexpr Slot kQ5Slots[] = {
    hinted(number("peak_dense", "flop_per_s", "dense bf16 peak"), kQ5PeakDenseHints),
    hinted(number("b_crit", "tokens", "critical batch"), kQ5BCritHints)};
constexpr Problem kQ5{
    .id = "roofline.Q5",
    .title = "H100 critical batch for bf16 matmul",
    .statement =
        "NVIDIA's spec sheet gives the H100 SXM {peak_bf16_sparse_flops_per_s} of "
        "bf16, a figure that assumes structured sparsity worth a factor of "
        "{sparsity_factor}; its HBM moves {hbm_bw_Bps}. What is the dense peak, and "
        "above which batch is an all-bf16 matmul (B much smaller than D and F) "
        "compute-bound?",
    .kind = "numeric",
    .given = kQ5Given,
    .slots = kQ5Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double sp = in.num("peak_bf16_sparse_flops_per_s"), k = in.num("sparsity_factor");
          const double bw = in.num("hbm_bw_Bps");
          Answers a;
          a["peak_dense"] = tr.step("Dense peak", "\\mathrm{peak} = \\mathrm{peak}_{sparse} / k",
                                    "\\frac{#}{#}", {sp, k}, dense_peak(sp, k), "flop_per_s");
          const double ih =
              tr.step("Critical intensity", "I_{hw} = \\mathrm{peak} / BW", "\\frac{#}{#}",
                      {a["peak_dense"], bw}, critical_intensity(a["peak_dense"], bw), "flop_per_B");
          a["b_crit"] =
              tr.step("Critical batch (bf16 weights)", "B_{crit} \\approx 2 I_{hw} / 2",
                      "\\frac{2 \\cdot #}{2}", {ih}, critical_batch_approx(2, ih), "tokens");
          return a;
        },
};

constexpr Problem kQuestions[] = {kQ1a, kQ1b, kQ1c, kQ1d, kQ2, kQ3, kQ4, kQ5};

}  // namespace

void add_problems(Registry& r) {
  r.add(kExamples);
  r.add(kQuestions);
}

}  // namespace sb::roofline
