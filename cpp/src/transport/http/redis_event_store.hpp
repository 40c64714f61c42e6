// The event store on Redis: each legacy session's event counters, replay buffer, running streams
// and cancel markers, shared by every replica given the same client and key prefix
// (event_store.hpp states the contract; redis_keys.hpp lists the keys).
//
// How it keeps the contract across processes:
// - Ids: the sequence and stream counters live in the session's meta hash and every operation
//   is one Lua script on the session's keys (one hash slot), so ids are unique and gapless
//   across replicas, in the order the scripts ran. The replay buffer is a list trimmed to
//   `replay_capacity` by the append that overflows it; its entries hold the frame, and the SSE
//   text (wire.hpp) is rebuilt from it on replay, byte for byte what append() returned.
// - Records and handles: open() creates the session's meta with a random token, or joins the
//   existing one. Every script checks the handle's token, so a handle opened before forget()
//   (which deletes the keys) reads an empty session and writes nothing, even after the id was
//   opened afresh. open() costs one round trip; it hands out the live handle of this process
//   when that one is still the session's record.
// - TTL: every key expires `ttl` after the last write to the session (the session store's touch
//   renews them too); forget() deletes them.
// - sessions() and bytes() are this process's view: the sessions it holds a handle to and has
//   not forgotten, and what the session's scripts last reported of its size (no round trip, so
//   statistics never wait for Redis). Every other operation throws detail::store_unavailable
//   when Redis does not answer in time.
// Thread-safety: as event_store.hpp; the scripts serialize the operations on one session.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "redis/client.hpp"
#include "transport/http/event_store.hpp"

namespace mcpcxx::http {

/// event_store on Redis (see the file comment).
class redis_event_store final : public event_store {
 public:
  /// Keys under `key_prefix` (no '{' or '}': std::invalid_argument); the last `replay_capacity`
  /// events of each session are kept; keys expire `ttl` after the session's last write.
  redis_event_store(std::shared_ptr<redis::client> client, std::string key_prefix,
                    std::size_t replay_capacity, std::chrono::milliseconds ttl);
  ~redis_event_store() override;
  redis_event_store(const redis_event_store&) = delete;
  redis_event_store& operator=(const redis_event_store&) = delete;

  /// This process's live handle of `session_id` when still current, else one joining (or
  /// creating) its record.
  std::shared_ptr<session_events> open(const std::string& session_id) override;
  /// Deletes the session's keys and drops this process's handle from the index.
  void forget(const std::string& session_id) override;
  /// Sessions this process holds a handle to and has not forgotten.
  std::size_t sessions() const override;
  /// The bytes() of those handles plus the index's entries.
  std::size_t bytes() const override;

  /// What every handle shares: the client, the keys' prefix, the bounds; and the index.
  struct shared;

 private:
  std::shared_ptr<shared> shared_;
};

}  // namespace mcpcxx::http
