// The HLO reader's shape grammar, for hlo.cpp: read at a cursor, errors with the column.
#pragma once
#include <string_view>

#include "chapters/profiling/hlo.hpp"
#include "chapters/profiling/hlo_text.hpp"

namespace sb::profiling::hlo::detail {

// A shape at the cursor: an array with its optional layout, a tuple, or token.
Shape shape(text::Cursor& c, int depth = 0);
// Whether s starts with a shape (a dtype then '[', a tuple's '(', or token).
bool starts_shape(std::string_view s);

}  // namespace sb::profiling::hlo::detail
