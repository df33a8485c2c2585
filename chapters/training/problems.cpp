// The training chapter's problems (ids and slots as in shared/book/problems/training.json): the
// examples of each section of the text, then the end-of-chapter problems. Each section has its
// file, problems_<section>.cpp; problems.hpp holds what they share.
#include "chapters/training/problems.hpp"

#include "core/registry.hpp"

namespace sb::training {

// The sections in the book's order.
void add_problems(Registry& r) {
  add_problems_data_parallel(r);
  add_problems_tensor_parallel(r);
  add_problems_mixed(r);
  add_problems_pods(r);
  add_problems_questions(r);
}

}  // namespace sb::training
