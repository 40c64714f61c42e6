// detail::notification_bus: how one part of a server tells the others that something changed
// (a list, a resource, a task), without knowing who listens. Publishers (the registry, the
// engine's resource updates, the task manager) publish change events; subscribers (legacy
// sessions' list_changed and resources/updated, subscriptions/listen streams) receive them.
// The in-memory bus delivers within one process; a distributed one (the scale-out store)
// delivers to every replica, which is why an event carries data, never pointers.
//
// Contract (tests/cpp/seams/notification_bus_contract.hpp, which every implementation passes):
//   - publish() delivers the event to every subscriber of its kind registered before publish()
//     was called, exactly once each; subscribers of other kinds never see it.
//   - Events one thread publishes reach a given subscriber in the order they were published.
//   - After unsubscribe() returns, the handler is never called again and is destroyed, unless the
//     call comes from inside that handler (then it is not called again after it returns).
//   - wanted(kind, subject) is false only when no subscriber could want the event; a publisher
//     may then skip building it. A distributed bus that cannot know may always answer true.
//   - A handler that throws does not stop delivery to the others; the bus reports it to the
//     error callback given at construction (the server log).
// Thread-safety: every member may be called from any thread at once. The memory bus calls
// handlers on the publishing thread and never while holding its lock, so a handler may publish,
// subscribe or unsubscribe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "mcpcxx/json.hpp"

namespace mcpcxx::detail {

/// What kind of change an event reports.
enum class change_kind : std::uint8_t {
  list_changed,      ///< subject: the family ("tools", "resources", "prompts")
  resource_updated,  ///< subject: the resource URI
  task_status,       ///< subject: the task id; payload: the task as tasks/get shows it now
  task_control,      ///< subject: the task id; payload: a control (tasks/task_control.hpp)
};

/// How many change kinds there are (task_control is the last).
inline constexpr std::size_t k_change_kind_count =
    static_cast<std::size_t>(change_kind::task_control) + 1;

/// One change, as data (it may cross processes).
struct change_event {
  change_kind kind = change_kind::list_changed;
  std::string subject;
  json payload;  ///< null unless the kind says otherwise
  /// Set by a bus bridge on an event another replica published (never sent across processes).
  bool from_other_replica = false;
};

/// Publish/subscribe of change events (see the file comment for the contract).
class notification_bus {
 public:
  /// Receives one event; runs on the publishing thread (memory) or the bus's own thread.
  using handler = std::function<void(const change_event&)>;
  /// Whether a subscriber wants events of its kind about `subject` (checked by wanted()).
  using interest = std::function<bool(std::string_view subject)>;
  /// Names a subscription for unsubscribe(); never 0.
  using subscription = std::uint64_t;

  virtual ~notification_bus() = default;

  /// Delivers `e` to the subscribers of `e.kind`.
  virtual void publish(const change_event& e) = 0;
  /// Subscribes `h` to events of `kind`; `wants` (empty: everything) answers wanted().
  virtual subscription subscribe(change_kind kind, handler h, interest wants = {}) = 0;
  /// Ends subscription `s`; false when it was not (or no longer) subscribed.
  virtual bool unsubscribe(subscription s) = 0;
  /// False only when no subscriber could want an event of `kind` about `subject`.
  virtual bool wanted(change_kind kind, std::string_view subject) const = 0;
};

/// Called with what a handler threw (its what(), or "unknown exception").
using bus_error_callback = std::function<void(std::string_view what)>;

/// The in-process bus the server uses unless a distributed one is configured.
std::unique_ptr<notification_bus> make_memory_notification_bus(bus_error_callback on_error);

}  // namespace mcpcxx::detail
