// The response cache's memory store and the per-server caches (see response_cache_store.hpp).
#include "core/response_cache_store.hpp"

#include <algorithm>
#include <exception>
#include <list>
#include <unordered_map>
#include <unordered_set>

namespace mcpcxx::detail {

namespace {

using cache_clock = std::chrono::steady_clock;

class memory_response_cache final : public response_cache_store {
 public:
  explicit memory_response_cache(memory_cache_bounds b)
      : max_entries_(std::max<std::size_t>(1, b.max_entries)),
        max_bytes_(std::max<std::size_t>(1, b.max_bytes)),
        clock_(b.clock ? std::move(b.clock) : [] { return cache_clock::now(); }) {}

  std::optional<cached_response> get(const std::string& key) override {
    const auto now = clock_();
    std::lock_guard g(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end()) return std::nullopt;
    if (it->second.expires <= now) {
      erase(it);
      return std::nullopt;
    }
    order_.splice(order_.begin(), order_, it->second.at);  // most recently used first
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(it->second.expires - now);
    return cached_response{it->second.body, left};
  }

  void put(const std::string& key, std::string body, std::chrono::milliseconds ttl,
           const std::vector<std::string>& tags) override {
    const std::size_t bytes = key.size() + body.size();
    if (bytes > max_bytes_) return;  // could never fit: keeping it would empty the cache
    const auto expires = clock_() + ttl;
    std::lock_guard g(mutex_);
    if (auto old = entries_.find(key); old != entries_.end()) erase(old);
    while (!entries_.empty() && (entries_.size() >= max_entries_ || bytes_ + bytes > max_bytes_)) {
      erase(entries_.find(order_.back()));
    }
    order_.push_front(key);
    entries_.emplace(key, entry{std::move(body), expires, bytes, tags, order_.begin()});
    bytes_ += bytes;
    for (const auto& t : tags) tagged_[t].insert(key);
  }

  void drop(const std::string& tag) override {
    std::lock_guard g(mutex_);
    auto t = tagged_.find(tag);
    if (t == tagged_.end()) return;
    const auto keys = std::move(t->second);
    tagged_.erase(t);
    for (const auto& k : keys) {
      if (auto it = entries_.find(k); it != entries_.end()) erase(it);
    }
  }

 private:
  struct entry {
    std::string body;
    cache_clock::time_point expires;
    std::size_t bytes;
    std::vector<std::string> tags;
    std::list<std::string>::iterator at;
  };
  using entry_map = std::unordered_map<std::string, entry>;

  void erase(entry_map::iterator it) {
    for (const auto& t : it->second.tags) {
      auto set = tagged_.find(t);
      if (set == tagged_.end()) continue;
      set->second.erase(it->first);
      if (set->second.empty()) tagged_.erase(set);
    }
    bytes_ -= it->second.bytes;
    order_.erase(it->second.at);
    entries_.erase(it);
  }

  const std::size_t max_entries_;
  const std::size_t max_bytes_;
  const std::function<cache_clock::time_point()> clock_;
  std::mutex mutex_;
  entry_map entries_;
  std::list<std::string> order_;  // keys, most recently used first
  std::unordered_map<std::string, std::unordered_set<std::string>> tagged_;
  std::size_t bytes_ = 0;
};

}  // namespace

std::shared_ptr<response_cache_store> make_memory_response_cache(memory_cache_bounds bounds) {
  return std::make_shared<memory_response_cache>(std::move(bounds));
}

response_caches::response_caches(notification_bus& bus,
                                 std::function<void(const std::string&)> on_trouble)
    : bus_(bus), on_trouble_(std::move(on_trouble)) {}

response_caches::~response_caches() {
  for (const auto s : subscriptions_) bus_.unsubscribe(s);
}

std::shared_ptr<response_cache_store> response_caches::store_for(
    const std::string& name, const memory_cache_bounds& bounds) {
  std::lock_guard g(mutex_);
  if (subscriptions_.empty()) subscribe_once();
  if (shared_) return shared_;
  auto& s = memory_[name];
  if (!s) s = make_memory_response_cache(bounds);
  return s;
}

void response_caches::use_shared(std::shared_ptr<response_cache_store> shared) {
  std::lock_guard g(mutex_);
  shared_ = std::move(shared);
}

void response_caches::drop(const std::string& tag, bool shared_too) {
  std::vector<std::shared_ptr<response_cache_store>> stores;
  {
    std::lock_guard g(mutex_);
    for (const auto& [name, s] : memory_) stores.push_back(s);
    if (shared_ && shared_too) stores.push_back(shared_);
  }
  for (const auto& s : stores) {
    try {
      s->drop(tag);
    } catch (const std::exception& e) {
      // an entry left behind expires by its ttl; the request that changed things succeeded
      if (on_trouble_) on_trouble_(std::string("dropping ") + tag + ": " + e.what());
    }
  }
}

// Subscribed on first use, so a server without a response cache gets no extra subscriber. Called
// under mutex_: the memory bus never calls handlers from subscribe().
// The shared store's entries are dropped once, by the replica where the change happened, before
// its publishing call returns: had every replica dropped them again on the event's arrival, a late
// arrival would drop an entry another replica stored after the change, and the next read would run
// the handler once more.
void response_caches::subscribe_once() {
  subscriptions_.push_back(bus_.subscribe(change_kind::list_changed, [this](const change_event& e) {
    drop("list:" + e.subject, !e.from_other_replica);
  }));
  subscriptions_.push_back(bus_.subscribe(
      change_kind::resource_updated,
      [this](const change_event& e) { drop("res:" + e.subject, !e.from_other_replica); }));
}

}  // namespace mcpcxx::detail
