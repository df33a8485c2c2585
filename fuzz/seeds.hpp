// Seeds from the registry, written at run time: with SB_FUZZ_WRITE_SEEDS=DIR in the environment, a
// fuzzer's LLVMFuzzerInitialize writes its seeds into DIR and the program exits. scripts/fuzz.sh
// does that before each run, so every chapter's calculators and problems (a new chapter's too) are
// reached from the first input, with nothing committed that goes stale.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/api.hpp"
#include "core/json.hpp"
#include "core/registry.hpp"

namespace sb::fuzz {

// Writes one seed, DIR/name.
inline void write_seed(const std::string& dir, const std::string& name, std::string_view bytes) {
  const std::string path = dir + "/" + name;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    std::fprintf(stderr, "cannot write the seed %s\n", path.c_str());
    std::exit(1);
  }
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
}

// Calls write(dir) and exits when SB_FUZZ_WRITE_SEEDS names a directory; returns otherwise.
template <class Write>
void seeds_then_exit(Write write) {
  const char* dir = std::getenv("SB_FUZZ_WRITE_SEEDS");
  if (!dir || !*dir) return;
  write(std::string(dir));
  std::exit(0);
}

// A problem's model answers as a reader would type them ({slot: text}), for the number and bool
// slots that have one; formula slots get `formula`.
inline json model_answers(const Problem& p, const char* formula = "2*B*D*F") {
  const json r = api::handle(json{{"op", "problem"}, {"id", p.id}});
  json out = json::object();
  if (!r.value("ok", false)) return out;
  for (const auto& s : p.slots) {
    const json& a = r["answers"][std::string(s.name)];
    if (s.kind == Slot::Kind::Formula)
      out[std::string(s.name)] = formula;
    else if (a.is_object() && a.contains("text"))
      out[std::string(s.name)] = a["text"];
  }
  return out;
}

// The two bytes of an index, low first, as the fuzzers read them.
inline std::string index_bytes(size_t i) {
  return {static_cast<char>(i & 255), static_cast<char>((i >> 8) & 255)};
}

}  // namespace sb::fuzz
