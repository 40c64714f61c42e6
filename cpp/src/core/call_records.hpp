// detail::call_records: where the engine keeps one record per operation of an at-most-once tool
// (tool_spec::at_most_once), so that a repeat of it within the window never runs the handler
// again. The memory implementation here serves one process; the Redis one
// (store/redis_stores.hpp, make_redis_call_records) serves every replica of a deployment.
//
// Contract (tests/cpp/seams/call_records_contract.hpp, which every implementation passes):
//   - claim() is atomic: of any number of claims of one key at once, in any processes sharing
//     the store, exactly one returns claimed; the others return the record it made (running).
//   - A record lives until `window` after its first call (record.first_called_at_ms), whatever
//     happens to it meanwhile; after that the key is free.
//   - settle(key, call, r) and release(key, call) change the record only while `call` holds it
//     (a late settle of a call whose record was replaced or expired does nothing).
//   - release() forgets the record: the next claim is claimed.
//   - claim() with `replaces` set claims a key whose record is unknown and held by that call
//     (a resolver found it was not applied); any other record is returned as usual.
//   - A running record whose holder stopped renewing it (its process died) reads as unknown,
//     reason "replica_lost", once `lease` has passed (stores shared between processes only).
// Thread-safety: every member may be called from any thread at once.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace mcpcxx::detail {

/// What is known about an operation's first call.
enum class call_state : std::uint8_t {
  running,  ///< the handler runs (or its replica has not been found dead yet)
  applied,  ///< it completed: `result` (when kept) is what it returned
  unknown,  ///< it ended without a known outcome (`reason`)
};

/// The record of one operation (one key).
struct call_record {
  call_state state = call_state::running;
  std::string call_id;                  ///< the call holding the record
  std::int64_t first_called_at_ms = 0;  ///< Unix ms of the first call
  std::string task_id;                  ///< the task the first call became, if any
  std::string result;                   ///< applied: the serialized CallToolResult, "" if not kept
  std::string reason;                   ///< unknown: timeout, cancelled, failed, replica_lost
};

/// One claim of an operation by a call.
struct call_claim {
  std::string key;  ///< the operation (a digest; see methods/once_key.hpp)
  std::string call_id;
  std::int64_t now_ms = 0;  ///< Unix ms: the record's first_called_at_ms when claimed
  std::chrono::milliseconds window{0};
  std::string replaces;  ///< non-empty: take over an unknown record held by this call
};

/// What claim() found.
struct claim_outcome {
  bool claimed = false;  ///< true: this call holds the record now and runs
  call_record record;    ///< not claimed: the record of the call that holds it
};

/// Keeps the records (see the file comment).
class call_records {
 public:
  virtual ~call_records() = default;
  /// Claims `c.key` for `c.call_id`, or returns the record of the call holding it.
  virtual claim_outcome claim(const call_claim& c) = 0;
  /// The call's outcome (`r.state` applied or unknown; task_id and first call kept as recorded).
  virtual void settle(const std::string& key, const std::string& call_id, const call_record& r) = 0;
  /// Notes the task the running call became.
  virtual void set_task(const std::string& key, const std::string& call_id,
                        const std::string& task_id) = 0;
  /// The call applied nothing: the record goes, and the next identical call runs.
  virtual void release(const std::string& key, const std::string& call_id) = 0;
};

/// Told when the memory store drops a settled record to stay within its bound.
using call_record_evicted = std::function<void()>;

/// Records in this process: a map swept of expired records as it is used, holding at most
/// `max_records` (beyond, the oldest settled record is dropped; running ones never are, so a
/// claim beyond the bound with every record running still succeeds).
std::shared_ptr<call_records> make_memory_call_records(std::size_t max_records,
                                                       call_record_evicted on_evicted = {});

}  // namespace mcpcxx::detail
