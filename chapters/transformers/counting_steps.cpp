#include "chapters/transformers/counting_steps.hpp"

#include <vector>

namespace sb::transformers {

CountSteps count_steps(Trace& t, const Config& c) {
  CountSteps s;
  const double mlp = t.step("MLP per layer", c.gated ? kMlpGated : kMlpPlain, {c.D, c.F});
  s.mlp = t.product("MLP, all layers", "P_MLP", "params", {{"L", c.L}, {"P_mlp", mlp}});
  const double attn = t.step("Attention per layer", kAttentionParams, {c.D, c.N, c.K, c.H});
  s.attn = t.product("Attention, all layers", "P_ATTN", "params", {{"L", c.L}, {"P_attn", attn}});
  s.vocab = t.step("Embedding and unembedding", c.tied ? kVocabTied : kVocabUntied, {c.D, c.V});
  const Params p = params(c);
  std::vector<Trace::Term> terms = {{"P_MLP", s.mlp}, {"P_ATTN", s.attn}, {"P_vocab", s.vocab}};
  if (p.norms > 0) {
    s.norms = t.value("Norm vectors", p.norms, "count");
    terms.push_back({"P_norms", s.norms});
  }
  s.total = t.sum("Parameters", "P", "params", terms);
  return s;
}

}  // namespace sb::transformers
