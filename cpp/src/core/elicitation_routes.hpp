// detail::elicitation_routes: which legacy session was asked for which URL-mode elicitation, so
// that server::notify_elicitation_complete reaches the client that started the flow and no other.
// Thread-safety: both members may be called from any thread (one mutex).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace mcpcxx::detail {

class session_state;

/// Elicitation id -> the session that was asked.
class elicitation_routes {
 public:
  /// Remembers that session `s` was asked for URL-mode elicitation `id`.
  void remember(const std::string& id, const std::shared_ptr<session_state>& s);
  /// Sends notifications/elicitation/complete to the session remembered for `id` (once); false
  /// when none is remembered or it ended.
  bool notify_complete(std::string_view id);

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, std::weak_ptr<session_state>> sessions_;
};

}  // namespace mcpcxx::detail
