// The roofline chapter's end-of-chapter problems (roofline.Q*).
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
          Answers a;
          a["bytes_read"] = tr.step("Read X and Y", kMatmulBytesRead, {s.B, s.D, s.F, e, e});
          a["bytes_written"] = tr.step("Write Z", kMatmulBytesWritten, {s.B, s.F, e});
          tr.sum("Total", "bytes", "B",
                 {{"bytes_read", a["bytes_read"]}, {"bytes_written", a["bytes_written"]}});
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
          return Answers{{"ops", tr.step("One multiply and one add per (b, d, f)", kMatmulFlops,
                                         {s.B, s.D, s.F})}};
        },
};

constexpr Param kQ1cGiven[] = {
    elem_bytes(1, "bytes per element (int8)"), chip_param("v5e", "the chip"),
    chip_spec(rate("peak_int8_ops_per_s", "flop_per_s", 3.94e14, "int8 peak"), "peak_flops_int8"),
    chip_spec(rate("hbm_bw_Bps", "B_per_s", 8.2e11, "HBM bandwidth"), "hbm_bw")};
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
        "The same all-int8 matmul ({bytes_per_elem} per element) runs on a {chip} "
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
          a["i_hw_int8"] = tr.step("Critical intensity (int8)", kCriticalIntensity, {p, bw});
          tr.note("$I = 2BDF / (b_x BD + b_w DF + b_o BF) \\approx 2B / b_w$ when $B \\ll D, F$.");
          a["b_crit"] = tr.step("Critical batch", kCriticalBatchApprox, {e, a["i_hw_int8"]});
          return a;
        },
};

constexpr Param kQ1dGiven[] = {
    elem_bytes(1, "bytes per element (int8)"),
    chip_spec(rate("peak_int8_ops_per_s", "flop_per_s", 3.94e14, "int8 peak P"), "peak_flops_int8"),
    chip_spec(rate("hbm_bw_Bps", "B_per_s", 8.2e11, "HBM bandwidth W"), "hbm_bw"),
    kSampleB,
    kSampleD,
    kSampleF};
constexpr Slot::Hint kQ1dTMathHints[] = {{2, kTwoForMultiplyAdd}};
constexpr Slot::Hint kQ1dTCommsHints[] = {{2, kInt8OneByte}};
constexpr Slot kQ1dSlots[] = {
    hinted(derived(number("t_math", "s", "T_math"), From::Flops), kQ1dTMathHints),
    hinted(derived(number("t_comms", "s", "T_comms"), From::Bytes), kQ1dTCommsHints),
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
          Answers a;
          a["t_math"] = tr.step("Compute time ($P$ is the peak)", kMatmulTMath, {s.B, s.D, s.F, p});
          a["t_comms"] = tr.step("HBM time ($W$ is the bandwidth)", kMatmulTComms,
                                 {s.B, s.D, s.F, e, e, e, bw});
          a["t_lower"] = tr.step("Full overlap", kTLower, {a["t_math"], a["t_comms"]});
          a["t_upper"] = tr.step("No overlap", kTUpper, {a["t_math"], a["t_comms"]});
          // The shorter time as a share of the longer: a close call, or a clear verdict.
          const double tm = a["t_math"], tc = a["t_comms"];
          const double share = overlap_ratio(t_upper(tm, tc), t_lower(tm, tc)) - 1;
          tr.note(std::string(bound_name(verdict(tm, tc))) + ": the shorter time is " +
                  units::number(100 * share, 2) + "% of the longer" +
                  (share > 0.5 ? ", so the two are close at this shape." : "."));
          return a;
        },
};

constexpr Param kQ2Given[] = {
    dtype_param("dtype_w", "int8", "storage type of the weights"),
    chip_spec(rate("peak_bf16_flops_per_s", "flop_per_s", 1.97e14, "bf16 peak"), "peak_flops_bf16"),
    chip_spec(rate("hbm_bw_Bps", "B_per_s", 8.2e11, "HBM bandwidth"), "hbm_bw")};
constexpr Slot kQ2Slots[] = {number("b_crit", "tokens", "critical batch")};
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
              tr.step("Critical intensity (bf16 arithmetic)", kCriticalIntensity, {p, bw});
          tr.equation("Weight bytes dominate", "I \\approx \\frac{2BDF}{b_w DF} = \\frac{2B}{b_w}");
          Answers a{{"b_crit", tr.step("Critical batch", kCriticalBatchApprox, {bw_bytes, ih})}};
          // The bf16 habit: weights taken at 2 bytes whatever their storage type.
          if (bw_bytes != 2)
            a.slip("b_crit", critical_batch_approx(2, ih),
                   "The weights set the bytes: with " + units::number(bw_bytes) +
                       "-byte weights I ~ 2B / b_w = " +
                       (bw_bytes == 1 ? std::string("2B") : "2B / " + units::number(bw_bytes)) +
                       ", so the critical batch is b_w I_hw / 2, while the arithmetic stays at "
                       "the bf16 rate; that answer takes the weights as bf16 (2 bytes).");
          return a;
        },
};

constexpr Param kQ3Given[] = {
    chip_spec(rate("peak_bf16_flops_per_s", "flop_per_s", 1.97e14, "bf16 peak"), "peak_flops_bf16"),
    chip_spec(rate("hbm_bw_Bps", "B_per_s", 8.2e11, "HBM bandwidth"), "hbm_bw"),
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
          const double ih = tr.step("Critical intensity", kCriticalIntensity, {p, bw});
          Answers a;
          const std::pair<const char*, double> shapes[] = {{"d4096", big}, {"d1024", small}};
          for (const auto& [tag, d] : shapes) {
            const auto b = critical_batch_exact(d, d, ob, ih);
            // Dropping the activation and output bytes is the Q2 shortcut, wrong here.
            a.slip(std::string("b_crit_") + tag, critical_batch_approx(ob.w, ih),
                   "That keeps only the weight bytes, as Q2 does for B much smaller than D and F; "
                   "this question counts every byte, 2BD + DF + 2BF, which moves the crossover "
                   "later, the more so the smaller D and F.");
            if (b) {
              a[std::string("b_crit_") + tag] =
                  tr.step("Exact crossover at $D = F = " + tex(d) + "$", kCriticalBatchExact,
                          {d, d, ob.x, ob.w, ob.o, ih});
            } else {
              // No crossover: the intensity tends to D/2 as B grows, and that stays below the
              // critical intensity. There is no critical batch to ask for, so the givens are
              // not a problem (an error naming the size, not an infinite answer).
              const char* field = d == big ? "d_f_large" : "d_f_small";
              fail(field,
                   "at D = F = " + units::format(d, "count") +
                       " the activation and output bytes alone outpace the arithmetic, so no "
                       "batch is compute-bound (D/2 must exceed the critical intensity, " +
                       units::format(ih, "flop_per_B") + ")",
                   "out_of_range");
            }
          }
          a["b_crit_ratio_small_to_large"] =
              tr.step("Ratio, smaller shape to larger", kCriticalBatchRatio,
                      {a["b_crit_d1024"], a["b_crit_d4096"]});
          // Achieved FLOPs/s = 2BDF / max(T_math, T_comms) on the exact byte count.
          auto achieved = [&](double B, double d) {
            return tr.step("Achieved FLOPs/s at $B = " + tex(B) + "$, $D = F = " + tex(d) + "$",
                           kMatmulAchieved, {B, d, d, ob.x, ob.w, ob.o, p, bw});
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
          Answers a;
          a["flops"] = tr.step("FLOPs", kMatmulFlops, {s.B, s.D, s.F});
          a["bytes"] = tr.step("Bytes: X, a whole W per row, Z", kMatmulBytesPerExample,
                               {s.B, s.D, s.F, e, e, e});
          a["intensity"] = tr.step("Intensity: B cancels, the same for every B",
                                   kMatmulIntensityPerExample, {s.B, s.D, s.F, e, e, e});
          tr.note("About " + units::number(a["intensity"], 2) +
                  " FLOPs per byte whatever the batch: far below any chip's ridge, so it is "
                  "always memory-bound.");
          return a;
        },
};

// The GPU's name and its spec-sheet figures vary together (one real GPU per variant): the
// sparse bf16 peak is twice the dense figure of data/chips.json.
constexpr Text kQ5Gpus[] = {"H100 SXM", "H200", "B200"};
constexpr double kQ5PeakBf16SparseFlopsPerS[] = {1.979e15, 1.979e15, 4.5e15};
constexpr double kQ5HbmBwBps[] = {3.35e12, 4.8e12, 8e12};
constexpr Param kQ5Given[] = {
    linked(with_texts(text("gpu", "H100 SXM", "the GPU"), kQ5Gpus), "gpu"),
    linked(rate("peak_bf16_sparse_flops_per_s", "flop_per_s", 1.979e15,
                "spec-sheet bf16 peak (with sparsity)", kQ5PeakBf16SparseFlopsPerS),
           "gpu"),
    ranged("sparsity_factor", "ratio", 2, "factor the sparse figure assumes", 1, 1e3),
    linked(rate("hbm_bw_Bps", "B_per_s", 3.35e12, "HBM bandwidth", kQ5HbmBwBps), "gpu")};
constexpr Slot kQ5Slots[] = {number("peak_dense", "flop_per_s", "dense bf16 peak"),
                             number("b_crit", "tokens", "critical batch")};
constexpr Problem kQ5{
    .id = "roofline.Q5",
    .title = "GPU critical batch for bf16 matmul",
    .statement =
        "NVIDIA's spec sheet gives the {gpu} {peak_bf16_sparse_flops_per_s} of "
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
          const double b_w = hw::dtype_bytes("bf16", "peak_bf16_sparse_flops_per_s");
          a["peak_dense"] = tr.step("Dense peak", kDensePeak, {sp, k});
          const double ih =
              tr.step("Critical intensity", kCriticalIntensity, {a["peak_dense"], bw});
          a["b_crit"] = tr.step("Critical batch (bf16 weights)", kCriticalBatchApprox, {b_w, ih});
          // The spec sheet's sparse figure taken as the peak.
          if (k != 1) {
            a.slip("peak_dense", sp,
                   "That is the spec sheet's figure, which assumes structured sparsity; the dense "
                   "rate is that figure divided by the sparsity factor.");
            a.slip("b_crit", critical_batch_approx(b_w, critical_intensity(sp, bw)),
                   "That uses the spec sheet's sparse peak; a dense matmul runs at the dense rate "
                   "(the sparse figure over the sparsity factor), and for bf16 weights "
                   "B_crit = I_hw.");
          }
          return a;
        },
};

constexpr Problem kQuestions[] = {kQ1a, kQ1b, kQ1c, kQ1d, kQ2, kQ3, kQ4, kQ5};

}  // namespace

void add_problems_questions(Registry& r) { r.add(kQuestions); }

}  // namespace sb::roofline
