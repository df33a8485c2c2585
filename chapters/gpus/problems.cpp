// The GPU chapter's problems, section by section in the book's order (problems.hpp).
#include "chapters/gpus/problems.hpp"

namespace sb::gpus {

void add_problems(Registry& r) {
  add_problems_chip(r);
  add_problems_network(r);
  add_problems_collectives(r);
  add_problems_rooflines(r);
}

}  // namespace sb::gpus
