// Part 9's formulas (model.hpp).
#include "chapters/profiling/model.hpp"

namespace sb::profiling {

double dot_flops(double out_elements, double contracting) { return 2 * out_elements * contracting; }
double conv_flops(double out_elements, double in_features, double groups, double taps) {
  return 2 * out_elements * in_features / groups * taps;
}
double elementwise_flops(double out_elements) { return out_elements; }
double array_bytes(double n, double bytes_per_element) { return n * bytes_per_element; }
double padded_dim(double d, double tile) { return std::ceil(d / tile) * tile; }
double blowup(double padded, double logical) { return padded / logical; }
double tokens_per_shard(double sequences, double dp, double seq_len) {
  return sequences / dp * seq_len;
}
double sharded_time(double flops, double devices, double peak) { return flops / (devices * peak); }
double efficiency(double t_model, double t_measured) { return t_model / t_measured; }
double share(double part, double total) { return part / total; }
double global_dim(double local, double shards) { return local * shards; }

}  // namespace sb::profiling
