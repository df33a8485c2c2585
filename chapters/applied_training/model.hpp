// Part 6, "Training LLaMA 3 on TPUs": the case study as a function of its inputs. The chapter's
// own formulas (the training state, the fewest chips that hold it, memory per chip) live here as
// records; everything else it asks comes from the transformers and training models, gathered by
// case_study(). Quantities are doubles in SI base units. Section labels (A.11 ...) refer to the
// chapter notes shared/book/transformers-appliedtraining.md.
#pragma once

#include "chapters/training/model.hpp"
#include "chapters/training/planner.hpp"
#include "chapters/transformers/model.hpp"
#include "core/formula.hpp"

namespace sb::applied_training {

// The chapter's symbols: their units and the ranges the record test draws them from.
inline constexpr Symbol kSymbols[] = {
    sym("D", "count", 64, 1e5, "model width"),
    sym("L", "count", 1, 1000, "layers"),
    sym("B", "tokens", 1, 1e9, "tokens per batch"),
    sym("c", "count", 0, 100, "bf16 [B, D] checkpoints per layer"),
    sym("M", "B", 1, 1e16, "bytes of the training state"),
    with_tex(sym("HBM", "B", 1e9, 1e12, "HBM per chip"), "\\mathrm{HBM}"),
    sym("N", "chips", 1, 1e6, "chips"),
    sym("P_MLP", "params", 1, 1e12, "MLP parameters"),
    sym("P", "params", 1e12, 1e13, "parameters"),
};

// A.11: what training holds in HBM: bf16 parameters (2P), Adam's fp32 moments (8P) and bf16
// gradient checkpoints, 2 D tokens c L for c checkpoints per layer (gradient buffers, an fp32
// master copy and temporaries not counted, as in the book).
struct TrainingState {
  double params = 0, optimizer = 0, checkpoints = 0;
  double total() const { return params + optimizer + checkpoints; }
};
TrainingState training_state(double P, double tokens_per_batch, double D, double L,
                             double checkpoints_per_layer);
// A.11: the checkpoints alone, 2 D B c L.
double checkpoint_bytes(double D, double tokens_per_batch, double checkpoints_per_layer, double L);
inline constexpr Formula kCheckpointBytes =
    record("A", "2 * D * B * c * L", "B", "A.11", "D B c L", kSymbols,
           [](const double* x) { return checkpoint_bytes(x[0], x[1], x[2], x[3]); });
// A.11: the fewest chips whose HBM holds it all: ceil(total / HBM per chip).
double min_chips(double total_bytes, double hbm_per_chip);
inline constexpr Formula kMinChips =
    record("N", "ceil(M / HBM)", "chips", "A.11", "M HBM", kSymbols,
           [](const double* x) { return min_chips(x[0], x[1]); });
// A.11: per chip when everything is sharded over n chips (FSDP): total / n.
double bytes_per_chip(double total_bytes, double chips);
inline constexpr Formula kBytesPerChip =
    record("M_chip", "M / N", "B", "A.11", "M N", kSymbols,
           [](const double* x) { return bytes_per_chip(x[0], x[1]); });

// The MLP's share of the parameters (IQ1: about 80% for LLaMA 3-70B).
double mlp_share(double mlp_params, double params);
inline constexpr Formula kMlpShare =
    record("share", "P_MLP / P", "ratio", "A.3", "P_MLP P", kSymbols,
           [](const double* x) { return mlp_share(x[0], x[1]); });

inline constexpr const Formula* kFormulas[] = {&kCheckpointBytes, &kMinChips, &kBytesPerChip,
                                               &kMlpShare};

// The chapter's questions for one setup (defaults: LLaMA 3-70B on v5p pods).
struct CaseInput {
  transformers::Config model;  // the book's table leaves the norms out (norms_per_layer 0)
  bool book_mlp = false;       // the chapter's 2-matrix MLP for the sharding thresholds
  training::Hardware hw;
  double tokens = 15e12;   // pre-training tokens
  double batch = 4194304;  // global batch, tokens (4M = 4 x 2^20)
  double seq_len = 4096;
  double pod_chips = 8960;
  double pods = 1;
  double mfu = 0.4;
  double checkpoints_per_layer = 4;
  double M_X_fsdp = 3;      // FSDP alone spans the three axes
  double M_X = 2, M_Y = 1;  // the book's FSDP + TP split of the axes
  // A GPU cluster (d_node > 0; pod_chips its GPUs, one "pod"): the M's are its layouts' (the
  // training planner's gpu_axes) and the recipe keeps TP in the node at Y_gpu (gpu_tp_degree).
  training::GpuCluster gpu;
  double Y_gpu = 0;
};
struct CaseStudy {
  transformers::Params params;
  // Training FLOPs: 6 x the matmul weights a token uses (an MoE's active experts; the input
  // embedding, a look-up, left out), and the chapter's 6 x every parameter, as its exercises count.
  double flops_per_token = 0;       // 6 P_active (transformers A.5)
  double flops_per_token_book = 0;  // 6 P
  double total_flops = 0;           // 6 P_active tokens
  double total_flops_book = 0;      // 6 P tokens
  double time_one_chip = 0;         // at peak
  double chips = 0;                 // pod_chips x pods
  double time = 0;                  // on all chips at the stated MFU (A.12)
  double time_book = 0;             // the same with 6 P
  TrainingState state;
  double min_chips = 0, time_on_min_chips = 0, bytes_per_chip = 0;
  bool fits = false;     // the state, sharded over every chip, fits in their HBM
  double sequences = 0;  // batch / seq_len: the DP degree without sequence sharding
  double per_chip_batch = 0, per_pod_batch = 0;
  double fsdp_threshold = 0;  // alpha / M_X
  bool fsdp_compute_bound = false;
  double mixed_threshold = 0;  // alpha^2 / (M_X M_Y F)
  bool mixed_compute_bound = false;
  double min_global_batch = 0;  // mixed_threshold x chips
  double tp_limit = 0;          // M_Y F / alpha
  double x_opt = 0;             // per pod
  training::XWindow x_window;   // per pod
  training::Recipe recipe;      // X_opt rounded as the chapter does, on a sub-slice if need be
  // The same questions costed as the planner costs them (training/costs.hpp): FSDP alone on the
  // pods, and the recipe. For a dense model they agree with the closed forms above but for the
  // HBM loads; for a mixture of experts, FSDP gathers every expert's weights, which the closed
  // forms (on the width a token uses) leave out.
  bool fsdp_costed_bound = false, recipe_costed_bound = false;
  bool gpu = false;          // on a GPU cluster: the recipe is the gpus chapter's
  double dcn_threshold = 0;  // alpha_dcn
  bool dcn_compute_bound = false;
};
CaseStudy case_study(const CaseInput& in);
// The case study's recipe and verdict in a reader's words: what fits, what is compute-bound, which
// split (the window, or why there is none).
std::string case_recipe_words(const CaseStudy& s);

}  // namespace sb::applied_training
