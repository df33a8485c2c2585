// The HLO module reader's outer layer (hlo.hpp): lines into computations, and what one
// instruction's cost owes to another computation (a fusion's body, an async pair's collective).
#include <algorithm>
#include <set>
#include <unordered_map>

#include "chapters/profiling/hlo.hpp"
#include "chapters/profiling/hlo_line.hpp"

namespace sb::profiling::hlo {
namespace detail {
// Fills `in` (a new instruction in place: a module's tens of thousands are never moved).
void build(Instruction& in, Line& l, const std::string& comp, int line,
           const std::unordered_map<std::string, Shape>& names,
           std::optional<int> devices);  // hlo.cpp
}  // namespace detail

namespace {

constexpr int kMaxCallDepth = 64;  // fusions in fusions deeper than this: FLOPs unknown

bool header_line(std::string_view t) {
  if (t.back() != '{') return false;
  if (t.substr(0, 5) == "ENTRY") return true;
  const size_t eq = t.find('='), paren = t.find('(');
  return eq == std::string_view::npos || (paren != std::string_view::npos && paren < eq);
}

struct Reader {
  Module m;
  std::optional<int> devices;
  std::string comp;
  std::unordered_map<std::string, Shape> names;
  std::set<std::string> called;  // computations run inside an instruction (not on their own)

  void line(std::string_view t, size_t base, int n) {
    if (t.substr(0, 9) == "HloModule") {
      text::Cursor c{t, 9, base};
      m.name = std::string(c.name());
      return;
    }
    if (t == "}") {
      comp.clear();
      names.clear();
      return;
    }
    if (header_line(t)) {
      detail::Header h = detail::read_header(t, base);
      comp = h.name;
      names.clear();
      for (auto& p : h.params) names[p.first] = std::move(p.second);
      ++m.computations;
      return;
    }
    detail::Line l = detail::read_line(t, base);
    if (!l.calls.empty()) called.insert(l.calls);
    if (!l.to_apply.empty()) called.insert(l.to_apply);
    Instruction& in = m.instructions.emplace_back();
    try {
      detail::build(in, l, comp, n, names, devices);
    } catch (...) {
      m.instructions.pop_back();
      throw;
    }
    names[in.name] = std::move(l.shape);
  }
};

// The computation's FLOPs: its instructions' own, with fusions and calls inside resolved.
struct Flops {
  Module& m;
  std::unordered_map<std::string, std::vector<size_t>> by_comp;
  std::unordered_map<std::string, std::optional<double>> memo;

  std::optional<double> of(const std::string& comp, int depth) {
    auto hit = memo.find(comp);
    if (hit != memo.end()) return hit->second;
    auto it = by_comp.find(comp);
    if (it == by_comp.end() || depth > kMaxCallDepth) return std::nullopt;
    memo[comp] = std::nullopt;  // a computation calling itself stays unknown
    double sum = 0;
    for (size_t k : it->second) sum += resolve(m.instructions[k], depth + 1).value_or(0);
    return memo[comp] = sum;
  }
  std::optional<double> resolve(Instruction& in, int depth) {
    if (in.flops || in.calls.empty()) return in.flops;
    if (in.opcode == "fusion" || in.opcode == "call" || in.opcode == "async-start")
      in.flops = of(in.calls, depth);
    return in.flops;
  }
};

const Instruction* inner_collective(const Flops& f, const Module& m, const std::string& comp) {
  auto it = f.by_comp.find(comp);
  if (it == f.by_comp.end()) return nullptr;
  for (size_t k : it->second)
    if (m.instructions[k].collective != Collective::None) return &m.instructions[k];
  return nullptr;
}

// An async-start or a fusion that wraps a collective takes the collective's payload and group
// (a fused ReduceScatter, "all-reduce-scatter", pays its own operand).
void adopt(Instruction& in, const Instruction* inner, std::optional<int> devices) {
  const bool rs = in.calls.find("reduce-scatter") != std::string::npos;
  if (!inner && !rs) return;
  in.collective = rs ? Collective::ReduceScatter : inner->collective;
  if (rs) {
    double b = 0;
    for (const Shape& s : in.operand_shapes) b += logical_bytes(s);
    in.payload_bytes = b;
  } else {
    in.payload_bytes = inner->payload_bytes;
  }
  in.group_size = inner ? inner->group_size : devices;
  if (inner) in.pairs = inner->pairs;
  if (in.opcode == "fusion") in.flops = 0.0;
}

void finish(Reader& r) {
  Module& m = r.m;
  Flops f{m, {}, {}};
  for (size_t k = 0; k < m.instructions.size(); ++k)
    f.by_comp[m.instructions[k].computation].push_back(k);
  for (Instruction& in : m.instructions) {
    if (r.called.count(in.computation)) in.counted = false;
    const std::string& op = in.opcode;
    if ((op.size() > 5 && op.substr(op.size() - 5) == "-done") || op == "async-update") {
      in.counted = false;
      in.notes.push_back("the pair is counted once, at its start");
    }
    if ((op == "async-start" || op == "fusion") && !in.calls.empty())
      adopt(in, inner_collective(f, m, in.calls), r.devices);
    f.resolve(in, 0);
    if (!in.flops && (op == "fusion" || op == "call"))
      in.notes.push_back("FLOPs unknown: its computation is not in the text");
  }
}

}  // namespace

Module parse(std::string_view text, std::optional<int> devices) {
  Reader r;
  r.devices = devices;
  // Room for the instructions up front, so that the vector never moves them as it grows: a line
  // that defines one holds " = ". Capped by the lines, and by one per 100 bytes (a real module's
  // lines run to 100-300 characters), so that a text of short lines reserves no gigabytes.
  const size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  size_t defs = 0;
  for (size_t at = text.find(" = "); at != std::string_view::npos; at = text.find(" = ", at + 3))
    ++defs;
  r.m.instructions.reserve(std::min({lines, defs, text.size() / 100}) + 16);
  size_t pos = 0;
  for (int n = 1; pos <= text.size(); ++n) {
    size_t e = text.find('\n', pos);
    if (e == std::string_view::npos) e = text.size();
    std::string_view raw = text.substr(pos, e - pos);
    pos = e + 1;
    const std::string_view t = text::trim(raw);
    if (t.empty() || t.substr(0, 2) == "//" || t.front() == '#') continue;
    try {
      r.line(t, static_cast<size_t>(t.data() - raw.data()), n);
    } catch (const text::Bad& b) {
      // StableHLO (MLIR) is what lower().as_text() prints; the reader wants the compiled HLO.
      const bool mlir = t.find("stablehlo.") != std::string_view::npos ||
                        t.substr(0, 8) == "module @" || t.substr(0, 9) == "func.func";
      r.m.skipped.push_back({n, mlir ? "StableHLO (MLIR), not HLO: paste what "
                                       "compile().as_text() prints"
                                     : "column " + std::to_string(b.column) + ": " + b.why});
    }
  }
  finish(r);
  return std::move(r.m);
}

}  // namespace sb::profiling::hlo
