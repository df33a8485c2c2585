// The chapter's worked profile (A.4): the mock Transformer's ops on a TPU v2 slice, each op's
// roofline time beside the time the chapter's profile shows, the local shapes read as 4-way data
// and 2-way model parallelism.
#include <string>

#include "chapters/profiling/calculators.hpp"
#include "chapters/profiling/cost.hpp"
#include "chapters/profiling/model.hpp"
#include "chapters/roofline/model.hpp"
#include "chapters/sharding/collectives.hpp"
#include "chapters/sharding/model.hpp"
#include "core/units.hpp"

namespace sb::profiling {
namespace {

json op_row(const std::string& op, const std::string& shapes, double predicted, double reported,
            const std::string& bound) {
  json j = {{"op", op}, {"shapes", shapes}, {"predicted_s", predicted}, {"bound", bound}};
  j["reported_s"] = reported > 0 ? json(reported) : json(nullptr);
  j["efficiency"] = reported > 0 ? json(efficiency(predicted, reported)) : json(nullptr);
  return j;
}

std::string arr(double a, double b, double c = 0) {
  auto s = [](double x) { return units::whole(x); };
  return "bf16[" + s(a) + "," + s(b) + (c > 0 ? "," + s(c) : "") + "]";
}

// The chip's figures for one device: its bf16 peak and its link from the tables (TPU v2: 23e12
// per core, 1.2e11 B/s both ways); the HBM bandwidth the reader's where the tables lack it.
struct Device {
  ChipTerms terms;
  double link_bidi = 0;
};

Device device_of(const Inputs& in) {
  const hw::Chip& chip = hw::chip(in.text("chip"));
  if (chip.kind == "gpu")
    fail("chip",
         "the worked profile's ReduceScatter runs over a TPU's ICI link; the " + chip.name +
             " has none (pick a TPU)",
         "no_figure");
  Device d{chip_terms(chip, hbm_given(in)), chip.get("ici_bw_bidi", "chip")};
  chip.peak("bf16", "chip");  // an error naming the chip where the tables give no peak
  return d;
}

}  // namespace

void worked_calc(const Inputs& in, Trace& tr, Result& r) {
  const double B = in.num("batch"), T = in.num("seq_len"), D = in.num("d_model"),
               F = in.num("d_ff"), H = in.num("n_heads"), K = in.num("d_qkv");
  const double dp = in.num("dp"), mp = in.num("mp");
  const Device dev = device_of(in);
  const double cores = dp * mp, w = dev.link_bidi;
  const double peak = tr.value(dev.terms.devices_per_chip > 1
                                   ? "bf16 FLOPs/s of one TensorCore (each a device): the chip's "
                                     "peak over its cores"
                                   : "bf16 FLOPs/s of one chip",
                               dev.terms.peak, "flop_per_s");
  const double tokens = tr.step("Tokens per data-parallel shard", kTokensPerShard, {B, dp, T});
  const double up_flops =
      tr.step("Up-projection FLOPs (global)", roofline::kMatmulFlops, {B * T, D, F});
  const double up = tr.step("Up-projection on every core", kShardedTime, {up_flops, cores, peak});
  const double q_flops =
      tr.step("Q projection FLOPs (global)", roofline::kMatmulFlops, {B * T, D, H * K});
  const double q = tr.step("Q projection on every core", kShardedTime, {q_flops, cores, peak});
  const double shard = tr.step("ReduceScatter operand per device", kArrayBytes, {tokens * D, 2});
  sharding::Link link;
  link.w_uni = tr.step("One way over the link", sharding::kWUni, {w});
  const double rs =
      sharding::collective_cost(sharding::Op::ReduceScatter, shard,
                                {sharding::Axis{"Y", mp, true, 1}}, link, &tr, "ReduceScatter")
          .t;
  json ops = json::array();
  ops.push_back(op_row("up-projection", arr(tokens / T, T, D) + " x " + arr(D, F / mp), up,
                       in.num("reported_up"), "compute"));
  ops.push_back(op_row("ReduceScatter (2-way)", arr(tokens / T, T, D), rs, in.num("reported_rs"),
                       "collective"));
  ops.push_back(
      op_row("Q projection", arr(tokens / T, T, D) + " x " + arr(D, H * K / mp), q, 0, "compute"));
  if (dev.terms.hbm_bw) {
    const double bytes = 2 * (tokens * D + D * F / mp + tokens * F / mp);
    const double t_hbm =
        tr.step("Up-projection's HBM time", roofline::kTComms, {bytes, *dev.terms.hbm_bw});
    r.value("up_hbm_time", t_hbm, "s", "up-projection's HBM time");
  } else {
    r.note(dev.terms.name +
           "'s HBM bandwidth is not known (the book prints none): enter it (per chip) to see the "
           "up-projection's memory time; the compute and link times need only the figures the "
           "tables give.");
  }
  r.value("up_time", up, "s", "up-projection");
  r.value("rs_time", rs, "s", "ReduceScatter");
  r.value("q_time", q, "s", "Q projection");
  r.extra["ops"] = std::move(ops);
}

}  // namespace sb::profiling
