// The self-pipe behind stop_signals.
#include "transport/stdio_signals.hpp"

#include <atomic>
#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace mcpcxx::stdio_detail {

namespace {

constexpr int k_signals[2] = {SIGTERM, SIGINT};
/// The write end of the active self-pipe; -1 when no stop_signals is active.
std::atomic<int> g_pipe_out{-1};

extern "C" void on_stop_signal(int signo) {
  const int saved_errno = errno;
  const int fd = g_pipe_out.load(std::memory_order_relaxed);
  if (fd >= 0) {
    const auto byte = static_cast<unsigned char>(signo);
    [[maybe_unused]] const ssize_t n = ::write(fd, &byte, 1);  // full pipe: already signalled
  }
  errno = saved_errno;
}

}  // namespace

stop_signals::stop_signals(asio::io_context& io, std::function<void(int)> on_signal)
    : on_signal_(std::move(on_signal)) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return;  // serving still works, without drain
  int expected = -1;
  if (!g_pipe_out.compare_exchange_strong(expected, fds[1])) {
    ::close(fds[0]);
    ::close(fds[1]);
    return;  // another serve_fds in this process owns the signals
  }
  pipe_out_ = fds[1];
  pipe_in_ = std::make_unique<asio::posix::stream_descriptor>(io, fds[0]);
  active_ = true;
  for (int i = 0; i < 2; ++i) {
    struct sigaction current {};
    if (::sigaction(k_signals[i], nullptr, &current) != 0 || current.sa_handler != SIG_DFL) {
      continue;  // the application chose its own disposition: leave it alone
    }
    struct sigaction catcher {};
    catcher.sa_handler = on_stop_signal;
    sigemptyset(&catcher.sa_mask);
    catcher.sa_flags = SA_RESTART;
    installed_[i] = ::sigaction(k_signals[i], &catcher, &previous_[i]) == 0;
  }
  read_next();
}

stop_signals::~stop_signals() {
  if (!active_) return;
  for (int i = 0; i < 2; ++i) {
    if (installed_[i]) ::sigaction(k_signals[i], &previous_[i], nullptr);
  }
  g_pipe_out.store(-1);
  pipe_in_.reset();
  ::close(pipe_out_);
}

void stop_signals::read_next() {
  pipe_in_->async_read_some(asio::buffer(&byte_, 1),
                            [this](const std::error_code& ec, std::size_t n) {
                              if (ec) return;  // cancelled at teardown
                              if (n == 1 && on_signal_) on_signal_(byte_);
                              read_next();
                            });
}

}  // namespace mcpcxx::stdio_detail
