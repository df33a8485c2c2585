// The transformers chapter's worked examples and end-of-chapter problems. Ids, slot names and
// units are the catalogue's (shared/book/problems/transformers.json); every expected answer, book
// shortcut and named mistake is computed by the model from the problem's own inputs. Each section
// of the book has its file, problems_<section>.cpp; problems.hpp holds what they share.
#include "chapters/transformers/problems.hpp"

#include "core/registry.hpp"

namespace sb::transformers {

// The sections in the book's order.
void add_problems(Registry& r) {
  add_problems_examples(r);
  add_problems_counting(r);
  add_problems_questions(r);
}

}  // namespace sb::transformers
