// The book's sharding notation (Part 3, "A unified notation for sharding") and its meshes.
//   array  A[I_X, J]   B[J_XY, K]   A[I_{XY}, J]   [B_X, D_Y]   C[I, K]{U_X}   A[I_X, J, K, ...]
//   mesh   "X=4,Y=4"   "{X: 4, Y: 4}"   "{'X': 8, 'Y': 2}"   "Mesh({'X': 2, 'Y': 8})"   "4x4x4"
//          "Mesh(devices=((0, 1), (2, 3)), axis_names=('X', 'Y'))"
//          "jax.make_mesh(axis_shapes=(4, 2), axis_names=('X', 'Y'), axis_types=(Auto, Auto))"
// Subscripts concatenate single-letter axes (I_XY = I split over X then Y); longer axis names are
// written comma-separated inside braces (I_{data,model}). Errors are sb::InputError naming the
// field, with the 1-based character position and what was expected there.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace sb::sharding {

// A named device mesh: axis names in order and their sizes.
struct Mesh {
  std::vector<std::string> names;
  std::vector<long long> sizes;

  bool has(const std::string& axis) const;
  long long size(const std::string& axis) const;  // 0 if the mesh has no such axis
  long long devices() const;                      // product of all axis sizes
  std::string text() const;                       // canonical "{X: 4, Y: 4}"
};

// One logical dimension: its name and the mesh axes splitting it, major to minor.
struct Dim {
  std::string name;
  std::vector<std::string> axes;
  std::size_t pos = 0;  // 1-based position of the dimension name in the source text
};

// A sharded array, as the notation writes it.
struct Sharding {
  std::string name;  // "A", or "" for [B_X, D_Y]
  std::vector<Dim> dims;
  bool ellipsis = false;               // trailing ", ..." (more unsharded dims)
  std::vector<std::string> unreduced;  // {U_X}: axes along which the array holds partial sums

  std::vector<std::string> used_axes() const;   // every axis used on a dim, in order
  int dim_index(const std::string& dim) const;  // -1 if absent
  std::string text() const;                     // canonical "A[I_X, J_{XY}]{U_Z}"
};

inline constexpr std::size_t kMaxNotationLength = 1000;  // characters; longer input is refused
inline constexpr int kMaxMeshAxes = 8;
inline constexpr long long kMaxAxisSize = 1LL << 20;
inline constexpr long long kMaxDevices = 1LL << 24;

// Parses the notation; checks syntax, that no dimension name is given twice, and that no axis is
// used twice (within the dims, and within the unreduced marker). Throws InputError(field) pointing
// at the offending character.
Sharding parse_sharding(std::string_view text, std::string_view field);

// Parses any of the mesh spellings above; sizes must be positive integers, names unique.
Mesh parse_mesh(std::string_view text, std::string_view field);

// Checks a sharding against a mesh: every axis exists in the mesh, no axis both shards a dim and
// is unreduced. Throws InputError(field) with the position of the offending subscript.
void validate(const Sharding& s, const Mesh& m, std::string_view field);

// Checks that each global size divides by the product of the axis sizes splitting it.
// `sizes` has one entry per dim of `s` (ellipsis dims excluded).
void check_divisible(const Sharding& s, const Mesh& m, const std::vector<double>& sizes,
                     std::string_view field);

// Subscript for TeX / text: {"X","Y"} -> "XY"; multi-letter names comma-separated.
std::string axes_text(const std::vector<std::string>& axes);

// A sharding's text (Sharding::text()) as inline TeX for a derivation's words: the braces of the
// unreduced marker are literal, "C[I_X, K]{U_Y}" -> "C[I_X, K]\{U_Y\}"; a subscript's group
// "_{XY}" stays a group.
std::string sharding_tex(std::string_view text);

// ------------------------------------------------------------------ JAX's PartitionSpecs

// A PartitionSpec as JAX code writes it (Part 10 reads the book's sharded arrays this way):
//   P('X', None)   P(('X', 'Y'))   P("X", "Y")   jax.P('X')   PartitionSpec(None, 'Y')   P()
// One entry per leading dimension of the array: the mesh axes that shard it, major to minor
// (none: replicated); dimensions past the last entry are replicated. partition_spec.cpp holds it,
// and only the chapters that read JAX code call it (a page that does not is not charged for it).
struct PartitionSpec {
  std::vector<std::vector<std::string>> entries;
  std::vector<std::size_t> pos;  // 1-based column of each entry in the text
};

// Parses the spec; an entry is None, a quoted axis name, or a tuple of them. Throws
// InputError(field, "bad_spec") at the column where the text stops being a PartitionSpec.
PartitionSpec parse_partition_spec(std::string_view text, std::string_view field);

// The spec applied to an array named `array` whose dimensions are named `dims` (the book's
// notation: P('X', 'Y') on In[B, D] is In[B_X, D_Y]). Errors name `field` and the column: more
// entries than dimensions, an axis used twice, an axis the mesh does not have.
Sharding spec_sharding(const PartitionSpec& spec, const Mesh& m, const std::string& array,
                       const std::vector<std::string>& dims, std::string_view field);

// The spec written back canonically, P('X', None) and P(('X', 'Y')).
std::string spec_text(const PartitionSpec& spec);

}  // namespace sb::sharding
