// The profiling chapter's problems: the in-text worked examples (W1-W3, E1) and the Worked
// Problems (Q1, Q2a-e), ids and slots as in shared/book/problems/profiling.json. Every answer
// is computed by the model from the problem's own stated inputs (23e12 FLOPs/s a core, 1.2e11 B/s).
#include <string>

#include "chapters/profiling/hlo.hpp"
#include "chapters/profiling/model.hpp"
#include "chapters/roofline/model.hpp"
#include "chapters/sharding/collectives.hpp"
#include "chapters/sharding/model.hpp"
#include "core/error.hpp"
#include "core/registry.hpp"
#include "core/units.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::profiling {
namespace {

// An array given as HLO prints it; an InputError naming the given when it does not read.
hlo::Shape array_given(const Inputs& in, Text name) {
  return hlo::parse_shape(in.text(name), std::string(name));
}

constexpr Param kW1Given[] = {
    count("global_batch_seqs", 32, "sequences in the global batch"),
    tokens("seq_len", 1024, "tokens per sequence"),
    count("d_model", 8192, "model width D"),
    count("d_ff", 32768, "MLP width F"),
    count("dp", 4, "data-parallel degree"),
    count("mp", 2, "model-parallel degree"),
    count("n_cores", 8, "TPU v2 cores"),
    rate("core_bf16_flops_per_s", "flop_per_s", 23e12, "bf16 FLOPs/s of one core"),
    text("local_lhs", "bf16[8,1024,8192]", "the op's left operand on one core"),
    text("local_rhs", "bf16[8192,16384]", "the op's right operand on one core"),
    text("local_out", "bf16[8,1024,16384]", "the op's result on one core")};
constexpr Slot kW1Slots[] = {
    number("tokens_per_dp_shard", "tokens", "tokens in one data-parallel shard"),
    number("matmul_flops", "flop", "FLOPs of the whole up-projection"),
    derived(number("upproj_time", "s", "roofline time of the sharded up-projection"), From::Flops)};
constexpr Problem kW1{
    .id = "profiling.W1",
    .title = "Expected time of the FFW up-projection",
    .statement =
        "The mock Transformer's batch is {global_batch_seqs} sequences of {seq_len}, with "
        "D = {d_model} and F = {d_ff}, split {dp}-way over data and {mp}-way over the model on "
        "{n_cores} TPU v2 cores of {core_bf16_flops_per_s} each. One core's up-projection "
        "multiplies {local_lhs} by {local_rhs} into {local_out}. How many tokens does a "
        "data-parallel shard hold, how many FLOPs is the whole up-projection, and how long "
        "should it take?",
    .kind = "numeric",
    .given = kW1Given,
    .slots = kW1Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double B = in.num("global_batch_seqs"), T = in.num("seq_len"),
                       D = in.num("d_model"), F = in.num("d_ff");
          const double tok = tr.step("Tokens per shard", kTokensPerShard, {B, in.num("dp"), T});
          const hlo::Shape out = array_given(in, "local_out"), lhs = array_given(in, "local_lhs");
          if (lhs.dims.empty()) fail("local_lhs", "the operand needs dims");
          tr.step("One core's FLOPs, from its shapes", kDotFlops,
                  {hlo::elements(out), static_cast<double>(lhs.dims.back())});
          const double flops =
              tr.step("The whole up-projection", roofline::kMatmulFlops, {B * T, D, F});
          const double t = tr.step("Spread over every core", kShardedTime,
                                   {flops, in.num("n_cores"), in.num("core_bf16_flops_per_s")});
          tr.note("Each shard holds " + units::whole(tok) +
                  " tokens, far above the critical batch: the op is compute-bound.");
          return Answers{{"tokens_per_dp_shard", tok}, {"matmul_flops", flops}, {"upproj_time", t}};
        },
    .hint = "A matmul is 2 x tokens x D x F FLOPs; every core does an equal share.",
};

constexpr Param kW2Given[] = {
    text("global_shape", "bf16[32,1024,8192]", "the activations' global shape"),
    per_param("bytes_per_elem", 2, "bytes per element"), count("dp", 4, "data-parallel degree"),
    count("hops", 1, "hops of the ReduceScatter's ring"),
    rate("link_bw_bidir_Bps", "B_per_s", 1.2e11, "link bandwidth, both ways")};
constexpr Slot kW2Slots[] = {
    number("shard_bytes", "B", "bytes each device holds before the ReduceScatter"),
    derived(number("reducescatter_time", "s", "expected ReduceScatter time"), From::Link)};
constexpr Problem kW2{
    .id = "profiling.W2",
    .title = "Expected time of the small ReduceScatter",
    .statement =
        "The activations are {global_shape} at {bytes_per_elem} an element, split {dp}-way over "
        "data; the ReduceScatter between the model-parallel pair is {hops} {hops|hop|hops} over "
        "a link of {link_bw_bidir_Bps} both ways. How many bytes does each device hold, and how "
        "long should the ReduceScatter take?",
    .kind = "numeric",
    .given = kW2Given,
    .slots = kW2Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const hlo::Shape g = array_given(in, "global_shape");
          const double v = tr.step("Each device's share of the activations", kArrayBytes,
                                   {hlo::elements(g) / in.num("dp"), in.num("bytes_per_elem")});
          sharding::Link link;
          link.w_uni = tr.step("One way", sharding::kWUni, {in.num("link_bw_bidir_Bps")});
          const double n = in.num("hops") + 1;  // a ring of hops + 1 devices
          const double t = sharding::collective_cost(sharding::Op::ReduceScatter, v,
                                                     {sharding::Axis{"Y", n, true, 1}}, link, &tr,
                                                     "ReduceScatter")
                               .t_bw;
          Answers a{{"shard_bytes", v}, {"reducescatter_time", t}};
          a.slip("reducescatter_time", roofline::t_comms(v, link.w_uni),
                 "That divides by one direction of the link; the ring sends both ways.");
          return a;
        },
    .hint = "One hop of a ring: the bytes over the link's two-way bandwidth.",
};

constexpr Param kW3Given[] = {text("shape", "f32[3,5]", "the array"),
                              text("tile", "T(2,2)", "the tile"),
                              text("layout", "{1,0:T(2,2)}", "the layout as HLO prints it")};
constexpr Slot kW3Slots[] = {number("padded_rows", "count", "rows after padding"),
                             number("padded_cols", "count", "columns after padding"),
                             number("memory_blowup", "ratio", "memory blow-up")};
constexpr Problem kW3{
    .id = "profiling.W3",
    .title = "Padding overhead of a tiled layout",
    .statement =
        "An array {shape} is laid out {layout}: tiles {tile}. What is its padded shape, "
        "and how much more memory does it take than its elements need?",
    .kind = "numeric",
    .given = kW3Given,
    .slots = kW3Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const hlo::Shape s = hlo::parse_shape(in.text("shape") + in.text("layout"), "layout");
          if (s.dims.size() != 2 || s.tiles.empty() || s.tiles[0].size() != 2)
            fail("layout", "give a 2-D array with a 2-D tile, like {1,0:T(2,2)}");
          const double rows =
              tr.step("Rows", kPaddedDim, {double(s.dims[0]), double(s.tiles[0][0])});
          const double cols =
              tr.step("Columns", kPaddedDim, {double(s.dims[1]), double(s.tiles[0][1])});
          const double b = hlo::dtype_bits(s.dtype).value_or(0) / 8;
          const double up = tr.step("Blow-up", kBlowup, {rows * cols * b, hlo::elements(s) * b});
          return Answers{{"padded_rows", rows}, {"padded_cols", cols}, {"memory_blowup", up}};
        },
    .hint = "Round each tiled dim up to a multiple of its tile.",
};

constexpr Param kE1Given[] = {
    count("global_batch_seqs", 32, "sequences in the global batch"),
    tokens("seq_len", 1024, "tokens per sequence"),
    count("d_model", 8192, "model width D"),
    count("n_heads", 32, "attention heads"),
    count("d_qkv", 256, "width of one head"),
    count("n_cores", 8, "TPU v2 cores"),
    rate("core_bf16_flops_per_s", "flop_per_s", 23e12, "bf16 FLOPs/s of one core")};
constexpr Slot kE1Slots[] = {
    number("q_proj_flops", "flop", "FLOPs of the Q projection"),
    derived(number("q_proj_time", "s", "roofline time of the Q projection"), From::Flops)};
constexpr Problem kE1{
    .id = "profiling.E1",
    .title = "Expected time of the Q projection",
    .statement =
        "In the same mock Transformer ({global_batch_seqs} sequences of {seq_len}, "
        "D = {d_model}), the Q projection maps D to {n_heads} heads of {d_qkv}, sharded over "
        "the heads on {n_cores} cores of {core_bf16_flops_per_s}. How many FLOPs is it, and how "
        "long should it take?",
    .kind = "numeric",
    .given = kE1Given,
    .slots = kE1Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double BT = in.num("global_batch_seqs") * in.num("seq_len");
          const double f = tr.step("Q projection FLOPs", roofline::kMatmulFlops,
                                   {BT, in.num("d_model"), in.num("n_heads") * in.num("d_qkv")});
          const double t = tr.step("Spread over every core", kShardedTime,
                                   {f, in.num("n_cores"), in.num("core_bf16_flops_per_s")});
          tr.note("K, V and the output projection have the same shape and cost the same.");
          return Answers{{"q_proj_flops", f}, {"q_proj_time", t}};
        },
    .hint = "The projection is a matmul of tokens x D by D x (heads x d_qkv).",
};

}  // namespace

void add_problems_questions(Registry& r);  // problems_questions.cpp

constexpr Problem kInTextProblems[] = {kW1, kW2, kW3, kE1};

void add_problems(Registry& r) {
  r.add(kInTextProblems);
  add_problems_questions(r);
}

}  // namespace sb::profiling
