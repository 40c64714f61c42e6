// What the notification bus brings to listen streams: list changes, resource updates and task
// status, each to the listeners whose filter follows it.
#include "listen/listeners.hpp"

namespace mcpcxx::detail {

namespace {

// Whether listener `l` asked for the list_changed of `family`.
bool follows_family(const listener& l, std::string_view family) {
  const auto& f = l.filter();
  if (family == "tools") return f.tools_list_changed;
  if (family == "prompts") return f.prompts_list_changed;
  return f.resources_list_changed;
}

}  // namespace

void listener_registry::follow(notification_bus& bus) {
  bus_ = &bus;
  subscriptions_.push_back(bus.subscribe(
      change_kind::list_changed,
      [this](const change_event& e) {
        const std::string method = "notifications/" + e.subject + "/list_changed";
        publish({method, json::object(), method},
                [&e](const listener& l) { return follows_family(l, e.subject); });
      },
      [this](std::string_view family) {
        return any([family](const listener& l) { return follows_family(l, family); });
      }));
  subscriptions_.push_back(bus.subscribe(
      change_kind::resource_updated,
      [this](const change_event& e) {
        publish({"notifications/resources/updated",
                 {{"uri", e.subject}},
                 "resources/updated " + e.subject},
                [this, &e](const listener& l) {
                  return l.filter().watches(e.subject) && (!gate_ || gate_(l.session(), e.subject));
                });
      },
      [this](std::string_view uri) {
        return any([uri](const listener& l) { return l.filter().watches(uri); });
      }));
  subscriptions_.push_back(bus.subscribe(
      change_kind::task_status,
      [this](const change_event& e) {
        publish(task_status_notification(e.subject, e.payload),
                [&e](const listener& l) { return l.filter().follows_task(e.subject); });
      },
      [this](std::string_view id) {
        return any([id](const listener& l) { return l.filter().follows_task(id); });
      }));
}

void listener_registry::unfollow() {
  if (bus_ == nullptr) return;
  for (const auto s : subscriptions_) bus_->unsubscribe(s);
  subscriptions_.clear();
  bus_ = nullptr;
}

}  // namespace mcpcxx::detail
