// The session store of legacy (2025-xx) HTTP sessions: the record of each session that a store
// shared by several processes could hold (issue 30), as opposed to what stays in the process
// serving it (the live engine session, its GET stream and resumed channels: http_session, kept
// by session_table). A record is what another process needs to serve the session: its id, the
// principal that created it, the negotiated revision, the client's capabilities and info, the
// state the client set since (log level, resource subscriptions) and when it was last used.
//
// Contract (tests/cpp/http/session_store_contract.hpp checks it for every implementation):
// - At most `max_sessions` records (the store's construction parameter); insert() beyond that,
//   or of an id already present, is refused and changes nothing.
// - Times are nanoseconds of the caller's clock; the store only compares them. The transport
//   reads its clock from clock_ns(): this process's steady clock, or for a store shared by
//   several processes a clock they agree on (the wall clock). touch() never moves a record's
//   last use backwards.
// - take_expired(cutoff, active) removes exactly the records last used at or before `cutoff`
//   for which `active(id)` is false. A shared store can only ask its own process: the transport
//   keeps the records of its active sessions used (touch) so that another process spares them.
// - update() changes the client state of a record (log level, subscriptions) and nothing else.
// Failure: the in-memory store never fails; a shared store throws detail::store_unavailable
// (core/store_unavailable.hpp) from any operation when its store does not answer in time.
// Thread-safety: every operation may be called from any thread at the same time; each is atomic.
// take_expired() calls `active` with the store's lock held: it must not call back into the store.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mcpcxx::http {

/// What a session store keeps of one legacy session.
struct session_record {
  std::string id;                   ///< Mcp-Session-Id (32 hex characters)
  std::string principal_key;        ///< principal_identity() of the creator; "" without auth
  std::string protocol_version;     ///< the revision initialize negotiated
  std::string client_capabilities;  ///< initialize's params.capabilities, serialized JSON
  std::int64_t last_used_ns = 0;    ///< the last use, on the caller's clock
  std::string client_info;          ///< initialize's params.clientInfo, serialized JSON ("": none)
  std::string log_level;            ///< set by logging/setLevel ("": never set)
  std::vector<std::string> subscriptions;  ///< URIs of resources/subscribe, sorted, unique
};

/// A change of a record's client state (update()).
struct session_state_change {
  std::optional<std::string> log_level;   ///< the new level, when it changed
  std::vector<std::string> subscribed;    ///< URIs added to the subscriptions
  std::vector<std::string> unsubscribed;  ///< URIs removed from them
};

/// Says whether the session `id` has something in progress (expiry spares it).
using session_active_fn = std::function<bool(const std::string& id)>;

/// Where legacy session records live (the in-memory default: memory_session_store.hpp).
class session_store {
 public:
  virtual ~session_store() = default;

  /// Stores `r`; false (nothing stored) when the store is full or holds `r.id` already.
  virtual bool insert(session_record r) = 0;
  /// The record of `id`, or nullopt.
  virtual std::optional<session_record> find(const std::string& id) const = 0;
  /// Sets the last use of `id` to `now_ns` unless it is later already; false when absent.
  virtual bool touch(const std::string& id, std::int64_t now_ns) = 0;
  /// Removes the record of `id`; false when absent.
  virtual bool remove(const std::string& id) = 0;
  /// Removes and returns the records last used at or before `cutoff_ns` that are not `active`.
  virtual std::vector<session_record> take_expired(std::int64_t cutoff_ns,
                                                   const session_active_fn& active) = 0;
  /// Removes and returns every record.
  virtual std::vector<session_record> take_all() = 0;
  /// Number of records.
  virtual std::size_t size() const = 0;
  /// True when insert() would be refused for lack of room.
  virtual bool full() const = 0;
  /// Bytes held for the records (strings and bookkeeping).
  virtual std::size_t bytes() const = 0;
  /// Applies `c` to the record of `id` (its log level and subscriptions); false when absent.
  virtual bool update(const std::string& id, const session_state_change& c) = 0;

  /// True when other processes share the records: a session may then be served by a process
  /// that did not create it (session_table revives it from its record).
  virtual bool shared() const noexcept { return false; }
  /// The clock the callers' times are on (see the file comment): the steady clock by default.
  virtual std::int64_t clock_ns() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  /// touch() then find() (a shared store does both in one round trip): the record after its
  /// last use moved to `now_ns`, or nullopt when absent.
  virtual std::optional<session_record> use(const std::string& id, std::int64_t now_ns) {
    if (!touch(id, now_ns)) return std::nullopt;
    return find(id);
  }
  /// The ids among `ids` without a record (in their order).
  virtual std::vector<std::string> missing(const std::vector<std::string>& ids) const {
    std::vector<std::string> out;
    for (const auto& id : ids) {
      if (!find(id)) out.push_back(id);
    }
    return out;
  }
};

}  // namespace mcpcxx::http
