// detail::legacy_broadcast: the legacy sessions of one server and what the notification bus
// tells them: notifications/<family>/list_changed to every initialized session, and
// notifications/resources/updated to the sessions subscribed to the URI (resources/subscribe).
// Thread-safety: every member may be called from any thread; the session list has one mutex,
// never held while sending.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/notification_bus.hpp"

namespace mcpcxx::detail {

class session_state;

/// Whether the caller of session `s` may receive the updates of resource `uri` (its scopes and
/// principal rule); unset: everyone.
using resource_gate = std::function<bool(const session_state& s, const std::string& uri)>;

/// Legacy sessions as subscribers of the bus (see the file comment).
class legacy_broadcast {
 public:
  /// Subscribes to `bus`, which must outlive this object (or close() must run first).
  explicit legacy_broadcast(notification_bus& bus);
  ~legacy_broadcast();
  legacy_broadcast(const legacy_broadcast&) = delete;
  legacy_broadcast& operator=(const legacy_broadcast&) = delete;

  /// Tracks session `s` (held weakly) for broadcasts.
  void track(const std::shared_ptr<session_state>& s);
  /// Sessions still alive.
  std::size_t open_count() const;
  /// Unsubscribes from the bus (idempotent).
  void close();
  /// Sets who may receive resources/updated; before sessions are tracked.
  void set_resource_gate(resource_gate gate) { gate_ = std::move(gate); }

 private:
  std::vector<std::shared_ptr<session_state>> live() const;
  void send_list_changed(const change_event& e) const;
  void send_resource_updated(const change_event& e) const;

  notification_bus& bus_;
  resource_gate gate_;
  std::vector<notification_bus::subscription> subscriptions_;
  mutable std::mutex mutex_;
  std::vector<std::weak_ptr<session_state>> sessions_;
};

}  // namespace mcpcxx::detail
