// Part 2, the ICI torus (A.10): which axes of a slice wrap, the distances and routes between
// chips, neighbours and the bisection; implemented in torus.cpp (and text.cpp for coordinates).
#pragma once
#include <string>
#include <vector>

#include "chapters/tpus/symbols.hpp"
#include "core/formula.hpp"
#include "core/hardware.hpp"

namespace sb::tpus {

// A slice shape: 1 to 3 axis lengths, e.g. {4, 4, 4}.
using Dims = std::vector<int>;

// Which axes of a slice are closed rings: the chip's rule, a field of data/chips.json.
struct WrapRule {
  enum class Kind {
    None,         // no rule in the tables (GPUs): no axis wraps
    AllMultiple,  // wrap_if_all_axes_multiple_of = n (v4p, v5p, TPU7x: n = 4): every axis wraps
                  // iff every axis is a multiple of n, the slice being whole cubes joined by
                  // optical switches; 2x2x4 wraps nowhere
    AxisLength,   // wrap_if_axis_length = n (v5e, v6e: n = 16): an axis wraps iff its length is n,
                  // the side of a fixed pod-sized torus
  };
  Kind kind = Kind::None;
  int n = 0;
  bool assumed = false;  // the book states no rule for this chip: the tables' is a modelling choice
  std::string text;      // the rule in words, for notes
};
WrapRule wrap_rule(const hw::Chip& chip);
// The axes of a slice shaped `dims` that wrap on `chip` (TPU Networking, wraparound). A slice with
// fewer axes than the chip's torus has length 1 on the others, so it is never whole cubes; a ring
// of 1 or 2 chips adds no link a line lacks, so it counts as a line.
std::vector<bool> wraps(const hw::Chip& chip, const Dims& dims);
// The same with the rule in hand (`rank`: torus_rank(chip)).
std::vector<bool> wraps(const WrapRule& r, size_t rank, const Dims& dims);
// The chip's torus axes, 0 where the tables give none (a GPU).
size_t torus_rank(const hw::Chip& chip);

// ICI latency per hop: the chip's figure in the tables, else kTypicalHopLatency.  (A.10)
double hop_latency(const hw::Chip& chip);
// The book's order of magnitude for one ICI hop on any TPU ("about 1 us", given for v5e).
inline constexpr double kTypicalHopLatency = 1e-6;

struct Torus {
  Dims dims;               // axis lengths
  std::vector<bool> wrap;  // one per axis
};

// A chip's topology facts from the tables.
struct Topology {
  std::string chip;    // id
  int torus_dims = 2;  // 2 or 3
  Dims max_pod;        // "16x16", "16x20x28"
  WrapRule rule;
  bool inferred = false;  // TPU7x: the book does not state the torus rank
};
Topology topology_of(const hw::Chip& chip, const std::string& field = "chip");

// A slice every TPU of its rank comes in, for a calculator's default: the 4x4x4 cube of a 3D torus
// (whole cubes: it wraps), a 4x4 of a 2D one. InputError("chip") for a GPU.
Dims default_slice(const hw::Chip& chip);

// Whether a slice shaped `dims` is one the chip comes in: no more axes than its torus, and inside
// its largest pod (slice_torus's test, without the error; a search over shapes asks it often).
bool fits_in_pod(const Topology& topo, const Dims& dims);

// The slice on a chip: validates the shape against the chip (rank, max pod) and applies the rule.
// `wrap_override`: "auto" (the rule), "none", "all". Errors name `shape_field` or `wrap_field`.
Torus slice_torus(const hw::Chip& chip, const Dims& dims, const std::string& wrap_override = "auto",
                  const std::string& shape_field = "shape", const std::string& wrap_field = "wrap");

// Distance along one axis: |a-b|, or min(|a-b|, n-|a-b|) on a ring.  (A.10 hop count)
int axis_distance(int a, int b, int n, bool wrap);
inline constexpr Formula kAxisLine =
    record("d_i", "abs(a_i - b_i)", "count", "A.10", "a_i b_i", kSymbols, [](const double* x) {
      return static_cast<double>(
          axis_distance(static_cast<int>(x[0]), static_cast<int>(x[1]), 1, false));
    });
inline constexpr Formula kAxisRing =
    record("d_i", "min(abs(a_i - b_i), n_i - abs(a_i - b_i))", "count", "A.10", "a_i b_i n_i",
           kSymbols, [](const double* x) {
             return static_cast<double>(axis_distance(
                 static_cast<int>(x[0]), static_cast<int>(x[1]), static_cast<int>(x[2]), true));
           });
// The largest distance along one axis of n chips: floor(n/2) on a ring, n-1 on a line.
int axis_max_distance(int n, bool wrap);
inline constexpr Formula kAxisMaxLine =
    record("m_i", "n_i - 1", "count", "A.10", "n_i", kSymbols, [](const double* x) {
      return static_cast<double>(axis_max_distance(static_cast<int>(x[0]), false));
    });
inline constexpr Formula kAxisMaxRing =
    record("m_i", "floor(n_i / 2)", "count", "A.10", "n_i", kSymbols, [](const double* x) {
      return static_cast<double>(axis_max_distance(static_cast<int>(x[0]), true));
    });
// Hops per axis and their sum.
std::vector<int> hops_per_axis(const Torus& t, const Dims& from, const Dims& to);
int hops(const Torus& t, const Dims& from, const Dims& to);
// Worst case over all pairs: the sum of axis_max_distance over the axes.  (TPU Networking)
int max_distance(const Torus& t);
// Dimension-ordered route (axis 0 first, shorter way round a ring, ties go up): every chip on
// the path, both ends included.
std::vector<Dims> route(const Torus& t, const Dims& from, const Dims& to);
// The chips one link away (no duplicates; a ring of 2 gives one neighbour).
std::vector<Dims> neighbours(const Torus& t, const Dims& c);
// Links leaving the sender toward the destination: one per axis on which the two differ.  (A.10)
int ports_toward(const Torus& t, const Dims& from, const Dims& to);
// Coordinates "0,0,0", "(3, 3)", "TPU{0,0}": InputError(field) unless they fit the torus.
Dims parse_coord(const std::string& text, const Torus& t, const std::string& field);
std::string coord_text(const Dims& c);
// Links cut by the cheapest halving of the slice: min over axes (n >= 2) of chips/n x (2 if the
// axis is a ring else 1). 0 for a single chip.
double bisection_links(const Torus& t);
// One-way bandwidth across that cut.
double bisection_bw(const Torus& t, double ici_bw_oneway_per_link);
// One-way bandwidth of n links used at once: n x W.  (A.10, A.12)
double links_bw(double links, double bw_per_link);
inline constexpr Formula kBisectionBw =
    record("BW_bisect", "n_links * W", "B_per_s", "A.10", "n_links W", kSymbols,
           [](const double* x) { return links_bw(x[0], x[1]); });
inline constexpr Formula kSendBw =
    record("BW_send", "n_ports * W", "B_per_s", "A.10", "n_ports W", kSymbols,
           [](const double* x) { return links_bw(x[0], x[1]); });
inline constexpr Formula kReceiveBw =
    record("BW_in", "n_in * W", "B_per_s", "A.12", "n_in W", kSymbols,
           [](const double* x) { return links_bw(x[0], x[1]); });
inline constexpr Formula kAxesBw =
    record("BW_axes", "n_axes * BW_ICI", "B_per_s", "B.8", "n_axes BW_ICI", kSymbols,
           [](const double* x) { return links_bw(x[0], x[1]); });

}  // namespace sb::tpus
