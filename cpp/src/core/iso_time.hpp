// Times on the wire: RFC 3339 in UTC with milliseconds, as Task objects and the at-most-once
// refusals write them.
// Thread-safety: a pure function.
#pragma once

#include <chrono>
#include <string>

namespace mcpcxx::detail {

/// "2026-12-04T10:17:36.123Z".
std::string iso8601(std::chrono::system_clock::time_point t);

}  // namespace mcpcxx::detail
