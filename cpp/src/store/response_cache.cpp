// The response cache's entries in Redis (redis_stores.hpp): <prefix>rc:<sha256 of the key> holds
// the entry with a PX expiry, so Redis drops it on its own clock; <prefix>rct:<sha256 of the tag>
// is the set of entry keys under a tag, kept as long as its longest-lived entry, and drop()
// deletes its members in one script. Hashed names keep principals and uris out of key names.
#include <string>

#include "state/codec.hpp"
#include "store/redis_stores.hpp"
#include "store/trouble.hpp"

namespace mcpcxx::detail {

namespace {

const std::string k_get_script = R"lua(
local v = redis.call('GET', KEYS[1])
if not v then return false end
return {v, redis.call('PTTL', KEYS[1])}
)lua";

// KEYS[1] the entry, KEYS[2..] its tag sets; ARGV body, ttl ms.
const std::string k_put_script = R"lua(
local ttl = tonumber(ARGV[2])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
for i = 2, #KEYS do
  redis.call('SADD', KEYS[i], KEYS[1])
  if redis.call('PTTL', KEYS[i]) < ttl then redis.call('PEXPIRE', KEYS[i], ttl) end
end
return 1
)lua";

// KEYS[1] a tag set: deletes its entries and itself; returns how many entries it named.
const std::string k_drop_script = R"lua(
local keys = redis.call('SMEMBERS', KEYS[1])
for i = 1, #keys, 500 do
  redis.call('DEL', unpack(keys, i, math.min(i + 499, #keys)))
end
redis.call('DEL', KEYS[1])
return #keys
)lua";

std::string hex_sha256(const std::string& s) { return state::hex_encode(state::sha256(s)); }

class redis_response_cache final : public response_cache_store {
 public:
  redis_response_cache(redis_scope scope, store_trouble_callback on_trouble)
      : scope_(std::move(scope)), trouble_(std::move(on_trouble), "response cache") {}

  std::optional<cached_response> get(const std::string& key) override {
    const auto r =
        trouble_.watch([&] { return scope_.client->eval(k_get_script, {entry_key(key)}, {}); });
    if (r.kind != redis::reply::type::array || r.elements.size() != 2) return std::nullopt;
    const std::int64_t left = r.elements[1].integer;
    if (left <= 0) return std::nullopt;  // expiring this very moment, or without an expiry
    return cached_response{r.elements[0].str, std::chrono::milliseconds(left)};
  }

  void put(const std::string& key, std::string body, std::chrono::milliseconds ttl,
           const std::vector<std::string>& tags) override {
    std::vector<std::string> keys{entry_key(key)};
    for (const auto& t : tags) keys.push_back(tag_key(t));
    trouble_.watch([&] {
      return scope_.client->eval(k_put_script, keys,
                                 {std::move(body), std::to_string(ttl.count())});
    });
  }

  void drop(const std::string& tag) override {
    trouble_.watch([&] { return scope_.client->eval(k_drop_script, {tag_key(tag)}, {}); });
  }

 private:
  std::string entry_key(const std::string& key) const {
    return scope_.key_prefix + "rc:" + hex_sha256(key);
  }
  std::string tag_key(const std::string& tag) const {
    return scope_.key_prefix + "rct:" + hex_sha256(tag);
  }

  redis_scope scope_;
  trouble_reporter trouble_;
};

}  // namespace

std::shared_ptr<response_cache_store> make_redis_response_cache(redis_scope scope,
                                                                store_trouble_callback on_trouble) {
  return std::make_shared<redis_response_cache>(std::move(scope), std::move(on_trouble));
}

}  // namespace mcpcxx::detail
