// The Redis implementations of the engine's scale-out seams (issue 31, docs/scale-out.md): a bridge
// that carries the notification bus's events between replicas, a request router, a task store
// with leases, and the call records of at-most-once tools. Every replica of one deployment is
// made with the same client URL and key prefix and its own replica id.
//
// Keys (all under the prefix; every one has a TTL or is deleted by the code that wrote it):
//   route:<session>      string, the replica holding a legacy session; PX holder_ttl, renewed
//   task:<id>            hash {r: record JSON, v: version, st: status, rep: replica, seq}; PXAT
//                        created_at + ttl
//   task-lease:<id>      string, the replica running the task; PX lease, renewed every lease/3
//   task-index           zset id -> expiry (ms), the max_tasks bound; PXAT the latest expiry
//   task-owner:<owner>   zset id -> creation sequence (tasks/list pages); PXAT the latest expiry
//   task-seq             counter of the creation sequence; PXAT the latest expiry
//   once:<key>           hash {st, call, at, task, result, reason}: an at-most-once tool's call
//                        record (core/call_records.hpp); PXAT first call + window
//   once-lease:<key>     string, the replica running the call; PX lease, renewed every lease/3
// Channels: bus (every bridge), replica:<id> (the router of replica <id>), sessions (every
// router: broadcast()).
//
// Redis failures: a call that needs Redis while it is unreachable throws redis::unavailable
// unless its contract says otherwise (the bus bridge and the router keep serving locally).
// Thread-safety: every object made here may be used from any thread at once.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "mcpcxx/tasks.hpp"

#include "core/call_records.hpp"
#include "core/notification_bus.hpp"
#include "core/request_router.hpp"
#include "core/response_cache_store.hpp"
#include "core/token_buckets.hpp"
#include "redis/client.hpp"

namespace mcpcxx::detail {

/// The deployment a replica's Redis objects share, and who this replica is.
struct redis_scope {
  std::shared_ptr<redis::client> client;  ///< commands (pooled, thread-safe)
  redis::options connection;              ///< for the SUBSCRIBE connections
  std::string key_prefix;                 ///< before every key and channel
  std::string replica_id;                 ///< unique among the replicas (non-empty)
};

/// Told about Redis trouble (what failed, for the server log): once when a failure starts and
/// once when it ends, not per message. Called from the object's own threads or the caller's.
using store_trouble_callback = std::function<void(std::string_view what)>;

/// How a bus bridge behaves.
struct bus_bridge_options {
  /// Events waiting to be sent to Redis at most; beyond it new ones are not sent (counted).
  std::size_t max_queued = 65536;
  /// How long the constructor waits for the SUBSCRIBE to take effect (it never fails on it).
  std::chrono::milliseconds subscribe_wait{2000};
  store_trouble_callback on_trouble;
};

/// Carries the events of a local bus to the other replicas and theirs into it (see
/// make_redis_bus_bridge). Destroying it detaches: local delivery goes on, remote stops.
class bus_bridge {
 public:
  virtual ~bus_bridge() = default;
  /// True while the SUBSCRIBE connection is up (remote events arrive).
  virtual bool connected() const noexcept = 0;
  /// Local events that never reached Redis (queue full, or Redis failed while sending them).
  virtual std::uint64_t lost() const noexcept = 0;
};

/// Attaches Redis delivery to `local` (the engine's bus, which must outlive the bridge and must
/// deliver on the publishing thread, as the memory bus does). Every event published on `local`
/// is also PUBLISHed on the bus channel by one sender thread, in publish order; every event
/// another replica published arrives through a SUBSCRIBE connection and is published on `local`
/// (never sent back to Redis, never delivered twice). While Redis is down local delivery goes
/// on and remote events are lost; they flow again once the subscriber reconnected. `local`'s
/// wanted() answers true from then on (the bridge subscribes to every kind: other replicas may
/// want anything). Never throws for Redis trouble.
std::unique_ptr<bus_bridge> make_redis_bus_bridge(notification_bus& local, redis_scope scope,
                                                  bus_bridge_options options = {});

/// A bus of its own: a memory bus (reporting handler failures to `on_error`) with a bridge.
std::unique_ptr<notification_bus> make_redis_notification_bus(redis_scope scope,
                                                              bus_error_callback on_error,
                                                              bus_bridge_options options = {});

/// How a Redis request router behaves.
struct redis_router_options {
  /// TTL of a route:<session> key; renewed every third of it while the session is attached.
  std::chrono::milliseconds holder_ttl{30000};
  /// How long the constructor waits for the SUBSCRIBE to take effect (it never fails on it).
  std::chrono::milliseconds subscribe_wait{2000};
  store_trouble_callback on_trouble;
};

/// A request_router over Redis: attach() records the session under route:<session> (this
/// replica) and keeps it alive; route() delivers locally when the session is attached here,
/// else looks the holder up and PUBLISHes to its replica channel in one round trip (false when
/// no replica holds it or Redis is down). route_to() PUBLISHes to the named replica's channel
/// (origin() is the scope's replica id); broadcast() to the sessions channel, which every router
/// hears and the sender ignores. A message routed to a replica whose session detached
/// while it travelled is dropped there. Redis down: attach/detach still work locally (the key
/// is written again once Redis is back), route() of a session held elsewhere returns false.
std::unique_ptr<request_router> make_redis_request_router(redis_scope scope,
                                                          redis_router_options options = {});

/// How a Redis task store behaves.
struct redis_task_store_options {
  /// Live records at most, across every replica of the deployment (expired ones do not count).
  std::size_t max_tasks = 1000;
  /// TTL of a running task's lease key; renewed every lease/3. A task whose lease is gone is
  /// marked failed (row P53) by the next get() or list() on any replica: its lease is gone at
  /// most one lease after its replica died (the documented bound, 2 x lease, leaves room for a
  /// late renewal and the poll that reads it).
  std::chrono::milliseconds lease{5000};
  /// Called with a record this store has just marked failed because its lease was gone, on the
  /// reading thread (the engine publishes the change to listen streams). Empty: none.
  std::function<void(const task_record&)> on_lost;
  /// Called with the id of a task this replica runs whose record another replica settled
  /// (tasks/cancel, or failed for a lapsed lease), as the lease renewal finds it, on the renewal
  /// thread: the engine cancels the handler, should the bus message that carried a cancel have
  /// been lost (within lease/3). Empty: none.
  std::function<void(const std::string& task_id)> on_settled_elsewhere;
  store_trouble_callback on_trouble;
};

/// A task_store whose records live in Redis, with leases for the tasks this replica runs.
class leased_task_store : public task_store {
 public:
  /// Stops renewing and deletes this replica's leases: its unfinished tasks read as failed on
  /// the next get() or list() anywhere. Also done by the destructor; later creates take no lease.
  virtual void release() = 0;
  /// How many of this replica's unfinished tasks it renews a lease for.
  virtual std::size_t leased() const = 0;
};

/// The Redis task store (see the file comment for its keys). Records are JSON; update() is a
/// compare-and-set on the record's version (a Lua script), retried on conflict; the bound is
/// checked atomically with the insert. task_id and owner never change (update() keeps them).
/// Every call may throw redis::unavailable.
std::shared_ptr<leased_task_store> make_redis_task_store(redis_scope scope,
                                                         redis_task_store_options options = {});

/// How the Redis call records behave.
struct redis_call_records_options {
  /// TTL of a running claim's lease key; renewed every lease/3 while this replica holds the
  /// claim. A running record whose lease is gone reads as unknown, reason replica_lost.
  std::chrono::milliseconds lease{5000};
  store_trouble_callback on_trouble;
};

/// The call records in Redis (see the file comment for their keys): claim() is one Lua script
/// (it also turns a running record whose lease is gone into unknown/replica_lost, once); settle,
/// set_task and release are scripts that act only while the call holds the record. One thread
/// renews the leases of the claims this replica holds; destroying the object stops it and
/// leaves the records (the leases expire). Every call may throw redis::unavailable.
std::shared_ptr<call_records> make_redis_call_records(redis_scope scope,
                                                      redis_call_records_options o = {});

/// The rate limit's buckets in Redis (store/token_buckets.cpp): each take() is one Lua script on
/// Redis's own clock. take() may throw redis::unavailable.
std::shared_ptr<token_buckets> make_redis_token_buckets(redis_scope scope,
                                                        store_trouble_callback on_trouble = {});

/// The response cache's entries in Redis (store/response_cache.cpp): entries expire by Redis's
/// PX, drop() removes a tag's entries in one script. Every call may throw redis::unavailable.
std::shared_ptr<response_cache_store> make_redis_response_cache(
    redis_scope scope, store_trouble_callback on_trouble = {});

}  // namespace mcpcxx::detail
