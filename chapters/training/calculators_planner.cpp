// training.plan: every way to split a slice's axes, the best plan (its memory per chip and its
// step's timeline) and why each other strategy loses. The best plan's terms are derived from
// model.hpp's records; the search itself is a value no expression gives.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "chapters/gpus/collectives.hpp"
#include "chapters/gpus/llm.hpp"
#include "chapters/training/calculators.hpp"

namespace sb::training::calc {
namespace {

std::string factors_text(const std::array<int, 3>& f, size_t axes) {
  std::string s;
  for (size_t i = 0; i < axes; ++i) s += (i ? "x" : "") + std::to_string(f[i]);
  return s;
}

// Where a plan runs, in words: a slice's shape, or a GPU cluster's nodes.
std::string where_text(const Slice& sl, const GpuCluster& g) {
  if (g.d_node > 0)
    return units::number(g.nodes) + (g.nodes == 1 ? " node" : " nodes") + " of " +
           units::number(g.d_node) + " GPUs";
  return tpus::shape_text(tpus::Dims(sl.dims.begin(), sl.dims.end()));
}

json plan_json(const Plan& p, const Slice& sl, double hbm, const GpuCluster& g) {
  const size_t n = sl.dims.size();
  return {{"strategy", strategy_name(p.strategy)},
          {"X", p.X},
          {"Y", p.Y},
          {"Z", p.Z},
          {"m", p.m},
          {"x", factors_text(p.x, n)},
          {"y", factors_text(p.y, n)},
          {"z", factors_text(p.z, n)},
          {"M_X", p.M_X},
          {"M_Y", p.M_Y},
          {"ep_degree", p.ep_degree},
          {"remat", remat_label(p.remat)},
          {"mem", p.mem},
          {"memory", memory_json(p.memory, hbm)},
          {"fits", p.fits},
          {"t_step", p.t_step},
          {"mfu", p.mfu},
          {"comms_ratio", p.comms_ratio},
          {"bottleneck", term_name(p.bottleneck)},
          {"compute_bound", p.compute_bound},
          {"reason", reason_name(p.reason)},
          {"why", reason_text(p.reason)},
          {"timeline", timeline_json(p.timeline)},
          {"slice", where_text(sl, g)}};
}

LayerChoice layer_choice(const Inputs& in) {
  LayerChoice c;
  c.book_mlp = book_mlp(in);
  c.full = in.text("layer") == "full";
  c.seq_len = in.num("seq_len");
  return c;
}

// The request's plan on `chip`: a slice `shape` (empty: every shape of the chip count), or for a
// GPU its cluster of that many GPUs (snapped to whole nodes, `snapped` saying so), with TP across
// nodes when `cross_tp`.
PlanInput plan_input(const Inputs& in, const hw::Chip& chip, const std::string& shape,
                     bool cross_tp, std::string& snapped) {
  PlanInput pi;
  pi.model = config_of(in);
  pi.layer = layer_choice(in);
  if (chip.kind == "gpu") {
    pi.hw = gpu_hardware(chip);
    if (!shape.empty())
      fail("shape",
           "a GPU cluster has no slice shape (its GPUs sit in NVLink nodes under a fat "
           "tree); leave the shape empty and give the GPU count",
           "bad_shape");
    const double asked = in.num("chips") > 0 ? in.num("chips") : gpu_counts(chip).back();
    const double gpus = buildable_gpus(chip, asked);
    pi.topo = topology_for_gpus(chip, gpus, cross_tp, "chips");
    snapped = snapped_words(chip, asked, gpus);
  } else {
    pi.hw = hardware_of(chip);
    pi.topo = shape.empty() ? topology_for_chips(chip, chips_of(in, chip), "chips")
                            : topology_for_shape(chip, shape, 1, "shape");
  }
  pi.B = in.num("B");
  pi.state = state_of(in);
  pi.pipeline = in.text("pipeline") == "yes";
  return pi;
}

// The best plan of each strategy: the best first, then those that fit, fastest first.
json plan_rows(const PlanResult& res, const Topology& topo, double hbm) {
  json plans = json::array();
  for (int i = 0; i < kStrategyClasses; ++i)
    if (res.has[i])
      plans.push_back(
          plan_json(res.by_strategy[i], topo.slices[res.by_strategy[i].slice], hbm, topo.gpu));
  std::sort(plans.begin(), plans.end(), [](const json& a, const json& c) {
    if (a["reason"] == "best" || c["reason"] == "best") return a["reason"] == "best";
    if (a["fits"] != c["fits"]) return a["fits"].get<bool>();
    return a["t_step"].get<double>() < c["t_step"].get<double>();
  });
  return plans;
}

std::string plan_verdict(const PlanResult& res, double chips, double hbm) {
  const Plan& b = res.best;
  const std::string name = strategy_name(b.strategy);
  if (!res.fits)
    return "Fits nowhere: even the plan with the least memory (" + name + ") needs " +
           units::format(b.mem, "B") + " per chip, above " + units::format(hbm, "B") + " of HBM.";
  return "Best: " + name + " (X " + std::to_string(b.X) + ", Y " + std::to_string(b.Y) + ", Z " +
         std::to_string(b.Z) + ") on " + units::format(chips, "chips") + ", " +
         units::format(b.t_step, "s") + " per step, MFU bound " + units::number(b.mfu * 100, 3) +
         "%, " +
         (b.compute_bound ? "compute-bound" : std::string("bound by ") + term_name(b.bottleneck));
}

// The chip counts the page's slider offers. They depend on the chip only, and finding them tries
// every slice shape: once per chip.
const std::vector<double>& slider_counts(const hw::Chip& chip) {
  static std::map<std::string, std::vector<double>, std::less<>> counts;
  auto it = counts.find(chip.id);
  if (it == counts.end())
    it = counts.emplace(chip.id, chip.kind == "gpu" ? gpu_counts(chip) : chip_counts(chip)).first;
  return it->second;
}

// An AllGather of one byte over a GPU group of n per node on m nodes (at w_out each node's share
// of the scale-out), from the gpus chapter's records: M = 1 / (W_GPU T) is what the planner's
// records take for the axes the group spans.
void gpu_group_trace(const GpuCluster& g, double n, double m, double w_out, const char* what,
                     double M, Trace& tr) {
  if (m > 1)
    tr.step(what, gpus::kHierAg, {1, n, g.w_gpu, m, w_out});
  else
    tr.step(what, gpus::kAgRing, {1, n, g.w_gpu});
  tr.value(M == 0 ? "its bandwidth over NVLink's" : "its bandwidth over NVLink's (M above)", M,
           "count");
}

// On a GPU cluster: the NVLink intensity and each axis' collective from the gpus chapter.
void gpu_trace(const GpuCluster& g, const Hardware& h, const Plan& b, Trace& tr) {
  tr.step("NVLink intensity (W_GPU inside a node)", gpus::kAlpha, {h.C, g.w_gpu});
  if (b.X > 1) {
    double w = 0;
    if (b.x[1] > 1)
      w = tr.step("Scale-out bandwidth of the data axis' GPUs in one node", gpus::kGroupScaleOut,
                  {g.w_node, double(b.x[0]), g.d_node});
    gpu_group_trace(g, b.x[0], b.x[1], w, "Data axis: AllGather of one byte (NVLink, then nodes)",
                    b.M_X, tr);
  }
  if (b.Y > 1)
    gpu_group_trace(g, b.y[0], b.y[1], g.w_node, "TP: AllGather of one byte (NVLink, then nodes)",
                    b.M_Y, tr);
}

// Expert parallelism's all-to-alls on a GPU cluster: the experts' group inside the node first,
// across nodes at the group's scale-out share (the gpus chapter's expert AllToAll), as
// planner_gpu.cpp prices them.
void gpu_a2a_trace(const GpuCluster& g, const Plan& b, double rows, Trace& tr) {
  const double group = b.ep_degree, x_n = b.x[0];
  const double w = tr.step("Scale-out bandwidth of the group's GPUs in one node",
                           gpus::kGroupScaleOut, {g.w_node, x_n, g.d_node});
  const double t1 = tr.step("One expert AllToAll, per byte a GPU holds", gpus::kExpertA2A,
                            {group, group, x_n, g.w_gpu, w});
  tr.value("Expert all-to-alls (dispatch and return) of the layer's routed rows", 2 * rows * t1,
           "s");
}

// The best plan's terms for one microbatch of one layer, from the chapter's records.
void best_trace(const PlanInput& pi, const LayerCosts& lc, const Plan& b, Trace& tr) {
  const Hardware& h = pi.hw;
  const double B = pi.B / pi.topo.pods / b.m;  // tokens a microbatch of one pod carries
  const double chips = double(b.X) * b.Y;
  const bool ep = b.strategy & kEP;
  const GpuCluster& g = pi.topo.gpu;
  if (g.d_node > 0)
    gpu_trace(g, h, b, tr);
  else
    tr.step("ICI intensity", kAlpha, {h.C, h.W_ici});
  const double f =
      tr.value("Forward FLOPs per token of a layer (2 per weight a token uses)", lc.flops, "flop");
  tr.step("Forward $T_{math}$ per layer (one microbatch)", kTMathLayer, {f, B, chips, h.C});
  const double V_w = tr.value(ep ? "Bytes of a layer's weights besides the routed experts"
                                 : "Bytes of a layer's weights (bf16, every expert's)",
                              ep ? lc.w_bytes - lc.w_expert : lc.w_bytes, "B");
  if (b.strategy & kFSDP)
    tr.step("FSDP weight gathers", kTWeightGather, {V_w, double(b.Y), h.W_ici, b.M_X});
  if (b.strategy & kDP)
    tr.step("DP gradient all-reduce", kTGradAllReduce, {V_w, double(b.Y), h.W_ici, b.M_X});
  if (b.Y > 1) {
    const double t = tr.step("TP gather and reduce-scatter of one block", kTActGatherScatter,
                             {lc.row * B, double(b.X), h.W_ici, b.M_Y});
    if (lc.tp_blocks > 1)
      tr.sum("TP collectives of the attention and the MLP blocks", "T_TP", "s",
             {{"T_attn", t}, {"T_mlp", t}});
  }
  if (ep && g.d_node > 0)
    gpu_a2a_trace(g, b, lc.routed * B / chips, tr);
  else if (ep)
    tr.step("Expert all-to-alls (dispatch and return)", kTExpertAllToAll,
            {lc.routed * B / chips,
             std::min<double>(b.ep_degree, *std::max_element(b.x.begin(), b.x.end())), h.W_ici});
  if (pi.topo.pods > 1)
    tr.step("All-reduce across pods over DCN", kTGradAllReduceDcn, {lc.w_bytes, chips, h.W_dcn});
  if (b.Z > 1)
    tr.step("Pipeline bubble (beyond the chapter)", kPipelineBubble, {double(b.Z), double(b.m)});
  tr.sum("Memory per chip", "mem", "B",
         {{"M_w", tr.value("Weights per chip", b.memory.weights, "B")},
          {"M_g", tr.value("Gradient buffers per chip", b.memory.grads, "B")},
          {"M_opt", tr.value("Adam state per chip", b.memory.optimizer, "B")},
          {"M_act", tr.value(std::string("Activations per chip (") + remat_label(b.remat) + ")",
                             b.memory.activations, "B")}});
}

void plan_values(const PlanInput& pi, const PlanResult& res, double chips, Result& r) {
  const Plan& b = res.best;
  r.value("chips", chips, "chips", "chips");
  r.value("per_chip_batch", pi.B / chips, "tokens", "batch per chip");
  r.value("X", b.X, "count", "best X (data / FSDP)");
  r.value("Y", b.Y, "count", "best Y (tensor parallel)");
  r.value("Z", b.Z, "count", "best Z (pipeline stages)");
  r.value("m", b.m, "count", "microbatches");
  if (b.strategy & kEP) r.value("ep_degree", b.ep_degree, "count", "chips with distinct experts");
  r.value("mem", b.mem, "B", "memory per chip");
  r.value("mem_weights", b.memory.weights, "B", "weights per chip");
  r.value("mem_grads", b.memory.grads, "B", "gradient buffers per chip");
  r.value("mem_optimizer", b.memory.optimizer, "B", "Adam state per chip");
  r.value("mem_activations", b.memory.activations, "B", "activations per chip");
  r.value("hbm", pi.hw.hbm, "B", "HBM per chip");
  r.value("step", b.t_step, "s", "step-time bound");
  r.value("mfu", b.mfu, "ratio", "MFU bound");
  r.value("fits", res.fits ? 1 : 0, "bool", "some plan fits");
  r.value("configs", static_cast<double>(res.configs), "count", "configurations evaluated");
  r.value("assignments", static_cast<double>(res.assignments), "count", "axis assignments");
}

}  // namespace

json plan_column(const Inputs& in, const hw::Chip& chip) {
  std::string snapped;
  const PlanInput pi = plan_input(in, chip, "", false, snapped);
  const PlanResult res = plan(pi);
  const Plan& b = res.best;
  const Slice& sl = pi.topo.slices[b.slice];
  const double chips = sl.chips() * res.pods;
  return {{"chip", chip.id},
          {"name", chip.name},
          {"kind", chip.kind},
          {"chips", chips},
          {"where", where_text(sl, pi.topo.gpu)},
          {"hbm", pi.hw.hbm},
          {"fits", res.fits},
          {"verdict", plan_verdict(res, chips, pi.hw.hbm)},
          {"snapped", snapped},
          {"best", plan_json(b, sl, pi.hw.hbm, pi.topo.gpu)}};
}

void plan_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& chip = hw::chip(in.text("chip"), "chip");
  std::string snapped;
  const PlanInput pi =
      plan_input(in, chip, in.text("shape"), in.text("tp_span") == "nodes", snapped);
  const PlanResult res = plan(pi);
  const Plan& b = res.best;
  const Slice& sl = pi.topo.slices[b.slice];
  const double chips = sl.chips() * res.pods;
  tr.note("Searched " + std::to_string(res.assignments) +
          " ways to split the axes into X, Y and Z (" + std::to_string(res.configs) +
          " configurations with the X mode, remat policy and microbatches).");
  best_trace(pi, layer_costs(pi.model, pi.layer), b, tr);
  plan_values(pi, res, chips, r);
  if (!res.fits)
    r.note(
        "No layout of this model fits on these chips: more chips, a smaller batch, or a chip "
        "with more HBM.");
  if (!snapped.empty()) r.note(snapped);
  r.note(layer_words(pi.layer));
  r.note(
      "Remat policies tried for every layout: save the big matmuls' outputs, save every "
      "activation, block remat (replay the forward pass).");
  if (const std::string bound = bound_words(res); !bound.empty()) r.note(bound);
  r.extra["verdict"] = plan_verdict(res, chips, pi.hw.hbm);
  r.extra["fits"] = res.fits;
  r.extra["chip_counts"] = slider_counts(chip);
  r.extra["best"] = plan_json(b, sl, pi.hw.hbm, pi.topo.gpu);
  r.extra["plans"] = plan_rows(res, pi.topo, pi.hw.hbm);
  r.extra["searched"] = {{"configs", res.configs},
                         {"full", res.full},
                         {"micro_step", res.micro_step},
                         {"cut", res.cut},
                         {"text", bound_words(res)}};
}

}  // namespace sb::training::calc
