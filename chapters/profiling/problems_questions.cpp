// The chapter's Worked Problems: Question 1 (reading a profile's shapes back into the program)
// and Question 2 with its follow-ups (the mock Transformer's profile, fixed).
#include <string>

#include "chapters/profiling/hlo.hpp"
#include "chapters/profiling/model.hpp"
#include "core/error.hpp"
#include "core/registry.hpp"

#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::profiling {
namespace {

// The replica group of Question 1 read as HLO prints it: its size is the collective's degree.
double group_size_of(const std::string& group, Text field) {
  const hlo::Module m = hlo::parse("%ar = bf16[8] all-reduce(bf16[8] %x), replica_groups={" +
                                   group + "}, to_apply=%add");
  if (m.instructions.empty() || !m.instructions[0].group_size)
    fail(field, "write the group as HLO does, like {0,16,32}", "bad_hlo");
  return *m.instructions[0].group_size;
}

constexpr Param kQ1Given[] = {
    count("n_devices", 128, "devices in the program"),
    text("mesh", "8x16", "the device mesh"),
    text("replica_group", "{0,16,32,48,64,80,96,112}", "one replica group of the AllReduce"),
    text("fusion_out", "bf16[4096]", "the first fusion's result"),
    text("fusion_lhs", "bf16[4096,8192]", "its matrix operand"),
    text("fusion_rhs", "bf16[8192]", "its vector operand"),
    text("input", "bf16[8,8192]", "the program's input as the question's profile lists it")};
constexpr Slot kQ1Slots[] = {
    number("model_parallel_degree", "count", "model-parallel degree"),
    number("batch", "count", "batch"), number("d_model", "count", "d_model"),
    number("d_ff", "count", "d_ff (global)"), number("local_d_ff", "count", "d_ff on one device")};
constexpr Problem kQ1{
    .id = "profiling.Q1",
    .title = "Reverse-engineering a two-matmul profile",
    .statement =
        "A program runs on {n_devices} devices as a {mesh} mesh. Its profile shows a fusion "
        "{fusion_out} from {fusion_lhs} and {fusion_rhs}, an input {input}, and an AllReduce "
        "over the group {replica_group}. What is the model-parallel degree, the batch, d_model, "
        "and d_ff globally and on one device?",
    .kind = "numeric",
    .given = kQ1Given,
    .slots = kQ1Slots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double mp = group_size_of(in.text("replica_group"), "replica_group");
          tr.value("Devices in one replica group", mp, "count");
          const hlo::Shape out = hlo::parse_shape(in.text("fusion_out"), "fusion_out");
          const hlo::Shape lhs = hlo::parse_shape(in.text("fusion_lhs"), "fusion_lhs");
          const hlo::Shape x = hlo::parse_shape(in.text("input"), "input");
          if (out.dims.size() != 1 || lhs.dims.size() != 2 || x.dims.size() != 2)
            fail("fusion_lhs", "the question's mat-vec is [F, D] x [D] -> [F]");
          const double local = static_cast<double>(out.dims[0]);
          const double d = static_cast<double>(lhs.dims[1]);  // the dim not in the result
          tr.value("$d_{model}$: the contracted dim", d, "count");
          tr.value("$d_{ff}$ on one device: the result's dim", local, "count");
          const double f =
              tr.step("$d_{ff}$ over the model-parallel group", kGlobalDim, {local, mp});
          const double b = static_cast<double>(x.dims[0]);
          tr.value("Batch: the input's leading dim", b, "count");
          return Answers{{"model_parallel_degree", mp},
                         {"batch", b},
                         {"d_model", d},
                         {"d_ff", f},
                         {"local_d_ff", local}};
        },
    .hint = "The group's size is the degree; the stride between its ids names the mesh axis.",
};

constexpr Param kQ2aGiven[] = {count("n_cores", 8, "TPU v2 cores")};
constexpr Problem kQ2a{
    .id = "profiling.Q2a",
    .title = "Benchmark and fix the mock Transformer",
    .statement =
        "Profile the mock Transformer as the compiler partitions it on {n_cores} cores, explain "
        "each op's time, fix the sharding, and report the best MFU you reach.",
    .kind = "code",
    .given = kQ2aGiven,
    .model_answer =
        "Left to the compiler, the layer spends much of its time in collectives that gather "
        "weights or activations it did not need whole. Pin the intermediate shardings with "
        "jax.lax.with_sharding_constraint: activations split over the batch on the data axis "
        "and over d_ff (the MLP) or the heads (attention) on the model axis, so each matmul "
        "runs on local blocks and only one ReduceScatter or AllReduce follows each block. Check "
        "the fixed profile op by op against the roofline: the HLO reader above gives each op's "
        "expected time, and MFU is the roofline's compute time over the measured step.",
};

constexpr Problem kQ2b{
    .id = "profiling.Q2b",
    .title = "Sharding strategy read from profile",
    .statement = "Which sharding strategy does the fixed profile show?",
    .kind = "conceptual",
    .model_answer =
        "Read it off the shapes: a dim that is smaller than the model's by the data-parallel "
        "degree is the batch split over data; a d_ff or heads dim smaller by the model-parallel "
        "degree is Megatron-style model parallelism; the collectives' replica groups say over "
        "which mesh axis each one runs (their stride names the axis).",
};

constexpr Problem kQ2c{
    .id = "profiling.Q2c",
    .title = "Batch and model sizes from profile",
    .statement = "Read the batch size, d_model and d_ff off the fixed profile.",
    .kind = "numeric",
    .model_answer =
        "Take a matmul's local shapes (the HLO reader prints them), find the contracted dim "
        "(d_model for the up-projection, d_ff for the down-projection) and multiply every "
        "sharded dim by its degree, which the replica groups give: the batch by the data-"
        "parallel degree, d_ff by the model-parallel degree.",
};

constexpr Param kQ2dGiven[] = {
    ranged("upproj_time_s", "s", 0.0956097, "roofline time of one MLP matmul", 1e-9, 1e4),
    ranged("proj_time_s", "s", 0.0239024, "roofline time of one attention projection", 1e-9, 1e4),
    ranged("score_matmul_time_s", "s", 0.0029878, "roofline time of one score matmul", 1e-9, 1e4),
    count("n_attn_proj", 4, "attention projections (Q, K, V, O)"),
    count("n_score_matmuls", 2, "score matmuls (QK and the weighted sum)")};
constexpr Slot kQ2dSlots[] = {number("attention_fraction", "ratio", "attention's share"),
                              number("mlp_fraction", "ratio", "the MLP's share")};
constexpr Problem kQ2d{
    .id = "profiling.Q2d",
    .title = "Attention versus MLP time share",
    .statement =
        "An MLP matmul takes {upproj_time_s} (the MLP has two), an attention projection "
        "{proj_time_s} ({n_attn_proj} of them) and a score matmul {score_matmul_time_s} "
        "({n_score_matmuls} of them). What share of the layer's time goes to attention, and "
        "what share to the MLP?",
    .kind = "numeric",
    .given = kQ2dGiven,
    .slots = kQ2dSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double mlp =
              tr.sum("MLP: up- and down-projection", "T_mlp", "s",
                     {{"T_up", in.num("upproj_time_s")}, {"T_down", in.num("upproj_time_s")}});
          const double attn =
              tr.sum("Attention", "T_attn", "s",
                     {{"T_proj", in.num("n_attn_proj") * in.num("proj_time_s")},
                      {"T_score", in.num("n_score_matmuls") * in.num("score_matmul_time_s")}});
          const double total =
              tr.sum("The layer", "T_total", "s", {{"T_mlp", mlp}, {"T_attn", attn}});
          return Answers{
              {"attention_fraction", tr.step("Attention's share", kShare, {attn, total})},
              {"mlp_fraction", tr.step("The MLP's share", kShare, {mlp, total})}};
        },
    .model_answer = "The MLP's two big matmuls dominate: about two thirds of the layer.",
};

constexpr Problem kQ2e{
    .id = "profiling.Q2e",
    .title = "Roofline time share per op",
    .statement = "What share of the layer's time should each op take at the roofline?",
    .kind = "numeric",
    .model_answer =
        "Divide each op's roofline time by the layer's: two MLP matmuls, four attention "
        "projections and two score matmuls, from the worked profile above; compare each share "
        "with the profile's.",
};

constexpr Problem kQuestionProblems[] = {kQ1, kQ2a, kQ2b, kQ2c, kQ2d, kQ2e};

}  // namespace

void add_problems_questions(Registry& r) { r.add(kQuestionProblems); }

}  // namespace sb::profiling
