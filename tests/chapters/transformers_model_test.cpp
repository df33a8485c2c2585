// Transformers chapter (Part 4) model: parameter counts, FLOPs, attention crossover and intensity,
// MoE, activations, KV cache and training-state memory, each against values derived by hand (the
// arithmetic is in the comments), and the bad configurations that must be errors naming a field.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "chapters/transformers/model.hpp"
#include "chapters/transformers/models.hpp"
#include "core/error.hpp"
#include "tests/support/support.hpp"

namespace tf = sb::transformers;

namespace {

using sb::test::expect_error;
using sb::test::near_rel;

// The book's LLaMA 3-70B (applied-training table): norms left out as the table does.
tf::Config llama3_70b_book() {
  tf::Config c;
  c.L = 80, c.D = 8192, c.F = 28672, c.N = 64, c.K = 8, c.H = 128, c.V = 128256;
  c.norms_per_layer = 0;
  return tf::validated(c);
}

// transformers Q1: D = 4096, F = 4D, V = 32000, L = 64, MHA with N H = D (N = 32, H = 128).
tf::Config q1_model() {
  tf::Config c;
  c.L = 64, c.D = 4096, c.F = 16384, c.N = 32, c.K = 32, c.H = 128, c.V = 32000;
  return tf::validated(c);
}

}  // namespace

// ---- A.3 parameter counts
// ------------------------------------------------------------------------

TEST(TransformersParams, BookFormulaOnQuestion1) {
  // Per layer: 3DF = 3 * 4096 * 16384 = 201,326,592; 4DNH = 4 * 4096^2 = 67,108,864; norms 2D =
  // 8192; sum 268,443,648, times 64 = 17,180,393,472; plus 2DV = 2 * 4096 * 32000 = 262,144,000:
  // 17,442,537,472 (the key's exact value; the book prints 16e9 from rounded factors).
  near_rel(tf::book_params(64, 4096, 16384, 32, 32, 128, 32000), 17442537472.0);
  const tf::Params p = tf::params(q1_model());
  near_rel(p.total, 17442537472.0);
  near_rel(p.attn, 64 * 67108864.0);
  near_rel(p.mlp, 64 * 201326592.0);
  near_rel(p.norms, 64 * 8192.0);
  near_rel(p.embed + p.unembed, 262144000.0);
  // Q1.b: attention share of a layer 4D^2 / (4D^2 + 12D^2) = 1/4; of the whole model
  // 4,294,967,296 / 17,442,537,472 = 0.246235...
  near_rel(tf::attention_params(4096, 32, 32, 128) /
               (tf::attention_params(4096, 32, 32, 128) + tf::mlp_params(4096, 16384, true)),
           0.25);
  near_rel(p.attn / p.total, 4294967296.0 / 17442537472.0);
  // Dense model: active = total.
  near_rel(p.active, p.total);
}

TEST(TransformersParams, Llama3_70bByComponent) {
  // applied-training IQ1, norms left out as the book's table does:
  //   MLP   80 * 3 * 8192 * 28672            = 56,371,445,760
  //   attn  80 * 2 * 8192 * (64 + 8) * 128   = 12,079,595,520
  //   vocab 2 * 8192 * 128256                =  2,101,346,304
  //   total                                    70,552,387,584
  const tf::Params p = tf::params(llama3_70b_book());
  near_rel(p.mlp, 56371445760.0);
  near_rel(p.attn, 12079595520.0);
  near_rel(p.embed + p.unembed, 2101346304.0);
  near_rel(p.total, 70552387584.0);
  near_rel(p.norms, 0);
  // With the book's 2D per layer and the final norm: + 80 * 16384 + 8192 = 1,318,912.
  tf::Config full = llama3_70b_book();
  full.norms_per_layer = 2;
  full.final_norm = true;
  near_rel(tf::params(full).total, 70552387584.0 + 1318912.0);
}

TEST(TransformersParams, TiedEmbeddingsCountOneMatrix) {
  near_rel(tf::vocab_params(10, 7, true), 70);
  near_rel(tf::vocab_params(10, 7, false), 140);
  tf::Config c = q1_model();
  c.tied = true;
  // One DV instead of two: 17,442,537,472 - 131,072,000.
  near_rel(tf::params(c).total, 17442537472.0 - 131072000.0);
}

TEST(TransformersParams, BiasesSinksAndQkNorms) {
  // D = 8, N = 4, K = 2, H = 2: QKV bias (4 + 4) * 2 = 16, O bias 8, sinks 4, QK norms 2 * 2 = 4.
  tf::Config c;
  c.L = 1, c.D = 8, c.F = 16, c.N = 4, c.K = 2, c.H = 2, c.V = 0;
  c.qkv_bias = c.o_bias = c.attn_sinks = c.qk_norm = true;
  const tf::LayerParams lp = tf::dense_layer_params(tf::validated(c));
  near_rel(lp.attn_extra, 16 + 8 + 4 + 4);
  // Attention weights 2 * 8 * (4 + 2) * 2 = 192: a query width N H = 8 here equals D, but need not.
  near_rel(lp.attn, 192);
  // MLP biases of a gated MLP: 2F + D = 40.
  c.mlp_bias = true;
  near_rel(tf::dense_layer_params(tf::validated(c)).mlp_bias, 40);
}

TEST(TransformersParams, QueryWidthOtherThanD) {
  // Gemma-2-like: D = 3584, N = 16, H = 256 (N H = 4096), K = 8:
  // 2 * 3584 * (16 + 8) * 256 = 44,040,192.
  tf::Config c;
  c.L = 1, c.D = 3584, c.F = 14336, c.N = 16, c.K = 8, c.H = 256;
  near_rel(tf::dense_layer_params(tf::validated(c)).attn, 44040192.0);
}

TEST(TransformersParams, MixtureOfExperts) {
  // D = 4, expert width 2, gated: one expert 3 * 4 * 2 = 24. E = 8, k = 2, one shared expert:
  // all 9 * 24 = 216, active 3 * 24 = 72; router D E = 32 (+ 8 biases).
  tf::Config c;
  c.L = 3, c.D = 4, c.F = 6, c.N = 2, c.K = 1, c.H = 2, c.V = 10;
  c.E = 8, c.k = 2, c.n_shared = 1, c.F_e = 2, c.n_dense = 1, c.router_bias = true;
  c = tf::validated(c);
  const tf::LayerParams m = tf::moe_layer_params(c);
  near_rel(m.mlp, 216);
  near_rel(m.mlp_active, 72);
  near_rel(m.router, 32);
  near_rel(m.router_bias, 8);
  // One dense layer of width 6 (3 * 4 * 6 = 72) and two MoE layers.
  EXPECT_EQ(tf::dense_layers(c), 1);
  EXPECT_EQ(tf::moe_layers(c), 2);
  const tf::Params p = tf::params(c);
  near_rel(p.mlp, 72 + 2 * 216);
  near_rel(p.mlp_active, 72 + 2 * 72);
  // Attention 2 * 4 * 3 * 2 = 48 per layer, norms 8 per layer, vocab 2 * 40:
  // total = 3 * 48 + 504 + 80 + 24 + 80 = 832; active = 832 - 2 * 144 = 544.
  near_rel(p.total, 3 * 48 + 504 + 80 + 24 + 80);
  near_rel(p.active, p.total - 2 * (216 - 72));
}

TEST(TransformersParams, MultiHeadLatentAttention) {
  // D = 10, N = 2, q_lora 3, kv_lora 4, nope 5, rope 1, v 2:
  //   q_a 10 * 3 = 30, q_b 3 * 2 * (5 + 1) = 36, kv_a 10 * (4 + 1) = 50, kv_b 4 * 2 * (5 + 2) = 56,
  //   o 2 * 2 * 10 = 40: 212 weights; internal norms 3 + 4 = 7.
  tf::Mla m{3, 4, 5, 1, 2};
  near_rel(tf::mla_params(10, 2, m), 212);
  m.q_lora_rank = 0;  // one [D, N (nope + rope)] query projection: 10 * 12 = 120
  near_rel(tf::mla_params(10, 2, m), 120 + 50 + 56 + 40);
  tf::Config c;
  c.L = 2, c.D = 10, c.F = 4, c.N = 2, c.K = 2, c.V = 0, c.mla = true, c.m = {3, 4, 5, 1, 2};
  c.norms_per_layer = 0;
  c = tf::validated(c);
  near_rel(tf::dense_layer_params(c).norms, 7);
  EXPECT_EQ(tf::head_dim_qk(c), 6);
  EXPECT_EQ(tf::head_dim_v(c), 2);
  // Its cache: kv_lora + rope = 5 elements per token per layer, 2 layers, bf16: 20 B.
  near_rel(tf::kv_bytes_per_token(c, 2), 20);
}

// ---- A.1, A.2 FLOPs
// --------------------------------------------------------------------------------

TEST(TransformersFlops, MatmulPasses) {
  // EX1: 2NPM forward, 4NPM backward, 6NPM training: the ratio is 3, 6 per parameter per token.
  near_rel(tf::matmul_flops(5, 7, 11, tf::Pass::Forward), 2 * 5 * 7 * 11);
  near_rel(tf::matmul_flops(5, 7, 11, tf::Pass::Backward), 4 * 5 * 7 * 11);
  near_rel(tf::matmul_flops(5, 7, 11, tf::Pass::Train), 6 * 5 * 7 * 11);
  near_rel(
      tf::matmul_flops(5, 7, 11, tf::Pass::Train) / tf::matmul_flops(5, 7, 11, tf::Pass::Forward),
      3);
  EXPECT_EQ(tf::flops_per_param_token(tf::Pass::Train), 6);
}

TEST(TransformersFlops, EinsumLabels) {
  // Q3: A[I,J,K,L] * B[I,J,M,N,O] -> C[K,L,M,N,O]: I, J contracting, nothing batched;
  // FLOPs 2 * I J K L M N O = 2 * 2*3*4*5*6*7*8 = 80,640.
  std::vector<std::pair<char, double>> sizes{{'I', 2}, {'J', 3}, {'K', 4}, {'L', 5},
                                             {'M', 6}, {'N', 7}, {'O', 8}};
  const tf::Einsum e = tf::einsum_flops("IJKL", "IJMNO", "KLMNO", sizes);
  EXPECT_EQ(e.contracting, (std::vector<char>{'I', 'J'}));
  EXPECT_TRUE(e.batching.empty());
  EXPECT_EQ(e.free.size(), 5u);
  near_rel(e.flops, 80640);
  // A.1's worked rule: C[G,H,I,J,K,L] . D[G,H,M,N,K,L] -> [G,H,I,J,M,N]: G, H batching, K, L
  // contracting; 2 G H I J M N K L (all sizes 2 here: 2 * 2^10 = 2048).
  std::vector<std::pair<char, double>> twos;
  for (char ch : std::string("GHIJKLMN")) twos.push_back({ch, 2});
  const tf::Einsum g = tf::einsum_flops("GHIJKL", "GHMNKL", "GHIJMN", twos);
  EXPECT_EQ(g.batching, (std::vector<char>{'G', 'H'}));
  EXPECT_EQ(g.contracting, (std::vector<char>{'K', 'L'}));
  near_rel(g.flops, 2 * 256);
  // No contraction (an outer product): no factor 2.
  near_rel(tf::einsum_flops("I", "J", "IJ", {{'I', 3}, {'J', 4}}).flops, 12);
  expect_error(
      [] {
        tf::einsum_flops("IJ", "JK", "IK", {{'I', 3}, {'J', 4}});
      },
      "einsum", "K has no size");
  expect_error(
      [] {
        tf::einsum_flops("IJ", "JK", "IZ", {{'I', 3}, {'J', 4}, {'K', 1}});
      },
      "einsum", "neither input");
  expect_error(
      [] {
        tf::einsum_flops("IJ", "JK", "IK", {{'I', 0}, {'J', 4}, {'K', 1}});
      },
      "einsum", "at least 1");
}

TEST(TransformersFlops, ShardedMatmulQuestion2) {
  // Q2: A[B_X, D_Y] *_D W[D_Y, F] on {X:4, Y:8, Z:4}: each device multiplies [B/4, D/8] by
  // [D/8, F], 2BDF / 32; the 128 devices do 4 x 2BDF in total (Z replicates the work).
  const double two_bdf = tf::matmul_flops(1, 1, 1, tf::Pass::Forward);
  const double per_device = tf::flops_per_device(two_bdf, 4 * 8);
  near_rel(per_device / two_bdf, 1.0 / 32);
  near_rel(per_device * 128 / two_bdf, 4);
}

TEST(TransformersFlops, AttentionCore) {
  // 12 B T S N H to train, 4 B T S N H forward; a causal kernel halves it.
  near_rel(tf::attention_core_flops(2, 3, 5, 7, 11, 11, tf::Pass::Train),
           12.0 * 2 * 3 * 5 * 7 * 11);
  near_rel(tf::attention_core_flops(2, 3, 5, 7, 11, 11, tf::Pass::Forward),
           4.0 * 2 * 3 * 5 * 7 * 11);
  near_rel(tf::attention_core_flops(2, 3, 5, 7, 11, 11, tf::Pass::Train, true),
           6.0 * 2 * 3 * 5 * 7 * 11);
}

TEST(TransformersFlops, Llama3_70bPerToken) {
  const tf::Config c = llama3_70b_book();
  // 6P with the book's P = 70,552,387,584: 423,314,325,504 (applied-training IQ2).
  near_rel(tf::six_p_tokens(tf::params(c).total, 1), 423314325504.0);
  // Per token at T = 4096, the unembedding a matmul, the input embedding a lookup:
  //   6 (68,451,041,280 + 1,050,673,152) = 417,010,286,592
  //   + 12 T N H L = 12 * 4096 * 64 * 128 * 80 = 32,212,254,720  -> 449,222,541,312
  near_rel(tf::train_flops_per_token(c, 4096), 449222541312.0);
  // Counting the embedding as a matmul too (the summary table): + 6 * 1,050,673,152.
  near_rel(tf::train_flops_per_token(c, 4096, false, true), 449222541312.0 + 6304038912.0);
  // A causal kernel halves the attention term: - 16,106,127,360.
  near_rel(tf::train_flops_per_token(c, 4096, true), 449222541312.0 - 16106127360.0);
  // Forward only is a third of training.
  near_rel(tf::model_flops(c, 2, 4096, tf::Pass::Forward).total * 3,
           tf::model_flops(c, 2, 4096, tf::Pass::Train).total, 1e-12);
  // Block remat: 8 per parameter per token.
  EXPECT_EQ(tf::remat_flops_per_param_token(tf::Remat::Block), 8);
}

TEST(TransformersFlops, MoeLayerUsesActiveExperts) {
  // D = 4, F_e = 2, E = 8, k = 2, no shared: active MLP 2 * 24 = 48, router 32, attention
  // 2 * 4 * (2 + 1) * 2 = 48. Train FLOPs for 10 tokens: 6 * 10 * (48 + 48 + 32) = 7680, plus
  // the core 12 * 1 * 10 * 10 * 2 * 2 = 4800.
  tf::Config c;
  c.L = 1, c.D = 4, c.F = 2, c.N = 2, c.K = 1, c.H = 2, c.E = 8, c.k = 2;
  const tf::LayerFlops f = tf::moe_layer_flops(tf::validated(c), 1, 10, 10, tf::Pass::Train);
  near_rel(f.mlp, 6 * 10 * 48);
  near_rel(f.qkvo, 6 * 10 * 48);
  near_rel(f.router, 6 * 10 * 32);
  near_rel(f.core, 4800);
}

// ---- A.6 where attention dominates
// ---------------------------------------------------------------

TEST(TransformersCrossover, EightDRuleAndExact) {
  // EX2: D = 8192, F = 4D, N = K = 64, H = 128: (18DF + 12DH(N+K)) / (12NH)
  // = (4,831,838,208 + 1,610,612,736) / 98,304 = 65,536 = 8D.
  tf::Config c;
  c.L = 1, c.D = 8192, c.F = 32768, c.N = 64, c.K = 64, c.H = 128;
  c = tf::validated(c);
  near_rel(tf::attention_crossover(c), 65536);
  near_rel(tf::attention_crossover_book(8192), 65536);
  near_rel(tf::attention_flops_ratio(c, 65536), 1);
  near_rel(tf::attention_flops_ratio(c, 8192), 0.125);  // T / 8D
  // EX3: 8 * 4608 = 36,864.
  near_rel(tf::attention_crossover_book(4608), 36864);
  // LLaMA 3-70B (GQA): (18 * 8192 * 28672 + 12 * 8192 * 128 * 72) / (12 * 64 * 128)
  // = (4,227,858,432 + 905,969,664) / 98,304 = 52,224.
  near_rel(tf::attention_crossover(llama3_70b_book()), 52224);
  // Q5: core = QKVO projections at T = D (N + K) / N: 2D for MHA.
  near_rel(tf::attention_vs_projections_crossover(4096, 32, 32), 8192);
  near_rel(tf::attention_vs_projections_crossover(8192, 64, 8), 9216);
}

// ---- A.7 attention intensity
// ------------------------------------------------------------------------

TEST(TransformersIntensity, Question4) {
  // Prefill T = S = 4096, G = 8: T S G / (T G + S) = 4096 * 8 / 9 = 3640.89.
  near_rel(tf::attention_intensity(4096, 4096, 8), 4096.0 * 8 / 9);
  // Decode T = 1, S = 8192, G = 8: 8192 * 8 / (8 + 8192) = 7.99220.
  near_rel(tf::attention_intensity(1, 8192, 8), 8192.0 * 8 / 8200);
  // v5e: I_hw = 1.97e14 / 8.2e11 = 240.244; MHA (G = 1) needs T > 2 I_hw = 480.49; large G, I_hw.
  const double i_hw = 1.97e14 / 8.2e11;
  near_rel(tf::attention_min_T_compute_bound(i_hw, 1), 2 * i_hw);
  near_rel(tf::attention_min_T_compute_bound(i_hw, 8), i_hw * 9 / 8);
  near_rel(tf::attention_min_T_large_G(i_hw), i_hw);
  // Decode's intensity tends to G = 8, far below 240: never compute-bound.
  near_rel(tf::attention_decode_intensity_limit(8), 8);
  // int8 halves the bytes: twice the intensity.
  near_rel(tf::attention_intensity(4096, 4096, 8, 1), 2 * 4096.0 * 8 / 9);
}

// ---- A.8 MoE
// ------------------------------------------------------------------------------------------

TEST(TransformersMoe, Question8Threshold) {
  // int8 weights on a v5e: intensity 2 k B / E; compute-bound once k B / E > I_hw / 2 = 120.12;
  // DeepSeek (E = 256, k = 8): B > 120.12 * 32 = 3843.9 tokens.
  const double i_hw = 1.97e14 / 8.2e11;
  near_rel(tf::moe_kb_over_e_threshold(i_hw, 1), i_hw / 2);
  near_rel(tf::moe_min_batch(i_hw, 256, 8, 1), i_hw / 2 * 32);
  near_rel(tf::moe_intensity(tf::moe_min_batch(i_hw, 256, 8, 1), 256, 8, 1), i_hw);
  EXPECT_EQ(tf::kMoeAllToAllsPerLayer, 2);
}

// ---- A.9 activations
// ---------------------------------------------------------------------------------

TEST(TransformersActivations, RematPolicies) {
  // EX4: 2 B * 20 * 4e6 * 8192 * 64 = 83,886,080,000,000 B (the book's 84 TB).
  near_rel(tf::activation_bytes(4e6, 8192, 64, tf::saved_arrays_per_layer(tf::Remat::SaveAll)),
           83886080000000.0);
  // EX5: one array per layer: 4,194,304,000,000 B (4.2 TB).
  near_rel(tf::activation_bytes(4e6, 8192, 64, tf::saved_arrays_per_layer(tf::Remat::Block)),
           4194304000000.0);
  EXPECT_EQ(tf::saved_arrays_per_layer(tf::Remat::BigMatmuls), 7);
  // Exact shapes for LLaMA 3-70B: NH 8192 + 2KH 2048 + D 8192 + 2F 57344 + D 8192 = 83,968.
  near_rel(tf::saved_elems_per_token_layer(llama3_70b_book()), 83968);
  // Q6: 4 B T^2 N H = 4 * 8192^2 * 64 * 128 = 2,199,023,255,552; a third of 12 B T^2 N H.
  near_rel(tf::big_matmuls_recompute_flops(1, 8192, 64, 128), 2199023255552.0);
  near_rel(tf::big_matmuls_recompute_flops(1, 8192, 64, 128) /
               tf::attention_core_flops(1, 8192, 8192, 64, 128, 128, tf::Pass::Train),
           1.0 / 3);
}

// ---- A.10 KV cache
// -----------------------------------------------------------------------------------

TEST(TransformersKv, BookExamples) {
  // EX7: 2 * 8192 * 64 * 8192 * 1 B = 2^33 B = 8 GiB (K H = 8192 as K = 64, H = 128).
  near_rel(tf::kv_cache_bytes(8192, 64, 64, 128, 1), 8589934592.0);
  // Q1.c: 2 L K H b = 2 * 64 * 32 * 128 * 1 = 524,288 B per token.
  const tf::Config q1 = q1_model();
  near_rel(tf::kv_bytes_per_token(q1, 1), 524288);
  near_rel(tf::kv_bytes_per_sequence(q1, 8192, 1), 524288.0 * 8192);
  near_rel(tf::kv_bytes_per_batch(q1, 3, 8192, 1), 3 * 524288.0 * 8192);
  // LLaMA 3-70B in bf16: 2 * 80 * 8 * 128 * 2 = 327,680 B per token.
  near_rel(tf::kv_bytes_per_token(llama3_70b_book(), 2), 327680);
}

TEST(TransformersKv, SlidingWindowLayers) {
  // 4 layers, 2 of them with a 10-token window, K H = 1, bf16: 4 B per token per layer.
  // S = 20: 2 layers x 20 tokens + 2 layers x 10 tokens = 60 token-layers = 240 B; per token 12 B.
  // Below the window every layer keeps every token: 16 B per token.
  tf::Config c;
  c.L = 4, c.D = 2, c.F = 2, c.N = 2, c.K = 1, c.H = 1, c.window = 10, c.window_layers = 2;
  c = tf::validated(c);
  near_rel(tf::kv_bytes_per_sequence(c, 20, 2), 240);
  near_rel(tf::kv_bytes_per_token(c, 2, 20), 12);
  near_rel(tf::kv_bytes_per_token(c, 2), 16);
  near_rel(tf::kv_bytes_per_token(c, 2, 8), 16);
}

// ---- A.11 memory, Q7 utilisation
// -------------------------------------------------------------------

TEST(TransformersMemory, TrainingState) {
  // applied-training IQ5: 2P = 141,104,775,168 B, 8P = 564,419,100,672 B.
  const double P = 70552387584.0;
  near_rel(tf::param_bytes(P), 141104775168.0);
  near_rel(tf::optimizer_bytes(P), 564419100672.0);
  near_rel(tf::grad_bytes(P, 4), 4 * P);
}

TEST(TransformersUtilisation, Question7DeepSeek) {
  // available 2.79e6 h * 3600 s * 1.513e15 = 1.5196572e25; used 6 * 37e9 * 14.8e12 = 3.2856e24;
  // MFU 0.216207.
  const double avail = tf::available_flops(2.79e6, 1.513e15);
  const double used = tf::six_p_tokens(37e9, 14.8e12);
  near_rel(avail, 1.5196572e25);
  near_rel(used, 3.2856e24);
  near_rel(tf::mfu(used, avail), 3.2856e24 / 1.5196572e25);
}

// ---- bad input
// ------------------------------------------------------------------------------------

TEST(TransformersBadInput, ErrorsNameTheField) {
  const tf::Config good = q1_model();
  auto with = [&](auto edit) {
    tf::Config c = good;
    edit(c);
    return c;
  };
  expect_error([&] { tf::validated(with([](tf::Config& c) { c.L = 0; })); }, "L", "at least 1");
  expect_error([&] { tf::validated(with([](tf::Config& c) { c.L = 1.5; })); }, "L", "whole");
  expect_error([&] { tf::validated(with([](tf::Config& c) { c.K = 5; })); }, "K", "divide N");
  expect_error([&] { tf::validated(with([](tf::Config& c) { c.N = 3, c.K = 1, c.H = 0; })); }, "N",
               "divide D");
  expect_error(
      [&] {
        tf::validated(with([](tf::Config& c) { c.D = std::numeric_limits<double>::quiet_NaN(); }));
      },
      "D", "whole");
  expect_error([&] { tf::validated(with([](tf::Config& c) { c.F = 0; })); }, "F", "at least 1");
  expect_error([&] { tf::validated(with([](tf::Config& c) { c.V = -1; })); }, "V", "0 or more");
  expect_error([&] { tf::validated(with([](tf::Config& c) { c.E = 8, c.k = 9; })); }, "k",
               "exceed E");
  expect_error([&] { tf::validated(with([](tf::Config& c) { c.E = 8, c.k = 0; })); }, "k",
               "at least 1");
  expect_error(
      [&] { tf::validated(with([](tf::Config& c) { c.E = 8, c.k = 2, c.n_dense = 65; })); },
      "n_dense", "exceed L");
  expect_error([&] { tf::validated(with([](tf::Config& c) { c.window_layers = 65; })); },
               "window_layers", "exceed L");
  expect_error([&] { tf::validated(with([](tf::Config& c) { c.window_layers = 2; })); }, "window",
               "at least 1");
  expect_error([&] { tf::validated(with([](tf::Config& c) { c.mla = true; })); }, "kv_lora_rank",
               "at least 1");
  expect_error([&] { tf::validated(with([](tf::Config& c) { c.D = 1e13; })); }, "D", "whole");
  // H given: N need not divide D (a query width N H other than D).
  EXPECT_NO_THROW(tf::validated(with([](tf::Config& c) { c.N = 3, c.K = 1, c.H = 64; })));
  // H derived: 4096 / 32 = 128.
  EXPECT_EQ(tf::validated(with([](tf::Config& c) { c.H = 0; })).H, 128);
}

// ---- the model table (data/models.json)
// -------------------------------------------------------------

namespace {

// One unit in the last digit a published figure prints: "46.7B" -> 1e8, "671B" -> 1e9,
// "8,324,201,984" -> 1. A computed count agrees when it is within that unit.
double printed_unit(const std::string& text) {
  const double scale = text.back() == 'B' ? 1e9 : 1;
  const auto dot = text.find('.');
  const size_t decimals =
      dot == std::string::npos ? 0 : text.size() - dot - 1 - (scale > 1 ? 1 : 0);
  return scale * std::pow(10.0, -static_cast<double>(decimals));
}

}  // namespace

TEST(TransformersModels, TableLoadsWithSources) {
  const auto& all = tf::models();
  ASSERT_GE(all.size(), 18u);
  std::vector<std::string> ids;
  for (const auto& m : all) {
    EXPECT_FALSE(m.config_source.empty()) << m.id;
    EXPECT_FALSE(m.field_keys.empty()) << m.id;
    for (const auto& [field, key] : m.field_keys) EXPECT_FALSE(key.empty()) << m.id << "." << field;
    for (const auto& p : m.published) EXPECT_FALSE(p.source.empty()) << m.id << " " << p.what;
    EXPECT_EQ(std::count(ids.begin(), ids.end(), m.id), 0) << "duplicate id " << m.id;
    ids.push_back(m.id);
  }
  // Every row of shared/book/models.md and the models the three chapters' problems use.
  for (const char* id :
       {"llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3-8b", "llama-3-70b", "llama-3.1-405b",
        "mistral-7b", "mixtral-8x7b", "mixtral-8x22b", "gemma-7b", "gemma-2-9b", "gemma-2-27b",
        "qwen2.5-7b", "qwen2.5-72b", "qwen3-32b", "qwen3-235b-a22b", "deepseek-v3", "gpt-oss-20b",
        "gpt-oss-120b"})
    EXPECT_EQ(tf::model(id).id, id);
}

TEST(TransformersModels, LookupByAliasAndConfigId) {
  EXPECT_EQ(tf::model("meta-llama/Meta-Llama-3-70B").id, "llama-3-70b");
  EXPECT_EQ(tf::model("LLaMA 3 70B").id, "llama-3-70b");  // spaces and case ignored: the name
  EXPECT_EQ(tf::model("DeepSeek-R1").id, "deepseek-v3");
  EXPECT_EQ(tf::model("gemma_27b").id, "gemma-2-27b");
  try {
    tf::model("llama-4-7b", "preset");
    ADD_FAILURE() << "no error for an unknown model";
  } catch (const sb::InputError& e) {
    EXPECT_EQ(e.field, "preset");
    EXPECT_EQ(e.code, "unknown_model");
    EXPECT_NE(std::string(e.what()).find("llama-3-70b"), std::string::npos) << e.what();
  }
  EXPECT_THROW(tf::model(""), sb::InputError);
  EXPECT_THROW(tf::model(std::string(5000, 'x')), sb::InputError);
}

TEST(TransformersModels, Llama2_7bByHand) {
  // meta-llama/Llama-2-7b-hf: L 32, D 4096, F 11008, N = K = 32, H 128, V 32000, untied,
  // 2 RMSNorms per layer and a final one (the book's plain transformer plus the final norm).
  //   attention 4 D^2          = 67,108,864
  //   MLP 3 D F                = 135,266,304
  //   norms 2 D                = 8,192
  //   layer                      202,383,360   x 32 = 6,476,267,520
  //   embeddings 2 D V         = 262,144,000
  //   final norm D             = 4,096
  //   total                      6,738,415,616  (the "7B")
  const tf::ModelEntry& m = tf::model("llama-2-7b");
  near_rel(tf::params(m.config).total, 6738415616.0);
  EXPECT_EQ(m.nominal, 7e9);
  // KV per token in bf16: 2 * 32 * 32 * 128 * 2 = 524,288 B.
  near_rel(tf::kv_bytes_per_token(m.config, 2), 524288);
}

TEST(TransformersModels, Llama3_70bByHand) {
  // meta-llama/Meta-Llama-3-70B: the book's table (70,552,387,584 without norms, see
  // Llama3_70bByComponent) plus 2 D per layer and the final norm: 80 * 16,384 + 8,192 = 1,318,912:
  // 70,553,706,496.
  near_rel(tf::params(tf::model("llama-3-70b").config).total, 70553706496.0);
}

TEST(TransformersModels, Mixtral8x7bByHand) {
  // mistralai/Mixtral-8x7B-v0.1: L 32, D 4096, N 32, K 8, H 128, V 32000; every layer MoE with
  // E = 8 experts of width F = 14336, k = 2 per token; router D E per layer, no bias.
  //   attention 2 D (N + K) H  = 2 * 4096 * 40 * 128   = 41,943,040
  //   one expert 3 D F         = 3 * 4096 * 14336      = 176,160,768;  x 8 = 1,409,286,144
  //   router D E               = 32,768
  //   norms 2 D                = 8,192
  //   layer total                                        1,451,270,144   x 32 = 46,440,644,608
  //   embeddings 2 D V = 262,144,000, final norm 4,096:  46,702,792,704   (published 46.7B)
  //   active layer: 41,943,040 + 2 * 176,160,768 + 32,768 + 8,192 = 394,305,536; x 32 =
  //   12,617,777,152; + 262,148,096 = 12,879,925,248                        (published 12.9B)
  const tf::Params p = tf::params(tf::model("mixtral-8x7b").config);
  near_rel(p.total, 46702792704.0);
  near_rel(p.active, 12879925248.0);
}

TEST(TransformersModels, DeepSeekV3ByHand) {
  // deepseek-ai/DeepSeek-V3: L 61, D 7168, N 128, V 129280; MLA with q_lora 1536, kv_lora 512,
  // nope 128, rope 64, v 128:
  //   q_a 7168 * 1536                   = 11,010,048
  //   q_b 1536 * 128 * 192              = 37,748,736
  //   kv_a 7168 * (512 + 64)            =  4,128,768
  //   kv_b 512 * 128 * (128 + 128)      = 16,777,216
  //   o 128 * 128 * 7168                = 117,440,512
  //   MLA weights                         187,105,280; its two norms 1536 + 512 = 2,048
  //   layer norms 2 D                   = 14,336
  // 3 dense layers (F 18432): 3 D F = 396,361,728; layer 583,483,392; x 3 = 1,750,450,176.
  // 58 MoE layers: one expert 3 * 7168 * 2048 = 44,040,192; 256 routed + 1 shared =
  //   11,318,329,344; router 7168 * 256 = 1,835,008 + 256 biases; layer 11,507,286,272;
  //   x 58 = 667,422,603,776.
  // Embeddings 2 * 7168 * 129280 = 1,853,358,080; final norm 7,168.
  // Total 671,026,419,200 (published 671B).
  // Active: MoE layer with 8 + 1 experts: 187,107,328 + 9 * 44,040,192 + 1,835,264 + 14,336 =
  //   585,318,656; x 58 = 33,948,482,048; + 1,750,450,176 + 1,853,358,080 + 7,168 =
  //   37,552,297,472 (published 37B).
  // MTP module: one MoE layer 11,507,286,272 + [2D, D] 102,760,448 + 3 norms 21,504 =
  //   11,610,068,224, reported apart; with the checkpoint's own copies of the embedding and head
  //   (1,853,358,080) the stored total is 684,489,845,504 (published 685B).
  const tf::ModelEntry& m = tf::model("deepseek-v3");
  const tf::Params p = tf::params(m.config);
  near_rel(tf::mla_params(7168, 128, m.config.m), 187105280.0);
  near_rel(p.total, 671026419200.0);
  near_rel(p.active, 37552297472.0);
  near_rel(p.mtp, 11610068224.0);
  near_rel(tf::computed_counterpart(m, "total_with_mtp"), 684489845504.0);
  // Its cache: (512 + 64) * 61 layers * 2 B = 70,272 B per token in bf16.
  near_rel(tf::kv_bytes_per_token(m.config, 2), 70272);
}

TEST(TransformersModels, SlidingWindowModels) {
  // gemma-2-9b: 42 layers, 21 with a 4096 window, K H = 8 * 256, bf16: 2 * 8 * 256 * 2 = 8192 B
  // per token per layer. Short context: 42 layers = 344,064 B; at S = 8192: (21 * 8192 + 21 *
  // 4096) / 8192 = 31.5 layers = 258,048 B per token.
  const tf::Config g = tf::model("gemma-2-9b").config;
  near_rel(tf::kv_bytes_per_token(g, 2), 344064);
  near_rel(tf::kv_bytes_per_token(g, 2, 8192), 258048);
  // mistral-7b windows every layer: at 8192 tokens the cache is that of 4096.
  const tf::Config mi = tf::model("mistral-7b").config;
  near_rel(tf::kv_bytes_per_sequence(mi, 8192, 2), tf::kv_bytes_per_sequence(mi, 4096, 2));
}

TEST(TransformersModels, ComputedAgreesWithPublished) {
  // Every stated figure within one unit of its last printed digit. Where a model's convention
  // differs from ours, models.json says so (gpt-oss's active count leaves out the embedding).
  int checked = 0;
  for (const auto& m : tf::models())
    for (const auto& p : m.published) {
      const double got = tf::computed_counterpart(m, p.what);
      EXPECT_LE(std::fabs(got - p.value), printed_unit(p.text))
          << m.id << " " << p.what << ": computed " << got << ", published " << p.text;
      ++checked;
    }
  EXPECT_GE(checked, 25);
  EXPECT_EQ(printed_unit("46.7B"), 1e8);
  EXPECT_EQ(printed_unit("671B"), 1e9);
  EXPECT_EQ(printed_unit("8,324,201,984"), 1);
}
