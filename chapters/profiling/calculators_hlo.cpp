// The HLO paste box: every instruction read (hlo.hpp), its cost on the chosen chip (cost.hpp),
// sorted by predicted time; the sum of the counted ones is the predicted step.
#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "chapters/profiling/calculators.hpp"
#include "chapters/profiling/cost.hpp"
#include "chapters/profiling/hlo.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace sb::profiling {
namespace {

// An optional number: the value, or null where the text or the tables do not say.
template <class T>
JsonWriter& maybe(JsonWriter& w, const std::optional<T>& v) {
  if (!v) return w.value(json(nullptr));
  if constexpr (std::is_integral_v<T>)
    return w.integer(*v);
  else
    return w.num(*v);
}

JsonWriter& dims(JsonWriter& w, const std::vector<int64_t>& d) {
  w.arr();
  for (int64_t x : d) w.integer(x);
  return w.end();
}

void shape_members(JsonWriter& w, const hlo::Instruction& in) {
  w.key("line").integer(in.line).key("name").str(in.name).key("opcode").str(in.opcode);
  w.key("computation").str(in.computation).key("dtype").str(in.shape.dtype);
  dims(w.key("shape"), in.shape.dims).key("bytes").num(hlo::logical_bytes(in.shape));
  w.key("counted").boolean(in.counted);
  if (!in.shape.tiles.empty()) {
    w.key("padded_bytes").num(hlo::padded_bytes(in.shape));
    dims(w.key("padded_shape"), hlo::padded_dims(in.shape));
  }
  if (in.shape.memory_space != 0) w.key("memory_space").integer(in.shape.memory_space);
  maybe(w.key("flops"), in.flops).key("traffic_bytes").num(in.traffic_bytes);
  if (!in.fusion_kind.empty()) w.key("kind").str(in.fusion_kind);
  if (!in.calls.empty()) w.key("calls").str(in.calls);
}

// One instruction as text, straight into the response: a module has tens of thousands, and a
// json tree of them was most of a 10 MB module's call (bench/NOTES.md, "Eighth pass").
void instruction_json(JsonWriter& w, const hlo::Instruction& in, const OpTime& t) {
  w.obj();
  shape_members(w, in);
  if (in.collective != hlo::Collective::None) {
    w.key("collective").str(hlo::collective_name(in.collective));
    maybe(w.key("payload_bytes"), in.payload_bytes);
    maybe(w.key("group_size"), in.group_size);
    if (in.collective == hlo::Collective::Permute) w.key("pairs").integer(in.pairs);
  }
  maybe(w.key("time_s"), t.time).key("bound").str(t.bound);
  if (t.t_math) w.key("t_math_s").num(*t.t_math);
  if (t.t_hbm) w.key("t_hbm_s").num(*t.t_hbm);
  if (!in.notes.empty()) w.key("notes").strs(in.notes);
  w.end();
}

struct Totals {
  double flops = 0, bytes = 0, payload = 0, step = 0;
  long long counted = 0, unknown = 0;
};

Totals totals_of(const hlo::Module& m, const std::vector<OpTime>& times) {
  Totals t;
  for (size_t k = 0; k < m.instructions.size(); ++k) {
    const auto& in = m.instructions[k];
    if (!in.counted) continue;
    ++t.counted;
    t.flops += in.flops.value_or(0);
    t.bytes += in.traffic_bytes;
    t.payload += in.payload_bytes.value_or(0);
    if (times[k].time)
      t.step += *times[k].time;
    else
      ++t.unknown;
  }
  return t;
}

void totals_json(JsonWriter& w, const hlo::Module& m, const Totals& t) {
  w.obj().key("instructions").integer(static_cast<long long>(m.instructions.size()));
  w.key("counted").integer(t.counted);
  w.key("skipped").integer(static_cast<long long>(m.skipped.size()));
  w.key("computations").integer(m.computations).key("flops").num(t.flops);
  w.key("traffic_bytes").num(t.bytes).key("collective_bytes").num(t.payload);
  w.key("step_s").num(t.step).key("ops_without_time").integer(t.unknown).end();
}

constexpr size_t kTableRows = 200;  // rows of the plain table; --json has every instruction

template <class T>
std::string text_of(const std::optional<T>& v, const char* unit) {
  return v ? units::format(static_cast<double>(*v), unit) : std::string("unknown");
}

// The slowest ops as texts, the header first (the CLI prints it in columns).
void table_json(JsonWriter& w, const hlo::Module& m, const std::vector<OpTime>& times,
                const std::vector<size_t>& order) {
  w.arr().strs({"op", "opcode", "result", "bytes", "FLOPs", "collective", "time", "bound"});
  for (size_t k = 0; k < order.size() && k < kTableRows; ++k) {
    const auto& in = m.instructions[order[k]];
    std::string shape = in.shape.dtype + "[";
    for (size_t d = 0; d < in.shape.dims.size(); ++d)
      shape += (d ? "," : "") + std::to_string(in.shape.dims[d]);
    shape += "]";
    std::string coll;
    if (in.collective != hlo::Collective::None)
      coll = std::string(hlo::collective_name(in.collective)) + " " +
             text_of(in.payload_bytes, "B") + " / " +
             (in.group_size ? std::to_string(*in.group_size) : "?");
    w.arr().str(in.name).str(in.opcode).str(shape);
    w.str(units::format(hlo::logical_bytes(in.shape), "B")).str(text_of(in.flops, "flop"));
    w.str(coll).str(text_of(times[order[k]].time, "s")).str(times[order[k]].bound).end();
  }
  w.end();
}

// table, order, module, totals, instructions, skipped: the response's members after its values.
void write_members(JsonWriter w, const hlo::Module& m, const std::vector<OpTime>& times,
                   const Totals& totals, const std::vector<size_t>& order) {
  table_json(w.key("table"), m, times, order);
  w.key("order").arr();
  for (size_t k : order) w.integer(static_cast<long long>(k));
  w.end().key("module").str(m.name);
  totals_json(w.key("totals"), m, totals);
  w.key("instructions").arr();
  for (size_t k = 0; k < m.instructions.size(); ++k)
    instruction_json(w, m.instructions[k], times[k]);
  w.end().key("skipped").arr();
  for (const auto& s : m.skipped)
    w.obj().key("line").integer(s.line).key("reason").str(s.reason).end();
  w.end();
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
  const Totals totals = totals_of(m, times);
  tr.value("Instructions read", static_cast<double>(m.instructions.size()), "count");
  tr.value("Lines skipped", static_cast<double>(m.skipped.size()), "count");
  tr.value("Predicted step: the sum of the counted ops' times", totals.step, "s");
  r.value("step", totals.step, "s", "predicted step (sum of the ops' times)");
  r.value("flops", totals.flops, "flop", "FLOPs of the counted ops");
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
  write_members(r.writer(), m, times, totals, order);
}

}  // namespace sb::profiling
