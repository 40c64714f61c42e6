// Descriptor plumbing for the stdio transport.
#include "transport/stdio_fds.hpp"

#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <iostream>
#include <unistd.h>

namespace mcpcxx::stdio_detail {

fd_flags_guard::fd_flags_guard(int fd) noexcept : fd_(fd), flags_(::fcntl(fd, F_GETFL)) {}

fd_flags_guard::~fd_flags_guard() {
  if (flags_ >= 0) ::fcntl(fd_, F_SETFL, flags_);
}

namespace {

void flush_process_stdout() noexcept {
  std::fflush(stdout);
  try {
    std::cout.flush();
  } catch (...) {  // a throwing exception mask on std::cout must not break serving
  }
}

/// Points fd 1 at stderr, or at /dev/null when stderr is closed.
bool point_stdout_at_stderr() noexcept {
  if (::dup2(STDERR_FILENO, STDOUT_FILENO) >= 0) return true;
  const int null_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null_fd < 0) return false;
  const bool ok = ::dup2(null_fd, STDOUT_FILENO) >= 0;
  ::close(null_fd);
  return ok;
}

}  // namespace

stdout_guard::stdout_guard(int out_fd, bool protect) noexcept : out_fd_(out_fd) {
  if (!protect || out_fd != STDOUT_FILENO) return;
  flush_process_stdout();
  saved_ = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (saved_ < 0) return;
  if (!point_stdout_at_stderr()) {
    ::close(saved_);
    saved_ = -1;
  }
}

stdout_guard::~stdout_guard() {
  if (saved_ < 0) return;
  flush_process_stdout();
  ::dup2(saved_, STDOUT_FILENO);
  ::close(saved_);
}

void ignore_sigpipe() noexcept {
  struct sigaction current {};
  if (::sigaction(SIGPIPE, nullptr, &current) != 0) return;
  if (current.sa_handler != SIG_DFL) return;  // the application chose its own disposition
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGPIPE, &ignore, nullptr);
}

}  // namespace mcpcxx::stdio_detail
