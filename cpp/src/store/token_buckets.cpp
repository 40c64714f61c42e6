// The rate limit's token buckets in Redis (redis_stores.hpp): one hash per bucket,
// <prefix>rl:<key> {tokens, at}, updated by one Lua script that reads the time from Redis itself,
// so replicas with skewed clocks share one bucket exactly; it expires once it would be full again.
#include <cmath>
#include <string>

#include "store/redis_stores.hpp"
#include "store/trouble.hpp"

namespace mcpcxx::detail {

namespace {

// KEYS[1] the bucket; ARGV capacity, tokens per ms. Returns 0 (taken) or the ms until a token.
const std::string k_bucket_take_script = R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local cap = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(b[1]) or cap
local at = tonumber(b[2]) or now
if now > at then tokens = math.min(cap, tokens + (now - at) * rate) end
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = math.ceil((1 - tokens) / rate) end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now)
redis.call('PEXPIRE', KEYS[1], math.ceil(cap / rate) + 1000)
return wait
)lua";

std::string number_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

class redis_token_buckets final : public token_buckets {
 public:
  redis_token_buckets(redis_scope scope, store_trouble_callback on_trouble)
      : scope_(std::move(scope)), trouble_(std::move(on_trouble), "rate limit") {}

  std::chrono::milliseconds take(const std::string& key, const bucket_rule& rule) override {
    const auto r = trouble_.watch([&] {
      return scope_.client->eval(k_bucket_take_script, {scope_.key_prefix + "rl:" + key},
                                 {number_text(rule.capacity), number_text(rule.per_second / 1000)});
    });
    return std::chrono::milliseconds(r.integer);
  }

 private:
  redis_scope scope_;
  trouble_reporter trouble_;
};

}  // namespace

std::shared_ptr<token_buckets> make_redis_token_buckets(redis_scope scope,
                                                        store_trouble_callback on_trouble) {
  return std::make_shared<redis_token_buckets>(std::move(scope), std::move(on_trouble));
}

}  // namespace mcpcxx::detail
