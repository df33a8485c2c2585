// The HLO module reader (hlo.hpp): lines into computations, operand names into shapes, and each
// instruction's FLOPs, collective payload and group size by the chapter's conventions (A.3, A.4).
#include "chapters/profiling/hlo.hpp"

#include <functional>
#include <map>
#include <set>
#include <unordered_map>

#include "chapters/profiling/hlo_line.hpp"
#include "chapters/profiling/model.hpp"

namespace sb::profiling::hlo {

const char* collective_name(Collective c) {
  switch (c) {
    case Collective::AllGather:
      return "all-gather";
    case Collective::ReduceScatter:
      return "reduce-scatter";
    case Collective::AllReduce:
      return "all-reduce";
    case Collective::AllToAll:
      return "all-to-all";
    case Collective::Permute:
      return "collective-permute";
    case Collective::None:
      break;
  }
  return "";
}

namespace {

bool ends_with(std::string_view s, std::string_view e) {
  return s.size() >= e.size() && s.substr(s.size() - e.size()) == e;
}
bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

Collective collective_of(std::string_view op) {
  if (starts_with(op, "all-gather")) return Collective::AllGather;
  if (op == "reduce-scatter") return Collective::ReduceScatter;
  if (starts_with(op, "all-reduce")) return Collective::AllReduce;
  if (op == "all-to-all" || op == "ragged-all-to-all") return Collective::AllToAll;
  if (starts_with(op, "collective-permute")) return Collective::Permute;
  return Collective::None;
}

double operand_bytes(const Instruction& in) {
  double b = 0;
  for (const Shape& s : in.operand_shapes) b += logical_bytes(s);
  return b;
}
bool operands_known(const Instruction& in) {
  if (in.operand_shapes.empty()) return false;
  for (const Shape& s : in.operand_shapes)
    if (s.dtype.empty()) return false;
  return true;
}

// FLOPs of a dot: 2 x prod(output dims) x prod(contracting dims) (A.3).
std::optional<double> read_dot_flops(const Instruction& in, const detail::Line& l) {
  const Shape* lhs = in.operand_shapes.empty() ? nullptr : &in.operand_shapes[0];
  const Shape* rhs = in.operand_shapes.size() < 2 ? nullptr : &in.operand_shapes[1];
  double k = 1;
  if (lhs && !lhs->dtype.empty() && !lhs->tuple()) {
    for (int64_t d : l.lhs_contracting)
      if (d >= 0 && static_cast<size_t>(d) < lhs->dims.size())
        k *= lhs->dims[d];
      else
        return std::nullopt;
  } else if (rhs && !rhs->dtype.empty() && !rhs->tuple()) {
    for (int64_t d : l.rhs_contracting)
      if (d >= 0 && static_cast<size_t>(d) < rhs->dims.size())
        k *= rhs->dims[d];
      else
        return std::nullopt;
  } else {
    return std::nullopt;
  }
  return profiling::dot_flops(elements(in.shape), k);
}

// FLOPs of a convolution: 2 x output elements x (input features / feature_group_count) x taps.
std::optional<double> read_conv_flops(Instruction& in, const detail::Line& l) {
  if (in.operand_shapes.empty() || in.operand_shapes[0].dtype.empty()) return std::nullopt;
  const Shape& lhs = in.operand_shapes[0];
  const size_t f = l.dim_labels.find('f');
  const size_t us = l.dim_labels.find('_');
  if (f == std::string::npos || us == std::string::npos || f > us || f >= lhs.dims.size())
    return std::nullopt;
  if (l.batch_groups > 1)
    in.notes.push_back("batch_group_count " + std::to_string(l.batch_groups) +
                       " splits the input batch into groups; each output element still sums "
                       "input features x window taps");
  return profiling::conv_flops(elements(in.shape), static_cast<double>(lhs.dims[f]),
                               static_cast<double>(l.feature_groups), l.window_taps.value_or(1));
}

// What an op costs by itself (a fusion or call adds its computation's later).
void own_flops(Instruction& in, const detail::Line& l) {
  const std::string& op = in.opcode;
  if (op == "dot")
    in.flops = read_dot_flops(in, l);
  else if (op == "convolution")
    in.flops = read_conv_flops(in, l);
  else if (detail::elementwise(op))
    in.flops = profiling::elementwise_flops(elements(in.shape));
  else if (op == "reduce-window")
    in.flops = elements(in.shape) * l.window_taps.value_or(1);  // one add per tap
  else if (op == "reduce") {
    if (!in.operand_shapes.empty() && !in.operand_shapes[0].dtype.empty())
      in.flops = elements(in.operand_shapes[0]);  // one add per element reduced
  } else if (op == "fusion" || op == "call" || op == "custom-call" || op == "ragged-dot" ||
             op == "async-start" || op == "map" || op == "sort" || op == "scatter")
    in.flops = std::nullopt;  // from a computation, or not in the text
  else
    in.flops = 0.0;
  if (!in.flops && (op == "dot" || op == "convolution"))
    in.notes.push_back("FLOPs unknown: the operands' shapes are not in the text");
}

// Ops that move nothing through HBM themselves.
bool free_op(std::string_view op) {
  static const std::set<std::string_view> k = {"parameter",
                                               "constant",
                                               "get-tuple-element",
                                               "tuple",
                                               "bitcast",
                                               "after-all",
                                               "partition-id",
                                               "replica-id",
                                               "add-dependency",
                                               "opt-barrier",
                                               "while",
                                               "conditional",
                                               "domain",
                                               "get-dimension-size",
                                               "async-update"};
  return k.count(op) > 0 || ends_with(op, "-done");
}

double hbm_bytes(const Shape& s) { return s.memory_space == 1 ? 0 : padded_bytes(s); }

void traffic(Instruction& in) {
  if (free_op(in.opcode)) return;
  // An async start's result is (operands, results, ...): the results half is what it writes.
  const bool pair =
      ends_with(in.opcode, "-start") && in.shape.tuple() && in.shape.elements.size() >= 2;
  double b = hbm_bytes(pair ? in.shape.elements[1] : in.shape);
  for (const Shape& s : in.operand_shapes)
    if (!s.dtype.empty()) b += hbm_bytes(s);
  in.traffic_bytes = b;
}

void collective(Instruction& in, const detail::Line& l, std::optional<int> devices) {
  in.collective = collective_of(in.opcode);
  if (in.collective == Collective::None) return;
  if (ends_with(in.opcode, "-done")) return;
  if (in.collective == Collective::AllGather) {
    // all-gather-start's result is (operands, results): the gathered half.
    const Shape& r =
        in.shape.tuple() && in.shape.elements.size() >= 2 ? in.shape.elements[1] : in.shape;
    in.payload_bytes = logical_bytes(r);
  } else if (in.collective == Collective::AllReduce && !operands_known(in)) {
    in.payload_bytes = logical_bytes(in.shape);  // an all-reduce's result has its operand's shape
  } else if (operands_known(in)) {
    in.payload_bytes = in.collective == Collective::Permute ? logical_bytes(in.operand_shapes[0])
                                                            : operand_bytes(in);
  }
  if (in.collective == Collective::Permute) {
    in.pairs = l.pairs;
    if (l.pair_devices > 0) in.group_size = l.pair_devices;
  } else if (l.has_groups) {
    in.group_size = l.group_size ? l.group_size : devices;
    if (l.uneven_groups) in.notes.push_back("replica groups of unequal sizes: the first one's");
  } else {
    in.group_size = devices;
  }
  if (!in.group_size)
    in.notes.push_back(
        "group size unknown: replica_groups is empty (all devices); give the "
        "device count");
}

}  // namespace

namespace detail {
void build(Instruction& in, Line& l, const std::string& comp, int line,
           const std::unordered_map<std::string, Shape>& names, std::optional<int> devices) {
  in.line = line;
  in.name = std::move(l.name);
  in.opcode = std::move(l.opcode);
  in.computation = comp;
  in.root = l.root;
  in.shape = l.shape;
  in.operands = std::move(l.operands);
  in.operand_shapes = std::move(l.operand_shapes);
  for (size_t k = 0; k < in.operands.size(); ++k)
    if (in.operand_shapes[k].dtype.empty()) {
      auto it = names.find(in.operands[k]);
      if (it != names.end()) in.operand_shapes[k] = it->second;
    }
  in.fusion_kind = l.kind;
  in.calls = !l.calls.empty() ? l.calls : l.to_apply;
  own_flops(in, l);
  collective(in, l, devices);
  traffic(in);
}
}  // namespace detail

}  // namespace sb::profiling::hlo
