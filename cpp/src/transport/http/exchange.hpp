// The engine's reply sink for one POSTed request: answers application/json when the final
// response comes first, or switches to text/event-stream when a notification precedes it. A
// 2025-03-26 batch is always answered with text/event-stream (every POST accepts it, row H8):
// one event per member reply, written as each member completes, the stream ending after the last.
// Thread-safety: send() may be called from any engine thread; writes are serialized inside.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "mcpcxx/jsonrpc.hpp"
#include "mcpcxx/session.hpp"

#include "core/batch_reply.hpp"
#include "transport/http/context.hpp"
#include "transport/http/reply_channel.hpp"
#include "transport/http/session_table.hpp"

namespace mcpcxx::http {

/// What an exchange needs to know about its request.
struct exchange_setup {
  bool modern = false;
  jsonrpc::request_id id;
  std::shared_ptr<http_session> legacy;  ///< the session (legacy), also set for initialize
  bool initialize = false;               ///< insert `legacy` into the table on success
  bool priming = false;                  ///< send a priming event when streaming (>= 2025-11-25)
};

/// One request's reply sink.
class post_exchange : public frame_sink,
                      public detail::batch_stream_sink,
                      public cuttable,
                      public std::enable_shared_from_this<post_exchange> {
 public:
  post_exchange(std::shared_ptr<transport_context> ctx, std::shared_ptr<reply_channel> out,
                exchange_setup setup, session engine_session);
  ~post_exchange() override;

  /// Registers with the context and the disconnect hook; call before session.receive().
  void begin();
  /// A frame without a row (a result or notification): answered 200.
  void send(std::string frame, frame_kind kind) override;
  /// The engine's path: the HTTP status comes from the frame's row (frame_info::situation).
  void send_frame(std::string frame, const frame_info& info) override;
  /// A batch member's reply: opens the stream if needed and writes it as one event.
  void send_member(std::string frame, const frame_info& info) override;
  /// The batch's last member settled: ends the stream (nothing streamed: as a cancelled request).
  void end_batch(bool replied) override;
  /// stop(): answers with row H18 (503, the request's id), or ends a stream with it.
  void cut_off() override;
  /// The connection's unwritten reply bytes (subscriptions/listen holds notifications back).
  std::size_t queued_bytes() const override { return out_->unwritten_bytes(); }

 private:
  std::shared_ptr<transport_context> ctx_;
  std::shared_ptr<reply_channel> out_;
  exchange_setup setup_;
  std::optional<session> session_;
  std::mutex lock_;
  bool streaming_ = false;
  bool done_ = false;
  std::uint64_t stream_ = 0;
  std::uint64_t flight_key_ = 0;

  response_headers headers() const;
  void start_stream_locked();
  void write_event_locked(std::string_view frame);
  void finish_locked();
  void client_gone();
  /// Inserts the initialized session; false when the table is full (a 503 was sent instead).
  bool register_session_locked(bool initialized);
  void deliver(std::string frame, frame_kind kind, int status, bool succeeded);
};

}  // namespace mcpcxx::http
