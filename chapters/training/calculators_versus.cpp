// training.versus: the planner's best plan for one model on a GPU cluster and on a TPU slice of the
// same chip count, side by side (issue 18: 1024 H100s beside a 1024-chip v5p slice). Each column
// is training.plan's own search (plan_column); this file only pairs them and compares.
#include <string>

#include "chapters/gpus/model.hpp"
#include "chapters/training/calculators.hpp"

namespace sb::training::calc {
namespace {

// The other column's chip: the reader's, else TPU v5p beside a GPU and NVIDIA H100 beside a TPU.
const hw::Chip& other_chip(const Inputs& in, const hw::Chip& page) {
  const std::string& id = in.text("other");
  if (!id.empty()) return hw::chip(id, "other");
  return hw::chip(page.kind == "gpu" ? "v5p" : "h100", "other");
}

void column_values(const json& c, const char* key, Result& r) {
  const std::string k(key), name = c["name"].get<std::string>();
  const json& b = c["best"];
  r.value(k + "_chips", c["chips"].get<double>(), "chips", name + ": chips");
  r.value(k + "_X", b["X"].get<double>(), "count", name + ": X (data / FSDP)");
  r.value(k + "_Y", b["Y"].get<double>(), "count", name + ": Y (tensor parallel)");
  r.value(k + "_Z", b["Z"].get<double>(), "count", name + ": Z (pipeline stages)");
  r.value(k + "_mem", b["mem"].get<double>(), "B", name + ": memory per chip");
  r.value(k + "_hbm", c["hbm"].get<double>(), "B", name + ": HBM per chip");
  r.value(k + "_step", b["t_step"].get<double>(), "s", name + ": step-time bound");
  r.value(k + "_mfu", b["mfu"].get<double>(), "ratio", name + ": MFU bound");
}

}  // namespace

void versus_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& page = hw::chip(in.text("chip"), "chip");
  const hw::Chip& other = other_chip(in, page);
  const bool page_gpu = page.kind == "gpu";
  // The GPU column first, whichever chip is the page's.
  const json gpu = plan_column(in, page_gpu ? page : other);
  const json tpu = plan_column(in, page_gpu ? other : page);
  column_values(gpu, "a", r);
  column_values(tpu, "b", r);
  const double ta = gpu["best"]["t_step"].get<double>(), tb = tpu["best"]["t_step"].get<double>();
  const double ratio =
      tr.step("Step time of the first column over the second's", gpus::kRatio, {ta, tb});
  r.value("step_ratio", ratio, "ratio", "first column's step time over the second's");
  tr.note("Each column is the training planner's whole search on its chip: " +
          gpu["name"].get<std::string>() + " as " + gpu["where"].get<std::string>() + ", " +
          tpu["name"].get<std::string>() + " as the slice " + tpu["where"].get<std::string>() +
          ".");
  if (const std::string s = gpu["snapped"].get<std::string>(); !s.empty())
    r.note(s + " The " + tpu["name"].get<std::string>() + " column keeps " +
           units::number(tpu["chips"].get<double>()) + " chips.");
  r.note(layer_words(LayerChoice{book_mlp(in), in.text("layer") == "full", in.num("seq_len")}));
  r.extra["columns"] = json::array({gpu, tpu});
  r.extra["verdict"] = gpu["name"].get<std::string>() + ", " + gpu["verdict"].get<std::string>() +
                       "; " + tpu["name"].get<std::string>() + ", " +
                       tpu["verdict"].get<std::string>();
}

}  // namespace sb::training::calc
