// The chapter's programming questions (P1.1 to P4): each a model solution in our words and a
// checker for the numbers a reader can predict (local shapes, bytes, FLOPs, times).
#include <string>

#include "chapters/jax_stuff/problems.hpp"
#include "chapters/tpus/torus.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::jax_stuff {
namespace {

namespace sh = sharding;

// ------------------------------------------------------------------ Question 1

constexpr Param kQ1Given[] = {text("mesh", "4x2", "the mesh's shape"),
                              text("axes", "('X','Y')", "its axis names"),
                              count("S", 8192, "S: rows of A"), count("D", 2048, "D: columns of A"),
                              count("shift", 3, "the roll's shift", {}, 1, 1e6)};
constexpr Slot kQ1Slots[] = {number("local_rows", "count", "rows of A on each device"),
                             number("local_cols", "count", "columns of A on each device"),
                             number("out_rows", "count", "rows of the [X, Y] result"),
                             number("out_cols", "count", "columns of the [X, Y] result")};

// A[S_X, D_Y]'s block on each device, as sharding's local shape; the [X, Y] result's shape.
Answers q1_solve(const Inputs& in, Trace& tr) {
  const Mesh m = mesh_of(in.text("mesh"), in.text("axes"));
  if (m.names.size() != 2) fail("mesh", "the question's mesh has two axes", "bad_mesh");
  const std::string spec = "P('" + m.names[0] + "', '" + m.names[1] + "')";
  const Sharding s =
      sh::spec_sharding(sh::parse_partition_spec(spec, "mesh"), m, "A", {"S", "D"}, "mesh");
  const sh::LocalShape l = sh::local_shape(s, m, {in.num("S"), in.num("D")}, 4, "S", &tr);
  const double X = tr.value("One mean per device along " + m.names[0], m.sizes[0], "count");
  const double Y = tr.value("and along " + m.names[1], m.sizes[1], "count");
  tr.note(
      "Each device reduces its own block: the shard-mapped version needs no communication, and "
      "neither "
      "does jit once the reshape keeps the shards whole.");
  return Answers{
      {"local_rows", l.local[0]}, {"local_cols", l.local[1]}, {"out_rows", X}, {"out_cols", Y}};
}

constexpr Problem kP11{
    .id = "jax-stuff.P1.1",
    .title = "Per-shard averages with jit and shard_map",
    .statement =
        "A = float32[S_X, D_Y] with S = {S}, D = {D} on a {mesh} mesh {axes}. Return the "
        "mean of each device's block as an [X, Y] array, once with jax.jit and once with "
        "shard_map, and check whether either adds communication. The checker takes each "
        "device's block and the result's shape.",
    .kind = "code",
    .given = kQ1Given,
    .slots = kQ1Slots,
    .solve = q1_solve,
    .model_answer =
        "With shard_map (in_specs P('X', 'Y'), out_specs P('X', 'Y')) each device takes the mean "
        "of its S/X by D/Y block and returns it as a 1 x 1 array: laid out by the out spec, the "
        "X x Y means form the global [X, Y] result, with no collective at all. With jit, reshape "
        "A to [X, S/X, Y, D/Y] and take the mean over axes 1 and 3; the reshape keeps every "
        "block on its device when the shardings line up, so the compiled HLO should show no "
        "all-gather or all-reduce (check it with jax.jit(f).lower(A).compile().as_text()).",
};

Answers q12_solve(const Inputs& in, Trace& tr) {
  Answers a = q1_solve(in, tr);
  if (in.num("shift") >= a["local_rows"])
    tr.note(
        "The shift is at least the block's rows: inside a block it wraps round more than once.");
  tr.note("The roll stays inside each block: no ppermute is needed.");
  return Answers{{"local_rows", a["local_rows"]}, {"local_cols", a["local_cols"]}};
}

constexpr Slot kQ12Slots[] = {number("local_rows", "count", "rows of A on each device"),
                              number("local_cols", "count", "columns of A on each device")};
constexpr Problem kP12{
    .id = "jax-stuff.P1.2",
    .title = "Roll within each X shard",
    .statement =
        "A = float32[S_X, D_Y] with S = {S}, D = {D} on a {mesh} mesh {axes}. With "
        "shard_map, compute roll(A, {shift}, axis=0) - A where the roll wraps round "
        "inside each X block. The checker takes each device's block.",
    .kind = "code",
    .given = kQ1Given,
    .slots = kQ12Slots,
    .solve = q12_solve,
    .model_answer =
        "Map over the mesh with in_specs and out_specs P('X', 'Y'). Each device sees its S/X by "
        "D/Y block; jnp.roll of the block along axis 0 by the shift, minus the block, is exactly "
        "the per-shard roll, because rows never leave their block. The result keeps A's "
        "sharding and no collective runs.",
};

// ------------------------------------------------------------------ Question 2: MoE

constexpr Param kMoeGiven[] = {text("mesh", "8", "devices along X"),
                               count("E", 16, "E: experts"),
                               count("S", 4096, "S: tokens"),
                               count("D", 1024, "D: model width"),
                               count("F", 4096, "F: expert hidden width"),
                               count("k", 2, "k: experts per token (part 4)", {}, 1, 64),
                               kChip};

struct Moe {
  double X, E, S, D, F, k;
  const hw::Chip* chip;
};
Moe moe_of(const Inputs& in) {
  const Mesh m = sh::parse_mesh(in.text("mesh"), "mesh");
  if (m.sizes.size() != 1) fail("mesh", "the MoE is sharded over one axis X", "bad_mesh");
  Moe g{static_cast<double>(m.sizes[0]),
        in.num("E"),
        in.num("S"),
        in.num("D"),
        in.num("F"),
        in.num("k"),
        &hw::chip(in.text("chip"))};
  if (std::fmod(g.E, g.X) != 0) fail("E", "the experts do not divide over X", "not_divisible");
  if (std::fmod(g.S, g.X) != 0) fail("S", "the tokens do not divide over X", "not_divisible");
  return g;
}

// A over X: gathered whole (AllGather) or sent to the experts' devices (AllToAll), float32.
double moe_comm(const Moe& g, sh::Op op, Trace& tr) {
  sh::Axis x;
  x.name = "X";
  x.size = g.X;
  x.wrap = tpus::wraps(*g.chip, {static_cast<int>(g.X)})[0];
  const sh::Link l = ici_link(*g.chip, 0, tpus::hop_latency(*g.chip), true);
  const double V = tr.product("$A[S, D]$ in float32", "V", "B", {{"S", g.S}, {"D", g.D}, {"s", 4}});
  return sh::collective_cost(op, V, {x}, l, &tr, sh::op_name(op)).t;
}

constexpr Slot kP21Slots[] = {number("bucket_bytes", "B", "bytes of an [E, S, D] bucket"),
                              number("sdf_bytes", "B", "bytes of the [S, D, F] array avoided"),
                              number("scan_flops", "flop", "FLOPs of the scan over experts"),
                              number("ragged_flops", "flop", "FLOPs of the ragged ideal")};
Answers p21_solve(const Inputs& in, Trace& tr) {
  const Moe g = moe_of(in);
  const double bucket = tr.product("An $[E, S, D]$ bucket in float32", "bytes", "B",
                                   {{"E", g.E}, {"S", g.S}, {"D", g.D}, {"s", 4}});
  const double sdf = tr.product("The $[S, D, F]$ array a gather of W per token makes", "bytes", "B",
                                {{"S", g.S}, {"D", g.D}, {"F", g.F}, {"s", 4}});
  const double one =
      tr.step("Every token through one expert", roofline::kMatmulFlops, {g.S, g.D, g.F});
  const double scan = tr.product("The scan: every token through every expert", "FLOPs", "flop",
                                 {{"E", g.E}, {"FLOPs_1", one}});
  return Answers{
      {"bucket_bytes", bucket}, {"sdf_bytes", sdf}, {"scan_flops", scan}, {"ragged_flops", one}};
}

constexpr Problem kP21{
    .id = "jax-stuff.P2.1",
    .title = "Local MoE without an [S,D,F] array",
    .statement =
        "W = float32[E, D, F], A = float32[S, D] and B = int32[S] with E = {E}, S = {S}, "
        "D = {D}, F = {F}. Compute Out[i] = A[i] @ W[B[i]] without building an [S, D, F] "
        "array. The checker takes the bytes of the array avoided and of an [E, S, D] "
        "bucket, and the FLOPs of a scan over experts against the ragged ideal.",
    .kind = "code",
    .given = kMoeGiven,
    .slots = kP21Slots,
    .solve = p21_solve,
    .model_answer =
        "Loop over the experts with lax.scan (or fori_loop): for expert e compute A @ W[e] for "
        "every token and keep the rows whose B equals e (jnp.where into the running output). "
        "Memory stays at [S, F]; the cost is E times the FLOPs of the ideal, since every token "
        "goes through every expert. The ragged ideal sorts the tokens by expert and multiplies "
        "each group by its own weight (jax.lax.ragged_dot does this); a padded [E, S, D] bucket "
        "needs room for S tokens per expert, because every token may pick the same one.",
};

constexpr Slot kCommSlots[] = {number("allgather_bytes", "B", "bytes of A gathered"),
                               number("t_allgather_s", "s", "time of the AllGather")};
Answers p22_solve(const Inputs& in, Trace& tr) {
  const Moe g = moe_of(in);
  const double t = moe_comm(g, sh::Op::AllGather, tr);
  return Answers{{"allgather_bytes", g.S * g.D * 4}, {"t_allgather_s", t}};
}

constexpr Problem kP22{
    .id = "jax-stuff.P2.2",
    .title = "Profile the jit-compiled MoE",
    .statement =
        "Shard the MoE with W = float32[E_X, D, F], A = float32[S_X, D], B = int32[S_X] "
        "over {mesh} devices (E = {E}, S = {S}, D = {D}, F = {F}) and jit it. What does "
        "XLA add, and how long should it take on a {chip}? The checker takes the "
        "AllGather of A: its bytes and time.",
    .kind = "code",
    .given = kMoeGiven,
    .slots = kCommSlots,
    .solve = p22_solve,
    .model_answer =
        "Each device holds E/X experts but tokens routed to any expert, so the simplest plan "
        "XLA finds is to gather A (and B) whole on every device, run the local MoE on the "
        "experts it holds, and combine: expect an all-gather of A in the profile, S D 4 bytes "
        "gathered over X, before the expert matmuls. Compare its measured time with the "
        "AllGather's prediction.",
};

constexpr Slot kP23aSlots[] = {number("allgather_bytes", "B", "bytes of A gathered"),
                               number("t_allgather_s", "s", "time of the AllGather"),
                               number("local_scan_flops", "flop", "FLOPs per device, scan")};
Answers p23a_solve(const Inputs& in, Trace& tr) {
  const Moe g = moe_of(in);
  const double t = moe_comm(g, sh::Op::AllGather, tr);
  const double one =
      tr.step("Every token through one expert", roofline::kMatmulFlops, {g.S, g.D, g.F});
  const double local = tr.product("Every token through this device's experts", "FLOPs", "flop",
                                  {{"E_loc", g.E / g.X}, {"FLOPs_1", one}});
  return Answers{
      {"allgather_bytes", g.S * g.D * 4}, {"t_allgather_s", t}, {"local_scan_flops", local}};
}

constexpr Problem kP23a{
    .id = "jax-stuff.P2.3a",
    .title = "shard_map MoE with all_gather",
    .statement =
        "The same MoE over {mesh} devices (E = {E}, S = {S}, D = {D}, F = {F}) as a "
        "shard_map: all_gather A and B, then run part 1 on the local experts. The "
        "checker takes the gather's bytes and time on a {chip} and each device's FLOPs.",
    .kind = "code",
    .given = kMoeGiven,
    .slots = kP23aSlots,
    .solve = p23a_solve,
    .model_answer =
        "In shard_map each device all_gathers A and B over X (tiled), so it sees every token. "
        "It runs part 1's loop over its E/X experts only, producing rows for the tokens routed "
        "to them and zeros elsewhere; a psum_scatter over X then sums the devices' "
        "contributions and hands each device its own S/X rows back.",
};

constexpr Slot kP23bSlots[] = {number("alltoall_bytes", "B", "bytes of A the AllToAll moves"),
                               number("t_alltoall_s", "s", "time of the AllToAll")};
Answers p23b_solve(const Inputs& in, Trace& tr) {
  const Moe g = moe_of(in);
  const double t = moe_comm(g, sh::Op::AllToAll, tr);
  return Answers{{"alltoall_bytes", g.S * g.D * 4}, {"t_alltoall_s", t}};
}

constexpr Problem kP23b{
    .id = "jax-stuff.P2.3b",
    .title = "Ragged MoE with all_to_all loop",
    .statement =
        "The same MoE over {mesh} devices (E = {E}, S = {S}, D = {D}, F = {F}), with "
        "each token sent only to the device of its expert by all_to_all, chunk by chunk "
        "in a loop, and no [E, S, D] array. The checker takes the AllToAll of A on a "
        "{chip}: the array it moves and its time.",
    .kind = "code",
    .given = kMoeGiven,
    .slots = kP23bSlots,
    .solve = p23b_solve,
    .model_answer =
        "Sort each device's tokens by destination device (argsort of B // (E/X)) and count how "
        "many go to each. In a while_loop, take a fixed-size chunk (say 128 rows) per "
        "destination, all_to_all it, run the ragged local matmul on what arrived, all_to_all the "
        "results back and scatter them into place, until every token is done. Only the routed "
        "rows travel, about a quarter of an AllGather's time on a ring.",
};

constexpr Slot kP24Slots[] = {number("topk_flops", "flop", "FLOPs of the ragged top-k MoE")};
Answers p24_solve(const Inputs& in, Trace& tr) {
  const Moe g = moe_of(in);
  const double one =
      tr.step("Every token through one expert", roofline::kMatmulFlops, {g.S, g.D, g.F});
  const double k =
      tr.product("Through k experts each", "FLOPs", "flop", {{"k", g.k}, {"FLOPs_1", one}});
  return Answers{{"topk_flops", k}};
}

constexpr Problem kP24{
    .id = "jax-stuff.P2.4",
    .title = "Top-k MoE routing",
    .statement =
        "Extend the MoE (S = {S}, D = {D}, F = {F}) so that B = int32[S, k] routes each "
        "token to k = {k} experts and the output averages theirs. The checker takes the "
        "FLOPs of the ragged version.",
    .kind = "code",
    .given = kMoeGiven,
    .slots = kP24Slots,
    .solve = p24_solve,
    .model_answer =
        "Repeat each token k times (A[i] once per chosen expert, B flattened to [S k]), run the "
        "single-expert MoE on the S k rows, reshape the output to [S, k, F] and take the mean "
        "over k. The work is k times the single-expert ragged matmul.",
};

// ------------------------------------------------------------------ Question 3, 4

constexpr Slot kP31Slots[] = {number("flops_per_device", "flop", "FLOPs per device"),
                              number("allreduce_bytes", "B", "bytes of the partial sums"),
                              number("t_allreduce_s", "s", "time of the AllReduce"),
                              number("t_math_s", "s", "time of the local matmul")};
Answers p31_solve(const Inputs& in, Trace& tr) {
  const CmInput c = cm_of(in, CmKind::AllGather, false);
  const double b = c.B / c.X, d = c.D / c.Y;
  const double fl =
      tr.step("The local matmul $[B/X, D/Y] \\cdot [D/Y, F]$", roofline::kMatmulFlops, {b, d, c.F});
  const double tm = tr.step("Its time", roofline::kTMath, {fl, c.peak});
  const double V = tr.product("Partial sums $Out[B_X, F]\\{U_Y\\}$", "V", "B",
                              {{"s", c.s}, {"b", b}, {"F", c.F}});
  sh::Axis y;
  y.name = "Y";
  y.size = c.Y;
  y.wrap = c.wrap;
  const double t = sh::collective_cost(sh::Op::AllReduce, V, {y}, c.link, &tr, "AllReduce").t;
  return Answers{
      {"flops_per_device", fl}, {"allreduce_bytes", V}, {"t_allreduce_s", t}, {"t_math_s", tm}};
}

constexpr Problem kP31{
    .id = "jax-stuff.P3.1",
    .title = "AllReduce collective matmul",
    .statement =
        "A[B_X, D_Y] . W[D_Y, F] -> Out[B_X, F] with B = {B}, D = {D}, F = {F} on a "
        "{mesh} mesh {axes}: overlap the AllReduce with the matmul by tiling the output. "
        "The checker takes what you can predict on a {chip} in {dtype}: the FLOPs and "
        "time of the local matmul, and the AllReduce's bytes and time.",
    .kind = "code",
    .given = kCmGiven,
    .slots = kP31Slots,
    .solve = p31_solve,
    .model_answer =
        "Split F into tiles. For each tile compute the local partial product [B/X, tile] and "
        "start its psum over Y while the next tile's matmul runs (a python loop or scan over "
        "tiles lets XLA schedule the collectives asynchronously). When the AllReduce takes "
        "longer than the matmul nothing can hide it, and the plain matmul then AllReduce may be "
        "just as fast: compare the two times below before expecting a gain.",
};

constexpr Slot kP32Slots[] = {number("step_flops", "flop", "FLOPs of one step"),
                              number("permute_bytes", "B", "bytes one ppermute moves"),
                              number("t_collective_s", "s", "predicted collective matmul"),
                              number("t_naive_s", "s", "matmul then ReduceScatter")};
Answers p32_solve(const Inputs& in, Trace& tr) {
  const CmResult r = collective_matmul(cm_of(in, CmKind::ReduceScatter, false), &tr);
  return Answers{{"step_flops", r.step_flops},
                 {"permute_bytes", r.block_bytes},
                 {"t_collective_s", r.t_cm},
                 {"t_naive_s", r.t_naive}};
}

constexpr Problem kP32{
    .id = "jax-stuff.P3.2",
    .title = "ReduceScatter collective matmul",
    .statement =
        "Tmp[B_X, F_Y] . W2[F_Y, D] -> Out[B_X, D_Y] with B = {B}, D = {D}, F = {F} on "
        "a {mesh} mesh {axes}: overlap the ReduceScatter with the matmul, sending only "
        "the partial sums. The checker takes one step's FLOPs and ppermute bytes and the "
        "two times on a {chip} in {dtype}.",
    .kind = "code",
    .given = kCmGiven,
    .slots = kP32Slots,
    .solve = p32_solve,
    .model_answer =
        "Each device owns the output block [B/X, D/Y] of one device of the ring at a time. Start "
        "with the block destined for the device one step away: multiply the local Tmp by the "
        "D/Y columns of W2 for that destination. Then repeat Y - 1 times: ppermute the running "
        "partial sum one step along the ring while multiplying the next destination's columns, "
        "and add. After the last step the block in hand is this device's own, fully summed. "
        "Only [B/X, D/Y] partial sums ever travel.",
};

constexpr Slot kP33Slots[] = {number("t_block_s", "s", "the overlapped block"),
                              number("t_naive_s", "s", "the block without overlap")};
Answers p33_solve(const Inputs& in, Trace& tr) {
  const CmResult a = collective_matmul(cm_of(in, CmKind::AllGather, false), &tr);
  const CmResult b = collective_matmul(cm_of(in, CmKind::ReduceScatter, false), &tr);
  const double t =
      tr.sum("The block, overlapped", "T_block", "s", {{"T_cm_AG", a.t_cm}, {"T_cm_RS", b.t_cm}});
  const double n = tr.sum("The block, not overlapped", "T_naive_block", "s",
                          {{"T_naive_AG", a.t_naive}, {"T_naive_RS", b.t_naive}});
  return Answers{{"t_block_s", t}, {"t_naive_s", n}};
}

constexpr Problem kP33{
    .id = "jax-stuff.P3.3",
    .title = "End-to-end overlapped MLP block",
    .statement =
        "In[B_X, D_Y] . W_in[D, F_Y] . W_out[F_Y, D] -> Out[B_X, D_Y] with B = {B}, "
        "D = {D}, F = {F} on a {mesh} mesh {axes}: chain the AllGather and ReduceScatter "
        "collective matmuls and compare with jax.jit. The checker takes the block's "
        "time on a {chip} in {dtype}, with and without overlap.",
    .kind = "code",
    .given = kCmGiven,
    .slots = kP33Slots,
    .solve = p33_solve,
    .model_answer =
        "The first matmul is the chapter's AllGather collective matmul, giving [B_X, F_Y] "
        "(apply the activation there, it is elementwise); the second is question 3.2's "
        "ReduceScatter collective matmul, back to [B_X, D_Y]. Put both in one shard_map, check "
        "the result against the jitted einsums, and compare the profiles: jit's version shows a "
        "blocking all-gather and reduce-scatter that the overlapped one hides.",
};

constexpr Slot kP4Slots[] = {
    number("t_allgather_bidi_s", "s", "AllGather version, both ways"),
    number("t_reducescatter_bidi_s", "s", "ReduceScatter version, both ways")};
Answers p4_solve(const Inputs& in, Trace& tr) {
  const CmResult a = collective_matmul(cm_of(in, CmKind::AllGather, true), &tr);
  const CmResult b = collective_matmul(cm_of(in, CmKind::ReduceScatter, true), &tr);
  return Answers{{"t_allgather_bidi_s", a.t_cm}, {"t_reducescatter_bidi_s", b.t_cm}};
}

constexpr Problem kP4{
    .id = "jax-stuff.P4",
    .title = "Bidirectional collective matmuls",
    .statement =
        "Rewrite the collective matmuls (B = {B}, D = {D}, F = {F}, a {mesh} mesh "
        "{axes}) to send each block both ways round the ring, and measure the speed-up. "
        "The checker takes the predicted times on a {chip} in {dtype}.",
    .kind = "code",
    .given = kCmGiven,
    .slots = kP4Slots,
    .solve = p4_solve,
    .model_answer =
        "Split each block that travels into two halves and ppermute one half to each "
        "neighbour, so both directions of every link carry data. Each step multiplies the two "
        "halves that arrived with their matching weight rows (or, for the ReduceScatter "
        "version, accumulates two half partial sums, one flowing each way). Each step's "
        "transfer takes half as long, which matters only where the ppermute was the longer "
        "part of the step.",
};

constexpr Problem kQuestions[] = {kP11, kP12, kP21, kP22, kP23a, kP23b,
                                  kP24, kP31, kP32, kP33, kP4};

}  // namespace

void add_problems_questions(Registry& r) { r.add(kQuestions); }

}  // namespace sb::jax_stuff
