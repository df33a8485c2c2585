// The tiling visualiser (a shape and layout -> padded shape, blow-up, element order in memory)
// and the worked profile of the mock Transformer on a TPU v2 slice (A.4).
#include <cmath>
#include <string>

#include "chapters/profiling/calculators.hpp"
#include "chapters/profiling/hlo.hpp"
#include "chapters/profiling/model.hpp"
#include "chapters/roofline/model.hpp"
#include "chapters/sharding/collectives.hpp"
#include "chapters/sharding/model.hpp"
#include "core/error.hpp"

namespace sb::profiling {
namespace {

constexpr int kMaxDrawn = 32;  // rows and columns drawn; larger arrays get the numbers alone

// Position in memory of element (r, c) of a 2-D array under tiles levels[k..]: the tiles in
// row-major order, and inside each the next level's order (row-major at the last level).
double offset(int64_t r, int64_t c, int64_t cols, const std::vector<std::vector<int64_t>>& lv,
              size_t k) {
  if (k == lv.size()) return static_cast<double>(r * cols + c);
  const auto& t = lv[k];
  const int64_t a = t.size() >= 2 ? t[t.size() - 2] : 1, b = t.back();
  const int64_t per_row = (cols + b - 1) / b;
  const double tile = static_cast<double>((r / a) * per_row + c / b);
  return tile * static_cast<double>(a * b) + offset(r % a, c % b, b, lv, k + 1);
}

void draw(const hlo::Shape& s, const std::vector<int64_t>& padded, Result& r) {
  if (padded.size() != 2 || padded[0] > kMaxDrawn || padded[1] > kMaxDrawn) {
    r.note("The drawing shows 2-D arrays of up to 32 x 32 (padded); this one gets the numbers.");
    return;
  }
  const std::vector<int64_t> phys = padded_dims(hlo::Shape{s.dtype, s.dims, s.minor_to_major});
  json grid = json::array();
  for (int64_t i = 0; i < padded[0]; ++i) {
    json row = json::array();
    for (int64_t j = 0; j < padded[1]; ++j) row.push_back(offset(i, j, padded[1], s.tiles, 0));
    grid.push_back(std::move(row));
  }
  r.extra["order"] = {{"rows", phys[0]}, {"cols", phys[1]}, {"offsets", std::move(grid)}};
}

}  // namespace

void tiling_calc(const Inputs& in, Trace& tr, Result& r) {
  const hlo::Shape s = hlo::parse_shape(in.text("array"), "array");
  if (s.tuple() || s.dtype == "token") fail("array", "give one array, not a tuple");
  if (s.dims.empty()) fail("array", "a scalar has nothing to tile");
  const std::vector<int64_t> padded = hlo::padded_dims(s);
  if (!s.tiles.empty()) {
    const auto& t = s.tiles.front();
    for (size_t k = 0; k < t.size(); ++k) {
      if (t.size() > padded.size() + k) continue;  // a tile of more dims than the array has
      const size_t d = padded.size() - t.size() + k;
      // The layout names the logical dim at this place; a layout of another length names none.
      const size_t logical = s.minor_to_major.size() == padded.size()
                                 ? static_cast<size_t>(s.minor_to_major[padded.size() - 1 - d])
                                 : d;
      if (logical >= s.dims.size()) continue;
      tr.step("Dim " + std::to_string(logical) + " padded to its tile", kPaddedDim,
              {static_cast<double>(s.dims[logical]), static_cast<double>(t[k])});
    }
  } else {
    tr.note("No tiles: the array is stored as it is, with no padding.");
  }
  const double bits = hlo::dtype_bits(s.dtype).value_or(0);
  const double logical = tr.step("Logical bytes", kArrayBytes, {hlo::elements(s), bits / 8});
  const double pad = hlo::padded_bytes(s);
  tr.value("Padded bytes (every level of tiles)", pad, "B");
  const double up = logical > 0 ? tr.step("Memory blow-up", kBlowup, {pad, logical}) : 1;
  r.value("logical_bytes", logical, "B", "logical bytes");
  r.value("padded_bytes", pad, "B", "bytes after padding");
  r.value("blowup", up, "ratio", "memory blow-up");
  r.extra["padded_shape"] = padded;
  r.extra["memory_space"] = s.memory_space;
  draw(s, padded, r);
}

}  // namespace sb::profiling
