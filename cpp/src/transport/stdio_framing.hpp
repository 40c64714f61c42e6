// Newline-delimited framing for the stdio transport: splits a byte stream into lines, skips
// blank lines, accepts "\r\n", and discards over-long lines without buffering them.
// Thread-safety: one line_splitter belongs to one reader; not safe for concurrent use.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace mcpcxx::stdio_detail {

/// Receives what a line_splitter finds.
class line_handler {
 public:
  virtual ~line_handler() = default;
  /// A complete, non-blank line without its "\n" or "\r\n"; valid only during the call.
  virtual void on_line(std::string_view line) = 0;
  /// A line longer than the limit began; the rest of it up to the next "\n" is discarded.
  virtual void on_overlong() = 0;
};

/// Splits chunks of a byte stream into lines of at most `max_line_bytes` (excluding the end).
class line_splitter {
 public:
  /// Lines longer than `max_line_bytes` (after removing "\r\n") are reported as over-long.
  explicit line_splitter(std::size_t max_line_bytes) : max_(max_line_bytes) {}

  /// Feeds the next chunk; calls `handler` for each line it completes, in order.
  void feed(std::string_view chunk, line_handler& handler);
  /// At end of input: delivers a last line that had no "\n" (unless it was over-long).
  void finish(line_handler& handler);
  /// Bytes held for an incomplete line (bounded by max_line_bytes + 1).
  std::size_t buffered() const noexcept { return buffer_.size(); }

 private:
  void deliver(std::string_view line, line_handler& handler) const;

  std::size_t max_;
  std::string buffer_;
  bool discarding_ = false;
};

}  // namespace mcpcxx::stdio_detail
