// Token buckets in this process (see token_buckets.hpp).
#include "core/token_buckets.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <unordered_map>

namespace mcpcxx::detail {

namespace {

using clock = std::chrono::steady_clock;

class memory_token_buckets final : public token_buckets {
 public:
  explicit memory_token_buckets(std::size_t max_keys)
      : max_keys_(std::max<std::size_t>(1, max_keys)) {}

  std::chrono::milliseconds take(const std::string& key, const bucket_rule& rule) override {
    const auto now = clock::now();
    std::lock_guard g(mutex_);
    auto it = buckets_.find(key);
    if (it == buckets_.end()) {
      if (buckets_.size() >= max_keys_) evict(now, rule);
      it = buckets_.emplace(key, bucket{rule.capacity, now}).first;
    }
    bucket& b = it->second;
    const double elapsed = std::chrono::duration<double>(now - b.at).count();
    b.tokens = std::min(rule.capacity, b.tokens + elapsed * rule.per_second);
    b.at = now;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return std::chrono::milliseconds(0);
    }
    const double wait_s = (1 - b.tokens) / rule.per_second;
    return std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(wait_s * 1000)));
  }

 private:
  struct bucket {
    double tokens;
    clock::time_point at;
  };

  // Drops the buckets that would be full again by now (they hold nothing a new one would not),
  // else the one touched longest ago.
  void evict(clock::time_point now, const bucket_rule& rule) {
    const auto full_after = std::chrono::duration<double>(rule.capacity / rule.per_second);
    std::erase_if(buckets_, [&](const auto& kv) { return now - kv.second.at >= full_after; });
    if (buckets_.size() < max_keys_) return;
    auto oldest =
        std::min_element(buckets_.begin(), buckets_.end(),
                         [](const auto& a, const auto& b) { return a.second.at < b.second.at; });
    buckets_.erase(oldest);
  }

  const std::size_t max_keys_;
  std::mutex mutex_;
  std::unordered_map<std::string, bucket> buckets_;
};

}  // namespace

std::shared_ptr<token_buckets> make_memory_token_buckets(std::size_t max_keys) {
  return std::make_shared<memory_token_buckets>(max_keys);
}

}  // namespace mcpcxx::detail
