// For `npm run bench` only: the roofline module's face as a plain C export instead of embind
// (wasm/bindings.cpp), so that the bench sets the two side by side in one run. JSON text in and
// out (core/api.hpp); bench/plain_export.post.js wraps these two C functions as Module.api(text).
#include <emscripten/emscripten.h>

#include <cstddef>
#include <string>

#include "core/api.hpp"

namespace {
// The last answer: valid until the next call; the JS side copies it out at once.
std::string answer;
}  // namespace

extern "C" EMSCRIPTEN_KEEPALIVE const char* sb_api(const char* request, size_t size) {
  answer = sb::api::handle(request ? std::string(request, size) : std::string());
  return answer.data();
}

extern "C" EMSCRIPTEN_KEEPALIVE size_t sb_api_size() { return answer.size(); }
