// The sharding chapter's worked examples, pop quizzes and end-of-chapter problems. Ids, slot names
// and units are the catalogue's (shared/book/problems/sharding.json). Every expected answer is
// computed by the model (notation.hpp, model.hpp) from the problem's own inputs.
// Each section of the book has its file, problems_<section>.cpp; problems.hpp holds what they
// share.
#include "chapters/sharding/problems.hpp"

#include "core/registry.hpp"

namespace sb::sharding {

// The sections in the book's order.
void add_problems(Registry& r) {
  add_problems_notation(r);
  add_problems_collectives(r);
  add_problems_matmuls(r);
  add_problems_matmul_costs(r);
  add_problems_ring_traffic(r);
}

}  // namespace sb::sharding
