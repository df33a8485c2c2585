#pragma once
#include <nlohmann/json.hpp>
namespace sb {
// Ordered: a calculator's values and a chip's specs keep the order the code gives them, which is
// the order a reader should see them in.
using json = nlohmann::ordered_json;
}  // namespace sb
