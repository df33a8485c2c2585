// The wasm face, declared with embind: one entry point, sb_api(request) -> the answer, JSON text in
// and out as docs/API.md says. wasm/api.post.js wraps it as Module.api(text) -> text.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>

#include "core/api.hpp"

namespace {

// The last answer. The view sb_api returns points into it, so it is valid until the next call; the
// JS side decodes it at once.
std::string answer;

// The request crosses as a std::string (embind writes the JS string into the heap as UTF-8). The
// answer crosses as a Uint8Array view of its bytes, which the JS side decodes with TextDecoder: a
// std::string return would be copied once more and scanned byte by byte in JS for NULs
// (bench/README.md has the measurements).
emscripten::val sb_api(const std::string& request) {
  answer = sb::api::handle(request);  // never throws: errors are values
  return emscripten::val(emscripten::typed_memory_view(
      answer.size(), reinterpret_cast<const unsigned char*>(answer.data())));
}

}  // namespace

EMSCRIPTEN_BINDINGS(scaling) { emscripten::function("sb_api", &sb_api); }
