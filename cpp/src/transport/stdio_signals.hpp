// SIGTERM/SIGINT for the stdio transport: while a stop_signals is alive, those signals (when
// their disposition was the default) are caught by an async-signal-safe handler that writes the
// signal number to a self-pipe; the io_context reads it and calls the callback.
// Thread-safety: construct and destroy on the serving thread; at most one is active per process
// (a second one installs nothing). The callback runs on an io thread. Destroy it only once the
// io_context no longer runs handlers.
#pragma once

#include <csignal>
#include <functional>
#include <memory>

#include <asio/io_context.hpp>
#include <asio/posix/stream_descriptor.hpp>

namespace mcpcxx::stdio_detail {

/// Catches SIGTERM and SIGINT for its lifetime; the previous dispositions come back after.
class stop_signals {
 public:
  /// Installs the handlers (only for signals whose disposition is SIG_DFL) and starts reading.
  stop_signals(asio::io_context& io, std::function<void(int signo)> on_signal);
  ~stop_signals();
  stop_signals(const stop_signals&) = delete;
  stop_signals& operator=(const stop_signals&) = delete;

 private:
  void read_next();

  std::unique_ptr<asio::posix::stream_descriptor> pipe_in_;
  int pipe_out_ = -1;
  bool active_ = false;
  bool installed_[2] = {false, false};
  struct sigaction previous_[2]{};
  std::function<void(int)> on_signal_;
  unsigned char byte_ = 0;
};

}  // namespace mcpcxx::stdio_detail
