// URL-mode elicitation ids and their sessions.
#include "core/elicitation_routes.hpp"

#include "core/session_state.hpp"

namespace mcpcxx::detail {

namespace {

// Past this many remembered ids, entries of sessions that ended are dropped on insert.
constexpr std::size_t k_prune_above = 1024;

}  // namespace

void elicitation_routes::remember(const std::string& id, const std::shared_ptr<session_state>& s) {
  std::lock_guard lock(mutex_);
  if (sessions_.size() > k_prune_above) {
    std::erase_if(sessions_, [](const auto& entry) { return entry.second.expired(); });
  }
  sessions_[id] = s;
}

bool elicitation_routes::notify_complete(std::string_view id) {
  std::shared_ptr<session_state> s;
  {
    std::lock_guard lock(mutex_);
    auto it = sessions_.find(std::string(id));
    if (it == sessions_.end()) return false;
    s = it->second.lock();
    sessions_.erase(it);
  }
  if (!s) return false;
  s->send(nullptr,
          jsonrpc::serialize_notification("notifications/elicitation/complete",
                                          {{"elicitationId", std::string(id)}}),
          {frame_kind::notification});
  return true;
}

}  // namespace mcpcxx::detail
