// detail::list_announcer: turns catalog changes into list_changed events on the notification bus,
// at most two per family per k_list_changed_window: at once when the family's last announcement
// is older than the window, else once at the end of that window. A change nobody follows (the
// bus says no subscriber wants it) schedules nothing: a client that comes later reads the new list.
// Thread-safety: announce() may be called from any thread; the window state has one mutex.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/deadline_scheduler.hpp"
#include "core/notification_bus.hpp"

namespace mcpcxx::detail {

/// Registration changes of one family closer together than this share a list_changed.
inline constexpr std::chrono::milliseconds k_list_changed_window{20};

/// Rate-limited list_changed publisher (see the file comment).
class list_announcer : public std::enable_shared_from_this<list_announcer> {
 public:
  /// `bus` and `deadlines` must outlive every scheduled announcement (the engine stops the
  /// deadlines before it destroys them).
  list_announcer(notification_bus& bus, deadline_scheduler& deadlines);

  /// Announces that the entries of `family` ("tools", "resources", "prompts") changed.
  void announce(std::string_view family);

 private:
  struct window {
    std::chrono::steady_clock::time_point last{};
    bool trailing = false;  ///< one announcement is scheduled at the end of the window
  };
  void schedule_trailing(const std::string& family, std::chrono::steady_clock::time_point at);
  void publish(const std::string& family);

  notification_bus& bus_;
  deadline_scheduler& deadlines_;
  std::mutex mutex_;
  std::unordered_map<std::string, window> windows_;
};

}  // namespace mcpcxx::detail
