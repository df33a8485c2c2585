// The mesh spellings (notation.hpp): a shape "4x4", or a literal (literal.hpp) that is a dict of
// axis sizes or a Mesh(...) / jax.make_mesh(...) call, checked and turned into named axes.
#include <algorithm>

#include "chapters/sharding/literal.hpp"
#include "chapters/sharding/notation.hpp"
#include "chapters/sharding/scan.hpp"

namespace sb::sharding {
namespace {

using namespace scan;

class MeshBuilder {
 public:
  MeshBuilder(Text s, Text field) : s_(s), f_(field) {}

  Mesh run() {
    check_length(s_, f_, "the mesh");
    std::size_t b = 0;
    while (b < s_.size() && is_space(s_[b])) ++b;
    if (b == s_.size())
      fail(f_, "the mesh is empty; write it like X=4,Y=4 or {'X': 4, 'Y': 4}", "bad_mesh");
    if (is_digit(s_[b])) return shape_form(b);
    return interpret(read_literal(s_, f_));
  }

 private:
  Text s_;  // the caller's text, which outlives the builder
  Text f_;

  [[noreturn]] void err_at(std::size_t at, const std::string& msg,
                           const std::string& code = "bad_mesh") {
    fail_at(f_, s_, at, msg, code);
  }

  // "4x4x4" or "16 x 16": axis names X, Y, Z in order.
  Mesh shape_form(std::size_t i) {
    Mesh m;
    static const char* kNames[] = {"X", "Y", "Z"};
    for (;;) {
      while (i < s_.size() && is_space(s_[i])) ++i;
      if (i >= s_.size() || !is_digit(s_[i])) err_at(i, "expected an axis size (a whole number)");
      std::size_t b = i;
      long long v = 0;
      while (i < s_.size() && is_digit(s_[i])) {
        if (i - b >= 12) err_at(b, "axis size is too large", "out_of_range");
        v = v * 10 + (s_[i] - '0');
        ++i;
      }
      if (m.sizes.size() >= 3)
        err_at(b, "a shape like 4x4x4 names at most 3 axes (X, Y, Z); use {A: 2, ...} for more");
      check_size(v, b, kNames[m.sizes.size()]);
      m.names.push_back(kNames[m.sizes.size()]);
      m.sizes.push_back(v);
      while (i < s_.size() && is_space(s_[i])) ++i;
      if (i >= s_.size()) break;
      if (s_[i] == 'x' || s_[i] == 'X' || s_[i] == '*') {
        ++i;
        continue;
      }
      err_at(i, "expected 'x' between axis sizes, as in 4x4");
    }
    finish(m, 0);
    return m;
  }

  void check_size(long long v, std::size_t at, const std::string& name) {
    if (v <= 0)
      err_at(at, "size of mesh axis " + name + " must be a positive whole number", "out_of_range");
    if (v > kMaxAxisSize)
      err_at(at, "size of mesh axis " + name + " is larger than " + std::to_string(kMaxAxisSize),
             "out_of_range");
  }

  long long int_of(const Val& v, const std::string& name) {
    if (v.kind == Val::Num)
      err_at(v.at, "size of mesh axis " + name + " must be a whole number", "out_of_range");
    if (v.kind != Val::Int)
      err_at(v.at, "expected the size of mesh axis " + name + " (a whole number)");
    check_size(v.i, v.at, name);
    return v.i;
  }

  // Shape of a nested tuple of device ids, checked rectangular; no recursion (depth is capped
  // anyway).
  std::vector<long long> devices_shape(const Val& v, long long& count) {
    std::vector<long long> shape;
    const Val* p = &v;
    while (p->kind == Val::Tuple) {
      if (p->items.empty()) err_at(p->at, "the device grid has an empty row");
      shape.push_back(static_cast<long long>(p->items.size()));
      p = &p->items[0];
    }
    if (shape.empty()) err_at(v.at, "devices must be a nested tuple of device ids");
    // Walk every element level by level and check each row has the expected length.
    std::vector<const Val*> level{&v};
    for (std::size_t d = 0; d < shape.size(); ++d) {
      std::vector<const Val*> next;
      for (const Val* x : level) {
        if (x->kind != Val::Tuple) err_at(x->at, "the device grid is not rectangular");
        if (static_cast<long long>(x->items.size()) != shape[d])
          err_at(x->at, "the device grid is not rectangular: expected " + std::to_string(shape[d]) +
                            " entries here");
        for (const auto& y : x->items) next.push_back(&y);
      }
      level = std::move(next);
    }
    std::vector<long long> ids;
    for (const Val* x : level) {
      if (x->kind != Val::Int) err_at(x->at, "expected a device id (a whole number)");
      if (x->i < 0) err_at(x->at, "device ids cannot be negative");
      ids.push_back(x->i);
    }
    std::sort(ids.begin(), ids.end());
    if (std::adjacent_find(ids.begin(), ids.end()) != ids.end())
      err_at(v.at, "a device id appears twice in the device grid");
    count = static_cast<long long>(ids.size());
    return shape;
  }

  // The arguments of a mesh call, Mesh(devices, axis_names) or with keywords.
  struct MeshCall {
    std::vector<long long> shape;
    std::vector<std::pair<std::string, std::size_t>> names;  // with where each is
    std::size_t shape_at = 0, names_at = 0;
  };

  // axis_names: one name or a tuple of names.
  void take_names(const Val& t, MeshCall& mc) {
    if (t.kind == Val::Str || t.kind == Val::Ident) {
      mc.names.push_back({t.s, t.at});
      return;
    }
    if (t.kind != Val::Tuple) err_at(t.at, "axis_names must be a tuple of names, like ('X', 'Y')");
    for (const auto& x : t.items) {
      if (x.kind != Val::Str && x.kind != Val::Ident)
        err_at(x.at, "expected an axis name in quotes");
      mc.names.push_back({x.s, x.at});
    }
    mc.names_at = t.at;
  }

  // A shape: one size or a tuple of sizes; a nested tuple is a grid of device ids.
  void take_shape(const Val& t, MeshCall& mc, bool devices) {
    mc.shape_at = t.at;
    if (devices) {
      long long n = 0;
      mc.shape = devices_shape(t, n);
      return;
    }
    if (t.kind == Val::Int) {
      mc.shape = {int_of(t, "#1")};
      return;
    }
    if (t.kind != Val::Tuple) err_at(t.at, "the mesh shape must be a tuple of sizes, like (4, 8)");
    for (std::size_t k = 0; k < t.items.size(); ++k)
      mc.shape.push_back(int_of(t.items[k], "#" + std::to_string(k + 1)));
  }

  // {'X': 4, 'Y': 2}: the names and sizes in order.
  Mesh interpret_dict(const Val& v) {
    Mesh m;
    if (v.keys.empty()) err_at(v.at, "the mesh has no axes");
    for (std::size_t k = 0; k < v.keys.size(); ++k) {
      check_name(v.keys[k], v.key_at[k]);
      m.names.push_back(v.keys[k]);
      m.sizes.push_back(int_of(v.kvals[k], v.keys[k]));
    }
    finish(m, v.at);
    return m;
  }

  Mesh interpret(const Val& v) {
    if (v.kind == Val::Dict) return interpret_dict(v);
    if (v.kind != Val::Call)
      err_at(v.at,
             "expected a mesh such as X=4,Y=4, {'X': 4, 'Y': 4}, 4x4 or Mesh({'X': 4, 'Y': 4})");
    MeshCall mc;
    mc.shape_at = mc.names_at = v.at;
    for (std::size_t k = 0; k < v.items.size(); ++k) {
      const Val& a = v.items[k];
      if (k == 0 && a.kind == Val::Dict) {
        if (v.items.size() > 1 || !v.keys.empty())
          err_at(v.at, "a mesh given as a dict takes no other arguments");
        return interpret_dict(a);
      }
      if (k == 0)
        take_shape(a, mc,
                   a.kind == Val::Tuple && !a.items.empty() && a.items[0].kind == Val::Tuple);
      else if (k == 1)
        take_names(a, mc);
      else
        err_at(a.at, "unexpected extra argument to " + v.s);
    }
    for (std::size_t k = 0; k < v.keys.size(); ++k) {
      const std::string& key = v.keys[k];
      if (key == "devices")
        take_shape(v.kvals[k], mc, true);
      else if (key == "mesh_shape" || key == "axis_shapes" || key == "shape")
        take_shape(v.kvals[k], mc, false);
      else if (key == "axis_names" || key == "names")
        take_names(v.kvals[k], mc);
      else if (key != "axis_types" && key != "devices_order")  // layout hints only
        err_at(v.key_at[k], "unknown mesh argument '" + key + "'");
    }
    if (mc.shape.empty())
      err_at(v.at, "the mesh call gives no shape (devices=..., mesh_shape=... or axis_shapes=...)");
    if (mc.names.empty()) err_at(v.at, "the mesh call gives no axis_names");
    if (mc.names.size() != mc.shape.size())
      err_at(mc.names_at, "there are " + std::to_string(mc.names.size()) + " axis names for a " +
                              std::to_string(mc.shape.size()) + "-dimensional shape");
    Mesh m;
    for (std::size_t k = 0; k < mc.names.size(); ++k) {
      check_name(mc.names[k].first, mc.names[k].second);
      m.names.push_back(mc.names[k].first);
      check_size(mc.shape[k], mc.shape_at, mc.names[k].first);
      m.sizes.push_back(mc.shape[k]);
    }
    finish(m, v.at);
    return m;
  }

  void check_name(const std::string& n, std::size_t at) {
    if (n.empty() || !(is_alpha(n[0]) || n[0] == '_'))
      err_at(at, "an axis name must start with a letter");
    for (char c : n)
      if (!is_alnum(c) && c != '_')
        err_at(at, "an axis name may hold only letters, digits and '_'");
    if (n.size() > 32) err_at(at, "an axis name may be at most 32 characters");
  }

  void finish(Mesh& m, std::size_t at) {
    if (static_cast<int>(m.names.size()) > kMaxMeshAxes)
      err_at(at, "a mesh may have at most " + std::to_string(kMaxMeshAxes) + " axes");
    for (std::size_t k = 0; k < m.names.size(); ++k)
      for (std::size_t l = 0; l < k; ++l)
        if (m.names[k] == m.names[l]) err_at(at, "mesh axis " + m.names[k] + " is named twice");
    double n = 1;
    for (auto v : m.sizes) n *= static_cast<double>(v);
    if (n > static_cast<double>(kMaxDevices))
      err_at(at, "the mesh has more than " + std::to_string(kMaxDevices) + " devices",
             "out_of_range");
  }
};

}  // namespace

Mesh parse_mesh(Text text, Text field) { return MeshBuilder(text, field).run(); }

bool Mesh::has(const std::string& axis) const {
  return std::find(names.begin(), names.end(), axis) != names.end();
}

long long Mesh::size(const std::string& axis) const {
  for (std::size_t k = 0; k < names.size(); ++k)
    if (names[k] == axis) return sizes[k];
  return 0;
}

long long Mesh::devices() const {
  long long n = 1;
  for (auto v : sizes) n *= v;
  return n;
}

std::string Mesh::text() const {
  std::string out = "{";
  for (std::size_t k = 0; k < names.size(); ++k)
    out += (k ? ", " : "") + names[k] + ": " + std::to_string(sizes[k]);
  return out + "}";
}

}  // namespace sb::sharding
