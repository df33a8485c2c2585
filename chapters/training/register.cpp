// Registers the training chapter's calculators and problems (its record comes from chapter.json).
#include "core/registry.hpp"

namespace sb::training {
void register_chapter(Registry&) {}
}  // namespace sb::training
