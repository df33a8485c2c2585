// Part 6, "Training LLaMA 3 on TPUs": the case study as a function of its inputs. The chapter's
// own formulas (the training state, the fewest chips that hold it, memory per chip) live here;
// everything else it asks comes from the transformers and training models, gathered by
// case_study(). Quantities are doubles in SI base units. Section labels (A.11 ...) refer to the
// chapter notes shared/book/transformers-appliedtraining.md.
#pragma once

#include "chapters/training/model.hpp"
#include "chapters/transformers/model.hpp"

namespace sb::applied_training {

// A.11: what training holds in HBM: bf16 parameters (2P), Adam's fp32 moments (8P) and bf16
// gradient checkpoints, 2 D tokens c L for c checkpoints per layer (gradient buffers, an fp32
// master copy and temporaries not counted, as in the book).
struct TrainingState {
  double params = 0, optimizer = 0, checkpoints = 0;
  double total() const { return params + optimizer + checkpoints; }
};
TrainingState training_state(double P, double tokens_per_batch, double D, double L,
                             double checkpoints_per_layer);
// A.11: the fewest chips whose HBM holds it all: ceil(total / HBM per chip).
double min_chips(double total_bytes, double hbm_per_chip);
// A.11: per chip when everything is sharded over n chips (FSDP): total / n.
double bytes_per_chip(double total_bytes, double chips);

// The chapter's questions for one setup (defaults: LLaMA 3-70B on v5p pods).
struct CaseInput {
  transformers::Config model;  // the book's table leaves the norms out (norms_per_layer 0)
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
};
struct CaseStudy {
  transformers::Params params;
  double flops_per_token = 0;  // 6 P (A.5)
  double total_flops = 0;      // 6 P tokens
  double time_one_chip = 0;    // at peak
  double chips = 0;            // pod_chips x pods
  double time = 0;             // on all chips at the stated MFU (A.12)
  TrainingState state;
  double min_chips = 0, time_on_min_chips = 0, bytes_per_chip = 0;
  double sequences = 0;  // batch / seq_len: the DP degree without sequence sharding
  double per_chip_batch = 0, per_pod_batch = 0;
  double fsdp_threshold = 0;  // alpha / M_X
  bool fsdp_compute_bound = false;
  double mixed_threshold = 0;  // alpha^2 / (M_X M_Y F)
  bool mixed_compute_bound = false;
  double min_global_batch = 0;            // mixed_threshold x chips
  double tp_limit = 0;                    // M_Y F / alpha
  double x_opt = 0;                       // per pod
  training::XWindow x_window;             // per pod
  double fsdp_degree = 0, tp_degree = 0;  // x_opt rounded to a divisor of the pod, and the rest
  double dcn_threshold = 0;               // alpha_dcn
  bool dcn_compute_bound = false;
};
CaseStudy case_study(const CaseInput& in);

}  // namespace sb::applied_training
