// Test support for the Redis stores of legacy sessions: one private redis-server for the whole
// test binary (started on first use, killed at exit), clients on it, fresh key prefixes, and the
// TTL audit every Redis test ends with.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "redis/client.hpp"
#include "redis/redis_server.hpp"

namespace mcpcxx::http_test {

/// Client options for `url` with short backoff (a test restarts or stops Redis).
inline redis::options redis_test_options(const std::string& url) {
  redis::options o;
  std::string why;
  o.url = redis::parse_store_url(url, &why).value_or(redis::store_url{});
  EXPECT_TRUE(why.empty()) << url << ": " << why;
  o.connect_timeout = std::chrono::milliseconds(1000);
  o.command_timeout = std::chrono::milliseconds(1000);
  o.backoff_min = std::chrono::milliseconds(10);
  o.backoff_max = std::chrono::milliseconds(50);
  return o;
}

/// The binary's shared redis-server (nullptr and a GTEST_SKIP reason when not installed).
inline testing::redis_server* shared_redis() {
  static std::unique_ptr<testing::redis_server> server =
      testing::redis_server::available() ? std::make_unique<testing::redis_server>() : nullptr;
  return server.get();
}

/// A client of the shared server.
inline std::shared_ptr<redis::client> shared_redis_client() {
  static std::shared_ptr<redis::client> client =
      std::make_shared<redis::client>(redis_test_options(shared_redis()->url()));
  return client;
}

/// A key prefix no other test uses ("mcpcxx-test:<n>:").
inline std::string fresh_prefix() {
  static std::atomic<int> next{0};
  return "mcpcxx-test:" + std::to_string(next++) + ":";
}

/// The keys under `prefix` (SCAN).
inline std::vector<std::string> keys_under(redis::client& c, const std::string& prefix) {
  std::vector<std::string> out;
  std::string cursor = "0";
  do {
    redis::reply r = c.run({"SCAN", cursor, "MATCH", prefix + "*", "COUNT", "1000"});
    cursor = r.elements.at(0).str;
    for (const auto& k : r.elements.at(1).elements) out.push_back(k.str);
  } while (cursor != "0");
  return out;
}

/// Fails the test for every key under `prefix` without a TTL (PTTL -1); returns the keys seen.
inline std::size_t expect_every_key_expires(redis::client& c, const std::string& prefix) {
  const auto keys = keys_under(c, prefix);
  for (const auto& k : keys) {
    const std::int64_t pttl = c.run({"PTTL", k}).integer;
    EXPECT_TRUE(pttl > 0 || pttl == -2) << k << " has no TTL (PTTL " << pttl << ")";
  }
  return keys.size();
}

}  // namespace mcpcxx::http_test
