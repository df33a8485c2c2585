// Part 3, "Sharded Matrices and How to Multiply Them": local shapes of sharded arrays, the cost
// of the four collectives on ICI tori (and DCN), and the analysis of a sharded matmul.
// Quantities are doubles in SI base units (s, B, FLOPs, FLOPs/s, B/s). Section labels (A1, A3,
// A4.x) refer to our chapter notes (shared/book/sharding.md), which follow the book's sections.
//
// Each formula the chapter teaches is a record (core/formula.hpp) under its function: the
// derivations are made from the records, and tests/core/formula_records_test.cpp checks each
// record's expression against its function at random points of the symbols' ranges below.
// The collectives on a mesh are in collectives.hpp, the sharded matmul in matmul.hpp.
#pragma once
#include <cmath>
#include <initializer_list>
#include <string>
#include <vector>

#include "chapters/sharding/collectives.hpp"
#include "chapters/sharding/matmul.hpp"
#include "chapters/sharding/notation.hpp"
#include "chapters/tpus/model.hpp"
#include "core/formula.hpp"
#include "core/json.hpp"
#include "core/trace.hpp"

namespace sb::sharding {

// The equations of the earlier chapters are theirs: a matmul's FLOPs and T_math are
// roofline::matmul_flops and roofline::t_math, a load time is roofline::t_comms; a ring's hop
// count, bidirectional bandwidth (W_ici = 2 W_uni), bisection and wraparound rule are the tpus
// chapter's (tpus::axis_max_distance, tpus::axis_bw, tpus::bisection_links, tpus::wraps).

// The chapter's symbols: their units and the ranges the record test draws them from.
inline constexpr Symbol kSymbols[] = {
    whole("n", "count", 1, 1e12, "global size of a dimension"),
    whole("S", "count", 1, 1e6, "shards of a dimension: the sizes of its subscript's axes"),
    sym("n_loc", "count", 1, 1e12, "local size of a dimension"),
    sym("bytes_dev", "B", 1, 1e15, "bytes each device holds"),
    sym("bytes_all", "B", 1, 1e18, "bytes over all devices"),
    whole("N", "count", 1, 1e6,
          "devices (of the mesh, of the group along the axes, of a ring); in Question 10 the "
          "side of the N x N array"),
    whole("r", "count", 1, 1e6, "copies of the array: the sizes of the axes it does not use"),
    sym("share", "ratio", 1e-6, 1, "share of the array each device holds"),
    sym("V", "B", 1, 1e15, "bytes a collective moves (defined per collective, A4)"),
    sym("W_uni", "B_per_s", 1e6, 1e14, "one-way bandwidth of one link"),
    sym("W_ici", "B_per_s", 1e6, 1e14, "bidirectional bandwidth of one link, 2 W_uni"),
    sym("W_dcn", "B_per_s", 1e6, 1e14, "DCN bandwidth of one chip, one way"),
    sym("T_min", "s", 1e-9, 1e-3, "latency of one hop"),
    sym("V_hop", "B", 1, 1e12, "payload per hop below which a hop is latency-bound"),
    sym("T_hop", "s", 1e-12, 1e6, "time of one hop's transfer"),
    whole("h", "count", 1, 1e6, "hops on the longest path"),
    sym("T_bw", "s", 1e-12, 1e6, "bandwidth term of a collective"),
    sym("T_lat", "s", 1e-12, 1e6, "latency term of a collective"),
    sym("T", "s", 1e-12, 1e6, "time of a collective"),
    sym("T_AG", "s", 1e-12, 1e6, "time of one pass: an AllGather (or a ReduceScatter)"),
    sym("T_AR", "s", 1e-12, 1e6, "time of an AllReduce"),
    sym("T_RS", "s", 1e-12, 1e6, "time of a ReduceScatter"),
    sym("T_A2A", "s", 1e-12, 1e6, "time of an AllToAll"),
    whole("n_axes", "count", 1, 8, "hardware axes a collective runs over"),
    whole("n_phys", "count", 1, 3, "hardware axes one named axis spans"),
    sym("W_axis", "B_per_s", 1e6, 1e15, "bandwidth one axis adds to a collective"),
    sym("W_sum", "B_per_s", 1e6, 1e16, "the axes' bandwidths added up"),
    whole("M", "count", 1, 1e4, "the longest axis, max(A, B, C, ...)"),
    sym("V_chunk", "B", 1e-6, 1e15, "bytes of one chunk of a ring collective"),
    sym("f", "ratio", 1e-3, 1, "fraction of the link's peak reached"),
    sym("W_eff", "B_per_s", 1e3, 1e14, "bandwidth reached"),
    sym("C", "flop_per_s", 1e12, 1e17, "peak bf16 FLOPs/s of the chip"),
    whole("D", "count", 1, 1e6, "model width (Question 4); in Question 10 the devices in the ring"),
    whole("X", "count", 2, 1024, "size of the mesh axis X"),
    with_tex(sym("B_star", "tokens", 1, 1e7, "batch below which strategy 1 is comms-bound"), "B^*"),
    with_tex(sym("D_star", "count", 1, 1e7, "width above which strategy 2 wins at large B"), "D^*"),
    with_tex(sym("X_star", "count", 1e-3, 1e4, "largest X at which strategy 2 is compute-bound"),
             "X^*"),
    sym("D_min", "count", 1, 1e9, "width above which strategy 2 is compute-bound"),
    sym("r_comms", "ratio", 1e-6, 1e6, "ratio of two collectives' times"),
    sym("L_AG", "count", 1, 1e15, "scalars an AllGather sends over one link"),
    sym("L_A2A", "count", 1e-3, 1e15, "scalars an AllToAll sends over one link"),
    sym("L_oneway", "count", 1, 1e15, "scalars over one link, one way"),
    sym("L_bidi", "count", 1, 1e15, "scalars over one link, both ways"),
    sym("h_oneway", "count", 1, 1e12, "AllToAll hop-sum per link, one way"),
    sym("h_bidi", "count", 1, 1e12, "AllToAll hop-sum on the busier way of two"),
};

// The value of a record at x, recorded as a step when there is a derivation; `words` builds the
// step's words only then (costing a collective for a plot records nothing).
template <class Words>
double traced(Trace* tr, const Formula& f, std::initializer_list<double> x, Words words) {
  return tr ? tr->step(words(), f, x) : f.fn(x.begin());
}

// ------------------------------------------------------------------ A1: local shapes, memory

// Number of shards a dimension is cut into: product of the sizes of its subscript axes (A1).
double shards_of(const Dim& d, const Mesh& m);
// Copies of the array the mesh stores: product of the sizes of the axes it does not use (A1).
double replication_factor(const Sharding& s, const Mesh& m);

// A1: a dimension of global size n cut into S shards holds n / S on each device.
double local_size(double n, double shards);
inline constexpr Formula kLocalSize =
    record("n_loc", "n / S", "count", "A1", "n S", kSymbols,
           [](const double* x) { return local_size(x[0], x[1]); });
// A1: bytes over all devices = bytes per device x N.
double total_bytes(double bytes_per_device, double devices);
inline constexpr Formula kTotalBytes =
    record("bytes_all", "bytes_dev * N", "B", "A1", "bytes_dev N", kSymbols,
           [](const double* x) { return total_bytes(x[0], x[1]); });
// A1: each device holds r / N of the array (r copies spread over N devices).
double share_per_device(double copies, double devices);
inline constexpr Formula kShare =
    record("share", "r / N", "ratio", "A1", "r N", kSymbols,
           [](const double* x) { return share_per_device(x[0], x[1]); });

struct LocalShape {
  std::vector<double> global, local, shards;  // per dim
  double devices = 1;
  double local_elems = 1;
  double bytes_per_device = 0;  // local elems x bytes per element
  double global_bytes = 0;      // one copy of the whole array
  double replication = 1;       // copies over the mesh
  double total_bytes = 0;       // summed over all devices = bytes_per_device x devices
  double fraction = 1;          // share of one copy each device holds
};
// Local shape and memory of a sharded array (A1). `sizes` = global size of each named dim;
// validates the sharding against the mesh and the divisibility. Errors name `field`. With a
// trace: each dimension's shards and local size, and the bytes per device.
LocalShape local_shape(const Sharding& s, const Mesh& m, const std::vector<double>& sizes,
                       double bytes_per_elem, Text field, Trace* tr = nullptr);
// Which device holds which block of each array (A1): mesh coordinates -> block index per dim,
// written as one JSON object.
void write_blocks(JsonWriter& w, const Mesh& m,
                  const std::vector<std::pair<std::string, Sharding>>& arrays,
                  const std::vector<std::vector<double>>& sizes);
// The shards of a dimension as a step: the sizes of its subscript's axes multiplied (A1).
double trace_shards(const Dim& d, const Mesh& m, Trace& tr);
// The copies of the array as a step: the sizes of the axes it does not use multiplied (A1) ...
double trace_replication(const Sharding& s, const Mesh& m, Trace& tr);
// ... and with them its bytes over all devices (A1).
void trace_copies(const Sharding& s, const Mesh& m, const LocalShape& L, Trace& tr);

// ------------------------------------------------------------------ A4: collective equations

// A4: the one-way figure of a link from its bidirectional one, W_uni = W_ici / 2.
double one_way_bw(double w_ici);
inline constexpr Formula kWUni = record("W_uni", "W_ici / 2", "B_per_s", "A4", "W_ici", kSymbols,
                                        [](const double* x) { return one_way_bw(x[0]); });
// Per-hop payload below which a hop is latency-bound: one-way bandwidth x hop latency (A4.1).
double latency_bound_threshold(double w_uni, double t_hop);
inline constexpr Formula kLatencyThreshold =
    record("V_hop", "W_uni * T_min", "B", "A4.1", "W_uni T_min", kSymbols,
           [](const double* x) { return latency_bound_threshold(x[0], x[1]); });
// A4.1: the gathered result of a group is a device's bytes before the gather times its N devices.
double gathered_size(double bytes_per_device, double devices);
inline constexpr Formula kGathered =
    record("V", "bytes_dev * N", "B", "A4.1", "bytes_dev N", kSymbols,
           [](const double* x) { return gathered_size(x[0], x[1]); });
// A4.1: the V of gathering `axes`: a device's bytes before the gather times the devices along
// them (their sizes multiplied), as steps when there is a derivation.
double gather_volume(double bytes_per_device, const Mesh& m, const std::vector<std::string>& axes,
                     Trace* tr);
// A4.1: one hop moves a shard, V / N, over a link: V / (N W_uni).
double hop_time(double V, double n, double w_uni);
inline constexpr Formula kHopTime =
    record("T_hop", "V / (N * W_uni)", "s", "A4.1", "V N W_uni", kSymbols,
           [](const double* x) { return hop_time(x[0], x[1], x[2]); });
// A4.1: the longest path along a ring of N with wraparound, floor(N/2) hops ...
double hops_ring(double n);
inline constexpr Formula kHopsRing = record("h", "floor(N / 2)", "count", "A4.1", "N", kSymbols,
                                            [](const double* x) { return hops_ring(x[0]); });
// ... and along an open line (or a one-way ring), N - 1 (A4.5).
double hops_line(double n);
inline constexpr Formula kHopsLine = record("h", "N - 1", "count", "A4.5", "N", kSymbols,
                                            [](const double* x) { return hops_line(x[0]); });
// A4.1: the latency term, hops x T_min.
double latency_term(double hops, double t_hop);
inline constexpr Formula kLatencyTerm =
    record("T_lat", "h * T_min", "s", "A4.1", "h T_min", kSymbols,
           [](const double* x) { return latency_term(x[0], x[1]); });
// A4.1: a collective takes the larger of its bandwidth and latency terms.
double collective_time(double t_bw, double t_lat);
inline constexpr Formula kCollectiveTime =
    record("T", "max(T_bw, T_lat)", "s", "A4.1", "T_bw T_lat", kSymbols,
           [](const double* x) { return collective_time(x[0], x[1]); });
// AllGather over a bidirectional ring with wraparound, bandwidth term:
// floor(N/2) hops of V/(N W_uni) each = V/W_ici for even N (A4.1).
double t_allgather_ring(double V, double n, double w_uni);
inline constexpr Formula kAgRing =
    record("T_bw", "floor(N / 2) * V / (N * W_uni)", "s", "A4.1", "V N W_uni", kSymbols,
           [](const double* x) { return t_allgather_ring(x[0], x[1], x[2]); });
// AllGather over an open line (or one-way ring): (N-1) V / (N W_uni) (A4.1, A4.5).
double t_allgather_line(double V, double n, double w_uni);
inline constexpr Formula kAgLine =
    record("T_bw", "(N - 1) * V / (N * W_uni)", "s", "A4.5", "V N W_uni", kSymbols,
           [](const double* x) { return t_allgather_line(x[0], x[1], x[2]); });
// The same over DCN: each chip's own port receives (N-1)/N of V.
inline constexpr Formula kAgDcn =
    record("T_bw", "(N - 1) * V / (N * W_dcn)", "s",
           "beyond the book: over DCN each chip's own port receives (N-1)/N of V", "V N W_dcn",
           kSymbols, [](const double* x) { return t_allgather_line(x[0], x[1], x[2]); });
// AllGather over several wrapped axes at once: V / (W_ici n_axes) (A4.3).
double t_allgather_multi(double V, double n_axes, double w_ici);
inline constexpr Formula kAgMulti =
    record("T_bw", "V / (W_ici * n_axes)", "s", "A4.3", "V n_axes W_ici", kSymbols,
           [](const double* x) { return t_allgather_multi(x[0], x[1], x[2]); });
// Axes that are not all complete rings of even size add their own bandwidths, V / sum W_axis
// (our extension of A4.3): an even ring W_ici per hardware axis ...
double axis_bw_ring(double w_ici, double phys);
inline constexpr Formula kAxisBwRing =
    record("W_axis", "W_ici * n_phys", "B_per_s", "A4.3", "W_ici n_phys", kSymbols,
           [](const double* x) { return axis_bw_ring(x[0], x[1]); });
// ... an odd ring W_ici N/(N-1) (its (N-1)/2 hops of V/(N W_uni)) ...
double axis_bw_odd_ring(double w_ici, double phys, double n);
inline constexpr Formula kAxisBwOddRing =
    record("W_axis", "W_ici * n_phys * N / (N - 1)", "B_per_s",
           "beyond the book: A4.1's odd ring, (N-1)/N V / W_ici", "W_ici n_phys N", kSymbols,
           [](const double* x) { return axis_bw_odd_ring(x[0], x[1], x[2]); });
// ... an open line W_uni N/(N-1) (A4.5's (N-1)/N V / W_uni).
double axis_bw_line(double w_uni, double phys, double n);
inline constexpr Formula kAxisBwLine =
    record("W_axis", "W_uni * n_phys * N / (N - 1)", "B_per_s",
           "beyond the book: A4.5's open line, (N-1)/N V / W_uni", "W_uni n_phys N", kSymbols,
           [](const double* x) { return axis_bw_line(x[0], x[1], x[2]); });
double t_over_bandwidth(double V, double w_sum);
inline constexpr Formula kAgSumBw =
    record("T_bw", "V / W_sum", "s", "beyond the book: A4.3 with each axis's own bandwidth",
           "V W_sum", kSymbols, [](const double* x) { return t_over_bandwidth(x[0], x[1]); });
// AllReduce = ReduceScatter + AllGather: twice the gather time of the per-device array (A4.2).
double t_allreduce_from_ag(double t_allgather);
inline constexpr Formula kAllReduce =
    record("T_AR", "2 * T_AG", "s", "A4.2", "T_AG", kSymbols,
           [](const double* x) { return t_allreduce_from_ag(x[0]); });
// AllToAll on a 1-D bidirectional ring: V / (4 W_ici), V the ring's whole array (A4.4).
double t_alltoall_1d(double V, double w_ici);
inline constexpr Formula kA2a1d =
    record("T_A2A", "V / (4 * W_ici)", "s", "A4.4", "V W_ici", kSymbols,
           [](const double* x) { return t_alltoall_1d(x[0], x[1]); });
// AllToAll on an N-D torus: V max(A,B,..) / (4 N W_ici), V summed over all N devices (A4.4).
double t_alltoall(double V, double max_axis, double n, double w_ici);
inline constexpr Formula kA2aTorus =
    record("T_bw", "V * M / (4 * N * W_ici)", "s", "A4.4", "V M N W_ici", kSymbols,
           [](const double* x) { return t_alltoall(x[0], x[1], x[2], x[3]); });
// The same on a torus without wraparound: the bisection cut crosses one plane of links, not two.
inline constexpr Formula kA2aOpen = record(
    "T_bw", "V * M / (4 * N * W_uni)", "s",
    "beyond the book: A4.4's bisection argument with one plane of links across the cut",
    "V M N W_uni", kSymbols, [](const double* x) { return t_alltoall(x[0], x[1], x[2], x[3]); });
// On a one-way ring: half an AllGather's per-link load (Question 10), (M-1) V / (2 N W_uni).
double t_alltoall_oneway(double V, double max_axis, double n, double w_uni);
inline constexpr Formula kA2aOneWay = record(
    "T_bw", "(M - 1) * V / (2 * N * W_uni)", "s",
    "beyond the book: Question 10's one-way per-link load, half an AllGather's", "V M N W_uni",
    kSymbols, [](const double* x) { return t_alltoall_oneway(x[0], x[1], x[2], x[3]); });
// Over DCN: each chip sends (N-1)/N of its V/N bytes through its own port.
double t_alltoall_dcn(double V, double n, double w_dcn);
inline constexpr Formula kA2aDcn =
    record("T_bw", "(N - 1) * V / (N ^ 2 * W_dcn)", "s",
           "beyond the book: over DCN each chip sends (N-1)/N of its V/N bytes through its port",
           "V N W_dcn", kSymbols, [](const double* x) { return t_alltoall_dcn(x[0], x[1], x[2]); });
// The N-D form over a list of axis sizes, and in per-device bytes (V/N) max(A,B,..) / (4 W_ici).
double t_alltoall_nd(double v_total, const std::vector<double>& dims, double w_ici);
double t_alltoall_per_device(double v_per_device, double max_axis, double w_ici);
// Chunk-hops one device makes in an AllToAll on a bidirectional ring of even N:
// (1 + .. + N/2) + (1 + .. + N/2 - 1) = N^2/4 (A4.4 footnote), counted step by step.
double alltoall_chunk_hops_bidi(long long n);
inline constexpr Formula kChunkHops =
    record("h", "floor(N / 2) ^ 2", "count", "A4.4 (footnote)", "N", kSymbols,
           [](const double* x) { return alltoall_chunk_hops_bidi(std::llround(x[0])); });
// A4.4: how the two collectives compare, T_A2A / T_AG (a quarter on a 1-D ring).
double time_ratio(double t_a, double t_b);
inline constexpr Formula kA2aOverAg =
    record("r_comms", "T_A2A / T_AG", "ratio", "A4.4", "T_A2A T_AG", kSymbols,
           [](const double* x) { return time_ratio(x[0], x[1]); });
// A ring collective's chunk: a shard V / N (AllGather, A4.1), a shard of a shard V / N^2
// (AllToAll, A4.4).
double ring_chunk_ag(double V, double n);
inline constexpr Formula kChunkAg =
    record("V_chunk", "V / N", "B", "A4.1", "V N", kSymbols,
           [](const double* x) { return ring_chunk_ag(x[0], x[1]); });
double ring_chunk_a2a(double V, double n);
inline constexpr Formula kChunkA2a =
    record("V_chunk", "V / N ^ 2", "B", "A4.4", "V N", kSymbols,
           [](const double* x) { return ring_chunk_a2a(x[0], x[1]); });
// A4.7: the bandwidth a measured gather reaches, a fraction of the link's one-way peak.
double achieved_bw(double fraction, double w_uni);
inline constexpr Formula kAchievedBw =
    record("W_eff", "f * W_uni", "B_per_s", "A4.7", "f W_uni", kSymbols,
           [](const double* x) { return achieved_bw(x[0], x[1]); });

// ------------------------------------------------------------------ A3: Questions 4 and 9

// Question 4: strategy 1 (gather Y, multiply replicated) is comms-bound while 2BDF/C < 2DF/W_ici,
// i.e. below B* = C / W_ici (bf16) ...
double strategy1_batch_threshold(double peak, double w_ici);
inline constexpr Formula kBStar =
    record("B_star", "C / W_ici", "tokens", "A3 (Question 4)", "C W_ici", kSymbols,
           [](const double* x) { return strategy1_batch_threshold(x[0], x[1]); });
// ... strategy 2 (multiply locally, AllReduce Z) beats it at large B when 4BF/W_ici < 2BDF/C,
// above D* = 2C / W_ici ...
double strategy2_width_threshold(double peak, double w_ici);
inline constexpr Formula kDStar =
    record("D_star", "2 * C / W_ici", "count", "A3 (Question 4)", "C W_ici", kSymbols,
           [](const double* x) { return strategy2_width_threshold(x[0], x[1]); });
// ... and is compute-bound while 2BDF/(XC) > 4BF/W_ici: X < X* = D W_ici / (2C) ...
double strategy2_max_axis(double d, double peak, double w_ici);
inline constexpr Formula kXStar =
    record("X_star", "D * W_ici / (2 * C)", "count", "A3 (Question 4)", "D C W_ici", kSymbols,
           [](const double* x) { return strategy2_max_axis(x[0], x[1], x[2]); });
// ... that is, for an axis of X, above D = 2 X C / W_ici.
double strategy2_min_width(double x, double peak, double w_ici);
inline constexpr Formula kDMin =
    record("D_min", "2 * X * C / W_ici", "count", "A3 (Question 4)", "X C W_ici", kSymbols,
           [](const double* x) { return strategy2_min_width(x[0], x[1], x[2]); });
// Question 9: gathering A first against reduce-scattering C after, T_AG / T_RS (= M / K).
inline constexpr Formula kAgOverRs =
    record("r_comms", "T_AG / T_RS", "ratio", "A3 (Question 9)", "T_AG T_RS", kSymbols,
           [](const double* x) { return time_ratio(x[0], x[1]); });

// ------------------------------------------------------------------ Question 10: one link

// Scalars crossing one link in a one-way AllGather / ReduceScatter of an N x N array on a ring
// of D: D-1 strips of (N/D) x N.
double ag_link_scalars_oneway(double n, double d);
inline constexpr Formula kAgLinkOneway =
    record("L_AG", "(D - 1) * (N / D) * N", "count", "A4.1 (Question 10)", "N D", kSymbols,
           [](const double* x) { return ag_link_scalars_oneway(x[0], x[1]); });
// One-way AllToAll: (N/D)^2 blocks x (1 + .. + D-1) = (N/D)^2 D(D-1)/2.
double a2a_link_scalars_oneway(double n, double d);
inline constexpr Formula kA2aLinkOneway =
    record("L_A2A", "(N / D) ^ 2 * D * (D - 1) / 2", "count", "A4.4 (Question 10)", "N D", kSymbols,
           [](const double* x) { return a2a_link_scalars_oneway(x[0], x[1]); });
// With both directions, an AllGather strip is split over two ways: half the load.
double ag_link_scalars_bidi(double n, double d);
inline constexpr Formula kAgLinkBidi =
    record("L_AG", "(D - 1) * (N / D) * N / 2", "count", "A4.1 (Question 10)", "N D", kSymbols,
           [](const double* x) { return ag_link_scalars_bidi(x[0], x[1]); });
// AllToAll blocks on the busier direction of a bidirectional ring:
// 1 + .. + D/2 = (D/2)(D/2 + 1)/2 (blocks of (N/D)^2) ...
double a2a_link_blocks_bidi(double d);
inline constexpr Formula kA2aBlocksBidi =
    record("h_bidi", "(D / 2) * (D / 2 + 1) / 2", "count", "A4.4 (Question 10)", "D", kSymbols,
           [](const double* x) { return a2a_link_blocks_bidi(x[0]); });
// ... and one-way: 1 + .. + (D-1) = D(D-1)/2 blocks.
double a2a_link_blocks_oneway(double d);
inline constexpr Formula kA2aBlocksOneway =
    record("h_oneway", "D * (D - 1) / 2", "count", "A4.4 (Question 10)", "D", kSymbols,
           [](const double* x) { return a2a_link_blocks_oneway(x[0]); });
// Scalars of a bidirectional AllToAll over one link: (N/D)^2 x the busier way's blocks.
double a2a_link_scalars_bidi(double n, double d);
inline constexpr Formula kA2aLinkBidi =
    record("L_A2A", "(N / D) ^ 2 * (D / 2) * (D / 2 + 1) / 2", "count", "A4.4 (Question 10)", "N D",
           kSymbols, [](const double* x) { return a2a_link_scalars_bidi(x[0], x[1]); });
// The busier way's hop-sum as a multiple of D^2 (D^2/8 for large D).
double per_d_squared(double h, double d);
inline constexpr Formula kPerDSquared =
    record("c", "h_bidi / D ^ 2", "ratio", "A4.4 (Question 10)", "h_bidi D", kSymbols,
           [](const double* x) { return per_d_squared(x[0], x[1]); });
// The comparisons Question 10 asks for: AllToAll over AllGather per link, and one way over two.
inline constexpr Formula kA2aOverAgLink =
    record("r", "L_A2A / L_AG", "ratio", "A4.4 (Question 10)", "L_A2A L_AG", kSymbols,
           [](const double* x) { return time_ratio(x[0], x[1]); });
inline constexpr Formula kAgOverA2aLink =
    record("r", "L_AG / L_A2A", "ratio", "A4.4 (Question 10)", "L_AG L_A2A", kSymbols,
           [](const double* x) { return time_ratio(x[0], x[1]); });
inline constexpr Formula kOneWayOverTwo =
    record("s", "L_oneway / L_bidi", "ratio", "A4.1 (Question 10)", "L_oneway L_bidi", kSymbols,
           [](const double* x) { return time_ratio(x[0], x[1]); });
inline constexpr Formula kHopSumOneWayOverTwo =
    record("s", "h_oneway / h_bidi", "ratio", "A4.4 (Question 10)", "h_oneway h_bidi", kSymbols,
           [](const double* x) { return time_ratio(x[0], x[1]); });

// Every record of the chapter, as register.cpp adds them.
inline constexpr const Formula* kFormulas[] = {&kLocalSize,
                                               &kTotalBytes,
                                               &kShare,
                                               &kWUni,
                                               &kLatencyThreshold,
                                               &kGathered,
                                               &kHopTime,
                                               &kHopsRing,
                                               &kHopsLine,
                                               &kLatencyTerm,
                                               &kCollectiveTime,
                                               &kAgRing,
                                               &kAgLine,
                                               &kAgDcn,
                                               &kAgMulti,
                                               &kAxisBwRing,
                                               &kAxisBwOddRing,
                                               &kAxisBwLine,
                                               &kAgSumBw,
                                               &kAllReduce,
                                               &kA2a1d,
                                               &kA2aTorus,
                                               &kA2aOpen,
                                               &kA2aOneWay,
                                               &kA2aDcn,
                                               &kChunkHops,
                                               &kA2aOverAg,
                                               &kChunkAg,
                                               &kChunkA2a,
                                               &kAchievedBw,
                                               &kBStar,
                                               &kDStar,
                                               &kXStar,
                                               &kDMin,
                                               &kAgOverRs,
                                               &kAgLinkOneway,
                                               &kA2aLinkOneway,
                                               &kAgLinkBidi,
                                               &kA2aBlocksBidi,
                                               &kA2aBlocksOneway,
                                               &kA2aLinkBidi,
                                               &kPerDSquared,
                                               &kA2aOverAgLink,
                                               &kAgOverA2aLink,
                                               &kOneWayOverTwo,
                                               &kHopSumOneWayOverTwo};

}  // namespace sb::sharding
