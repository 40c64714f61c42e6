// detail::token_buckets: the buckets of the built-in rate limit (mcpcxx::rate_limit), one per
// key, kept where the server keeps what replicas share: in this process by default, in Redis
// when a shared store is attached (store/token_buckets.cpp), so a limit holds across replicas.
// A bucket holds up to `capacity` tokens, starts full, gains `per_second` tokens a second, and
// each request takes one.
// Thread-safety: take() from any thread, any number at once; each take is atomic per key.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

namespace mcpcxx::detail {

/// A bucket's size and refill rate.
struct bucket_rule {
  double capacity = 1;    ///< tokens when full (>= 1)
  double per_second = 1;  ///< tokens gained per second (> 0)
};

/// Keeps the buckets (see the file comment).
class token_buckets {
 public:
  virtual ~token_buckets() = default;
  /// Takes a token from bucket `key` (created full): 0 when taken, else how long until one is
  /// there (nothing taken). Throws store_unavailable when the shared store does not answer.
  virtual std::chrono::milliseconds take(const std::string& key, const bucket_rule& rule) = 0;
};

/// Buckets in this process: at most `max_keys` (beyond, the buckets refilled longest ago go).
std::shared_ptr<token_buckets> make_memory_token_buckets(std::size_t max_keys = 100000);

}  // namespace mcpcxx::detail
