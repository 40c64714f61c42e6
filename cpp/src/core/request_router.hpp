// detail::request_router: delivers a legacy client's message that settles a waiting request (a
// JSON-RPC response to a request the server sent it, or notifications/cancelled for a request
// it sent) to the process holding that client's session. With one process the transport finds
// the session in its own table and never needs the router; with several replicas a message may
// arrive at one that does not hold the session, which routes it to the one that does.
//
// Contract (tests/cpp/seams/request_router_contract.hpp, which every implementation passes):
//   - route(id, m) hands `m` to the inbox attached for session `id`, exactly once, and returns
//     true; false (nothing delivered) when no inbox is attached for `id` anywhere.
//   - attach() for an id already attached replaces its inbox (a session moved).
//   - After detach(id) returns, the detached inbox is never called again and is destroyed,
//     unless detach() runs inside that inbox.
//   - Messages routed by one thread to one session arrive in the order they were routed.
//   - origin() names this process among those that route to each other (empty when the router
//     reaches only this process); route_to(origin(), id, m) delivers to this process's inbox.
//   - route_to(o, id, m) hands `m` to the inbox process `o` has attached for `id`, whether or
//     not `o` holds the route of `id` now: several processes may hold copies of one session,
//     and an answer belongs to the copy that asked. Delivered at most once; returns false when
//     it could not be sent (unknown process, store down), not whether an inbox took it.
//   - broadcast(id, m) hands `m` to the inbox of `id` on every other process that has one
//     attached (for notifications/cancelled of a request running on any copy), at most once each.
// Thread-safety: every member may be called from any thread at once. The memory router calls an
// inbox on the routing thread, without holding its own lock.
#pragma once

#include <functional>
#include <memory>
#include <string>

namespace mcpcxx::detail {

/// Routes settling messages to the process that holds the session (see the file comment).
class request_router {
 public:
  /// Receives one routed message (the JSON-RPC message as sent).
  using inbox = std::function<void(std::string message)>;

  virtual ~request_router() = default;

  /// This process holds session `session_id`: messages routed to it arrive at `in`.
  virtual void attach(const std::string& session_id, inbox in) = 0;
  /// This process no longer holds `session_id`; false when it was not attached.
  virtual bool detach(const std::string& session_id) = 0;
  /// Delivers `message` to the holder of `session_id`; false when nobody holds it.
  virtual bool route(const std::string& session_id, std::string message) = 0;
  /// This process among the routing processes; empty for a single-process router.
  virtual std::string origin() const { return {}; }
  /// Delivers `message` to the inbox process `origin` attached for `session_id`; false when it
  /// could not be sent.
  virtual bool route_to(const std::string& origin, const std::string& session_id,
                        std::string message) = 0;
  /// Delivers `message` to the inbox of `session_id` on every other process that attached one.
  virtual void broadcast(const std::string& session_id, std::string message) = 0;
};

/// The single-process router (sessions attached in this process only).
std::unique_ptr<request_router> make_memory_request_router();

}  // namespace mcpcxx::detail
