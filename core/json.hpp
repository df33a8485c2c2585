#pragma once
#include <nlohmann/json.hpp>
namespace sb {
using json = nlohmann::json;
}
