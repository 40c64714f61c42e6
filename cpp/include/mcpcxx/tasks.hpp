// Tasks: long tool runs a client polls instead of waiting on the request (2025-11-25 experimental
// tasks on legacy sessions; the 2026-07-28 extension io.modelcontextprotocol/tasks).
//
// The engine keeps two things per task: the record (status, timestamps, the terminal result or
// error, the pending input requests) in a task_store, and the live part (the handler's
// cancellation token, the answers a waiting handler gets) in the process running the handler.
// The store is the seam for several replicas: give every replica one shared store and any of
// them answers tasks/get; cancellation and input reach a handler only on the replica running it.
//
// Thread-safety: a task_store is called from any thread at once (transport threads answering
// tasks/*, worker threads settling tasks); every implementation must be safe for that.
// in_memory_task_store guards its map with one mutex; no call blocks on anything else.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mcpcxx/json.hpp"

namespace mcpcxx {

/// Whether a tool runs as a task (2025-11-25 Tool execution.taskSupport).
enum class task_support {
  forbidden,  ///< never a task (the default)
  optional,   ///< a task when the client asks (2025-11-25 params.task; 2026-07-28: the extension)
  required,   ///< only as a task: a call that cannot become one is refused
};

/// "forbidden", "optional" or "required".
std::string_view to_string(task_support s) noexcept;
/// Parses "forbidden" / "optional" / "required"; nullopt for anything else.
std::optional<task_support> parse_task_support(std::string_view s) noexcept;

/// The status of a task (the spec's TaskStatus).
enum class task_status { working, input_required, completed, failed, cancelled };

/// "working", "input_required", "completed", "failed" or "cancelled".
std::string_view to_string(task_status s) noexcept;
/// True for completed, failed and cancelled (nothing changes a terminal task any more).
bool is_terminal(task_status s) noexcept;

/// One task as the store keeps it.
struct task_record {
  using clock = std::chrono::system_clock;
  std::string task_id;  ///< unguessable (128 random bits), unique per store
  /// Who may see the task: the verified principal, else the legacy session; "" = anyone who
  /// knows the id (2026-07-28 without authentication: the id is the capability).
  std::string owner;
  std::string method = "tools/call";  ///< the request that created it
  task_status status = task_status::working;
  std::optional<std::string> status_message;
  clock::time_point created_at{};
  clock::time_point last_updated_at{};
  std::int64_t ttl_ms = 0;            ///< retention from creation (> 0); the record goes after it
  std::int64_t poll_interval_ms = 0;  ///< suggested polling interval (> 0)
  json result = nullptr;              ///< completed: the result the request would have returned
  json error = nullptr;               ///< failed: the JSON-RPC error object {code, message, data?}
  json input_requests = json::object();  ///< input_required: {key: {method, params}}

  /// True once `now` is past created_at + ttl_ms.
  bool expired(clock::time_point now) const noexcept;
};

/// One page of task_store::list.
struct task_page {
  std::vector<task_record> tasks;
  std::optional<std::string> next_cursor;
};

/// Where task records live. Implementations must be thread-safe (see the file comment) and must
/// never hand out a record past its TTL.
class task_store {
 public:
  virtual ~task_store() = default;
  /// Stores a new record; false when the store is full of live tasks (expired ones are dropped
  /// first). Once create returns, get() finds the record (tasks/get right after the reply works).
  virtual bool create(const task_record& record) = 0;
  /// The record `task_id` when it exists, has not expired and belongs to `owner`.
  virtual std::optional<task_record> get(std::string_view task_id, std::string_view owner) = 0;
  /// Applies `change` to record `task_id` atomically (no other update interleaves) and returns
  /// the record as changed; nullopt when it is gone. `change` must not call the store. A shared
  /// store may run `change` more than once (each time on the record as it is then, after another
  /// replica's conflicting update): only the last run counts, so it must not move from what it
  /// captures.
  virtual std::optional<task_record> update(std::string_view task_id,
                                            const std::function<void(task_record&)>& change) = 0;
  /// Up to `limit` of `owner`'s live records, oldest first, from `cursor` (a next_cursor of an
  /// earlier page, or nullopt for the first page); nullopt when the cursor is not one this store
  /// issued or no longer applies.
  virtual std::optional<task_page> list(std::string_view owner,
                                        const std::optional<std::string>& cursor,
                                        std::size_t limit) = 0;
};

/// Bounds of the in-memory store.
struct in_memory_task_store_options {
  std::size_t max_tasks = 1000;  ///< records kept at once (live and terminal, until their TTL)
};

/// The default store: a map in this process, bounded by max_tasks, records (and their results)
/// freed as soon as their TTL passes (checked on every call). Thread-safe (one mutex).
std::shared_ptr<task_store> make_in_memory_task_store(in_memory_task_store_options options = {});

/// How the engine runs tasks (server_options::tasks).
struct task_options {
  /// The store; null: make_in_memory_task_store() with defaults.
  std::shared_ptr<task_store> store;
  /// TTL when the client asks for none (2025-11-25 params.task without ttl; 2026-07-28 always).
  std::int64_t default_ttl_ms = std::int64_t{10} * 60 * 1000;
  /// Upper bound of a TTL the client asks for (a larger request gets this).
  std::int64_t max_ttl_ms = std::int64_t{60} * 60 * 1000;
  /// pollInterval / pollIntervalMs suggested to clients.
  std::int64_t poll_interval_ms = 500;
  /// Threads running task handlers (apart from the request workers): tasks beyond this many
  /// queue in the working state.
  std::size_t threads = 8;
  /// Makes task ids; empty: 128 random bits as 32 hex digits. A replacement must give ids that
  /// are unique in the store and unguessable when nobody authenticates (the id is then the only
  /// key to the task); deterministic ids are for tests. Called from any thread.
  std::function<std::string()> id_generator;
};

}  // namespace mcpcxx
