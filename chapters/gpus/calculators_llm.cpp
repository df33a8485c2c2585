// LLM rooflines on a GPU cluster (A.5): for a model and a layout (TP x PP x EP x DP over N GPUs),
// when each kind of parallelism is compute-bound, the largest TP degree, the EP threshold, the
// memory per GPU. The model comes from the page-wide model (data/models.json) or the fields.
#include <algorithm>
#include <cmath>
#include <string>

#include "chapters/gpus/calculators.hpp"
#include "chapters/gpus/cluster.hpp"
#include "chapters/gpus/formulas.hpp"
#include "chapters/transformers/models.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace sb::gpus {
namespace {

struct Workload {
  double D, F, E, k, params;
  std::string name;
};

Workload workload(const Inputs& in) {
  Workload w{in.num("D"), in.num("F"), in.num("E"), in.num("k"), in.num("n_params"), "custom"};
  if (in.text("model") != "custom") {
    const auto& m = transformers::model(in.text("model"), "model");
    const transformers::Config& c = m.config;
    w.name = m.name;
    if (w.D == 0) w.D = c.D;
    if (w.F == 0) w.F = c.E > 0 && c.F_e > 0 ? c.F_e : c.F;
    if (w.E == 0) w.E = c.E;
    if (w.k == 0) w.k = c.k;
    if (w.params == 0) w.params = transformers::params(c).total;
  }
  for (auto [v, f] : {std::pair{w.D, "D"}, {w.F, "F"}, {w.params, "n_params"}})
    if (!(v > 0)) fail(f, std::string(f) + ": enter it, or pick a model", "missing");
  if (w.E > 0 && !(w.k > 0 && w.k <= w.E)) fail("k", "between 1 and E for an MoE", "out_of_range");
  return w;
}

void layout_checks(const Inputs& in, const GpuNode& node, double n) {
  const double tp = in.num("tp"), pp = in.num("pp"), ep = in.num("ep");
  if (std::fmod(n, tp * pp * ep) != 0)
    fail("gpus",
         units::format(n, "count") +
             " is not a multiple of tp x pp x ep = " + units::format(tp * pp * ep, "count"),
         "infeasible");
  if (n > node.gpus_per_node && std::fmod(n, node.gpus_per_node) != 0)
    fail("gpus", "whole nodes of " + units::format(node.gpus_per_node, "count") + " only",
         "infeasible");
}

}  // namespace

void llm_calc(const Inputs& in, Trace& tr, Result& r) {
  const GpuNode node = gpu_node(in.text("chip"));
  const Workload w = workload(in);
  const double n = in.num("gpus"), tp = in.num("tp"), pp = in.num("pp"), ep = in.num("ep");
  layout_checks(in, node, n);
  const double dn = node.gpus_per_node, c = node.peak_bf16;
  const double wn = node.w_node > 0 ? node.w_node : node.w_gpu;
  if (node.w_node <= 0)
    r.note("The book gives no scale-out figure for the " + node.chip->name + ": NVLink only.");
  double ai = tr.step("alpha inside a node", kAlpha, {c, node.w_gpu});
  double an = tr.step("alpha across nodes", kAlpha, {c, wn});
  double per = tr.step("Tokens per GPU", roofline::kLocalBatch, {in.num("batch"), n});
  double y = tr.step("Model-parallel group", kModelParallel, {tp, pp, ep});
  double dp = tr.step("DP threshold, relieved by a group spanning nodes", kDpSpan, {an, dn, y});
  if (w.E > 0) dp = tr.step("MoE: every expert's weights move", kDpMoe, {w.E, w.k, dp});
  double tpmax = tr.step("Largest TP inside a node", kTpMax, {w.F, ai});
  double tpspan = tr.step("Largest TP spanning nodes", kTpMaxSpanning, {w.F, an, dn});
  double mem =
      tr.step("Weights and Adam per GPU (ZeRO-3 over all)", kBytesPerGpu, {w.params, 10, n});
  r.value("tokens_per_gpu", per, "tokens", "tokens per GPU");
  r.value("dp_threshold", dp, "tokens", "tokens per GPU DP needs");
  r.value("dp_ok", per > dp ? 1 : 0, "bool", "data parallelism compute-bound");
  r.value("tp_max_in_node", tpmax, "count", "largest compute-bound TP inside a node");
  r.value("tp_max_spanning", tpspan, "count", "largest TP spanning nodes");
  r.value("tp_ok", (tp <= dn ? tp < tpmax : tp < tpspan) ? 1 : 0, "bool",
          "tensor parallelism compute-bound");
  if (w.E > 0 && ep > dn) {
    double fmin = tr.step("Smallest F for EP across nodes", kEpFMin, {an, ep, w.k, dn});
    r.value("ep_f_min", fmin, "count", "smallest F for this EP degree");
    r.value("ep_ok", w.F > fmin ? 1 : 0, "bool", "expert parallelism compute-bound");
  } else if (w.E > 0 && ep > 1) {
    r.note("EP inside one node runs its AllToAlls over NVLink.");
  }
  double wide = tr.step("EP can scale widely once F exceeds", kEpFMinLargeZ, {dn, an});
  r.value("ep_wide_f", wide, "count", "F above which EP scales across many nodes");
  r.value("mem_per_gpu", mem, "B", "weights and optimiser state per GPU, fully sharded");
  r.value("mem_ok", mem <= node.hbm_bytes ? 1 : 0, "bool", "fits in HBM");
  if (pp > 1)
    r.note(
        "Pipelining costs little bandwidth (2BD / N_MB per hop); its costs are bubbles, "
        "ZeRO-3 fitting badly, and delayed gradient reductions.");
  r.extra["model"] = w.name;
}

}  // namespace sb::gpus
