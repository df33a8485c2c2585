// What Part 10's problem files share: the section adders and the givens several problems take.
#pragma once
#include <string>

#include "chapters/jax_stuff/model.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"

namespace sb::jax_stuff {

void add_problems_walkthroughs(Registry& r);  // problems_walkthroughs.cpp: W0, E1, W1
void add_problems_questions(Registry& r);     // problems_questions.cpp: P1.1 to P4

// A mesh from the catalogue's spellings: "4x2" sizes with "('X','Y')" names, or any spelling
// sharding::parse_mesh reads when `axes` is empty. Errors name "mesh" or "axes".
Mesh mesh_of(const std::string& sizes, const std::string& axes);

// The collective matmul of a problem: B, D, F, the mesh's two axes (X, then the ring Y), the
// chip and dtype of its givens; `kind` and `bidirectional` as the problem asks.
CmInput cm_of(const Inputs& in, CmKind kind, bool bidirectional);

constexpr Param kChip = chip_param("v5e", "the chip (the chapter's code names a TPU v5e-8)");
constexpr Param kCmB = count("B", 1024, "B: batch rows", {}, 1, 1e7);
constexpr Param kCmD = count("D", 2048, "D: model width", {}, 1, 1e7);
constexpr Param kCmF = count("F", 8192, "F: hidden width", {}, 1, 1e7);
constexpr Param kCmDtype = dtype_param("dtype", "bf16", "the operands' dtype");
// The givens of every collective-matmul problem: the chapter's shapes on its 2x4 mesh.
inline constexpr Param kCmGiven[] = {kCmB,
                                     kCmD,
                                     kCmF,
                                     text("mesh", "2x4", "the mesh's shape"),
                                     text("axes", "('X','Y')", "its axis names"),
                                     kChip,
                                     kCmDtype};

}  // namespace sb::jax_stuff
