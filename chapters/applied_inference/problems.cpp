// The case study's problems (ids and slots as in shared/book/problems/applied-inference.json), by
// section; problems.hpp holds what they share, defined here.
#include "chapters/applied_inference/problems.hpp"

#include <string>

#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/units.hpp"

namespace sb::applied_inference {

namespace inf = inference;

Given given_of(const Inputs& in, unsigned parts) {
  Given g;
  if (parts & kModel) {
    g.L = in.num("L");
    g.K = in.num("K");
    g.H = in.num("H");
    g.P = in.num("param_count");
  }
  if (parts & kMemory) g.M = in.num("hbm_per_chip_B");
  if (parts & kStep) {
    g.W = in.num("hbm_bw_Bps");
    g.C = in.num("peak_bf16_flops_per_s");
  }
  g.machine = inf::tpu_of(hw::chip(in.text("chip"), "chip"), "chip");
  return g;
}

double kv_tok_step(const Given& g, double b, Trace& t, Text what) {
  return t.step(what, inf::kKvTok, {g.L, g.K, g.H, b});
}

double slice_step(const Given& g, double chips, Trace& t) {
  std::string shape;
  const double s = slice_at_least(g.machine, chips, &shape);
  if (s == 0)
    fail("chip", "no slice of a " + g.machine.name + " has " + units::number(chips, 6) + " chips",
         "out_of_range");
  return t.value("The smallest slice of at least that many: a " + shape, s, "chips");
}

Row row_steps(const Given& g, double b, double S, double factor, Trace& t) {
  Row r;
  r.b = b;
  r.bytes_w = t.step("Weight bytes", inf::kWeightBytes, {g.P, b});
  r.kv_tok = kv_tok_step(g, b, t);
  r.raw = t.step("Chips the weights fill", inf::kMinChips, {r.bytes_w, 0, g.M});
  r.chips = slice_step(g, slice_at_least(g.machine, r.raw) * factor, t);
  r.left = t.step("HBM left for caches", inf::kFreeHbm, {r.chips, g.M, r.bytes_w});
  r.B = t.step("Caches of $S$ tokens that fit", inf::kMaxBatch, {r.left, S, r.kv_tok});
  if (r.B < 1)
    fail("hbm_per_chip_B", "no cache fits beside the weights on the slice", "out_of_range");
  if (g.W > 0 && g.C > 0) {
    r.d = inf::decode(g.P, g.P, b, r.kv_tok, g.C, g.W, r.chips, r.B, S);
    t.step("Reading the caches", inf::kTKv, {r.B, S, r.kv_tok, r.chips, g.W});
    t.step("Reading the weights", inf::kTParam, {g.P, b, r.chips, g.W});
    t.step("The FLOPs", inf::kTFlops, {r.B, g.P, r.chips, g.C});
    t.step("The step", inf::kTStep, {r.d.T_kv, r.d.T_flops, r.d.T_param});
  }
  return r;
}

// The sections in the book's order.
void add_problems(Registry& r) {
  add_problems_story(r);
  add_problems_throughput(r);
  add_problems_prefill(r);
}

}  // namespace sb::applied_inference
