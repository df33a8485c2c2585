// Part 9 (How to Profile TPU Programs): what an HLO op costs, read off its shapes. Section
// numbers (A.2 ...) refer to the developer notes shared/book/profiling-jax.md. Quantities are in
// SI base units. The HLO text itself is read by hlo.hpp; the roofline times come from the
// roofline chapter's records and a collective's time from the sharding chapter's model.
#pragma once
#include <cmath>

#include "core/formula.hpp"

namespace sb::profiling {

inline constexpr Symbol kSymbols[] = {
    sym("out", "count", 1, 1e12, "elements of the op's result"),
    sym("K", "count", 1, 1e6, "product of the contracting dims"),
    sym("C_in", "count", 1, 1e5, "input features of a convolution"),
    whole("G", "count", 1, 64, "feature_group_count"),
    sym("taps", "count", 1, 1e3, "window taps of a convolution"),
    sym("n", "count", 1, 1e12, "elements of an array"),
    sym("b", "B", 0.125, 16, "bytes per element"),
    whole("d", "count", 1, 1e6, "a dim of the array"),
    whole("t", "count", 1, 1e4, "the tile's size along that dim"),
    sym("padded", "B", 1, 1e15, "bytes after the tiles pad the array"),
    sym("logical", "B", 1, 1e15, "bytes of the array's own elements"),
    with_tex(sym("B_seq", "count", 1, 1e6, "sequences in the global batch"), "B_{\\mathrm{seq}}"),
    sym("T", "tokens", 1, 1e6, "tokens per sequence"),
    sym("dp", "count", 1, 1e4, "data-parallel degree"),
    sym("FLOPs", "flop", 1, 1e24, "FLOPs of the op over all devices"),
    sym("n_dev", "count", 1, 1e5, "devices sharing the work"),
    sym("peak", "flop_per_s", 1e9, 1e17, "peak FLOPs/s of one device"),
    with_tex(sym("T_model", "s", 1e-9, 1e4, "the roofline's time"), "T_{\\mathrm{model}}"),
    with_tex(sym("T_measured", "s", 1e-9, 1e4, "the profile's time"), "T_{\\mathrm{measured}}"),
    with_tex(sym("T_part", "s", 1e-9, 1e4, "time of one part"), "T_{\\mathrm{part}}"),
    with_tex(sym("T_total", "s", 1e-9, 1e4, "time of the whole"), "T_{\\mathrm{total}}"),
    sym("local", "count", 1, 1e7, "a dim's size on one device"),
    sym("shards", "count", 1, 1e5, "devices the dim is split over"),
};

// A.3: a dot's FLOPs, 2 x prod(output dims) x prod(contracting dims).
double dot_flops(double out_elements, double contracting);
inline constexpr Formula kDotFlops =
    record("FLOPs", "2 * out * K", "flop", "A.3", "out K", kSymbols,
           [](const double* x) { return dot_flops(x[0], x[1]); });
// A convolution's FLOPs: 2 x output elements x (input features / feature_group_count) x taps,
// every tap counted, taps over padding too.
double conv_flops(double out_elements, double in_features, double groups, double taps);
inline constexpr Formula kConvFlops =
    record("FLOPs", "2 * out * C_in / G * taps", "flop",
           "beyond the book: A.3's dot rule with each output summing C_in / G features x taps",
           "out C_in G taps", kSymbols,
           [](const double* x) { return conv_flops(x[0], x[1], x[2], x[3]); });
// A.3: a pointwise op, one FLOP per element of its result.
double elementwise_flops(double out_elements);
inline constexpr Formula kElementwiseFlops =
    record("FLOPs", "out", "flop", "A.3", "out", kSymbols,
           [](const double* x) { return elementwise_flops(x[0]); });
// A.4: bytes of an array, elements x bytes per element.
double array_bytes(double n, double bytes_per_element);
inline constexpr Formula kArrayBytes =
    record("bytes", "n * b", "B", "A.4", "n b", kSymbols,
           [](const double* x) { return array_bytes(x[0], x[1]); });
// A.2: a tiled dim is padded up to a multiple of its tile.
double padded_dim(double d, double tile);
inline constexpr Formula kPaddedDim =
    record("d_pad", "ceil(d / t) * t", "count", "A.2", "d t", kSymbols,
           [](const double* x) { return padded_dim(x[0], x[1]); });
// A.2: the memory blow-up of a tiled layout, padded bytes / logical bytes.
double blowup(double padded, double logical);
inline constexpr Formula kBlowup =
    record("blowup", "padded / logical", "ratio", "A.2", "padded logical", kSymbols,
           [](const double* x) { return blowup(x[0], x[1]); });
// A.4: the tokens one data-parallel shard holds, B_seq / dp x T.
double tokens_per_shard(double sequences, double dp, double seq_len);
inline constexpr Formula kTokensPerShard =
    record("tokens", "B_seq / dp * T", "tokens", "A.4", "B_seq dp T", kSymbols,
           [](const double* x) { return tokens_per_shard(x[0], x[1], x[2]); });
// A.4: a compute-bound op spread evenly over n devices, FLOPs / (n x peak).
double sharded_time(double flops, double devices, double peak);
inline constexpr Formula kShardedTime =
    record("T_math", "FLOPs / (n_dev * peak)", "s", "A.4", "FLOPs n_dev peak", kSymbols,
           [](const double* x) { return sharded_time(x[0], x[1], x[2]); });
// A.4: how close a profile comes to the roofline, expected / measured time.
double efficiency(double t_model, double t_measured);
inline constexpr Formula kEfficiency =
    record("efficiency", "T_model / T_measured", "ratio", "A.4", "T_model T_measured", kSymbols,
           [](const double* x) { return efficiency(x[0], x[1]); });
// A.4: one part's share of a total time.
double share(double part, double total);
inline constexpr Formula kShare =
    record("share", "T_part / T_total", "ratio", "beyond the book: the ratio Question 2 asks for",
           "T_part T_total", kSymbols, [](const double* x) { return share(x[0], x[1]); });
// A.3: a dim's global size from its local one, local x shards.
double global_dim(double local, double shards);
inline constexpr Formula kGlobalDim =
    record("global", "local * shards", "count", "A.3", "local shards", kSymbols,
           [](const double* x) { return global_dim(x[0], x[1]); });

inline constexpr const Formula* kFormulas[] = {
    &kDotFlops,       &kConvFlops,   &kElementwiseFlops, &kArrayBytes, &kPaddedDim, &kBlowup,
    &kTokensPerShard, &kShardedTime, &kEfficiency,       &kShare,      &kGlobalDim};

}  // namespace sb::profiling
