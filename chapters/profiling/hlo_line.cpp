// One HLO instruction line and one computation header (hlo_line.hpp).
#include "chapters/profiling/hlo_line.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <span>

#include "chapters/profiling/hlo_shape.hpp"

namespace sb::profiling::hlo::detail {
namespace {

// Every opcode XLA prints (hlo_opcode.h), sorted for the search.
constexpr std::string_view kOpcodes[] = {"abs",
                                         "add",
                                         "add-dependency",
                                         "after-all",
                                         "all-gather",
                                         "all-gather-done",
                                         "all-gather-start",
                                         "all-reduce",
                                         "all-reduce-done",
                                         "all-reduce-start",
                                         "all-to-all",
                                         "and",
                                         "async-done",
                                         "async-start",
                                         "async-update",
                                         "atan2",
                                         "batch-norm-grad",
                                         "batch-norm-inference",
                                         "batch-norm-training",
                                         "bitcast",
                                         "bitcast-convert",
                                         "broadcast",
                                         "call",
                                         "cbrt",
                                         "ceil",
                                         "cholesky",
                                         "clamp",
                                         "collective-broadcast",
                                         "collective-permute",
                                         "collective-permute-done",
                                         "collective-permute-start",
                                         "compare",
                                         "complex",
                                         "concatenate",
                                         "conditional",
                                         "constant",
                                         "convert",
                                         "convolution",
                                         "copy",
                                         "copy-done",
                                         "copy-start",
                                         "cosine",
                                         "count-leading-zeros",
                                         "custom-call",
                                         "divide",
                                         "domain",
                                         "dot",
                                         "dynamic-reshape",
                                         "dynamic-slice",
                                         "dynamic-update-slice",
                                         "erf",
                                         "exponential",
                                         "exponential-minus-one",
                                         "fft",
                                         "floor",
                                         "fusion",
                                         "gather",
                                         "get-dimension-size",
                                         "get-tuple-element",
                                         "imag",
                                         "infeed",
                                         "iota",
                                         "is-finite",
                                         "log",
                                         "log-plus-one",
                                         "logistic",
                                         "map",
                                         "maximum",
                                         "minimum",
                                         "multiply",
                                         "negate",
                                         "not",
                                         "opt-barrier",
                                         "or",
                                         "outfeed",
                                         "pad",
                                         "parameter",
                                         "partition-id",
                                         "popcnt",
                                         "power",
                                         "ragged-all-to-all",
                                         "ragged-dot",
                                         "real",
                                         "recv",
                                         "recv-done",
                                         "reduce",
                                         "reduce-precision",
                                         "reduce-scatter",
                                         "reduce-window",
                                         "remainder",
                                         "replica-id",
                                         "reshape",
                                         "reverse",
                                         "rng",
                                         "rng-bit-generator",
                                         "rng-get-and-update-state",
                                         "round-nearest-afz",
                                         "round-nearest-even",
                                         "rsqrt",
                                         "scatter",
                                         "select",
                                         "select-and-scatter",
                                         "send",
                                         "send-done",
                                         "set-dimension-size",
                                         "shift-left",
                                         "shift-right-arithmetic",
                                         "shift-right-logical",
                                         "sign",
                                         "sine",
                                         "slice",
                                         "sort",
                                         "sqrt",
                                         "stochastic-convert",
                                         "subtract",
                                         "tan",
                                         "tanh",
                                         "topk",
                                         "transpose",
                                         "triangular-solve",
                                         "tuple",
                                         "while",
                                         "xor"};

// Pointwise ops: one FLOP per element of the result, as the chapter counts them (A.3).
constexpr std::string_view kElementwise[] = {"abs",
                                             "add",
                                             "and",
                                             "atan2",
                                             "cbrt",
                                             "ceil",
                                             "clamp",
                                             "compare",
                                             "complex",
                                             "convert",
                                             "cosine",
                                             "count-leading-zeros",
                                             "divide",
                                             "erf",
                                             "exponential",
                                             "exponential-minus-one",
                                             "floor",
                                             "imag",
                                             "is-finite",
                                             "log",
                                             "log-plus-one",
                                             "logistic",
                                             "maximum",
                                             "minimum",
                                             "multiply",
                                             "negate",
                                             "not",
                                             "or",
                                             "popcnt",
                                             "power",
                                             "real",
                                             "reduce-precision",
                                             "remainder",
                                             "round-nearest-afz",
                                             "round-nearest-even",
                                             "rsqrt",
                                             "select",
                                             "shift-left",
                                             "shift-right-arithmetic",
                                             "shift-right-logical",
                                             "sign",
                                             "sine",
                                             "sqrt",
                                             "stochastic-convert",
                                             "subtract",
                                             "tan",
                                             "tanh",
                                             "xor"};

// The text after any /*index=5*/ comments XLA puts before a long list's items.
std::string_view past_comments(std::string_view t) {
  while (t.substr(0, 2) == "/*") {
    const size_t e = t.find("*/");
    if (e == std::string_view::npos) return t;
    t = text::trim(t.substr(e + 2));
  }
  return t;
}

bool in(std::span<const std::string_view> list, std::string_view op) {
  return std::binary_search(list.begin(), list.end(), op);
}

// The operands between the opcode's parentheses: "[shape ][%]name" each; a literal (constant),
// a number (parameter) or nothing is left alone.
void read_operands(Line& l, std::string_view s, size_t base) {
  if (l.opcode == "constant" || l.opcode == "parameter" || l.opcode == "iota") return;
  for (const auto& p : text::split_top(s, base)) {
    std::string_view t = past_comments(text::trim(p.text));
    if (t.empty()) continue;
    const size_t lead = static_cast<size_t>(t.data() - s.data());
    text::Cursor c{t, 0, base + lead};
    Shape sh;
    if (starts_shape(t)) sh = shape(c);
    l.operands.emplace_back(c.name());
    c.skip_space();
    if (!c.done()) c.bad("text after an operand");
    l.operand_shapes.push_back(std::move(sh));
  }
}

// replica_groups: {} (all devices), {{0,1},{2,3}}, or the iota form [G,S]<=[N] / [G,S]<=[..]T(..).
void read_groups(Line& l, text::Cursor c) {
  l.has_groups = true;
  c.skip_space();
  if (c.peek() == '[') {
    const auto gs = c.whole_list('[', ']');
    if (gs.size() != 2 || gs[1] < 1 || gs[1] > (1 << 30)) c.bad("iota groups other than [G,S]");
    c.skip_space();
    if (c.s.substr(c.i, 2) != "<=") c.bad("expected '<=' in iota replica groups");
    l.group_size = static_cast<int>(gs[1]);
    return;
  }
  c.expect('{', "'{' or '[' opening replica_groups");
  if (c.eat('}')) return;
  do {
    const auto g = c.whole_list('{', '}');
    if (g.empty() || g.size() > (1u << 30)) c.bad("an empty replica group");
    if (!l.group_size) l.group_size = static_cast<int>(g.size());
    if (*l.group_size != static_cast<int>(g.size())) l.uneven_groups = true;
  } while (c.eat(','));
  c.expect('}', "'}' closing replica_groups");
}

void read_pairs(Line& l, text::Cursor c) {
  std::set<int64_t> devices;
  c.expect('{', "'{' opening source_target_pairs");
  if (c.eat('}')) return;
  do {
    const auto p = c.whole_list('{', '}');
    if (p.size() != 2) c.bad("a source-target pair of other than 2 devices");
    ++l.pairs;
    devices.insert(p.begin(), p.end());
  } while (c.eat(','));
  c.expect('}', "'}' closing source_target_pairs");
  l.pair_devices = static_cast<int>(devices.size());
}

// window={size=3x3 stride=2x2 pad=1_1x1_1}: the product of size's numbers.
void read_window(Line& l, text::Cursor c) {
  const size_t at = c.s.find("size=");
  if (at == std::string_view::npos) {
    l.window_taps = 1;
    return;
  }
  c.i = at + 5;
  double taps = 1;
  do {
    taps *= static_cast<double>(c.whole());
    if (taps > 1e18) c.bad("a window of more than 1e18 taps");
  } while (c.peek() == 'x' && ++c.i);
  l.window_taps = taps;
}

std::string first_name(std::string_view v, size_t base) {
  text::Cursor c{v, 0, base};
  c.eat('{');
  return std::string(c.name());
}

void read_attr(Line& l, std::string_view key, std::string_view v, size_t base) {
  text::Cursor c{v, 0, base};
  if (key == "kind")
    l.kind = std::string(c.name());
  else if (key == "calls")
    l.calls = first_name(v, base);
  else if (key == "to_apply")
    l.to_apply = first_name(v, base);
  else if (key == "dim_labels")
    l.dim_labels = std::string(v);
  else if (key == "lhs_contracting_dims")
    l.lhs_contracting = c.whole_list('{', '}');
  else if (key == "rhs_contracting_dims")
    l.rhs_contracting = c.whole_list('{', '}');
  else if (key == "lhs_batch_dims")
    l.lhs_batch = c.whole_list('{', '}');
  else if (key == "rhs_batch_dims")
    l.rhs_batch = c.whole_list('{', '}');
  else if (key == "window")
    read_window(l, c);
  else if (key == "feature_group_count")
    l.feature_groups = std::max<int64_t>(1, c.whole());
  else if (key == "batch_group_count")
    l.batch_groups = std::max<int64_t>(1, c.whole());
  else if (key == "replica_groups")
    read_groups(l, c);
  else if (key == "source_target_pairs")
    read_pairs(l, c);
}

void read_attrs(Line& l, std::string_view s, size_t base) {
  for (const auto& p : text::split_top(s, base)) {
    const std::string_view t = text::trim(p.text);
    const size_t at = base + p.offset + static_cast<size_t>(t.data() - p.text.data());
    if (t.empty()) throw text::Bad{at + 1, "an empty attribute"};
    const size_t eq = t.find('=');
    if (eq == std::string_view::npos || eq == 0)
      throw text::Bad{at + 1, "expected attribute=value"};
    const std::string_view key = text::trim(t.substr(0, eq));
    std::string_view v = t.substr(eq + 1);
    const size_t lead = v.size() - text::trim(v).size();  // spaces after '='
    v = text::trim(v);
    read_attr(l, key, v, at + eq + 1 + lead);
  }
}

}  // namespace

bool known_opcode(std::string_view op) { return in(kOpcodes, op); }
bool elementwise(std::string_view op) { return in(kElementwise, op); }

Line read_line(std::string_view s, size_t base) {
  Line l;
  text::Cursor c{s, 0, base};
  l.root = c.eat_word("ROOT");
  l.name = std::string(c.name());
  c.expect('=', "'=' after the instruction's name");
  l.shape = shape(c);
  c.skip_space();
  const size_t b = c.i;
  while (!c.done() && (std::islower(static_cast<unsigned char>(c.peek())) ||
                       std::isdigit(static_cast<unsigned char>(c.peek())) || c.peek() == '-'))
    ++c.i;
  l.opcode = std::string(s.substr(b, c.i - b));
  if (l.opcode.empty()) c.bad("expected an opcode");
  if (!known_opcode(l.opcode)) {
    c.i = b;
    c.bad("unknown opcode '" + l.opcode + "'");
  }
  if (c.peek() != '(') c.bad("expected '(' after the opcode");
  const size_t close = text::closing(s, c.i, base);
  read_operands(l, s.substr(c.i + 1, close - c.i - 2), base + c.i + 1);
  c.i = close;
  c.skip_space();
  if (c.done()) return l;
  if (c.peek() != ',') c.bad("expected ',' before the attributes");
  read_attrs(l, s.substr(c.i + 1), base + c.i + 1);
  return l;
}

Header read_header(std::string_view s, size_t base) {
  Header h;
  text::Cursor c{s, 0, base};
  h.entry = c.eat_word("ENTRY");
  h.name = std::string(c.name());
  c.skip_space();
  if (c.peek() != '(') return h;  // "%name {": no signature
  const size_t close = text::closing(s, c.i, base);
  for (const auto& p : text::split_top(s.substr(c.i + 1, close - c.i - 2), base + c.i + 1)) {
    const std::string_view t = past_comments(text::trim(p.text));
    const size_t colon = t.find(':');
    if (colon == std::string_view::npos) continue;
    try {
      text::Cursor pc{t.substr(colon + 1), 0, 0};
      Shape sh = shape(pc);
      std::string_view n = text::trim(t.substr(0, colon));
      if (!n.empty() && n.front() == '%') n.remove_prefix(1);
      h.params.emplace_back(std::string(n), std::move(sh));
    } catch (const text::Bad&) {
      // A parameter whose shape does not read: its uses carry their own shapes, or stay unknown.
    }
  }
  return h;
}

}  // namespace sb::profiling::hlo::detail
