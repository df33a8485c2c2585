// Part 6: the chapter's formulas and the case study assembled from the models it builds on.
#include "chapters/applied_training/model.hpp"

#include <cmath>
#include <string>
#include <utility>

#include "chapters/training/strategy.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace sb::applied_training {

namespace tf = transformers;
namespace tr = training;

double checkpoint_bytes(double D, double tokens, double c, double L) {
  return tf::activation_bytes(tokens, D, L, c);
}

TrainingState training_state(double P, double tokens, double D, double L, double c) {
  return {tf::param_bytes(P), tf::optimizer_bytes(P), checkpoint_bytes(D, tokens, c, L)};
}

double mlp_share(double mlp_params, double params) { return mlp_params / params; }
// The fewest chips is the transformers chapter's rule (A.11), bytes over HBM rounded up.
double min_chips(double total, double hbm) { return tf::min_chips(total, hbm); }
double bytes_per_chip(double total, double chips) { return total / chips; }

namespace {

void positive(double v, const char* field, const char* what) {
  if (!(v > 0) || !std::isfinite(v))
    fail(field, std::string(field) + " must be " + what, "out_of_range");
}

void check_case(const CaseInput& in) {
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
}

// Parameters, FLOPs under both conventions, and the time on the pods (A.3, A.5, A.12).
void counting(const CaseInput& in, const tf::Config& c, CaseStudy& s) {
  s.params = tf::params(c);
  const double P = s.params.total, P_active = s.params.matmul_active;
  s.flops_per_token = tf::six_p_tokens(P_active, 1);
  s.flops_per_token_book = tf::six_p_tokens(P, 1);
  s.total_flops = tf::six_p_tokens(P_active, in.tokens);
  s.total_flops_book = tf::six_p_tokens(P, in.tokens);
  s.time_one_chip = tr::train_time(s.total_flops, 1, in.hw.C, 1);
  s.chips = in.pod_chips * in.pods;
  s.time = tr::train_time(s.total_flops, s.chips, in.hw.C, in.mfu);
  s.time_book = tr::train_time(s.total_flops_book, s.chips, in.hw.C, in.mfu);
}

// The memory (A.11) and how to shard it (A.13): floors, X_opt, the window, the recipe.
void sharding(const CaseInput& in, const tf::Config& c, CaseStudy& s) {
  const tr::Layer layer = tr::layer_of(c, in.book_mlp);
  s.state = training_state(s.params.total, in.batch, c.D, c.L, in.checkpoints_per_layer);
  s.min_chips = min_chips(s.state.total(), in.hw.hbm);
  s.time_on_min_chips = tr::train_time(s.total_flops, s.min_chips, in.hw.C, in.mfu);
  s.bytes_per_chip = bytes_per_chip(s.state.total(), s.chips);
  s.fits = s.bytes_per_chip <= in.hw.hbm;
  s.sequences = tr::sequences(in.batch, in.seq_len);
  s.per_chip_batch = tr::per_chip_batch(in.batch, s.chips);
  s.per_pod_batch = tr::per_pod_batch(in.batch, in.pods);
  const double alpha = tr::alpha_ici(in.hw);
  s.fsdp_threshold = tr::dp_min_batch_per_chip(alpha, in.M_X_fsdp);
  s.fsdp_compute_bound = s.per_chip_batch > s.fsdp_threshold;
  s.mixed_threshold = tr::mixed_min_batch_per_chip(alpha, layer.F, in.M_X, in.M_Y);
  s.mixed_compute_bound = s.per_chip_batch > s.mixed_threshold;
  s.min_global_batch = tr::mixed_min_batch(s.chips, alpha, layer.F, in.M_X, in.M_Y);
  s.tp_limit = tr::tp_max_degree(layer.F, alpha, in.M_Y);
  s.x_opt = tr::x_opt(s.per_pod_batch, layer.F, in.pod_chips, in.M_X, in.M_Y);
  s.x_window = tr::x_window(s.per_pod_batch, layer.F, in.pod_chips, alpha, in.M_X, in.M_Y);
  s.gpu = in.gpu.d_node > 0;
  s.recipe = s.gpu ? tr::Recipe{in.pod_chips / in.Y_gpu, in.Y_gpu, in.pod_chips, 0}
                   : tr::mixed_recipe(s.x_opt, in.pod_chips, c.D, c.N, c.K);
  if (in.hw.W_dcn > 0) {
    s.dcn_threshold = tr::alpha_dcn(in.hw);
    s.dcn_compute_bound = in.pods > 1 && tr::dcn_compute_bound(in.batch, in.pods, in.hw);
  }
}

// FSDP alone and the chapter's recipe, costed as the planner costs them.
void costed(const CaseInput& in, const tf::Config& c, CaseStudy& s) {
  tr::StrategyInput si;
  si.model = c;
  si.book_mlp = in.book_mlp;
  si.B = in.batch;
  si.N = in.pod_chips;
  si.axes = in.M_X + in.M_Y;
  si.M_Y = in.M_Y;
  si.pods = in.pods;
  si.hw = in.hw;
  si.gpu = in.gpu;
  const bool dcn = in.pods > 1 && in.hw.W_dcn > 0;
  try {
    si.Y = 1;
    s.fsdp_costed_bound =
        tr::strategy_cost(dcn ? tr::Strategy::DCN : tr::Strategy::FSDP, si).compute_bound;
    si.Y = 0;
    s.recipe_costed_bound =
        tr::strategy_cost(dcn ? tr::Strategy::DCN : tr::Strategy::FSDP_TP, si).compute_bound;
  } catch (const InputError&) {
    // A layout the pods cannot hold (a batch below one token per chip of it): not compute-bound.
  }
}

}  // namespace

CaseStudy case_study(const CaseInput& in) {
  const tf::Config c = tf::validated(in.model);
  check_case(in);
  CaseStudy s;
  counting(in, c, s);
  sharding(in, c, s);
  costed(in, c, s);
  return s;
}

std::string case_recipe_words(const CaseStudy& s) {
  if (!s.fits)
    return "the training state does not fit: it needs " + units::number(s.min_chips, 6) +
           " chips' HBM, more than the " + units::number(s.chips, 6) +
           " here, so no sharding holds it (fewer checkpoints, a smaller batch or more pods)";
  if (s.fsdp_costed_bound) return "it fits, and FSDP alone is compute-bound";
  const std::string recipe =
      s.gpu ? units::number(s.recipe.X, 6) + "-way FSDP x " + units::number(s.recipe.Y, 6) +
                  "-way TP (TP inside the NVLink node, as the gpus chapter keeps it)"
            : tr::recipe_words(s.recipe, s.x_opt);
  if (s.recipe_costed_bound)
    return "it fits; FSDP alone is comms-bound, and " + recipe + " is compute-bound";
  if (s.mixed_compute_bound)
    return "it fits, but FSDP alone and the chapter's " + recipe +
           " are comms-bound as the planner costs them: the chapter's floors count the MLP width a "
           "token uses, while FSDP gathers every expert's weights (see the planner's plan)";
  return "it fits, but even the best FSDP + TP split is comms-bound: " +
         tr::window_words(s.x_window, s.per_chip_batch, s.mixed_threshold);
}

}  // namespace sb::applied_training
