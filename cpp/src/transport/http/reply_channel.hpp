// The write side of one HTTP request, usable from any thread: a complete response, or a chunked
// SSE stream of events. The connection behind it serializes the bytes on its own strand.
// Thread-safety: every member may be called from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "transport/http/wire.hpp"

namespace mcpcxx::http {

/// What a delivered piece of bytes is.
enum class delivery { head_of_stream, data, final };

/// Implemented by the connection: queues bytes for request number `request_no`.
class reply_target {
 public:
  virtual ~reply_target() = default;
  /// Queues `bytes`; `final` ends the request (the connection closes after it unless keep_alive).
  virtual void deliver(std::uint64_t request_no, std::string bytes, delivery kind,
                       bool keep_alive) = 0;
  /// Bytes delivered and not yet written to the socket (0 when unknown).
  virtual std::size_t unwritten_bytes() const { return 0; }
};

/// One request's reply.
class reply_channel {
 public:
  reply_channel(std::shared_ptr<reply_target> target, std::uint64_t request_no, bool keep_alive);

  /// Sends a complete response and ends the request. Ignored after the final write.
  void send(const response& r);
  /// Starts a chunked stream with `status` (Content-Type text/event-stream).
  void open_stream(int status, const response_headers& headers);
  /// Writes one SSE event (or comment) as a chunk.
  void write(std::string_view event_text);
  /// Ends the stream and the request.
  void end_stream();
  /// Runs `fn` once if the client disconnects before the final write (at once if it already did).
  void on_disconnect(std::function<void()> fn);
  /// Runs `fn` once when the reply is over either way: its final write, or the client leaving
  /// (at once if it already is). Only one such callback is kept.
  void on_end(std::function<void()> fn);
  /// Called by the connection when the client went away.
  void disconnected();
  /// True once the client disconnected.
  bool closed() const;
  /// Bytes of this connection's replies not yet written to the socket (0 once disconnected).
  std::size_t unwritten_bytes() const;
  /// True once the final write was made.
  bool finished() const;
  /// True when the HTTP keep-alive rules let the connection stay open after this reply.
  bool keep_alive() const noexcept { return keep_alive_; }

 private:
  mutable std::mutex lock_;
  std::shared_ptr<reply_target> target_;
  std::uint64_t request_no_;
  bool keep_alive_;
  bool streaming_ = false;
  bool final_ = false;
  bool closed_ = false;
  std::function<void()> on_disconnect_;
  std::function<void()> on_end_;
};

}  // namespace mcpcxx::http
