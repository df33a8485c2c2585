// Part 10's calculators: a sharded matmul under jax.jit (each device's blocks and the collective
// XLA inserts), a shard_map function's result on each device, and the collective matmul's
// timeline.
#include <cmath>
#include <string>
#include <vector>

#include "chapters/jax_stuff/model.hpp"
#include "chapters/tpus/torus.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

namespace sb::jax_stuff {

namespace {

namespace sh = sharding;

constexpr Param bw_given() {
  Param p =
      num("w_uni", "B_per_s", 0,
          "one-way bandwidth per link: 0 = the chip's ICI figure, else 1 B/s to 1e15 B/s", 0, 1e15);
  p.positive = false;
  return p;
}
constexpr Param hop_given() {
  Param p = num("t_hop", "s", tpus::kTypicalHopLatency, "latency per hop (about 1 us)", 0, 1);
  p.positive = false;
  return p;
}

double w_uni_of(const Inputs& in) {
  const double w = in.num("w_uni");
  if (w > 0 && w < 1)
    fail("w_uni", "0 takes the chip's figure; a bandwidth given is at least 1 B/s", "out_of_range");
  return w;
}

// The axes a text names: "x,y", "('x', 'y')", "x y"; empty for "" or "none".
std::vector<std::string> axis_list(const std::string& t) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : t + ",") {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      cur += c;
    } else if (!cur.empty()) {
      out.push_back(cur);
      cur.clear();
    }
  }
  if (out.size() == 1 && out[0] == "none") out.clear();
  return out;
}

// ------------------------------------------------------------------ jit

constexpr Param kJitParams[] = {
    chip_param(),
    text("mesh", "jax.make_mesh((4, 2), ('X', 'Y'))", "the mesh: axis sizes and names"),
    choice(
        "mode", "auto", "auto|explicit",
        "sharding mode, auto (jit on Auto axes, XLA chooses) or explicit (shardings in the types)"),
    text("einsum", "bd,df->bf", "the einsum the function runs (a matmul: one contracted letter)"),
    text("x_shape", "bf16[8,2048]", "first operand: dtype and global shape"),
    text("x_spec", "P('X', 'Y')", "its PartitionSpec"),
    text("w_shape", "bf16[2048,8192]", "second operand: dtype and global shape"),
    text("w_spec", "P('Y', None)", "its PartitionSpec"),
    text("out_spec", "P('X', None)",
         "the result's PartitionSpec; jit's out_shardings (Auto) or out_sharding= (Explicit); "
         "empty: none given"),
    bw_given(),
    hop_given(),
};

json local_json(const Local& l) {
  return {{"name", l.name},     {"notation", l.notation}, {"type", l.type},
          {"global", l.global}, {"local", l.local},       {"bytes", l.bytes}};
}

void jit_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& c = hw::chip(in.text("chip"));
  JitInput j;
  j.mesh = sh::parse_mesh(in.text("mesh"), "mesh");
  j.explicit_mode = in.text("mode") == "explicit";
  j.einsum = in.text("einsum");
  j.x = parse_array_type(in.text("x_shape"), "x_shape");
  j.w = parse_array_type(in.text("w_shape"), "w_shape");
  j.x_spec = sh::parse_partition_spec(in.text("x_spec"), "x_spec");
  j.w_spec = sh::parse_partition_spec(in.text("w_spec"), "w_spec");
  const std::string& out = in.text("out_spec");
  j.has_out = out.find_first_not_of(" \t") != std::string::npos;
  if (j.has_out) j.out = sh::parse_partition_spec(out, "out_spec");
  j.peak = peak_for(c, j.x.dtype, &tr);
  j.link = ici_link(c, w_uni_of(in), in.num("t_hop"), true);
  j.wrap = tpus::wraps(c, tpus::Dims(j.mesh.sizes.begin(), j.mesh.sizes.end()));
  tr.note("Mesh " + j.mesh.text() + " on " + c.name + ", " + std::to_string(j.mesh.devices()) +
          " devices");
  const JitResult x = jit_matmul(j, &tr);
  r.value("local_in_rows", x.x.local[0], "count", "In: rows on each device");
  r.value("local_in_cols", x.x.local.size() > 1 ? x.x.local[1] : 1, "count",
          "In: columns on each device");
  r.value("local_out_rows", x.out.local[0], "count", "Out: rows on each device");
  r.value("local_out_cols", x.out.local[1], "count", "Out: columns on each device");
  r.value("payload", x.payload, "B", "the collective's payload V");
  r.value("group", x.group, "count", "devices in its group");
  r.value("t_collective", x.t_collective, "s", "its time");
  r.value("flops", x.flops, "flop", "FLOPs per device");
  r.value("t_math", x.t_math, "s", "T_math per device");
  if (!x.explicit_note.empty()) r.note(x.explicit_note);
  r.extra["verdict"] = x.collective == "none"
                           ? "no collective"
                           : x.collective + " of " + units::format(x.payload, "B") + " over " +
                                 units::number(x.group, 6) + " devices";
  r.extra["collective"] = x.collective;
  r.extra["arrays"] = json::array({local_json(x.x), local_json(x.w), local_json(x.out)});
  r.extra["plan"] = x.plan.name;
}

// ------------------------------------------------------------------ shard_map

constexpr Param kShardMapParams[] = {
    text("mesh", "jax.make_mesh((2, 4), ('x', 'y'))", "the mesh: axis sizes and names"),
    count("n", 512, "length n of the array, x = arange(n)", {}, 1, 1e6),
    text("in_spec", "P(('x', 'y'))", "the PartitionSpec of x; shard_map's in_specs"),
    count("k", 4, "each device keeps its first k elements", {}, 1, 1024),
    choice("collective", "pmean", "pmean|psum|none", "what the function does with its slice"),
    text("reduce", "x, y", "the mesh axes the collective runs over"),
    text("out_spec", "P()", "the PartitionSpec of the result; shard_map's out_specs"),
};

void shard_map_calc(const Inputs& in, Trace& tr, Result& r) {
  ShardMapInput s;
  s.mesh = sh::parse_mesh(in.text("mesh"), "mesh");
  if (s.mesh.devices() > 256)
    fail("mesh", "this calculator lists every device, at most 256", "out_of_range");
  s.n = in.num("n");
  s.in_spec = sh::parse_partition_spec(in.text("in_spec"), "in_spec");
  s.k = in.num("k");
  const std::string op = in.text("collective");
  s.sum = op == "psum";
  if (op != "none") s.reduce = axis_list(in.text("reduce"));
  s.out_spec = sh::parse_partition_spec(in.text("out_spec"), "out_spec");
  const ShardMapResult m = shard_map_slice_mean(s, &tr);
  r.value("local_len", m.local_len, "count", "elements on each device");
  for (std::size_t j = 0; j < m.out.size() && j < 4; ++j)
    r.value(j == 0   ? "out_0"
            : j == 1 ? "out_1"
            : j == 2 ? "out_2"
                     : "out_3",
            m.out[j], "count",
            j == 0   ? "result, element 0"
            : j == 1 ? "element 1"
            : j == 2 ? "element 2"
                     : "element 3");
  r.value("out_len", static_cast<double>(m.out.size()), "count", "length of the global result");
  json devs = json::array();
  for (std::size_t d = 0; d < m.device_out.size(); ++d) devs.push_back(m.device_out[d]);
  r.extra["devices"] = std::move(devs);
  r.extra["mesh"] = {{"names", s.mesh.names}, {"sizes", s.mesh.sizes}};
  r.extra["out"] = m.out;
  r.extra["varies"] = m.varies;
}

// ------------------------------------------------------------------ the collective matmul

constexpr Param kCmParams[] = {
    chip_param(),
    choice("kind", "allgather", "allgather|reducescatter",
           "AllGather: A[B_X, D_Y] . W[D, F_Y]; ReduceScatter: Tmp[B_X, F_Y] . W2[F_Y, D]"),
    count("B", 1024, "B: batch rows", {}, 1, 1e7),
    count("D", 2048, "D: model width", {}, 1, 1e7),
    count("F", 8192, "F: hidden width", {}, 1, 1e7),
    count("X", 2, "X: devices along the batch axis", {}, 1, 1024),
    count("Y", 4, "Y: devices on the ring the matmul is split over", {}, 2, 1024),
    dtype_param("dtype", "bf16", "the operands' dtype"),
    choice("direction", "one-way", "one-way|bidirectional",
           "each block goes one way round the ring, or as two halves, one each way"),
    choice("wrap", "auto", "auto|ring|line",
           "wraparound on the Y ring: auto = the chip's rule for an X x Y slice"),
    bw_given(),
    hop_given(),
};

json timeline_json(const CmResult& x) {
  json steps = json::array();
  for (const auto& s : x.steps)
    steps.push_back({{"start", s.start},
                     {"compute", s.t_compute},
                     {"permute", s.t_permute},
                     {"length", s.length}});
  return {
      {"steps", std::move(steps)},
      {"t_cm", x.t_cm},
      {"naive", {{"collective", x.t_collective}, {"matmul", x.t_matmul}, {"total", x.t_naive}}}};
}

bool is_book_setup(const CmInput& c) {
  return c.kind == CmKind::AllGather && c.B == 1024 && c.D == 2048 && c.F == 8192 && c.X == 2 &&
         c.Y == 4;
}

void cm_calc(const Inputs& in, Trace& tr, Result& r) {
  const hw::Chip& c = hw::chip(in.text("chip"));
  CmInput m;
  m.kind = in.text("kind") == "reducescatter" ? CmKind::ReduceScatter : CmKind::AllGather;
  m.B = in.num("B");
  m.D = in.num("D");
  m.F = in.num("F");
  m.X = in.num("X");
  m.Y = in.num("Y");
  const std::string dt = in.text("dtype");
  m.s = hw::dtype_bytes(dt, "dtype");
  m.peak = peak_for(c, dt, &tr);
  m.bidirectional = in.text("direction") == "bidirectional";
  m.link = ici_link(c, w_uni_of(in), in.num("t_hop"), m.bidirectional);
  const std::string w = in.text("wrap");
  m.wrap = w == "auto" ? tpus::wraps(c, {static_cast<int>(std::min(m.X, 1e4)),
                                         static_cast<int>(std::min(m.Y, 1e4))})[1]
                       : w == "ring";
  const CmResult x = collective_matmul(m, &tr);
  r.value("t_cm", x.t_cm, "s", "collective matmul");
  r.value("t_naive", x.t_naive, "s", "collective, then matmul");
  r.value("speedup", x.speedup, "ratio", "overlapped against not");
  r.value("t_c", x.t_c, "s", "one step's matmul");
  r.value("t_p", x.t_p, "s", "one step's ppermute");
  r.value("block_bytes", x.block_bytes, "B", "bytes a ppermute moves");
  r.value("step_flops", x.step_flops, "flop", "FLOPs of one step");
  r.value("f_min", x.f_min, "count", "F/Y from which the ppermute hides");
  r.extra["verdict"] = x.hidden ? "the ppermutes hide behind the matmuls"
                                : "the ppermutes outlast the matmuls: communication-bound";
  r.extra["wrap"] = m.wrap;
  r.extra["timeline"] = timeline_json(x);
  if (!m.wrap)
    r.note("The Y ring has no wraparound here: the block that wraps round crosses Y - 1 hops.");
  if (is_book_setup(m))
    r.note(
        "The chapter measured this setup at 311 us under plain jit, 244 us as a collective "
        "matmul and 224 us with no sharded contraction, on int32 data (its code names a TPU "
        "v5e-8): measurements to compare against, not a bf16 roofline check.");
}

constexpr Calculator kJaxCalculators[] = {
    {.name = "jax-stuff.jit",
     .title = "Sharding in code: jax.jit on a sharded matmul",
     .doc = "A mesh, two arrays with their PartitionSpecs and an einsum: each device's blocks, "
            "the collective XLA inserts, its payload and group, and its time on the chip.",
     .params = kJitParams,
     // A search over the sharding chapter's plans, whose code would take the page's first module
     // past its budget: computed in the page's worker. Its run: add_heavy.
     .heavy = true},
    {.name = "jax-stuff.shard_map",
     .title = "shard_map: what each device returns",
     .doc = "arange(n) sharded by in_specs; each device keeps its first k elements and averages "
            "(or sums) them over mesh axes: each device's result and the global one.",
     .params = kShardMapParams,
     .run = shard_map_calc},
    {.name = "jax-stuff.collective_matmul",
     .title = "The collective matmul, step by step",
     .doc = "The matmul split over a ring of Y devices, each block's ppermute hidden behind the "
            "previous block's matmul, against the collective and the matmul one after the other.",
     .params = kCmParams,
     .run = cm_calc},
};

}  // namespace

void add_calculators(Registry& r) { r.add(kJaxCalculators); }
void add_heavy(Registry& r) { r.add_run("jax-stuff.jit", jit_calc); }

}  // namespace sb::jax_stuff
