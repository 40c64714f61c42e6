// JSON form of the stdio transport options (nlohmann ADL hooks).
// Keys are the C++ member names; durations are seconds.
// from_json starts from the struct's defaults, reads only the keys present (null means default),
// and throws std::invalid_argument naming an unknown key or a value of the wrong type.
// Thread-safety: pure functions.
#pragma once

#include "mcpcxx/json.hpp"
#include "mcpcxx/stdio.hpp"

namespace mcpcxx {

/// stdio_options <-> {protect_stdout, drain_grace, max_outbound_bytes, handle_signals,
/// inline_dispatch}.
void to_json(json& j, const stdio_options& o);
void from_json(const json& j, stdio_options& o);

}  // namespace mcpcxx
