// Quiz 4, questions 3 to 5 (SHARP on a sharded array, at the spine; AllGather over two nodes) and
// the collective examples of the running text (AllToAll over two nodes, SHARP's gain, NCCL's bus
// bandwidth).
#include "chapters/gpus/problems.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::gpus {
namespace {

constexpr Text kExampleNote = "D, F, Y and W are example values; the book answers symbolically";

constexpr Param kQ43Given[] = {dim("d", 8192, "D"),
                               dim("f", 32768, "F"),
                               elem_bytes(),
                               dim("y", 4, "Y, the inner sharding"),
                               bw("link_bw_Bps", 450e9, "NVLink egress per GPU"),
                               text("note_given", kExampleNote, "about the values")};
constexpr Slot kQ43Slots[] = {derived(number("allreduce_time", "s", "AllReduce time"), From::Link)};
constexpr Problem kQ43{
    .id = "gpus.Quiz4.Q3",
    .title = "SHARP AllReduce of a Y-sharded array",
    .statement =
        "Inside one node of N = X Y GPUs with SHARP, AllReduce over X an array bf16[D, F_Y] left "
        "unreduced over X, with D = {d}, "
        "F = {f}, Y = {y} ({bytes_per_elem} per element, {link_bw_Bps} of NVLink per GPU). How "
        "long does it take? ({note_given}.)",
    .kind = "formula",
    .given = kQ43Given,
    .slots = kQ43Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double v = tr.step("Array bytes", kArrayBytes,
                             {in.num("d"), in.num("f"), in.num("bytes_per_elem")});
          double t = tr.step("Each GPU sends and receives bytes / Y", kSharpSharded,
                             {v, in.num("y"), in.num("link_bw_Bps")});
          tr.note("beyond one node the node's switch must send all the bytes up, not bytes / Y");
          Answers a{{"allreduce_time", t}};
          a.slip("allreduce_time", 2 * t, "SHARP needs no (N-1)/N ring: bytes / (Y W), not twice");
          return a;
        },
};

constexpr Param kQ44Given[] = {dim("d", 8192, "D"),
                               dim("f", 32768, "F"),
                               elem_bytes(),
                               dim("y", 256, "Y, the inner sharding"),
                               dim("n_su", 4, "SUs under the spine"),
                               bw("spine_capacity_Bps", 51.2e12, "spine capacity"),
                               text("note_given", kExampleNote, "about the values")};
constexpr Slot kQ44Slots[] = {derived(number("allreduce_time", "s", "AllReduce time"), From::Link)};
constexpr Problem kQ44{
    .id = "gpus.Quiz4.Q4",
    .title = "Spine-level SHARP AllReduce, Y = 256",
    .statement =
        "The same SHARP AllReduce with D = {d}, F = {f} ({bytes_per_elem} per element) and Y = "
        "{y}, so the reduction happens across {n_su} SUs at the spine ({spine_capacity_Bps}). How "
        "long does it take? ({note_given}.)",
    .kind = "formula",
    .given = kQ44Given,
    .slots = kQ44Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double v = tr.step("Array bytes", kArrayBytes,
                             {in.num("d"), in.num("f"), in.num("bytes_per_elem")});
          double w = in.num("spine_capacity_Bps");
          double t = tr.step("The SUs share the spine", kSharpSpine, {v, w, in.num("n_su")});
          Answers a{{"allreduce_time", t}};
          a.slip("allreduce_time", sharp_spine_time(v, w / 2, in.num("n_su")),
                 "the older Appendix B counted the spine at 25.6 TB/s; the newest text and the "
                 "spec table count 51.2 TB/s");
          return a;
        },
};

constexpr Param kQ45Given[] = {group("gpus_per_node", 8, "GPUs per node"),
                               group("nodes", 2, "nodes"),
                               bw("gpu_egress_Bps", 450e9, "NVLink egress per GPU"),
                               bw("node_egress_Bps", 400e9, "node egress")};
constexpr Slot kQ45Slots[] = {
    number("node_level_bw", "B_per_s", "bandwidth of the node ring"),
    number("cross_node_bw", "B_per_s", "bandwidth of the cross-node ring"),
    boolean("node_level_binds", "does the node level bind?")};
constexpr Problem kQ45{
    .id = "gpus.Quiz4.Q5",
    .title = "Exact AllGather cost over two nodes",
    .statement =
        "An AllGather of B bytes spans exactly {nodes} H100 nodes of {gpus_per_node} GPUs "
        "({gpu_egress_Bps} of NVLink per GPU, {node_egress_Bps} per node). With the exact ring "
        "factors, what bandwidth does the node ring allow, what does the cross-node ring, and "
        "which binds?",
    .kind = "formula",
    .given = kQ45Given,
    .slots = kQ45Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double tn = tr.step("Node ring, per byte", kAgRing,
                              {1, in.num("gpus_per_node"), in.num("gpu_egress_Bps")});
          double wn = tr.step("Node ring bandwidth", kEffectiveBw, {1, tn});
          double tx = tr.step("Cross-node ring, per byte", kAgRing,
                              {1, in.num("nodes"), in.num("node_egress_Bps")});
          double wx = tr.step("Cross-node bandwidth", kEffectiveBw, {1, tx});
          double binds = verdict(tr, tn > tx, "the node ring takes longer: it binds",
                                 "the cross-node ring takes longer: it binds");
          return Answers{{"node_level_bw", wn}, {"cross_node_bw", wx}, {"node_level_binds", binds}};
        },
};

}  // namespace

void add_problems_collectives_d(Registry& r);  // problems_collectives_d.cpp

void add_problems_collectives_c(Registry& r) {
  static constexpr Problem kAll[] = {kQ43, kQ44, kQ45};
  r.add(kAll);
  add_problems_collectives_d(r);
}

}  // namespace sb::gpus
