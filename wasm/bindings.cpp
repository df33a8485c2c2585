// The wasm face: one C function, JSON text in and out (core/api.hpp); wasm/api.post.js wraps it as
// Module.api(text). A plain export instead of embind keeps the module and its JS glue small.
#include <emscripten/emscripten.h>

#include <string>

#include "core/api.hpp"

extern "C" EMSCRIPTEN_KEEPALIVE const char* sb_api(const char* request) {
  // The answer stays valid until the next call; the JS side copies it out at once.
  static std::string answer;
  answer = sb::api::handle(std::string(request ? request : ""));
  return answer.c_str();
}
