// Transformers chapter (Part 4): the calculators through the JSON entry point, the model table as
// `scaling models` prints it, and every problem's solve(), against values derived by hand (the
// arithmetic is in the comments); bad inputs must be errors naming their field.
// `scaling models` is tested on the CLI itself: it is one unit (main.cpp), compiled in without its
// main.
#define SB_CLI_NO_MAIN
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "cli/main.cpp"
#include "core/api.hpp"
#include "core/registry.hpp"
#include "tests/support/support.hpp"

using sb::json;
using sb::test::calc;
using sb::test::near_rel;
using sb::test::slot;
using sb::test::solve;

namespace {

double val(const json& r, const std::string& key) { return sb::test::value_of(r, key); }

void expect_field(const json& r, const std::string& field) {
  sb::test::expect_error_value(r, field);
}

// A small custom model: L = 2, D = 8, F = 32, N = 2 query heads, K = 1 KV head, V = 10.
json tiny() {
  return {{"model", "custom"}, {"L", 2}, {"D", 8}, {"F", 32}, {"N", 2}, {"K", 1}, {"V", 10}};
}

}  // namespace

// ---- transformers.accounting
// ---------------------------------------------------------------------

TEST(TransformersCalc, AccountingLlama3_70b) {
  json r = calc("transformers.accounting", {{"model", "llama-3-70b"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump().substr(0, 400);
  // Attention 2 D (N + K) H = 2 * 8192 * 72 * 128 = 150,994,944 per layer, x 80 = 12,079,595,520.
  EXPECT_EQ(val(r, "attn"), 12079595520.0);
  // MLP 3 D F = 3 * 8192 * 28672 = 704,643,072 per layer, x 80 = 56,371,445,760.
  EXPECT_EQ(val(r, "mlp"), 56371445760.0);
  // Norms 2 D per layer x 80 + the final norm D: 1,310,720 + 8,192 = 1,318,912.
  EXPECT_EQ(val(r, "norms"), 1318912.0);
  // Vocabulary 2 D V = 2 * 8192 * 128256 = 2,101,346,304.
  EXPECT_EQ(val(r, "vocab"), 2101346304.0);
  // Total 12,079,595,520 + 56,371,445,760 + 1,318,912 + 2,101,346,304 = 70,553,706,496: the
  // checkpoint's published count. Dense: active = total.
  EXPECT_EQ(val(r, "params_total"), 70553706496.0);
  EXPECT_EQ(val(r, "params_active"), 70553706496.0);
  EXPECT_EQ(val(r, "nominal"), 70e9);
  // KV per token (bf16): 2 L K H b = 2 * 80 * 8 * 128 * 2 = 327,680 B.
  EXPECT_EQ(val(r, "kv_bytes_per_token"), 327680.0);
  // FLOPs per token at T = 4096: 6 x matmul weights (attention + MLP + unembedding
  // 12,079,595,520 + 56,371,445,760 + 1,050,673,152 = 69,501,714,432) = 417,010,286,592, plus the
  // core 12 T N H L = 12 * 4096 * 64 * 128 * 80 = 32,212,254,720: 449,222,541,312.
  EXPECT_EQ(val(r, "flops_per_token"), 449222541312.0);
  near_rel(val(r, "flops_per_token_forward"), 449222541312.0 / 3);
  // 6 P = 6 * 70,553,706,496 = 423,322,238,976.
  EXPECT_EQ(val(r, "flops_6p"), 423322238976.0);
  // Memory: 2 P = 141,107,412,992; Adam 8 P = 564,429,651,968; together 705,537,064,960, which on
  // a v5p (96 GB) needs ceil(7.35) = 8 chips.
  EXPECT_EQ(val(r, "param_bytes"), 141107412992.0);
  EXPECT_EQ(val(r, "optimizer_bytes"), 564429651968.0);
  EXPECT_EQ(val(r, "memory_bytes"), 705537064960.0);
  EXPECT_EQ(val(r, "min_chips"), 8);
  // The chart data: parameters by component add up to the total; FLOPs per token by component add
  // up to the FLOPs per token.
  double sum = 0;
  for (const json& p : r["breakdown"]["params"]) sum += p["total"].get<double>();
  EXPECT_EQ(sum, 70553706496.0);
  sum = 0;
  for (const json& f : r["breakdown"]["flops"]) sum += f["per_token"].get<double>();
  near_rel(sum, 449222541312.0);
  EXPECT_EQ(r["model"]["id"], "llama-3-70b");
  EXPECT_EQ(r["config"]["K"], 8);
}

TEST(TransformersCalc, AccountingCustomAndOverrides) {
  json r = calc("transformers.accounting", tiny());
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump().substr(0, 400);
  // H = D / N = 4. Attention 2 * 8 * (2 + 1) * 4 = 192 per layer (384); MLP 3 * 8 * 32 = 768
  // (1536); norms 2 * 8 = 16 (32); vocabulary 2 * 8 * 10 = 160. Total 384 + 1536 + 32 + 160 = 2112.
  EXPECT_EQ(val(r, "params_total"), 2112);
  // KV per token, bf16: 2 * 2 * 1 * 4 * 2 = 32 B.
  EXPECT_EQ(val(r, "kv_bytes_per_token"), 32);
  // Plain MLP, tied embeddings, no norms: 384 + 2 * 2 * 8 * 32 + 0 + 80 = 384 + 1024 + 80 = 1488.
  json in = tiny();
  in["gated"] = "no";
  in["tied"] = "yes";
  in["norms"] = "0";
  EXPECT_EQ(val(calc("transformers.accounting", in), "params_total"), 1488);
  // MoE: K = 2, E = 4 experts, 2 per token. Per layer: attention 2 * 8 * 4 * 4 = 256, experts
  // 4 * 768 = 3072 (active 2 * 768 = 1536), router 8 * 4 = 32, norms 16.
  // Total 2 * (256 + 3072 + 32 + 16) + 160 = 6912; active 2 * (256 + 1536 + 32 + 16) + 160 = 3840.
  in = tiny();
  in["K"] = 2;
  in["E"] = 4;
  in["k"] = 2;
  r = calc("transformers.accounting", in);
  EXPECT_EQ(val(r, "params_total"), 6912);
  EXPECT_EQ(val(r, "params_active"), 3840);
  EXPECT_EQ(val(r, "router"), 64);
  // A model with one field changed: LLaMA 3 8B with 40 layers adds 8 layers of attention
  // 2 * 4096 * 40 * 128 = 41,943,040, MLP 3 * 4096 * 14336 = 176,160,768 and norms 8192:
  // 8 * 218,112,000 = 1,744,896,000 over its 8,030,261,248 = 9,775,157,248.
  EXPECT_EQ(val(calc("transformers.accounting", {{"model", "llama-3-8b"}}), "params_total"),
            8030261248.0);
  EXPECT_EQ(
      val(calc("transformers.accounting", {{"model", "llama-3-8b"}, {"L", 40}}), "params_total"),
      9775157248.0);
}

TEST(TransformersCalc, AccountingMoeModels) {
  // Mixtral 8x7B: published 46.7B total, 12.9B active.
  json r = calc("transformers.accounting", {{"model", "mixtral-8x7b"}});
  ASSERT_TRUE(r["ok"].get<bool>());
  near_rel(val(r, "params_total"), 46.7e9, 0.005);
  near_rel(val(r, "params_active"), 12.9e9, 0.005);
  // DeepSeek-V3: 671B total; MLA's cache is L (512 + 64) b = 61 * 576 * 2 = 70,272 B per token.
  r = calc("transformers.accounting", {{"model", "deepseek-v3"}});
  ASSERT_TRUE(r["ok"].get<bool>());
  near_rel(val(r, "params_total"), 671e9, 0.002);
  EXPECT_EQ(val(r, "kv_bytes_per_token"), 70272);
  EXPECT_GT(val(r, "mtp"), 0);
  bool mla = false;
  for (const json& n : r["notes"])
    mla = mla || n.get<std::string>().find("latent") != std::string::npos;
  EXPECT_TRUE(mla);
}

TEST(TransformersCalc, AccountingBadInput) {
  expect_field(calc("transformers.accounting", {{"model", "llama-9"}}), "model");
  // Custom needs every size: no L.
  json in = tiny();
  in.erase("L");
  expect_field(calc("transformers.accounting", in), "L");
  // 3 query heads do not divide D = 8 (H = D / N).
  in = tiny();
  in["N"] = 3;
  expect_field(calc("transformers.accounting", in), "N");
  // K = 3 does not divide N = 2... nor is it below it.
  in = tiny();
  in["K"] = 3;
  expect_field(calc("transformers.accounting", in), "K");
  // More experts per token than experts.
  in = tiny();
  in["E"] = 2;
  in["k"] = 4;
  expect_field(calc("transformers.accounting", in), "k");
  in["k"] = 0;
  expect_field(calc("transformers.accounting", in), "k");
  expect_field(calc("transformers.accounting", {{"L", -1}}), "L");
  expect_field(calc("transformers.accounting", {{"L", 1.5}}), "L");
  expect_field(calc("transformers.accounting", {{"norms", "3"}}), "norms");
  expect_field(calc("transformers.accounting", {{"T", 0}}), "T");
  expect_field(calc("transformers.accounting", {{"dtype_kv", "fp7"}}), "dtype_kv");
}

// ---- transformers.context
// ------------------------------------------------------------------------

TEST(TransformersCalc, ContextBookLayer) {
  // The book's layer: D = 8192, F = 4D, N = K = 64, H = 128, one layer, no vocabulary.
  json in = {{"model", "custom"}, {"L", 1},  {"D", 8192}, {"F", 32768},
             {"N", 64},           {"K", 64}, {"T", 32768}};
  json r = calc("transformers.context", in);
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump().substr(0, 400);
  // R(T) = T / 8D = 32768 / 65536 = 0.5; both crossovers 8D = 65,536.
  near_rel(val(r, "ratio"), 0.5);
  EXPECT_EQ(val(r, "crossover_8d"), 65536);
  near_rel(val(r, "crossover"), 65536);
  // MHA (G = 1), bf16: prefill T S G / (T G + S) = T / 2 = 16384; decode S / (1 + S) =
  // 32768 / 32769.
  near_rel(val(r, "intensity_prefill"), 16384);
  near_rel(val(r, "intensity_decode"), 32768.0 / 32769.0);
  // v5e: I_hw = 1.97e14 / 8.2e11 = 240.24; prefill compute-bound past I_hw (G + 1) / G = 480.49.
  near_rel(val(r, "i_hw"), 1.97e14 / 8.2e11);
  near_rel(val(r, "min_T_prefill"), 2 * 1.97e14 / 8.2e11);
  EXPECT_EQ(val(r, "decode_limit"), 1);  // 2G / b = 2 / 2
  // A causal kernel halves the core: the crossover doubles to 131,072 and R(T) halves to 0.25.
  in["causal"] = "yes";
  r = calc("transformers.context", in);
  near_rel(val(r, "crossover"), 131072);
  near_rel(val(r, "ratio"), 0.25);
  // The plot's curve is increasing in T and finite.
  const json& c = r["curve"];
  ASSERT_EQ(c["T"].size(), 64u);
  for (size_t i = 1; i < c["T"].size(); ++i) {
    EXPECT_GT(c["ratio"][i].get<double>(), c["ratio"][i - 1].get<double>());
    EXPECT_TRUE(std::isfinite(c["time_ratio"][i].get<double>()));
  }
  // LLaMA 3 70B: T* = (18 D F + 12 D H (N + K)) / (12 N H)
  //   = (18 * 8192 * 28672 + 12 * 8192 * 128 * 72) / (12 * 64 * 128) = 5,133,828,096 / 98,304
  //   = 52,224 (the vocabulary is no layer matmul).
  near_rel(val(calc("transformers.context", {{"model", "llama-3-70b"}}), "crossover"), 52224);
}

TEST(TransformersCalc, ContextBadInput) {
  expect_field(calc("transformers.context", {{"T", 0}}), "T");
  expect_field(calc("transformers.context", {{"chip", "v9z"}}), "chip");
  expect_field(calc("transformers.context", {{"model", "custom"}, {"D", 64}}), "L");
  // int4 has no peak on a v5e: the error names the dtype.
  expect_field(calc("transformers.context", {{"dtype", "int4"}}), "dtype");
}

// ---- transformers.kv_cache
// -----------------------------------------------------------------------

TEST(TransformersCalc, KvCache) {
  // LLaMA 3 70B, S = 8192, bf16: 327,680 B per token, x 8192 = 2,684,354,560 per sequence; B = 4:
  // 10,737,418,240. MHA would keep N/K = 8 times as much.
  json r = calc("transformers.kv_cache", {{"model", "llama-3-70b"}, {"B", 4}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump().substr(0, 400);
  EXPECT_EQ(val(r, "per_token"), 327680);
  EXPECT_EQ(val(r, "per_sequence"), 2684354560.0);
  EXPECT_EQ(val(r, "per_batch"), 10737418240.0);
  EXPECT_EQ(val(r, "gqa_saving"), 8);
  // Its 141 GB of weights exceed a v5e's 16 GB: nothing fits.
  EXPECT_EQ(val(r, "sequences_fit"), 0);
  EXPECT_EQ(val(r, "batch_fits"), 0);
  // LLaMA 3 8B on a v5p: weights 2 * 8,030,261,248 = 16,060,522,496; 96e9 - that =
  // 79,939,477,504 left; a sequence is 2 * 32 * 8 * 128 * 2 * 8192 = 1,073,741,824 B: 74 fit.
  r = calc("transformers.kv_cache", {{"model", "llama-3-8b"}, {"chip", "v5p"}});
  EXPECT_EQ(val(r, "sequences_fit"), 74);
  EXPECT_EQ(val(r, "batch_fits"), 1);
  // int8 halves it: 2 * 32 * 8 * 128 * 1 = 65,536 B per token.
  EXPECT_EQ(
      val(calc("transformers.kv_cache", {{"model", "llama-3-8b"}, {"dtype", "int8"}}), "per_token"),
      65536);
  // Mistral 7B: every layer keeps a 4096-token window. At S = 8192 a sequence holds
  // 131,072 * 4096 = 536,870,912 B, 65,536 per token on average.
  r = calc("transformers.kv_cache", {{"model", "mistral-7b"}});
  EXPECT_EQ(val(r, "per_token"), 131072);
  EXPECT_EQ(val(r, "per_sequence"), 536870912.0);
  EXPECT_EQ(val(r, "per_token_at_S"), 65536);
  // A window of 1024 on the tiny model's 2 layers at S = 8192: 32 B per token x 1024.
  json in = tiny();
  in["window"] = 1024;
  EXPECT_EQ(val(calc("transformers.kv_cache", in), "per_sequence"), 32768);
  // ... on one of the two layers: 16 * 8192 + 16 * 1024 = 147,456.
  in["window_layers"] = 1;
  EXPECT_EQ(val(calc("transformers.kv_cache", in), "per_sequence"), 147456);
  // DeepSeek-V3 (MLA): 61 * (512 + 64) * 2 = 70,272 B per token; no MHA comparison.
  r = calc("transformers.kv_cache", {{"model", "deepseek-v3"}});
  EXPECT_EQ(val(r, "per_token"), 70272);
  EXPECT_FALSE(r["values"].contains("gqa_saving"));
}

TEST(TransformersCalc, KvCacheBadInput) {
  expect_field(calc("transformers.kv_cache", {{"S", 0}}), "S");
  expect_field(calc("transformers.kv_cache", {{"B", 0.5}}), "B");
  expect_field(calc("transformers.kv_cache", {{"dtype", "bf17"}}), "dtype");
  json in = tiny();
  in["window_layers"] = 3;  // more than L = 2
  in["window"] = 16;
  expect_field(calc("transformers.kv_cache", in), "window_layers");
}

// ---- transformers.activations
// ---------------------------------------------------------------------

TEST(TransformersCalc, Activations) {
  // The book's example on LLaMA 3 70B with 64 layers: 4e6 tokens, D = 8192, bf16.
  json in = {{"model", "llama-3-70b"}, {"L", 64}, {"policy", "save_all"}};
  json r = calc("transformers.activations", in);
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump().substr(0, 400);
  // 2 * 20 * 4e6 * 8192 * 64 = 83,886,080,000,000 B (the book's 84 TB).
  EXPECT_EQ(val(r, "activation_bytes"), 83886080000000.0);
  in["policy"] = "block";
  r = calc("transformers.activations", in);
  // 2 * 1 * 4e6 * 8192 * 64 = 4,194,304,000,000 B (4.2 TB); 8 FLOPs per parameter per token.
  EXPECT_EQ(val(r, "activation_bytes"), 4194304000000.0);
  EXPECT_EQ(val(r, "flops_per_param_token"), 8);
  EXPECT_EQ(val(r, "recompute_flops"), 0);
  // Exact shapes on the real 80 layers: N H + 2 K H + D + 2 F + D = 8192 + 2048 + 8192 + 57344 +
  // 8192 = 83,968 = 10.25 D; 2 * 10.25 * 4e6 * 8192 * 80 = 53,739,520,000,000 B.
  r = calc("transformers.activations", {{"policy", "exact"}});
  EXPECT_EQ(val(r, "arrays_per_layer"), 10.25);
  EXPECT_EQ(val(r, "activation_bytes"), 53739520000000.0);
  // Big matmul outputs: 7 arrays; the core's QK^T and PV again: L 4 B T^2 N H with B = 4e6 / 4096
  // = 976.5625 sequences: 80 * 4 * 976.5625 * 4096^2 * 64 * 128 = 42,949,672,960,000,000.
  r = calc("transformers.activations", {{"policy", "big_matmuls"}});
  EXPECT_EQ(val(r, "arrays_per_layer"), 7);
  near_rel(val(r, "recompute_flops"), 42949672960000000.0);
  // Total with the parameters and Adam state (141,107,412,992 + 564,429,651,968) and the 7 arrays
  // (2 * 7 * 4e6 * 8192 * 80 = 36,700,160,000,000): 37,405,697,064,960 B on 96 GB chips: 390.
  EXPECT_EQ(val(r, "total_bytes"), 37405697064960.0);
  EXPECT_EQ(val(r, "min_chips"), 390);
  EXPECT_EQ(r["policies"].size(), 3u);
}

TEST(TransformersCalc, ActivationsBadInput) {
  expect_field(calc("transformers.activations", {{"policy", "half"}}), "policy");
  expect_field(calc("transformers.activations", {{"tokens", 1000}, {"T", 4096}}), "T");
  expect_field(calc("transformers.activations", {{"c", 0}, {"policy", "custom"}}), "c");
}

// ---- transformers.models and `scaling models`
// ------------------------------------------------------

TEST(TransformersCalc, ModelTableAgainstPublishedCounts) {
  json r = calc("transformers.models");
  ASSERT_TRUE(r["ok"].get<bool>());
  const json& rows = r["models"];
  EXPECT_EQ(val(r, "models"), static_cast<double>(rows.size()));
  auto row = [&](const std::string& id) {
    for (const json& m : rows)
      if (m["id"] == id) return m;
    ADD_FAILURE() << "no model " << id;
    return json::object();
  };
  // The checkpoints' parameter counts (Hugging Face): LLaMA 2 7B 6,738,415,616; LLaMA 3 8B
  // 8,030,261,248; LLaMA 3 70B 70,553,706,496. Dense: active = total.
  EXPECT_EQ(row("llama-2-7b")["params_total"], 6738415616.0);
  EXPECT_EQ(row("llama-3-8b")["params_total"], 8030261248.0);
  EXPECT_EQ(row("llama-3-70b")["params_total"], 70553706496.0);
  EXPECT_EQ(row("llama-3-70b")["params_active"], 70553706496.0);
  EXPECT_EQ(row("llama-3-70b")["nominal"], 70e9);
  // KV bytes per token in bf16: LLaMA 2 7B 2 * 32 * 32 * 128 * 2 = 524,288; LLaMA 3 8B
  // 2 * 32 * 8 * 128 * 2 = 131,072.
  EXPECT_EQ(row("llama-2-7b")["kv_bytes_per_token"], 524288);
  EXPECT_EQ(row("llama-3-8b")["kv_bytes_per_token"], 131072);
  // Every published figure is within 1.5% of what the formulas give (the makers round: 46.7B,
  // 12.9B, 671B, 37B).
  for (const json& m : rows)
    for (const json& p : m["published"])
      near_rel(p["computed"].get<double>(), p["value"].get<double>(), 0.015);
  // Every row has its config with the source key of each field.
  for (const json& m : rows) {
    EXPECT_FALSE(m["config_source"].get<std::string>().empty());
    for (const auto& [k, v] : m["config"].items()) EXPECT_TRUE(m["config_keys"].contains(k)) << k;
  }
}

// ---- problems -----------------------------------------------------------------------------------

TEST(TransformersProblems, EveryProblemRendersAndSolves) {
  int n = 0;
  for (const sb::Problem& p : sb::Registry::get().problems()) {
    if (p.chapter != "transformers") continue;
    ++n;
    const json r = sb::api::handle(json{{"op", "problem"}, {"id", p.id}});
    ASSERT_TRUE(r["ok"].get<bool>()) << p.id << r.dump().substr(0, 300);
    const std::string st = r["statement"].get<std::string>();
    EXPECT_EQ(st.find('{'), std::string::npos) << p.id << ": " << st;
    if (p.kind == "conceptual") {
      EXPECT_FALSE(p.model_answer.empty()) << p.id;
    } else {
      EXPECT_FALSE(p.slots.empty()) << p.id;
      for (const auto& [k, v] : r["answers"].items())
        if (v.contains("value")) EXPECT_TRUE(v["value"].is_number()) << p.id << " " << k;
    }
    // A variant changes a given and still solves.
    bool variable = false;
    for (const sb::Param& g : p.given) variable = variable || !g.variants.empty();
    if (variable)
      for (int seed = 1; seed <= 5; ++seed) {
        const json v = sb::api::handle(json{{"op", "variant"}, {"id", p.id}, {"seed", seed}});
        ASSERT_TRUE(v["ok"].get<bool>()) << p.id;
        const json s =
            sb::api::handle(json{{"op", "problem"}, {"id", p.id}, {"given", v["given"]}});
        EXPECT_TRUE(s["ok"].get<bool>()) << p.id << s.dump().substr(0, 300);
      }
  }
  // The catalogue's 22 items: EX1-EX8, Q1.a-c, Q2.a-b, Q3, Q4.a-c, Q5, Q6, Q7, Q8.a-b.
  EXPECT_EQ(n, 22);
}

TEST(TransformersProblems, WorkedExamples) {
  // EX1: 6NPM / 2NPM = 3; 6NPM / (PM N) = 6.
  auto a = solve("transformers.EX1");
  EXPECT_EQ(a["train_over_inference_ratio"], 3);
  EXPECT_EQ(a["train_flops_per_param_per_token"], 6);
  near_rel(slot("transformers.EX1", "train_flops").formula({{"N", 2}, {"P", 3}, {"M", 5}}), 180);
  // EX2: (18 D F + 12 D (N + K) H) / (12 N H) = (18 * 8192 * 32768 + 12 * 8192 * 128 * 128)
  //   / (12 * 64 * 128) = (4,831,838,208 + 1,610,612,736) / 98,304 = 65,536 = 8D.
  EXPECT_EQ(solve("transformers.EX2")["crossover_T"], 65536);
  // With GQA (K = 8): (4,831,838,208 + 12 * 8192 * 128 * 72) / 98,304 = 5,737,807,872 / 98,304
  //   = 58,368.
  EXPECT_EQ(solve("transformers.EX2", {{"K", 8}})["crossover_T"], 58368);
  // EX3: 8 * 4608 = 36,864.
  EXPECT_EQ(solve("transformers.EX3")["crossover_T"], 36864);
  // EX4: 2 * 20 * 4e6 * 8192 * 64 = 83,886,080,000,000 B.
  EXPECT_EQ(solve("transformers.EX4")["activation_bytes"], 83886080000000.0);
  // EX5: 2 * 1 * 4e6 * 8192 * 64 = 4,194,304,000,000 B; 6 + 2 = 8.
  a = solve("transformers.EX5");
  EXPECT_EQ(a["activation_bytes"], 4194304000000.0);
  EXPECT_EQ(a["train_flops_per_param_per_token"], 8);
  // EX6: 7 arrays; 2 * 7 * 4e6 * 8192 * 64 = 29,360,128,000,000 B.
  a = solve("transformers.EX6");
  EXPECT_EQ(a["saved_arrays_per_layer"], 7);
  EXPECT_EQ(a["activation_bytes"], 29360128000000.0);
  // EX7: 2 * 8192 * 64 * 64 * 128 * 1 = 2^1 * 2^13 * 2^6 * 2^6 * 2^7 = 2^33 = 8,589,934,592 (8
  // GiB).
  EXPECT_EQ(solve("transformers.EX7")["kv_cache_bytes"], 8589934592.0);
  // EX8: dispatch and return; (V / 4W) / (V / W) = 1/4.
  a = solve("transformers.EX8");
  EXPECT_EQ(a["alltoalls_per_moe_layer"], 2);
  EXPECT_EQ(a["alltoall_cost_vs_allgather"], 0.25);
}

TEST(TransformersProblems, Questions1to3) {
  // Q1.a: 64 * (3 * 4096 * 16384 + 4 * 4096^2 + 2 * 4096) + 2 * 4096 * 32000
  //   = 64 * (201,326,592 + 67,108,864 + 8,192) + 262,144,000 = 17,442,537,472.
  EXPECT_EQ(solve("transformers.Q1.a")["total_params"], 17442537472.0);
  EXPECT_FALSE(sb::Registry::get().problem("transformers.Q1.a").erratum.empty());
  // Q1.b: 67,108,864 / (67,108,864 + 201,326,592) = 1/4; 64 * 67,108,864 / 17,442,537,472
  //   = 4,294,967,296 / 17,442,537,472 = 0.246235.
  auto a = solve("transformers.Q1.b");
  EXPECT_EQ(a["attention_fraction_layer"], 0.25);
  near_rel(a["attention_fraction_total"], 4294967296.0 / 17442537472.0);
  // Q1.c: 2 * 64 * 32 * 128 * 1 = 524,288 B (512 KiB).
  EXPECT_EQ(solve("transformers.Q1.c")["kv_bytes_per_token"], 524288);
  // Q2 (held out): each device does 2 (B/4)(D/8) F = 2BDF / 32; 128 devices: 4 x 2BDF.
  EXPECT_EQ(solve("transformers.Q2.a")["total_flops_in_units_of_2BDF"], 4);
  EXPECT_EQ(solve("transformers.Q2.b")["per_device_flops_in_units_of_2BDF"], 1.0 / 32);
  EXPECT_EQ(solve("transformers.Q2.a", {{"Z", 1}})["total_flops_in_units_of_2BDF"], 1);
  // Q3 (held out): I and J contracted, no batch axis; 2 IJKLMNO.
  a = solve("transformers.Q3");
  EXPECT_EQ(a["contracting_axes"], 2);
  EXPECT_EQ(a["batching_axes"], 0);
  near_rel(slot("transformers.Q3", "flops")
               .formula({{"I", 2}, {"J", 3}, {"K", 5}, {"L", 7}, {"M", 11}, {"N", 13}, {"O", 17}}),
           2.0 * 2 * 3 * 5 * 7 * 11 * 13 * 17);
}

TEST(TransformersProblems, Questions4to8) {
  // Q4.a: T S G / (T G + S) in bf16: 4096 * 4096 * 8 / (4096 * 8 + 4096) = 4096 * 8 / 9 = 3640.89;
  // decode 8192 * 8 / (8 + 8192) = 65536 / 8200 = 7.99220.
  auto a = solve("transformers.Q4.a");
  near_rel(a["intensity_prefill_test_point"], 32768.0 / 9);
  near_rel(a["intensity_decode_test_point"], 65536.0 / 8200);
  near_rel(slot("transformers.Q4.a", "intensity").formula({{"T", 10}, {"S", 20}, {"G", 4}}),
           10.0 * 20 * 4 / (40 + 20));
  // Q4.b: I_hw = 1.97e14 / 8.2e11 = 240.24; MHA: 2 * 240.24 = 480.49; decode tends to 8 < 240.
  a = solve("transformers.Q4.b");
  near_rel(a["min_T_prefill_large_G"], 1.97e14 / 8.2e11);
  near_rel(a["min_T_prefill_MHA"], 2 * 1.97e14 / 8.2e11);
  EXPECT_EQ(a["decode_compute_bound"], 0);
  EXPECT_TRUE(solve("transformers.Q4.c").empty());
  // Q5: D (N + K) / N = 2D = 8192 for MHA; with K = 8: 4096 * 40 / 32 = 5120.
  EXPECT_EQ(solve("transformers.Q5")["crossover_T"], 8192);
  EXPECT_EQ(solve("transformers.Q5", {{"K", 8}})["crossover_T"], 5120);
  // Q6: 4 * 1 * 8192^2 * 64 * 128 = 4 * 67,108,864 * 8192 = 2,199,023,255,552; a third of 12 B T^2
  // N H.
  a = solve("transformers.Q6");
  EXPECT_EQ(a["recompute_flops_test_point"], 2199023255552.0);
  near_rel(a["fraction_of_attention_train_flops"], 1.0 / 3);
  // Q7: 2.79e6 h * 3600 s * 1.513e15 = 1.5196572e25; 6 * 37e9 * 14.8e12 = 3.2856e24; 0.216207.
  a = solve("transformers.Q7");
  near_rel(a["available_flops"], 1.5196572e25);
  near_rel(a["used_flops"], 3.2856e24);
  near_rel(a["mfu"], 3.2856e24 / 1.5196572e25);
  // Q8 (held out): int8 weights, b_w I_hw / 2 = 240.24 / 2 = 120.12; B > E / k * 120.12
  //   = 32 * 120.12 = 3843.9.
  near_rel(solve("transformers.Q8.a")["kB_over_E_threshold"], 1.97e14 / 8.2e11 / 2);
  near_rel(solve("transformers.Q8.b")["b_crit"], 32 * 1.97e14 / 8.2e11 / 2);
  near_rel(slot("transformers.Q8.a", "min_batch")
               .formula({{"E", 256}, {"k", 8}, {"C", 1.97e14}, {"W", 8.2e11}}),
           32 * 1.97e14 / 8.2e11 / 2);
}

TEST(TransformersProblems, BadGivens) {
  auto problem = [](const std::string& id, json given) {
    return sb::api::handle(json{{"op", "problem"}, {"id", id}, {"given", std::move(given)}});
  };
  // K = 5 does not divide N = 32.
  expect_field(problem("transformers.Q1.a", {{"K", 5}}), "K");
  expect_field(problem("transformers.Q1.a", {{"L", 0}}), "L");
  // N = 48 (grouped over K = 16) does not divide D = 4096 (H = D / N).
  expect_field(problem("transformers.Q5", {{"N", 48}, {"K", 16}}), "N");
  expect_field(problem("transformers.Q8.b", {{"k", 512}}), "k");
  expect_field(problem("transformers.EX7", {{"bytes_per_elem", 0}}), "bytes_per_elem");
}

// ---- every input at the ends of its declared range
// ------------------------------------------------

namespace {

using sb::test::expect_sound;

}  // namespace

TEST(TransformersRanges, CalculatorsAtTheEndsOfEveryRange) {
  for (const sb::Calculator& c : sb::Registry::get().calculators()) {
    if (c.chapter != "transformers") continue;
    std::vector<std::string> names;
    for (const sb::Param& p : c.params) names.emplace_back(p.name);
    // Each number at its min and its max, alone and all at once; on a model and on a custom one.
    for (const char* model : {"llama-3-70b", "deepseek-v3", "gemma-2-27b", "custom"}) {
      json lo = json::object(), hi = json::object();
      for (const sb::Param& p : c.params) {
        if (p.kind != sb::Param::Kind::Number) continue;
        for (double v : {p.min, p.max}) {
          json in = {{p.name, v}};
          if (std::find(names.begin(), names.end(), "model") != names.end()) in["model"] = model;
          expect_sound(calc(std::string(c.name), in), names,
                       std::string(c.name) + " " + std::string(p.name) + "=" + std::to_string(v));
        }
        lo[p.name] = p.min;
        hi[p.name] = p.max;
      }
      for (json in : {lo, hi}) {
        if (std::find(names.begin(), names.end(), "model") != names.end()) in["model"] = model;
        expect_sound(calc(std::string(c.name), in), names, std::string(c.name) + " " + in.dump());
      }
    }
  }
}

TEST(TransformersRanges, ProblemsAtTheEndsOfEveryRange) {
  for (const sb::Problem& p : sb::Registry::get().problems()) {
    if (p.chapter != "transformers") continue;
    std::vector<std::string> names;
    for (const sb::Param& g : p.given) names.push_back("given." + std::string(g.name));
    for (const sb::Param& g : p.given) names.emplace_back(g.name);
    names.emplace_back("given");
    json lo = json::object(), hi = json::object();
    for (const sb::Param& g : p.given) {
      if (g.kind != sb::Param::Kind::Number) continue;
      for (double v : {g.min, g.max}) {
        const json r = sb::api::handle(
            json{{"op", "problem"}, {"id", p.id}, {"given", {{std::string(g.name), v}}}});
        expect_sound(r, names, std::string(p.id) + " " + std::string(g.name));
      }
      lo[g.name] = g.min;
      hi[g.name] = g.max;
    }
    for (const json& g : {lo, hi})
      expect_sound(sb::api::handle(json{{"op", "problem"}, {"id", p.id}, {"given", g}}), names,
                   std::string(p.id) + " " + g.dump());
  }
}

// ---- the book's shortcuts and the recognisable mistakes
// -------------------------------------------

TEST(TransformersProblems, BookShortcutsAreCorrectAndSlipsNamed) {
  using sb::test::check;
  using sb::test::verdict_of;
  auto hint_of = [](const json& r, const std::string& slot) {
    for (const json& x : r["results"])
      if (x["slot"] == slot) return x.value("hint", std::string());
    return std::string();
  };
  // EX2: the book's ~64K is 8D with D read as 8k: 8 * 8000 = 64,000 (exact 65,536).
  EXPECT_EQ(verdict_of(check("transformers.EX2", {{"crossover_T", "64000"}}), "crossover_T"),
            "correct");
  // ... and the projections-only crossover D (N + K) / N = 2D = 16,384 is a named mistake.
  json r = check("transformers.EX2", {{"crossover_T", "16384"}});
  EXPECT_EQ(verdict_of(r, "crossover_T"), "wrong");
  EXPECT_NE(hint_of(r, "crossover_T").find("MLP"), std::string::npos);
  // EX4: 4M tokens read as 4 * 2^20: 2 * 20 * 4,194,304 * 8192 * 64 = 87,960,930,222,080 B.
  EXPECT_EQ(verdict_of(check("transformers.EX4", {{"activation_bytes", "87960930222080"}}),
                       "activation_bytes"),
            "correct");
  // Q1.a: the book's rounded factors, 64 (3 * 4e3 * 16e3 + 4 * (4e3)^2 + 2 * 4e3) + 2 * 4e3 *
  // 32000 = 64 * 256,008,000 + 256,000,000 = 16,640,512,000: correct with a note. An ungated MLP
  // (2DF) gives 17,442,537,472 - 64 * 4096 * 16384 = 13,147,570,176: wrong, with the hint.
  EXPECT_EQ(
      verdict_of(check("transformers.Q1.a", {{"total_params", "16640512000"}}), "total_params"),
      "correct");
  r = check("transformers.Q1.a", {{"total_params", "13147570176"}});
  EXPECT_EQ(verdict_of(r, "total_params"), "wrong");
  EXPECT_NE(hint_of(r, "total_params").find("3DF"), std::string::npos);
  // Q1.c: 512 KiB is the exact 524,288 B; half of it forgets the values.
  EXPECT_EQ(verdict_of(check("transformers.Q1.c", {{"kv_bytes_per_token", "512 KiB"}}),
                       "kv_bytes_per_token"),
            "correct");
  r = check("transformers.Q1.c", {{"kv_bytes_per_token", "262144"}});
  EXPECT_NE(hint_of(r, "kv_bytes_per_token").find("key and a value"), std::string::npos);
  // Q7: the sparse peak gives 3.2856e24 / (2.79e6 * 3600 * 3.026e15) = 0.1081: wrong, named.
  r = check("transformers.Q7", {{"mfu", "0.1081"}});
  EXPECT_EQ(verdict_of(r, "mfu"), "wrong");
  EXPECT_NE(hint_of(r, "mfu").find("sparsity"), std::string::npos);
  // Q8.b: the book's rounded I_hw: 32 * 240 / 2 = 3840 is correct; 120.12 is k B / E, not B.
  EXPECT_EQ(verdict_of(check("transformers.Q8.b", {{"b_crit", "3840"}}), "b_crit"), "correct");
  r = check("transformers.Q8.b", {{"b_crit", "120.12"}});
  EXPECT_EQ(verdict_of(r, "b_crit"), "wrong");
  EXPECT_NE(hint_of(r, "b_crit").find("E / k"), std::string::npos);
  // Q2.a (held out): 1 counts the matmul once, without the Z = 4 copies.
  r = check("transformers.Q2.a", {{"total_flops_in_units_of_2BDF", "1"}});
  EXPECT_EQ(verdict_of(r, "total_flops_in_units_of_2BDF"), "wrong");
  EXPECT_NE(hint_of(r, "total_flops_in_units_of_2BDF").find("Z"), std::string::npos);
  // A variant recomputes the shortcut: EX2 with D = 4096 (F = 16384, N = K = 32): 8D read as
  // 8 * 4000 = 32,000 is the book's way; the exact crossover is 32,768.
  const json g = {{"D", 4096}, {"F", 16384}, {"N", 32}, {"K", 32}};
  EXPECT_EQ(verdict_of(check("transformers.EX2", {{"crossover_T", "32000"}}, g), "crossover_T"),
            "correct");
  EXPECT_EQ(verdict_of(check("transformers.EX2", {{"crossover_T", "64000"}}, g), "crossover_T"),
            "wrong");
}

// ---- scaling models ----------------------------------------------------------------------------

TEST(TransformersCli, ModelsPrintsTheTable) {
  auto cli = [](std::vector<std::string> args, std::string& out) {
    args.insert(args.begin(), "scaling");
    std::ostringstream o, e;
    auto* old_out = std::cout.rdbuf(o.rdbuf());
    auto* old_err = std::cerr.rdbuf(e.rdbuf());
    const int code = run(args);
    std::cout.rdbuf(old_out);
    std::cerr.rdbuf(old_err);
    out = o.str();
    return code;
  };
  std::string out;
  ASSERT_EQ(cli({"models", "--json"}, out), 0);
  const json rows = json::parse(out);
  ASSERT_TRUE(rows.is_array());
  bool seen = false;
  for (const json& m : rows) {
    EXPECT_TRUE(m["config"].contains("L") && m["config"].contains("V")) << m["id"];
    EXPECT_GT(m["params_total"].get<double>(), 0);
    EXPECT_LE(m["params_active"].get<double>(), m["params_total"].get<double>());
    if (m["id"] != "llama-3-70b") continue;
    seen = true;
    // 70,553,706,496 parameters (the checkpoint's count) beside the nominal 70e9; KV bytes per
    // token in bf16: 2 * 80 * 8 * 128 * 2 = 327,680.
    EXPECT_EQ(m["params_total"], 70553706496.0);
    EXPECT_EQ(m["nominal"], 70e9);
    EXPECT_EQ(m["kv_bytes_per_token"], 327680);
  }
  EXPECT_TRUE(seen);
  // The plain table: a line per model with its nominal size.
  ASSERT_EQ(cli({"models"}, out), 0);
  EXPECT_NE(out.find("llama-3-70b"), std::string::npos);
  EXPECT_NE(out.find("70B"), std::string::npos);
  EXPECT_EQ(cli({"models", "extra"}, out), 2);
}
