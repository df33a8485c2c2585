// The JSON entry point takes any bytes: it must answer with a JSON object, in ASCII (docs/API.md),
// and never crash.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/api.hpp"
#include "core/json.hpp"
#include "fuzz/seeds.hpp"

// The seeds (fuzz/seeds.hpp): requests as a page sends them, for every calculator (with no inputs,
// and with each number at its largest) and every problem (problem, check with the model's answers,
// variant), and the ops that take no name.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  sb::fuzz::seeds_then_exit([](const std::string& dir) {
    const auto& reg = sb::Registry::get();
    const auto seed = [&](const std::string& name, const sb::json& request) {
      sb::Out out;
      sb::append_json(out, request);
      sb::fuzz::write_seed(dir, name, out.view());
    };
    for (const auto& c : reg.calculators()) {
      seed("calc-" + std::string(c.name), {{"op", "calc"}, {"name", c.name}, {"inputs", {}}});
      sb::json at_max = sb::json::object();
      for (const auto& p : c.params)
        if (p.kind == sb::Param::Kind::Number) at_max[std::string(p.name)] = p.max;
      seed("calc-max-" + std::string(c.name),
           {{"op", "calc"}, {"name", c.name}, {"inputs", at_max}});
    }
    for (const auto& p : reg.problems()) {
      const std::string id(p.id);
      seed("problem-" + id, {{"op", "problem"}, {"id", id}});
      seed("check-" + id, {{"op", "check"}, {"id", id}, {"answers", sb::fuzz::model_answers(p)}});
      seed("variant-" + id, {{"op", "variant"}, {"id", id}, {"seed", 7}});
    }
    for (const char* op : {"list", "chips", "units", "formulas"}) seed(op, {{"op", op}});
    seed("parse", {{"op", "parse"}, {"text", "45 GB/s"}, {"unit", "B_per_s"}});
  });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string req(reinterpret_cast<const char*>(data), size);
  std::string out = sb::api::handle(req);
  if (out.empty() || out[0] != '{') __builtin_trap();
  for (unsigned char c : out)
    if (c >= 0x80) __builtin_trap();
  if (!sb::json::accept(out)) __builtin_trap();
  return 0;
}
