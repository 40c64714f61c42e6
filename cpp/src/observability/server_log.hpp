// Server-side log: one JSON object per line on stderr (or the configured writer), never stdout.
// Thread-safety: all members may be called concurrently.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include "mcpcxx/json.hpp"
#include "mcpcxx/log_level.hpp"

namespace mcpcxx::detail {

/// Writes structured log records and mints error reference ids.
class server_log {
 public:
  /// `writer` receives one line without newline; empty means stderr. Lines below `threshold`
  /// are dropped.
  explicit server_log(std::function<void(std::string_view)> writer,
                      log_level threshold = log_level::debug);
  /// False when a line of `level` would be dropped (an unknown level name is written).
  bool enabled(std::string_view level) const noexcept;

  /// Writes {"ts","level","event",...fields} as one line (a string field "level" or "event"
  /// overrides the argument).
  void write(std::string_view level, std::string_view event, const json& fields);
  /// Hands an already formatted line (log_line.hpp) to the writer.
  void write_line(std::string_view line);
  /// A fresh reference id "ERR-xxxxxxxx" (8 random hex digits) for correlating wire and log.
  static std::string new_reference();

  /// Until release_held_lines() on the calling thread, the lines this thread writes through a
  /// log with the default (stderr) writer gather in a per-thread buffer, then leave together in
  /// one write: the stdio reader holds them while it serves the lines of one read, as it holds
  /// the replies (one system call per read instead of one per request). A held buffer past
  /// 64 KiB is written at once. Lines of a configured writer are never held. Not nested.
  static void hold_lines() noexcept;
  /// Writes, in order, what this thread held, and ends its hold.
  static void release_held_lines() noexcept;

 private:
  std::function<void(std::string_view)> writer_;
  log_level threshold_;
  std::mutex mutex_;
};

}  // namespace mcpcxx::detail
