// The TPU chapter's problem 6, a host-offloaded array brought to one chip (tpus.Q6.a to tpus.Q6.f).
#include <cmath>
#include <span>
#include <string>

#include "chapters/tpus/model.hpp"
#include "chapters/tpus/problems.hpp"
#include "chapters/tpus/steps.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"
#include "core/units.hpp"

// Problems are written with designated initializers; the members left out keep their defaults,
// which is what this warning is about.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::tpus {
namespace {

// Question 6 shares its setting across parts a-f: the first words of every statement and the
// first inputs.
#define TPUS_Q6_SETTING                                                                    \
  "A = {a} ({a_bytes}) is split evenly over a {slice} slice ({n_chips}, {n_hosts} hosts) " \
  "but held in host memory. We want all of it on {dest}, multiplied by a bf16[8, 131072] vector. "

// The chip is named inside the slice text ("v5e 4x4"), so the chip figures of the parts (PCIe,
// ICI, HBM, peak) have no variants: they stay the book's v5e, and no variant pairs v5e with
// another chip's figures. Parts whose every other given is fixed have no variants at all.
constexpr Param kQ6A = text("a", "int8[131072, 131072]", "the offloaded array");
constexpr Param kQ6ABytes = memory("a_bytes", 17179869184.0, "bytes of A");
constexpr Param kQ6Slice = text("slice", "v5e 4x4", "chip and slice shape");
constexpr Param kQ6NChips = sb::chip_count("n_chips", 16, "chips in the slice");
constexpr Param kQ6NHosts = count("n_hosts", 2, "hosts serving the slice", {}, 1, 1e8);
constexpr Param kQ6Dest = text("dest", "TPU{0,0}", "the chip that gathers A");

// The shortcut the book's answer takes: "reads 2^34 B (16 GiB) as 16 GB", a binary size called by
// its decimal name (units::decimal_name) and carried through every later step.
std::string reads_as(double bytes) { return "reads " + units::decimal_name_text(bytes); }

// The four stages of route 1 (PCIe per chip, ICI gather, HBM stream, compute).
Pipeline q6_pipeline(double a_bytes, double n_chips, double pcie, int links, double ici, double hbm,
                     double vec_bytes, double flops, double peak) {
  return pipeline(
      {make_stage("PCIe: every chip loads its shard", "pcie", even_share(a_bytes, n_chips), pcie),
       make_stage("ICI: gather the other shards onto the destination", "ici",
                  bytes_from_others(a_bytes, n_chips), links_bw(links, ici)),
       make_stage("HBM: stream A and the vector into the MXU", "hbm", a_bytes + vec_bytes, hbm),
       make_stage("Compute: the matmul at bf16 peak", "compute", flops, peak)});
}

// Route 1 of Q6.a: every chip loads its shard over its own PCIe link, then ICI gathers the other
// shards onto the destination; the slower of the two sets the pace.
void q6_route_ici(double A, double N, const hw::Chip& c, const Torus& t, const Dims& dest,
                  Trace& tr) {
  const double links = tr.value("Route 1: links into the destination",
                                static_cast<double>(neighbours(t, dest).size()), "count");
  const double shard = tr.step("Route 1: each chip's shard", kShard, {A, N});
  const double t_pcie = tr.step("Route 1: PCIe, every chip in parallel", roofline::kTComms,
                                {shard, c.get("pcie_bw")});
  const double in = tr.step("Route 1: bytes from the other chips", kFromOtherChips, {A, N});
  const double t_ici =
      tr.step("Route 1: ICI gather over those links", kGather, {in, links, c.get("ici_bw_oneway")});
  tr.max("Route 1 (PCIe then ICI), stages overlapped: the slower one", "T_1", "s",
         {{"T_PCIe", t_pcie}, {"T_ICI", t_ici}});
}

// Route 2 of Q6.a: the other hosts send their part over DCN to the destination's host, then the
// whole array goes down the destination's one PCIe link.
void q6_route_dcn(double A, double N, double H, const hw::Chip& c, Trace& tr) {
  const double out = tr.step("Route 2: bytes the other hosts send", kFromOtherHosts, {A, H});
  const double per_host = tr.step("Route 2: chips per host", kChipsPerHost, {N, H});
  const double egress =
      tr.step("Route 2: a host's DCN egress", kHostDcn, {per_host, c.get("dcn_bw")});
  const double t_dcn = tr.step("Route 2: DCN", roofline::kTComms, {out, egress});
  const double t_pcie = tr.step("Route 2: the whole array down one PCIe link", roofline::kTComms,
                                {A, c.get("pcie_bw")});
  tr.max("Route 2 (DCN then one PCIe link), stages overlapped: the slower one", "T_2", "s",
         {{"T_DCN", t_dcn}, {"T_PCIe", t_pcie}});
}

constexpr Param kQ6aGiven[] = {
    kQ6A,
    kQ6ABytes,
    kQ6Slice,
    kQ6NChips,
    kQ6NHosts,
    kQ6Dest,
    text("paths", "PCIe per chip then ICI gather, or DCN to host 0 then PCIe", "the two routes")};
constexpr Problem kQ6a{
    .id = "tpus.Q6.a",
    .title = "Best route to gather a host-offloaded array",
    .statement = TPUS_Q6_SETTING "Which way should the shards travel: {paths}?",
    .kind = "conceptual",
    .given = kQ6aGiven,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const hw::Chip* c = nullptr;
          const Torus t = chip_slice(in.text("slice"), "slice", &c);
          const Dims dest = parse_coord(in.text("dest"), t, "dest");
          const double A = in.num("a_bytes"), N = in.num("n_chips"), H = in.num("n_hosts");
          q6_route_ici(A, N, *c, t, dest, tr);
          q6_route_dcn(A, N, H, *c, tr);
          return Answers{};
        },
    .model_answer =
        "Load each shard over its own chip's PCIe link (all 16 links work in "
        "parallel), then gather the "
        "shards onto TPU{0,0} over ICI. The other route pushes half the array over "
        "the slow DCN and then "
        "squeezes the whole array through the single PCIe link of the destination "
        "chip, which alone takes "
        "over a second; ICI is far faster than DCN and many PCIe links beat one.",
};

constexpr Param kQ6bGiven[] = {
    kQ6A,
    kQ6ABytes,
    kQ6Slice,
    kQ6NChips,
    kQ6NHosts,
    kQ6Dest,
    rate("pcie_bw_per_chip_Bps", "B_per_s", 1.6e10, "PCIe per chip"),
};
constexpr Slot kQ6bSlots[] = {number("bytes_per_chip", "B", "shard bytes"),
                              derived(number("t_pcie", "s", "PCIe load time"), From::Link)};
constexpr Problem kQ6b{
    .id = "tpus.Q6.b",
    .title = "Parallel PCIe load time",
    .statement = TPUS_Q6_SETTING
    "Each chip pulls its own shard over PCIe at {pcie_bw_per_chip_Bps}. How big "
    "is a shard, and how long does the load take?",
    .kind = "numeric",
    .given = kQ6bGiven,
    .slots = kQ6bSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double A = in.num("a_bytes"), N = in.num("n_chips"), bw = in.num("pcie_bw_per_chip_Bps");
          const double per = tr.step("Shard per chip", kShard, {A, N});
          const double t = tr.step("All links in parallel", roofline::kTComms, {per, bw});
          Answers a{{"bytes_per_chip", per}, {"t_pcie", t}};
          const double Ad = units::decimal_name(A);
          const std::string reads = reads_as(A);
          a.book("bytes_per_chip", even_share(Ad, N), reads);
          a.book("t_pcie", pcie_sharded_time(Ad, N, bw), reads);
          a.slip("t_pcie", roofline::t_comms(A, bw),
                 "That pushes all of A through one PCIe link; every chip loads its own shard over "
                 "its own link, in parallel.");
          return a;
        },
};

// A corner chip of the open 4x4 slice has two neighbours: it may use one link or both.
constexpr double kQ6cLinksIntoDest[] = {1, 2};
constexpr Param kQ6cGiven[] = {
    kQ6A,
    kQ6ABytes,
    kQ6Slice,
    kQ6NChips,
    kQ6NHosts,
    kQ6Dest,
    ranged("fraction_received", "ratio", 0.9375, "share of A that arrives over ICI", 1e-6, 1),
    big_count("links_into_dest", 2, "ICI links into the destination", kQ6cLinksIntoDest),
    rate("ici_bw_one_way_Bps", "B_per_s", 4.5e10, "one-way ICI per link")};
constexpr Slot kQ6cSlots[] = {
    number("bytes_received", "B", "bytes received over ICI"),
    derived(number("t_ici", "s", "gather time (lower bound)"), From::Link),
    derived(number("t_allgather_estimate", "s", "AllGather estimate"), From::Link)};
constexpr Problem kQ6c{
    .id = "tpus.Q6.c",
    .title = "ICI gather time onto one chip",
    .statement = TPUS_Q6_SETTING
    "The destination, a corner chip, receives the other shards "
    "({fraction_received} of A) over its {links_into_dest} ICI {links_into_dest|link|links} at "
    "{ici_bw_one_way_Bps} one way each. Give the bytes it receives, a lower "
    "bound on the gather time, and the estimate for a full AllGather of A over "
    "the same links.",
    .kind = "numeric",
    .given = kQ6cGiven,
    .slots = kQ6cSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double A = in.num("a_bytes"), f = in.num("fraction_received"),
                 bw = in.num("ici_bw_one_way_Bps");
          int k = static_cast<int>(in.num("links_into_dest"));
          const double got = tr.step("Bytes that must arrive", kReceived, {f, A});
          const double t = tr.step("Receiving over its links", kGather, {got, double(k), bw});
          const double ag = tr.step("A full AllGather moves about all of A through the same links",
                                    kGather, {A, double(k), bw});
          tr.note(
              "The load on the links is uneven in practice, so the real gather may take up to "
              "twice the bound.");
          Answers out{{"bytes_received", got}, {"t_ici", t}, {"t_allgather_estimate", ag}};
          const double Ad = units::decimal_name(A);
          const std::string reads = reads_as(A);
          out.book("bytes_received", received_bytes(f, Ad), reads);
          out.book("t_ici", gather_time(received_bytes(f, Ad), k, bw), reads);
          out.book("t_allgather_estimate", gather_time(Ad, k, bw), reads);
          out.slip("t_ici", gather_time(got, k, axis_bw(bw, true)),
                   "That takes each link at its bidirectional figure; the destination only "
                   "receives, one way on each of its links.");
          if (k > 1)
            out.slip("t_ici", gather_time(got, 1, bw),
                     "That receives over one link; the destination takes data over all " +
                         units::number(k) + " of its links at once.");
          return out;
        },
};

constexpr Param kQ6dGiven[] = {
    kQ6A,
    kQ6ABytes,
    kQ6Slice,
    kQ6NChips,
    kQ6NHosts,
    kQ6Dest,
    memory("vector_bytes", 2097152, "bytes of the bf16 vector"),
    rate("hbm_bw_Bps", "B_per_s", 8.2e11, "HBM bandwidth"),
    memory("hbm_capacity_per_chip_B", 1.6e10, "HBM per chip"),
};
constexpr Slot kQ6dSlots[] = {
    derived(number("t_hbm", "s", "HBM streaming time"), From::Bytes),
    boolean("a_fits_in_dest_hbm", "does A fit in the destination's HBM?")};
constexpr Problem kQ6d{
    .id = "tpus.Q6.d",
    .title = "HBM to MXU streaming time",
    .statement = TPUS_Q6_SETTING
    "Once gathered, A and the {vector_bytes} vector stream from HBM "
    "({hbm_bw_Bps}) into the MXU. How long does that take, and does A even fit "
    "in the destination's {hbm_capacity_per_chip_B} of HBM?",
    .kind = "numeric",
    .given = kQ6dGiven,
    .slots = kQ6dSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double A = in.num("a_bytes"), v = in.num("vector_bytes"), bw = in.num("hbm_bw_Bps"),
                 cap = in.num("hbm_capacity_per_chip_B");
          const double bytes =
              tr.sum("Bytes to stream: A and the vector", "bytes", "B", {{"A", A}, {"v", v}});
          const double t = tr.step("Stream them from HBM", roofline::kTComms, {bytes, bw});
          const double fits = fits_in(bytes, cap) ? 1 : 0;
          tr.note(fits ? "They fit in the destination's HBM ($C_{HBM} = " + tex(cap) + "$ B)."
                       : "They do not fit: A alone is larger than one chip's HBM ($C_{HBM} = " +
                             tex(cap) + "$ B), so the plan only works in pieces.");
          Answers a{{"t_hbm", t}, {"a_fits_in_dest_hbm", fits}};
          a.book("t_hbm", roofline::t_comms(units::decimal_name(A), bw),
                 reads_as(A) + " and leaves out the small vector");
          return a;
        },
};

constexpr Param kQ6eGiven[] = {
    kQ6A,
    kQ6ABytes,
    kQ6Slice,
    kQ6NChips,
    kQ6NHosts,
    kQ6Dest,
    text("vector", "bf16[8, 131072]", "the vector"),
    rate("peak_bf16_flops_per_s", "flop_per_s", 1.97e14, "bf16 peak"),
};
constexpr Slot kQ6eSlots[] = {number("flops", "flop", "FLOPs"),
                              derived(number("t_flops", "s", "compute time"), From::Flops)};
constexpr Problem kQ6e{
    .id = "tpus.Q6.e",
    .title = "FLOPs and compute time of final matmul",
    .statement = TPUS_Q6_SETTING
    "How many FLOPs is the product {vector} x A, and how long does it take at "
    "{peak_bf16_flops_per_s}?",
    .kind = "numeric",
    .given = kQ6eGiven,
    .slots = kQ6eSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          ArraySpec a = parse_array(in.text("a"), "a"),
                    v = parse_array(in.text("vector"), "vector");
          if (a.dims.size() != 2 || v.dims.size() != 2 || v.dims[1] != a.dims[0])
            fail("vector", "its last dimension must match A's first to multiply vector x A");
          double B = v.dims[0], D = a.dims[0], F = a.dims[1],
                 peak = in.num("peak_bf16_flops_per_s");
          const double f = tr.step("FLOPs", roofline::kMatmulFlops, {B, D, F});
          const double t = tr.step("At peak", roofline::kTMath, {f, peak});
          Answers out{{"flops", f}, {"t_flops", t}};
          // The book counts A's elements as its decimal size: 2^34 int8 elements as 16e9.
          const double per = hw::dtype_bytes(a.dtype, "a");
          const double a_bytes = array_bytes(a.elements, per);
          const double fd =
              roofline::matmul_flops({B, 1, even_share(units::decimal_name(a_bytes), per)});
          const std::string reads = reads_as(a_bytes) + " and counts its elements so";
          out.book("flops", fd, reads);
          out.book("t_flops", roofline::t_math(fd, peak), reads);
          return out;
        },
};

constexpr double kQ6fLinksIntoDest[] = {1, 2};  // as Q6.c
constexpr Param kQ6fGiven[] = {
    kQ6A,
    kQ6ABytes,
    kQ6Slice,
    kQ6NChips,
    kQ6NHosts,
    kQ6Dest,
    rate("pcie_bw_per_chip_Bps", "B_per_s", 1.6e10, "PCIe per chip"),
    rate("ici_bw_one_way_Bps", "B_per_s", 4.5e10, "one-way ICI per link"),
    big_count("links_into_dest", 2, "ICI links into the destination", kQ6fLinksIntoDest),
    rate("hbm_bw_Bps", "B_per_s", 8.2e11, "HBM bandwidth"),
    rate("peak_bf16_flops_per_s", "flop_per_s", 1.97e14, "bf16 peak"),
    memory("vector_bytes", 2097152, "bytes of the bf16 vector")};
constexpr Slot kQ6fSlots[] = {
    derived(number("t_pipelined_lower", "s", "time with full overlap"), From::Link),
    derived(number("t_serial_upper", "s", "time with no overlap"), From::Link)};
constexpr Problem kQ6f{
    .id = "tpus.Q6.f",
    .title = "End-to-end time of the gather-and-multiply job",
    .statement = TPUS_Q6_SETTING
    "With PCIe at {pcie_bw_per_chip_Bps} per chip, ICI at {ici_bw_one_way_Bps} "
    "one way over {links_into_dest} {links_into_dest|link|links} into the destination, HBM at "
    "{hbm_bw_Bps} and {peak_bf16_flops_per_s} of bf16: how long does the job take "
    "if its stages overlap perfectly, and if they run one after another?",
    .kind = "numeric",
    .given = kQ6fGiven,
    .slots = kQ6fSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          ArraySpec a = parse_array(in.text("a"), "a");
          if (a.dims.size() != 2) fail("a", "A must be a matrix");
          double A = in.num("a_bytes"), N = in.num("n_chips"), v = in.num("vector_bytes");
          // The vector is bf16 [rows, D]: its rows are its elements over D.
          const double rows = array_rows(v, hw::dtype_bytes("bf16", "vector_bytes"), a.dims[0]);
          double flops = roofline::matmul_flops({rows, a.dims[0], a.dims[1]});
          Pipeline pl =
              q6_pipeline(A, N, in.num("pcie_bw_per_chip_Bps"),
                          static_cast<int>(in.num("links_into_dest")), in.num("ici_bw_one_way_Bps"),
                          in.num("hbm_bw_Bps"), v, flops, in.num("peak_bf16_flops_per_s"));
          pipeline_steps(tr, pl,
                         "Full overlap: the slowest stage (" + pl.stages[pl.bottleneck].name + ")",
                         "No overlap: the sum");
          Answers out{{"t_pipelined_lower", pl.t_lower}, {"t_serial_upper", pl.t_upper}};
          // Every stage with A read as its decimal size, as the book carries it through.
          const double Ad = units::decimal_name(A), per = even_share(A, a.elements);
          const Pipeline book = q6_pipeline(Ad, N, in.num("pcie_bw_per_chip_Bps"),
                                            static_cast<int>(in.num("links_into_dest")),
                                            in.num("ici_bw_one_way_Bps"), in.num("hbm_bw_Bps"), v,
                                            roofline::matmul_flops({rows, 1, even_share(Ad, per)}),
                                            in.num("peak_bf16_flops_per_s"));
          out.book("t_pipelined_lower", book.t_lower, reads_as(A));
          out.book("t_serial_upper", book.t_upper, reads_as(A) + " in every stage");
          return out;
        },
};

constexpr Problem kHostOffload[] = {kQ6a, kQ6b, kQ6c, kQ6d, kQ6e, kQ6f};

#undef TPUS_Q6_SETTING

}  // namespace

void add_problems_host_offload(Registry& r) { r.add(kHostOffload); }

}  // namespace sb::tpus
