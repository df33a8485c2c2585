// Part 10's arrays as JAX writes them, and the collective matmul timed step by step (model.hpp).
#include "chapters/jax_stuff/model.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>
#include <vector>

#include "chapters/sharding/scan.hpp"
#include "chapters/tpus/torus.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace sb::jax_stuff {

namespace sc = sharding::scan;

double arange_block_mean(double n_loc, double G, double j) { return n_loc * (G - 1) / 2 + j; }
double collective_matmul_time(double n, double t_c, double t_p) {
  return (n - 1) * std::max(t_c, t_p) + t_c;
}
double half_hop_time(double V, double n, double w_uni) { return V / (2 * n * w_uni); }
double hidden_width(double s, double C, double w_uni) { return s * C / (2 * w_uni); }
double hidden_width_bidi(double s, double C, double w_uni) { return s * C / (4 * w_uni); }
double speedup(double t_naive, double t_cm) { return t_naive / t_cm; }

// ------------------------------------------------------------------ arrays

namespace {

struct DtypeName {
  const char* name;
  const char* table;  // the hardware tables' name, "" where they have none
  double bytes;
};
constexpr DtypeName kDtypes[] = {
    {"bf16", "bf16", 2},    {"bfloat16", "bf16", 2}, {"f32", "fp32", 4}, {"fp32", "fp32", 4},
    {"float32", "fp32", 4}, {"f16", "", 2},          {"float16", "", 2}, {"fp16", "", 2},
    {"int8", "int8", 1},    {"s8", "int8", 1},       {"i8", "int8", 1},  {"int32", "", 4},
    {"s32", "", 4},         {"i32", "", 4},          {"fp8", "fp8", 1},  {"int4", "int4", 0.5},
    {"f64", "", 8},         {"float64", "", 8},      {"int16", "", 2},   {"s16", "", 2}};

const DtypeName* dtype_entry(const std::string& d) {
  for (const auto& e : kDtypes)
    if (d == e.name) return &e;
  return nullptr;
}

std::string lower(Text t) {
  std::string s(t);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::string table_dtype(const std::string& dtype) {
  const DtypeName* e = dtype_entry(lower(dtype));
  return e ? e->table : "";
}

ArrayType parse_array_type(Text text, Text field) {
  sc::check_length(text, field, "the array type");
  ArrayType a;
  std::size_t i = 0;
  auto skip = [&] {
    while (i < text.size() && sc::is_space(text[i])) ++i;
  };
  auto err = [&](const std::string& m) { sc::fail_at(field, text, i, m, "bad_array"); };
  skip();
  const std::size_t b = i;
  while (i < text.size() && (sc::is_alnum(text[i]) || text[i] == '_')) ++i;
  if (i == b) err("expected a dtype, as in bf16[8,2048]");
  a.dtype = lower(text.substr(b, i - b));
  const DtypeName* e = dtype_entry(a.dtype);
  if (!e) {
    i = b;
    err("unknown dtype '" + a.dtype + "'; use bf16, float32, int8, int32, fp8 or int4");
  }
  a.bytes = e->bytes;
  skip();
  if (i >= text.size() || text[i] != '[') err("expected '[' and the shape, as in bf16[8,2048]");
  ++i;
  for (;;) {
    skip();
    if (i < text.size() && text[i] == ']' && a.dims.empty()) break;
    const std::size_t d0 = i;
    double v = 0;
    while (i < text.size() && sc::is_digit(text[i]) && v < 1e13) v = v * 10 + (text[i++] - '0');
    if (i == d0) err("expected a dimension size (a whole number)");
    if (v < 1 || v > 1e12) {
      i = d0;
      err("a dimension size must be from 1 to 1e12");
    }
    a.dims.push_back(v);
    skip();
    if (i < text.size() && text[i] == ',') {
      ++i;
      continue;
    }
    if (i < text.size() && text[i] == ']') break;
    err("expected ',' or ']' after a dimension size");
  }
  ++i;
  skip();
  if (i < text.size()) err("unexpected text after the shape");
  if (a.dims.size() > 8) fail(field, "at most 8 dimensions", "bad_array");
  return a;
}

std::string typeof_text(const ArrayType& a, const Sharding& s) {
  std::string out = a.dtype == "bf16" ? "bfloat16" : a.dtype == "f32" ? "float32" : a.dtype;
  out += "[";
  for (std::size_t k = 0; k < a.dims.size(); ++k) {
    out += (k ? "," : "") + units::number(a.dims[k], 15);
    if (k < s.dims.size() && !s.dims[k].axes.empty()) {
      out += "@";
      const auto& ax = s.dims[k].axes;
      if (ax.size() == 1) {
        out += ax[0];
      } else {
        out += "(";
        for (std::size_t j = 0; j < ax.size(); ++j) out += (j ? "," : "") + ax[j];
        out += ")";
      }
    }
  }
  return out + "]";
}

// ------------------------------------------------------------------ links and peaks

sharding::Link ici_link(const hw::Chip& c, double w_uni, double t_hop, bool bidirectional) {
  sharding::Link l;
  if (w_uni > 0)
    l.w_uni = w_uni;
  else if (c.kind != "tpu")
    fail("chip",
         "The " + c.name +
             " is a GPU: its GPUs talk through NVLink switches, not over an ICI torus, so there "
             "is no ring of ppermutes in the book's sense. Pick a TPU, or give w_uni to time a "
             "ring of that bandwidth.",
         "no_figure");
  else
    l.w_uni = c.get("ici_bw_oneway", "chip");
  l.t_hop = t_hop;
  l.bidirectional = bidirectional;
  return l;
}

double peak_for(const hw::Chip& c, const std::string& dtype, Trace* tr) {
  const std::string t = table_dtype(dtype);
  if (!t.empty() && c.has("peak_flops_" + t)) return c.peak(t, "dtype");
  if (tr) tr->note(c.name + " lists no " + dtype + " peak; $T_{math}$ uses its bf16 peak.");
  return c.peak("bf16", "dtype");
}

}  // namespace sb::jax_stuff
