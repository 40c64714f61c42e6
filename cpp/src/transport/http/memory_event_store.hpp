// The in-memory event store: each legacy session's replay buffer in this process, the default
// behind event_store (event_store.hpp states the contract). A session's events live as long as a
// handle to them does (the http_session holds one), so a session dropped without forget() (a
// failed initialize) leaves nothing behind.
// Thread-safety: as event_store.hpp; one mutex per session's events, one for the index.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "transport/http/event_store.hpp"

namespace mcpcxx::http {

/// event_store in this process's memory.
class memory_event_store final : public event_store {
 public:
  /// Keeps the last `replay_capacity` events of each session (http_options::replay_buffer_events).
  explicit memory_event_store(std::size_t replay_capacity);
  ~memory_event_store() override;
  memory_event_store(const memory_event_store&) = delete;
  memory_event_store& operator=(const memory_event_store&) = delete;

  /// The session's live record, else a new one indexed under `session_id`.
  std::shared_ptr<session_events> open(const std::string& session_id) override;
  /// Drops the index entry; the events stay with their handles until the last one goes.
  void forget(const std::string& session_id) override;
  /// Indexed sessions whose events are alive.
  std::size_t sessions() const override;
  /// Sum of bytes() of the indexed sessions' events, plus the index's entries.
  std::size_t bytes() const override;

  /// The index of live records, shared with each record so that its destructor can unlist it.
  struct index;

 private:
  std::size_t replay_capacity_;
  std::shared_ptr<index> index_;
};

}  // namespace mcpcxx::http
