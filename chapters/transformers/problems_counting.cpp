// The transformers chapter's end-of-chapter problems on counting (Q1-Q3): a model's parameters and
// KV bytes, and the FLOPs of a partly sharded matmul and of a general einsum. Ids, slot names and
// units are the catalogue's (shared/book/problems/transformers.json); every expected answer,
// shortcut and named mistake is computed by model.hpp from the problem's inputs.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "chapters/transformers/model.hpp"
#include "chapters/transformers/problems.hpp"
#include "core/registry.hpp"
#include "core/trace.hpp"

// Problems are written with designated initializers; the members left out keep their defaults.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace sb::transformers {
namespace {

using namespace problems;
using Vars = std::map<std::string, double>;

// ---- Q1: a 64-layer model
// ------------------------------------------------------------------------

constexpr double kQ1D[] = {2048, 4096, 8192};
constexpr double kQ1F[] = {8192, 16384, 32768};
constexpr double kQ1V[] = {32000, 50257, 128256};
constexpr double kQ1L[] = {32, 48, 64, 80};
constexpr double kQ1N[] = {16, 32, 64};
constexpr double kQ1K[] = {8, 16, 32};
constexpr double kQ1H[] = {64, 128};
constexpr double kQ1Bytes[] = {1, 2};
constexpr Param kQ1Given[] = {
    dim("L", 64, "layers", kQ1L),
    dim("D", 4096, "model width", kQ1D),
    dim("F", 16384, "MLP width (gated)", kQ1F),
    dim("N", 32, "query heads", kQ1N),
    dim("K", 32, "KV heads (K = N: MHA)", kQ1K),
    dim("H", 128, "head dimension", kQ1H),
    dim("V", 32000, "vocabulary", kQ1V),
    count("norms_per_layer", 2, "norm vectors of size D per layer", {}, 0, 4),
    elem_bytes("bytes_per_elem", 1, "bytes per KV element (int8)", kQ1Bytes),
};
Config q1_config(const Inputs& in) {
  return dense(in.num("L"), in.num("D"), in.num("F"), in.num("N"), in.num("K"), in.num("H"),
               in.num("V"), in.num("norms_per_layer"));
}

constexpr Slot kQ1aSlots[] = {number("total_params", "count", "parameters")};
constexpr Problem kQ1a{
    .id = "transformers.Q1.a",
    .title = "Parameter count of a 64-layer model",
    .statement =
        "A dense transformer has L = {L} layers of width D = {D}, a gated MLP of width F = {F}, "
        "N = {N} query heads and K = {K} KV heads of dimension H = {H}, {norms_per_layer} norm "
        "vectors of size D per layer, and a vocabulary of V = {V} with separate input and output "
        "embeddings. How many parameters does it have?",
    .kind = "numeric",
    .given = kQ1Given,
    .slots = kQ1aSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const Config c = q1_config(in);
          const double L = c.L, D = c.D, F = c.F, N = c.N, K = c.K, H = c.H, V = c.V;
          const double n = c.norms_per_layer;
          tr.step("MLP per layer", kMlpGated, {D, F});
          tr.step("Attention per layer", kAttentionParams, {D, N, K, H});
          tr.step("Norms per layer", kNormParams, {D, n});
          tr.step("Embedding and unembedding", kVocabUntied, {D, V});
          Answers a;
          a["total_params"] = tr.step("Total", kBookParams, {L, D, F, N, K, H, V, n});
          // The book evaluates its formula with D ~ 4e3 and F ~ 16e3 (and N H = D).
          const double Dr = round_sig(D, 1), Fr = round_sig(F, 2);
          a.book("total_params", book_params(L, Dr, Fr, N, K, Dr / N, V, c.norms_per_layer),
                 "rounds D and F (4096 as 4e3, 16384 as 16e3) in L (3DF + 4D^2 + 2D) + 2DV");
          Config plain = c;
          plain.gated = false;
          a.slip("total_params", params(plain).total,
                 "A gated MLP has three matrices, W_in1, W_in2 and W_out: 3DF per layer, not 2DF.");
          return a;
        },
    .erratum =
        "The book evaluates the count with D = 4e3 and F = 16e3, which gives 16.6e9, and "
        "prints 16e9; with D = 4096 and F = 16384 the count is 17.4e9.",
};

constexpr Slot kQ1bSlots[] = {
    number("attention_fraction_layer", "ratio", "attention's share of a layer's parameters"),
    number("attention_fraction_total", "ratio", "attention's share of all parameters")};
constexpr Problem kQ1b{
    .id = "transformers.Q1.b",
    .title = "Fraction of parameters in attention",
    .statement =
        "For the same model (L = {L}, D = {D}, F = {F}, N = {N}, K = {K}, H = {H}, V = {V}, "
        "{norms_per_layer} norms per layer), what fraction of a layer's matmul parameters (the "
        "attention projections and the MLP) are attention weights, and what fraction of all the "
        "model's parameters?",
    .kind = "numeric",
    .given = kQ1Given,
    .slots = kQ1bSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const Config c = q1_config(in);
          const double attn =
              tr.step("Attention per layer", kAttentionParams, {c.D, c.N, c.K, c.H});
          const double mlp = tr.step("MLP per layer", kMlpGated, {c.D, c.F});
          const double P = tr.step("The whole model", kBookParams,
                                   {c.L, c.D, c.F, c.N, c.K, c.H, c.V, c.norms_per_layer});
          Answers a;
          a["attention_fraction_layer"] =
              tr.step("Attention's share of a layer", kAttentionShareOfLayer, {attn, mlp});
          a["attention_fraction_total"] =
              tr.step("Over the whole model (norms and vocabulary included)",
                      kAttentionShareOfModel, {c.L, attn, P});
          a.slip("attention_fraction_layer", attn / mlp,
                 "That is attention over the MLP; the share is attention over both.");
          return a;
        },
};

constexpr Slot kQ1cSlots[] = {number("kv_bytes_per_token", "B", "KV cache per token")};
constexpr Problem kQ1c{
    .id = "transformers.Q1.c",
    .title = "KV cache bytes per token",
    .statement =
        "The same model (L = {L} layers, K = {K} KV heads of dimension H = {H}) keeps its KV "
        "cache at {bytes_per_elem} per element. How many bytes does each token add to the "
        "cache?",
    .kind = "numeric",
    .given = kQ1Given,
    .slots = kQ1cSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const Config c = q1_config(in);
          const double b = in.num("bytes_per_elem");
          Answers a;
          a["kv_bytes_per_token"] =
              tr.step("A key and a value per KV head per layer", kKvPerToken, {c.L, c.K, c.H, b});
          a.slip("kv_bytes_per_token", kv_bytes_per_token(c, b) / 2,
                 "Each token stores a key and a value: the factor 2 in 2 L K H.");
          return a;
        },
};

// ---- Q2: FLOPs of a partly sharded matmul (held out) ------------------------------------------

constexpr double kQ2X[] = {2, 4, 8};
constexpr double kQ2Y[] = {2, 4, 8, 16};
constexpr double kQ2Z[] = {1, 2, 4, 8};
constexpr Param kQ2Given[] = {
    count("X", 4, "devices along mesh axis X", kQ2X, 1, 1e4),
    count("Y", 8, "devices along mesh axis Y", kQ2Y, 1, 1e4),
    count("Z", 4, "devices along mesh axis Z (unused by the shardings)", kQ2Z, 1, 1e4),
};
// FLOPs per device in units of the matmul's own 2BDF: each device multiplies its B/X x D/Y block
// of A by the D/Y x F block of W; the Z axis shards nothing, so its devices repeat that work.
double q2_per_device(const Inputs& in, Trace& tr) {
  const double X = in.num("X"), Y = in.num("Y");
  return tr.step("Each device: $A[B/X, D/Y]$ times $W[D/Y, F]$, in units of $2BDF$", kDeviceShare,
                 {X, Y});
}

constexpr Slot kQ2aSlots[] = {
    number("total_flops_in_units_of_2BDF", "ratio", "FLOPs over all devices, in units of 2BDF")};
constexpr Problem kQ2a{
    .id = "transformers.Q2.a",
    .title = "Total FLOPs of a partly sharded matmul",
    .statement =
        "On a mesh of X = {X}, Y = {Y} and Z = {Z} devices, A[B_X, D_Y] is multiplied by "
        "W[D_Y, F] over D (B and F are not sharded further). How many FLOPs do all the devices "
        "perform together, in units of the matmul's own 2BDF?",
    .kind = "formula",
    .given = kQ2Given,
    .slots = kQ2aSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          const double X = in.num("X"), Y = in.num("Y"), Z = in.num("Z");
          const double per = q2_per_device(in, tr);
          Answers a;
          a["total_flops_in_units_of_2BDF"] =
              tr.step("Over all $X Y Z$ devices: the $Z$ axis repeats the work", kMeshShare,
                      {per, X, Y, Z});
          a.slip("total_flops_in_units_of_2BDF", per * X * Y,
                 "That counts the matmul once; every device along Z (which shards neither A nor "
                 "W) does the same block again.");
          return a;
        },
    .hint =
        "Write the block each device multiplies, then count the devices that hold the same "
        "block.",
};

constexpr Slot kQ2bSlots[] = {
    number("per_device_flops_in_units_of_2BDF", "ratio", "FLOPs per device, in units of 2BDF")};
constexpr Problem kQ2b{
    .id = "transformers.Q2.b",
    .title = "FLOPs per TPU for that matmul",
    .statement =
        "For the same matmul A[B_X, D_Y] times W[D_Y, F] on a mesh of X = {X}, Y = {Y} and "
        "Z = {Z} devices, how many FLOPs does each device perform, in units of 2BDF?",
    .kind = "formula",
    .given = kQ2Given,
    .slots = kQ2bSlots,
    .solve =
        [](const Inputs& in, Trace& tr) {
          Answers a;
          a["per_device_flops_in_units_of_2BDF"] = q2_per_device(in, tr);
          a.slip("per_device_flops_in_units_of_2BDF",
                 flops_per_device(1, in.num("X") * in.num("Y") * in.num("Z")),
                 "The matmul is not split along Z: only X and Y divide the work.");
          return a;
        },
};

// ---- Q3: FLOPs of a general einsum (held out) -------------------------------------------------

constexpr Text kQ3Lhs = "IJKL", kQ3Rhs = "IJMNO", kQ3Out = "KLMNO";
constexpr Slot::Var kQ3Vars[] = {{"I", "axis size", 1, 64}, {"J", "axis size", 1, 64},
                                 {"K", "axis size", 1, 64}, {"L", "axis size", 1, 64},
                                 {"M", "axis size", 1, 64}, {"N", "axis size", 1, 64},
                                 {"O", "axis size", 1, 64}};
Einsum q3_einsum(const Vars& v) {
  std::vector<std::pair<char, double>> sizes;
  for (const auto& [k, x] : v) sizes.emplace_back(k[0], x);
  return einsum_flops(kQ3Lhs, kQ3Rhs, kQ3Out, sizes);
}
constexpr Slot kQ3Slots[] = {
    number("contracting_axes", "count", "contracting axes"),
    number("batching_axes", "count", "batching axes"),
    formula(
        "flops", "flop", "FLOPs as a formula in I, J, K, L, M, N, O", kQ3Vars,
        [](const Vars& v) { return q3_einsum(v).flops; }, "2 I J K L M N O"),
};
constexpr Problem kQ3{
    .id = "transformers.Q3",
    .title = "FLOPs of a general einsum",
    .statement =
        "C[K, L, M, N, O] = A[I, J, K, L] times B[I, J, M, N, O]. How many of the axes are "
        "contracted, how many are batch axes, and how many FLOPs does the contraction take?",
    .kind = "formula",
    .given = {},
    .slots = kQ3Slots,
    .solve =
        [](const Inputs&, Trace& tr) {
          Vars sizes;
          for (const Slot::Var& v : kQ3Vars) sizes[std::string(v.name)] = 2;
          const Einsum e = q3_einsum(sizes);
          tr.note(
              "An axis on both inputs and on the output is a batch axis; on both inputs but "
              "not the output, it is contracted; on one input only, it is free.");
          Answers a;
          a["contracting_axes"] = tr.value("Contracted axes: $I$ and $J$",
                                           static_cast<double>(e.contracting.size()), "count");
          a["batching_axes"] =
              tr.value("Batch axes: none", static_cast<double>(e.batching.size()), "count");
          tr.note("FLOPs: 2 times the product of every distinct axis: 2 I J K L M N O.");
          a.slip("batching_axes", static_cast<double>(e.contracting.size()),
                 "I and J are on both inputs but not on the output: they are contracted, not "
                 "batched.");
          return a;
        },
};

constexpr Problem kCountingProblems[] = {kQ1a, kQ1b, kQ1c, kQ2a, kQ2b, kQ3};

}  // namespace

void add_problems_counting(Registry& r) { r.add(kCountingProblems); }

}  // namespace sb::transformers
