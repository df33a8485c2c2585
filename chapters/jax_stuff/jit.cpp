// A.7, A.7b: what jax.jit (Auto mode) or the typed trace (Explicit mode) makes of a sharded
// matmul, as the sharding chapter's plans (model.hpp).
#include <algorithm>
#include <string>
#include <vector>

#include "chapters/jax_stuff/model.hpp"
#include "chapters/sharding/scan.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace sb::jax_stuff {

namespace {

namespace sh = sharding;

std::vector<std::string> letters(std::size_t b, std::size_t e, Text text, Text field) {
  std::vector<std::string> out;
  for (std::size_t i = b; i < e; ++i) {
    if (sh::scan::is_space(text[i])) continue;
    if (!sh::scan::is_alpha(text[i]))
      sh::scan::fail_at(field, text, i, "expected one letter per dimension, as in bd,df->bf",
                        "bad_einsum");
    const std::string L(1, static_cast<char>(std::toupper(static_cast<unsigned char>(text[i]))));
    if (std::find(out.begin(), out.end(), L) != out.end())
      sh::scan::fail_at(field, text, i, "a letter appears twice in one operand", "bad_einsum");
    out.push_back(L);
  }
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The plan's output equals the target when every dimension is sharded over the same axes and
// nothing is left unreduced; it can be sliced to it for free when each target dimension's axes
// start with the plan's.
bool same_out(const Sharding& p, const Sharding& t) {
  if (!p.unreduced.empty()) return false;
  for (const auto& d : t.dims) {
    const int k = p.dim_index(d.name);
    if (k < 0 || p.dims[k].axes != d.axes) return false;
  }
  return true;
}
bool slices_to(const Sharding& p, const Sharding& t) {
  if (!p.unreduced.empty()) return false;
  for (const auto& d : t.dims) {
    const int k = p.dim_index(d.name);
    if (k < 0) return false;
    const auto& a = p.dims[k].axes;
    if (a.size() > d.axes.size() || !std::equal(a.begin(), a.end(), d.axes.begin())) return false;
  }
  return true;
}

bool reduces(const sh::Plan& p) {
  return std::any_of(p.steps.begin(), p.steps.end(), [](const sh::PlanStep& s) {
    return s.kind == "AllReduce" || s.kind == "ReduceScatter";
  });
}

Local local_of(const std::string& name, const ArrayType& a, const Sharding& s, const Mesh& m,
               Text field, Trace* tr) {
  Local l;
  l.name = name;
  l.notation = s.text();
  l.type = typeof_text(a, s);
  l.global = a.dims;
  const sh::LocalShape ls = sh::local_shape(s, m, a.dims, a.bytes, field, tr);
  l.local = ls.local;
  l.bytes = ls.bytes_per_device;
  return l;
}

sh::MatmulInput matmul_input(const JitInput& in, const Einsum& e, const Sharding& xs,
                             const Sharding& ws) {
  if (in.x.dims.size() != e.x.size())
    fail("x_shape",
         "the einsum gives the first operand " + std::to_string(e.x.size()) +
             " dimensions, its shape has " + std::to_string(in.x.dims.size()),
         "bad_einsum");
  if (in.w.dims.size() != e.w.size())
    fail("w_shape",
         "the einsum gives the second operand " + std::to_string(e.w.size()) +
             " dimensions, its shape has " + std::to_string(in.w.dims.size()),
         "bad_einsum");
  sh::MatmulInput mi;
  mi.a = xs;
  mi.b = ws;
  mi.mesh = in.mesh;
  const sh::MatmulDims md = sh::matmul_dims(mi.a, mi.b);
  mi.I = in.x.dims[md.a_i];
  mi.J = in.x.dims[md.a_j];
  mi.K = in.w.dims[md.b_k];
  if (in.w.dims[md.b_j] != mi.J)
    fail("w_shape",
         "the contracting dimension " + md.contracting + " is " + units::number(mi.J, 15) +
             " in x_shape but " + units::number(in.w.dims[md.b_j], 15) + " here",
         "shape_mismatch");
  mi.bytes_per_elem = in.x.bytes;
  mi.peak_flops = in.peak;
  mi.link = in.link;
  mi.wrap = in.wrap;
  return mi;
}

}  // namespace

Einsum parse_einsum(Text text, Text field) {
  sh::scan::check_length(text, field, "the einsum");
  const std::size_t comma = text.find(','), arrow = text.find("->");
  if (comma == Text::npos || arrow == Text::npos || arrow < comma ||
      text.find(',', comma + 1) < arrow)
    fail(field, "write the einsum of two operands, as in bd,df->bf", "bad_einsum");
  Einsum e;
  e.x = letters(0, comma, text, field);
  e.w = letters(comma + 1, arrow, text, field);
  e.out = letters(arrow + 2, text.size(), text, field);
  if (e.x.size() != 2 || e.w.size() != 2 || e.out.size() != 2)
    fail(field, "this calculator reads a matmul, two letters per operand", "bad_einsum");
  int shared = 0;
  for (const auto& L : e.x)
    if (has(e.w, L)) {
      ++shared;
      if (has(e.out, L))
        fail(field, "the contracted letter " + L + " cannot be in the output", "bad_einsum");
    }
  if (shared != 1)
    fail(field, "a matmul contracts exactly one letter the operands share", "bad_einsum");
  for (const auto& L : e.out)
    if (!has(e.x, L) && !has(e.w, L))
      fail(field, "the output's " + L + " is in neither operand", "bad_einsum");
  return e;
}

namespace {

// The plan whose output is `target`: one that gives it, else one that gives a coarser sharding
// each device then slices for free, else the book's default followed by a gather of what the
// target does not shard (each over the devices along those axes, A4.1).
sh::Plan plan_for(const sh::MatmulInput& mi, const sh::MatmulAnalysis& an, const Sharding& target,
                  Trace* tr) {
  std::vector<const sh::Plan*> all{&an.plan};
  for (const auto& p : an.alternatives) all.push_back(&p);
  for (const auto* p : all)
    if (same_out(p->out, target)) return *p;
  for (const auto* p : all)
    if (slices_to(p->out, target)) {
      if (tr) tr->note("Each device then keeps its slice of the result: no communication.");
      sh::Plan q = *p;
      q.out = target;
      return q;
    }
  sh::Plan q = an.plan;
  std::vector<std::string> drop;
  for (const auto& d : q.out.dims) {
    const int k = target.dim_index(d.name);
    for (const auto& a : d.axes)
      if (k < 0 || !has(target.dims[k].axes, a)) drop.push_back(a);
  }
  sh::PlanStep st;
  st.kind = "AllGather";
  st.array = "C";
  st.when = "after";
  st.axes = drop;
  st.from = q.out.text();
  st.to = target.text();
  std::vector<double> sizes{mi.I, mi.K};
  const sh::LocalShape ls = sh::local_shape(q.out, mi.mesh, sizes, mi.bytes_per_elem, "out_spec");
  st.V = sh::gather_volume(ls.bytes_per_device, mi.mesh, drop, nullptr);
  std::vector<sh::Axis> axes;
  for (const auto& a : drop) {
    sh::Axis x;
    x.name = a;
    x.size = static_cast<double>(mi.mesh.size(a));
    const auto it = std::find(mi.mesh.names.begin(), mi.mesh.names.end(), a);
    x.wrap = mi.wrap[static_cast<std::size_t>(it - mi.mesh.names.begin())];
    axes.push_back(x);
  }
  st.cost = sh::collective_cost(sh::Op::AllGather, st.V, axes, mi.link);
  q.steps.push_back(st);
  q.t_comms += st.cost.t;
  q.out = target;
  return q;
}

// The first collective of the plan: what XLA inserts, its payload and group.
void collective_of(const sh::Plan& p, const Mesh& m, JitResult& r) {
  for (const auto& st : p.steps) {
    if (st.kind == "matmul" || st.kind == "slice") continue;
    if (r.collective != "none") {
      r.collective += " + " + st.kind;
      r.t_collective += st.cost.t;
      continue;
    }
    r.collective = st.kind;
    r.payload = st.V;
    r.group = 1;
    for (const auto& a : st.axes) r.group *= static_cast<double>(m.size(a));
    r.t_collective = st.cost.t;
  }
}

}  // namespace

JitResult jit_matmul(const JitInput& in, Trace* tr) {
  const Einsum e = parse_einsum(in.einsum, "einsum");
  JitResult r;
  const Sharding xs = sh::spec_sharding(in.x_spec, in.mesh, "In", e.x, "x_spec");
  const Sharding ws = sh::spec_sharding(in.w_spec, in.mesh, "W", e.w, "w_spec");
  const sh::MatmulInput mi = matmul_input(in, e, xs, ws);
  r.x = local_of("In", in.x, xs, in.mesh, "x_shape", tr);
  r.w = local_of("W", in.w, ws, in.mesh, "w_shape", tr);
  const sh::MatmulAnalysis an = sh::analyze_matmul(mi, nullptr);
  if (tr) tr->note(an.case_text);
  Sharding target = an.plan.out;
  if (in.has_out) {
    target = sh::spec_sharding(in.out, in.mesh, "Out", e.out, "out_spec");
  } else if (in.explicit_mode && reduces(an.plan)) {
    fail("out_spec",
         "in Explicit mode the result's sharding is ambiguous (both operands shard the "
         "contracting dimension " +
             an.contracting +
             "), so JAX stops at trace time and asks for out_sharding=: an out spec that shards "
             "the output over that axis gives a ReduceScatter, one that does not an AllReduce",
         "ambiguous");
  }
  target.name = "Out";
  r.plan = plan_for(mi, an, target, tr);
  ArrayType out_type{in.x.dtype, in.x.bytes, {mi.I, mi.K}};
  r.out = local_of("Out", out_type, target, in.mesh, "out_spec", tr);
  r.out_sharding = target.text();
  collective_of(r.plan, in.mesh, r);
  r.flops = r.plan.flops_per_chip;
  if (tr) {
    sh::recost_comms(mi, r.plan, *tr, "");
    r.t_math = tr->step("$T_{math}$ per device", roofline::kTMath, {r.flops, in.peak});
  } else {
    r.t_math = roofline::t_math(r.flops, in.peak);
  }
  if (in.explicit_mode)
    r.explicit_note = "typeof: " + r.x.type + " . " + r.w.type + " -> " + r.out.type;
  return r;
}

}  // namespace sb::jax_stuff
