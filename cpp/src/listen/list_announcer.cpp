// list_changed announcements, coalesced per family and window.
#include "listen/list_announcer.hpp"

namespace mcpcxx::detail {

list_announcer::list_announcer(notification_bus& bus, deadline_scheduler& deadlines)
    : bus_(bus), deadlines_(deadlines) {}

void list_announcer::announce(std::string_view family) {
  const auto now = std::chrono::steady_clock::now();
  std::string name(family);
  if (!bus_.wanted(change_kind::list_changed, name)) return;
  {
    std::lock_guard lock(mutex_);
    window& w = windows_[name];
    if (w.trailing) return;  // the scheduled announcement covers this change too
    if (now - w.last < k_list_changed_window) {
      w.trailing = true;
      schedule_trailing(name, w.last + k_list_changed_window);
      return;
    }
    w.last = now;
  }
  publish(name);
}

void list_announcer::schedule_trailing(const std::string& family,
                                       std::chrono::steady_clock::time_point at) {
  std::weak_ptr<list_announcer> weak = weak_from_this();
  deadlines_.schedule(at, [weak, family] {
    auto self = weak.lock();
    if (!self) return;
    {
      std::lock_guard lock(self->mutex_);
      window& t = self->windows_[family];
      t.trailing = false;
      t.last = std::chrono::steady_clock::now();
    }
    self->publish(family);
  });
}

void list_announcer::publish(const std::string& family) {
  bus_.publish({change_kind::list_changed, family, nullptr});
}

}  // namespace mcpcxx::detail
