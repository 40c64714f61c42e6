// Helpers for the stdio tests: pipes, a background io_context, and a line reader with a
// generous hang guard (a failure guard, not a timing assertion).
#pragma once

#include <fcntl.h>
#include <optional>
#include <poll.h>
#include <string>
#include <thread>
#include <unistd.h>

#include <asio/executor_work_guard.hpp>
#include <asio/io_context.hpp>

namespace mcpcxx::stdio_test {

/// A pipe whose ends close on destruction.
struct pipe_fds {
  int read = -1;
  int write = -1;
  pipe_fds() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
    read = fds[0];
    write = fds[1];
  }
  ~pipe_fds() {
    close_read();
    close_write();
  }
  pipe_fds(const pipe_fds&) = delete;
  pipe_fds& operator=(const pipe_fds&) = delete;
  void close_read() {
    if (read >= 0) ::close(read);
    read = -1;
  }
  void close_write() {
    if (write >= 0) ::close(write);
    write = -1;
  }
};

/// An io_context running on one background thread until destruction.
class background_io {
 public:
  background_io() : guard_(asio::make_work_guard(io_)), thread_([this] { io_.run(); }) {}
  ~background_io() { stop(); }
  asio::io_context& io() { return io_; }
  void stop() {
    guard_.reset();
    io_.stop();
    if (thread_.joinable()) thread_.join();
  }

 private:
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> guard_;
  std::thread thread_;
};

/// Reads newline-terminated lines from a blocking fd.
class line_source {
 public:
  explicit line_source(int fd) : fd_(fd) {}
  /// The next line without "\n"; nullopt at EOF, or when nothing arrived for 60 s (a hang).
  std::optional<std::string> next() {
    for (;;) {
      const auto nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return line;
      }
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 60000) <= 0) return std::nullopt;
      char chunk[65536];
      const ssize_t n = ::read(fd_, chunk, sizeof chunk);
      if (n <= 0) return std::nullopt;
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }
  /// Bytes received after the last complete line.
  const std::string& rest() const { return buffer_; }

 private:
  int fd_;
  std::string buffer_;
};

/// Writes all of `bytes` to a blocking fd; false on error (EPIPE included).
inline bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace mcpcxx::stdio_test
