// The in-memory session store: legacy session records in this process, the default behind
// session_store (session_store.hpp states the contract).
// Thread-safety: as session_store.hpp; one mutex.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>

#include "transport/http/session_store.hpp"

namespace mcpcxx::http {

/// session_store in this process's memory.
class memory_session_store final : public session_store {
 public:
  /// Holds at most `max_sessions` records (http_options::max_sessions).
  explicit memory_session_store(std::size_t max_sessions) : max_sessions_(max_sessions) {}

  bool insert(session_record r) override;
  std::optional<session_record> find(const std::string& id) const override;
  bool touch(const std::string& id, std::int64_t now_ns) override;
  bool remove(const std::string& id) override;
  std::vector<session_record> take_expired(std::int64_t cutoff_ns,
                                           const session_active_fn& active) override;
  std::vector<session_record> take_all() override;
  std::size_t size() const override;
  bool full() const override;
  /// The records' strings, the map's nodes and buckets.
  std::size_t bytes() const override;
  bool update(const std::string& id, const session_state_change& c) override;

 private:
  mutable std::mutex lock_;
  std::unordered_map<std::string, session_record> records_;
  std::size_t max_sessions_;
};

}  // namespace mcpcxx::http
