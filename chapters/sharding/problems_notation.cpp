// The sharding chapter's problems on the notation, local shapes and memory (sharding.EX1, .PQ0,
// .PQ1, .EX2, .EX4, .Q1).
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "chapters/sharding/model.hpp"
#include "chapters/sharding/notation.hpp"
#include "chapters/sharding/problems.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

// Problems are written with designated initializers; the members left out keep their defaults,
// which is what this warning is about.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::sharding {
namespace {

constexpr double kEX1SizeI[] = {4, 8, 16};
constexpr double kEX1SizeJ[] = {64, 128, 256};
constexpr Param kEX1Given[] = {
    text("mesh", "Mesh(devices=((0, 1), (2, 3)), axis_names=('X', 'Y'))", "the device mesh"),
    text("sharding", "A[I_X, J_Y]", "how A is sharded"),
    count("size_I", 4, "global size of I", kEX1SizeI),
    count("size_J", 128, "global size of J", kEX1SizeJ)};
constexpr Slot kEX1Slots[] = {number("local_size_I", "count", "local size of I"),
                              number("local_size_J", "count", "local size of J"),
                              number("fraction_per_device", "ratio", "fraction of A per device")};
constexpr Problem kEX1{
    .id = "sharding.EX1",
    .title = "Local shape of a 2x2-sharded array",
    .statement =
        "Four devices form the mesh {mesh}. The array A has global shape ({size_I}, "
        "{size_J}) and is sharded as {sharding}. What shape does each device hold, and "
        "what fraction of A is that?",
    .kind = "numeric",
    .given = kEX1Given,
    .slots = kEX1Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Mesh m = parse_mesh(in.text("mesh"), "mesh");
          Sharding s = parse_sharding(in.text("sharding"), "sharding");
          LocalShape L =
              local_shape(s, m, {in.num("size_I"), in.num("size_J")}, 1, "sharding", &tr);
          tr.step("Share of $A$ each device holds: $r$ copies spread over $N$ devices", kShare,
                  {L.replication, L.devices});
          return Answers{{"local_size_I", L.local[0]},
                         {"local_size_J", L.local[1]},
                         {"fraction_per_device", L.fraction}};
        },
    .hint = "Divide each dimension by the size of the mesh axis in its subscript.",
};

constexpr double kPQ0SizeI[] = {512, 1024, 2048};
constexpr double kPQ0SizeJ[] = {2048, 4096, 8192};
constexpr Param kPQ0Given[] = {
    text("mesh", "{'X': 8, 'Y': 2}", "the device mesh"),
    text("sharding", "A[I_{XY}, J]", "how A is sharded"),
    dtype_param("dtype", "fp32", "element type"),
    count("size_I", 1024, "global size of I", kPQ0SizeI),
    count("size_J", 4096, "global size of J", kPQ0SizeJ),
    chip_param("h100", "the GPU"),
    chip_spec(rate("hbm_bw_Bps", "B_per_s", 3.4e12, "HBM bandwidth"), "hbm_bw")};
constexpr Slot kPQ0Slots[] = {
    number("local_size_I", "count", "local size of I"),
    number("bytes_per_device", "B", "bytes per device"),
    derived(number("hbm_load_time_s", "s", "time to read them from HBM"), From::Bytes)};
constexpr Problem kPQ0{
    .id = "sharding.PQ0",
    .title = "Per-device bytes and HBM load time",
    .statement =
        "An fp32 array A of shape ({size_I}, {size_J}) is sharded as {sharding} over the "
        "mesh {mesh} of {chip} GPUs. How many bytes does each device hold, and how long does "
        "reading them from HBM take at {hbm_bw_Bps}?",
    .kind = "numeric",
    .given = kPQ0Given,
    .slots = kPQ0Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Mesh m = parse_mesh(in.text("mesh"), "mesh");
          Sharding s = parse_sharding(in.text("sharding"), "sharding");
          const double bpe = hw::dtype_bytes(in.text("dtype"), "dtype");
          LocalShape L =
              local_shape(s, m, {in.num("size_I"), in.num("size_J")}, bpe, "sharding", &tr);
          const double bw = in.num("hbm_bw_Bps");
          const double t = tr.step("HBM read time: the bytes per device over the HBM bandwidth",
                                   roofline::kTComms, {L.bytes_per_device, bw});
          Answers a{{"local_size_I", L.local[0]},
                    {"bytes_per_device", L.bytes_per_device},
                    {"hbm_load_time_s", t}};
          a.book("hbm_load_time_s", roofline::t_comms(units::decimal_name(L.bytes_per_device), bw),
                 "reads " + units::decimal_name_text(L.bytes_per_device));
          return a;
        },
    .hint = "A two-axis subscript splits over |X| x |Y| devices; fp32 is 4 bytes.",
};

constexpr double kPQ1SizeI[] = {64, 128, 256};
constexpr double kPQ1SizeJ[] = {1024, 2048, 4096};
constexpr Param kPQ1Given[] = {text("mesh", "Mesh({'X': 2, 'Y': 8, 'Z': 2})", "the device mesh"),
                               text("sharding", "A[I_{XY}, J]", "how A is sharded"),
                               dtype_param("dtype", "int8", "element type"),
                               count("size_I", 128, "global size of I", kPQ1SizeI),
                               count("size_J", 2048, "global size of J", kPQ1SizeJ)};
constexpr Slot kPQ1Slots[] = {number("local_size_I", "count", "local size of I"),
                              number("bytes_per_device", "B", "bytes per device"),
                              number("copies_of_array", "count", "complete copies of A"),
                              number("total_bytes_all_devices", "B", "bytes over all devices")};
constexpr Problem kPQ1{
    .id = "sharding.PQ1",
    .title = "Memory of a partially replicated array",
    .statement =
        "An int8 array A of shape ({size_I}, {size_J}) is sharded as {sharding} on the "
        "mesh {mesh}. How many bytes does each device hold, how many full copies of A "
        "exist, and how many bytes does the whole mesh store?",
    .kind = "numeric",
    .given = kPQ1Given,
    .slots = kPQ1Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Mesh m = parse_mesh(in.text("mesh"), "mesh");
          Sharding s = parse_sharding(in.text("sharding"), "sharding");
          LocalShape L = local_shape(s, m, {in.num("size_I"), in.num("size_J")},
                                     hw::dtype_bytes(in.text("dtype"), "dtype"), "sharding", &tr);
          trace_copies(s, m, L, tr);
          return Answers{{"local_size_I", L.local[0]},
                         {"bytes_per_device", L.bytes_per_device},
                         {"copies_of_array", L.replication},
                         {"total_bytes_all_devices", L.total_bytes}};
        },
    .hint = "An axis no dimension uses means a full copy along it.",
};

constexpr Param kEX2Given[] = {
    text("mesh",
         "jax.make_mesh(axis_shapes=(4, 2), axis_names=('X', 'Y'), axis_types=(Auto, "
         "Auto))",
         "the mesh"),
    text("sharding_A", "A[B_X, D_Y]", "sharding of A (PartitionSpec('X', 'Y'))"),
    text("sharding_B", "B[D, F_Y]", "sharding of B (PartitionSpec(None, 'Y'))"),
    text("shape_A", "(8, 2048)", "global shape of A"),
    text("shape_B", "(2048, 8192)", "global shape of B")};
constexpr Slot kEX2Slots[] = {number("A_local_rows", "count", "rows of A per device"),
                              number("A_local_cols", "count", "columns of A per device"),
                              number("B_local_rows", "count", "rows of B per device"),
                              number("B_local_cols", "count", "columns of B per device")};
constexpr Problem kEX2{
    .id = "sharding.EX2",
    .title = "Local shard shapes in the JAX example",
    .statement =
        "The code sample builds the mesh {mesh} over 8 devices and places A {shape_A} "
        "as {sharding_A} and B {shape_B} as {sharding_B}, in bf16. What shape does "
        "each device hold of A and of B?",
    .kind = "numeric",
    .given = kEX2Given,
    .slots = kEX2Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Mesh m = parse_mesh(in.text("mesh"), "mesh");
          Sharding a = parse_sharding(in.text("sharding_A"), "sharding_A");
          Sharding b = parse_sharding(in.text("sharding_B"), "sharding_B");
          tr.note(
              "The axis types (Auto) only let XLA choose intermediate shardings; shard shapes "
              "do not change.");
          LocalShape La =
              local_shape(a, m, shape_of(in.text("shape_A"), "shape_A"), 2, "sharding_A", &tr);
          LocalShape Lb =
              local_shape(b, m, shape_of(in.text("shape_B"), "shape_B"), 2, "sharding_B", &tr);
          return Answers{{"A_local_rows", La.local[0]},
                         {"A_local_cols", La.local[1]},
                         {"B_local_rows", Lb.local[0]},
                         {"B_local_cols", Lb.local[1]}};
        },
};

constexpr Param kEX4Given[] = {text("mesh", "Mesh({'X': 4, 'Y': 8})", "the mesh"),
                               text("sharding", "A[I_{XY}, J]", "the sharding")};
constexpr Slot kEX4Slots[] = {number("shards_of_I", "count", "pieces of I")};
constexpr Problem kEX4{
    .id = "sharding.EX4",
    .title = "Ways a two-axis subscript splits",
    .statement =
        "On the mesh {mesh}, into how many pieces does {sharding} cut its first dimension?",
    .kind = "numeric",
    .given = kEX4Given,
    .slots = kEX4Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Mesh m = parse_mesh(in.text("mesh"), "mesh");
          Sharding s = parse_sharding(in.text("sharding"), "sharding");
          validate(s, m, "sharding");
          return Answers{{"shards_of_I", trace_shards(s.dims[0], m, tr)}};
        },
};

constexpr Param kQ1Given[] = {text("mesh", "Mesh({'X': 4, 'Y': 8, 'Z': 2})", "the mesh"),
                              text("sharding", "A[I_X, J, K, ...]", "the sharding")};
constexpr Slot kQ1Slots[] = {number("total_to_one_copy_ratio", "ratio", "total memory / one copy")};
constexpr Problem kQ1{
    .id = "sharding.Q1",
    .title = "Replication factor of a one-axis sharding",
    .statement =
        "A is sharded as {sharding} on the mesh {mesh}. How many times the size of one "
        "copy of A does the whole mesh store?",
    .kind = "numeric",
    .given = kQ1Given,
    .slots = kQ1Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Mesh m = parse_mesh(in.text("mesh"), "mesh");
          Sharding s = parse_sharding(in.text("sharding"), "sharding");
          validate(s, m, "sharding");
          const double r = trace_replication(s, m, tr);
          tr.note(
              "Each device holds $1/|X|$ of $A$ and there are $N$ devices, so the mesh stores "
              "$N/|X| = r$ copies.");
          return Answers{{"total_to_one_copy_ratio", r}};
        },
    .hint = "Count the axes the sharding leaves unused.",
};

constexpr Problem kNotation[] = {kEX1, kPQ0, kPQ1, kEX2, kEX4, kQ1};

}  // namespace

void add_problems_notation(Registry& r) { r.add(kNotation); }

}  // namespace sb::sharding
