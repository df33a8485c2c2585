// Part 8, "Serving LLaMA 3-70B on TPUs": the case study as a function of its inputs. Almost every
// formula it uses is Part 7's (chapters/inference: KV bytes, the decode step, the critical batch,
// prefill, the server ratio); the few it adds live here as records: the fewest chips as a whole
// number, a replica's sequences per second, and the largest batch under a latency limit.
// serving() gathers the chapter's questions for one model, TPU and dtype set. Quantities are
// doubles in SI base units; section labels (A.6 ...) refer to shared/book/inference.md.
#pragma once
#include <string>
#include <vector>

#include "chapters/inference/model.hpp"
#include "core/formula.hpp"

namespace sb::applied_inference {

// The chapter's symbols: unit, the range the record test draws from, words, TeX where needed.
inline constexpr Symbol kSymbols[] = {
    with_tex(sym("bytes_w", "B", 1e6, 1e14, "bytes of the weights"), "M_{w}"),
    with_tex(sym("kv_batch", "B", 1e3, 1e15, "KV-cache bytes of the batch"),
             "\\mathrm{kv}_{\\mathrm{batch}}"),
    with_tex(sym("M_hbm", "B", 1e9, 1e12, "HBM capacity per chip"), "M_{\\mathrm{hbm}}"),
    sym("B", "tokens", 1, 1e5, "decode batch: sequences, one token each per step"),
    with_tex(sym("T_step", "s", 1e-6, 10, "time of one decode step"), "T_{\\mathrm{step}}"),
    with_tex(sym("len_decode", "tokens", 1, 1e5, "tokens generated per request"),
             "\\mathrm{len}_{\\mathrm{decode}}"),
    with_tex(sym("T_limit", "s", 1e-4, 10, "the latency a step may take"), "T_{\\mathrm{limit}}"),
    with_tex(sym("T_param", "s", 1e-7, 1e-4, "time to read the weights"), "T_{\\mathrm{param}}"),
    with_tex(sym("T_kv1", "s", 1e-7, 10, "time to read one sequence's KV cache"), "T_{kv,1}"),
    with_tex(sym("T_flops1", "s", 1e-7, 10, "time of one sequence's FLOPs"),
             "T_{\\mathrm{flops},1}"),
};

// A.6: the fewest chips whose HBM holds the weights and the caches, a whole number:
// ceil((bytes_w + kv_batch) / M_hbm) (the slice that exists comes next).
double min_chips(double bytes_w, double kv_batch, double M_hbm);
inline constexpr Formula kMinChips =
    record("n_min", "ceil((bytes_w + kv_batch) / M_hbm)", "chips", "A.6", "bytes_w kv_batch M_hbm",
           kSymbols, [](const double* x) { return min_chips(x[0], x[1], x[2]); });
// A.7 (S7): the replies a replica finishes per second, B / (T_step len_decode): Part 7's queries
// per chip with the replica as one.
double sequences_per_s(double B, double T_step, double len_decode);
inline constexpr Formula kSequencesPerS =
    record("seq_s", "B / (T_step * len_decode)", "per_s", "A.7", "B T_step len_decode", kSymbols,
           [](const double* x) { return sequences_per_s(x[0], x[1], x[2]); });
// Q3: the largest batch whose step, B T_kv1 + max(B T_flops1, T_param), stays within T_limit:
// below the critical batch the weight loads count, T_kv1 B + T_param <= T_limit ...
double batch_under_limit_loads(double T_limit, double T_param, double T_kv1);
inline constexpr Formula kBatchLoads = record(
    "B_lim", "floor((T_limit - T_param) / T_kv1)", "count", "A.7 (Q3)", "T_limit T_param T_kv1",
    kSymbols, [](const double* x) { return batch_under_limit_loads(x[0], x[1], x[2]); });
// ... above it the FLOPs do, (T_kv1 + T_flops1) B <= T_limit. The batch is the smaller of the two.
double batch_under_limit_flops(double T_limit, double T_kv1, double T_flops1);
inline constexpr Formula kBatchFlops = record(
    "B_lim", "floor(T_limit / (T_kv1 + T_flops1))", "count", "A.7 (Q3)", "T_limit T_kv1 T_flops1",
    kSymbols, [](const double* x) { return batch_under_limit_flops(x[0], x[1], x[2]); });

inline constexpr const Formula* kFormulas[] = {&kMinChips, &kSequencesPerS, &kBatchLoads,
                                               &kBatchFlops};

// The setting of the case study: a model's counts, a TPU, and the serving workload.
struct Setting {
  double P_total = 0, P_active = 0;  // parameters stored, and used per token
  double L = 0, K = 0, H = 0;        // for the KV bytes per token
  double D = 0;                      // the activation a GPU slice AllReduces (inference's step)
  double kv_tok_bf16 = 0;            // KV bytes per token in bf16 (2 L K H 2 for plain attention)
  inference::Machine machine;
  double C_bf16 = 0, C_int8 = 0;  // the chip's peaks (C_int8 0 when it has none)
  double S = 8192;                // context: tokens in each sequence's cache
  double len_decode = 512;        // tokens per reply
  double prompt = 8192;           // tokens per prompt
  double mfu = 0.4;               // prefill's share of the peak
  double slice_factor = 1;        // the slice: the smallest that holds the weights, times this
  double price = 0;               // $ per chip-hour (0: none)
};

// One dtype of the case study (weights and caches in it, matmuls in bf16) on its slice.
struct DtypeRow {
  std::string dtype;  // "bf16", "int8", "int4"
  double b = 0;       // bytes per weight and per KV element
  double bytes_w = 0, kv_tok = 0;
  double chips_raw = 0;    // bytes_w / M_hbm
  double smallest = 0;     // the smallest slice that holds the weights (0: none does)
  double chips = 0;        // the slice used: smallest x slice_factor, rounded to a slice
  std::string shape;       // "4x4"
  double hbm_left = 0;     // chips M_hbm - bytes_w
  double B_max = 0;        // caches of S tokens that fit there
  double B_crit = 0;       // (b / 2) C_bf16 / W_hbm
  inference::Decode step;  // the decode step at B_max
  double seq_s = 0;        // replies per second of the replica
  double qps_chip = 0;     // per chip
  double tok_s_chip = 0;   // tokens per second per chip
  double cost_per_m = 0;   // $ per million output tokens (0 without a price)
  bool fits = false;       // some slice holds the weights and one cache
};
// What the inference chapter's GPU step needs of the model: its layers and width.
inference::Served layers_of(const Setting& s);
// S5-S8 for one dtype; InputError naming `field` for an unknown dtype. On a slice of GPUs the
// step adds the inference chapter's AllReduces (its gpu_step_comms; none on a TPU).
DtypeRow dtype_row(const Setting& s, const std::string& dtype);

// The fewest chips of a TPU's slices at least `chips` (0 when the pod is too small), and its shape.
double slice_at_least(const inference::Machine& t, double chips, std::string* shape = nullptr);

}  // namespace sb::applied_inference
