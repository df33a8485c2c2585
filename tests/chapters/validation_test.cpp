// The validation page's model: a run's bound and expected figure from the chapters' costs, worked
// by hand for a TPU and a GPU run, and bad scenarios, each an error naming its field.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "chapters/transformers/models.hpp"
#include "chapters/validation/model.hpp"
#include "core/api.hpp"
#include "core/error.hpp"
#include "tests/support/support.hpp"

using namespace sb;
using namespace sb::validation;
using sb::test::near_rel;
using sb::test::thrown;

namespace {

// A small model, no vocabulary: L 2, D 1024, F 4096 (plain MLP), 8 heads of 128.
// Per layer: attention 4 D N H = 4 x 1024 x 1024 = 4,194,304; MLP 2 D F = 8,388,608; together
// 12,582,912 matmul weights, and two norms of D = 2048. Model: 25,165,824 matmul weights,
// 25,169,920 stored.
const char* kTiny = R"({"base": "custom", "L": 2, "D": 1024, "F": 4096, "N": 8, "K": 8,
  "H": 128, "gated": false})";

Scenario tiny_training() {
  return read_scenario(json::parse(std::string(R"({"id": "T", "kind": "training", "model": )") +
                                   kTiny + R"(, "chip": "v5e", "chips": 1,
    "parallelism": {}, "batch": {"sequences": 16, "seq_len": 1024}, "remat": "big_matmuls",
    "measured": {"tokens_per_s_per_chip": 600000}})"));
}

}  // namespace

// One v5e (197 TFLOPs/s, 820 GB/s), 16 x 1024 = 16384 tokens a step, nothing to communicate.
// Forward FLOPs per token per layer: 2 x 12,582,912 + causal attention over 512 keys on average,
// 2 x 512 x 8 x (128 + 128) = 2,097,152: 27,262,976. T_math forward per layer:
// 27,262,976 x 16384 / 1.97e14 = 2.26739e-3 s (the weight load, 25.17 MB / 820 GB/s = 31 us, hides
// under it); backward twice that. Step: 2 layers x 3 x 2.26739e-3 = 1.36043e-2 s.
TEST(Validation, TpuTrainingStepByHand) {
  const Scenario s = tiny_training();
  const Prediction p = predict(s, kBound);
  const double t_fwd = 27262976.0 * 16384 / 1.97e14;
  near_rel(p.bound.step, 2 * 3 * t_fwd);
  near_rel(p.bound.tokens_per_s_chip, 16384 / (6 * t_fwd));
  EXPECT_TRUE(p.fits);
  // At half the MXU's peak the math takes twice as long; nothing else binds.
  Factors half = kBound;
  half.mxu_tpu = 0.5;
  const Prediction e = predict(s, half);
  near_rel(e.expected.step, 2 * p.bound.step);
  // measured 600000 tokens/s against 16384 / (12 t_fwd) = 602,163 expected: error 0.36%.
  near_rel(e.error, 16384 / (12 * t_fwd) / 600000 - 1);
  EXPECT_FALSE(e.above_bound);
}

// PaLM 540B prefill on 64 TPU v4 (275 TFLOPs/s): 512 prompts of 2048 tokens, weight-gathered
// (fsdp 64, Pope et al.'s layout for large batches).
// Matmul weights: per layer D (N + 2K) H + N H D = 18432 x 256 x (50 + 48) = 462,422,016 for
// attention and 3 D F = 4,076,863,488 for the gated MLP; x 118 layers, plus the unembedding
// D V = 4,718,592,000 (tied): 540,354,281,472. FLOPs: 2 x that x 1,048,576 tokens = 1.13321e18;
// causal attention, L x B T S N (H_qk + H_v) = 118 x 512 x 2048 x 2048 x 48 x 512 = 6.2276e15.
// Time at peak: 1.13944e18 / (64 x 2.75e14) = 64.74 s. The weights stream in 540 GB / 76.8 TB/s
// = 14 ms, and their AllGather over the slice's three axes, about 1.08 TB / (3 x 9e10 B/s) = 4 s,
// overlaps the matmuls.
TEST(Validation, TpuPrefillByHand) {
  const auto runs = read_scenarios(R"({"id": "P", "kind": "inference",
    "model": {"base": "custom", "L": 118, "D": 18432, "F": 73728, "N": 48, "K": 1, "H": 256,
              "V": 256000, "gated": true, "tied": true},
    "chip": "v4", "chips": 64, "parallelism": {"fsdp": 64},
    "inference": {"phase": "prefill", "prompt": 2048, "batch": 512},
    "measured": {"latency_s": 85.2}})");
  const Prediction p = predict(runs.at(0), kBound);
  const double flops = 2 * 540354281472.0 * 1048576 + 118.0 * 512 * 2048 * 2048 * 48 * 512;
  near_rel(p.bound.latency, flops / (64 * 2.75e14));
  EXPECT_FALSE(p.above_bound);  // 85.2 s is slower than 64.74 s
  EXPECT_FALSE(p.higher_is_better);
}

// The small model decoding on one node of 8 H100 (3.35 TB/s, 990 TFLOPs/s each): 64 sequences,
// 1000-token prompts, 2 output tokens, so the caches hold S = 1001 tokens on average.
// KV per token 2 L K H 2 B = 8192 B: T_kv = 64 x 1001 x 8192 / (8 x 3.35e12) = 1.95825e-5 s.
// Weights 25,169,920 x 2 B / 2.68e13 B/s = 1.87835e-6 s. FLOPs 2 x 25,165,824 x 64 plus
// attention 2 x 2 x 64 x 1001 x 8 x 256 = 524,812,288, over 7.92e15: 4.73e-7 s, under the
// weights. Tensor parallelism over the 8 GPUs: each block AllGathers and ReduceScatters the
// [64, 1024] bf16 rows, 131,072 B, a ring in the node at 450 GB/s: 131072 x 7/8 / 4.5e11 =
// 2.54862e-7 s each, 4 per layer, 2 layers: 2.03890e-6 s, added to the step (A.10, the chapter's
// step with its collectives). Step: T_kv + max(T_flops, T_param) + that = 2.34998e-5 s.
TEST(Validation, GpuDecodeByHand) {
  const auto runs = read_scenarios(std::string(R"({"id": "G", "kind": "inference", "model": )") +
                                   kTiny + R"(, "chip": "h100", "chips": 8,
    "parallelism": {"tensor": 8}, "inference": {"phase": "decode", "prompt": 1000, "output": 2,
    "batch": 64}, "measured": {"output_tokens_per_s_per_chip": 100000}})");
  const Prediction p = predict(runs.at(0), kBound);
  const double loads = 64 * 1001 * 8192.0 / (8 * 3.35e12) + 25169920 * 2.0 / (8 * 3.35e12);
  const double tp = 8 * 131072 * 7.0 / 8 / 4.5e11;
  near_rel(p.bound.tpot, loads + tp);
  near_rel(p.bound.out_per_s_chip, 64 / (8 * (loads + tp)));
  // With HBM at half its rate both loads take twice as long; the collectives do not change.
  Factors half = kBound;
  half.hbm = 0.5;
  near_rel(predict(runs.at(0), half).expected.tpot, 2 * loads + tp);
  // At half the line rate the collectives take twice as long.
  Factors slow = kBound;
  slow.link = 0.5;
  near_rel(predict(runs.at(0), slow).expected.tpot, loads + 2 * tp);
}

// The same decode with its attention on the CUDA cores (`cuda_cores`). An H100's vector rate
// (A.1 (2)): 132 SMs x 4 x 32 lanes x 1.98e9 Hz x 2 = 6.69082e13 FLOPs/s. The attention's
// 524,812,288 FLOPs over 8 GPUs at that rate take 9.80455e-7 s, under T_kv (1.95825e-5 s), so at
// the bound the kernel is as long as its cache reads and the step is GpuDecodeByHand's. At 1% of
// the vector rate the kernel takes 9.80455e-5 s and binds: the step is that, the weights
// (1.87835e-6 s, longer than the matmuls' 2 x 25,165,824 x 64 / 7.92e15 = 4.07e-7 s) and the
// collectives (2.03890e-6 s). The kernel is a GPU's and a decode's: on a TPU, or in training, the
// scenario is an error naming attention_kernel.
TEST(Validation, CudaCoreDecodeAttentionByHand) {
  auto run = [](const std::string& kind, const std::string& chip, const std::string& rest) {
    return read_scenarios(R"({"id": "V", "kind": ")" + kind + R"(", "model": )" + kTiny +
                          R"(, "chip": ")" + chip + R"(", "chips": 8,
      "parallelism": {"tensor": 8}, "attention_kernel": "cuda_cores", )" +
                          rest + "}")
        .at(0);
  };
  const std::string decode = R"("inference": {"phase": "decode", "prompt": 1000, "output": 2,
    "batch": 64})";
  const Scenario s = run("inference", "h100", decode);
  const double loads = 64 * 1001 * 8192.0 / (8 * 3.35e12) + 25169920 * 2.0 / (8 * 3.35e12);
  const double tp = 8 * 131072 * 7.0 / 8 / 4.5e11;
  near_rel(predict(s, kBound).bound.tpot, loads + tp);
  Factors slow = kBound;
  slow.vector = 0.01;
  const double c_vec = 132 * 4 * 32 * 1.98e9 * 2;
  const Prediction p = predict(s, slow);
  near_rel(p.expected.tpot, 524812288.0 / (8 * c_vec * 0.01) + 25169920 * 2.0 / (8 * 3.35e12) + tp);
  EXPECT_EQ(p.bottleneck, "decode attention (CUDA cores)");
  EXPECT_EQ(thrown([&] { run("inference", "v5e", decode); }).field,
            "scenarios.runs[0].attention_kernel");
  EXPECT_EQ(thrown([&] {
              run("training", "h100", R"("batch": {"sequences": 8, "seq_len": 1024})");
            }).field,
            "scenarios.runs[0].attention_kernel");
}

// FP4 on a Blackwell: the small model's prefill on one B200, 64 prompts of 1024 tokens, is
// compute-bound (its FLOPs are 3.3e12 and more; its weights, 12.6 MB in FP4, stream in 1.6 us at
// 8 TB/s), so its time is the FLOPs over the peak of the compute dtype: 9e15 in FP4 against 2.25e15
// in bf16, a quarter. The expected figure takes mxu_fp8 of the FP4 peak. An H100 has no FP4 peak:
// the scenario is an error naming dtypes.compute.
TEST(Validation, Fp4ComputeTakesItsPeak) {
  auto run = [](const std::string& chip, const std::string& dtype) {
    return read_scenarios(std::string(R"({"id": "F", "kind": "inference", "model": )") + kTiny +
                          R"(, "chip": ")" + chip +
                          R"(", "chips": 1, "parallelism": {}, "dtypes": {"compute": ")" + dtype +
                          R"(", "weights": ")" + dtype +
                          R"("}, "inference": {"phase": "prefill", "prompt": 1024, "batch": 64},
      "measured": {"latency_s": 1}})")
        .at(0);
  };
  const Prediction bf16 = predict(run("b200", "bf16"), kBound);
  const Prediction fp4 = predict(run("b200", "fp4"), kBound);
  near_rel(fp4.bound.latency, bf16.bound.latency * 2.25e15 / 9e15);
  Factors half = kBound;
  half.mxu_fp8 = 0.5;
  near_rel(predict(run("b200", "fp4"), half).expected.latency, 2 * fp4.bound.latency);
  EXPECT_EQ(thrown([&] { run("h100", "fp4"); }).field, "scenarios.runs[0].dtypes.compute");
}

// One sequence on 16 v5e (a 4x4 slice, 820 GB/s, 1 us a hop): each collective moves a [1, 1024]
// bf16 row, 2048 B, in 2048 / (2 axes x 9e10 B/s) = 11 ns, far under A.11's latency floor: a ring
// along the two axes of 4 chips, 2 x 4 = 8 hops, t_hop x 8 / 2 = 4e-6 s. Four collectives a layer,
// two layers: 3.2e-5 s. The step's loads: weights 25,169,920 x 2 / (16 x 8.2e11) = 3.83688e-6 s,
// caches 1 x 1001 x 8192 / (16 x 8.2e11) = 6.25e-7 s. The collectives set the pace.
TEST(Validation, LatencyBoundCollectivesByHand) {
  const auto runs = read_scenarios(std::string(R"({"id": "L", "kind": "inference", "model": )") +
                                   kTiny + R"(, "chip": "v5e", "chips": 16,
    "parallelism": {"tensor": 16}, "inference": {"phase": "decode", "prompt": 1000, "output": 2,
    "batch": 1}})");
  const Prediction p = predict(runs.at(0), kBound);
  const double loads = 25169920 * 2.0 / (16 * 8.2e11) + 1001 * 8192.0 / (16 * 8.2e11);
  near_rel(p.bound.tpot, loads + 8 * 4e-6);
  EXPECT_EQ(p.bottleneck, "TP collectives");
}

// Data parallelism in serving: two replicas of one GPU each, 32 sequences apiece, serve as fast per
// chip as one GPU serving 32; a batch that does not split over the replicas names its field.
TEST(Validation, ReplicasShareTheBatch) {
  auto run = [](const char* chips, const char* par, const char* batch) {
    return std::string(R"({"id": "R", "kind": "inference", "model": )") + kTiny +
           R"(, "chip": "h100", "chips": )" + chips + R"(, "parallelism": )" + par +
           R"(, "inference": {"phase": "decode", "prompt": 1000, "output": 2, "batch": )" + batch +
           "}}";
  };
  const Prediction two = predict(read_scenarios(run("2", R"({"data": 2})", "64")).at(0), kBound);
  const Prediction one = predict(read_scenarios(run("1", "{}", "32")).at(0), kBound);
  near_rel(two.bound.tpot, one.bound.tpot);
  near_rel(two.bound.out_per_s_chip, one.bound.out_per_s_chip);
  EXPECT_EQ(thrown([&] { read_scenarios(run("2", R"({"data": 2})", "63")); }).field,
            "scenarios.runs[0].inference.batch");
}

// The MoE factor: matmuls at rate C of which a share e (the routed experts') runs at moe C take as
// long as all of them at C / (1 - e + e / moe): e = 0.5, moe = 0.25 gives C / 2.5. DeepSeek-V3's
// routed experts a token uses: 58 MoE layers x 8 experts x 3 x 7168 x 2048 = 20,434,649,088.
TEST(Validation, ExpertMatmulsByHand) {
  near_rel(blended_rate(1e15, 0.5, 0.25), 1e15 / 2.5);
  near_rel(blended_rate(1e15, 0, 0.25), 1e15);
  near_rel(routed_active_params(transformers::model("deepseek-v3").config),
           58.0 * 8 * 3 * 7168 * 2048);
  EXPECT_EQ(routed_active_params(transformers::model("llama-3-70b").config), 0);
}

// A source's MFU or whole-run throughput becomes tokens/s per chip: the tiny model counted as
// 6 x 25,165,824 = 150,994,944 FLOPs a token (no attention), at 50% of the v5e's 1.97e14:
// 0.5 x 1.97e14 / 150,994,944 = 652,340 tokens/s; 1.2e6 tokens/s over 2 chips is 6e5 a chip.
TEST(Validation, MeasuredFiguresInTheirUnit) {
  auto run = [](const std::string& measured, const std::string& conv) {
    return read_scenarios(std::string(R"({"id": "M", "kind": "training", "model": )") + kTiny +
                          R"(, "chip": "v5e", "chips": 2, "parallelism": {"fsdp": 2},
      "batch": {"sequences": 16, "seq_len": 1024}, "conventions": )" +
                          conv + R"(, "measured": )" + measured + "}")
        .at(0);
  };
  near_rel(measured_figure(run(R"({"mfu": 0.5})", R"({"attention": "none"})")),
           0.5 * 1.97e14 / 150994944);
  // Its own peak (a bf16 run quoted against an FP8 peak, say) divides instead.
  near_rel(measured_figure(run(R"({"mfu": 0.5})", R"({"attention": "none", "peak_flops": 4e14})")),
           0.5 * 4e14 / 150994944);
  near_rel(measured_figure(run(R"({"tokens_per_s": 1.2e6})", "{}")), 6e5);
  EXPECT_EQ(thrown([&] { run(R"({"mfu": 46})", "{}"); }).field, "scenarios.runs[0].measured.mfu");
}

// Host offload: LLaMA 3 70B on 256 v6e under FSDP with the block policy saves each layer's input,
// a bf16 row of 8192 (16,384 B) per token: 1280 x 8192 / 256 = 40,960 tokens a chip, 80 layers,
// 53.7 GB, more than the 32 GB of HBM beside the 2.8 GB of weights and Adam (70.6e9 x 10 B / 256).
// With `offload: activations` the saved inputs live in host memory: the chip holds the weights and
// optimizer alone, and the step is no shorter.
TEST(Validation, OffloadMovesActivationsToTheHost) {
  auto run = [](const char* offload) {
    return read_scenarios(std::string(R"({"id": "O", "kind": "training", "model": "llama-3-70b",
      "chip": "v6e", "chips": 256, "parallelism": {"fsdp": 256}, "remat": "block",
      "batch": {"sequences": 1280, "seq_len": 8192})") +
                          offload + "}")
        .at(0);
  };
  const Prediction kept = predict(run(""), kFitted);
  const Prediction off = predict(run(R"(, "offload": "activations")"), kFitted);
  EXPECT_FALSE(kept.fits);
  EXPECT_TRUE(off.fits);
  const double state = transformers::params(transformers::model("llama-3-70b").config).total * 10 /
                       256;  // bf16 weights and Adam's two fp32 moments
  near_rel(off.mem, state);
  EXPECT_GE(off.expected.step, kept.expected.step);
  EXPECT_EQ(thrown([] {
              read_scenarios(R"({"id": "O", "kind": "training", "model": "llama-3-8b",
                "chip": "h100", "chips": 8, "parallelism": {"fsdp": 8}, "offload": "activations",
                "batch": {"sequences": 8, "seq_len": 1024}})");
            }).field,
            "scenarios.runs[0].offload");
}

// A measured figure above the bound is flagged, not hidden.
TEST(Validation, AboveTheBoundIsSaid) {
  Scenario s = tiny_training();
  s.measured = 2e6;  // tokens/s per chip, above the 1.2e6 bound
  EXPECT_TRUE(predict(s, kBound).above_bound);
}

TEST(Validation, BadScenariosNameTheirField) {
  const std::string base = R"({"id": "B", "kind": "training", "chip": "v5e", "chips": 4,
    "batch": {"sequences": 8, "seq_len": 1024}, )";
  auto field = [&](const std::string& rest) {
    return thrown([&] { read_scenarios(base + rest); }).field;
  };
  EXPECT_EQ(field(R"("model": "no-such-model", "parallelism": {"fsdp": 4}})"),
            "scenarios.runs[0].model");
  EXPECT_EQ(field(R"("model": "llama-3-8b", "parallelism": {"fsdp": 3}})"),
            "scenarios.runs[0].chips");
  EXPECT_EQ(field(R"("model": "llama-3-8b", "parallelism": {"fsdp": 4, "microbatches": 3}})"),
            "scenarios.runs[0].batch.sequences");
  EXPECT_EQ(field(R"("model": "llama-3-8b", "parallelism": {"fsdp": 4, "tensor": 0}})"),
            "scenarios.runs[0].parallelism.tensor");
  EXPECT_EQ(thrown([] {
              read_scenarios(R"({"id": "B", "kind": "training", "model": "llama-3-8b",
                "chip": "tpu-v99", "chips": 1})");
            }).field,
            "scenarios.runs[0].chip");
  EXPECT_EQ(thrown([] { read_scenarios("{not json"); }).field, "scenarios");
  EXPECT_EQ(thrown([] { read_scenarios("  "); }).field, "scenarios");
}

// LLaMA 3 70B on one v5e (16 GB): 70.6e9 params x 10 B of weights and Adam is 706 GB. The
// prediction says it does not fit and still reports the memory, a finite step time with it.
TEST(Validation, NotFittingStillReportsMemory) {
  const auto runs = read_scenarios(R"({"id": "M", "kind": "training", "model": "llama-3-70b",
    "chip": "v5e", "chips": 1, "parallelism": {}, "batch": {"sequences": 1, "seq_len": 1024}})");
  const Prediction p = predict(runs.at(0), kFitted);
  EXPECT_FALSE(p.fits);
  EXPECT_GT(p.mem, 10 * 70e9);
  EXPECT_TRUE(std::isfinite(p.expected.step));
  EXPECT_EQ(p.error, 0);  // nothing measured
}

// The calculator behind `scaling validate` reads the same text and answers with the runs.
TEST(Validation, CalculatorAnswersEachRun) {
  const json r = api::handle(json{{"op", "calc"},
                                  {"name", "validation.runs"},
                                  {"inputs", {{"scenarios", R"([{"id": "x"}])"}}}});
  ASSERT_FALSE(r["ok"].get<bool>());
  EXPECT_EQ(r["error"]["field"], "scenarios.runs[0].kind");
  const json ok = api::handle(json{{"op", "calc"}, {"name", "validation.runs"}});
  ASSERT_TRUE(ok["ok"].get<bool>()) << ok.dump();
  EXPECT_EQ(ok["runs"].size(), 1u);
  EXPECT_TRUE(ok["runs"][0]["error"].is_number());
}

// Runs the factors were not fitted to (tests/chapters/validation_unseen.json, converted from their
// papers as a reader would): each reads, none is measured faster than its bound, the median error
// of the measured ones is within the issue's 15%, and each is within its 40%. U51, TensorRT-LLM
// 0.6's decode of 480 sequences to 2048 tokens, was 78% fast until its decode attention was charged
// on the CUDA cores (`cuda_cores`, bench/NOTES.md, sixteenth pass), with the factor fitted on P38.
TEST(Validation, UnseenRunsStayWithinTheTarget) {
  std::ifstream in(std::string(SB_SOURCE_DIR) + "/tests/chapters/validation_unseen.json");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto runs = read_scenarios(text);
  ASSERT_GE(runs.size(), 35u);
  std::vector<double> errors;
  for (const Scenario& s : runs) {
    const Prediction p = predict(s, kFitted);
    EXPECT_FALSE(p.above_bound) << s.id;
    EXPECT_TRUE(std::isfinite(p.expected.primary) && p.expected.primary > 0) << s.id;
    if (!(p.measured > 0)) continue;
    errors.push_back(std::abs(p.error));
    EXPECT_LT(std::abs(p.error), 0.4) << s.id;
  }
  std::sort(errors.begin(), errors.end());
  const size_t n = errors.size();
  EXPECT_LE(n % 2 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2, 0.15);
}

// Tensor-parallel collectives on a GPU run between the matmuls unless the run says its stack
// overlaps them (tp_overlap). A GPT of D = 4096 on 8 A100s, TP 8, one microbatch of 8 x 1024
// tokens, block remat: each layer's forward AllGathers and ReduceScatters a [8192, 4096] bf16
// activation twice (attention and MLP). In series the step adds those collectives three times a
// layer (forward, backward, the replayed forward); overlapped, the matmuls hide them. The
// difference between the two step times is 3 x L x (the collectives of one layer's forward).
TEST(Validation, GpuTensorCollectivesInSeries) {
  auto run = [](const char* overlap) {
    return read_scenarios(std::string(R"({"id": "T", "kind": "training", "model": {"name": "G",
      "L": 4, "D": 4096, "F": 16384, "N": 32, "K": 32, "H": 128, "V": 51200, "gated": false,
      "tied": true}, "chip": "a100", "chips": 8, "parallelism": {"tensor": 8)") +
                          overlap + R"(}, "remat": "block",
      "batch": {"sequences": 8, "seq_len": 1024}})")
        .at(0);
  };
  const Prediction serial = predict(run(""), kBound);
  const Prediction hidden = predict(run(R"(, "tp_overlap": true)"), kBound);
  // One AllGather + ReduceScatter pair of 8192 x 4096 x 2 B = 67,108,864 B in the NVLink node,
  // each the training chapter's V / W_ici (the sharding chapter's t_allgather_multi on one axis):
  // 2 x 67,108,864 / 3e11 B/s = 4.47e-4 s; two pairs a layer (attention, MLP), four layers, three
  // passes: 24 x 4.47e-4 = 1.07e-2 s.
  const double pair = 2 * 67108864 / 3e11;
  near_rel(serial.bound.step - hidden.bound.step, 4 * 3 * 2 * pair);
  EXPECT_THROW(read_scenarios(std::string(R"({"id": "T", "kind": "training", "model": "llama-3-8b",
      "chip": "a100", "chips": 8, "parallelism": {"tensor": 8, "tp_overlap": 1},
      "batch": {"sequences": 8, "seq_len": 1024}})")),
               InputError);
}

// An unfused attention kernel: the same GPT of D = 4096, 32 heads, on one A100, one microbatch of
// 2 sequences of 1024 tokens, saving the big matmuls (the core replayed in the backward pass). Each
// layer writes and reads the [32, 1024, 1024] bf16 scores and probabilities, 2 x 32 x 1024^2 x 2 =
// 134,217,728 B per pass: 4 passes forward, 8 backward, 4 replayed, 16 x 134,217,728 / 2e12 B/s =
// 1.07e-3 s a layer, 4 layers: 4.29e-3 s. And every score is computed: the core's FLOPs are those
// of 1024 keys a query, not 512 (A.4: 4 x 1024 x 4096 forward FLOPs a token against half that),
// 3 passes x 4 layers x 2048 tokens x 4 x 512 x 4096 more FLOPs at 3.1e14 FLOPs/s: 3.25e-4 s.
TEST(Validation, UnfusedAttentionByHand) {
  auto run = [](const char* kernel) {
    return read_scenarios(std::string(R"({"id": "A", "kind": "training", "model": {"name": "G",
      "L": 4, "D": 4096, "F": 16384, "N": 32, "K": 32, "H": 128, "V": 51200, "gated": false,
      "tied": true}, "chip": "a100", "chips": 1, "parallelism": {}, "remat": "big_matmuls",
      "batch": {"sequences": 2, "seq_len": 1024})") +
                          kernel + "}")
        .at(0);
  };
  const Prediction fused = predict(run(""), kBound);
  const Prediction unfused = predict(run(R"(, "attention_kernel": "unfused")"), kBound);
  const double scores = 4 * 16 * 134217728.0 / 2e12;
  const double flops = 3 * 4 * 2048 * 4 * 512 * 4096.0 / 3.1e14;
  near_rel(unfused.bound.step - fused.bound.step, scores + flops);
  EXPECT_EQ(thrown([&] { run(R"(, "attention_kernel": "flash")"); }).field,
            "scenarios.runs[0].attention_kernel");
}
