#include "transport/http/memory_session_store.hpp"

#include <algorithm>
#include <utility>

namespace mcpcxx::http {

namespace {

std::size_t record_bytes(const session_record& r) {
  std::size_t total = sizeof(session_record) + r.id.capacity() + r.principal_key.capacity() +
                      r.protocol_version.capacity() + r.client_capabilities.capacity() +
                      r.client_info.capacity() + r.log_level.capacity() +
                      r.subscriptions.capacity() * sizeof(std::string);
  for (const auto& uri : r.subscriptions) total += uri.capacity();
  return total;
}

}  // namespace

bool memory_session_store::insert(session_record r) {
  std::lock_guard g(lock_);
  if (records_.size() >= max_sessions_) return false;
  std::string key = r.id;
  return records_.emplace(std::move(key), std::move(r)).second;
}

std::optional<session_record> memory_session_store::find(const std::string& id) const {
  std::lock_guard g(lock_);
  auto it = records_.find(id);
  if (it == records_.end()) return std::nullopt;
  return it->second;
}

bool memory_session_store::touch(const std::string& id, std::int64_t now_ns) {
  std::lock_guard g(lock_);
  auto it = records_.find(id);
  if (it == records_.end()) return false;
  it->second.last_used_ns = std::max(it->second.last_used_ns, now_ns);
  return true;
}

bool memory_session_store::remove(const std::string& id) {
  std::lock_guard g(lock_);
  return records_.erase(id) > 0;
}

std::vector<session_record> memory_session_store::take_expired(std::int64_t cutoff_ns,
                                                               const session_active_fn& active) {
  std::vector<session_record> out;
  std::lock_guard g(lock_);
  for (auto it = records_.begin(); it != records_.end();) {
    if (it->second.last_used_ns <= cutoff_ns && !active(it->first)) {
      out.push_back(std::move(it->second));
      it = records_.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

bool memory_session_store::update(const std::string& id, const session_state_change& c) {
  std::lock_guard g(lock_);
  auto it = records_.find(id);
  if (it == records_.end()) return false;
  session_record& r = it->second;
  if (c.log_level) r.log_level = *c.log_level;
  for (const auto& uri : c.subscribed) {
    auto at = std::lower_bound(r.subscriptions.begin(), r.subscriptions.end(), uri);
    if (at == r.subscriptions.end() || *at != uri) r.subscriptions.insert(at, uri);
  }
  for (const auto& uri : c.unsubscribed) std::erase(r.subscriptions, uri);
  return true;
}

std::vector<session_record> memory_session_store::take_all() {
  std::lock_guard g(lock_);
  std::vector<session_record> out;
  out.reserve(records_.size());
  for (auto& [id, r] : records_) out.push_back(std::move(r));
  records_.clear();
  return out;
}

std::size_t memory_session_store::size() const {
  std::lock_guard g(lock_);
  return records_.size();
}

bool memory_session_store::full() const {
  std::lock_guard g(lock_);
  return records_.size() >= max_sessions_;
}

std::size_t memory_session_store::bytes() const {
  std::lock_guard g(lock_);
  std::size_t total = records_.bucket_count() * sizeof(void*);
  for (const auto& [id, r] : records_) {
    // Node: key string, record, hash link.
    total += id.capacity() + sizeof(std::string) + 2 * sizeof(void*) + record_bytes(r);
  }
  return total;
}

}  // namespace mcpcxx::http
