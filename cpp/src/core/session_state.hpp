// detail::session_state: one session's protocol state (negotiated version, in-flight table) and
// the receive -> classify path; each request becomes an exchange handed to dispatch().
// Thread-safety: receive() runs on the transport thread; in-flight bookkeeping, cancellation and
// accessors are guarded by mutex_ and may be called from any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "mcpcxx/context.hpp"
#include "mcpcxx/session.hpp"

#include "core/outbound.hpp"
#include "observability/server_log.hpp"

namespace mcpcxx::detail {

class server_core;
class exchange;
struct reply_route;

/// Legacy handshake state.
struct legacy_state {
  std::string version;  ///< negotiated; empty before initialize
  bool initialized_notification = false;
  json client_capabilities = json::object();
  json client_info = nullptr;
  std::optional<mcpcxx::log_level> level;
  std::set<std::string> subscriptions;
};

/// Per-session state; owned by session handles and by in-flight work.
class session_state : public std::enable_shared_from_this<session_state> {
 public:
  session_state(std::shared_ptr<server_core> core, std::shared_ptr<frame_sink> sink,
                session_options options);

  /// Processes one message; `hint` is the era the transport already knows, `headers` the HTTP
  /// headers its requests' handlers may read (null: not HTTP).
  void receive(jsonrpc::message msg, const std::shared_ptr<frame_sink>& reply_to, era_hint hint,
               const std::shared_ptr<const json>& headers = nullptr);
  /// Abandons one in-flight request (no reply); unknown ids and initialize are ignored.
  void cancel(const jsonrpc::request_id& id, std::string_view reason);
  /// Graceful end (session::shutdown): requests not yet started are refused at once (P27a, or
  /// silently when the client is gone) and never run; running ones get `grace`.
  bool shutdown(std::chrono::milliseconds grace,
                leftover_requests rest = leftover_requests::cancel_silently,
                std::optional<std::chrono::milliseconds> cancelled_wait = std::nullopt);
  /// Refuses every in-flight request whose handler has not started (see shutdown()); returns
  /// how many.
  std::size_t refuse_unstarted(leftover_requests mode);
  void wait_idle() const;
  bool wait_idle_for(std::chrono::milliseconds timeout) const;
  std::size_t in_flight_count() const;

  server_core& core() noexcept { return *core_; }
  const session_options& options() const noexcept { return options_; }
  const std::shared_ptr<frame_sink>& sink() const noexcept { return sink_; }

  /// Copy of the legacy state.
  legacy_state legacy() const;
  /// The negotiated legacy version alone ("" before initialize); cheaper than legacy().
  std::string legacy_version() const;
  /// True once a legacy client sent initialize and notifications/initialized (list_changed goes
  /// only to such sessions).
  bool legacy_ready() const;
  /// Whether this session subscribed to `uri` (legacy resources/subscribe).
  bool subscribed(const std::string& uri) const;
  /// Mutates the legacy state under the lock, then tells the legacy observer (if any) outside it.
  template <class Fn>
  void update_legacy(Fn&& fn) {
    std::shared_ptr<const legacy_observer> observer;
    legacy_state now;
    {
      std::lock_guard lock(mutex_);
      fn(legacy_);
      if (!legacy_observer_) return;
      observer = legacy_observer_;
      now = legacy_;
    }
    (*observer)(now);
  }
  /// Receives a copy of the legacy state after each change (initialize, setLevel, subscribe...),
  /// on the thread that changed it; what it throws reaches that request (a shared session store
  /// that cannot record a change fails the request that made it).
  using legacy_observer = std::function<void(const legacy_state&)>;
  /// Installs `fn` (the HTTP transport mirrors the state into a shared session store).
  void observe_legacy(legacy_observer fn) {
    auto held = std::make_shared<const legacy_observer>(std::move(fn));
    std::lock_guard lock(mutex_);
    legacy_observer_ = std::move(held);
  }
  /// Replaces the legacy state without telling the observer (a session revived on a replica
  /// from the record another replica stored).
  void restore_legacy(legacy_state l) {
    std::lock_guard lock(mutex_);
    legacy_ = std::move(l);
  }
  /// A random id naming this session as the owner of its tasks (no principal).
  const std::string& task_scope() const noexcept { return task_scope_; }
  /// Sets the principal requests see and its identity (principal_identity(); "" for none).
  void set_principal(json p, std::string identity);
  json principal() const;
  /// The principal's stable identity: what owns its tasks and requestStates; "" without one.
  std::string identity() const;
  /// The requests this session sent to its client and still waits for.
  outbound_requests& outbound() noexcept { return outbound_; }

  /// Puts `ex` in the in-flight table; false when its id is already in flight.
  bool admit(const std::shared_ptr<exchange>& ex, bool cancellable);
  /// Removes a settled exchange from the in-flight table (called by the exchange once).
  void forget(const jsonrpc::request_id& id);
  /// An admitted request's handler returned (wakes wait_idle).
  void handler_returned();
  /// Sends a frame to `to` (or the session sink); sink failures are logged, never thrown.
  void send(const std::shared_ptr<frame_sink>& to, std::string frame, const frame_info& info);
  /// Sends a frame given as pieces (a batch reply) through frame_sink::send_pieces; as send().
  void send_pieces(const std::shared_ptr<frame_sink>& to, std::vector<std::string> pieces,
                   const frame_info& info);

 private:
  struct in_flight_entry {
    std::shared_ptr<exchange> ex;
    bool cancellable = true;
  };
  void receive_one(jsonrpc::message msg, const reply_route& route, era_hint hint,
                   const std::shared_ptr<const json>& headers);
  void receive_batch(jsonrpc::message msg, const std::shared_ptr<frame_sink>& target, era_hint hint,
                     const std::shared_ptr<const json>& headers);
  void receive_notification(const jsonrpc::message& msg);
  void receive_cancel(const json& params);
  void roots_changed();
  void receive_response(const jsonrpc::message& msg);

  std::shared_ptr<server_core> core_;
  std::shared_ptr<frame_sink> sink_;
  session_options options_;

  mutable std::mutex mutex_;
  mutable std::condition_variable idle_cv_;
  std::unordered_map<std::string, in_flight_entry> in_flight_;
  std::size_t running_ = 0;  ///< registered requests whose handler has not returned
  legacy_state legacy_;
  std::shared_ptr<const legacy_observer> legacy_observer_;
  json principal_;
  std::string identity_;
  std::string task_scope_ = server_log::new_reference() + server_log::new_reference();
  bool closed_ = false;
  outbound_requests outbound_;
};

}  // namespace mcpcxx::detail
