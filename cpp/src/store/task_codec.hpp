// A task_record as the Redis task store keeps it: JSON text with the times in nanoseconds since
// the epoch, so a record comes back exactly as it was stored.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "mcpcxx/tasks.hpp"

namespace mcpcxx::detail {

/// The stored text of `r`.
std::string encode_record(const task_record& r);
/// The record in `text`; throws std::exception when it is no record (never written by us).
task_record decode_record(std::string_view text);
/// The status named `name` ("working", ...); throws std::invalid_argument for anything else.
task_status parse_status(std::string_view name);
/// When `r` expires, in whole milliseconds since the epoch (rounded down: a key may go a
/// fraction of a millisecond early, never late).
std::int64_t expiry_ms(const task_record& r);
/// The system clock now, in milliseconds since the epoch.
std::int64_t now_epoch_ms();

}  // namespace mcpcxx::detail
