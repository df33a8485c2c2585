// training.regime: the chapter's map of chips against batch per chip, each cell asking the
// planner's question (planner.hpp regime_map): which strategies have a layout that is
// compute-bound and fits, with the planner's costs and remat policies. The chapter's closed-form
// floors are drawn over it from model.hpp's records.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "chapters/training/calculators.hpp"

namespace sb::training::calc {
namespace {

// Rows: the chip counts the planner's slider offers (powers of two with a slice, whole pods).
const std::vector<double>& rows_of(const hw::Chip& chip) {
  static std::map<std::string, std::vector<double>, std::less<>> rows;
  auto it = rows.find(chip.id);
  if (it == rows.end()) {
    std::vector<double> r;
    for (double n : chip_counts(chip))
      if (n >= 2) r.push_back(n);
    it = rows.emplace(chip.id, std::move(r)).first;
  }
  return it->second;
}

// Columns: 8 to 32768 tokens per chip, two per octave.
std::vector<double> columns() {
  std::vector<double> cols;
  for (double b = 8; b <= 32768 * 1.0001; b *= std::sqrt(2.0)) cols.push_back(b);
  return cols;
}

json map_json(const RegimeMap& map, double N, double per_chip) {
  json cells = json::array();
  for (uint8_t c : map.cells) cells.push_back(c);
  return {{"chips", map.chips},
          {"batch_per_chip", map.batch_per_chip},
          {"cells", std::move(cells)},
          {"bits",
           {{"DP", kRegimeDP},
            {"FSDP", kRegimeFSDP},
            {"TP", kRegimeTP},
            {"FSDP+TP", kRegimeMixed},
            {"DCN", kRegimeDCN},
            {"multi_pod", kRegimeMultiPod},
            {"EP", kRegimeEP}}},
          {"remat",
           {remat_label(tf::Remat::BigMatmuls), remat_label(tf::Remat::SaveAll),
            remat_label(tf::Remat::Block)}},
          {"point", {{"chips", N}, {"batch_per_chip", per_chip}}}};
}

}  // namespace

void regime_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& chip = tpu(in);
  PlanInput base;
  base.model = config_of(in);
  base.layer.book_mlp = book_mlp(in);
  base.layer.full = in.text("layer") == "full";
  base.layer.seq_len = in.num("seq_len");
  base.hw = hardware_of(chip);
  base.state = state_of(in);
  const Layer l = layer_of(base.model, base.layer.book_mlp);
  const double pod = pod_chips(chip), axes = tpus::topology_of(chip).torus_dims;
  const RegimeMap map = regime_map(base, chip, rows_of(chip), columns());
  const double alpha = tr.step("ICI intensity", kAlpha, {base.hw.C, base.hw.W_ici});
  r.value("fsdp_floor", tr.step("FSDP floor on every axis", kDpFloor, {alpha, axes}), "tokens",
          "DP/FSDP floor on every axis, alpha / M_X");
  if (axes >= 2)
    r.value("mixed_floor",
            tr.step("FSDP + TP floor, one axis to TP", kMixedFloor, {alpha, axes - 1, 1, l.F}),
            "tokens", "FSDP + TP floor, alpha^2 / (M_X M_Y F)");
  r.value("tp_max_chips", tr.step("TP over every axis", kTpMaxDegree, {axes, l.F, alpha}), "count",
          "TP over every axis: chips below M_Y F / alpha");
  if (base.hw.W_dcn > 0)
    r.value("alpha_dcn", tr.step("DCN intensity", kAlphaDcn, {base.hw.C, base.hw.W_dcn}), "tokens",
            "batch per pod for DCN, alpha_dcn");
  r.value("pod_chips", pod, "chips", "chips in a pod");
  const double B = in.num("B"), N = chips_of(in, chip);
  r.value("per_chip_batch", B / N, "tokens", "your batch per chip");
  r.note(layer_words(base.layer));
  r.note(
      "A cell counts a strategy when one of its layouts (without pipelining) is compute-bound and "
      "fits with one of the planner's remat policies: save the big matmuls' outputs, save every "
      "activation, or block remat. The dashed lines are the chapter's closed-form floors.");
  r.extra["verdict"] = chip.name + ", " + model_name(in) +
                       ": which strategies are compute-bound and fit, by chips and batch per chip";
  r.extra["map"] = map_json(map, N, B / N);
}

}  // namespace sb::training::calc
