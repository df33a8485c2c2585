#include "chapters/tpus/model.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "core/error.hpp"
#include "core/units.hpp"

namespace sb::tpus {

namespace {

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

std::string clip(const std::string& s) { return s.size() > 40 ? s.substr(0, 40) + "..." : s; }

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Reads one whole number (with optional sign) from `tok`; InputError naming what it is.
long long parse_int(const std::string& tok_in, const std::string& field, const std::string& what,
                    const std::string& whole) {
  std::string tok = trim(tok_in);
  if (tok.empty()) fail(field, field + ": '" + clip(whole) + "' has an empty " + what, "bad_shape");
  size_t i = 0;
  bool neg = false;
  if (tok[0] == '-' || tok[0] == '+') {
    neg = tok[0] == '-';
    i = 1;
  }
  if (i == tok.size())
    fail(field, field + ": '" + clip(whole) + "' has an empty " + what, "bad_shape");
  long long v = 0;
  for (; i < tok.size(); ++i) {
    char c = tok[i];
    if (!std::isdigit(static_cast<unsigned char>(c)))
      fail(
          field,
          field + ": '" + clip(whole) + "': " + what + " '" + clip(tok) + "' is not a whole number",
          "bad_shape");
    v = v * 10 + (c - '0');
    if (v > 1000000000LL)
      fail(field, field + ": " + what + " '" + clip(tok) + "' is far too large", "out_of_range");
  }
  return neg ? -v : v;
}

}  // namespace

// ---------------------------------------------------------------- the chip's insides ----------

double mxu_flops_per_cycle(double S, double rows, double cycles) {
  // One op multiplies [rows, S] by [S, S]: rows*S*S multiply-adds = 2*rows*S^2 FLOPs per op.
  return 2.0 * rows * S * S / cycles;
}

double mxu_flops_per_s(double S, double clock, double rows, double cycles) {
  return mxu_flops_per_cycle(S, rows, cycles) * clock;
}

double chip_mxu_flops_per_s(double cores, double mxus, double S, double clock) {
  return cores * mxus * mxu_flops_per_s(S, clock);
}

double mxu_cells(double S) { return S * S; }

double padded_dim(double d, double S) { return std::ceil(d / S) * S; }

double mxu_utilisation(const std::vector<double>& dims, double S) {
  double useful = 1, done = 1;
  for (double d : dims) {
    useful *= d;
    done *= padded_dim(d, S);
  }
  return useful / done;
}

double vpu_alus_per_core(double sublanes, double lanes, double alus) {
  return sublanes * lanes * alus;
}

double vpu_flops_per_s_core(double alus, double clock) { return alus * clock; }

double vreg_bytes_per_core(double vregs, double sublanes, double lanes, double word) {
  return vregs * sublanes * lanes * word;
}

int sublane_reduction_steps(int sublanes, const std::string& field) {
  if (sublanes < 1 || (sublanes & (sublanes - 1)) != 0)
    fail(field,
         field + " must be a power of two for rotate-and-add halving, got " +
             std::to_string(sublanes),
         "out_of_range");
  int steps = 0;
  while ((1 << steps) < sublanes) ++steps;
  return steps;
}

double vmem_bw(double hbm_bw, double ratio) { return hbm_bw * ratio; }

// ---------------------------------------------------------------- rooflines on a chip ----------

double d_min_compute_bound(double i_hw, double bx, double bo, double k) {
  // The denominator 2DF/I - b_x D - b_o F with F = kD: 2kD^2/I - (bx + bo k) D > 0  <=>
  // D > I (bx + bo k) / 2k.
  return i_hw * (bx + bo * k) / (2.0 * k);
}

// ---------------------------------------------------------------- counting chips ----------

Dims parse_shape(const std::string& text, const std::string& field) {
  if (text.size() > 100) fail(field, field + " is too long for a slice shape", "bad_shape");
  std::string s = trim(text);
  if (s.empty())
    fail(field, field + " is empty; write a slice shape like 4x4x4 or 16x16", "bad_shape");
  // Split on x, X, * or the multiplication sign.
  std::vector<std::string> toks(1);
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == 'x' || c == 'X' || c == '*') {
      toks.emplace_back();
    } else if (static_cast<unsigned char>(c) == 0xC3 && i + 1 < s.size() &&
               static_cast<unsigned char>(s[i + 1]) == 0x97) {
      toks.emplace_back();
      ++i;
    } else {
      toks.back() += c;
    }
  }
  if (toks.size() > 3)
    fail(field,
         field + ": '" + clip(s) + "' has " + std::to_string(toks.size()) +
             " axes; TPU slices have at most 3 (like 4x4x4)",
         "bad_shape");
  Dims d;
  for (size_t i = 0; i < toks.size(); ++i) {
    long long v = parse_int(toks[i], field, "axis " + std::to_string(i), s);
    if (v <= 0)
      fail(field,
           field + ": axis " + std::to_string(i) + " of '" + clip(s) +
               "' must be at least 1, got " + std::to_string(v),
           "out_of_range");
    if (v > 100000)
      fail(field, field + ": axis " + std::to_string(i) + " is too long", "out_of_range");
    d.push_back(static_cast<int>(v));
  }
  return d;
}

std::string shape_text(const Dims& d) {
  std::string s;
  for (size_t i = 0; i < d.size(); ++i) {
    if (i) s += 'x';
    s += std::to_string(d[i]);
  }
  return s;
}

double chip_count(const Dims& d) {
  double n = 1;
  for (int v : d) n *= v;
  return n;
}

double host_count(double chips, double per_host) { return std::ceil(chips / per_host - 1e-9); }

double core_count(double chips, double cores_per_chip) { return chips * cores_per_chip; }

double decode_step_floor(double n_params, double bytes_per_param, double n_chips, double bw) {
  return roofline::t_comms(n_params * bytes_per_param / n_chips, bw);
}

// ---------------------------------------------------------------- the ICI torus ----------

WrapRule wrap_rule(const hw::Chip& chip) {
  WrapRule r;
  const char* key = nullptr;
  if (chip.has("wrap_if_all_axes_multiple_of")) {
    key = "wrap_if_all_axes_multiple_of";
    r.kind = WrapRule::Kind::AllMultiple;
  } else if (chip.has("wrap_if_axis_length")) {
    key = "wrap_if_axis_length";
    r.kind = WrapRule::Kind::AxisLength;
  } else {
    r.text = "the tables give " + chip.name + " no wraparound rule: no axis wraps";
    return r;
  }
  r.n = static_cast<int>(chip.get(key));
  r.assumed = chip.specs.at(key).source == "modelling choice";
  const std::string n = std::to_string(r.n);
  if (r.kind == WrapRule::Kind::AllMultiple) {
    const int rank = chip.has("torus_dims") ? static_cast<int>(chip.get("torus_dims")) : 3;
    std::string cube = n;
    for (int i = 1; i < rank; ++i) cube += "x" + n;
    r.text = std::to_string(rank) + "D slices built from " + cube +
             " cubes joined by optical switches: every axis wraps if and only if every axis is a "
             "multiple of " +
             n + " (whole cubes)";
    if (r.assumed)
      r.text +=
          "; the book states no rule for " + chip.name + ", so the cube rule is our assumption";
  } else {
    const std::string pod = chip.has("max_pod") ? chip.get_text("max_pod") + " " : "";
    r.text = "one fixed " + pod +
             "torus without optical switches: an axis wraps if and only if it spans the pod's "
             "side (" +
             n + ")";
    if (r.assumed)
      r.text += "; the book states no rule for " + chip.name + ", so this rule is our assumption";
  }
  return r;
}

std::vector<bool> wraps(const hw::Chip& chip, const Dims& dims) {
  const WrapRule r = wrap_rule(chip);
  std::vector<bool> w(dims.size(), false);
  if (r.kind == WrapRule::Kind::AllMultiple) {
    const size_t rank = chip.has("torus_dims") ? static_cast<size_t>(chip.get("torus_dims")) : 0;
    bool cubes = !dims.empty() && dims.size() >= rank;  // a missing axis has length 1
    for (int v : dims) cubes = cubes && v % r.n == 0;
    w.assign(dims.size(), cubes);
  } else if (r.kind == WrapRule::Kind::AxisLength) {
    for (size_t i = 0; i < dims.size(); ++i) w[i] = dims[i] == r.n;
  }
  for (size_t i = 0; i < dims.size(); ++i) w[i] = w[i] && dims[i] >= 3;
  return w;
}

double hop_latency(const hw::Chip& chip) {
  return chip.has("ici_hop_latency") ? chip.get("ici_hop_latency") : kTypicalHopLatency;
}

Topology topology_of(const hw::Chip& chip, const std::string& field) {
  if (chip.kind != "tpu")
    fail(field, field + ": " + chip.name + " is not a TPU; slices and ICI tori are a TPU notion",
         "bad_chip");
  Topology t;
  t.chip = chip.id;
  t.torus_dims = static_cast<int>(chip.get("torus_dims", field));
  t.max_pod = parse_shape(chip.get_text("max_pod", field), field);
  const auto& spec = chip.specs.at("torus_dims");
  t.inferred = lower(spec.source + " " + spec.note).find("infer") != std::string::npos;
  t.rule = wrap_rule(chip);
  return t;
}

Torus slice_torus(const hw::Chip& chip, const Dims& dims, const std::string& wrap_override,
                  const std::string& shape_field, const std::string& wrap_field) {
  Topology topo = topology_of(chip);
  if (static_cast<int>(dims.size()) > topo.torus_dims)
    fail(shape_field,
         shape_field + ": " + chip.name + " has a " + std::to_string(topo.torus_dims) +
             "D torus, so '" + shape_text(dims) + "' has too many axes",
         "bad_shape");
  // Fits in the largest pod? Fixed tori: axis by axis (sorted). Cube-built pods can be rewired by
  // the optical switches, so only the chip count and the longest axis are bounded.
  Dims d = dims, pod = topo.max_pod;
  d.resize(std::max(d.size(), pod.size()), 1);
  pod.resize(d.size(), 1);
  std::sort(d.rbegin(), d.rend());
  std::sort(pod.rbegin(), pod.rend());
  bool too_big = chip_count(dims) > chip_count(topo.max_pod) || d[0] > pod[0];
  if (topo.rule.kind != WrapRule::Kind::AllMultiple)
    for (size_t i = 0; i < d.size(); ++i) too_big = too_big || d[i] > pod[i];
  if (too_big)
    fail(shape_field,
         shape_field + ": '" + shape_text(dims) + "' (" + units::number(chip_count(dims)) +
             " chips) does not fit in a " + chip.name + " pod, whose largest slice is " +
             shape_text(topo.max_pod) + " (" + units::number(chip_count(topo.max_pod)) + " chips)",
         "out_of_range");
  Torus t;
  t.dims = dims;
  std::string w = lower(trim(wrap_override));
  if (w.empty() || w == "auto") {
    t.wrap = wraps(chip, dims);
    return t;
  }
  if (w == "none") {
    t.wrap.assign(dims.size(), false);
  } else if (w == "all") {
    t.wrap.assign(dims.size(), true);
  } else {
    fail(wrap_field, wrap_field + " must be auto, none or all; got '" + clip(wrap_override) + "'",
         "bad_choice");
  }
  // A ring needs at least 3 chips to differ from a line; on 1 or 2 it adds no distinct link.
  for (size_t i = 0; i < dims.size(); ++i) t.wrap[i] = t.wrap[i] && dims[i] >= 3;
  return t;
}

int axis_distance(int a, int b, int n, bool wrap) {
  int d = std::abs(a - b);
  return wrap ? std::min(d, n - d) : d;
}

std::vector<int> hops_per_axis(const Torus& t, const Dims& a, const Dims& b) {
  std::vector<int> h;
  for (size_t i = 0; i < t.dims.size(); ++i)
    h.push_back(axis_distance(a[i], b[i], t.dims[i], t.wrap[i]));
  return h;
}

int hops(const Torus& t, const Dims& a, const Dims& b) {
  int s = 0;
  for (int h : hops_per_axis(t, a, b)) s += h;
  return s;
}

int axis_max_distance(int n, bool wrap) { return wrap ? n / 2 : n - 1; }

int max_distance(const Torus& t) {
  int s = 0;
  for (size_t i = 0; i < t.dims.size(); ++i) s += axis_max_distance(t.dims[i], t.wrap[i]);
  return s;
}

std::vector<Dims> route(const Torus& t, const Dims& from, const Dims& to) {
  std::vector<Dims> path{from};
  Dims cur = from;
  for (size_t i = 0; i < t.dims.size(); ++i) {
    int n = t.dims[i];
    int up = ((to[i] - cur[i]) % n + n) % n;  // steps going up (with wrap)
    int step;
    if (!t.wrap[i])
      step = to[i] > cur[i] ? 1 : -1;
    else
      step = up <= n - up ? 1 : -1;
    int count = axis_distance(cur[i], to[i], n, t.wrap[i]);
    for (int k = 0; k < count; ++k) {
      cur[i] = ((cur[i] + step) % n + n) % n;
      path.push_back(cur);
    }
  }
  return path;
}

std::vector<Dims> neighbours(const Torus& t, const Dims& c) {
  std::vector<Dims> out;
  for (size_t i = 0; i < t.dims.size(); ++i) {
    int n = t.dims[i];
    for (int step : {-1, 1}) {
      int v = c[i] + step;
      if (v < 0 || v >= n) {
        if (!t.wrap[i]) continue;
        v = (v + n) % n;
      }
      Dims d = c;
      d[i] = v;
      if (d != c && std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
    }
  }
  return out;
}

int ports_toward(const Torus& t, const Dims& a, const Dims& b) {
  int p = 0;
  for (int h : hops_per_axis(t, a, b)) p += h > 0;
  return p;
}

Dims parse_coord(const std::string& text, const Torus& t, const std::string& field) {
  if (text.size() > 100) fail(field, field + " is too long for a chip coordinate", "bad_coord");
  std::string s = trim(text);
  // Accept "TPU{0,0}", "(0, 0)", "[0,0]", "0,0".
  if (lower(s).rfind("tpu", 0) == 0) s = trim(s.substr(3));
  if (!s.empty() && (s.front() == '(' || s.front() == '[' || s.front() == '{')) {
    char close = s.front() == '(' ? ')' : s.front() == '[' ? ']' : '}';
    if (s.back() != close)
      fail(field, field + ": '" + clip(text) + "' opens a bracket it does not close", "bad_coord");
    s = s.substr(1, s.size() - 2);
  }
  if (trim(s).empty())
    fail(field, field + " is empty; write a chip coordinate like 0,0,0", "bad_coord");
  std::vector<std::string> toks(1);
  for (char c : s) {
    if (c == ',')
      toks.emplace_back();
    else
      toks.back() += c;
  }
  if (toks.size() != t.dims.size())
    fail(field,
         field + ": '" + clip(text) + "' has " + std::to_string(toks.size()) +
             " coordinates but the slice " + shape_text(t.dims) + " has " +
             std::to_string(t.dims.size()) + " axes",
         "bad_coord");
  Dims c;
  for (size_t i = 0; i < toks.size(); ++i) {
    long long v = parse_int(toks[i], field, "coordinate " + std::to_string(i + 1), text);
    if (v < 0 || v >= t.dims[i])
      fail(field,
           field + ": coordinate " + std::to_string(i + 1) + " is " + std::to_string(v) +
               " but axis " + std::to_string(i + 1) + " runs from 0 to " +
               std::to_string(t.dims[i] - 1),
           "out_of_range");
    c.push_back(static_cast<int>(v));
  }
  return c;
}

std::string coord_text(const Dims& c) {
  std::string s = "(";
  for (size_t i = 0; i < c.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(c[i]);
  }
  return s + ")";
}

double bisection_links(const Torus& t) {
  double n = chip_count(t.dims), best = -1;
  for (size_t i = 0; i < t.dims.size(); ++i) {
    if (t.dims[i] < 2) continue;
    double links = n / t.dims[i] * (t.wrap[i] ? 2 : 1);
    if (best < 0 || links < best) best = links;
  }
  return best < 0 ? 0 : best;
}

double bisection_bw(const Torus& t, double bw) { return bisection_links(t) * bw; }

// ---------------------------------------------------------------- transfer times ----------

double axis_bw(double bw, bool wrap) { return wrap ? 2.0 * bw : bw; }

double ici_first_byte(int hops_, double t_hop) { return hops_ * t_hop; }

double ici_bulk(double bytes, int ports, double bw) { return roofline::t_comms(bytes, ports * bw); }

double ici_p2p_time(double bytes, int ports, double bw, int hops_, double t_hop) {
  return ici_bulk(bytes, ports, bw) + ici_first_byte(hops_, t_hop);
}

double gather_time(double bytes_received, int links_in, double bw) {
  return roofline::t_comms(bytes_received, links_in * bw);
}

double pcie_sharded_time(double bytes, double n, double bw) {
  return roofline::t_comms(bytes / n, bw);
}

double host_dcn_bw(double chips_per_host, double dcn) { return chips_per_host * dcn; }

Stage make_stage(std::string name, std::string kind, double amount, double rate, double latency) {
  Stage s;
  s.name = std::move(name);
  s.kind = std::move(kind);
  s.amount = amount;
  s.rate = rate;
  s.latency = latency;
  s.seconds =
      (s.kind == "compute" ? roofline::t_math(amount, rate) : roofline::t_comms(amount, rate)) +
      latency;
  return s;
}

Pipeline pipeline(std::vector<Stage> stages) {
  Pipeline p;
  p.stages = std::move(stages);
  for (size_t i = 0; i < p.stages.size(); ++i) {
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
    if (chip.has("peak_flops_" + dt)) inv.flops[dt] = inv.chips * chip.get("peak_flops_" + dt);
  inv.hbm_bytes = inv.chips * chip.get("hbm_bytes");
  inv.hbm_bw = inv.chips * chip.get("hbm_bw");
  inv.ici_bw_oneway = chip.get("ici_bw_oneway");
  inv.links_per_chip = chip.has("ici_links") ? chip.get("ici_links") : 2.0 * inv.torus.dims.size();
  if (chip.has("pcie_bw")) inv.pcie_bw = inv.chips * chip.get("pcie_bw");
  if (chip.has("dcn_bw")) inv.dcn_bw = inv.chips * chip.get("dcn_bw");
  inv.bisection_bw = bisection_bw(inv.torus, inv.ici_bw_oneway);
  inv.max_hops = max_distance(inv.torus);
  return inv;
}

// ---------------------------------------------------------------- arrays ----------

ArraySpec parse_array(const std::string& text, const std::string& field) {
  if (text.size() > 200) fail(field, field + " is too long for an array type", "bad_array");
  std::string s = trim(text);
  size_t open = s.find('[');
  if (open == std::string::npos || s.back() != ']')
    fail(field,
         field + ": write an array as dtype[dims], like bf16[8, 128, 8192]; got '" + clip(text) +
             "'",
         "bad_array");
  ArraySpec a;
  a.dtype = lower(trim(s.substr(0, open)));
  double size = hw::dtype_bytes(a.dtype, field);
  std::string inner = s.substr(open + 1, s.size() - open - 2);
  std::vector<std::string> toks(1);
  for (char c : inner) {
    if (c == ',')
      toks.emplace_back();
    else
      toks.back() += c;
  }
  a.elements = 1;
  for (size_t i = 0; i < toks.size(); ++i) {
    // Allow products like 128*1024, as the book writes them.
    std::string t = trim(toks[i]);
    double v = 1;
    std::vector<std::string> factors(1);
    for (char c : t) {
      if (c == '*')
        factors.emplace_back();
      else
        factors.back() += c;
    }
    for (const auto& f : factors) {
      long long x = parse_int(f, field, "dimension " + std::to_string(i + 1), text);
      if (x <= 0)
        fail(field, field + ": dimension " + std::to_string(i + 1) + " must be at least 1",
             "out_of_range");
      v *= static_cast<double>(x);
    }
    a.dims.push_back(v);
    a.elements *= v;
  }
  a.bytes = a.elements * size;
  return a;
}

}  // namespace sb::tpus
