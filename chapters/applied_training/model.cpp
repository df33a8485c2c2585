// Part 6: the chapter's formulas and the case study assembled from the models it builds on.
#include "chapters/applied_training/model.hpp"

#include <cmath>
#include <string>
#include <utility>

#include "core/error.hpp"

namespace sb::applied_training {

namespace tf = transformers;
namespace tr = training;

TrainingState training_state(double P, double tokens, double D, double L, double c) {
  return {tf::param_bytes(P), tf::optimizer_bytes(P), tf::activation_bytes(tokens, D, L, c)};
}

double min_chips(double total, double hbm) { return std::ceil(total / hbm); }
double bytes_per_chip(double total, double chips) { return total / chips; }

namespace {

void positive(double v, const char* field, const char* what) {
  if (!(v > 0) || !std::isfinite(v))
    fail(field, std::string(field) + " must be " + what, "out_of_range");
}

}  // namespace

CaseStudy case_study(const CaseInput& in) {
  const tf::Config c = tf::validated(in.model);
  positive(in.hw.C, "C", "a positive FLOPs/s");
  positive(in.hw.W_ici, "W_ici", "a positive bandwidth");
  positive(in.hw.hbm, "hbm", "a positive number of bytes");
  positive(in.tokens, "tokens", "a positive number of tokens");
  positive(in.seq_len, "seq_len", "a positive number of tokens");
  if (!(in.checkpoints_per_layer >= 0) || !std::isfinite(in.checkpoints_per_layer))
    fail("checkpoints_per_layer", "checkpoints_per_layer must be 0 or more", "out_of_range");
  if (!(in.mfu > 0 && in.mfu <= 1))
    fail("mfu", "mfu must be above 0 and at most 1", "out_of_range");
  if (!(in.pod_chips >= 1) || in.pod_chips != std::floor(in.pod_chips) || in.pod_chips > 1e8)
    fail("pod_chips", "pod_chips must be a whole number of chips", "out_of_range");
  if (!(in.pods >= 1) || in.pods != std::floor(in.pods) || in.pods > 1e4)
    fail("pods", "pods must be a whole number of at least 1", "out_of_range");
  for (auto [v, field] : {std::pair{in.M_X_fsdp, "M_X_fsdp"}, {in.M_X, "M_X"}, {in.M_Y, "M_Y"}})
    positive(v, field, "a positive number of axes");
  if (!(in.batch >= in.pod_chips * in.pods) || !std::isfinite(in.batch))
    fail("batch", "the batch must hold at least one token per chip", "out_of_range");
  const tr::Layer layer = tr::layer_of(c);
  CaseStudy s;
  s.params = tf::params(c);
  const double P = s.params.total;
  s.flops_per_token = tf::six_p_tokens(P, 1);
  s.total_flops = tf::six_p_tokens(P, in.tokens);
  s.time_one_chip = tr::train_time(s.total_flops, 1, in.hw.C, 1);
  s.chips = in.pod_chips * in.pods;
  s.time = tr::train_time(s.total_flops, s.chips, in.hw.C, in.mfu);
  s.state = training_state(P, in.batch, c.D, c.L, in.checkpoints_per_layer);
  s.min_chips = min_chips(s.state.total(), in.hw.hbm);
  s.time_on_min_chips = tr::train_time(s.total_flops, s.min_chips, in.hw.C, in.mfu);
  s.bytes_per_chip = bytes_per_chip(s.state.total(), s.chips);
  s.sequences = tr::sequences(in.batch, in.seq_len);
  s.per_chip_batch = in.batch / s.chips;
  s.per_pod_batch = in.batch / in.pods;
  const double alpha = tr::alpha_ici(in.hw);
  s.fsdp_threshold = tr::dp_min_batch_per_chip(alpha, in.M_X_fsdp);
  s.fsdp_compute_bound = s.per_chip_batch > s.fsdp_threshold;
  s.mixed_threshold = tr::mixed_min_batch_per_chip(alpha, layer.F, in.M_X, in.M_Y);
  s.mixed_compute_bound = s.per_chip_batch > s.mixed_threshold;
  s.min_global_batch = tr::mixed_min_batch(s.chips, alpha, layer.F, in.M_X, in.M_Y);
  s.tp_limit = tr::tp_max_degree(layer.F, alpha, in.M_Y);
  s.x_opt = tr::x_opt(s.per_pod_batch, layer.F, in.pod_chips, in.M_X, in.M_Y);
  s.x_window = tr::x_window(s.per_pod_batch, layer.F, in.pod_chips, alpha, in.M_X, in.M_Y);
  s.fsdp_degree = tr::round_split(s.x_opt, in.pod_chips);
  s.tp_degree = in.pod_chips / s.fsdp_degree;
  if (in.hw.W_dcn > 0) {
    s.dcn_threshold = tr::alpha_dcn(in.hw);
    s.dcn_compute_bound = in.pods > 1 && tr::dcn_compute_bound(in.batch, in.pods, in.hw);
  }
  return s;
}

}  // namespace sb::applied_training
