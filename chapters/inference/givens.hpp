// The chip figures that the problems of Parts 7 and 8 state (a v5e's unless a problem says
// otherwise); a variant draws them from one real chip. Part 8 works on Part 7's chip, so both
// chapters' problems take these givens from here.
#pragma once
#include "core/registry.hpp"

namespace sb::inference {

constexpr Param kChipGiven = chip_param("v5e", "the chip");
constexpr Param kPeakBf16 =
    chip_spec(rate("peak_bf16_flops_per_s", "flop_per_s", 1.97e14, "peak bf16 FLOPs/s per chip, C"),
              "peak_flops_bf16");
constexpr Param kPeakInt8 =
    chip_spec(rate("peak_int8_flops_per_s", "flop_per_s", 3.94e14, "peak int8 OPs/s per chip"),
              "peak_flops_int8");
constexpr Param kHbmBw =
    chip_spec(rate("hbm_bw_Bps", "B_per_s", 8.2e11, "HBM bandwidth per chip, W_hbm"), "hbm_bw");
constexpr Param kHbmBytes = chip_spec(memory("hbm_per_chip_B", 16e9, "HBM per chip"), "hbm_bytes");
constexpr Param kIciBidi =
    chip_spec(rate("ici_bw_bidi_Bps", "B_per_s", 9e10, "ICI bandwidth per link, both directions"),
              "ici_bw_bidi");

}  // namespace sb::inference
