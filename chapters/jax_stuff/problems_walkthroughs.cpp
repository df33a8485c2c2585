// The chapter's walkthroughs: jit on a sharded matmul (W0), shard_map's slice_and_average (E1)
// and the collective matmul (W1).
#include <string>

#include "chapters/jax_stuff/problems.hpp"
#include "chapters/sharding/literal.hpp"
#include "chapters/tpus/torus.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"

// Problems are written with designated initializers; the members left out keep their defaults,
// which is what this warning is about.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::jax_stuff {
namespace {

namespace sh = sharding;

// ------------------------------------------------------------------ W0

constexpr double kW0Bytes[] = {2, 4};
constexpr Param kW0Given[] = {
    text("mesh", "4x2", "the mesh's shape"),
    text("axes", "('X','Y')", "its axis names"),
    text("in_shape", "bf16[8,2048]", "In"),
    text("in_spec", "P('X','Y')", "In's PartitionSpec"),
    text("w_shape", "bf16[2048,8192]", "W"),
    text("w_spec", "P('Y', None)", "W's PartitionSpec"),
    text("out_spec", "P('X', None)", "out_shardings"),
    given("bytes_per_elem", "B", 2, "bytes per element", kW0Bytes, false, 8),
};
constexpr Slot kW0Slots[] = {
    number("local_in_rows", "count", "rows of In on each device"),
    number("local_in_cols", "count", "columns of In on each device"),
    number("local_out_rows", "count", "rows of the result on each device"),
    number("local_out_cols", "count", "columns of the result on each device"),
    number("allreduce_group_size", "count", "devices in the AllReduce's group"),
};

Answers w0_solve(const Inputs& in, Trace& tr) {
  const hw::Chip& c = hw::chip("v5e");
  JitInput j;
  j.mesh = mesh_of(in.text("mesh"), in.text("axes"));
  j.x = parse_array_type(in.text("in_shape"), "in_shape");
  j.w = parse_array_type(in.text("w_shape"), "w_shape");
  j.x.bytes = j.w.bytes = in.num("bytes_per_elem");
  j.x_spec = sh::parse_partition_spec(in.text("in_spec"), "in_spec");
  j.w_spec = sh::parse_partition_spec(in.text("w_spec"), "w_spec");
  j.out = sh::parse_partition_spec(in.text("out_spec"), "out_spec");
  j.peak = c.peak("bf16");
  j.link = ici_link(c, 0, tpus::hop_latency(c), true);
  j.wrap = tpus::wraps(c, tpus::Dims(j.mesh.sizes.begin(), j.mesh.sizes.end()));
  tr.note("Times on a TPU v5e for scale: the walkthrough ran on 8 CPU devices.");
  JitResult x;
  try {
    x = jit_matmul(j, &tr);
  } catch (const InputError& e) {
    // jit_matmul names the calculator's inputs; this problem calls the first operand In.
    std::string f = e.field == "x_shape" ? "in_shape" : e.field == "x_spec" ? "in_spec" : e.field;
    const bool given = f == "in_shape" || f == "in_spec" || f == "w_shape" || f == "w_spec" ||
                       f == "out_spec" || f == "mesh" || f == "axes";
    fail(given ? f : "in_shape", e.what(), e.code);
  }
  tr.note("XLA inserts " + x.collective + " over " + std::to_string(static_cast<int>(x.group)) +
          " devices: $" + sh::sharding_tex(x.plan.out.text()) + "$ on every device.");
  Answers a{{"local_in_rows", x.x.local[0]},
            {"local_in_cols", x.x.local[1]},
            {"local_out_rows", x.out.local[0]},
            {"local_out_cols", x.out.local[1]},
            {"allreduce_group_size", x.group}};
  return a;
}

constexpr Problem kW0{
    .id = "jax-stuff.W0",
    .title = "What jit does for a sharded matmul",
    .statement =
        "On a {mesh} mesh with axes {axes}, In = {in_shape} is placed with {in_spec} and "
        "W = {w_shape} with {w_spec}; a jitted einsum('bd,df->bf', In, W) asks for "
        "out_shardings {out_spec}. What block of In does each device hold, what block of "
        "the result, and over how many devices does the AllReduce that XLA inserts run?",
    .kind = "numeric",
    .given = kW0Given,
    .slots = kW0Slots,
    .solve = w0_solve,
    .hint =
        "Divide each dimension by the sizes of the mesh axes its spec names; the contraction "
        "over D leaves partial sums along the axis that shards D.",
};

// ------------------------------------------------------------------ E1

constexpr Text kE1Arrays[] = {"arange(256, int32)", "arange(512, int32)", "arange(1024, int32)"};
constexpr double kE1Slice[] = {2, 4, 8};
constexpr Param kE1Given[] = {
    text("mesh", "2x4", "the mesh's shape (axes x, y)"),
    with_texts(text("array", "arange(512, int32)", "the array"), kE1Arrays),
    text("spec", "P(('x','y'))", "in_specs"),
    count("slice_len", 4, "elements each device keeps", kE1Slice, 1, 64),
    count("n_devices", 8, "devices", {}, 1, 4096),
};
constexpr Slot kE1Slots[] = {
    number("local_len", "count", "elements on each device"),
    number("out_0", "count", "result, element 0"),
    number("out_1", "count", "result, element 1"),
    number("out_2", "count", "result, element 2"),
    number("out_3", "count", "result, element 3"),
};

// n of "arange(n, int32)" or "jnp.arange(0, n, dtype=jnp.int32)".
double arange_length(const std::string& t) {
  sh::Val v;
  try {
    v = sh::read_literal(t, "array");
  } catch (const InputError& e) {  // the reader speaks of a mesh, the spelling it reads first
    fail("array", "write it as arange(n, int32); " + std::string(e.what()), "bad_array");
  }
  auto whole = [](const sh::Val& x) {
    return x.kind == sh::Val::Int && x.i >= 1 && x.i <= 1000000;
  };
  if (v.kind != sh::Val::Call || v.s.find("arange") == std::string::npos || v.items.empty())
    fail("array", "write it as arange(n, int32)", "bad_array");
  const sh::Val& n = v.items.size() >= 2 && whole(v.items[1]) ? v.items[1] : v.items[0];
  if (!whole(n)) fail("array", "the length must be a whole number from 1 to 1e6", "bad_array");
  if (v.items.size() >= 2 && whole(v.items[1]) && v.items[0].i != 0)
    fail("array", "arange(start, stop) must start at 0", "bad_array");
  return static_cast<double>(n.i);
}

Answers e1_solve(const Inputs& in, Trace& tr) {
  ShardMapInput s;
  s.mesh = mesh_of(in.text("mesh"), "x, y");
  if (static_cast<double>(s.mesh.devices()) != in.num("n_devices"))
    fail("n_devices",
         "the mesh " + s.mesh.text() + " has " + std::to_string(s.mesh.devices()) + " devices",
         "bad_mesh");
  s.n = arange_length(in.text("array"));
  s.n_field = "array";
  s.spec_field = "spec";
  s.in_spec = sh::parse_partition_spec(in.text("spec"), "spec");
  s.k = in.num("slice_len");
  s.k_field = "slice_len";
  if (s.k < 4) fail("slice_len", "the problem asks for 4 elements, so at least 4", "out_of_range");
  s.reduce = s.mesh.names;
  s.out_spec = sh::parse_partition_spec("P()", "out_spec");
  const ShardMapResult r = shard_map_slice_mean(s, &tr);
  return Answers{{"local_len", r.local_len},
                 {"out_0", r.out[0]},
                 {"out_1", r.out[1]},
                 {"out_2", r.out[2]},
                 {"out_3", r.out[3]}};
}

constexpr Problem kE1{
    .id = "jax-stuff.E1",
    .title = "Output of the slice_and_average example",
    .statement =
        "x = {array} is sharded over a {mesh} mesh with {spec}, "
        "{n_devices} devices. In shard_map each device keeps its first {slice_len} "
        "elements and takes pmean over both axes, with out_specs P(). How many elements "
        "does each device hold, and what are the first four elements of the result?",
    .kind = "numeric",
    .given = kE1Given,
    .slots = kE1Slots,
    .solve = e1_solve,
    .hint =
        "Device d holds x[d n_loc : (d+1) n_loc]; element j of the mean is the average of "
        "d n_loc + j over the devices.",
};

// ------------------------------------------------------------------ W1

constexpr Slot kW1Slots[] = {
    number("local_a_rows", "count", "rows of A on each device"),
    number("local_a_cols", "count", "columns of A on each device"),
    number("step_flops", "flop", "FLOPs of one step's matmul"),
    number("permute_bytes", "B", "bytes one ppermute moves"),
    number("t_collective_s", "s", "predicted time of the collective matmul"),
    number("t_naive_s", "s", "predicted time of AllGather then matmul"),
};

Answers w1_solve(const Inputs& in, Trace& tr) {
  const CmInput c = cm_of(in, CmKind::AllGather, false);
  const CmResult r = collective_matmul(c, &tr);
  tr.note(
      "The chapter measured 311 us (jit), 244 us (collective) and 224 us (unsharded "
      "contraction) on int32 data: measurements, not a bf16 roofline check.");
  return Answers{{"local_a_rows", c.B / c.X},  {"local_a_cols", c.D / c.Y},
                 {"step_flops", r.step_flops}, {"permute_bytes", r.block_bytes},
                 {"t_collective_s", r.t_cm},   {"t_naive_s", r.t_naive}};
}

constexpr Problem kW1{
    .id = "jax-stuff.W1",
    .title = "AllGather collective matmul with ppermute",
    .statement =
        "Write A[B_X, D_Y] . W[D, F_Y] -> Out[B_X, F_Y] with B = {B}, D = {D}, F = {F} "
        "on a {mesh} mesh {axes} as a shard_map whose ppermutes overlap the matmuls, and "
        "check it against the jitted matmul. The checker takes the numbers you can "
        "predict on a {chip} in {dtype}: each device's block of A, one step's FLOPs and "
        "ppermute bytes, and the two times.",
    .kind = "code",
    .given = kCmGiven,
    .slots = kW1Slots,
    .solve = w1_solve,
    .model_answer =
        "Inside shard_map each device starts with its own column block of A, D/Y wide, and its "
        "rows of W are the whole D. Keep a running output of zeros (marked as varying per device). "
        "At step i the block in hand came from device (my index + i) mod Y, so multiply it by "
        "the matching D/Y rows of the local W and add to the output; then pass the block to the "
        "neighbour on one side with ppermute while the next multiply runs. After Y - 1 passes "
        "the last block is multiplied with nothing left to send. Compare with the plain jitted "
        "einsum on the same inputs (they agree to rounding) and time both.",
};

constexpr Problem kWalkthroughs[] = {kW0, kE1, kW1};

}  // namespace

void add_problems_walkthroughs(Registry& r) { r.add(kWalkthroughs); }

}  // namespace sb::jax_stuff
