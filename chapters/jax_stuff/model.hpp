// Part 10, "Programming TPUs in JAX": the book's sharded arrays as JAX code writes them (meshes,
// PartitionSpecs, dtypes), what jax.jit makes of a sharded matmul (each device's blocks and the
// collective XLA inserts), what a shard_map function returns on each device, and the collective
// matmul as a timeline of steps. Quantities are doubles in SI base units; section labels (A.5 ...)
// refer to our chapter notes (shared/book/profiling-jax.md).
//
// The formulas are mostly earlier chapters': local sizes, gathers, hops and collective times are
// sharding::'s records, a matmul's FLOPs and T_math roofline::'s. The chapter gives its collective
// matmul as measurements only; the few formulas that time it step by step are records below,
// marked "beyond the book" with where they come from.
#pragma once
#include <string>
#include <vector>

#include "chapters/roofline/model.hpp"
#include "chapters/sharding/model.hpp"
#include "core/formula.hpp"
#include "core/hardware.hpp"
#include "core/trace.hpp"

namespace sb::jax_stuff {

using sharding::Mesh;
using sharding::PartitionSpec;
using sharding::Sharding;

inline constexpr Symbol kSymbols[] = {
    whole("n_loc", "count", 1, 1e9, "elements each device holds"),
    whole("G", "count", 1, 1e4, "devices the mean runs over"),
    whole("j", "count", 0, 1e6, "index of an element within the slice"),
    whole("N", "count", 2, 1e4, "devices on the ring (the mesh axis the matmul is split over)"),
    with_tex(sym("T_c", "s", 1e-9, 10, "one step's matmul"), "T_{c}"),
    with_tex(sym("T_p", "s", 1e-9, 10, "one step's ppermute"), "T_{p}"),
    sym("V", "B", 1, 1e15, "bytes of the gathered operand"),
    sym("W_uni", "B_per_s", 1e6, 1e14, "one-way bandwidth of one link"),
    sym("s", "B", 0.5, 8, "bytes per element"),
    sym("C", "flop_per_s", 1e9, 1e17, "FLOPs/s of the chip"),
    sym("T_naive", "s", 1e-9, 10, "the gather (or scatter) and the matmul one after the other"),
    sym("T_cm", "s", 1e-9, 10, "the collective matmul"),
};

// ------------------------------------------------------------------ arrays as JAX writes them

// An array's dtype and global shape, as JAX prints it: "bf16[8,2048]", "float32[8, 2]",
// "bfloat16[2048, 8192]", "int32[512]".
struct ArrayType {
  std::string dtype;  // as typed, lower case
  double bytes = 2;   // per element
  std::vector<double> dims;
};
ArrayType parse_array_type(Text text, Text field);
// The dtype's name in the hardware tables ("bf16", "fp32", "int8"), "" where none.
std::string table_dtype(const std::string& dtype);

// Explicit mode's type of a sharded array (A.5): "bfloat16[8@X,2048@Y]", "float32[8@X,2]".
std::string typeof_text(const ArrayType& a, const Sharding& s);

// ------------------------------------------------------------------ jax.jit of a sharded matmul

struct JitInput {
  Mesh mesh;
  std::string einsum = "bd,df->bf";  // the einsum the jitted function runs
  ArrayType x, w;
  PartitionSpec x_spec, w_spec;  // the inputs' shardings
  PartitionSpec out;             // the out_shardings (or out_sharding=) spec
  bool has_out = true;
  bool explicit_mode = false;
  double peak = 0;  // FLOPs/s of the chip for the dtype
  sharding::Link link;
  std::vector<bool> wrap;  // per mesh axis
};

struct Local {
  std::string name, notation, type;  // "In", "In[B_X, D_Y]", "bfloat16[8@X,2048@Y]"
  std::vector<double> global, local;
  double bytes = 0;  // per device
};

struct JitResult {
  Local x, w, out;
  sharding::Plan plan;  // the plan XLA's result follows: its collectives and their costs
  std::string collective = "none";  // the collective after the matmul (or before it)
  double payload = 0;               // its V, bytes
  double group = 1;                 // devices in its group
  double t_collective = 0;
  double flops = 0, t_math = 0;  // per device
  std::string out_sharding;      // of the result
  std::string explicit_note;     // Explicit mode: what the typed trace says
};

// The dims of "bd,df->bf": each operand's letters, upper case, and the output's. InputError
// naming `field` unless it is a two-operand einsum with one letter per dimension.
struct Einsum {
  std::vector<std::string> x, w, out;
};
Einsum parse_einsum(Text text, Text field);

// What jit (Auto) or the typed trace (Explicit) makes of the matmul (A.7, A.7b): the sharding
// chapter's plan whose output is the out spec (A3's cases, costed with A4's collectives), each
// array's local block, and the collective with its payload and group. Explicit mode with the
// contracting dimension sharded on both sides and no out spec is the book's trace-time error,
// an InputError naming "out_spec". Errors name the field of the text at fault.
JitResult jit_matmul(const JitInput& in, Trace* tr);

// ------------------------------------------------------------------ shard_map (A.8)

// The mean of the first `k` elements of each device's block of arange(n) sharded over `axes`, taken
// over the devices of `reduce` (pmean; psum when `sum`). Element j of the result: the mean over
// the group of (block index) n_loc + j. On the whole group of G blocks 0..G-1 it is
// n_loc (G - 1) / 2 + j (beyond the book: the mean of arange's blocks, the chapter's
// slice_and_average).
double arange_block_mean(double n_loc, double G, double j);
inline constexpr Formula kArangeMean =
    record("out_j", "n_loc * (G - 1) / 2 + j", "count",
           "beyond the book: A.8's slice_and_average, the mean of arange's G blocks", "n_loc G j",
           kSymbols, [](const double* x) { return arange_block_mean(x[0], x[1], x[2]); });

struct ShardMapInput {
  Mesh mesh;
  double n = 512;             // arange(n)
  std::string n_field = "n";  // the inputs n, in_spec and k come from, for their errors
  std::string spec_field = "in_spec";
  std::string k_field = "k";
  PartitionSpec in_spec;            // of the 1-D array
  double k = 4;                     // each device keeps its first k local elements
  std::vector<std::string> reduce;  // pmean/psum over these axes (empty: none)
  bool sum = false;                 // psum instead of pmean
  PartitionSpec out_spec;           // of the result
};
struct ShardMapResult {
  double local_len = 0;
  std::vector<std::vector<double>> device_out;  // per device (mesh order), k values
  std::vector<double> out;                      // the global result
  std::vector<std::string> varies;              // axes the result differs along
};
// Each device's block, its slice and the collective's result (A.8); the global output laid out by
// out_specs. InputError naming "out_spec" when it leaves out an axis the result varies along
// (shard_map's check), "k" past the local length, "in_spec" for a spec over more than one dim.
ShardMapResult shard_map_slice_mean(const ShardMapInput& in, Trace* tr);

// ------------------------------------------------------------------ the collective matmul (A.6)

// A.6's timing of the overlapped matmul (beyond the book: Part 10 gives only measurements; the
// timing is Parts 1 and 3's, step by step): N - 1 steps that each take the longer of a block's
// matmul and its ppermute, and one last matmul with nothing left to send.
double collective_matmul_time(double n, double t_c, double t_p);
inline constexpr Formula kCollectiveMatmul = record(
    "T_cm", "(N - 1) * max(T_c, T_p) + T_c", "s",
    "beyond the book: A.6's timing model, N - 1 overlapped steps and a last matmul", "N T_c T_p",
    kSymbols, [](const double* x) { return collective_matmul_time(x[0], x[1], x[2]); });
// With both directions each block goes as two halves, one each way: a hop moves V / (2 N).
double half_hop_time(double V, double n, double w_uni);
inline constexpr Formula kHalfHop =
    record("T_p", "V / (2 * N * W_uni)", "s",
           "beyond the book: A.6's two-way variant (Question 4), half a block each way",
           "V N W_uni", kSymbols, [](const double* x) { return half_hop_time(x[0], x[1], x[2]); });
// The ppermute hides behind the matmul once F/N >= s C / (2 W_uni) (A.6), one way ...
double hidden_width(double s, double C, double w_uni);
inline constexpr Formula kHiddenWidth =
    record("F_min", "s * C / (2 * W_uni)", "count",
           "beyond the book: A.6's condition T_c >= T_p, solved for F / N", "s C W_uni", kSymbols,
           [](const double* x) { return hidden_width(x[0], x[1], x[2]); });
// ... and at half that with both directions.
double hidden_width_bidi(double s, double C, double w_uni);
inline constexpr Formula kHiddenWidthBidi =
    record("F_min", "s * C / (4 * W_uni)", "count",
           "beyond the book: A.6's condition with half a block each way", "s C W_uni", kSymbols,
           [](const double* x) { return hidden_width_bidi(x[0], x[1], x[2]); });
// How much faster the overlapped version runs.
double speedup(double t_naive, double t_cm);
inline constexpr Formula kSpeedup =
    record("r", "T_naive / T_cm", "ratio", "beyond the book: A.6, the two timings compared",
           "T_naive T_cm", kSymbols, [](const double* x) { return speedup(x[0], x[1]); });

inline constexpr const Formula* kFormulas[] = {&kArangeMean,  &kCollectiveMatmul, &kHalfHop,
                                               &kHiddenWidth, &kHiddenWidthBidi,  &kSpeedup};

enum class CmKind { AllGather, ReduceScatter };

struct CmInput {
  CmKind kind = CmKind::AllGather;
  // AllGather: A[B_X, D_Y] *_D W[D, F_Y] -> Out[B_X, F_Y];
  // ReduceScatter: Tmp[B_X, F_Y] *_F W2[F_Y, D] -> Out[B_X, D_Y].
  double B = 1024, D = 2048, F = 8192;
  double X = 2, Y = 4;
  double s = 2;     // bytes per element
  double peak = 0;  // FLOPs/s
  sharding::Link link;
  bool wrap = true;            // the Y ring has its wraparound link
  bool bidirectional = false;  // each block goes as two halves, one each way
};
struct CmStep {
  double start = 0, t_compute = 0, t_permute = 0, length = 0;
};
struct CmResult {
  double block_bytes = 0;  // the block a ppermute moves: s (B/X)(D/Y)
  double step_flops = 0;   // 2 (B/X)(D/Y)(F/Y)
  double t_c = 0, t_p = 0;
  std::vector<CmStep> steps;
  double t_cm = 0;
  double t_collective = 0, t_matmul = 0, t_naive = 0;  // the non-overlapped version
  double f_min = 0;                                    // F / Y at which the permute hides
  bool hidden = false;
  double speedup = 0;
};
// The overlapped matmul step by step and the plain one (the collective, then one matmul), with
// their derivation. Y >= 2; every shape divides (InputError naming B, D, F, X or Y).
CmResult collective_matmul(const CmInput& in, Trace* tr);

// The link of a calculator or problem: the chip's ICI unless `w_uni` (B/s) is given; a GPU has
// no ICI ring in the book's sense (InputError naming "chip" unless w_uni is given).
sharding::Link ici_link(const hw::Chip& c, double w_uni, double t_hop, bool bidirectional);
// FLOPs/s for a dtype: its peak in the tables, else the bf16 peak (with a note in the trace).
double peak_for(const hw::Chip& c, const std::string& dtype, Trace* tr);

}  // namespace sb::jax_stuff
