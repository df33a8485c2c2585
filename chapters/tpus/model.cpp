// Part 2 (TPUs): the equations of model.hpp for the chip's insides, counting, transfer times and
// pipelines, and the slice inventory. The ICI torus is in torus.cpp, the texts (shapes,
// coordinates, array types) in text.cpp.
#include "chapters/tpus/model.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/hardware.hpp"

namespace sb::tpus {

// ---------------------------------------------------------------- the chip's insides ----------

double mxu_flops_per_cycle(double S, double rows, double cycles) {
  // One op multiplies [rows, S] by [S, S]: rows*S*S multiply-adds = 2*rows*S^2 FLOPs per op.
  return 2.0 * rows * S * S / cycles;
}

double mxu_flops_per_s(double S, double clock, double rows, double cycles) {
  return mxu_flops_per_cycle(S, rows, cycles) * clock;
}

double chip_flops_from_mxus(double cores, double mxus, double per_mxu) {
  return cores * mxus * per_mxu;
}

double chip_mxu_flops_per_s(double cores, double mxus, double S, double clock) {
  return chip_flops_from_mxus(cores, mxus, mxu_flops_per_s(S, clock));
}

double int8_flops_per_s(double speedup, double bf16) { return speedup * bf16; }

double mxu_cells(double S) { return S * S; }

double mxu_work_ratio(double s_new, double s_old) {
  return mxu_flops_per_cycle(s_new) / mxu_flops_per_cycle(s_old);
}

// Dimensions are padded to multiples of the MXU side, so they must grow with it.
double mxu_padding_ratio(double s_new, double s_old) { return s_new / s_old; }

double padded_dim(double d, double S) { return std::ceil(d / S) * S; }

double mxu_utilisation(const std::vector<double>& dims, double S) {
  double useful = 1, done = 1;
  for (double d : dims) {
    useful *= d;
    done *= padded_dim(d, S);
  }
  return useful / done;
}

double mxu_utilisation(double M, double K, double N, double M_pad, double K_pad, double N_pad) {
  return M * K * N / (M_pad * K_pad * N_pad);
}

double useful_flops_per_s(double u, double chip) { return u * chip; }

double vpu_alus_per_core(double sublanes, double lanes, double alus) {
  return sublanes * lanes * alus;
}

double vpu_flops_per_s_core(double alus, double clock) { return alus * clock; }

double vpu_flops_per_s_core(double sublanes, double lanes, double alus_per_cell, double clock) {
  return vpu_flops_per_s_core(vpu_alus_per_core(sublanes, lanes, alus_per_cell), clock);
}

double vreg_bytes_per_core(double vregs, double sublanes, double lanes, double word) {
  return vregs * sublanes * lanes * word;
}

int sublane_reduction_steps(int sublanes, const std::string& field) {
  if (sublanes < 1 || (sublanes & (sublanes - 1)) != 0)
    fail(field,
         field + " must be a power of two for rotate-and-add halving, got " +
             std::to_string(sublanes),
         "out_of_range");
  return static_cast<int>(halving_rounds(sublanes));
}

double halving_rounds(double n) { return std::log2(n); }

double vmem_bw(double hbm_bw, double ratio) { return hbm_bw * ratio; }

// ---------------------------------------------------------------- ratios and shares ----------

double ratio_of(double a, double b) { return a / b; }
double even_share(double total, double n) { return total / n; }
double slice_total(double n, double per_part) { return n * per_part; }

// ---------------------------------------------------------------- rooflines on a chip ----------

double d_min_compute_bound(double i_hw, double bx, double bo, double k) {
  // The denominator 2DF/I - b_x D - b_o F with F = kD: 2kD^2/I - (bx + bo k) D > 0  <=>
  // D > I (bx + bo k) / 2k.
  return i_hw * (bx + bo * k) / (2.0 * k);
}

// ---------------------------------------------------------------- counting chips ----------

double chip_count(const Dims& d) {
  double n = 1;
  for (int v : d) n *= v;
  return n;
}

double host_count(double chips, double per_host) { return std::ceil(chips / per_host - 1e-9); }

double core_count(double chips, double cores_per_chip) { return chips * cores_per_chip; }

double weight_bytes(double n_params, double bytes_per_param) { return n_params * bytes_per_param; }

double decode_step_floor(double n_params, double bytes_per_param, double n_chips, double bw) {
  return roofline::t_comms(even_share(weight_bytes(n_params, bytes_per_param), n_chips), bw);
}

double steps_per_s(double t_step) { return 1 / t_step; }

bool fits_in(double bytes, double capacity) { return bytes <= capacity; }

// ---------------------------------------------------------------- transfer times ----------

double axis_bw(double bw, bool wrap) { return wrap ? 2.0 * bw : bw; }

double ici_first_byte(int hops_, double t_hop) { return hops_ * t_hop; }

double ici_bulk(double bytes, int ports, double bw) {
  return roofline::t_comms(bytes, links_bw(ports, bw));
}

double ici_p2p_time(double bytes, int ports, double bw, int hops_, double t_hop) {
  return ici_bulk(bytes, ports, bw) + ici_first_byte(hops_, t_hop);
}

double gather_time(double bytes_received, int links_in, double bw) {
  return roofline::t_comms(bytes_received, links_bw(links_in, bw));
}

double pcie_sharded_time(double bytes, double n, double bw) {
  return roofline::t_comms(even_share(bytes, n), bw);
}

double bytes_from_others(double bytes, double n) { return bytes * (n - 1) / n; }

double received_bytes(double share, double bytes) { return share * bytes; }

double host_dcn_bw(double chips_per_host, double dcn) { return chips_per_host * dcn; }

double transfer_time(double bytes, double bw, double latency) {
  return roofline::t_comms(bytes, bw) + latency;
}

Stage make_stage(std::string name, std::string kind, double amount, double rate, double latency) {
  Stage s;
  s.name = std::move(name);
  s.kind = std::move(kind);
  s.amount = amount;
  s.rate = rate;
  s.latency = latency;
  s.seconds =
      s.kind == "compute" ? roofline::t_math(amount, rate) : transfer_time(amount, rate, latency);
  return s;
}

Pipeline pipeline(std::vector<Stage> stages) {
  Pipeline p;
  p.stages = std::move(stages);
  for (size_t i = 0; i < p.stages.size(); ++i) {
    p.stages[i].start_serial = p.t_upper;
    p.t_upper += p.stages[i].seconds;
    if (p.bottleneck < 0 || p.stages[i].seconds > p.t_lower) {
      p.t_lower = p.stages[i].seconds;
      p.bottleneck = static_cast<int>(i);
    }
  }
  return p;
}

// ---------------------------------------------------------------- slice inventory ----------

Inventory inventory(const hw::Chip& chip, const Dims& dims, const std::string& shape_field) {
  Inventory inv;
  inv.chip = chip.id;
  inv.torus = slice_torus(chip, dims, "auto", shape_field);
  inv.chips = chip_count(dims);
  inv.chips_per_host = chip.get("chips_per_host");
  inv.hosts = host_count(inv.chips, inv.chips_per_host);
  inv.cores_per_chip = chip.get("cores_per_chip");
  inv.cores = core_count(inv.chips, inv.cores_per_chip);
  inv.megacore = chip.has("megacore") && chip.get("megacore") > 0;
  for (const auto& dt : hw::dtypes())
    if (chip.has("peak_flops_" + dt))
      inv.flops[dt] = slice_total(inv.chips, chip.get("peak_flops_" + dt));
  inv.hbm_bytes = slice_total(inv.chips, chip.get("hbm_bytes"));
  inv.hbm_bw = slice_total(inv.chips, chip.get("hbm_bw"));
  inv.ici_bw_oneway = chip.get("ici_bw_oneway");
  inv.links_per_chip = chip.has("ici_links") ? chip.get("ici_links") : 2.0 * inv.torus.dims.size();
  if (chip.has("pcie_bw")) inv.pcie_bw = slice_total(inv.chips, chip.get("pcie_bw"));
  if (chip.has("dcn_bw")) inv.dcn_bw = slice_total(inv.chips, chip.get("dcn_bw"));
  inv.bisection_bw = bisection_bw(inv.torus, inv.ici_bw_oneway);
  inv.max_hops = max_distance(inv.torus);
  return inv;
}

// ---------------------------------------------------------------- arrays ----------

double array_bytes(double elements, double bytes_per_element) {
  return elements * bytes_per_element;
}

double array_rows(double bytes, double bytes_per_element, double cols) {
  return bytes / bytes_per_element / cols;
}

}  // namespace sb::tpus
