// The fit of time = latency + size / bandwidth to a read log, the line rate it is compared with,
// and the report (nccl.hpp).
#include <algorithm>
#include <cctype>
#include <cmath>

#include "chapters/gpus/nccl.hpp"
#include "core/error.hpp"
#include "core/hardware.hpp"
#include "core/units.hpp"

namespace sb::gpus::nccl {
namespace {

struct Point {
  double size, t;  // bytes, seconds
};

std::vector<Point> fit_points(const Log& log) {
  std::vector<Point> p;
  for (const Row& r : log.rows)
    if (r.out.wrong == 0 && r.in.wrong == 0 && r.out.time_us && *r.out.time_us > 0)
      p.push_back({r.size_B, *r.out.time_us * 1e-6});
  return p;
}

bool increasing(const Log& log) {
  for (size_t i = 1; i < log.rows.size(); ++i)
    if (!(log.rows[i].size_B > log.rows[i - 1].size_B)) return false;
  return true;
}

// Least squares on the relative error: minimise sum ((L + s b) / t - 1)^2 over L >= 0, b > 0
// (b = 1 / bandwidth). Sizes are scaled by the largest so the normal equations stay well
// conditioned.
bool solve(const std::vector<Point>& p, double& latency, double& inv_bw) {
  double smax = 0;
  for (const Point& q : p) smax = std::max(smax, q.size);
  if (!(smax > 0)) return false;
  long double aa = 0, ab = 0, bb = 0, a1 = 0, b1 = 0;
  for (const Point& q : p) {
    long double a = 1 / static_cast<long double>(q.t), b = q.size / smax / q.t;
    aa += a * a, ab += a * b, bb += b * b, a1 += a, b1 += b;
  }
  long double det = aa * bb - ab * ab;
  long double L = 0, B = 0;
  if (det > 1e-12L * aa * bb) {
    L = (a1 * bb - b1 * ab) / det;
    B = (aa * b1 - ab * a1) / det;
  }
  if (!(det > 1e-12L * aa * bb) || L < 0) L = 0, B = b1 / bb;  // through the origin
  if (!(B > 0)) return false;
  latency = static_cast<double>(L);
  inv_bw = static_cast<double>(B / smax);
  return std::isfinite(latency) && std::isfinite(inv_bw) && inv_bw > 0;
}

std::optional<double> logged_factor(const Log& log) {
  std::vector<double> f;
  for (const Row& r : log.rows)
    if (r.out.algbw_GBps && r.out.busbw_GBps && *r.out.algbw_GBps >= 1 && *r.out.busbw_GBps > 0)
      f.push_back(*r.out.busbw_GBps / *r.out.algbw_GBps);
  if (f.empty()) return std::nullopt;
  std::sort(f.begin(), f.end());
  return f[f.size() / 2];
}

// The GPU of data/chips.json a device name is ("NVIDIA H100 80GB HBM3" -> h100): the longest id
// it contains, so that "GB200" is not read as "B200".
const hw::Chip* chip_of_device(const std::string& device) {
  std::string low(device);
  for (char& c : low) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const hw::Chip* best = nullptr;
  for (const hw::Chip& c : hw::chips())
    if (c.kind == "gpu" && low.find(c.id) != std::string::npos &&
        (!best || c.id.size() > best->id.size()))
      best = &c;
  return best;
}

}  // namespace

Fit fit(const Log& log) {
  Fit f;
  if (!increasing(log)) {
    f.reason = "the sizes repeat or run out of order (runs written over each other?)";
    return f;
  }
  std::vector<Point> p = fit_points(log);
  f.points = static_cast<int>(p.size());
  if (p.size() < 2) {
    f.reason = "fewer than two rows to fit";
    return f;
  }
  double inv = 0;
  if (!solve(p, f.latency_s, inv)) {
    f.reason = "the time does not grow with the size: no bandwidth to fit";
    return f;
  }
  f.ok = true;
  f.bandwidth_Bps = 1 / inv;
  double e2 = 0;
  for (const Point& q : p) {
    double e = (f.latency_s + q.size * inv) / q.t - 1;
    e2 += e * e;
  }
  f.rms_rel_err = std::sqrt(e2 / p.size());
  auto factor = logged_factor(log);
  if (!factor) factor = bus_factor(log.collective, log.ranks);
  // A factor of 0 (one rank's AllReduce moves nothing, or a log's busbw of 0) gives no bus
  // bandwidth: the fit then stays in the algorithm's convention.
  if (factor && *factor > 0) f.bus_Bps = f.bandwidth_Bps * *factor;
  return f;
}

}  // namespace sb::gpus::nccl

namespace sb::gpus::nccl {
namespace {

struct LineRate {
  std::optional<double> Bps;
  std::string what;    // which link: "NVLink egress of one H100"
  std::string reason;  // why there is none
};

const hw::Chip* chip_of(const Log& log, const Cluster& c, std::string& reason) {
  if (!c.gpu.empty()) {
    const hw::Chip& chip = hw::chip(c.gpu, "gpu");
    if (chip.kind != "gpu") fail("gpu", chip.name + " is not a GPU", "bad_value");
    return &chip;
  }
  if (log.gpus.empty()) {
    reason = "the log names no GPU: give --gpu";
    return nullptr;
  }
  const hw::Chip* chip = chip_of_device(log.gpus.front());
  for (const std::string& d : log.gpus)
    if (chip_of_device(d) != chip) {
      reason = "the log has several kinds of GPU";
      return nullptr;
    }
  if (!chip) reason = "the GPU \"" + log.gpus.front() + "\" is not in data/chips.json";
  return chip;
}

LineRate line_rate(const Log& log, const Cluster& c) {
  LineRate lr;
  const hw::Chip* chip = chip_of(log, c, lr.reason);
  if (!chip) return lr;
  std::optional<int> nodes;
  if (!log.hosts.empty())
    nodes = static_cast<int>(log.hosts.size());
  else if (c.nodes)
    nodes = c.nodes;
  if (!nodes) {
    lr.reason = "the log does not say how many nodes it ran on: give --nodes";
    return lr;
  }
  const bool p2p =
      log.collective && (*log.collective == "alltoall" || *log.collective == "sendrecv");
  const char* key = *nodes == 1 ? "nvlink_bw_per_gpu"
                    : p2p       ? "scaleout_bw_per_gpu"
                                : "node_scaleout_bw";
  if (!chip->has(key)) {
    lr.reason = "data/chips.json has no " + std::string(key) + " for " + chip->name;
    return lr;
  }
  lr.Bps = chip->get(key);
  lr.what = *nodes == 1 ? "NVLink egress of one " + chip->name
            : p2p       ? "scale-out bandwidth per GPU of " + chip->name + " nodes"
                        : "scale-out egress of one " + chip->name + " node";
  // A node whose GPUs do not all take part sends through their NICs only.
  if (*nodes > 1 && !p2p) {
    if (!log.ranks) {
      lr.Bps.reset();
      lr.reason = "the ranks are unknown, so the share of each node's NICs in use is too";
      return lr;
    }
    const double per_node = static_cast<double>(*log.ranks) / *nodes;
    const double d = chip->has("gpus_per_node") ? chip->get("gpus_per_node") : 8;
    if (per_node < d) {
      *lr.Bps *= per_node / d;
      lr.what += ", the NICs of " + units::number(per_node, 3) + " of its " + units::number(d, 3) +
                 " GPUs";
    }
  }
  return lr;
}

json half_json(const Half& h) {
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  return json{{"time_us", opt(h.time_us)},
              {"algbw_GBps", opt(h.algbw_GBps)},
              {"busbw_GBps", opt(h.busbw_GBps)}};
}

json fit_json(const Fit& f, const LineRate& lr) {
  json j{{"latency_s", f.latency_s},
         {"bandwidth_Bps", f.bus_Bps ? *f.bus_Bps : f.bandwidth_Bps},
         {"convention", f.bus_Bps ? "bus" : "algorithm"},
         {"algbw_Bps", f.bandwidth_Bps},
         {"points", f.points},
         {"rms_rel_err", f.rms_rel_err}};
  if (lr.Bps && f.bus_Bps) {
    j["line_rate_fraction"] = *f.bus_Bps / *lr.Bps;
    j["line_rate_Bps"] = *lr.Bps;
    j["line_rate"] = lr.what;
  } else {
    j["line_rate_fraction"] = nullptr;
    j["reason"] =
        lr.Bps ? "the bus-bandwidth factor is unknown (collective or ranks unknown)" : lr.reason;
  }
  return j;
}

}  // namespace

json report(std::string_view text, std::string_view source, std::string_view collective,
            std::optional<int> ranks, const Cluster& cluster) {
  Log log = parse(text, collective, ranks);
  json rows = json::array(), skipped = json::array();
  for (const Row& r : log.rows) {
    json row = half_json(r.out);
    row["size_B"] = r.size_B;
    row["in_place"] = half_json(r.in);
    rows.push_back(std::move(row));
  }
  for (const Skipped& s : log.skipped) skipped.push_back({{"line", s.line}, {"reason", s.reason}});
  Fit f = fit(log);
  json fj = nullptr;
  if (f.ok)
    fj = fit_json(f, line_rate(log, cluster));
  else if (!log.rows.empty() && increasing(log))
    log.warnings.push_back("no fit: " + f.reason);
  json out{{"source", std::string(source)},
           {"collective", log.collective ? json(*log.collective) : json(nullptr)},
           {"ranks", log.ranks ? json(*log.ranks) : json(nullptr)},
           {"gpus", log.gpus},
           {"nodes", log.hosts.empty() ? json(nullptr) : json(log.hosts.size())},
           {"rows", std::move(rows)},
           {"largest_busbw_GBps", nullptr},
           {"avg_busbw_GBps", log.avg_busbw_GBps ? json(*log.avg_busbw_GBps) : json(nullptr)},
           {"fit", std::move(fj)},
           {"warnings", log.warnings},
           {"skipped", std::move(skipped)}};
  if (log.ranks) out["ranks_from"] = log.ranks_from;
  if (!log.rows.empty()) {
    const Row* big = &log.rows.front();
    for (const Row& r : log.rows)
      if (r.size_B >= big->size_B) big = &r;
    if (big->out.busbw_GBps) out["largest_busbw_GBps"] = *big->out.busbw_GBps;
  }
  return out;
}

}  // namespace sb::gpus::nccl
