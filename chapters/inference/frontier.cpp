// The sweep and the serving planner of frontier.hpp: every number comes from model.hpp's step
// model; this file only enumerates, searches and ranks.
#include "chapters/inference/frontier.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/units.hpp"
#include "core/work.hpp"

namespace sb::inference {

// ------------------------------------------------------------------ dtype sets

DtypeSet dtype_set(const Machine& t, std::string_view w, std::string_view kv,
                   std::string_view matmul, std::string_view field_matmul) {
  DtypeSet d;
  d.w = w;
  d.kv = kv;
  d.matmul = matmul;
  d.b_w = dtype_bytes(w, "dtype_w");
  d.b_kv = dtype_bytes(kv, "dtype_kv");
  d.C_peak = peak_of(t, matmul, field_matmul);
  d.name = d.w == d.kv ? d.w + " weights and KV, " + d.matmul + " matmuls"
                       : d.w + " weights, " + d.kv + " KV, " + d.matmul + " matmuls";
  return d;
}

std::vector<DtypeSet> dtype_sets(const Machine& t) {
  std::vector<DtypeSet> out = {dtype_set(t, "bf16", "bf16", "bf16"),
                               dtype_set(t, "int8", "int8", "bf16")};
  if (t.chip->has("peak_flops_int8")) out.push_back(dtype_set(t, "int8", "int8", "int8"));
  out.push_back(dtype_set(t, "int4", "int4", "bf16"));
  return out;
}

// ------------------------------------------------------------------ the sweep

namespace {

std::vector<Slice> slices_upto(const Machine& t, double max_chips) {
  std::vector<Slice> all = slices(t);
  if (max_chips > 0)
    all.erase(
        std::remove_if(all.begin(), all.end(), [&](const Slice& s) { return s.chips > max_chips; }),
        all.end());
  return all;
}

// Batch sizes from 1 to B_max on a geometric grid of about n points (whole, distinct).
std::vector<double> batch_grid(double B_max, int n) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i) {
    const double b = std::round(std::pow(B_max, n > 1 ? double(i) / (n - 1) : 1.0));
    if (out.empty() || b > out.back()) out.push_back(b);
  }
  if (out.back() != B_max) out.push_back(B_max);
  return out;
}

void mark_front(std::vector<Point>& pts) {
  std::sort(pts.begin(), pts.end(), [](const Point& a, const Point& b) {
    return a.d.T_step != b.d.T_step ? a.d.T_step < b.d.T_step : a.tok_s_chip > b.tok_s_chip;
  });
  double best = 0;
  for (Point& p : pts) {
    p.pareto = p.tok_s_chip > best;
    best = std::max(best, p.tok_s_chip);
  }
}

}  // namespace

Sweep sweep(const SweepInput& in) {
  Sweep out;
  out.slices = slices_upto(in.machine, in.max_chips);
  out.dtypes = in.dtypes;
  const Served& m = *in.model;
  for (size_t di = 0; di < out.dtypes.size() && !out.cut; ++di) {
    const DtypeSet& ds = out.dtypes[di];
    const double kv_tok = kv_tok_of(m, ds.b_kv, in.S);
    const double w = weight_bytes(m.P_total, ds.b_w);
    for (size_t si = 0; si < out.slices.size() && !out.cut; ++si) {
      const double n = out.slices[si].chips;
      const double B_max = max_batch(free_hbm(n, in.machine.M_hbm, w), in.S, kv_tok);
      if (!(B_max >= 1)) continue;
      for (double B : batch_grid(B_max, in.batches)) {
        if (++out.configs > work_bound(kMaxConfigs)) {
          out.cut = true;
          --out.configs;
          break;
        }
        Point p;
        p.slice = static_cast<int>(si);
        p.dtype = static_cast<int>(di);
        p.B = B;
        p.B_max = B_max;
        p.full = B == B_max;
        // bf16 activations: the sweep has no activation dtype.
        p.d = with_comms(
            decode(m.P_total, m.P_active, ds.b_w, kv_tok, ds.C_peak, in.machine.W_hbm, n, B, in.S),
            gpu_step_comms(in.machine, m, B, 2, n));
        p.tok_s_chip = tokens_per_s_chip(B, n, p.d.T_step);
        p.cost = in.price > 0 ? cost_per_million(n, in.price, p.d.T_step, B) : 0;
        out.points.push_back(p);
      }
    }
  }
  mark_front(out.points);
  return out;
}

// ------------------------------------------------------------------ the planner

namespace {

struct Candidate {
  const Served* m;
  const DtypeSet* ds;
  const Machine* machine;
  double kv_tok, n, W_hbm, S;
  Decode at(double B) const {
    return with_comms(decode(m->P_total, m->P_active, ds->b_w, kv_tok, ds->C_peak, W_hbm, n, B, S),
                      gpu_step_comms(*machine, *m, B, 2, n));
  }
};

// The largest whole B in [1, hi] for which ok(B) holds, ok being true at 1 and monotone.
template <class F>
double largest(double hi, F ok) {
  double lo = 1;
  while (lo < hi) {
    const double mid = std::floor((lo + hi + 1) / 2);
    if (ok(mid))
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

std::string ms(double s) { return units::format(s, "s"); }

// Batch, replicas and prefill servers of one (slice, dtype) that meets the step target.
void size_option(Option& o, const Candidate& c, const PlanInput& in) {
  const double R = in.traffic.rps * in.traffic.len_decode;  // output tokens per second needed
  double B = largest(o.B_max, [&](double b) { return c.at(b).T_step <= in.tpot; });
  Decode d = c.at(B);
  o.replicas = std::ceil(R * d.T_step / B);
  // Fewer sequences per replica when the replicas need not run full: lower latency, same chips.
  const double rep = o.replicas;
  const double need = R / rep;
  double lo = 1, hi = B;
  while (lo < hi) {
    const double mid = std::floor((lo + hi) / 2);
    if (mid / c.at(mid).T_step >= need)
      hi = mid;
    else
      lo = mid + 1;
  }
  o.B = lo;
  o.d = c.at(lo);
  o.prefill_servers = std::max(1.0, std::ceil(in.traffic.rps * o.T_prefill));
  o.chips_total = (o.replicas + o.prefill_servers) * c.n;
  o.chip_hours_per_m = o.chips_total * 1e6 / (R * 3600);
  o.cost_per_m = in.price > 0 ? o.chip_hours_per_m * in.price : 0;
}

Option evaluate(const Candidate& c, const PlanInput& in, int si, int di) {
  Option o;
  o.slice = si;
  o.dtype = di;
  const Served& m = *c.m;
  const double w = weight_bytes(m.P_total, c.ds->b_w);
  o.B_max = max_batch(free_hbm(c.n, in.machine.M_hbm, w), c.S, c.kv_tok);
  o.fits = o.B_max >= 1;
  if (!o.fits) {
    o.why = "does not fit: the weights and one sequence's cache need more than " +
            units::number(c.n) + " chips' HBM";
    return o;
  }
  o.T_prefill = std::max(prefill_time(m.P_active, in.traffic.len_prompt, c.n, c.ds->C_peak, in.mfu),
                         t_param(m.P_total, c.ds->b_w, c.n, c.W_hbm));
  o.d = c.at(1);
  o.B = 1;
  if (o.d.T_step > in.tpot) {
    o.why = "misses the target: " + ms(o.d.T_step) + " per token even at batch 1";
    return o;
  }
  if (in.ttft > 0 && o.T_prefill > in.ttft) {
    o.why = "misses the first-token target: a prefill takes " + ms(o.T_prefill);
    return o;
  }
  o.meets = true;
  size_option(o, c, in);
  return o;
}

// How far an option is from the targets (1 = on them): the worse of the two ratios.
double shortfall(const Option& o, const PlanInput& in) {
  double r = o.d.T_step / in.tpot;
  if (in.ttft > 0) r = std::max(r, o.T_prefill / in.ttft);
  return r;
}

void rank(Plan& p, const PlanInput& in) {
  std::stable_sort(p.options.begin(), p.options.end(), [](const Option& a, const Option& b) {
    if (a.meets != b.meets) return a.meets;
    if (a.meets) return a.chip_hours_per_m < b.chip_hours_per_m;
    if (a.fits != b.fits) return a.fits;
    return a.d.T_step < b.d.T_step;
  });
  if (!p.options.empty() && p.options[0].meets) p.best = 0;
  for (size_t i = 0; i < p.options.size(); ++i) {
    const Option& o = p.options[i];
    if (o.meets &&
        (p.smallest < 0 || p.slices[o.slice].chips < p.slices[p.options[p.smallest].slice].chips))
      p.smallest = static_cast<int>(i);
    if (p.best < 0 && o.fits &&
        (p.closest < 0 || shortfall(o, in) < shortfall(p.options[p.closest], in)))
      p.closest = static_cast<int>(i);
  }
  if (p.best < 0) return;
  const Option& best = p.options[p.best];
  for (size_t i = 1; i < p.options.size(); ++i) {
    Option& o = p.options[i];
    if (!o.meets) continue;
    const double more = o.chip_hours_per_m / best.chip_hours_per_m - 1;
    o.why = more > 0.005 ? "costs " + units::number(100 * more, 3) + "% more per token"
                         : "costs the same per token on more chips or at a higher latency";
  }
  p.options[p.best].why = "the cheapest that meets the targets";
}

}  // namespace

Plan plan(const PlanInput& in) {
  Plan p;
  p.slices = slices_upto(in.machine, in.max_chips);
  p.dtypes = in.dtypes;
  const double S = in.traffic.len_prompt + in.traffic.len_decode;
  for (size_t di = 0; di < p.dtypes.size(); ++di) {
    const double kv_tok = kv_tok_of(*in.model, p.dtypes[di].b_kv, S);
    for (size_t si = 0; si < p.slices.size(); ++si) {
      if (++p.configs > work_bound(kMaxConfigs)) {
        p.cut = true;
        break;
      }
      const Candidate c{
          in.model, &p.dtypes[di], &in.machine, kv_tok, p.slices[si].chips, in.machine.W_hbm, S};
      p.options.push_back(evaluate(c, in, static_cast<int>(si), static_cast<int>(di)));
    }
  }
  rank(p, in);
  return p;
}

}  // namespace sb::inference
