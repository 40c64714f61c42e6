// detail::listener_registry: the open 2026-07-28 subscriptions/listen streams of one engine and
// the one way to publish a notification on them (list_changed, resources/updated, and whatever
// other features deliver through listen: notifications/tasks). docs/listen.md has the design.
//
// A listener owns its listen request's exchange until the stream ends. Every notification it
// writes carries _meta["io.modelcontextprotocol/subscriptionId"] = the listen request's id.
// Memory per listener is bounded: notifications wait in a queue of at most
// server_options::listener_queue entries while the sink holds more than k_listen_backlog_bytes
// unwritten (frame_sink::queued_bytes); a notification with a coalescing key replaces a queued
// one with the same key (list_changed per family, resources/updated per URI), so only distinct
// notifications count. A queue that overflows ends the stream gracefully.
//
// Ends of a stream:
//   client cancel (stdio notifications/cancelled, HTTP disconnect): the exchange is abandoned,
//     its token's callback removes the listener; nothing more is written.
//   end() (server stop, overflow): on a shared channel (stdio: the reply sink is the session's
//     sink) notifications/cancelled {requestId} and then the listen result; on a stream of its
//     own (HTTP POST) the result, after which the transport ends the stream (spec digest,
//     "Server-side end of a subscription").
//
// Thread-safety: every member may be called from any thread. The registry mutex is never held
// while writing; a listener's own mutex is held while it writes (so its frames keep their order
// and nothing follows its result). A token callback (client cancel) takes neither the
// listener's mutex nor a sink lock, so a transport may cancel while holding its own lock.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "mcpcxx/json.hpp"
#include "mcpcxx/jsonrpc.hpp"
#include "mcpcxx/server.hpp"
#include "mcpcxx/session.hpp"

#include "core/method_table.hpp"
#include "core/notification_bus.hpp"
#include "listen/legacy_broadcast.hpp"
#include "tasks/tasks.hpp"

namespace mcpcxx::detail {

class server_core;
class exchange;
class session_state;

/// The _meta key every notification of a listen stream carries.
inline constexpr std::string_view k_subscription_id_key = "io.modelcontextprotocol/subscriptionId";
/// While a listener's sink holds more unwritten bytes than this, its notifications queue.
inline constexpr std::size_t k_listen_backlog_bytes = std::size_t{256} * 1024;
/// How soon a listener whose notifications wait retries writing them.
inline constexpr std::chrono::milliseconds k_listen_retry{20};

/// What one listen asked for (params.notifications), as honored by the server.
struct listen_filter {
  bool tools_list_changed = false;
  bool prompts_list_changed = false;
  bool resources_list_changed = false;
  /// resourceSubscriptions, sorted, without duplicates.
  std::vector<std::string> resource_subscriptions;
  /// taskIds (tasks extension): the caller's tasks to follow, sorted, without duplicates.
  std::vector<std::string> task_ids;
  /// True when the request named taskIds (the acknowledgement then lists the honored ones).
  bool task_ids_requested = false;
  /// params.notifications as sent, so other features can read their own members.
  json requested = json::object();
  /// True when resourceSubscriptions names `uri`.
  bool watches(std::string_view uri) const;
  /// True when taskIds names `task_id`.
  bool follows_task(std::string_view task_id) const;
  /// The honored subset, as sent in notifications/subscriptions/acknowledged.
  json honored() const;
};

/// A notification to publish on listen streams.
struct listen_notification {
  std::string method;
  json params = json::object();  ///< the listener adds _meta subscriptionId
  /// Non-empty: replaces a notification with the same key still queued on a listener.
  std::string coalesce_key;
};

/// One open listen stream.
class listener : public std::enable_shared_from_this<listener> {
 public:
  /// `ex` is the listen request (admitted, not settled); `max_queued` bounds the queue.
  listener(std::shared_ptr<exchange> ex, listen_filter filter, std::size_t max_queued);

  const listen_filter& filter() const noexcept { return filter_; }
  /// The listen request's id (= the subscription id).
  const jsonrpc::request_id& id() const noexcept;
  /// The session whose request opened the stream.
  const session_state& session() const noexcept;
  /// True once the stream ended (removed from its registry).
  bool ended() const noexcept { return ended_.load(std::memory_order_acquire); }
  /// Notifications queued now (tests and metrics).
  std::size_t queued() const;

  /// Queues `n` and writes what the sink takes; false when the queue is full (the caller ends
  /// the listener).
  bool offer(const listen_notification& n);
  /// Writes queued notifications while the sink's backlog allows; schedules a retry otherwise.
  void flush();
  /// Marks the stream ended without writing (client cancel); nothing is written afterwards.
  void drop() noexcept { ended_.store(true, std::memory_order_release); }
  /// Ends the stream gracefully with `reason` (see the file comment).
  void end(std::string_view reason);
  /// `n` as a frame of this stream (its params' _meta carries the subscription id).
  std::string frame_of(const listen_notification& n) const;

 private:
  bool writable() const noexcept;
  bool shared_channel() const;
  void write_locked(std::string frame);
  void schedule_retry_locked();

  std::shared_ptr<exchange> ex_;
  listen_filter filter_;
  std::size_t max_queued_;
  json id_json_;
  mutable std::mutex mutex_;
  std::deque<std::pair<std::string, std::string>> queue_;  ///< (coalesce key, frame)
  bool retry_scheduled_ = false;
  std::atomic<bool> ended_{false};
};

/// subscriptions/listen (2026-07-28): params.notifications as asked (before honoring).
struct listen_params {
  listen_filter filter;
};
/// Decodes params.notifications (rows P39-P41, P44, P52).
decode_result decode(json& params, std::string_view method, listen_params& out);

/// `task` (a DetailedTask) as notifications/tasks on a listen stream, coalescing with a
/// still-queued one of the same task.
listen_notification task_status_notification(const std::string& task_id, json task);

/// The listeners of one server.
class listener_registry {
 public:
  /// `options` bound the streams; `tasks` holds the tasks a stream may follow (taskIds). Both
  /// must outlive the registry.
  listener_registry(const server_options& options, task_manager& tasks)
      : options_(options), tasks_(tasks) {}
  ~listener_registry() { unfollow(); }
  listener_registry(const listener_registry&) = delete;
  listener_registry& operator=(const listener_registry&) = delete;

  /// Opens a stream for `ex`: sends notifications/subscriptions/acknowledged {honored subset}
  /// first, then registers the listener and ties it to the request's cancellation. Returns null
  /// (nothing sent) when server_options::max_listeners streams are open or after close().
  std::shared_ptr<listener> open(const std::shared_ptr<exchange>& ex, listen_filter filter);
  /// Publishes `n` to every open listener for which `wants` is true; returns how many took it.
  /// A listener whose queue overflows is ended. Any thread; never blocks on a slow client.
  std::size_t publish(const listen_notification& n,
                      const std::function<bool(const listener&)>& wants);
  /// True when some open listener satisfies `wants`.
  bool any(const std::function<bool(const listener&)>& wants) const;
  /// Ends the listeners of `s` (nullptr: all) gracefully; returns how many ended.
  std::size_t end(const session_state* s, std::string_view reason);
  /// Ends every listener and refuses new ones (the engine stops): open() returns null.
  void close(std::string_view reason);
  /// True after close().
  bool closed() const;
  /// Removes `l` without writing (its request was cancelled); false when already removed.
  bool remove(const listener* l);
  /// Open listeners.
  std::size_t size() const;
  /// The tasks a stream may follow.
  task_manager& tasks() noexcept { return tasks_; }
  /// The stream limits.
  const server_options& options() const noexcept { return options_; }
  /// Delivers `bus`'s change events (list changes, resource updates, task status) to the
  /// listeners that follow them, until unfollow(); `bus` must outlive that (listen_feed.cpp).
  void follow(notification_bus& bus);
  /// Sets who may receive resources/updated (legacy_broadcast.hpp); before follow().
  void set_resource_gate(resource_gate gate) { gate_ = std::move(gate); }
  /// Stops following the bus (idempotent; close() calls it too).
  void unfollow();

 private:
  std::vector<std::shared_ptr<listener>> snapshot() const;

  const server_options& options_;
  task_manager& tasks_;
  notification_bus* bus_ = nullptr;
  resource_gate gate_;
  std::vector<notification_bus::subscription> subscriptions_;
  mutable std::mutex mutex_;
  std::unordered_map<const listener*, std::shared_ptr<listener>> open_;
  bool closed_ = false;
};

}  // namespace mcpcxx::detail
