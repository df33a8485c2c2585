// The roofline chapter's worked examples and end-of-chapter problems. Ids, slot names and units
// are the catalogue's (shared/book/problems/roofline.json); every expected answer is computed by
// the model from the problem's own inputs, so "new variant" just feeds other inputs.
// The records are constant data (see core/registry.hpp); only solve() and the formula slots run.
// Each section of the book has its file, problems_<section>.cpp; problems.hpp holds what they
// share.
#include "chapters/roofline/problems.hpp"

#include "core/registry.hpp"

namespace sb::roofline {

// The sections in the book's order.
void add_problems(Registry& r) {
  add_problems_examples(r);
  add_problems_questions(r);
}

}  // namespace sb::roofline
