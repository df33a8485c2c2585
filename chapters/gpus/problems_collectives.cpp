// The collectives of the chapter: Quiz 2, question 3 and the pop quizzes (AllGather and AllToAll
// inside a node, a two-axis AllGather in an SU), and Quiz 4 (switch traffic, SHARP, two nodes).
#include <cmath>

#include "chapters/gpus/problems.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::gpus {
namespace {

// Bytes of a 2-D array of `a` x `b` elements of `elem` bytes.
double bytes_of(Trace& tr, double a, double b, double elem) {
  return tr.step("Array bytes", kArrayBytes, {a, b, elem});
}

constexpr Param kQ23Given[] = {dim("d", 4096, "D"), dim("f", 65536, "F"), elem_bytes(),
                               group("n_gpus", 8, "GPUs in the node"),
                               bw("gpu_egress_Bps", 450e9, "NVLink egress per GPU")};
constexpr Slot kQ23Slots[] = {
    number("array_bytes", "B", "bytes of the array"),
    derived(number("allgather_time", "s", "AllGather time, exact ring"), From::Link),
    derived(number("allgather_time_approx", "s", "AllGather time, large-N limit"), From::Link)};
constexpr Problem kQ23{
    .id = "gpus.Quiz2.Q3",
    .title = "AllGather time inside one H100 node",
    .statement =
        "In one node of {n_gpus} H100s with {gpu_egress_Bps} of NVLink egress each, AllGather "
        "bf16[D_X, F] with D = {d}, F = {f} ({bytes_per_elem} per element). How many bytes is the "
        "array, how long does the ring take, and what is its large-N limit?",
    .kind = "formula",
    .given = kQ23Given,
    .slots = kQ23Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double v = bytes_of(tr, in.num("d"), in.num("f"), in.num("bytes_per_elem"));
          double n = in.num("n_gpus"), w = in.num("gpu_egress_Bps");
          double t = tr.step("Ring: N - 1 hops of bytes / (N W)", kAgRing, {v, n, w});
          double ta = tr.step("Large N", kAgApprox, {v, w});
          Answers a{{"array_bytes", v}, {"allgather_time", t}, {"allgather_time_approx", ta}};
          a.slip("allgather_time", v / (n * w), "that is one hop; a ring takes N - 1");
          a.slip("allgather_time_approx", v / (n * w),
                 "the node's total bandwidth N W is not what one GPU receives at");
          return a;
        },
};

constexpr Param kPQ1Given[] = {dim("b", 1024, "B"), dim("f", 16384, "F"), elem_bytes(),
                               group("n_gpus", 8, "GPUs in the node"),
                               bw("gpu_egress_Bps", 450e9, "NVLink egress per GPU")};
constexpr Slot kPQ1Slots[] = {
    number("array_bytes", "B", "bytes of the array"),
    derived(number("allgather_time_approx", "s", "AllGather time, bytes / W"), From::Link),
    derived(number("allgather_time_exact", "s", "AllGather time, exact ring"), From::Link)};
constexpr Problem kPQ1{
    .id = "gpus.PopQuiz1",
    .title = "AllGather of bf16[B_X, F] on 8xH100",
    .statement =
        "How long does AllGather(bf16[B_X, F]) take with B = {b}, F = {f} ({bytes_per_elem} per "
        "element) over {n_gpus} H100s of one node, each with {gpu_egress_Bps} of NVLink egress? "
        "Give bytes / W and the exact ring time.",
    .kind = "numeric",
    .given = kPQ1Given,
    .slots = kPQ1Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double v = bytes_of(tr, in.num("b"), in.num("f"), in.num("bytes_per_elem"));
          double w = in.num("gpu_egress_Bps");
          double ta = tr.step("bytes / W", kAgApprox, {v, w});
          double t = tr.step("Exact ring", kAgRing, {v, in.num("n_gpus"), w});
          return Answers{
              {"array_bytes", v}, {"allgather_time_approx", ta}, {"allgather_time_exact", t}};
        },
};

constexpr Param kPQ2Given[] = {
    group("n_gpus", 8, "GPUs in the node"), bw("gpu_egress_Bps", 450e9, "NVLink egress per GPU"),
    elem_bytes(), ranged("nonzero_fraction", "ratio", 0.5, "share of non-zero entries", 1e-3, 1),
    text("note_given", "B is the batch dimension; array bytes V = 2*B*N", "what B and V are")};
constexpr Slot kPQ2Slots[] = {number("sparse_over_dense", "ratio", "sparse time over dense")};
constexpr Problem kPQ2{
    .id = "gpus.PopQuiz2",
    .title = "Dense and half-sparse AllToAll in a node",
    .statement =
        "An AllToAll turns bf16[B_X, N] into bf16[B, N_X] over {n_gpus} H100s with "
        "{gpu_egress_Bps} of NVLink "
        "egress each. If only a share {nonzero_fraction} of each row's entries are non-zero, so "
        "only those shards travel, what fraction of the dense AllToAll's time does it take? (Note: "
        "{note_given}.)",
    .kind = "formula",
    .given = kPQ2Given,
    .slots = kPQ2Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          double n = in.num("n_gpus"), w = in.num("gpu_egress_Bps");
          double k = in.num("nonzero_fraction") * n;
          double v = n * in.num("bytes_per_elem");  // V = 2BN per unit of B
          double dense = tr.step("Dense, per unit of B", kA2AApprox, {v, n, w});
          double sparse = tr.step("Ragged, k of N shards", kA2ARagged, {v, n, w, k});
          double q = tr.step("Sparse over dense", kRatio, {sparse, dense});
          return Answers{{"sparse_over_dense", q}};
        },
};

}  // namespace

void add_problems_collectives_b(Registry& r);  // problems_collectives_b.cpp

void add_problems_collectives(Registry& r) {
  static constexpr Problem kAll[] = {kQ23, kPQ1, kPQ2};
  r.add(kAll);
  add_problems_collectives_b(r);
}

}  // namespace sb::gpus
