// The sharding chapter's ring and strategy calculators: an AllGather or AllToAll on a ring, step by
// step (sharding.ring), and Question 4's two strategies over a grid of B and D
// (sharding.strategies).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "chapters/sharding/calculators.hpp"
#include "chapters/sharding/model.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

namespace sb::sharding {
namespace {

// ------------------------------------------------------------------------------------ ring --

constexpr int kMaxRingCurve = 64;

// Which chunks each device holds after each step (step 0: before any), from the moves.
void write_held(JsonWriter& w, Op op, int n, const RingSchedule& s) {
  std::vector<std::vector<int>> at(n);  // chunk -> ... per device, as sorted lists
  for (int i = 0; i < n; ++i) {
    if (op == Op::AllToAll)
      for (int d = 0; d < n; ++d) at[i].push_back(i * n + d);
    else
      at[i].push_back(i);
  }
  const auto put = [&] {
    w.arr();
    for (const auto& chunks : at) {
      w.arr();
      for (int c : chunks) w.integer(c);
      w.end();
    }
    w.end();
  };
  w.arr();
  put();
  for (const auto& step : s.steps) {
    for (const RingMove& m : step) {
      if (op == Op::AllToAll) {  // the piece leaves its device
        auto& from = at[m.from];
        from.erase(std::find(from.begin(), from.end(), m.chunk));
      }
      at[m.to].insert(std::lower_bound(at[m.to].begin(), at[m.to].end(), m.chunk), m.chunk);
    }
    put();
  }
  w.end();
}

// The book's closed form for the same collective on a ring with wraparound (A4.1, A4.4), with
// its steps when there is a derivation.
double ring_book_time(Op op, double V, int n, const Link& l, Trace* tr = nullptr) {
  const Axis a{"X", static_cast<double>(n), /*wrap=*/true, 1};
  return collective_cost(op, V, {a}, l, tr, "The book's formula").t;
}

// The schedule for the page: each step's moves, the chunks on a link in each step and so far,
// and what each device holds.
void write_ring(JsonWriter& w, Op op, int n, const RingSchedule& s, const Link& l) {
  w.obj()
      .key("n")
      .integer(n)
      .key("op")
      .str(op_name(op))
      .key("bidirectional")
      .boolean(l.bidirectional);
  w.key("steps").arr();
  for (const auto& step : s.steps) {
    w.arr();
    for (const RingMove& m : step)
      w.arr().integer(m.chunk).integer(m.from).integer(m.to).integer(m.cw ? 1 : 0).end();
    w.end();
  }
  w.end().key("load").arr();
  for (const auto& [cw, ccw] : s.load) w.arr().num(cw).num(ccw).end();
  w.end().key("sent").arr();
  double cw = 0, ccw = 0;
  for (const auto& [a, b] : s.load) w.arr().num(cw += a).num(ccw += b).end();
  w.end().key("held");
  write_held(w, op, n, s);
  w.end();
}

// Time against N for both collectives, step by step and by the book's formula.
void write_ring_curve(JsonWriter& w, double V, const Link& l) {
  std::vector<double> ag, a2a, ag_book, a2a_book;
  w.obj().key("n").arr();
  for (int k = 2; k <= kMaxRingCurve; ++k) {
    w.integer(k);
    for (Op o : {Op::AllGather, Op::AllToAll}) {
      const RingSchedule rs = ring_schedule(o, k, l.bidirectional, false);
      (o == Op::AllGather ? ag : a2a)
          .push_back(ring_time(rs, ring_chunk_bytes(o, V, k), l.w_uni, l.t_hop));
      (o == Op::AllGather ? ag_book : a2a_book).push_back(ring_book_time(o, V, k, l));
    }
  }
  w.end().key("allgather").nums(ag).key("alltoall").nums(a2a);
  w.key("allgather_book").nums(ag_book).key("alltoall_book").nums(a2a_book).end();
}

// ------------------------------------------------------------------------------ strategies --

constexpr int kPhaseCells = 48;  // grid points along B and along D

// Overlapped (a collective matmul) or not: the two ways the chapter adds T_math and T_comms.
double step_time(const StrategyTimes& t, bool overlap) {
  return overlap ? std::max(t.t_math, t.t_comms) : t.t_math + t.t_comms;
}

// n points from lo to hi, evenly spaced in log.
std::vector<double> log_points(double lo, double hi, int n) {
  std::vector<double> xs(n);
  for (int i = 0; i < n; ++i) xs[i] = lo * std::pow(hi / lo, static_cast<double>(i) / (n - 1));
  xs[n - 1] = hi;
  return xs;
}

// The book's lines of Question 4 on the chip: B* = C/W_ici, D* = 2C/W_ici and, for an axis of X,
// D = 2XC/W_ici (bf16 operands).
struct Thresholds {
  double b_star, d_star, d_min;
};
Thresholds strategy_thresholds(double peak, double w_ici, double X, Trace& tr) {
  Thresholds t;
  t.b_star = tr.step("Strategy 1 is comms-bound below $B^*$, where $2BDF/C = 2DF/W_{ici}$", kBStar,
                     {peak, w_ici});
  t.d_star = tr.step("Strategy 2 beats 1 at large $B$ above $D^*$, where $4BF/W_{ici} = 2BDF/C$",
                     kDStar, {peak, w_ici});
  t.d_min =
      tr.step("Strategy 2 is compute-bound above $D = X D^*$, where $2BDF/(XC) = 4BF/W_{ici}$",
              kDMin, {X, peak, w_ici});
  return t;
}

// Over the grid of B and D: 0 or 2 for strategy 1 or 2 the faster, plus 1 when that one is
// communication-bound.
void write_phase_cells(JsonWriter& w, const std::vector<double>& bs, const std::vector<double>& ds,
                       double F, double eb, double peak, const Axis& x, const Link& l,
                       bool overlap) {
  w.arr();
  for (double D : ds) {
    w.arr();
    for (double B : bs) {
      const StrategyTimes s1 = gather_then_multiply(B, D, F, eb, peak, x, l),
                          s2 = multiply_then_allreduce(B, D, F, eb, peak, x, l);
      const bool two = step_time(s2, overlap) < step_time(s1, overlap);
      const StrategyTimes& t = two ? s2 : s1;
      w.integer((two ? 2 : 0) + (t.t_math > t.t_comms ? 0 : 1));
    }
    w.end();
  }
  w.end();
}

}  // namespace

void ring_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& c = hw::chip(in.text("chip"));
  const Op op = parse_op(in.text("op"), "op");
  const int n = static_cast<int>(in.num("n"));
  const double V = in.num("bytes");
  const Link l = link_for(c, "ici", in.text("direction"), in.num("w_uni"), in.num("t_hop"));
  const RingSchedule s = ring_schedule(op, n, l.bidirectional, true);
  const double chunk =
      op == Op::AllToAll
          ? tr.step("The piece each device sends each other one", kChunkA2a, {V, double(n)})
          : tr.step("The shard each device starts with", kChunkAg, {V, double(n)});
  const double t = ring_time(s, chunk, l.w_uni, l.t_hop);
  const double busiest = std::max(s.link_cw, s.link_ccw);
  tr.value("Chunks over the busiest link in all " + std::to_string(s.load.size()) +
               " steps, counted from the schedule",
           busiest, "count");
  tr.value(
      "Time, step by step: each step lasts $\\max(T_{min}, c \\cdot V_{chunk} / W_{uni})$, "
      "$c$ the chunks on its busiest link",
      t, "s");
  const double book = ring_book_time(op, V, n, l, &tr);
  r.value("steps", static_cast<double>(s.load.size()), "count", "steps");
  r.value("chunk_bytes", chunk, "B", op == Op::AllToAll ? "piece size V/N^2" : "shard size V/N");
  r.value("link_chunks", busiest, "count", "chunks over the busiest link");
  r.value("link_bytes", busiest * chunk, "B", "bytes over the busiest link");
  r.value("t", t, "s", "time, step by step");
  r.value("t_book", book, "s", "the book's formula (ring with wraparound)");
  JsonWriter w = r.writer();
  w.key("ring");
  write_ring(w, op, n, s, l);
  w.key("curve");
  write_ring_curve(w, V, l);
  w.key("verdict").str(std::string(op_name(op)) + " on " + std::to_string(n) + " devices: " +
                       std::to_string(s.load.size()) + " steps, " + units::format(t, "s"));
}

// sharding.strategies: Question 4's two strategies over a grid of batch B and width D: which is
// faster where, and whether the faster one is compute-bound there.
void strategies_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& c = hw::chip(in.text("chip"));
  const double peak = c.peak("bf16", "chip");
  const double eb = hw::dtype_bytes("bf16", "dtype");
  const Link l = link_for(c, "ici", "bidirectional", in.num("w_uni"), in.num("t_hop"));
  const Axis x{"X", in.num("X"), /*wrap=*/true, 1};  // the book's full ring
  const double F = in.num("F"), b_max = in.num("b_max"), d_max = in.num("d_max");
  const bool overlap = in.text("overlap") == "max";
  if (d_max < 2 * x.size)
    fail("d_max", "d_max must be at least twice the axis X, so that D splits over it",
         "out_of_range");
  const Thresholds th = strategy_thresholds(peak, tpus::axis_bw(l.w_uni, true), x.size, tr);
  const std::vector<double> bs = log_points(1, b_max, kPhaseCells),
                            ds = log_points(2 * x.size, d_max, kPhaseCells);
  // The reader's point.
  const double B = in.num("B"), D = in.num("D");
  const double t1 = step_time(gather_then_multiply(B, D, F, eb, peak, x, l), overlap),
               t2 = step_time(multiply_then_allreduce(B, D, F, eb, peak, x, l), overlap);
  r.value("t_strategy1", t1, "s", "strategy 1: gather Y, multiply replicated");
  r.value("t_strategy2", t2, "s", "strategy 2: multiply locally, AllReduce Z");
  r.value("b_star", th.b_star, "tokens", "B below which strategy 1 is comms-bound");
  r.value("d_star", th.d_star, "count", "D above which strategy 2 wins at large B");
  r.value("d_compute_bound_2", th.d_min, "count", "D above which strategy 2 is compute-bound");
  JsonWriter w = r.writer();
  w.key("phase").obj().key("b").nums(bs).key("d").nums(ds).key("cells");
  write_phase_cells(w, bs, ds, F, eb, peak, x, l, overlap);
  w.key("b_star").num(th.b_star).key("d_star").num(th.d_star).key("d_x").num(th.d_min);
  w.key("point").obj().key("b").num(B).key("d").num(D).key("winner").integer(t2 < t1 ? 2 : 1);
  w.end().end();
  w.key("verdict").str(std::string(t2 < t1 ? "Strategy 2" : "Strategy 1") +
                       " is faster at B = " + units::number(B) + ", D = " + units::number(D));
}

}  // namespace sb::sharding
