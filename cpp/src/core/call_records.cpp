// The memory call records (core/call_records.hpp): one map under one mutex, with two ordered
// indexes beside it: every record by expiry (the sweep pops the expired ones from the front) and
// the settled ones by first call (the bound drops the oldest of them).
#include "core/call_records.hpp"

#include <algorithm>
#include <limits>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

namespace mcpcxx::detail {

namespace {

struct once_entry {
  call_record record;
  std::int64_t expires_at_ms = 0;
};

// (time, key) pairs in time order.
using once_index = std::set<std::pair<std::int64_t, std::string>>;

// now + window without overflow (a huge window means "never within this process's life").
std::int64_t once_expiry(std::int64_t now_ms, std::chrono::milliseconds window) {
  const std::int64_t w = std::max<std::int64_t>(0, window.count());
  if (now_ms > std::numeric_limits<std::int64_t>::max() - w) {
    return std::numeric_limits<std::int64_t>::max();
  }
  return now_ms + w;
}

class memory_call_records final : public call_records {
 public:
  memory_call_records(std::size_t max_records, call_record_evicted on_evicted)
      : max_records_(max_records), on_evicted_(std::move(on_evicted)) {}

  claim_outcome claim(const call_claim& c) override {
    std::size_t evicted = 0;
    claim_outcome out = claim_locked(c, evicted);
    for (; evicted > 0 && on_evicted_; --evicted) {
      try {
        on_evicted_();
      } catch (...) {  // NOLINT(bugprone-empty-catch): a failing counter must not lose the claim
      }
    }
    return out;
  }

  void settle(const std::string& key, const std::string& call_id, const call_record& r) override {
    if (r.state == call_state::running) {
      throw std::invalid_argument("call_records::settle: the outcome must be applied or unknown");
    }
    std::lock_guard g(mutex_);
    once_entry* e = held(key, call_id);
    if (e == nullptr) return;
    e->record.state = r.state;
    e->record.result = r.result;
    e->record.reason = r.reason;
    settled_.emplace(e->record.first_called_at_ms, key);
  }

  void set_task(const std::string& key, const std::string& call_id,
                const std::string& task_id) override {
    std::lock_guard g(mutex_);
    once_entry* e = held(key, call_id);
    if (e != nullptr) e->record.task_id = task_id;
  }

  void release(const std::string& key, const std::string& call_id) override {
    std::lock_guard g(mutex_);
    auto it = entries_.find(key);
    if (it != entries_.end() && it->second.record.call_id == call_id) forget(it);
  }

 private:
  using entry_map = std::unordered_map<std::string, once_entry>;

  claim_outcome claim_locked(const call_claim& c, std::size_t& evicted) {
    std::lock_guard g(mutex_);
    sweep(c.now_ms);
    auto it = entries_.find(c.key);
    if (it != entries_.end() && !takes_over(c, it->second.record)) {
      return {false, it->second.record};
    }
    if (it == entries_.end()) {
      evicted = make_room();
    } else {
      forget(it);
    }
    once_entry e;
    e.record.call_id = c.call_id;
    e.record.first_called_at_ms = c.now_ms;
    e.expires_at_ms = once_expiry(c.now_ms, c.window);
    expiries_.emplace(e.expires_at_ms, c.key);
    it = entries_.emplace(c.key, std::move(e)).first;
    return {true, it->second.record};
  }

  static bool takes_over(const call_claim& c, const call_record& r) {
    return !c.replaces.empty() && r.state == call_state::unknown && r.call_id == c.replaces;
  }

  once_entry* held(const std::string& key, const std::string& call_id) {
    auto it = entries_.find(key);
    if (it == entries_.end() || it->second.record.call_id != call_id) return nullptr;
    return &it->second;
  }

  // Drops every record expired at `now_ms` (the claiming caller's clock).
  void sweep(std::int64_t now_ms) {
    while (!expiries_.empty() && expiries_.begin()->first <= now_ms) {
      forget(entries_.find(expiries_.begin()->second));
    }
  }

  // Drops the oldest settled records until a new one fits; returns how many.
  std::size_t make_room() {
    std::size_t dropped = 0;
    while (entries_.size() >= max_records_ && !settled_.empty()) {
      forget(entries_.find(settled_.begin()->second));
      ++dropped;
    }
    return dropped;
  }

  void forget(entry_map::iterator it) {
    const auto& key = it->first;
    expiries_.erase({it->second.expires_at_ms, key});
    settled_.erase({it->second.record.first_called_at_ms, key});
    entries_.erase(it);
  }

  const std::size_t max_records_;
  const call_record_evicted on_evicted_;
  std::mutex mutex_;
  entry_map entries_;
  once_index expiries_;  // every record, by expires_at_ms
  once_index settled_;   // applied and unknown records, by first_called_at_ms
};

}  // namespace

std::shared_ptr<call_records> make_memory_call_records(std::size_t max_records,
                                                       call_record_evicted on_evicted) {
  return std::make_shared<memory_call_records>(max_records, std::move(on_evicted));
}

}  // namespace mcpcxx::detail
