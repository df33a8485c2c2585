// One instruction line of HLO text, read (hlo_line.cpp) into its parts and the attributes the
// chapter uses; the module reader (hlo.cpp) resolves names across lines and counts the costs.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chapters/profiling/hlo.hpp"
#include "chapters/profiling/hlo_text.hpp"

namespace sb::profiling::hlo::detail {

struct Line {
  bool root = false;
  std::string name, opcode;
  Shape shape;
  std::vector<std::string> operands;
  std::vector<Shape> operand_shapes;  // dtype empty where the operand is printed without one
  // Attributes the chapter reads; the rest (metadata, backend_config, sharding, ...) are passed
  // over whole.
  std::string kind, calls, to_apply, dim_labels;
  std::vector<int64_t> lhs_contracting, rhs_contracting, lhs_batch, rhs_batch;
  std::optional<double> window_taps;  // product of window={size=AxB ...}
  int64_t feature_groups = 1, batch_groups = 1;
  bool has_groups = false;        // replica_groups= printed
  std::optional<int> group_size;  // from it; nullopt for {} (all devices)
  bool uneven_groups = false;
  int pairs = 0, pair_devices = 0;  // source_target_pairs
};

bool known_opcode(std::string_view op);
bool elementwise(std::string_view op);

// Reads one trimmed instruction line; throws text::Bad with the column (base: the trim's offset).
Line read_line(std::string_view s, size_t base);

// A computation header "[ENTRY ]%name (p: shape, ...) -> shape {": the name and the parameters'
// shapes (a parameter that does not read is left out). Throws text::Bad.
struct Header {
  bool entry = false;
  std::string name;
  std::vector<std::pair<std::string, Shape>> params;
};
Header read_header(std::string_view s, size_t base);

}  // namespace sb::profiling::hlo::detail
