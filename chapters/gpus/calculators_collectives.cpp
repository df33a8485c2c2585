// The collective calculator: AllGather, ReduceScatter, AllReduce or AllToAll over N GPUs, inside
// a node or across nodes (the hierarchical algorithm: each level runs its own ring, the slower
// binds), with or without SHARP, beside the same collective on a TPU slice of N chips (the
// sharding chapter's model).
#include <algorithm>
#include <cmath>
#include <string>

#include "chapters/gpus/calculators.hpp"
#include "chapters/gpus/cluster.hpp"
#include "chapters/gpus/formulas.hpp"
#include "chapters/sharding/model.hpp"
#include "chapters/tpus/model.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace sb::gpus {
namespace {

struct Setup {
  GpuNode node;
  std::string op;
  double bytes, n, d, m;  // bytes, GPUs, GPUs per node used, nodes
  bool sharp;
};

Setup setup(const Inputs& in) {
  Setup s{gpu_node(in.text("chip")), in.text("collective"), in.num("bytes"), in.num("gpus"), 0, 0,
          in.text("sharp") == "yes"};
  const double dn = s.node.gpus_per_node;
  if (s.n > dn && std::fmod(s.n, dn) != 0)
    fail("gpus",
         units::format(s.n, "count") + " GPUs do not fill whole nodes of " +
             units::format(dn, "count") + "; give a multiple of " + units::format(dn, "count"),
         "infeasible");
  s.d = std::min(s.n, dn);
  s.m = std::ceil(s.n / dn);
  if (s.m > 1 && s.node.w_node <= 0)
    fail("chip", "the book gives no scale-out figure for the " + s.node.chip->name, "no_figure");
  return s;
}

// One level's time (a ring of `k` members of bandwidth `w`) for the chosen collective.
double level_time(const Setup& s, Trace& tr, Text what, double k, double w, bool cross) {
  if (s.op == "all_to_all")
    return cross ? tr.step(what, kA2ACross, {s.bytes, k, w}) : tr.step(what, kA2A, {s.bytes, k, w});
  if (s.op == "all_reduce")
    return s.sharp ? tr.step(what, kSharpAr, {s.bytes, w})
                   : tr.step(what, kArRing, {s.bytes, k, w});
  return tr.step(what, kAgRing, {s.bytes, k, w});
}

double gpu_time(const Setup& s, Trace& tr, Result& r) {
  double t_node =
      s.d > 1 ? level_time(s, tr, "Inside a node (NVLink)", s.d, s.node.w_gpu, false) : 0;
  if (s.m == 1) {
    append_json(r.member("binds"), std::string_view("NVLink"));
    return t_node;
  }
  double t_out = level_time(s, tr, "Across nodes (scale-out)", s.m, s.node.w_node, true);
  if (s.op == "all_to_all") {
    append_json(r.member("binds"), std::string_view("scale-out"));
    r.note(
        "AllToAll is not hierarchical: across nodes it runs at W_node / M with no help from "
        "the node.");
    return t_out;
  }
  double t = tr.max("The slower level binds", "T", "s", {{"T_node", t_node}, {"T_out", t_out}});
  append_json(r.member("binds"), std::string_view(t_out >= t_node ? "scale-out" : "NVLink"));
  return t;
}

// The same collective on a TPU slice of as many chips, for the side-by-side.
void tpu_side(const Inputs& in, const Setup& s, Trace& tr, Result& r) {
  const hw::Chip& c = hw::chip(in.text("tpu"), "tpu");
  if (c.kind != "tpu") fail("tpu", c.name + " is a GPU; choose a TPU here", "not_a_tpu");
  const int axes = static_cast<int>(tpus::torus_rank(c));
  tpus::Dims dims(axes, 1);
  long long left = static_cast<long long>(s.n);
  for (long long p = 2; left > 1 && p <= left; ++p)
    while (left % p == 0) {
      *std::min_element(dims.begin(), dims.end()) *= static_cast<int>(p);
      left /= p;
    }
  tpus::Torus torus;
  try {
    torus = tpus::slice_torus(c, dims, "auto", "tpu");
  } catch (const InputError& e) {
    r.note("No " + c.name + " slice of " + units::format(s.n, "count") +
           " chips, so no TPU side: " + e.what());
    return;
  }
  double used = 0;
  bool wrapped = true;
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] > 1) ++used, wrapped = wrapped && torus.wrap[i];
  const double w = c.get("ici_bw_oneway") * (wrapped ? 2 : 1);
  double t = s.op == "all_to_all" ? sharding::t_alltoall_nd(s.bytes, {dims.begin(), dims.end()}, w)
                                  : sharding::t_allgather_multi(s.bytes, std::max(used, 1.0), w);
  if (s.op == "all_reduce") t = sharding::t_allreduce_from_ag(t);
  tr.value(
      "On a " + c.name + " " + tpus::shape_text(dims) + " slice (the sharding chapter's model)", t,
      "s");
  r.value("tpu_time", t, "s", c.name + " " + tpus::shape_text(dims) + " slice");
  append_json(r.member("tpu_slice"), std::string_view(tpus::shape_text(dims)));
}

}  // namespace

void collective_calc(const Inputs& in, Trace& tr, Result& r) {
  const Setup s = setup(in);
  const double t = gpu_time(s, tr, r);
  const double hops = in.text("algorithm") == "tree" ? tr.step("Hops, tree", kTreeHops, {s.n})
                                                     : tr.step("Hops, ring", kRingHops, {s.n});
  r.value("time", t, "s", "time on the GPUs");
  r.value("nodes", s.m, "count", "nodes spanned");
  r.value("hops", hops, "count", "hops (latency terms)");
  if (t > 0) {
    const double alg = s.bytes / t;
    const double f = s.op == "all_reduce" ? allreduce_bus_factor(s.n) : gather_bus_factor(s.n);
    r.value("algbw", alg, "B_per_s", "algorithm bandwidth, bytes / time");
    r.value("busbw", alg * f, "B_per_s", "bus bandwidth as NCCL reports it");
  }
  if (s.sharp && s.op != "all_reduce")
    r.note("SHARP reduces in the switch: it only changes an AllReduce.");
  tpu_side(in, s, tr, r);
}

}  // namespace sb::gpus
