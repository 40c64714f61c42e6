// The Redis keys of legacy sessions (docs/scale-out.md lists them with their TTLs). Every key of
// one session carries the hash tag {s:<id>}, so that on Redis Cluster they share a slot and one
// script may touch them together; the session index of a key prefix carries {sessions}.
//   <prefix>{s:<id>}:rec      HASH   the session record (redis_session_store)
//   <prefix>{s:<id>}:subs     SET    its resource subscriptions
//   <prefix>{s:<id>}:ev:meta  HASH   its event counters and record token (redis_event_store)
//   <prefix>{s:<id>}:ev:log   LIST   its replay buffer, oldest first
//   <prefix>{s:<id>}:ev:run   SET    its running POST streams
//   <prefix>{s:<id>}:ev:cxl   LIST   its cancel markers
//   <prefix>{sessions}:idx    ZSET   session ids by last use (counting, expiry candidates)
//   <prefix>{sessions}:size   HASH   session id -> bytes of its record (bytes())
// Every key has a TTL (the idle timeout plus a margin) that each write renews, or is deleted.
// Thread-safety: pure functions.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace mcpcxx::http {

/// The keys of one legacy session under a key prefix (see the file comment).
struct redis_session_keys {
  std::string rec, subs, ev_meta, ev_log, ev_run, ev_cxl;

  /// The keys of session `id` under `prefix`.
  static redis_session_keys of(const std::string& prefix, const std::string& id) {
    const std::string base = prefix + "{s:" + id + "}:";
    return {base + "rec",    base + "subs",   base + "ev:meta",
            base + "ev:log", base + "ev:run", base + "ev:cxl"};
  }
  /// The event keys, in the order the event scripts take them (meta, log, run, cxl).
  std::vector<std::string> events() const { return {ev_meta, ev_log, ev_run, ev_cxl}; }
};

/// The session index keys under `prefix`: {idx, size}.
inline std::vector<std::string> redis_index_keys(const std::string& prefix) {
  return {prefix + "{sessions}:idx", prefix + "{sessions}:size"};
}

/// Throws std::invalid_argument when `prefix` would break the hash tags (it holds '{' or '}').
void check_redis_key_prefix(const std::string& prefix);

/// The TTL of every session key: the idle timeout plus a margin that outlasts one reaper period
/// (a replica refreshes its active sessions' keys once a period) and clock skew between replicas.
std::chrono::milliseconds redis_session_ttl(std::chrono::milliseconds idle_timeout);

}  // namespace mcpcxx::http
