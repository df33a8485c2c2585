// Part 3, the collectives on a mesh (A4): a collective over named axes of an ICI torus or over DCN
// costed with the chapter's formulas (model.hpp), a ring collective simulated step by step, and
// Question 4's two strategies. Quantities are doubles in SI base units.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "chapters/tpus/model.hpp"
#include "core/trace.hpp"

namespace sb::sharding {

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
// the whole array on the ring): ring_chunk_ag and ring_chunk_a2a (model.hpp).
double ring_chunk_bytes(Op op, double V, int n);
// The schedule's time: each step lasts max(T_min, the busiest link's chunks x chunk / W_uni).
double ring_time(const RingSchedule& s, double chunk_bytes, double w_uni, double t_hop);

// ------------------------------------------------------------------ collectives on a mesh

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
  // "bandwidth-bound" | "latency-bound" | "no communication": a literal, where a std::string of
  // 15 characters outgrew wasm's short-string buffer (10) and allocated in every plot's loop.
  const char* regime = "";
};

// Cost of a collective over `axes` (A4): V is the gathered result per group for AllGather, the
// full-size partial sums per device for ReduceScatter and AllReduce, and the whole array summed
// over the group's devices for AllToAll. Wrapped axes with bidirectional links use the ring
// formulas; open lines and one-way rings use (N-1)/N V / W_uni; several axes add their
// bandwidths (A4.3). The mixed wrapped/open case is our extension (the book gives none). With a
// trace, every term is a step made from the chapter's records, its words starting with `label`.
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

}  // namespace sb::sharding
