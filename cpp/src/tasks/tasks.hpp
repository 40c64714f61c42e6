// detail::task_manager: the engine's side of tasks (mcpcxx/tasks.hpp). It creates records in
// the task_store, runs task handlers on its own threads (so parked or long tasks never hold the
// request workers), keeps the live part of each running task (cancellation token, the answers a
// handler waits for) and writes status changes back to the store.
//
// A task's handler asks the client through ask(): the record goes input_required with the
// questions as inputRequests, and the handler blocks until tasks/update (2026-07-28) or the live
// legacy answer delivers every answer, or the task is cancelled.
//
// With several replicas, tasks/cancel and tasks/update may reach one that does not run the task:
// the record changes in the shared store, and the control is forwarded (set_control_forwarder)
// to the replica running it, which applies it (apply_control).
//
// Thread-safety: every member may be called from any thread. `mutex_` guards the live map; each
// live task has its own mutex for its answers. Store calls never happen under `mutex_`.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "mcpcxx/context.hpp"
#include "mcpcxx/tasks.hpp"

#include "core/iso_time.hpp"
#include "core/worker_pool.hpp"

namespace mcpcxx::detail {

/// The 2026-07-28 extension id.
/// 2025-11-25 _meta key tying a message to its task.
inline constexpr std::string_view k_related_task_key = "io.modelcontextprotocol/related-task";

/// The 2025-11-25 Task object of `r`.
json legacy_task_json(const task_record& r);
/// The 2026-07-28 Task fields of `r` (CreateTaskResult without resultType).
json modern_task_json(const task_record& r);
/// The 2026-07-28 DetailedTask of `r` (the task fields plus result, error or inputRequests).
json modern_detailed_task_json(const task_record& r);

/// What a task handler waits on.
class live_task {
 public:
  explicit live_task(cancellation_token token) : token_(std::move(token)) {}
  const cancellation_token& token() const noexcept { return token_; }
  /// Declares the keys the handler is about to wait for (answers to others are ignored).
  void expect(const std::vector<std::string>& keys);
  /// Blocks until every key of `keys` has an answer or the token is cancelled; the answers in
  /// order, or nullopt when cancelled.
  std::optional<std::vector<json>> wait(const std::vector<std::string>& keys);
  /// Hands answers to the waiting handler; the keys answered (those it waits for).
  std::vector<std::string> deliver(const json& responses);
  /// Wakes a waiting handler (cancellation).
  void wake();

 private:
  cancellation_token token_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<std::string> waiting_;
  json answers_ = json::object();
};

/// The engine's task runner and the live tasks of this process.
class task_manager {
 public:
  explicit task_manager(task_options options);
  ~task_manager();
  task_manager(const task_manager&) = delete;
  task_manager& operator=(const task_manager&) = delete;

  const task_options& options() const noexcept { return options_; }
  task_store& store() noexcept { return *store_; }

  /// A new working record for `owner` (TTL: `requested_ttl_ms` clamped, else the default) with
  /// its live part; nullopt when the store is full.
  std::optional<task_record> create(const std::string& owner,
                                    std::optional<std::int64_t> requested_ttl_ms,
                                    const cancellation_token& token);
  /// Runs `job` on the task threads.
  void post(std::function<void()> job);
  /// Records the terminal state (unless the task is already terminal) and forgets the live part.
  void settle(const std::string& task_id, task_status status, json result, json error);
  /// Sets the status message of a non-terminal task.
  void set_message(const std::string& task_id, std::string message);
  /// Cancels task `task_id` of `owner`: the record becomes cancelled, the handler's token fires.
  /// The record before the change; nullopt when unknown. A terminal task is left unchanged.
  std::optional<task_record> cancel(const std::string& task_id, const std::string& owner);
  /// The handler of `task_id` asks `questions` ({key: {method, params}}): the record goes
  /// input_required until every key is answered; the answers in key order, nullopt when the task
  /// was cancelled meanwhile.
  std::optional<std::vector<json>> ask(const std::string& task_id, const json& questions);
  /// Sets the pending questions of a non-terminal task: input_required with `pending`, or
  /// working again when `pending` is empty.
  void set_input(const std::string& task_id, const json& pending);
  /// Answers from tasks/update for `owner`'s task; false when the task is unknown.
  bool answer(const std::string& task_id, const std::string& owner, const json& responses);
  /// Blocks until task `task_id` of `owner` is terminal (or `token` is cancelled, or the record
  /// goes); the last record seen, nullopt when unknown.
  std::optional<task_record> wait_terminal(const std::string& task_id, const std::string& owner,
                                           const cancellation_token& token);
  /// Called with the record after every change of a task (status, message, pending questions),
  /// on the thread that changed it, outside the manager's locks (one call at a time, with the
  /// store's latest record, so the last call for a task shows its latest state). The engine
  /// installs the publisher of notifications/tasks on subscriptions/listen streams (2026-07-28).
  /// Empty: none.
  using status_listener = std::function<void(const task_record&)>;
  void set_status_listener(status_listener fn);
  /// Hands a control of a task that does not run here ({"op": "cancel"}, or {"op": "answer",
  /// "responses": {...}} from tasks/update) to the replica running it (tasks/task_control.hpp);
  /// called on the requesting thread, outside the manager's locks.
  using control_forwarder = std::function<void(const std::string& task_id, const json& control)>;
  /// Installs the forwarder; empty (the default): controls of tasks not running here are
  /// dropped, as with one process every unfinished task runs here.
  void set_control_forwarder(control_forwarder fn);
  /// Applies a control another replica forwarded: cancel fires the handler's token, answer hands
  /// the responses to the waiting handler. False (nothing done) when the task does not run here.
  bool apply_control(const std::string& task_id, const json& control);
  /// Replaces the store with `store` (the engine's shared store, attached before serving); throws
  /// std::logic_error while a task runs. Not safe concurrently with task calls.
  void use_store(std::shared_ptr<task_store> store);
  /// Cancels every live task (server stop) and stops the task threads.
  void stop(std::chrono::milliseconds grace);

 private:
  std::shared_ptr<live_task> live(const std::string& task_id);
  /// Applies `fn` to a non-terminal task; the record after, nullopt when nothing was applied.
  std::optional<task_record> apply(const std::string& task_id,
                                   const std::function<void(task_record&)>& fn);
  void changed(const std::optional<task_record>& after);
  /// Forwards `control` of `task_id` when a forwarder is installed.
  void forward(const std::string& task_id, const json& control);
  /// Hands `responses` to the live task `l` and removes the answered keys from its record.
  void deliver(const std::string& task_id, live_task& l, const json& responses);

  task_options options_;
  std::shared_ptr<task_store> store_;
  std::mutex mutex_;
  std::condition_variable changed_cv_;  // any record changed (tasks/result waiters)
  std::unordered_map<std::string, std::shared_ptr<live_task>> live_;
  status_listener listener_;
  control_forwarder forwarder_;
  std::mutex publish_mutex_;  // one status notification at a time (see changed())
  worker_pool pool_;
};

}  // namespace mcpcxx::detail
