// detail::session_state: one session's protocol state (era, negotiated version, in-flight
// requests) and the receive -> classify -> route path.
// Thread-safety: receive() runs on the transport thread; in-flight bookkeeping, cancellation and
// accessors are guarded by mutex_ and may be called from any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include "mcpcxx/context.hpp"
#include "mcpcxx/session.hpp"

namespace mcpcxx::detail {

class engine;
struct call;

/// One request between registration and its reply.
struct in_flight {
  jsonrpc::request_id id;
  cancellation_token token;
  std::atomic<bool> finished{false};  ///< set by whoever sends (or suppresses) the reply
  bool cancellable = true;
};

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
  session_state(std::shared_ptr<engine> eng, std::shared_ptr<frame_sink> sink,
                session_options options);

  void receive(jsonrpc::message msg, const std::shared_ptr<frame_sink>& reply_to);
  void cancel(const jsonrpc::request_id& id, std::string_view reason);
  bool shutdown(std::chrono::milliseconds grace);
  void wait_idle() const;
  bool wait_idle_for(std::chrono::milliseconds timeout) const;
  std::size_t in_flight_count() const;

  engine& eng() noexcept { return *engine_; }
  const session_options& options() const noexcept { return options_; }
  const std::shared_ptr<frame_sink>& sink() const noexcept { return sink_; }

  /// Copy of the legacy state.
  legacy_state legacy() const;
  /// The negotiated legacy version alone ("" before initialize); cheaper than legacy().
  std::string legacy_version() const;
  /// Whether this session subscribed to `uri` (legacy resources/subscribe).
  bool subscribed(const std::string& uri) const;
  /// Mutates the legacy state under the lock.
  template <class Fn>
  void update_legacy(Fn&& fn) {
    std::lock_guard lock(mutex_);
    fn(legacy_);
  }
  void set_principal(json p);
  json principal() const;

  /// Registers a request; nullptr when its id is already in flight.
  std::shared_ptr<in_flight> begin(const jsonrpc::request_id& id, bool cancellable);
  /// Unregisters a finished request.
  void end(const jsonrpc::request_id& id);
  /// Marks one registered request's handler as returned (wakes wait_idle).
  void finished_running();
  /// Sends a frame to `to` (or the session sink) unless the session is closed.
  void send(const std::shared_ptr<frame_sink>& to, std::string frame, frame_kind kind);

 private:
  void receive_batch(jsonrpc::message msg, const std::shared_ptr<frame_sink>& reply_to);
  void receive_notification(const jsonrpc::message& msg);
  void receive_request(jsonrpc::message msg, const std::shared_ptr<frame_sink>& reply_to);

  std::shared_ptr<engine> engine_;
  std::shared_ptr<frame_sink> sink_;
  session_options options_;

  mutable std::mutex mutex_;
  mutable std::condition_variable idle_cv_;
  std::unordered_map<std::string, std::shared_ptr<in_flight>> in_flight_;
  std::size_t running_ = 0;  ///< registered requests whose handler has not returned
  legacy_state legacy_;
  json principal_;
  bool closed_ = false;
};

}  // namespace mcpcxx::detail
