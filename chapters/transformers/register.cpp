// Registers the transformers chapter's calculators and problems (its record comes from
// chapter.json).
#include "core/registry.hpp"

namespace sb::transformers {
void register_chapter(Registry&) {}
}  // namespace sb::transformers
