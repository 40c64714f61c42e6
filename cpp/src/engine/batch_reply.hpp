// detail::batch_reply: gathers the replies of one 2025-03-26 batch into one JSON array.
// Every member that is a request, or that is invalid, settles exactly once: add() with its reply
// frame, or skip() when it ends without a reply (cancelled by notifications/cancelled or by
// shutdown). When the last member settles, the array of the replies gathered so far is sent, in
// settling order. Cancelled members leave no entry; when no member has a reply (all cancelled),
// nothing is sent, as JSON-RPC 2.0 forbids an empty array reply.
// The reply is bounded by server_options::max_batch_reply_bytes: a member whose reply would
// cross it is replaced by P29 naming its id (small and fixed-size, so the bound holds within a
// few hundred bytes per member). The replies are handed to the sink as pieces
// (frame_sink::send_pieces), never joined here.
// Thread-safety: add() and skip() may be called from any thread.
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

  std::shared_ptr<session_state> session_;
  std::shared_ptr<frame_sink> target_;
  std::size_t remaining_;
  std::size_t max_bytes_;
  std::size_t bytes_ = 0;
  std::mutex mutex_;
  std::vector<std::string> pieces_;  ///< "[", reply, ",", reply, ... ("]" added at the end)
};

}  // namespace mcpcxx::detail
