// Registers the training chapter's calculators and problems (its record comes from chapter.json).
#include "core/registry.hpp"

namespace sb::training {
void add_calculators(Registry& r);        // calculators.cpp
void add_section_problems(Registry& r);   // problems_sections.cpp: the examples in the text
void add_question_problems(Registry& r);  // problems_questions.cpp: the end-of-chapter problems

void register_chapter(Registry& r) {
  add_calculators(r);
  add_section_problems(r);
  add_question_problems(r);
}
}  // namespace sb::training
