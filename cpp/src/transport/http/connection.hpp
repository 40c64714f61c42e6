// One accepted TCP connection: reads with llhttp, serves requests one at a time (pipelined bytes
// wait), writes responses and SSE chunks in order, enforces slow-client timeouts, and reports a
// client disconnect to the request in progress.
// Thread-safety: all state lives on the connection's strand; deliver() and the stop hooks may be
// called from any thread and post onto it.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>

#include <asio.hpp>

#include "transport/http/endpoint.hpp"
#include "transport/http/reply_channel.hpp"
#include "transport/http/request_parser.hpp"

namespace mcpcxx::http {

class connection : public reply_target, public std::enable_shared_from_this<connection> {
 public:
  using closed_fn = std::function<void(connection*)>;

  /// `socket` is served on a strand of `io` (the socket's own executor is not used).
  connection(asio::io_context& io, asio::ip::tcp::socket socket, transport_context& ctx,
             endpoint& ep, closed_fn on_closed);
  ~connection() override;

  /// Starts reading (call once, after the shared_ptr exists).
  void start();
  /// Graceful stop: finish the request in progress, then close; idle connections close now.
  void drain();
  /// Closes the socket now.
  void force_close();
  /// Closes once the queued bytes are written (stop: a 503 must reach the client).
  void close_when_flushed();
  /// Closes the connection if it is still idle (at the connection cap, to admit a new client).
  void evict();
  /// How cheap this connection is to evict: {0, t} keep-alive idle since t, {1, t} never sent a
  /// byte since t (accepted at t), {2, 0} busy. Any thread; a hint (the state may change).
  std::pair<int, std::int64_t> eviction_rank() const noexcept;

  void deliver(std::uint64_t request_no, std::string bytes, delivery kind,
               bool keep_alive) override;
  /// Bytes delivered and not yet written (the listen backlog check reads it from any thread).
  std::size_t unwritten_bytes() const override { return unwritten_.load(); }

 private:
  enum class phase { fresh, idle, head, body, busy, lingering };

  asio::ip::tcp::socket socket_;
  // A strand of the concrete io_context executor: every handler of the connection is bound to it,
  // and a type-erased (any_io_executor) strand costs an allocation and atomic reference counts
  // per bound handler (issue 11: about 8% of the server's CPU at 64 connections).
  asio::strand<asio::io_context::executor_type> strand_;
  asio::steady_timer timer_;
  asio::steady_timer write_timer_;  // runs while reply bytes are queued; restarts on progress
  std::atomic<int> rank_{1};        // eviction_rank().first, published for the acceptor
  std::atomic<std::int64_t> since_ns_{0};
  std::size_t front_sent_ = 0;
  std::atomic<std::size_t> unwritten_{0};  // delivered, not yet written (or dropped)  // bytes of
                                           // out_queue_.front() already written
  bool write_progress_ = false;
  bool write_timer_armed_ = false;
  bool peer_eof_ = false;  // the client half-closed (or closed) its sending side
  transport_context& ctx_;
  endpoint& endpoint_;
  closed_fn on_closed_;
  request_parser parser_;
  std::array<char, 16384> read_buf_{};
  std::string pending_;
  std::deque<std::string> out_queue_;
  std::vector<asio::const_buffer> write_bufs_;
  std::size_t writing_count_ = 0;
  bool reading_ = false;
  bool closed_ = false;
  bool close_after_write_ = false;
  bool draining_ = false;
  bool streaming_ = false;
  phase phase_ = phase::idle;
  std::uint64_t request_no_ = 0;
  // The phase timer is lazy: arm_timer() moves deadline_ and starts a wait only when none is
  // pending or the pending one would fire too late. A wait that fires before deadline_ waits
  // again. A keep-alive request then costs no timer operation (issue 11: cancelling and
  // re-arming per phase change ran two aborted handlers per request through the scheduler).
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
  bool wait_pending_ = false;
  std::uint64_t wait_gen_ = 0;  // identifies the pending wait; older completions are ignored
  std::shared_ptr<reply_channel> current_;

  void do_read();
  void on_read(const asio::error_code& ec, std::size_t n);
  void process();
  void dispatch_request();
  /// Answers a request the parser or a timer refused, then closes the connection.
  void reject_request(const problem& p);
  void enqueue(std::string bytes);
  /// enqueue() of bytes deliver() did not count (the connection's own): counts them first.
  void enqueue_own(std::string bytes);
  void do_write();
  void on_write(const asio::error_code& ec, std::size_t n);
  void arm_timer(phase p);
  void start_wait(std::chrono::steady_clock::time_point at);
  void on_wait(const asio::error_code& ec, std::uint64_t gen);
  void on_timer();
  void on_peer_eof();
  void watch_for_reset();
  void arm_write_timer();
  void on_write_timer();
  void close();
  void linger();
  void deliver_on_strand(std::uint64_t request_no, std::string bytes, delivery kind,
                         bool keep_alive);
};

}  // namespace mcpcxx::http
