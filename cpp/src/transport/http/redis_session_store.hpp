// The session store on Redis: legacy session records shared by every replica given the same
// client and key prefix (session_store.hpp states the contract; redis_keys.hpp lists the keys).
//
// How it keeps the contract across processes:
// - Times: clock_ns() is the wall clock (system_clock nanoseconds), which replicas agree on up to
//   their clock skew; steady clocks of different processes are not comparable.
// - Expiry: every key has a TTL (`ttl`: the idle timeout plus a margin) renewed by insert(),
//   touch(), use() and update(), so a record that no replica reaps (every replica gone) still
//   disappears. take_expired() takes the records last used at or before the cutoff that are not
//   `active` in the calling process; the transport of each replica touches its own active
//   sessions before reaping, so a session busy elsewhere is not taken. take_all() removes the
//   records of every replica (the transport does not call it on a shared store).
// - Capacity: `max_sessions` bounds the records of all replicas together. The index
//   ({sessions}:idx) counts them; insert() reserves its entry atomically, so concurrent inserts
//   stop exactly at the cap. An entry whose record expired by TTL is dropped by the next insert
//   (by its score) or take_expired(), and counts in size() until then.
// - bytes(): the bytes of the records as stored (field lengths, kept per id in {sessions}:size);
//   update() does not change them. size() and bytes() answer their last known value while Redis
//   is unreachable (they serve statistics); every other operation throws
//   detail::store_unavailable then.
// Thread-safety: every member may be called from any thread at once; each operation on one
// record is one Lua script (atomic); index and record are two slots, updated in one round trip.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "redis/client.hpp"
#include "transport/http/session_store.hpp"

namespace mcpcxx::http {

/// session_store on Redis (see the file comment).
class redis_session_store final : public session_store {
 public:
  /// Keys under `key_prefix` (no '{' or '}': std::invalid_argument), at most `max_sessions`
  /// records, every key expiring `ttl` after its last write.
  redis_session_store(std::shared_ptr<redis::client> client, std::string key_prefix,
                      std::size_t max_sessions, std::chrono::milliseconds ttl);

  bool insert(session_record r) override;
  std::optional<session_record> find(const std::string& id) const override;
  bool touch(const std::string& id, std::int64_t now_ns) override;
  bool remove(const std::string& id) override;
  std::vector<session_record> take_expired(std::int64_t cutoff_ns,
                                           const session_active_fn& active) override;
  std::vector<session_record> take_all() override;
  std::size_t size() const override;
  bool full() const override;
  std::size_t bytes() const override;
  bool update(const std::string& id, const session_state_change& c) override;
  /// True: the records are shared with every replica on the same Redis and prefix.
  bool shared() const noexcept override { return true; }
  /// The wall clock, in nanoseconds since the epoch.
  std::int64_t clock_ns() const override;
  /// One round trip: touches the record and reads it.
  std::optional<session_record> use(const std::string& id, std::int64_t now_ns) override;
  /// One round trip for all of `ids`.
  std::vector<std::string> missing(const std::vector<std::string>& ids) const override;

  /// The key prefix given at construction.
  const std::string& key_prefix() const noexcept { return prefix_; }

 private:
  const std::shared_ptr<redis::client> client_;
  const std::string prefix_;
  const std::size_t max_sessions_;
  const std::chrono::milliseconds ttl_;
  const std::vector<std::string> index_;  ///< {idx, size}
  mutable std::atomic<std::size_t> last_size_{0};
  mutable std::atomic<std::size_t> last_bytes_{0};

  /// Touches `id` (and reads it when `read`); the script's reply, nil when absent.
  redis::reply touch_script(const std::string& id, std::int64_t now_ns, bool read);
  /// Takes the records of `ids` used at or before `cutoff` ("" = any) and drops their index
  /// entries, and those of ids without a record.
  std::vector<session_record> take(const std::vector<std::string>& ids, const std::string& cutoff);
  /// Drops `ids` from the index (entries and sizes).
  void unindex(const std::vector<std::string>& ids);
};

}  // namespace mcpcxx::http
