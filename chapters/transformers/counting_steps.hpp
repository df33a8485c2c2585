// A.3's parameter count of a dense model as derivation steps, made from the chapter's records:
// each component per layer, times the L layers, the vocabulary, and the sum. Parts 5 and 6 count
// their models so; this is the one place that writes those steps.
#pragma once
#include "chapters/transformers/model.hpp"
#include "core/trace.hpp"

namespace sb::transformers {

struct CountSteps {
  double mlp = 0, attn = 0, vocab = 0, norms = 0, total = 0;  // over all layers
};
// The steps and their values; total is params(c).total. For a dense model without MLA (an MoE's
// experts and MLA's projections have steps of their own in the accounting calculator).
CountSteps count_steps(Trace& t, const Config& c);

// A.5: 6 FLOPs per parameter per token, times the tokens (an MoE: the active parameters).
inline double six_p_step(Trace& t, Text what, double P, double tokens) {
  return t.step(what, kSixPTokens, {P, tokens});
}

}  // namespace sb::transformers
