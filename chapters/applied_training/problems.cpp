// The case study's problems (ids and slots as in shared/book/problems/applied-training.json): the
// questions of the text, then the worked problems. Each section has its file,
// problems_<section>.cpp; problems.hpp holds what they share.
#include "chapters/applied_training/problems.hpp"

#include "core/registry.hpp"

namespace sb::applied_training {

// The sections in the book's order.
void add_problems(Registry& r) {
  add_problems_counting(r);
  add_problems_sharding(r);
  add_problems_questions(r);
}

}  // namespace sb::applied_training
