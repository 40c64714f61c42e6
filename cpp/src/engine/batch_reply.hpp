// detail::batch_reply: gathers the replies of one 2025-03-26 batch into one JSON array.
// Every member that is a request, or that is invalid, settles exactly once: add() with its reply
// frame, or skip() when it ends without a reply (cancelled by notifications/cancelled or by
// shutdown). When the last member settles, the array of the replies gathered so far is sent, in
// settling order. Cancelled members leave no entry; when no member has a reply (all cancelled),
// nothing is sent, as JSON-RPC 2.0 forbids an empty array reply.
// Thread-safety: add() and skip() may be called from any thread.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "mcpcxx/session.hpp"

namespace mcpcxx::detail {

class session_state;

/// The reply of one batch.
class batch_reply {
 public:
  /// A batch expecting `members` settlements, sent to `target` through `session`.
  batch_reply(std::shared_ptr<session_state> session, std::shared_ptr<frame_sink> target,
              std::size_t members);
  /// One member's reply frame.
  void add(std::string frame);
  /// One member settled without a reply.
  void skip();

 private:
  void settle(std::string* frame);

  std::shared_ptr<session_state> session_;
  std::shared_ptr<frame_sink> target_;
  std::size_t remaining_;
  std::mutex mutex_;
  std::vector<std::string> replies_;
};

}  // namespace mcpcxx::detail
