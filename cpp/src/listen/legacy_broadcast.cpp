// Legacy sessions' list_changed and resources/updated, delivered from the notification bus.
#include "listen/legacy_broadcast.hpp"

#include <algorithm>

#include "core/session_state.hpp"

namespace mcpcxx::detail {

legacy_broadcast::legacy_broadcast(notification_bus& bus) : bus_(bus) {
  subscriptions_.push_back(bus_.subscribe(
      change_kind::list_changed, [this](const change_event& e) { send_list_changed(e); },
      [this](std::string_view) {
        const auto sessions = live();
        return std::any_of(sessions.begin(), sessions.end(),
                           [](const auto& s) { return s->legacy_ready(); });
      }));
  subscriptions_.push_back(bus_.subscribe(
      change_kind::resource_updated, [this](const change_event& e) { send_resource_updated(e); },
      [this](std::string_view uri) {
        const auto sessions = live();
        const std::string key(uri);
        return std::any_of(sessions.begin(), sessions.end(),
                           [&key](const auto& s) { return s->subscribed(key); });
      }));
}

legacy_broadcast::~legacy_broadcast() { close(); }

void legacy_broadcast::close() {
  for (const auto s : subscriptions_) bus_.unsubscribe(s);
  subscriptions_.clear();
}

void legacy_broadcast::track(const std::shared_ptr<session_state>& s) {
  std::lock_guard lock(mutex_);
  std::erase_if(sessions_, [](const auto& w) { return w.expired(); });
  sessions_.push_back(s);
}

std::size_t legacy_broadcast::open_count() const {
  std::lock_guard lock(mutex_);
  return static_cast<std::size_t>(std::count_if(sessions_.begin(), sessions_.end(),
                                                [](const auto& w) { return !w.expired(); }));
}

std::vector<std::shared_ptr<session_state>> legacy_broadcast::live() const {
  std::vector<std::shared_ptr<session_state>> out;
  std::lock_guard lock(mutex_);
  out.reserve(sessions_.size());
  for (const auto& w : sessions_) {
    if (auto s = w.lock()) out.push_back(std::move(s));
  }
  return out;
}

void legacy_broadcast::send_list_changed(const change_event& e) const {
  const std::string frame =
      jsonrpc::serialize_notification("notifications/" + e.subject + "/list_changed", nullptr);
  for (const auto& s : live()) {
    if (s->legacy_ready()) {
      s->send(nullptr, frame, {.kind = frame_kind::notification, .broadcast = true});
    }
  }
}

void legacy_broadcast::send_resource_updated(const change_event& e) const {
  const std::string frame =
      jsonrpc::serialize_notification("notifications/resources/updated", {{"uri", e.subject}});
  for (const auto& s : live()) {
    // Checked again when sent: scopes or a rule may have come since the subscription.
    if (s->subscribed(e.subject) && (!gate_ || gate_(*s, e.subject))) {
      s->send(nullptr, frame, {.kind = frame_kind::notification, .broadcast = true});
    }
  }
}

}  // namespace mcpcxx::detail
