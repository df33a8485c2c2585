// Registers the transformers chapter's calculators and problems (its record comes from
// chapter.json).
#include "chapters/transformers/problems.hpp"
#include "core/registry.hpp"

namespace sb::transformers {
void add_calculators(Registry& r);  // calculators.cpp

void register_chapter(Registry& r) {
  add_calculators(r);
  add_text_problems(r);
  add_question_problems(r);
}
}  // namespace sb::transformers
