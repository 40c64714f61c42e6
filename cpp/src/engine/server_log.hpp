// Server-side log: one JSON object per line on stderr (or the configured writer), never stdout.
// Thread-safety: all members may be called concurrently.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include "mcpcxx/json.hpp"

namespace mcpcxx::detail {

/// Writes structured log records and mints error reference ids.
class server_log {
 public:
  /// `writer` receives one line without newline; empty means stderr.
  explicit server_log(std::function<void(std::string_view)> writer);

  /// Writes {"ts","level","event",...fields} as one line (a string field "level" or "event"
  /// overrides the argument).
  void write(std::string_view level, std::string_view event, const json& fields);
  /// Hands an already formatted line (log_line.hpp) to the writer.
  void write_line(std::string_view line);
  /// A fresh reference id "ERR-xxxxxxxx" (8 random hex digits) for correlating wire and log.
  static std::string new_reference();

 private:
  std::function<void(std::string_view)> writer_;
  std::mutex mutex_;
};

}  // namespace mcpcxx::detail
