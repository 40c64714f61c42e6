// serve_stdio / serve_fds: wires a line_reader and a frame_writer around one session, then
// orchestrates the end of serving (stdin EOF -> drain -> cancel -> flush; SIGTERM/SIGINT -> stop
// reading -> drain -> answer the rest with P27 -> flush; stdout EPIPE -> stop).
#include <algorithm>
#include <condition_variable>
#include <csignal>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unistd.h>

#include <asio/executor_work_guard.hpp>

#include "mcpcxx/stdio.hpp"

#include "transport/stdio_fds.hpp"
#include "transport/stdio_reader.hpp"
#include "transport/stdio_signals.hpp"
#include "transport/stdio_writer.hpp"

namespace mcpcxx {

namespace {

using namespace std::chrono_literals;
using stdio_detail::frame_writer;
using stdio_detail::line_reader;
using stdio_detail::log_stdio;
using stdio_detail::writer_sink;

/// How long cancelled handlers get to return, and the floor of the final flush.
constexpr std::chrono::milliseconds k_cancel_grace = 1000ms;

/// Where serving stands; written by io threads, read by the serving thread.
class serve_state {
 public:
  void end_input(const std::error_code& ec) {
    set([&] {
      input_ended_ = true;
      read_error_ = ec;
    });
  }
  void end_output(const std::error_code& ec) {
    set([&] { write_error_ = ec; });
  }
  /// A stop signal arrived (the first one counts).
  void stop_by_signal(int signo) {
    set([&] {
      if (signal_ == 0) signal_ = signo;
    });
  }
  /// The stop signal received, or 0.
  int stop_signal() const {
    std::lock_guard lock(mutex_);
    return signal_;
  }
  /// Blocks until input ended, output failed or a stop signal arrived.
  void wait_for_end() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return input_ended_ || write_error_ || signal_ != 0; });
  }
  /// Waits up to `step` for an output failure; returns true when output failed.
  bool output_failed_within(std::chrono::milliseconds step) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, step, [&] { return static_cast<bool>(write_error_); });
  }
  std::error_code write_error() const {
    std::lock_guard lock(mutex_);
    return write_error_;
  }
  std::error_code read_error() const {
    std::lock_guard lock(mutex_);
    return read_error_;
  }

 private:
  template <class F>
  void set(F&& change) {
    {
      std::lock_guard lock(mutex_);
      change();
    }
    cv_.notify_all();
  }

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  bool input_ended_ = false;
  int signal_ = 0;
  std::error_code read_error_;
  std::error_code write_error_;
};

/// Owns the io_context and its threads; the destructor stops the threads before anything that
/// handlers touch is destroyed.
class io_runner {
 public:
  explicit io_runner(std::size_t threads) : guard_(asio::make_work_guard(io_)), threads_(threads) {}
  ~io_runner() { stop(); }
  io_runner(const io_runner&) = delete;
  io_runner& operator=(const io_runner&) = delete;

  asio::io_context& io() noexcept { return io_; }
  void run() {
    for (auto& t : threads_) t = std::thread([this] { io_.run(); });
  }
  void stop() {
    guard_.reset();
    io_.stop();
    for (auto& t : threads_) {
      if (t.joinable()) t.join();
    }
  }

 private:
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> guard_;
  std::vector<std::thread> threads_;
};

/// Waits up to `limit` for the session to have no request running. With `until_output_fails`
/// it stops early (returning false) when output fails, since no reply could be delivered.
bool wait_until_idle(session& s, serve_state& state, std::chrono::milliseconds limit,
                     bool until_output_fails) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  std::chrono::milliseconds step = 1ms;
  while (s.in_flight() > 0 && std::chrono::steady_clock::now() < deadline) {
    if (!until_output_fails) {
      std::this_thread::sleep_for(step);
    } else if (state.output_failed_within(step)) {
      return false;
    }
    step = std::min(step * 2, std::chrono::milliseconds(10));
  }
  return s.in_flight() == 0;
}

std::string describe(const std::error_code& ec) {
  return ec.message() + " (" + std::to_string(ec.value()) + ")";
}

/// After a stop signal: reading has stopped; in-flight requests get the drain grace, the rest
/// are answered with P27 and cancelled, and their handlers get a moment to return.
void drain_after_signal(session& s, serve_state& state, const stdio_options& options,
                        const line_reader::log_writer& log) {
  const char* name = state.stop_signal() == SIGINT ? "SIGINT" : "SIGTERM";
  log_stdio(log, "info",
            std::string(name) + " received: stopped reading stdin; draining " +
                std::to_string(s.in_flight()) + " request(s) for up to " +
                std::to_string(options.drain_grace.count()) + " ms");
  // session::shutdown refuses what never started (P27a) at once, waits the grace, answers what
  // still runs with P27 (naming the grace) and cancels it, then waits k_cancel_grace for those
  // handlers to return: the stop's bound is drain_grace + k_cancel_grace.
  if (s.shutdown(options.drain_grace, leftover_requests::answer_stopped, k_cancel_grace)) return;
  log_stdio(log, "warning",
            std::to_string(s.in_flight()) + " cancelled handler(s) still running; returning");
}

/// After input ended: lets in-flight requests finish for the drain grace, then cancels the rest
/// (session::shutdown with no further wait) and gives their handlers a moment to return.
void drain(session& s, serve_state& state, const stdio_options& options,
           const line_reader::log_writer& log) {
  if (!state.write_error() && wait_until_idle(s, state, options.drain_grace, true)) {
    s.shutdown(0ms);  // nothing is running; marks the session closed to late frames
    return;
  }
  if (!state.write_error()) {
    log_stdio(log, "warning",
              "stdin closed; cancelling " + std::to_string(s.in_flight()) +
                  " request(s) still running after the drain grace of " +
                  std::to_string(options.drain_grace.count()) + " ms");
  }
  s.shutdown(0ms);
  if (!wait_until_idle(s, state, k_cancel_grace, false)) {
    log_stdio(log, "warning",
              std::to_string(s.in_flight()) + " cancelled handler(s) still running; returning");
  }
}

/// Runs once the read chain ended or a write failed; returns the exit status.
int finish_serving(session& s, frame_writer& writer, serve_state& state,
                   const stdio_options& options, const line_reader::log_writer& log) {
  state.wait_for_end();
  if (state.stop_signal() != 0 && !state.write_error()) {
    drain_after_signal(s, state, options, log);
  } else {
    drain(s, state, options, log);
  }
  const bool flushed =
      !state.write_error() && writer.flush(std::max(options.drain_grace, k_cancel_grace));
  if (const auto ec = state.write_error()) {
    log_stdio(log, "warning", "writing to stdout failed: " + describe(ec) + "; stopped serving");
    return 1;
  }
  if (!flushed) {
    log_stdio(log, "warning", "stdout did not accept the last replies in time; stopped serving");
    return 1;
  }
  if (state.stop_signal() != 0) return 0;  // a drained stop is a clean end
  if (const auto ec = state.read_error()) {
    log_stdio(log, "warning", "reading stdin failed: " + describe(ec) + "; stopped serving");
    return 1;
  }
  return 0;
}

/// Runs a callable when the scope ends, also on exceptions.
class scope_exit {
 public:
  explicit scope_exit(std::function<void()> f) : f_(std::move(f)) {}
  ~scope_exit() { f_(); }
  scope_exit(const scope_exit&) = delete;
  scope_exit& operator=(const scope_exit&) = delete;

 private:
  std::function<void()> f_;
};

int run_transport(server& srv, int in_fd, int out_fd, const stdio_options& options) {
  const line_reader::log_writer log = srv.options().log_writer;
  serve_state state;
  // Two threads, so a slow receive() never delays queued writes; inline dispatch runs only quick
  // handlers there by contract, and one thread saves the wake-up of the second per request.
  io_runner runner(options.inline_dispatch ? 1 : 2);
  auto writer = std::make_shared<frame_writer>(runner.io(), out_fd);
  std::unique_ptr<line_reader> reader;
  std::unique_ptr<stdio_detail::stop_signals> signals;
  // Threads stop before the descriptors go, and both go before the io_context; the writer itself
  // may outlive this call inside the session's sink, closed.
  const scope_exit teardown([&] {
    writer->close();
    runner.stop();
    signals.reset();
    if (reader) reader->release();
    writer->release();
  });
  writer->on_failure([&state](const std::error_code& ec) { state.end_output(ec); });
  session s = srv.open_session(std::make_shared<writer_sink>(writer),
                               session_options{.inline_dispatch = options.inline_dispatch});
  reader = std::make_unique<line_reader>(
      runner.io(), in_fd, s, writer, srv.options().limits,
      [&state](const std::error_code& ec) { state.end_input(ec); }, log);
  reader->set_outbound_bound(options.max_outbound_bytes);
  reader->set_request_poll(options.request_poll);
  if (options.handle_signals) {
    signals = std::make_unique<stdio_detail::stop_signals>(runner.io(),
                                                           [&state, r = reader.get()](int signo) {
                                                             r->stop();
                                                             state.stop_by_signal(signo);
                                                           });
  }
  reader->start();
  runner.run();
  return finish_serving(s, *writer, state, options, log);
}

}  // namespace

int serve_fds(server& srv, int in_fd, int out_fd, const stdio_options& options) {
  if (options.request_poll < std::chrono::microseconds(0) ||
      options.request_poll > k_max_request_poll) {
    throw std::invalid_argument(
        "stdio_options.request_poll must be between 0 and 10 ms: longer polling would hold a CPU "
        "after every reply; 0 turns polling off");
  }
  stdio_detail::ignore_sigpipe();
  const stdio_detail::stdout_guard guard(out_fd, options.protect_stdout);
  const stdio_detail::fd_flags_guard in_flags(in_fd);
  const stdio_detail::fd_flags_guard out_flags(guard.stream_fd());
  try {
    return run_transport(srv, in_fd, guard.stream_fd(), options);
  } catch (const std::exception& e) {
    log_stdio(srv.options().log_writer, "error",
              std::string("stdio transport failed: ") + e.what());
    return 2;
  }
}

int serve_stdio(server& srv, const stdio_options& options) {
  return serve_fds(srv, STDIN_FILENO, STDOUT_FILENO, options);
}

}  // namespace mcpcxx
