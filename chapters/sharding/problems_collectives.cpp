// The sharding chapter's problems on the collectives and their cost on ICI tori (sharding.EX3,
// .EX5, .PQ2, .Q2, .Q3, .EX6).
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

// Pop Quiz 2: the same gather with a large and a tiny array.
void pq2_solve(const Inputs& in, Trace& tr, Answers& a) {
  Mesh m = parse_mesh(in.text("mesh"), "mesh");
  Sharding s = parse_sharding(in.text("sharding"), "sharding");
  const std::vector<double> sizes = {in.num("size_E"), in.num("size_F")};
  const double bpe = hw::dtype_bytes(in.text("dtype"), "dtype");
  const double shard = local_shape(s, m, sizes, bpe, "sharding", &tr).bytes_per_device;
  const std::vector<std::string> gax = s.dims.at(0).axes;  // the gather removes E's subscript
  if (gax.empty())
    fail("sharding", "the first dimension must be sharded for the gather to move anything");
  const double V = gather_volume(shard, m, gax, &tr);
  const Link l = link_of(in.num("w_uni_Bps"), in.num("t_min_s"));
  std::vector<bool> wraps = chip_wraps(in.text("chip"), m);
  const std::vector<Axis> wired = axes_of(m, gax, wraps);
  tr.note("Axis " + axes_text(gax) +
          (wired[0].wrap ? " wraps on this chip: " : " has no wraparound on this chip: ") +
          tpus::wrap_rule(hw::chip(in.text("chip"))).text + ".");
  std::vector<bool> ring(wraps.size(), true);
  CollectiveCost full =
      collective_cost(Op::AllGather, V, axes_of(m, gax, ring), l, &tr, "ideal ring");
  CollectiveCost real = collective_cost(Op::AllGather, V, wired, l, &tr, "as wired");
  a["shard_bytes"] = shard;
  a["total_bytes"] = V;
  a["t_full_ring_s"] = full.t;
  // The book rounds the gathered bytes to 2 digits (34 MB) and divides those.
  const double vr = units::round_sig(V, 2);
  a.book("t_full_ring_s",
         collective_cost(Op::AllGather, vr, axes_of(m, gax, ring), l, nullptr, "").t,
         "rounds V to " + units::format(vr, "B") + " first");
  // An open line taken for a ring, and N shards counted where N-1 travel.
  if (!wired[0].wrap) {
    const double n = wired[0].size;
    a.slip("t_open_line_s", full.t,
           "That is the ideal-ring time: without wraparound the far device takes N-1 shards "
           "through one link, one way, 2(N-1)/N = " +
               units::number(2 * (n - 1) / n, 3) + " times the ring's time here.");
    a.slip("t_open_line_s", collective_time(roofline::t_comms(V, l.w_uni), real.t_lat),
           "That counts N shards through the far device's link; it already holds its own, so "
           "N-1 arrive.");
  }
  // The shard called by its decimal name (32 KiB as 32 kB), as the book computes with it.
  a.book("shard_bytes", units::decimal_name(shard), "writes " + units::decimal_name_text(shard));
  a.book("per_hop_transfer_s", roofline::t_comms(units::decimal_name(shard), l.w_uni),
         "computes with " + units::decimal_name_text(shard));
  a["latency_term_s"] = real.t_lat;
  a["t_open_line_s"] = real.t;
  a["per_hop_transfer_s"] = tr.step("Per-hop transfer of one shard, $V/N$", kHopTime,
                                    {V, shards_of(s.dims[0], m), l.w_uni});
  a["t_total_s"] = real.t;
  a["is_latency_bound"] = real.latency_bound ? 1 : 0;
}
// Pop Quiz 2's two parts: the same inputs but the array's size.
constexpr double kPQ2Es[] = {256, 1024, 2048, 4096};
constexpr double kPQ2Fs[] = {256, 2048, 8192};
constexpr double kOneMicrosecond[] = {1e-6};
constexpr Param kPQ2Chip = chip_param("v5e", "chip (its wraparound rule)");
constexpr Param kPQ2Mesh = text("mesh", "{'X': 8, 'Y': 4}", "the mesh");
constexpr Param kPQ2Sharding = text("sharding", "A[E_Y, F]", "the array before the gather");
constexpr Param kBf16 = dtype_param("dtype", "bf16", "element type");
constexpr Param kPQ2WUni =
    chip_spec(rate("w_uni_Bps", "B_per_s", 4.5e10, "one-way link bandwidth"), "ici_bw_oneway");
// The chip's wraparound rule, as a spec: a variant draws a chip of a 2-D torus, whose axes of 8
// and 4 do not wrap, as on the book's v5e.
constexpr Param kPQ2Wrap =
    chip_spec(count("wrap_axis_length", 16, "an axis of the torus wraps when its length is"),
              "wrap_if_axis_length");
constexpr Param kTMin = ranged("t_min_s", "s", 1e-6, "per-hop latency", 1e-12, 1, kOneMicrosecond);
constexpr Param kPQ2aGiven[] = {kPQ2Chip,
                                kPQ2Mesh,
                                kPQ2Sharding,
                                kBf16,
                                count("size_E", 2048, "global size of E", kPQ2Es),
                                count("size_F", 8192, "global size of F", kPQ2Fs),
                                kPQ2WUni,
                                kPQ2Wrap,
                                kTMin};
constexpr Param kPQ2bGiven[] = {kPQ2Chip,
                                kPQ2Mesh,
                                kPQ2Sharding,
                                kBf16,
                                count("size_E", 256, "global size of E", kPQ2Es),
                                count("size_F", 256, "global size of F", kPQ2Fs),
                                kPQ2WUni,
                                kPQ2Wrap,
                                kTMin};
// Question 2: gathers on a v4p 4x4x4 cube, and the free reshard onto the idle Z axis.
constexpr double kQ2Bs[] = {512, 1024, 4096};
constexpr double kQ2Ds[] = {2048, 4096, 8192};
constexpr Param kQ2Given[] = {
    chip_param("v4p", "chip (its wraparound rule)"),
    text("mesh", "Mesh({'X': 4, 'Y': 4, 'Z': 4})", "the mesh"),
    text("sharding", "[B_X, D_Y]", "the array"), kBf16,
    count("size_B", 1024, "global size of B", kQ2Bs),
    count("size_D", 4096, "global size of D", kQ2Ds),
    chip_spec(rate("w_ici_Bps", "B_per_s", 9e10, "bidirectional ICI bandwidth per link"),
              "ici_bw_bidi"),
    // The chip's wraparound rule, as a spec: a variant draws a chip of a 3-D torus (a cube).
    chip_spec(
        count("wrap_all_axes_multiple_of", 4, "the torus wraps when every axis is a multiple of"),
        "wrap_if_all_axes_multiple_of"),
    kTMin};
struct Q2 {
  Mesh m;
  Sharding s;
  std::vector<double> sizes;
  double bpe;
  Link l;
  std::vector<bool> wrap;
};
Q2 q2_setup(const Inputs& in, Trace& tr) {
  Q2 q;
  q.m = parse_mesh(in.text("mesh"), "mesh");
  q.s = parse_sharding(in.text("sharding"), "sharding");
  q.sizes = {in.num("size_B"), in.num("size_D")};
  q.bpe = hw::dtype_bytes(in.text("dtype"), "dtype");
  q.wrap = chip_wraps(in.text("chip"), q.m);
  axes_of(q.m, {"X", "Y", "Z"}, q.wrap);  // the cube's three axes, or an error naming the mesh
  q.l = link_of(tr.step("One way of a link", kWUni, {in.num("w_ici_Bps")}), in.num("t_min_s"));
  return q;
}
constexpr Text kHintBothWays =
    "On a wrapped ring the shards travel both ways: divide by W_ici, the two-way figure.";
constexpr Text kHintTwoPasses =
    "An AllReduce is a ReduceScatter followed by an AllGather: twice one gather.";
constexpr Text kHintWrappedHops = "A wrapped axis of 4 needs floor(4/2) = 2 hops, not 3.";

// Example 6: the AllToAll time on an N-D torus.
constexpr Slot::Var kVarN{"N", "devices, A*B*C", 8, 4096};
constexpr Slot::Var kEX6Vars[] = {{"V", "bytes summed over all devices", 1e6, 1e10},
                                  {"A", "axis size", 2, 16},
                                  {"B", "axis size", 2, 16},
                                  {"C", "axis size", 2, 16},
                                  kVarN,
                                  {"W", "bidirectional ICI bandwidth, B/s", 1e10, 1e12}};

constexpr double kEX3WUniBps[] = {4.5e10, 9e10};
constexpr double kEX3TMinS[] = {1e-6, 2e-6};
constexpr Param kEX3Given[] = {
    rate("w_uni_Bps", "B_per_s", 4.5e10, "one-way link bandwidth", kEX3WUniBps),
    ranged("t_min_s", "s", 1e-6, "per-hop latency", 1e-12, 1, kEX3TMinS)};
constexpr Slot kEX3Slots[] = {
    number("latency_bound_threshold_B", "B", "threshold payload per hop")};
constexpr Problem kEX3{
    .id = "sharding.EX3",
    .title = "Latency-bound buffer size on v5e",
    .statement =
        "An ICI link moves {w_uni_Bps} one way and each hop costs about "
        "{t_min_s}. Below "
        "what payload per hop does the latency dominate?",
    .kind = "numeric",
    .given = kEX3Given,
    .slots = kEX3Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double w = in.num("w_uni_Bps"), t = in.num("t_min_s");
          return Answers{
              {"latency_bound_threshold_B",
               tr.step("Payload one link moves in one hop latency", kLatencyThreshold, {w, t})}};
        },
};

constexpr double kEX5MeshSizeLargeAxis[] = {8, 16};
constexpr double kEX5WUniBps[] = {4.5e10, 9e10};
constexpr Param kEX5Given[] = {
    count("mesh_size_large_axis", 16, "devices the array is split over", kEX5MeshSizeLargeAxis),
    memory("array_bytes_at_saturation_B", 1e7, "total array size at the plateau"),
    ranged("measured_fraction_of_peak", "ratio", 0.95, "fraction of peak reached", 1e-6, 1),
    rate("w_uni_Bps", "B_per_s", 4.5e10, "one-way link bandwidth", kEX5WUniBps)};
constexpr Slot kEX5Slots[] = {number("bytes_per_device_at_saturation", "B", "bytes per device"),
                              number("achieved_link_bw_Bps", "B_per_s", "bandwidth reached")};
constexpr Problem kEX5{
    .id = "sharding.EX5",
    .title = "Measured AllGather bandwidth saturation point",
    .statement =
        "On a v5e 8x16 slice an AllGather over the size-{mesh_size_large_axis} axis "
        "reaches its plateau at a total array of {array_bytes_at_saturation_B}, at "
        "about "
        "{measured_fraction_of_peak} of the {w_uni_Bps} one-way link peak. How big is "
        "each "
        "device's shard there, and what bandwidth does the link reach?",
    .kind = "numeric",
    .given = kEX5Given,
    .slots = kEX5Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Mesh m;
          m.names = {"X"};
          m.sizes = {static_cast<long long>(in.num("mesh_size_large_axis"))};
          Sharding s = parse_sharding("[V_X]", "sharding");
          const double v = in.num("array_bytes_at_saturation_B");
          LocalShape L = local_shape(s, m, {v}, 1, "array_bytes_at_saturation_B", &tr);
          const double bw = tr.step("Bandwidth reached", kAchievedBw,
                                    {in.num("measured_fraction_of_peak"), in.num("w_uni_Bps")});
          return Answers{{"bytes_per_device_at_saturation", L.bytes_per_device},
                         {"achieved_link_bw_Bps", bw}};
        },
};

constexpr Slot kPQ2aSlots[] = {
    number("shard_bytes", "B", "bytes per shard"),
    number("total_bytes", "B", "bytes of the gathered array"),
    derived(number("t_full_ring_s", "s", "time on an ideal ring"), From::Link),
    number("latency_term_s", "s", "latency term"),
    derived(number("t_open_line_s", "s", "time without wraparound"), From::Link),
    boolean("is_latency_bound", "latency-bound?")};
constexpr Problem kPQ2a{
    .id = "sharding.PQ2.a",
    .title = "AllGather time on a v5e Y axis",
    .statement =
        "On a {chip} mesh {mesh}, AllGather_Y turns {sharding} (shape ({size_E}, "
        "{size_F}), "
        "{dtype}) into the full array. How big is each shard and the gathered array, "
        "how "
        "long would the gather take on an ideal bidirectional ring, and how long as "
        "the "
        "axis is actually wired (links {w_uni_Bps} one way, {t_min_s} per hop)?",
    .kind = "numeric",
    .given = kPQ2aGiven,
    .slots = kPQ2aSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Answers a;
          pq2_solve(in, tr, a);
          a.erase("per_hop_transfer_s");
          a.erase("t_total_s");
          return a;
        },
    .hint =
        "Without wraparound the far device receives N-1 shards through one link, "
        "one way.",
};

constexpr Slot kPQ2bSlots[] = {
    number("shard_bytes", "B", "bytes per shard"),
    derived(number("per_hop_transfer_s", "s", "transfer time of one hop"), From::Link),
    number("t_total_s", "s", "total time", 0.15), boolean("is_latency_bound", "latency-bound?")};
constexpr Problem kPQ2b{
    .id = "sharding.PQ2.b",
    .title = "Small AllGather on v5e is latency-bound",
    .statement =
        "The same gather on a {chip} mesh {mesh}, but A is only ({size_E}, "
        "{size_F}) in "
        "{dtype}. How big is each shard, how long does one hop's transfer "
        "take, and how "
        "long is the whole gather?",
    .kind = "numeric",
    .given = kPQ2bGiven,
    .slots = kPQ2bSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Answers a;
          pq2_solve(in, tr, a);
          for (const char* k : {"total_bytes", "t_full_ring_s", "latency_term_s", "t_open_line_s"})
            a.erase(k);
          return a;
        },
    .hint = "Compare one hop's transfer with the 1 us hop latency.",
};

constexpr Slot::Hint kQ2aTAllgatherXSHints[] = {{2, kHintBothWays}};
constexpr Slot kQ2aSlots[] = {
    number("gathered_bytes_per_group", "B", "bytes gathered per Y group"),
    hinted(derived(number("t_allgather_x_s", "s", "time of AllGather_X"), From::Link),
           kQ2aTAllgatherXSHints),
    number("latency_term_s", "s", "latency floor"),
    derived(number("t_allgather_xz_after_free_reshard_s", "s",
                   "time of AllGather_{XZ} after the reshard"),
            From::Link)};
constexpr Problem kQ2a{
    .id = "sharding.Q2.a",
    .title = "AllGather over one cube axis",
    .statement =
        "On a {chip} cube {mesh}, gather {sharding} ({dtype}, B = {size_B}, D = "
        "{size_D}) "
        "over X. How many bytes does each Y group gather, how long does it take, and "
        "what is the latency floor? The array is replicated over Z: how long if you "
        "first split B over Z too (free) and gather over X and Z?",
    .kind = "numeric",
    .given = kQ2Given,
    .slots = kQ2aSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Q2 q = q2_setup(in, tr);
          const double shard =
              local_shape(q.s, q.m, q.sizes, q.bpe, "sharding", &tr).bytes_per_device;
          const double V = gather_volume(shard, q.m, {"X"}, &tr);  // [B, D_Y] in each Y group
          CollectiveCost x = collective_cost(Op::AllGather, V, axes_of(q.m, {"X"}, q.wrap), q.l,
                                             &tr, "$\\mathrm{AllGather}_X$");
          tr.note(
              "$Z$ is unused, so $[B_X, D_Y] \\to [B_{XZ}, D_Y]$ costs nothing; the gather "
              "then uses two axes.");
          CollectiveCost xz = collective_cost(Op::AllGather, V, axes_of(q.m, {"X", "Z"}, q.wrap),
                                              q.l, &tr, "$\\mathrm{AllGather}_{XZ}$");
          return Answers{{"gathered_bytes_per_group", V},
                         {"t_allgather_x_s", x.t},
                         {"latency_term_s", x.t_lat},
                         {"t_allgather_xz_after_free_reshard_s", xz.t}};
        },
};

constexpr Slot kQ2bSlots[] = {
    number("gathered_bytes", "B", "bytes gathered"),
    derived(number("t_allgather_xy_s", "s", "time of AllGather_{XY}"), From::Link),
    number("latency_term_s", "s", "latency floor"),
    derived(number("t_allgather_xyz_after_free_reshard_s", "s",
                   "time of AllGather_{XYZ} after the reshard"),
            From::Link)};
constexpr Problem kQ2b{
    .id = "sharding.Q2.b",
    .title = "AllGather over two cube axes",
    .statement =
        "On the same {chip} cube {mesh}, gather {sharding} over both X and Y. How many "
        "bytes are gathered, how long does it take, what is the latency floor, and how "
        "long if Z is recruited first by a free reshard?",
    .kind = "numeric",
    .given = kQ2Given,
    .slots = kQ2bSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Q2 q = q2_setup(in, tr);
          const double shard =
              local_shape(q.s, q.m, q.sizes, q.bpe, "sharding", &tr).bytes_per_device;
          const double V = gather_volume(shard, q.m, {"X", "Y"}, &tr);  // the whole array
          CollectiveCost xy = collective_cost(Op::AllGather, V, axes_of(q.m, {"X", "Y"}, q.wrap),
                                              q.l, &tr, "$\\mathrm{AllGather}_{XY}$");
          CollectiveCost xyz =
              collective_cost(Op::AllGather, V, axes_of(q.m, {"X", "Y", "Z"}, q.wrap), q.l, &tr,
                              "$\\mathrm{AllGather}_{XYZ}$");
          return Answers{{"gathered_bytes", V},
                         {"t_allgather_xy_s", xy.t},
                         {"latency_term_s", xy.t_lat},
                         {"t_allgather_xyz_after_free_reshard_s", xyz.t}};
        },
};

constexpr Slot::Hint kQ2cTAllreduceZSHints[] = {{2, kHintTwoPasses}};
constexpr Slot kQ2cSlots[] = {
    number("per_device_bytes", "B", "bytes per device"),
    hinted(derived(number("t_allreduce_z_s", "s", "time of AllReduce_Z"), From::Link),
           kQ2cTAllreduceZSHints)};
constexpr Problem kQ2c{
    .id = "sharding.Q2.c",
    .title = "AllReduce over the Z axis",
    .statement =
        "On the same {chip} cube {mesh}, the array {sharding} holds partial "
        "sums over Z "
        "(it carries an unreduced U_Z marker). How many bytes does each "
        "device hold, and how long does "
        "AllReduce_Z take?",
    .kind = "numeric",
    .given = kQ2Given,
    .slots = kQ2cSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Q2 q = q2_setup(in, tr);
          const double V = local_shape(q.s, q.m, q.sizes, q.bpe, "sharding", &tr).bytes_per_device;
          CollectiveCost z = collective_cost(Op::AllReduce, V, axes_of(q.m, {"Z"}, q.wrap), q.l,
                                             &tr, "$\\mathrm{AllReduce}_Z$");
          return Answers{{"per_device_bytes", V}, {"t_allreduce_z_s", z.t}};
        },
};

constexpr double kQ3SizeB[] = {64, 128, 512};
constexpr double kQ3TMinS[] = {1e-6};
constexpr Param kQ3Given[] = {
    chip_param("v4p", "chip (its wraparound rule)"),
    text("mesh", "Mesh({'X': 4, 'Y': 4, 'Z': 4})", "the mesh"),
    text("sharding", "[B_X]", "the vector"), dtype_param("dtype", "bf16", "element type"),
    count("size_B", 128, "length of the vector", kQ3SizeB),
    chip_spec(rate("w_uni_Bps", "B_per_s", 4.5e10, "one-way ICI bandwidth"), "ici_bw_oneway"),
    // The chip's wraparound rule, as a spec: a variant draws a chip of a 3-D torus (a cube).
    chip_spec(
        count("wrap_all_axes_multiple_of", 4, "the torus wraps when every axis is a multiple of"),
        "wrap_if_all_axes_multiple_of"),
    ranged("t_min_s", "s", 1e-6, "per-hop latency", 1e-12, 1, kQ3TMinS)};
constexpr Slot::Hint kQ3TTotalSHints[] = {{1.5, kHintWrappedHops}};
constexpr Slot kQ3Slots[] = {number("total_bytes", "B", "bytes of the gathered vector"),
                             number("bytes_per_device", "B", "bytes per device before"),
                             measures(number("hops", "count", "hops"), Quantity::Hops),
                             derived(number("bandwidth_term_s", "s", "bandwidth term"), From::Link),
                             hinted(number("t_total_s", "s", "total time", 0.2), kQ3TTotalSHints),
                             boolean("is_latency_bound", "latency-bound?")};
constexpr Problem kQ3{
    .id = "sharding.Q3",
    .title = "Latency-bound AllGather of a tiny vector",
    .statement =
        "On a {chip} cube {mesh}, AllGather_X {sharding} with B = {size_B} in {dtype}. "
        "How many bytes in all and per device, how many hops, what are the bandwidth "
        "term and the total time?",
    .kind = "numeric",
    .given = kQ3Given,
    .slots = kQ3Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Mesh m = parse_mesh(in.text("mesh"), "mesh");
          Sharding s = parse_sharding(in.text("sharding"), "sharding");
          const double bpe = hw::dtype_bytes(in.text("dtype"), "dtype");
          const double per =
              local_shape(s, m, {in.num("size_B")}, bpe, "sharding", &tr).bytes_per_device;
          const double V = gather_volume(per, m, {"X"}, &tr);
          CollectiveCost c = collective_cost(
              Op::AllGather, V, axes_of(m, {"X"}, chip_wraps(in.text("chip"), m)),
              link_of(in.num("w_uni_Bps"), in.num("t_min_s")), &tr, "$\\mathrm{AllGather}_X$");
          Answers a{{"total_bytes", V}, {"bytes_per_device", per},
                    {"hops", c.hops},   {"bandwidth_term_s", c.t_bw},
                    {"t_total_s", c.t}, {"is_latency_bound", c.latency_bound ? 1.0 : 0.0}};
          // An axis that wraps counted as an open line: N-1 hops instead of floor(N/2).
          std::vector<Axis> line = axes_of(m, {"X"}, chip_wraps(in.text("chip"), m));
          if (line[0].wrap) {
            line[0].wrap = false;
            const CollectiveCost open = collective_cost(
                Op::AllGather, V, line, link_of(in.num("w_uni_Bps"), in.num("t_min_s")));
            a.slip("hops", open.hops, std::string(kHintWrappedHops));
          }
          return a;
        },
};

constexpr double kEX6TotalBytesAllDevicesB[] = {2.68e8, 1.07e9, 4.29e9};
constexpr double kEX6FootnoteRingSize[] = {4, 8, 16};
constexpr Param kEX6Given[] = {
    text("mesh", "4x4x4", "the torus (wraps on every axis)"),
    memory("total_bytes_all_devices_B", 1073741824, "V: the array summed over all devices",
           kEX6TotalBytesAllDevicesB),
    chip_spec(rate("w_ici_Bps", "B_per_s", 1.8e11, "bidirectional ICI bandwidth per link"),
              "ici_bw_bidi"),
    count("footnote_ring_size", 8, "even ring size for the chunk count", kEX6FootnoteRingSize)};
constexpr Slot kEX6Slots[] = {
    number("a2a_to_allgather_ratio_1d", "ratio", "1-D AllToAll / AllGather"),
    number("chunk_hops_per_device_even_ring", "count", "chunk-hops per device"),
    number("bisection_links_crossed", "count", "links crossing the bisection"),
    derived(number("t_alltoall_s", "s", "AllToAll time"), From::Link),
    derived(formula(
                "formula", "s", "AllToAll time as a formula", kEX6Vars,
                [](const Vars& v) {
                  const double mx = std::max({at(v, "A"), at(v, "B"), at(v, "C")});
                  return t_alltoall_per_device(at(v, "V") / at(v, "N"), mx, at(v, "W"));
                },
                "\\frac{V \\max(A, B, C)}{4 N W}"),
            From::Link)};
constexpr Problem kEX6{
    .id = "sharding.EX6",
    .title = "AllToAll cost on an N-D torus",
    .statement =
        "An AllToAll reshards an array of {total_bytes_all_devices_B} (summed over all "
        "devices) on the wrapped torus {mesh} with W_ici = {w_ici_Bps} per link. What "
        "is "
        "the ratio of a 1-D AllToAll to an AllGather, how many chunk-hops does one "
        "device "
        "make on a bidirectional ring of {footnote_ring_size}, how many links does the "
        "bisection cut cross, and how long does the AllToAll take? Give the time as a "
        "formula too, in V, the axis sizes A, B, C, the device count N and W.",
    .kind = "formula",
    .given = kEX6Given,
    .slots = kEX6Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Mesh m = parse_mesh(in.text("mesh"), "mesh");
          const double V = in.num("total_bytes_all_devices_B"), W = in.num("w_ici_Bps");
          const double n = in.num("footnote_ring_size");
          if (static_cast<long long>(n) % 2 != 0)
            fail("footnote_ring_size", "the footnote's count is for an even ring");
          // 1-D, on a ring of the footnote's size: the AllToAll against an AllGather of the same V.
          const double w_uni = tr.step("One way of a link", kWUni, {W});
          const double t_ag =
              tr.step("1-D: an AllGather of $V$ on a ring of " + tex(n), kAgRing, {V, n, w_uni});
          const double t_a2a = tr.step("1-D: an AllToAll of the same $V$", kA2a1d, {V, W});
          const double ratio = tr.step("1-D: AllToAll over AllGather", kA2aOverAg, {t_a2a, t_ag});
          const double hops =
              tr.step("Chunk-hops per device on a ring of " + tex(n) + " ($N^2/4$ for even $N$)",
                      kChunkHops, {n});
          const tpus::Dims dims(m.sizes.begin(), m.sizes.end());
          const double links = tr.value(
              "Links the bisection crosses: $2N / \\max(A, B, C)$ on a torus with wraparound "
              "(the TPU chapter's count)",
              tpus::bisection_links(tpus::Torus{dims, std::vector<bool>(dims.size(), true)}),
              "count");
          std::vector<Axis> axes;
          for (std::size_t k = 0; k < m.names.size(); ++k)
            axes.push_back({m.names[k], static_cast<double>(m.sizes[k]), true, 1});
          const CollectiveCost c =
              collective_cost(Op::AllToAll, V, axes, link_of(w_uni, 0), &tr, "AllToAll");
          return Answers{{"a2a_to_allgather_ratio_1d", ratio},
                         {"chunk_hops_per_device_even_ring", hops},
                         {"bisection_links_crossed", links},
                         {"t_alltoall_s", c.t}};
        },
    .hint = "V is the total over all devices; divide by N to get per-device bytes.",
};

constexpr Problem kCollectives[] = {kEX3, kEX5, kPQ2a, kPQ2b, kQ2a, kQ2b, kQ2c, kQ3, kEX6};

}  // namespace

void add_problems_collectives(Registry& r) { r.add(kCollectives); }

}  // namespace sb::sharding
