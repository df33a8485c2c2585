// The wasm face: one function, JSON text in and out (core/api.hpp). Nothing throws across it.
#include <emscripten/bind.h>

#include "core/api.hpp"

namespace {
std::string api(const std::string& request) { return sb::api::handle(request); }
}  // namespace

EMSCRIPTEN_BINDINGS(scaling) { emscripten::function("api", &api); }
