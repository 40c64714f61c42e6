// Which legacy session was asked for which URL-mode elicitation, so that
// server::notify_elicitation_complete reaches the client that started the flow and no other.
#include "engine/engine.hpp"
#include "engine/session_state.hpp"

namespace mcpcxx::detail {

namespace {

// Past this many remembered ids, entries of sessions that ended are dropped on insert.
constexpr std::size_t k_prune_above = 1024;

}  // namespace

void engine::remember_elicitation(const std::string& id, const std::shared_ptr<session_state>& s) {
  std::lock_guard lock(elicitations_mutex_);
  if (elicitations_.size() > k_prune_above) {
    std::erase_if(elicitations_, [](const auto& entry) { return entry.second.expired(); });
  }
  elicitations_[id] = s;
}

bool engine::notify_elicitation_complete(std::string_view id) {
  std::shared_ptr<session_state> s;
  {
    std::lock_guard lock(elicitations_mutex_);
    auto it = elicitations_.find(std::string(id));
    if (it == elicitations_.end()) return false;
    s = it->second.lock();
    elicitations_.erase(it);
  }
  if (!s) return false;
  s->send(nullptr,
          jsonrpc::serialize_notification("notifications/elicitation/complete",
                                          {{"elicitationId", std::string(id)}}),
          {frame_kind::notification});
  return true;
}

}  // namespace mcpcxx::detail
