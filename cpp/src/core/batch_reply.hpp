// detail::batch_reply: carries the replies of one 2025-03-26 batch to its sink.
// Every member that is a request, or that is invalid, settles exactly once: add() with its reply
// frame, or skip() when it ends without a reply (cancelled by notifications/cancelled or by
// shutdown). Cancelled members leave no entry; when no member has a reply (all cancelled),
// nothing is sent, as JSON-RPC 2.0 forbids an empty array reply.
// Two ways to the sink, chosen by the sink's type:
// - a batch_stream_sink (HTTP: the POST is answered with an SSE stream) gets each member's reply
//   as it completes, so a slow member holds nobody, and end_batch() after the last one; nothing
//   of the batch is kept here;
// - any other frame_sink (stdio) gets one JSON array, in settling order, when the last member
//   settled: a frame is one line there and other frames must not interleave inside it, so the
//   array cannot be written before it is complete. It is handed over as pieces
//   (frame_sink::send_pieces), never joined here.
// Either way the bytes are bounded by server_options::max_batch_reply_bytes: a member whose reply
// would cross it is replaced by P29 naming its id (small and fixed-size, so the bound holds
// within a few hundred bytes per member).
// Thread-safety: add() and skip() may be called from any thread; a stream sink's calls for one
// batch are serialized (made under this object's lock).
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "mcpcxx/jsonrpc.hpp"
#include "mcpcxx/session.hpp"

namespace mcpcxx::detail {

class session_state;

/// A reply sink that writes a batch's member replies one by one as they complete.
class batch_stream_sink {
 public:
  virtual ~batch_stream_sink() = default;
  /// One member's reply (one JSON-RPC response object). Called from any engine thread.
  virtual void send_member(std::string frame, const frame_info& info) = 0;
  /// Every member settled; `replied` is false when none had a reply (all were cancelled).
  virtual void end_batch(bool replied) = 0;
};

/// The reply of one batch.
class batch_reply {
 public:
  /// A batch expecting `members` settlements, sent to `target` through `session`, whose reply
  /// may hold at most `max_bytes` bytes of member replies.
  batch_reply(std::shared_ptr<session_state> session, std::shared_ptr<frame_sink> target,
              std::size_t members, std::size_t max_bytes);
  /// One member's reply frame; `id` is the member's id (used when the reply does not fit).
  void add(std::string frame, const std::optional<jsonrpc::request_id>& id = std::nullopt);
  /// One member settled without a reply.
  void skip();

 private:
  void settle(std::string* frame, const std::optional<jsonrpc::request_id>& id);
  void bound_locked(std::string& frame, const std::optional<jsonrpc::request_id>& id);
  void stream_locked(std::string* frame);

  std::shared_ptr<session_state> session_;
  std::shared_ptr<frame_sink> target_;
  batch_stream_sink* stream_;  ///< target_ as a stream sink, or null (lives as long as target_)
  std::size_t remaining_;
  std::size_t max_bytes_;
  std::size_t bytes_ = 0;
  bool replied_ = false;
  std::mutex mutex_;
  std::vector<std::string> pieces_;  ///< "[", reply, ",", reply, ... ("]" added at the end)
};

}  // namespace mcpcxx::detail
