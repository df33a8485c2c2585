// A.6: the collective matmul step by step, against the plain collective followed by one matmul.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "chapters/jax_stuff/model.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace sb::jax_stuff {

namespace {

namespace sh = sharding;

void check_shapes(const CmInput& in) {
  auto divides = [](double n, double by, Text field, Text what) {
    if (std::fmod(n, by) != 0)
      fail(field,
           units::number(n, 15) + " does not divide into " + units::number(by, 15) +
               " shards over " + std::string(what),
           "not_divisible");
  };
  if (in.Y < 2) fail("Y", "the ring needs at least 2 devices", "out_of_range");
  divides(in.B, in.X, "B", "X");
  divides(in.D, in.Y, "D", "Y");
  divides(in.F, in.Y, "F", "Y");
}

double step_or(Trace* tr, Text what, const Formula& f, std::initializer_list<double> x) {
  return tr ? tr->step(what, f, x) : f.fn(x.begin());
}

// One step's ppermute: a block over one hop (half of it each way on a ring with both directions),
// at least a hop's latency; an open line's wrapping block crosses N - 1 hops in the same time
// slot, as the other blocks of its direction share the links with it.
double permute_time(const CmInput& in, double V, Trace* tr) {
  const bool halves = in.bidirectional && in.wrap;
  if (in.bidirectional && !in.wrap && tr)
    tr->note(
        "With no wraparound, the half that wraps round crosses every link of its direction, "
        "so each link still carries a whole block a step: both directions gain nothing here.");
  const double bw =
      halves ? step_or(tr, "Each half block over one link", kHalfHop, {V, in.Y, in.link.w_uni})
             : step_or(tr, "The block over one link", sh::kHopTime, {V, in.Y, in.link.w_uni});
  const double hops = in.wrap ? 1
                              : step_or(tr, "Hops the wrapping block crosses, no wraparound",
                                        sh::kHopsLine, {in.Y});
  const double lat = step_or(tr, "Its latency", sh::kLatencyTerm, {hops, in.link.t_hop});
  return step_or(tr, "One step's ppermute", sh::kCollectiveTime, {bw, lat});
}

// The plain version: the AllGather of A (or the ReduceScatter of the partial result) and one
// matmul of the whole local block, one after the other.
void naive(const CmInput& in, double b, CmResult& r, Trace* tr) {
  const bool ag = in.kind == CmKind::AllGather;
  sh::Axis y;
  y.name = "Y";
  y.size = in.Y;
  y.wrap = in.wrap;
  sh::Link l = in.link;
  l.bidirectional = true;  // XLA's own collective uses both directions of the ring
  const double V = ag ? step_or(tr, "A gathered over Y, $A[B_X, D]$ per device", sh::kGathered,
                                {in.s * b * in.D / in.Y, in.Y})
                      : in.s * b * in.D;
  if (!ag && tr) tr->value("The partial sums $Out[B_X, D]\\{U_Y\\}$ per device", V, "B");
  const sh::CollectiveCost c =
      sh::collective_cost(ag ? sh::Op::AllGather : sh::Op::ReduceScatter, V, {y}, l, tr,
                          ag ? "$\\mathrm{AllGather}_Y$" : "$\\mathrm{ReduceScatter}_Y$");
  r.t_collective = c.t;
  r.t_matmul = ag ? step_or(tr, "The whole local matmul after the gather", roofline::kMatmulTMath,
                            {b, in.D, in.F / in.Y, in.peak})
                  : step_or(tr, "The whole local matmul before the scatter", roofline::kMatmulTMath,
                            {b, in.F / in.Y, in.D, in.peak});
  r.t_naive = tr ? tr->sum("Not overlapped: the collective, then the matmul", "T_naive", "s",
                           {{"T_coll", r.t_collective}, {"T_mm", r.t_matmul}})
                 : r.t_collective + r.t_matmul;
}

void lay_out(const CmInput& in, CmResult& r) {
  const int n = static_cast<int>(in.Y);
  const double len = std::max(r.t_c, r.t_p);
  double t = 0;
  const bool ag = in.kind == CmKind::AllGather;
  for (int i = 0; i < n; ++i) {
    CmStep st;
    st.start = t;
    st.t_compute = r.t_c;
    // AllGather: a permute beside each matmul but the last; ReduceScatter: beside each but the
    // first.
    const bool sends = ag ? i < n - 1 : i > 0;
    st.t_permute = sends ? r.t_p : 0;
    st.length = sends ? len : r.t_c;
    t += st.length;
    r.steps.push_back(st);
  }
}

}  // namespace

CmResult collective_matmul(const CmInput& in, Trace* tr) {
  check_shapes(in);
  CmResult r;
  const double b = step_or(tr, "Rows on each device, $B/X$", sh::kLocalSize, {in.B, in.X});
  const double d = step_or(tr, "$D/Y$", sh::kLocalSize, {in.D, in.Y});
  const double f = step_or(tr, "$F/Y$", sh::kLocalSize, {in.F, in.Y});
  r.block_bytes = tr ? tr->product(in.kind == CmKind::AllGather
                                       ? "The block a step sends, $A[B_X, D_Y]$"
                                       : "The block a step sends, $Out[B_X, D_Y]$ partial sums",
                                   "V_blk", "B", {{"s", in.s}, {"b", b}, {"d", d}})
                     : in.s * b * d;
  r.step_flops = step_or(tr, "One step's matmul", roofline::kMatmulFlops, {b, d, f});
  r.t_c = step_or(tr, "Its time", roofline::kTMath, {r.step_flops, in.peak});
  const double V =
      step_or(tr, "The blocks of the ring together", sh::kGathered, {r.block_bytes, in.Y});
  r.t_p = permute_time(in, V, tr);
  r.t_cm = step_or(tr, "The collective matmul", kCollectiveMatmul, {in.Y, r.t_c, r.t_p});
  lay_out(in, r);
  naive(in, b, r, tr);
  r.hidden = r.t_c >= r.t_p;
  const bool halves = in.bidirectional && in.wrap;
  r.f_min = step_or(tr, "The ppermute hides behind the matmul from $F/Y$ of",
                    halves ? kHiddenWidthBidi : kHiddenWidth, {in.s, in.peak, in.link.w_uni});
  r.speedup = step_or(tr, "Overlapped against not", kSpeedup, {r.t_naive, r.t_cm});
  return r;
}

}  // namespace sb::jax_stuff
