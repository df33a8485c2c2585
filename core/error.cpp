#include "core/error.hpp"

namespace sb {

void fail(std::string_view field, const std::string& message, std::string_view code) {
  throw InputError(std::string(code), std::string(field), message);
}

}  // namespace sb
