// The one model input (chapters/transformers/model_input.hpp): the choice among the table's models
// and custom with its aliases, the fields laid over a model with one meaning each (F the dense
// layers' width, F_e an expert's), the clamping rule, and the errors naming their field. Counts
// are derived by hand in the comments.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "chapters/training/model.hpp"
#include "chapters/transformers/model_input.hpp"
#include "core/error.hpp"
#include "core/registry.hpp"
#include "tests/support/support.hpp"

namespace tf = sb::transformers;
using sb::json;
using sb::test::calc;
using sb::test::expect_error_value;
using sb::test::near_rel;
using sb::test::value_of;

namespace {

tf::ModelFields fields(double L = 0) {
  tf::ModelFields f;
  f.L = L;
  return f;
}

double total(const tf::ChosenModel& m) { return tf::params(m.config).total; }

}  // namespace

TEST(ModelInput, ChoicesAreTheTableAndCustom) {
  const sb::Param p = tf::model_param();
  const std::vector<std::string> got = sb::choices_of(p);
  std::vector<std::string> want = tf::model_ids();
  want.push_back("custom");
  EXPECT_EQ(got, want);
  // The schema carries a label in words per choice, in the same order.
  const json j = sb::to_json(p);
  ASSERT_EQ(j["labels"].size(), got.size());
  EXPECT_EQ(j["labels"][0], tf::model_choice_label(got[0]));
  EXPECT_EQ(tf::model_choice_label("llama-3-70b"), "LLaMA 3 70B");
  EXPECT_EQ(tf::model_choice_label("custom"), "custom: enter the sizes");
}

TEST(ModelInput, AliasesResolveToTheId) {
  EXPECT_EQ(tf::resolve_model_choice("LLaMA 3 70B", "model"), "llama-3-70b");
  EXPECT_EQ(tf::resolve_model_choice("meta-llama/Meta-Llama-3-8B", "model"), "llama-3-8b");
  EXPECT_EQ(tf::resolve_model_choice("DeepSeek-R1", "model"), "deepseek-v3");
  EXPECT_EQ(tf::resolve_model_choice("Custom", "model"), "custom");
  // Through the registry, as every face reads it: the response echoes the id.
  const json r = calc("transformers.accounting", {{"model", "Mixtral 8x7B"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump().substr(0, 300);
  EXPECT_EQ(r["inputs"]["model"], "mixtral-8x7b");
  EXPECT_EQ(r["model"]["id"], "mixtral-8x7b");
  EXPECT_EQ(calc("training.regime", {{"model", "llama3-70b"}})["inputs"]["model"], "llama-3-70b");
}

TEST(ModelInput, UnknownModelsAreNamedErrors) {
  for (const std::string name :
       {"transformers.accounting", "training.strategy", "applied-training.case"}) {
    const json r = calc(name, {{"model", "llama-9"}});
    expect_error_value(r, "model");
    EXPECT_EQ(r["error"]["code"], "unknown_model") << name;
    const std::string msg = r["error"]["message"];
    EXPECT_NE(msg.find("llama-3-70b"), std::string::npos) << msg;
    EXPECT_NE(msg.find("custom"), std::string::npos) << msg;
  }
  try {
    tf::choose_model("gpt-5", fields(), "preset");
    ADD_FAILURE() << "no error";
  } catch (const sb::InputError& e) {
    EXPECT_EQ(e.field, "preset");
  }
}

TEST(ModelInput, CustomNeedsItsSizes) {
  // Each missing size is named, in the order a reader fills them in.
  tf::ModelFields f;
  auto missing = [&] {
    try {
      tf::choose_model("custom", f);
    } catch (const sb::InputError& e) {
      EXPECT_EQ(e.code, "missing");
      return e.field;
    }
    return std::string("none");
  };
  EXPECT_EQ(missing(), "L");
  f.L = 2;
  EXPECT_EQ(missing(), "D");
  f.D = 8;
  EXPECT_EQ(missing(), "N");
  f.N = 2;
  EXPECT_EQ(missing(), "K");
  f.K = 1;
  EXPECT_EQ(missing(), "F");
  // An MoE model may give the experts' width alone, but needs k.
  f.E = 4;
  f.F_e = 16;
  EXPECT_EQ(missing(), "k");
  f.k = 2;
  const tf::ChosenModel m = tf::choose_model("custom", f);
  EXPECT_EQ(m.id, "custom");
  EXPECT_EQ(m.entry, nullptr);
  // H = D / N = 4. Per layer: attention 2 * 8 * (2 + 1) * 4 = 192, experts 4 * 3 * 8 * 16 = 1536,
  // router 8 * 4 = 32, norms 2 * 8 = 16: 1776; two layers 3552, no vocabulary (V = 0). Active:
  // 2 experts, 192 + 768 + 32 + 16 = 1008 per layer, 2016.
  EXPECT_EQ(total(m), 3552);
  EXPECT_EQ(tf::params(m.config).active, 2016);
  // The same through the calculators: the field named.
  expect_error_value(calc("transformers.kv_cache", {{"model", "custom"}, {"L", 2}}), "D");
}

TEST(ModelInput, FIsTheDenseWidthAndFeTheExperts) {
  // Mixtral 8x7B (46,702,792,704 parameters) has no dense layer: a new F changes nothing.
  tf::ModelFields f;
  f.F = 20000;
  EXPECT_EQ(total(tf::choose_model("mixtral-8x7b", f)), 46702792704.0);
  // F_e = 20000: one expert 3 * 4096 * 20000 = 245,760,000, eight 1,966,080,000; a layer adds
  // attention 41,943,040, router 32,768 and norms 8,192: 2,008,064,000; 32 layers 64,258,048,000;
  // embeddings 2 * 4096 * 32000 = 262,144,000 and the final norm 4096: 64,520,196,096.
  f = tf::ModelFields{};
  f.F_e = 20000;
  EXPECT_EQ(total(tf::choose_model("mixtral-8x7b", f)), 64520196096.0);
  // One dense first layer of F = 20000: attention 41,943,040 + MLP 245,760,000 + norms 8,192 =
  // 287,711,232; 31 MoE layers of 1,451,270,144 = 44,989,374,464; + 262,148,096: 45,539,233,792.
  f = tf::ModelFields{};
  f.F = 20000;
  f.n_dense = 1;
  EXPECT_EQ(total(tf::choose_model("mixtral-8x7b", f)), 45539233792.0);
  // Training reads F the same way (its layer keeps the two experts a token uses, 2 * 14336).
  f = tf::ModelFields{};
  f.F = 20000;
  const sb::transformers::Config c = tf::choose_model("mixtral-8x7b", f).config;
  EXPECT_EQ(c.F_e, 14336);
  EXPECT_EQ(sb::training::layer_of(c).F, 28672);
}

TEST(ModelInput, OneMlpWidthPerToken) {
  // Averaged over the layers: DeepSeek-V3's 3 dense layers of 18432 and 58 MoE layers of
  // (8 + 1) * 2048 = 18432: 18432. With 2 shared experts: (3 * 18432 + 58 * 10 * 2048) / 61 =
  // 1,243,136 / 61.
  EXPECT_EQ(tf::mlp_width_per_token(tf::model("deepseek-v3").config), 18432);
  tf::ModelFields f;
  f.n_shared = 2;
  near_rel(tf::mlp_width_per_token(tf::choose_model("deepseek-v3", f).config), 1243136.0 / 61);
  EXPECT_EQ(tf::mlp_width_per_token(tf::model("mixtral-8x7b").config), 2 * 14336);
  EXPECT_EQ(tf::mlp_width_per_token(tf::model("llama-3-70b").config), 28672);
}

TEST(ModelInput, LayersShrinkTheModelsOwnCounts) {
  // DeepSeek-V3 with L = 2: its 3 dense first layers shrink to 2, so both are dense. A dense layer:
  // MLA 187,105,280 + its norms 2,048 + 2 D norms 14,336 + MLP 3 * 7168 * 18432 = 396,361,728:
  // 583,483,392; two 1,166,966,784; + embeddings 2 * 7168 * 129280 = 1,853,358,080 + the final norm
  // 7168: 3,020,332,032, all of it active.
  const tf::ChosenModel d = tf::choose_model("deepseek-v3", fields(2));
  EXPECT_EQ(d.config.n_dense, 2);
  EXPECT_EQ(total(d), 3020332032.0);
  EXPECT_EQ(tf::params(d.config).active, 3020332032.0);
  // Gemma 2 9B with L = 3: its 21 sliding-window layers shrink to 3.
  EXPECT_EQ(tf::choose_model("gemma-2-9b", fields(3)).config.window_layers, 3);
  // A reader's own n_dense above L is an error naming it.
  tf::ModelFields f = fields(2);
  f.n_dense = 3;
  EXPECT_THROW(
      {
        try {
          tf::choose_model("deepseek-v3", f);
        } catch (const sb::InputError& e) {
          EXPECT_EQ(e.field, "n_dense");
          throw;
        }
      },
      sb::InputError);
  expect_error_value(
      calc("transformers.accounting", {{"model", "deepseek-v3"}, {"L", 2}, {"n_dense", 3}}),
      "n_dense");
}

TEST(ModelInput, NormsCountAsTheBookDoes) {
  // LLaMA 3 70B stores 2 D norms per layer and a final one (70,553,706,496). norms 0: none at all,
  // the book's table: 70,553,706,496 - 80 * 2 * 8192 - 8192 = 70,552,387,584. norms 2: the book's
  // two per layer and no final norm: 70,552,387,584 + 1,310,720 = 70,553,698,304.
  auto with_norms = [](double n) {
    tf::ModelFields f;
    f.norms = n;
    return total(tf::choose_model("llama-3-70b", f));
  };
  EXPECT_EQ(total(tf::choose_model("llama-3-70b", {})), 70553706496.0);
  EXPECT_EQ(with_norms(0), 70552387584.0);
  EXPECT_EQ(with_norms(2), 70553698304.0);
  EXPECT_EQ(value_of(calc("transformers.accounting", {{"norms", "0"}}), "params_total"),
            70552387584.0);
}

TEST(ModelInput, NewWidthOrHeadsDeriveTheHeadDim) {
  // LLaMA 3 8B (D 4096, N 32, H 128) with D = 2048 and no H: H = 2048 / 32 = 64. Its own H stays
  // when H is given.
  tf::ModelFields f;
  f.D = 2048;
  EXPECT_EQ(tf::choose_model("llama-3-8b", f).config.H, 64);
  f.H = 128;
  EXPECT_EQ(tf::choose_model("llama-3-8b", f).config.H, 128);
  // N = 24 does not divide D = 4096 once H is derived: the error names N.
  expect_error_value(calc("transformers.accounting", {{"model", "llama-3-8b"}, {"N", 24}}), "N");
}
