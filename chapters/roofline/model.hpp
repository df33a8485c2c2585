// Part 1 (Rooflines): the chapter's equations as named functions over plain structs.
// Everything is in SI base units: FLOPs, bytes, seconds, FLOPs/s, B/s. Section numbers (A.1 ...)
// refer to the developer notes shared/book/roofline-tpus.md.
// These functions take plain numbers (a peak, a bandwidth) rather than a chip, so that a problem
// can feed its own stated inputs; the calculators look the numbers up in sb::hw.
// The later chapters call these: each equation here is written nowhere else. A quantity that does
// not exist ("never compute-bound") is std::nullopt, never an infinity or a NaN.
#pragma once
#include <optional>

namespace sb::roofline {

// ---- A.1 Time model -------------------------------------------------------------------------

// A.1 (1): time for the arithmetic at peak, T_math = FLOPs / peak.
double t_math(double flops, double peak_flops_per_s);
// A.1 (2): time to move the bytes, T_comms = bytes / bandwidth.
double t_comms(double bytes, double bw_bytes_per_s);
// A.1 (3): full overlap of compute and transfer, T_lower = max(T_math, T_comms).
double t_lower(double t_math, double t_comms);
// A.1 (4): no overlap at all, T_upper = T_math + T_comms (never more than 2 T_lower).
double t_upper(double t_math, double t_comms);

// A.1: which term dominates. Compute-bound iff T_math > T_comms (a tie counts as comms-bound).
enum class Bound { Compute, Comms };
Bound verdict(double t_math, double t_comms);
const char* bound_name(Bound b);  // "compute-bound" / "communication-bound"

// ---- A.2 Intensity and the ridge ------------------------------------------------------------

// A.2: algorithmic arithmetic intensity I = FLOPs / bytes [FLOPs/B].
double arithmetic_intensity(double flops, double bytes);
// A.2: critical (hardware) intensity I_hw = peak / bandwidth: the ridge of the roofline.
double critical_intensity(double peak_flops_per_s, double bw_bytes_per_s);
// A.2: the roofline curve, attainable FLOPs/s = min(peak, I * BW).
double attainable_flops_per_s(double intensity, double peak_flops_per_s, double bw_bytes_per_s);
// A.2: what a concrete kernel achieves, FLOPs / max(T_math, T_comms).
double achieved_flops_per_s(double flops, double t_math, double t_comms);
// A.2: how much of the peak that is, achieved / peak (1 on the flat roof).
double fraction_of_peak(double achieved_flops_per_s, double peak_flops_per_s);

// ---- A.3 Dot product ------------------------------------------------------------------------

// A.3: N multiplies + (N - 1) adds = 2N - 1 FLOPs.
double dot_flops(double n);
// A.3: read both vectors, write one scalar: 2 b N + b bytes (b = element size, 2 for bf16).
double dot_bytes(double n, double elem_bytes = 2);
// A.3: (2N - 1) / (2 b N + b); for bf16 (4N + 2) in the denominator.
double dot_intensity(double n, double elem_bytes = 2);
// A.3: large-N limit of the above, 2 / (2 b) = 1 / b (1/2 for bf16).
double dot_intensity_limit(double elem_bytes = 2);

// ---- A.3 Matmul X[B,D] . W[D,F] -> Z[B,F] ---------------------------------------------------

struct MatmulShape {
  double B = 0;  // tokens in the batch
  double D = 0;  // contracted axis
  double F = 0;  // output width
};
// Element sizes in bytes of the three operands (activations x, weights w, output o).
struct OperandBytes {
  double x = 2, w = 2, o = 2;
};
struct MatmulCost {
  double flops = 0;
  double bytes_x = 0, bytes_w = 0, bytes_o = 0;
  double bytes_read() const { return bytes_x + bytes_w; }
  double bytes_written() const { return bytes_o; }
  double bytes() const { return bytes_x + bytes_w + bytes_o; }
  double intensity() const;
};

// A.3: 2BDF (one multiply and one add per (b, d, f)); the dtype changes the rate, not the count.
double matmul_flops(const MatmulShape& s);
// A.3: b_x BD + b_w DF + b_o BF; with per_example_weights the weight is W[B,D,F]: b_w BDF.
double matmul_bytes(const MatmulShape& s, const OperandBytes& b, bool per_example_weights = false);
// A.3: FLOPs and the per-operand byte counts together.
MatmulCost matmul_cost(const MatmulShape& s, const OperandBytes& b,
                       bool per_example_weights = false);
// A.3: I = 2BDF / (b_x BD + b_w DF + b_o BF) (or with b_w BDF for per-example weights).
double matmul_intensity(const MatmulShape& s, const OperandBytes& b,
                        bool per_example_weights = false);
// A.1 (3) for a matmul: T_lower = max(2BDF / peak, bytes / BW).
double matmul_t_lower(const MatmulShape& s, const OperandBytes& b, double peak_flops_per_s,
                      double bw_bytes_per_s);

// ---- A.4 Critical batch ---------------------------------------------------------------------

// A.4: weight-dominated approximation I ~ 2B / b_w, so B_crit ~ b_w * I_hw / 2.
double critical_batch_approx(double weight_bytes, double i_hw);
// A.4 (derived): exact crossover 2BDF/peak = bytes/BW solved for B:
//   B_crit = b_w DF / (2DF / I_hw - b_x D - b_o F); std::nullopt ("never") when the denominator
//   is <= 0: the activation and output bytes alone take longer than the arithmetic.
std::optional<double> critical_batch_exact(double D, double F, const OperandBytes& b, double i_hw);
// A.4 caveat: the batch counts tokens: sequences x tokens per sequence ...
double global_batch_tokens(double sequences, double tokens_per_sequence);
// ... and B_crit applies per replica (per device here): global tokens / devices.
double local_batch_tokens(double global_tokens, double n_devices);
// roofline Q5: spec sheets quote sparse peaks; the dense rate is sparse / sparsity factor.
double dense_peak(double sparse_peak_flops_per_s, double sparsity_factor = 2);

// ---- A.5 Tiled matmul -----------------------------------------------------------------------

struct Tiling {
  double m = 0, k = 0, n = 0;     // (m,k) . (k,n)
  double bm = 0, bk = 0, bn = 0;  // tile sizes
};
// A.5: tile counts tm = m/bm, tk = k/bk, tn = n/bn (rounded up: a partial tile is padded).
double tiles(double dim, double block);
// A.5: FLOPs = 2 tm tn tk bm bn bk.
double tiled_flops(const Tiling& t);
// A.5: bytes = b tm tn (tk (bm bk + bk bn) + bm bn): each output tile streams a strip of X and
// of W through fast memory and is written once (b = 2 for bf16).
double tiled_bytes(const Tiling& t, double elem_bytes = 2);
// A.5: the ratio of the two above.
double tiled_intensity(const Tiling& t, double elem_bytes = 2);
// A.5: with the output write neglected, I ~ bm bn / (bm + bn) (bf16; times 2/b in general).
double tiled_intensity_approx(double bm, double bn, double elem_bytes = 2);

// ---- A.6 Network roofline: X[B,D] . Y[D,F] sharded over 2 chips along D ---------------------

// A.6: each chip multiplies its D/2 slice: 2 B (D/2) F = BDF FLOPs.
double network_flops_per_chip(const MatmulShape& s);
// A.6: T_math = BDF / peak (the final B F additions are ignored).
double network_t_math(const MatmulShape& s, double peak_flops_per_s);
// A.6: each chip sends one partial sum of b_o B F bytes over a full-duplex link (one way).
double network_t_comms(const MatmulShape& s, double link_bw_one_way, double out_bytes = 2);
// A.6: per-chip intensity BDF / (b_o BF) = D / b_o (D/2 for bf16); B cancels.
double network_intensity(double D, double out_bytes = 2);
// A.6: compute-bound over the link iff D / b_o > peak / BW_link, i.e. D > b_o peak / BW_link.
double network_d_crit(double peak_flops_per_s, double link_bw_one_way, double out_bytes = 2);

}  // namespace sb::roofline
