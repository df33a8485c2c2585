// Adds the inference chapter's problems, section by section (problems_*.cpp).
#include "chapters/inference/problems.hpp"

namespace sb::inference {

void add_problems(Registry& r) {
  add_problems_examples(r);
  add_problems_tables(r);
  add_problems_serving(r);
  add_problems_questions(r);
}

}  // namespace sb::inference
