// Part 3, "Sharded matrix multiplication" (A3): the book's four cases for A[I, J] ._J B[J, K], the
// plans that carry them out (gathers, free slices, the local matmul, the reduction of its partial
// sums), each collective costed on the mesh (A4), and the blocks each device holds.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "chapters/sharding/collectives.hpp"
#include "chapters/sharding/notation.hpp"
#include "core/json.hpp"
#include "core/trace.hpp"

namespace sb::sharding {

// One step of a plan: a collective, a free reshard, or the local matmul.
struct PlanStep {
  std::string kind;   // "AllGather", "ReduceScatter", "AllReduce", "AllToAll", "slice", "matmul"
  std::string array;  // "A", "B", "C"
  std::string when;   // "before" or "after" the local matmul, or "matmul"
  std::vector<std::string> axes;
  std::string dim;       // the dimension a gather removes axes from / a RS scatters onto
  std::string from, to;  // notation before and after
  double V = 0;          // bytes the cost formula uses
  double flops = 0;      // matmul step: FLOPs per chip
  CollectiveCost cost;
};

struct Plan {
  std::string name;
  std::vector<PlanStep> steps;
  Sharding out;
  double flops_per_chip = 0;
  double t_math = 0;
  double t_comms = 0;
  double bytes_per_chip = 0;                  // bytes each chip receives over all collectives
  double peak_bytes_a = 0, peak_bytes_b = 0;  // per-device bytes of the operands at the matmul
  std::string verdict;
};

// A plan's name (Plan::name) for a derivation's words, the collectives' names as inline TeX:
// "$\\mathrm{AllGather}_{X}$ B; local matmul".
std::string plan_name_tex(const Plan& p);

struct MatmulInput {
  Sharding a, b;
  Mesh mesh;
  double I = 0, J = 0, K = 0;  // A's free dim, the contracting dim, B's free dim
  double bytes_per_elem = 2;
  double peak_flops = 0;  // FLOPs/s per chip
  Link link;
  std::vector<bool> wrap;  // per mesh axis (same order as mesh.names)
};

struct MatmulAnalysis {
  int case_no = 1;         // the book's case: 1, 2, 3 or 4
  std::vector<int> cases;  // every case that applies (e.g. 3 and 4 together)
  std::string case_text;
  std::string contracting;             // name of the contracting dim
  std::string dim_i, dim_k;            // names of A's and B's free dims
  std::vector<std::string> conflicts;  // Case 4 axes
  Plan plan;                           // the book's default
  std::vector<Plan> alternatives;      // the other plans the book compares (default not repeated)
};

// Roles of A's and B's dims: the contracting dim is the one name they share (exactly one).
// Both must be 2-D. Errors name field "a" or "b".
struct MatmulDims {
  int a_i, a_j, b_j, b_k;
  std::string contracting;
};
MatmulDims matmul_dims(const Sharding& a, const Sharding& b);

// Decides the case, builds the default plan and the alternatives with costs (A3, A4). With a
// trace: the case, each collective of the default plan, its FLOPs, T_math and T_comms per chip.
MatmulAnalysis analyze_matmul(const MatmulInput& in, Trace* tr = nullptr);

// The collectives of plan `p` costed again on `in` (the same mesh wired otherwise, say with full
// rings), each with its steps, and their sum T_comms. Their words end with `suffix`.
double recost_comms(const MatmulInput& in, const Plan& p, Trace& tr, Text suffix);

// A step's name: "AllGather_{X} B" as plain text, "$\\mathrm{AllGather}_{X}$ B" for a derivation.
std::string step_label(const PlanStep& s, bool tex = false);

}  // namespace sb::sharding
