// Registers the applied_training chapter's calculators and problems (its record comes from
// chapter.json).
#include "core/registry.hpp"

namespace sb::applied_training {
void register_chapter(Registry&) {}
}  // namespace sb::applied_training
