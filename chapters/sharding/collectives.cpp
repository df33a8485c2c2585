// The collectives on a mesh (collectives.hpp): each term of a collective's cost made from the
// chapter's records (model.hpp), a ring collective step by step, and Question 4's strategies.
#include <algorithm>
#include <cctype>
#include <cmath>

#include "chapters/sharding/model.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace sb::sharding {

// ------------------------------------------------------------------ A4.1, A4.4: a ring, step by
// step

RingSchedule ring_schedule(Op op, int n, bool bidi, bool with_moves) {
  RingSchedule s;
  const auto next = [n](int i, int k) { return ((i + k) % n + n) % n; };
  const auto add = [&](size_t step, int chunk, int from, bool cw) {
    if (with_moves) s.steps[step].push_back({chunk, from, next(from, cw ? 1 : -1), cw});
  };
  if (op == Op::AllToAll) {
    // A piece k hops clockwise of home (k = 1 .. N-1) goes clockwise if k <= N/2 on a two-way
    // ring, else N - k hops the other way.
    const int far_cw = bidi ? n / 2 : n - 1, far_ccw = bidi ? (n - 1) / 2 : 0;
    const int steps = std::max(far_cw, far_ccw);
    s.steps.resize(with_moves ? steps : 0);
    for (int st = 1; st <= steps; ++st) {
      const double cw = std::max(0, far_cw - st + 1), ccw = std::max(0, far_ccw - st + 1);
      s.load.push_back({cw, ccw});
      s.link_cw += cw;
      s.link_ccw += ccw;
      if (!with_moves) continue;
      for (int o = 0; o < n; ++o)
        for (int k = 1; k < n; ++k) {
          const bool way = k <= far_cw;
          const int hops = way ? k : n - k;
          if (hops >= st) add(st - 1, o * n + next(o, k), next(o, way ? st - 1 : -(st - 1)), way);
        }
    }
    return s;
  }
  // AllGather: in step st every device passes on the shard that reached it st - 1 steps before.
  const int steps = bidi ? n / 2 : n - 1;
  s.steps.resize(with_moves ? steps : 0);
  for (int st = 1; st <= steps; ++st) {
    const bool back = bidi && !(n % 2 == 0 && st == n / 2);
    s.load.push_back({1, back ? 1 : 0});
    s.link_cw += 1;
    s.link_ccw += back ? 1 : 0;
    for (int i = 0; with_moves && i < n; ++i) {
      add(st - 1, next(i, -(st - 1)), i, true);
      if (back) add(st - 1, next(i, st - 1), i, false);
    }
  }
  return s;
}

double ring_chunk_bytes(Op op, double V, int n) {
  return op == Op::AllToAll ? ring_chunk_a2a(V, n) : ring_chunk_ag(V, n);
}

double ring_time(const RingSchedule& s, double chunk, double w_uni, double t_hop) {
  double t = 0;
  for (const auto& [cw, ccw] : s.load) t += std::max(t_hop, std::max(cw, ccw) * chunk / w_uni);
  return t;
}

// ------------------------------------------------------------------ collectives on a mesh

Op parse_op(Text text, Text field) {
  std::string t;
  for (char c : text)
    if (std::isalnum(static_cast<unsigned char>(c)))
      t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t == "allgather" || t == "ag") return Op::AllGather;
  if (t == "reducescatter" || t == "rs") return Op::ReduceScatter;
  if (t == "allreduce" || t == "ar") return Op::AllReduce;
  if (t == "alltoall" || t == "a2a") return Op::AllToAll;
  fail(field,
       "unknown collective '" + std::string(text.substr(0, 40)) +
           "'; use AllGather, ReduceScatter, AllReduce or AllToAll",
       "bad_choice");
}

const char* op_name(Op op) {
  switch (op) {
    case Op::AllGather:
      return "AllGather";
    case Op::ReduceScatter:
      return "ReduceScatter";
    case Op::AllReduce:
      return "AllReduce";
    case Op::AllToAll:
      return "AllToAll";
  }
  return "?";
}

namespace {

bool even(double n) { return std::fmod(n, 2) == 0; }

// Checks the message, the link and the axes; returns the axes with more than one device and
// counts the devices into c.
std::vector<Axis> active_axes(double V, const std::vector<Axis>& axes, const Link& link,
                              CollectiveCost& c) {
  if (!std::isfinite(V) || V < 0)
    fail("bytes", "the message size must be a finite, non-negative number of bytes");
  if (!(link.w_uni > 0) || !std::isfinite(link.w_uni))
    fail("bandwidth", "the link bandwidth must be positive");
  if (!(link.t_hop >= 0) || !std::isfinite(link.t_hop))
    fail("latency", "the per-hop latency must be zero or positive");
  std::vector<Axis> act;
  act.reserve(axes.size());  // one allocation: vector's growth path was a tenth of a call in wasm
  for (const auto& a : axes) {
    if (!(a.size >= 1) || !std::isfinite(a.size) || std::floor(a.size) != a.size)
      fail("axes", "axis " + a.name + " must have a whole, positive size");
    if (!(a.phys >= 1)) fail("axes", "axis " + a.name + " must span at least one hardware axis");
    c.devices *= a.size;
    if (a.size > 1) act.push_back(a);
  }
  return act;
}

// The terms N_X, N_Y (the sizes of the axes) or h_X, W_X of a step over the axes, their names
// kept in `names`, which the terms point into.
std::vector<Trace::Term> terms_of(const std::vector<Axis>& act, const std::vector<double>& values,
                                  const char* symbol, std::vector<std::string>& names) {
  names.clear();
  names.reserve(act.size());
  for (const auto& a : act) names.push_back(symbol + ("_" + a.name));
  std::vector<Trace::Term> terms;
  terms.reserve(act.size());
  for (std::size_t k = 0; k < act.size(); ++k) terms.push_back({names[k], values[k]});
  return terms;
}

// The hops along one named axis: its hardware axes' longest paths added up (A4.1, A4.3, A4.5).
// An AllToAll counts the named axis as one ring.
double axis_hops(const Axis& a, bool ring, bool hardware) {
  const bool split = hardware && a.phys > 1;
  const double per = split ? std::ceil(std::pow(a.size, 1.0 / a.phys) - 1e-9) : a.size;
  return (split ? a.phys : 1.0) * (ring ? hops_ring(per) : hops_line(per));
}

// The longest path (A4.1, A4.3, A4.5): one axis by the book's rule, several axes added up; over
// DCN N - 1 hops for a gather, one for an AllToAll.
double collective_hops(const std::vector<Axis>& act, const Link& link, bool a2a, double N,
                       Trace* tr, const std::string& what) {
  if (link.dcn) {
    if (a2a)
      return tr ? tr->value(what + ": hops, one through each chip's DCN port", 1, "count") : 1;
    return traced(tr, kHopsLine, {N}, [&] { return what + ": hops, one per other chip over DCN"; });
  }
  const Axis& a = act[0];
  if (act.size() == 1 && (a2a || a.phys == 1)) {
    const bool ring = a.wrap && link.bidirectional;
    return traced(tr, ring ? kHopsRing : kHopsLine, {a.size}, [&] {
      return what + ": hops along $" + a.name + "$ (" + (ring ? "a ring" : "a line") + ")";
    });
  }
  std::vector<double> hs;
  double h = 0;
  for (const auto& x : act) h += hs.emplace_back(axis_hops(x, x.wrap && link.bidirectional, !a2a));
  if (!tr) return h;
  std::vector<std::string> names;
  return tr->sum(what + ": hops on the longest path, the axes' added up", "h", "count",
                 terms_of(act, hs, "h", names));
}

// AllToAll (A4.4): over DCN, a one-way ring (Question 10's count), an open torus (our extension:
// the bisection cut crosses one plane of links instead of two), or the wrapped torus. N is the
// devices, M the longest axis.
double alltoall_bandwidth(double V, const std::vector<Axis>& act, const Link& link, Trace* tr,
                          const std::string& what, CollectiveCost& c) {
  const double N = c.devices;
  c.bytes_per_chip = (N - 1) / N * V / N;
  c.w_eff = link.w_uni;
  if (link.dcn)
    return traced(tr, kA2aDcn, {V, N, link.w_uni},
                  [&] { return what + ": bandwidth term over DCN"; });
  double M = 1;
  bool open = false;
  std::vector<double> sizes;
  for (const auto& a : act) {
    M = std::max(M, sizes.emplace_back(a.size));
    open = open || !a.wrap;
  }
  if (tr && act.size() > 1) {
    std::vector<std::string> names;
    const auto terms = terms_of(act, sizes, "N", names);
    tr->product(what + ": devices", "N", "count", terms);
    tr->max(what + ": the longest axis", "M", "count", terms);
  }
  if (!link.bidirectional)
    return traced(tr, kA2aOneWay, {V, M, N, link.w_uni}, [&] {
      return what + ": bandwidth term on a one-way ring (half an AllGather's load per link)";
    });
  if (open)
    return traced(tr, kA2aOpen, {V, M, N, link.w_uni},
                  [&] { return what + ": bandwidth term without wraparound"; });
  c.w_eff = tpus::axis_bw(link.w_uni, /*wrap=*/true);
  return traced(tr, kA2aTorus, {V, M, N, c.w_eff}, [&] {
    return what + ": bandwidth term on the torus ($V / (4 W_{ici})$ on one ring)";
  });
}

// Several axes, or one spanning several hardware axes (A4.3): on complete rings of even size as
// the book writes it, V / (W_ici n_axes); otherwise each axis adds its own bandwidth.
double axes_bandwidth(double V, const std::vector<Axis>& act, const Link& link, Trace* tr,
                      const std::string& what, CollectiveCost& c) {
  const double W = tpus::axis_bw(link.w_uni, /*wrap=*/true);
  bool rings = link.bidirectional;
  double n_axes = 0;
  for (const auto& a : act) {
    rings = rings && a.wrap && even(a.size);
    n_axes += a.phys;
  }
  if (rings) {
    c.w_eff = W * n_axes;
    return traced(tr, kAgMulti, {V, n_axes, W}, [&] {
      return what + ": bandwidth term over " + units::number(n_axes) + " hardware axes";
    });
  }
  std::vector<double> ws;
  double wsum = 0;
  for (const auto& a : act) {
    const auto words = [&] { return what + ": axis $" + a.name + "$ adds its bandwidth"; };
    const double n = a.size;
    wsum += ws.emplace_back(!(a.wrap && link.bidirectional)
                                ? traced(tr, kAxisBwLine, {link.w_uni, a.phys, n}, words)
                            : even(n) ? traced(tr, kAxisBwRing, {W, a.phys}, words)
                                      : traced(tr, kAxisBwOddRing, {W, a.phys, n}, words));
  }
  if (tr) {
    std::vector<std::string> names;
    wsum = tr->sum(what + ": the axes' bandwidths added up", "W_sum", "B_per_s",
                   terms_of(act, ws, "W", names));
  }
  c.w_eff = wsum;
  return traced(tr, kAgSumBw, {V, wsum}, [&] { return what + ": bandwidth term"; });
}

// AllGather and ReduceScatter, one pass (A4.1, A4.3, A4.5): the bandwidth term.
double gather_bandwidth(double V, const std::vector<Axis>& act, const Link& link, Trace* tr,
                        const std::string& what, CollectiveCost& c) {
  const double N = c.devices;
  c.bytes_per_chip = (N - 1) / N * V;
  if (link.dcn) {
    c.w_eff = link.w_uni * N / (N - 1);
    return traced(tr, kAgDcn, {V, N, link.w_uni},
                  [&] { return what + ": bandwidth term over DCN"; });
  }
  const Axis& a = act[0];
  if (act.size() > 1 || a.phys != 1) return axes_bandwidth(V, act, link, tr, what, c);
  const double n = a.size;
  if (a.wrap && link.bidirectional) {
    c.w_eff = tpus::axis_bw(link.w_uni, /*wrap=*/true) * (even(n) ? 1.0 : n / (n - 1));
    return traced(tr, kAgRing, {V, n, link.w_uni}, [&] {
      return what + ": bandwidth term on a ring with wraparound" +
             (even(n) ? " ($= V / W_{ici}$ for even $N$)" : "");
    });
  }
  c.w_eff = link.w_uni * n / (n - 1);
  return traced(tr, kAgLine, {V, n, link.w_uni}, [&] {
    return what + ": bandwidth term on " + (a.wrap ? "a one-way ring" : "an open line");
  });
}

}  // namespace

CollectiveCost collective_cost(Op op, double V, const std::vector<Axis>& axes, const Link& link,
                               Trace* tr, Text label) {
  CollectiveCost c;
  const std::vector<Axis> act = active_axes(V, axes, link, c);
  const std::string what = tr ? std::string(label.empty() ? Text(op_name(op)) : label) : "";
  if (act.empty() || V == 0) {
    c.regime = "no communication";
    if (tr) tr->value(what + ": nothing to exchange (one device or no bytes)", 0, "s");
    return c;
  }
  const bool a2a = op == Op::AllToAll, ar = op == Op::AllReduce;
  const std::string pass = ar && tr ? what + ", one pass" : what;
  const double t_bw = a2a ? alltoall_bandwidth(V, act, link, tr, pass, c)
                          : gather_bandwidth(V, act, link, tr, pass, c);
  const double hops = collective_hops(act, link, a2a, c.devices, tr, pass);
  const double t_lat = traced(tr, kLatencyTerm, {hops, link.t_hop},
                              [&] { return pass + ": latency term, hops times $T_{min}$"; });
  c.t_bw = t_bw;
  c.t_lat = t_lat;
  c.hops = hops;
  if (ar) {  // A4.2: a ReduceScatter, then an AllGather: every term twice
    c.t_bw = traced(tr, kAllReduce, {t_bw}, [&] {
      return what + ": a ReduceScatter then an AllGather, the bandwidth term twice";
    });
    c.t_lat = traced(tr, kAllReduce, {t_lat}, [&] { return what + ": the latency term twice"; });
    c.hops = 2 * hops;
    c.bytes_per_chip *= 2;
  }
  c.latency_bound = c.t_lat > c.t_bw;
  c.regime = c.latency_bound ? "latency-bound" : "bandwidth-bound";
  c.t = traced(tr, kCollectiveTime, {c.t_bw, c.t_lat},
               [&] { return what + ": time (" + c.regime + ")"; });
  return c;
}

// ------------------------------------------------------------------ Question 4

StrategyTimes gather_then_multiply(double B, double D, double F, double b, double peak,
                                   const Axis& x, const Link& l) {
  return {roofline::t_math(roofline::matmul_flops({B, D, F}), peak),
          collective_cost(Op::AllGather, b * D * F, {x}, l).t};
}

StrategyTimes multiply_then_allreduce(double B, double D, double F, double b, double peak,
                                      const Axis& x, const Link& l) {
  return {roofline::t_math(roofline::matmul_flops({B, D, F}) / x.size, peak),
          collective_cost(Op::AllReduce, b * B * F, {x}, l).t};
}

}  // namespace sb::sharding
