// Process-level descriptor plumbing for the stdio transport: stdout protection, file-status
// flag restoration and SIGPIPE. Thread-safety: construct and destroy on the serving thread; these
// change process-wide state (fd 1, SIGPIPE disposition) for their lifetime.
#pragma once

namespace mcpcxx::stdio_detail {

/// Restores a descriptor's file-status flags (asio turns on O_NONBLOCK, which is shared with
/// every duplicate of the descriptor, including the caller's).
class fd_flags_guard {
 public:
  /// Records the current flags of `fd` (nothing is restored if they cannot be read).
  explicit fd_flags_guard(int fd) noexcept;
  ~fd_flags_guard();
  fd_flags_guard(const fd_flags_guard&) = delete;
  fd_flags_guard& operator=(const fd_flags_guard&) = delete;

 private:
  int fd_;
  int flags_;
};

/// While alive and active: the MCP stream goes to a private duplicate of fd 1, and fd 1 itself
/// points at stderr, so stray printf/std::cout output cannot corrupt the stream.
class stdout_guard {
 public:
  /// Redirects when `protect` and `out_fd` is 1; stays inactive when the duplicate fails.
  stdout_guard(int out_fd, bool protect) noexcept;
  /// Flushes C and C++ stdout buffers (to stderr) and puts the original fd 1 back.
  ~stdout_guard();
  stdout_guard(const stdout_guard&) = delete;
  stdout_guard& operator=(const stdout_guard&) = delete;

  /// The descriptor the transport must write MCP frames to.
  int stream_fd() const noexcept { return saved_ >= 0 ? saved_ : out_fd_; }
  /// True when fd 1 currently points at stderr.
  bool active() const noexcept { return saved_ >= 0; }

 private:
  int out_fd_;
  int saved_ = -1;
};

/// Sets SIGPIPE to ignored when it has the default disposition, so a closed stdout reader ends
/// serving with EPIPE instead of killing the process. Left ignored afterwards on purpose: handler
/// threads may still write after serving returns.
void ignore_sigpipe() noexcept;

}  // namespace mcpcxx::stdio_detail
