// detail::response_cache_store: where the built-in response cache (mcpcxx::response_cache) keeps
// its entries: in this process by default (bounded, least recently used evicted first), in Redis
// when a shared store is attached (store/response_cache.cpp; Redis expires the entries), so a
// result one replica cached is served by the others. Entries carry tags ("list:tools",
// "res:<uri>") that drop() removes them by, when a list or a resource changes.
// detail::response_caches: the caches of one server: a memory store per cache name, or the shared
// store, and the bus subscription that drops entries when lists and resources change (also the
// changes other replicas publish, which the store's bus bridge delivers).
// Thread-safety: every member may be called from any thread at once.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/notification_bus.hpp"

namespace mcpcxx::detail {

/// One entry found: the stored text and how long it still lives.
struct cached_response {
  std::string body;
  std::chrono::milliseconds remaining{0};
};

/// Keeps the entries (see the file comment).
class response_cache_store {
 public:
  virtual ~response_cache_store() = default;
  /// The live entry at `key`, or nullopt. The shared store throws store_unavailable when it does
  /// not answer.
  virtual std::optional<cached_response> get(const std::string& key) = 0;
  /// Stores `body` at `key` for `ttl` (> 0), findable by each of `tags`; may throw like get().
  virtual void put(const std::string& key, std::string body, std::chrono::milliseconds ttl,
                   const std::vector<std::string>& tags) = 0;
  /// Removes every entry tagged `tag`; may throw like get().
  virtual void drop(const std::string& tag) = 0;
};

/// The bounds of a memory store.
struct memory_cache_bounds {
  std::size_t max_entries = 10000;    ///< entries at most (>= 1)
  std::size_t max_bytes = 64u << 20;  ///< key and body bytes at most (>= 1)
  /// The time entries expire by (tests inject one); empty: std::chrono::steady_clock.
  std::function<std::chrono::steady_clock::time_point()> clock;
};

/// A store in this process within `bounds`: beyond them the least recently used entries go.
std::shared_ptr<response_cache_store> make_memory_response_cache(memory_cache_bounds bounds);

/// The response caches of one server (see the file comment).
class response_caches {
 public:
  /// Drops entries on the list and resource changes `bus` carries; `on_trouble` hears about a
  /// drop the shared store failed.
  response_caches(notification_bus& bus, std::function<void(const std::string&)> on_trouble);
  ~response_caches();
  response_caches(const response_caches&) = delete;
  response_caches& operator=(const response_caches&) = delete;

  /// The store of cache `name`: the shared one when attached, else its memory store (made with
  /// `bounds` on first use).
  std::shared_ptr<response_cache_store> store_for(const std::string& name,
                                                  const memory_cache_bounds& bounds);
  /// Moves every cache to `shared` (the engine, when it attaches a shared store).
  void use_shared(std::shared_ptr<response_cache_store> shared);
  /// Drops the entries tagged `tag` from every store (what a change event does); with
  /// `shared_too` false the shared store is left alone (an event another replica published).
  void drop(const std::string& tag, bool shared_too = true);

 private:
  void subscribe_once();

  notification_bus& bus_;
  std::function<void(const std::string&)> on_trouble_;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<response_cache_store>> memory_;
  std::shared_ptr<response_cache_store> shared_;
  std::vector<notification_bus::subscription> subscriptions_;
};

}  // namespace mcpcxx::detail
