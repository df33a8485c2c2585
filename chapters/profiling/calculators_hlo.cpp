// The HLO paste box: every instruction read (hlo.hpp), its cost on the chosen chip (cost.hpp),
// sorted by predicted time; the sum of the counted ones is the predicted step.
#include <algorithm>
#include <string>

#include "chapters/profiling/calculators.hpp"
#include "chapters/profiling/cost.hpp"
#include "chapters/profiling/hlo.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace sb::profiling {
namespace {

json shape_json(const hlo::Instruction& in) {
  json j = {{"line", in.line},
            {"name", in.name},
            {"opcode", in.opcode},
            {"computation", in.computation},
            {"dtype", in.shape.dtype},
            {"shape", in.shape.dims},
            {"bytes", hlo::logical_bytes(in.shape)},
            {"counted", in.counted}};
  if (!in.shape.tiles.empty()) {
    j["padded_bytes"] = hlo::padded_bytes(in.shape);
    j["padded_shape"] = hlo::padded_dims(in.shape);
  }
  if (in.shape.memory_space != 0) j["memory_space"] = in.shape.memory_space;
  j["flops"] = in.flops ? json(*in.flops) : json(nullptr);
  j["traffic_bytes"] = in.traffic_bytes;
  if (!in.fusion_kind.empty()) j["kind"] = in.fusion_kind;
  if (!in.calls.empty()) j["calls"] = in.calls;
  return j;
}

json instruction_json(const hlo::Instruction& in, const OpTime& t) {
  json j = shape_json(in);
  if (in.collective != hlo::Collective::None) {
    j["collective"] = hlo::collective_name(in.collective);
    j["payload_bytes"] = in.payload_bytes ? json(*in.payload_bytes) : json(nullptr);
    j["group_size"] = in.group_size ? json(*in.group_size) : json(nullptr);
    if (in.collective == hlo::Collective::Permute) j["pairs"] = in.pairs;
  }
  {
    j["time_s"] = t.time ? json(*t.time) : json(nullptr);
    j["bound"] = t.bound;
    if (t.t_math) j["t_math_s"] = *t.t_math;
    if (t.t_hbm) j["t_hbm_s"] = *t.t_hbm;
  }
  if (!in.notes.empty()) j["notes"] = in.notes;
  return j;
}

json totals_json(const hlo::Module& m, const std::vector<OpTime>& times) {
  double flops = 0, bytes = 0, payload = 0, step = 0;
  int counted = 0, unknown = 0;
  for (size_t k = 0; k < m.instructions.size(); ++k) {
    const auto& in = m.instructions[k];
    if (!in.counted) continue;
    ++counted;
    flops += in.flops.value_or(0);
    bytes += in.traffic_bytes;
    payload += in.payload_bytes.value_or(0);
    if (times[k].time)
      step += *times[k].time;
    else
      ++unknown;
  }
  return {
      {"instructions", m.instructions.size()}, {"counted", counted}, {"skipped", m.skipped.size()},
      {"computations", m.computations},        {"flops", flops},     {"traffic_bytes", bytes},
      {"collective_bytes", payload},           {"step_s", step},     {"ops_without_time", unknown}};
}

constexpr size_t kTableRows = 200;  // rows of the plain table; --json has every instruction

// The slowest ops as texts, the header first (the CLI prints it in columns).
json table_json(const hlo::Module& m, const json& rows, const std::vector<size_t>& order) {
  json t = json::array();
  t.push_back({"op", "opcode", "result", "bytes", "FLOPs", "collective", "time", "bound"});
  auto num = [](const json& v, const char* unit) {
    return v.is_number() ? units::format(v.get<double>(), unit) : std::string("unknown");
  };
  for (size_t k = 0; k < order.size() && k < kTableRows; ++k) {
    const json& j = rows[order[k]];
    const auto& in = m.instructions[order[k]];
    std::string shape = in.shape.dtype + "[";
    for (size_t d = 0; d < in.shape.dims.size(); ++d)
      shape += (d ? "," : "") + std::to_string(in.shape.dims[d]);
    shape += "]";
    std::string coll;
    if (j.contains("collective"))
      coll = j["collective"].get<std::string>() + " " + num(j["payload_bytes"], "B") + " / " +
             (j["group_size"].is_number() ? std::to_string(j["group_size"].get<int>()) : "?");
    t.push_back({in.name, in.opcode, shape, num(j["bytes"], "B"), num(j["flops"], "flop"), coll,
                 num(j["time_s"], "s"), j["bound"]});
  }
  return t;
}

void no_instruction(const hlo::Module& m) {
  std::string why = "the pasted text: no instruction read";
  for (size_t i = 0; i < m.skipped.size() && i < 5; ++i)
    why += "; line " + std::to_string(m.skipped[i].line) + ", " + m.skipped[i].reason;
  if (m.skipped.size() > 5) why += "; and " + std::to_string(m.skipped.size() - 5) + " more";
  fail("module", why, "bad_hlo");
}

}  // namespace

void hlo_calc(const Inputs& in, Trace& tr, Result& r) {
  const double devices = in.num("devices");
  const hlo::Module m =
      hlo::parse(in.text("module"),
                 devices > 0 ? std::optional<int>(static_cast<int>(devices)) : std::nullopt);
  if (m.instructions.empty()) no_instruction(m);
  const ChipTerms chip = chip_terms(hw::chip(in.text("chip")), hbm_given(in));
  std::vector<OpTime> times;
  times.reserve(m.instructions.size());
  for (const auto& i : m.instructions) times.push_back(op_time(i, chip));
  json rows = json::array();
  for (size_t k = 0; k < m.instructions.size(); ++k)
    rows.push_back(instruction_json(m.instructions[k], times[k]));
  json totals = totals_json(m, times);
  tr.value("Instructions read", static_cast<double>(m.instructions.size()), "count");
  tr.value("Lines skipped", static_cast<double>(m.skipped.size()), "count");
  const double step = totals["step_s"].get<double>();
  tr.value("Predicted step: the sum of the counted ops' times", step, "s");
  r.value("step", step, "s", "predicted step (sum of the ops' times)");
  r.value("flops", totals["flops"].get<double>(), "flop", "FLOPs of the counted ops");
  for (size_t k = 0; k < m.skipped.size() && k < 10; ++k)
    r.note("Line " + std::to_string(m.skipped[k].line) + " skipped, " + m.skipped[k].reason + ".");
  if (m.skipped.size() > 10)
    r.note("And " + std::to_string(m.skipped.size() - 10) + " more lines skipped (see skipped).");
  if (chip.devices_per_chip > 1)
    r.note("Each of " + chip.name + "'s " + std::to_string(int(chip.devices_per_chip)) +
           " TensorCores is a device of its own: every op runs on one, at its share of the chip's "
           "peak and HBM bandwidth.");
  for (const auto& w : chip.missing) r.note("Not in the tables for " + chip.name + ": " + w + ".");
  // The table the page draws: counted ops, the slowest first.
  std::vector<size_t> order;
  for (size_t k = 0; k < m.instructions.size(); ++k)
    if (m.instructions[k].counted) order.push_back(k);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return times[a].time.value_or(-1) > times[b].time.value_or(-1);
  });
  r.extra["table"] = table_json(m, rows, order);
  r.extra["order"] = order;
  r.extra["module"] = m.name;
  r.extra["totals"] = std::move(totals);
  r.extra["instructions"] = std::move(rows);
  json skipped = json::array();
  for (const auto& s : m.skipped) skipped.push_back({{"line", s.line}, {"reason", s.reason}});
  r.extra["skipped"] = std::move(skipped);
}

}  // namespace sb::profiling
