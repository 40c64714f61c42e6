// log_line: writes one JSON log line member by member into a caller-owned buffer, without
// building a json object (the per-request line is on by default, so it sits on the hot path).
// Strings of plain printable ASCII are copied as they are; anything else is escaped by nlohmann
// (invalid UTF-8 replaced), so the line is always valid JSON.
// Thread-safety: a log_line and its buffer belong to one thread; iso_timestamp() is reentrant
// (it caches the formatted second per thread).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "mcpcxx/json.hpp"

namespace mcpcxx::detail {

/// Appends `{"ts":"<now>","level":...,"event":...` to a cleared `buf`, then members in call order.
/// While the line is being written, `buf` is sized to its capacity and written through a cursor
/// (no per-character push_back); finish() trims it to the line.
class log_line {
 public:
  /// Clears `buf` (keeping its capacity) and writes the ts, level and event members.
  log_line(std::string& buf, std::string_view level, std::string_view event);

  /// A string member.
  log_line& str(std::string_view key, std::string_view value);
  /// An integer member.
  log_line& integer(std::string_view key, std::int64_t value);
  /// A duration in microseconds written as milliseconds ("0.012", "2.0"), as a double would dump.
  log_line& millis(std::string_view key, std::int64_t micros);
  /// Any JSON value, dumped.
  log_line& value(std::string_view key, const json& v);
  /// Every member of the object `fields` (ignored when it is not an object), in its order, except
  /// ts, level and event (already written).
  log_line& members(const json& fields);
  /// Closes the object; the buffer holds the line without a newline.
  std::string_view finish();

 private:
  void key(std::string_view k);
  void string(std::string_view s);
  // Room for `n` more bytes at the cursor (grows the buffer); returns where they go.
  char* room(std::size_t n) {
    if (n > buf_.size() - at_) grow(n);
    return buf_.data() + at_;
  }
  void grow(std::size_t n);
  void put(std::string_view s);
  void put_int(std::int64_t v);
  void put(char c) {
    *room(1) = c;
    ++at_;
  }
  std::string& buf_;
  std::size_t at_ = 0;  // the line's length so far; buf_.size() is the room
};

/// The current UTC time as "YYYY-MM-DDTHH:MM:SS.mmmZ" into `out` (24 characters).
void iso_timestamp(char (&out)[24]);

}  // namespace mcpcxx::detail
