// The TPU chapter's worked examples and end-of-chapter problems (ids and slots as in
// shared/book/problems/tpus.json). Every answer comes from model.hpp applied to the problem's own
// inputs; the statements are ours. The records are constant data (see core/registry.hpp).
// Each section has its file, problems_<section>.cpp; problems.hpp holds what they share.
#include "chapters/tpus/problems.hpp"

#include "core/registry.hpp"

namespace sb::tpus {

// The sections in the book's order.
void add_problems(Registry& r) {
  add_problems_examples(r);
  add_problems_questions(r);
  add_problems_host_offload(r);
}

}  // namespace sb::tpus
