// Part 9: HLO text as XLA prints it (`jax.jit(f).lower(...).compile().as_text()`, a profiler's op
// line, a dump): one instruction, a computation, or a whole module. The reader is a pure function
// of the text. It never throws on a module and never crashes (fuzz/fuzz_hlo.cpp): a line it cannot
// read goes to `skipped` with its line number and a reason naming the column, never guessed.
// What the text does not say (a group size with empty replica_groups and no device count, the
// FLOPs of a fusion whose computation is not pasted) stays unknown.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sb::profiling::hlo {

// An array or tuple shape with its layout: f32[3,5]{1,0:T(2,2)S(1)}.
struct Shape {
  std::string dtype;                        // "bf16", "pred", "tuple", "token"
  std::vector<int64_t> dims;                // logical dims, major first as printed
  std::vector<int> minor_to_major;          // the layout's dims, most minor first; empty: none
  std::vector<std::vector<int64_t>> tiles;  // T(8,128)(2,1): {{8,128},{2,1}}
  int memory_space = 0;                     // S(n); 0 (HBM) when not printed
  std::vector<Shape> elements;              // a tuple's
  bool tuple() const { return dtype == "tuple"; }
};

// Bits of one element of a dtype (pred 8, s4 4, bf16 16, c128 128, token 0); nullopt if the
// text names no HLO dtype.
std::optional<int> dtype_bits(std::string_view dtype);

double elements(const Shape& s);       // product of the dims (1 for a scalar); 0 for a tuple
double logical_bytes(const Shape& s);  // elements x bits / 8, summed over a tuple's elements
// The dims in memory order (major first) after each level of the layout's tiles pads the minor
// dims up to a multiple of the tile's (a tile longer than the shape pads leading dims of 1).
std::vector<int64_t> padded_dims(const Shape& s);
double padded_bytes(const Shape& s);  // the padded dims' elements x bits / 8; tuples summed

// Parses "f32[3,5]{1,0:T(2,2)}" (the older "{1,0,T(2,2)}" too); throws InputError naming
// `field` and the column of the first character it cannot read.
Shape parse_shape(std::string_view text, std::string_view field);

enum class Collective { None, AllGather, ReduceScatter, AllReduce, AllToAll, Permute };
const char* collective_name(Collective c);  // "all-gather", ...; "" for None

// One instruction read, with what the chapter derives from it.
struct Instruction {
  int line = 0;  // 1-based
  std::string name, opcode, computation;
  bool root = false;
  Shape shape;                        // the result
  std::vector<Shape> operand_shapes;  // printed, or looked up by name; empty dtype when unknown
  std::vector<std::string> operands;  // names, without '%'
  std::string fusion_kind, calls;     // fusion: kind=kLoop ..., calls=%comp (first of calls=)
  std::optional<double> flops;        // nullopt: the text does not say (a fusion not pasted)
  Collective collective = Collective::None;
  std::optional<double> payload_bytes;  // collectives (the conventions)
  std::optional<int> group_size;        // nullopt: empty groups and no device count given
  int pairs = 0;                        // collective-permute's source-target pairs
  bool counted = true;       // adds to the step: false inside fused and reducer computations, and
                             // for an async pair's -done/-update half
  double traffic_bytes = 0;  // HBM bytes at the op's boundary: operands + result outside S(1)
  std::vector<std::string> notes;
};

struct Skipped {
  int line = 0;
  std::string reason;  // names the column
};

struct Module {
  std::string name;  // from the HloModule line; empty for a pasted fragment
  std::vector<Instruction> instructions;
  std::vector<Skipped> skipped;
  int computations = 0;
};

// Reads `text`. `devices` is the group size taken where replica_groups is empty ({}: all
// devices).
Module parse(std::string_view text, std::optional<int> devices = std::nullopt);

}  // namespace sb::profiling::hlo
