// Part 3, "Sharded Matrices and How to Multiply Them": local shapes of sharded arrays, the cost
// of the four collectives on ICI tori (and DCN), and the analysis of a sharded matmul.
// Quantities are doubles in SI base units (s, B, FLOPs, FLOPs/s, B/s). Section labels (A1, A3,
// A4.x) refer to our chapter notes, which follow the book's sections in order.
#pragma once
#include <string>
#include <vector>

#include "chapters/sharding/notation.hpp"
#include "chapters/tpus/model.hpp"
#include "core/json.hpp"
#include "core/trace.hpp"

namespace sb::sharding {

// The equations of the earlier chapters are theirs: a matmul's FLOPs and T_math are
// roofline::matmul_flops and roofline::t_math, a load time is roofline::t_comms; a ring's hop
// count, bidirectional bandwidth (W_ici = 2 W_uni), bisection and wraparound rule are the tpus
// chapter's (tpus::axis_max_distance, tpus::axis_bw, tpus::bisection_links, tpus::wraps).

// ------------------------------------------------------------------ A1: local shapes, memory

// Number of shards a dimension is cut into: product of the sizes of its subscript axes (A1).
double shards_of(const Dim& d, const Mesh& m);
// Copies of the array the mesh stores: product of the sizes of the axes it does not use (A1).
double replication_factor(const Sharding& s, const Mesh& m);

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
// validates the sharding against the mesh and the divisibility. Errors name `field`.
LocalShape local_shape(const Sharding& s, const Mesh& m, const std::vector<double>& sizes,
                       double bytes_per_elem, Text field, Trace* tr = nullptr);

// ------------------------------------------------------------------ A4: collective equations

// Per-hop payload below which a hop is latency-bound: one-way bandwidth x hop latency (A4.1).
double latency_bound_threshold(double w_uni, double t_hop);
// AllGather over a bidirectional ring with wraparound, bandwidth term:
// floor(N/2) hops of V/(N W_uni) each = V/W_ici for even N (A4.1).
double t_allgather_ring(double V, double n, double w_uni);
// AllGather over an open line (or one-way ring): (N-1) V / (N W_uni) (A4.1, A4.5).
double t_allgather_line(double V, double n, double w_uni);
// AllGather over several wrapped axes at once: V / (W_ici n_axes) (A4.3).
double t_allgather_multi(double V, double n_axes, double w_ici);
// AllReduce = ReduceScatter + AllGather: twice the gather time of the per-device array (A4.2).
double t_allreduce_from_ag(double t_allgather);
// AllToAll on a 1-D bidirectional ring: V / (4 W_ici), V the ring's whole array (A4.4).
double t_alltoall_1d(double V, double w_ici);
// AllToAll on an N-D torus: V max(A,B,..) / (4 N W_ici), V summed over all N devices (A4.4).
double t_alltoall_nd(double v_total, const std::vector<double>& dims, double w_ici);
// The same in per-device bytes: (V/N) max(A,B,..) / (4 W_ici) (A4.4, second form).
double t_alltoall_per_device(double v_per_device, double max_axis, double w_ici);
// Chunk-hops one device makes in an AllToAll on a bidirectional ring of even N:
// (1 + .. + N/2) + (1 + .. + N/2 - 1) = N^2/4 (A4.4 footnote), counted step by step.
double alltoall_chunk_hops_bidi(long long n);
// Question 10: scalars crossing one link in a one-way AllGather / ReduceScatter of an N x N array
// on a ring of D: D-1 strips of (N/D) x N.
double ag_link_scalars_oneway(double n, double d);
// Question 10: scalars crossing one link in a one-way AllToAll: (N/D)^2 blocks x (1 + .. + D-1).
double a2a_link_scalars_oneway(double n, double d);
// Question 10: with both directions, an AllGather strip is split over two ways: half the load.
double ag_link_scalars_bidi(double n, double d);
// Question 10: AllToAll blocks on the busier direction of a bidirectional ring:
// 1 + .. + D/2 = (D/2)(D/2 + 1)/2 (blocks of (N/D)^2).
double a2a_link_blocks_bidi(double d);
// ... and one-way: 1 + .. + (D-1) = D(D-1)/2 blocks.
double a2a_link_blocks_oneway(double d);

// ------------------------------------------------------------------ collectives on a mesh

enum class Op { AllGather, ReduceScatter, AllReduce, AllToAll };
Op parse_op(Text text, Text field);
const char* op_name(Op op);

// ------------------------------------------------------------------ A4.1, A4.4: a ring, step by
// step

// One chunk crossing one link in a step. AllGather: the chunk is a shard, named by the device it
// started on; AllToAll: the piece a device sends another, named origin x N + destination.
struct RingMove {
  int chunk = 0;
  int from = 0, to = 0;
  bool cw = true;  // clockwise (to the next device) or the other way
};
// An AllGather or AllToAll on a ring of N devices, every link moving at once in each step.
// AllGather: each step every device forwards one shard each way (one way only on a one-way
// ring, and in the last step of an even ring, whose farthest shard needs one way); floor(N/2)
// steps both ways, N - 1 one way (A4.1). AllToAll: every piece goes the shorter way round (ties
// clockwise), all at once, one hop a step, so a link carries in step s the pieces still s or more
// hops from home (A4.4 footnote).
struct RingSchedule {
  std::vector<std::vector<RingMove>> steps;     // the moves of each step (empty unless asked for)
  std::vector<std::pair<double, double>> load;  // chunks on every link in each step: (cw, ccw)
  double link_cw = 0, link_ccw = 0;             // chunks over one link in the whole collective
};
RingSchedule ring_schedule(Op op, int n, bool bidirectional, bool with_moves);
// Bytes of one chunk: V / N for an AllGather (V the gathered result), V / N^2 for an AllToAll (V
// the whole array on the ring).
double ring_chunk_bytes(Op op, double V, int n);
// The schedule's time: each step lasts max(T_min, the busiest link's chunks x chunk / W_uni).
double ring_time(const RingSchedule& s, double chunk_bytes, double w_uni, double t_hop);

// One mesh axis a collective runs over.
struct Axis {
  std::string name;
  double size = 1;
  bool wrap = true;  // ring (wraparound) or open line
  double phys = 1;   // hardware axes this named axis spans (bandwidth grows with it, A4.3)
};

struct Link {
  double w_uni = 0;  // one-way bandwidth of one link (ICI) or per chip (DCN), B/s
  double t_hop = tpus::kTypicalHopLatency;  // latency per hop, s
  bool bidirectional = true;                // rings may send both ways
  bool dcn = false;  // the axis crosses the data-centre network instead of ICI
};

struct CollectiveCost {
  double t = 0;               // max(bandwidth term, latency term)
  double t_bw = 0;            // bandwidth term
  double t_lat = 0;           // hops x per-hop latency
  double hops = 0;            // longest path in hops (x2 for AllReduce: two passes)
  double w_eff = 0;           // bandwidth the bandwidth term divides by, B/s
  double bytes_per_chip = 0;  // bytes each chip receives
  double devices = 1;
  bool latency_bound = false;
  std::string regime;  // "bandwidth-bound" | "latency-bound" | "no communication"
};

// Cost of a collective over `axes` (A4): V is the gathered result per group for AllGather, the
// full-size partial sums per device for ReduceScatter and AllReduce, and the whole array summed
// over the group's devices for AllToAll. Wrapped axes with bidirectional links use the ring
// formulas; open lines and one-way rings use (N-1)/N V / W_uni; several axes add their
// bandwidths (A4.3). The mixed wrapped/open case is our extension (the book gives none).
CollectiveCost collective_cost(Op op, double V, const std::vector<Axis>& axes, const Link& link,
                               Trace* tr = nullptr, Text label = "");

// ------------------------------------------------------------------ Question 4: two strategies

// X[B, D] ._D Y[D_X, F] -> Z[B, F] on one mesh axis X, per chip. Strategy 1 gathers Y (V = b D F)
// and multiplies replicated (2BDF FLOPs); strategy 2 multiplies its D/|X| slice (2BDF/|X|) and
// AllReduces Z (V = b B F). Times from roofline::t_math and collective_cost (A4).
struct StrategyTimes {
  double t_math = 0, t_comms = 0;
};
StrategyTimes gather_then_multiply(double B, double D, double F, double bytes_per_elem,
                                   double peak_flops, const Axis& x, const Link& l);
StrategyTimes multiply_then_allreduce(double B, double D, double F, double bytes_per_elem,
                                      double peak_flops, const Axis& x, const Link& l);

// ------------------------------------------------------------------ A3: sharded matmul

// One step of a plan: a collective, a free reshard, or the local matmul.
struct PlanStep {
  std::string kind;   // "AllGather", "ReduceScatter", "AllReduce", "AllToAll", "slice", "matmul"
  std::string array;  // "A", "B", "C"
  std::string when;   // "before" or "after" the local matmul, or "matmul"
  std::vector<std::string> axes;
  std::string dim;       // the dimension a gather removes axes from / a RS scatters onto
  std::string from, to;  // notation before and after
  double V = 0;          // bytes the cost formula uses
  double flops = 0;      // matmul step: FLOPs per chip
  CollectiveCost cost;
};

struct Plan {
  std::string name;
  std::vector<PlanStep> steps;
  Sharding out;
  double flops_per_chip = 0;
  double t_math = 0;
  double t_comms = 0;
  double bytes_per_chip = 0;                  // bytes each chip receives over all collectives
  double peak_bytes_a = 0, peak_bytes_b = 0;  // per-device bytes of the operands at the matmul
  std::string verdict;
};

// A plan's name (Plan::name) for a derivation's words, the collectives' names as inline TeX:
// "$\\mathrm{AllGather}_{X}$ B; local matmul".
std::string plan_name_tex(const Plan& p);

struct MatmulInput {
  Sharding a, b;
  Mesh mesh;
  double I = 0, J = 0, K = 0;  // A's free dim, the contracting dim, B's free dim
  double bytes_per_elem = 2;
  double peak_flops = 0;  // FLOPs/s per chip
  Link link;
  std::vector<bool> wrap;  // per mesh axis (same order as mesh.names)
};

struct MatmulAnalysis {
  int case_no = 1;         // the book's case: 1, 2, 3 or 4
  std::vector<int> cases;  // every case that applies (e.g. 3 and 4 together)
  std::string case_text;
  std::string contracting;             // name of the contracting dim
  std::string dim_i, dim_k;            // names of A's and B's free dims
  std::vector<std::string> conflicts;  // Case 4 axes
  Plan plan;                           // the book's default
  std::vector<Plan> alternatives;      // the other plans the book compares (default not repeated)
};

// Roles of A's and B's dims: the contracting dim is the one name they share (exactly one).
// Both must be 2-D. Errors name field "a" or "b".
struct MatmulDims {
  int a_i, a_j, b_j, b_k;
  std::string contracting;
};
MatmulDims matmul_dims(const Sharding& a, const Sharding& b);

// Decides the case, builds the default plan and the alternatives with costs (A3, A4).
MatmulAnalysis analyze_matmul(const MatmulInput& in, Trace* tr = nullptr);

// Plan and sharding to JSON for the calculators and widgets.
json to_json(const Plan& p);
// Which device holds which block of each array: mesh coordinates -> block index per dim.
json blocks_json(const Mesh& m, const std::vector<std::pair<std::string, Sharding>>& arrays,
                 const std::vector<std::vector<double>>& sizes);

}  // namespace sb::sharding
