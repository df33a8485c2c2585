// Predictions beside published runs (not a Part of the book): a run's exact configuration read
// from a scenario (docs/VALIDATION.md), costed by the chapters' own models, beside what its source
// measured. Training runs go through the training chapter's costs (costs.hpp: the per-layer
// T_math and collectives of that layout, its memory); inference runs through the inference
// chapter's decode step and prefill (A.7, A.8).
//
// Two figures per run: the roofline bound (peak FLOPs/s, line-rate bandwidths) and the expected
// figure, the same model with the chip's rates multiplied by a few named efficiency factors
// (Factors), fitted to the published runs (fit()).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "chapters/training/costs.hpp"
#include "chapters/transformers/model.hpp"
#include "core/json.hpp"

namespace sb::validation {

// The efficiency factors: what share of its peak a part of the chip reaches in a real run.
struct Factors {
  double mxu_tpu = 1;  // large matmuls on a TPU, share of peak FLOPs/s
  double mxu_gpu = 1;  // large matmuls on a GPU
  double mxu_fp8 = 1;  // FP8 (and FP4) matmuls, either family, share of their own peak
  double link = 1;     // collectives, share of the line rate (ICI, NVLink, DCN, InfiniBand)
  double hbm = 1;      // HBM streams (weights, KV caches), share of the HBM bandwidth
  double moe = 1;      // an MoE's routed-expert matmuls, share of the dense matmuls' rate
  double vector = 1;   // decode attention run on a GPU's CUDA cores, share of their fp32 rate
};
inline constexpr Factors kBound{};
// Fitted by fit() on data/validation/published.json (least squares on the log of
// expected / measured, a grid of 1% steps); `scaling validate --fit` prints them again.
inline constexpr Factors kFitted{0.74, 0.73, 0.43, 0.50, 0.60, 0.32, 0.11};

struct Scenario;
// The factor of a run's matmuls: FP8's where it computes in FP8, else its chip family's.
double mxu_share(const Scenario& s, const Factors& f);
// The routed experts' matmul weights one token uses, k of them in every MoE layer (0 for a dense
// model): the matmuls the `moe` factor slows.
double routed_active_params(const transformers::Config& c);
// Matmuls at rate C whose routed-expert share e runs at moe C: the one rate that takes as long,
// C / (1 - e + e / moe).
double blended_rate(double C, double e, double moe);

// One published run in the scenario format (docs/VALIDATION.md), checked.
struct Scenario {
  std::string id, title, kind;  // kind: "training" or "inference"
  std::string source_ref, source_url, source_where;
  std::string model_id, model_name;
  transformers::Config model;
  std::string chip_id, chip_name, family;  // family: "TPU" or "GPU"
  training::Hardware hw;                   // the chip's figures after the scenario's overrides
  std::vector<std::string> overridden;     // "peak_flops_bf16 = 9.89e14 (source)"
  double chips = 0, pods = 1, gpus_per_node = 0, torus_dims = 0;
  std::string topology;
  double data = 1, fsdp = 1, tensor = 1, pipeline = 1, expert = 1, context = 1, micro = 1;
  double virtual_stages = 1;  // interleaved pipeline: stages per GPU
  // The tensor-parallel collectives hide under the matmuls (a TPU's collective matmul; on a GPU,
  // TransformerEngine's userbuffers or async TP), or run between them (a GPU's default).
  bool tp_overlap = false;
  double sequences = 0, seq_len = 0;
  transformers::Remat remat = transformers::Remat::BigMatmuls;
  bool offload = false;  // the saved activations live in host memory (`offload`: "activations")
  // `attention_kernel`: "unfused" (before flash attention): every score of the [heads, T, T]
  // matrix is computed, masked or not, and the scores and probabilities go through HBM.
  bool unfused_attention = false;
  // "cuda_cores" (inference on a GPU): the decode step's attention runs on the CUDA cores, not the
  // Tensor Cores (TensorRT-LLM's masked multi-head attention of 2023, before its XQA kernel for
  // grouped-query heads). C_vec is the chip's vector rate (the gpus chapter's A.1 (2)).
  bool vector_attention = false;
  double C_vec = 0;
  double host_bw = 0;            // the chip's host link (PCIe), B/s; 0 when the table has none
  std::string compute = "bf16";  // the matmuls' dtype, which picks the peak
  double b_w = 2, b_kv = 2;      // bytes per weight / KV element (inference)
  std::string dtype_w = "bf16", dtype_kv = "bf16";  // their dtypes, as the scenario names them
  // Inference: "prefill" (batch prompts at once), "static" (prefill then decode, one batch),
  // "serve" (continuous batching at a concurrency), "decode" (decode steps alone).
  std::string phase;
  double prompt = 0, output = 0, batch = 0;
  // The source's FLOP count: attention "causal" | "full" | "none"; recompute counted; params
  // "all" (every stored parameter) | "matmul" (the matmul weights a token uses, head included).
  std::string conv_attention = "causal", conv_params = "matmul";
  bool conv_recompute = false;
  double conv_peak = 0;      // the peak FLOPs/s per chip its MFU divides by (default: the chip's)
  std::string measured_key;  // the quantity the source reports that the error is taken on
  double measured = 0;
  json measured_all = json::object();
  std::vector<std::string> notes;  // what the model leaves out for this run
};
// A scenario from its JSON; InputError naming the field (with `where`, "runs[3].", before it).
Scenario read_scenario(const json& j, const std::string& where = "");
// Every scenario of a text: one object, an array, {"runs": [...]}, or several of those one after
// another (the CLI's files joined). InputError naming `field` for text that is not JSON.
std::vector<Scenario> read_scenarios(std::string_view text, std::string_view field = "scenarios");

// Inference: the data-parallel replicas a run serves with, the data degree over the share of it
// that expert parallelism joins into one replica (data / gcd(data, expert)).
double replicas(const Scenario& s);

// Inference: the tokens a decode step's caches hold midway through the output, prompt + output / 2,
// at which every decode step of the run is costed.
double decode_context(const Scenario& s);

// The run's configuration, as the page's table and its links to the planner show it: one object.
void write_config(JsonWriter& w, const Scenario& s);

// What one run is predicted to do at a set of factors.
struct Figures {
  double step = 0, tokens_per_s_chip = 0, mfu = 0;  // training
  double ttft = 0, tpot = 0, out_per_s_chip = 0;    // inference
  double latency = 0;                               // prefill: the batch's time
  double primary = 0;                               // the measured quantity's prediction
};
struct Prediction {
  Figures bound, expected;
  double mem = 0, hbm = 0;  // bytes per chip: needed, the chip's
  bool fits = true;
  std::string bottleneck;  // the term the expected step is bound by
  double measured = 0;     // the measured figure in the primary's unit (0: none)
  double error = 0;        // expected / measured - 1
  bool above_bound = false;
  std::string unit;  // of the primary quantity
  bool higher_is_better = true;
};
Prediction predict(const Scenario& s, const Factors& f);
// Sets error and above_bound from the primary figures and the measured one.
void judge(Prediction& p);

// The source's own FLOPs per token (its convention), for turning its TFLOP/s into tokens/s.
double convention_flops_per_token(const Scenario& s);
// The measured figure in the unit of its prediction: per chip (a whole run's tokens/s over its
// chips), and a training run's TFLOP/s per chip or MFU as tokens/s under its own FLOP count.
double measured_figure(const Scenario& s);

// The factors that minimise the sum of squared log errors over the runs (each factor on a grid
// of 0.01 in [0.1, 1], by coordinate descent from kFitted).
Factors fit(const std::vector<Scenario>& runs);

// The median and the largest |error| of the expected figure.
struct Summary {
  double median = 0, worst = 0;
  std::string worst_id;
};
Summary summarize(const std::vector<Prediction>& p, const std::vector<Scenario>& s);

}  // namespace sb::validation
