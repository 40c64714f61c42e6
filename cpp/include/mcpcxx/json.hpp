// The JSON value type used throughout the public API.
#pragma once

#include <nlohmann/json.hpp>

namespace mcpcxx {

/// The one JSON type of the public API (nlohmann::json, insertion order not preserved).
using json = nlohmann::json;

}  // namespace mcpcxx
