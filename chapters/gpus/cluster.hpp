// A GPU cluster as the chapter describes it, with every figure from data/chips.json: the chip's
// peak, its NVLink node (the fast axis) and the scale-out network above it (the slow one), and
// the fat tree the calculators build from a node count.
#pragma once
#include <string>

#include "core/hardware.hpp"

namespace sb::gpus {

struct GpuNode {
  const hw::Chip* chip = nullptr;
  double gpus_per_node = 8;  // the NVLink domain (72 on NVL72)
  double w_gpu = 0;          // NVLink egress per GPU, each way
  double w_node = 0;         // scale-out egress of a node (0: the tables give none)
  double peak_bf16 = 0;
  double hbm_bytes = 0;
};

// The node of a GPU of the tables. InputError(field) for a TPU ("a TPU slice has no NVLink node")
// and for a GPU whose NVLink figures the book does not give (V100).
GpuNode gpu_node(const std::string& chip, const std::string& field = "chip");

// A two-tier fat tree of InfiniBand switches above the nodes (A.3), as the reference pod builds
// it: SUs of `nodes_per_su` nodes under `leaves_per_su` leaves, `spines` spine switches with
// `cables` per leaf-spine pair, every switch `ports` ports of `port_bw`.
struct FatTree {
  double nodes = 128, nodes_per_su = 32, leaves_per_su = 8, spines = 16, cables = 2, ports = 64;
  double port_bw = 50e9;
};
// The most nodes the tree takes: spine ports / (leaves x cables) SUs. InputError naming the field
// when a leaf has too few ports, or `nodes` exceeds what the spine can take.
double max_nodes(const FatTree& t);
void check_tree(const FatTree& t);

}  // namespace sb::gpus
