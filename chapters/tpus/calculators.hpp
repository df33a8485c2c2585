// What the TPU chapter's calculators_*.cpp files share: parameter makers, the torus as JSON for
// the page's drawing, the chips a calculation names, and the steps of a chip's VPU rate.
#pragma once
#include "chapters/tpus/model.hpp"
#include "core/hardware.hpp"
#include "core/json.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"

namespace sb::tpus {

void add_transfer_calculators(Registry& r);  // calculators_transfer.cpp: tpus.transfer
void add_chip_calculators(Registry& r);      // calculators_chip.cpp: tpus.mxu, ladder, decode

constexpr Param shape_param(Text def) {
  return text("shape", def, "slice shape, like 4x4x4 or 16x16 (at most 3 axes)");
}
// A number where 0 means "take it from elsewhere".
constexpr Param zero_ok(Param p) {
  p.positive = false;
  return p;
}

json wrap_json(const Torus& t);
// What a web drawing of the torus needs: {"dims", "wrap"}.
json torus_json(const Torus& t);

// A chip of the slice named by the input `name`; left empty, the first corner ("from") or the
// opposite one ("to"), so that the defaults fit a slice of any shape and rank.
Dims endpoint(const Inputs& in, Text name, const Torus& t);

// One core's VPU rate, fp32, as a step: sublanes x lanes x ALUs per cell x clock, the VPU's shape
// from the tables.
double vpu_core_rate(const hw::Chip& c, double alus_per_cell, double clock_hz, Trace& tr);
// Bytes of one core's vector registers, their shape from the tables.
double vreg_bytes(const hw::Chip& c);

}  // namespace sb::tpus
