// The byte stream under a Redis connection: a non-blocking TCP or Unix socket, with TLS
// (redis/tls.hpp) for rediss://, where every call waits with poll() up to a deadline.
// Failures throw io_error with the reason alone ("connection refused"); redis/connection.hpp
// adds the URL. Thread-safety: one stream is used by one thread at a time.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "redis/client.hpp"

namespace mcpcxx::redis::detail {

using clock = std::chrono::steady_clock;

/// A failed or timed-out socket operation; what() is the reason without the URL.
class io_error : public std::runtime_error {
 public:
  io_error(const std::string& reason, bool timed_out)
      : std::runtime_error(reason), timed_out_(timed_out) {}
  /// True when the deadline passed (the reason then names no cause).
  bool timed_out() const noexcept { return timed_out_; }

 private:
  bool timed_out_;
};

class tls_context;
class tls_session;

/// How a wait for data ended.
enum class wait_end { data, woken, deadline };

/// The result of stream::read_some.
struct read_result {
  std::size_t bytes = 0;  ///< bytes read (only with wait_end::data)
  wait_end end = wait_end::data;
};

/// A connected socket (with TLS when the URL says rediss://).
class stream {
 public:
  /// Resolves, connects and (rediss) does the TLS handshake with `tls` before `deadline`.
  static std::unique_ptr<stream> open(const store_url& u, tls_context* tls,
                                      clock::time_point deadline);
  ~stream();
  stream(const stream&) = delete;
  stream& operator=(const stream&) = delete;

  /// Writes every byte before `deadline`; throws io_error.
  void write_all(std::string_view bytes, clock::time_point deadline);
  /// Reads what is there (at least one byte) into `buf`, waiting until `deadline`; it returns
  /// early with wait_end::woken when `wake_fd` (if >= 0) becomes readable, and with
  /// wait_end::deadline when `soft` and the deadline passes (else that throws io_error).
  read_result read_some(char* buf, std::size_t size, clock::time_point deadline, int wake_fd = -1,
                        bool soft = false);
  /// False when an idle stream has been closed by the peer or has unexpected bytes waiting.
  bool still_idle();

 private:
  explicit stream(int fd);
  int fd_;
  std::unique_ptr<tls_session> tls_;
};

/// Milliseconds from now until `deadline`, rounded up, at least 0 (for poll()).
int remaining_ms(clock::time_point deadline);

/// Waits until `fd` is ready for `events` (POLLIN/POLLOUT) or `wake_fd` (if >= 0) is readable;
/// the end reached. Throws io_error on a poll failure.
wait_end wait_for(int fd, short events, clock::time_point deadline, int wake_fd = -1);

}  // namespace mcpcxx::redis::detail
