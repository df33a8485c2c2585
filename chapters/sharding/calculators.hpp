// What the sharding chapter's calculator files share (calculators.cpp registers them all).
#pragma once
#include "chapters/sharding/model.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"

namespace sb::sharding {

// Largest ring the step by step view lays out; the time against N goes further.
inline constexpr int kMaxRingDrawn = 16;

// Link figures: the chip's tables unless the reader gives a bandwidth or latency (0 = chip).
Link link_for(const hw::Chip& c, Text link, Text direction, double w_given, double t_given);

void ring_calc(const Inputs& in, Trace& tr, Result& r);        // calculators_ring.cpp
void strategies_calc(const Inputs& in, Trace& tr, Result& r);  // calculators_ring.cpp

}  // namespace sb::sharding
