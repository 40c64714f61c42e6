// Test support of the Redis stores (tests/cpp/store): one private redis-server per test program,
// scopes (client, subscriber options, a fresh key prefix, a replica id) on it, and the check that
// every key the stores wrote has a TTL.
// Everything lives in mcpcxx::testing::contract (the contract suites are compiled in here too).
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "redis/client.hpp"
#include "redis/redis_server.hpp"
#include "store/redis_stores.hpp"

namespace mcpcxx::testing::contract {

/// Whether shared_redis() was called in this program.
inline std::atomic<bool>& shared_redis_started() {
  static std::atomic<bool> started{false};
  return started;
}

/// The redis-server of this test program, started on first use, stopped at exit.
inline redis_server& shared_redis() {
  static redis_server server;
  shared_redis_started().store(true);
  return server;
}

/// Client options for `server` (short timeouts: the tests stop Redis on purpose).
inline redis::options redis_options_for(const redis_server& server) {
  std::string why;
  auto url = redis::parse_store_url(server.url(), &why);
  if (!url) throw std::runtime_error("bad test URL: " + why);
  redis::options o;
  o.url = *url;
  o.connect_timeout = std::chrono::milliseconds(1000);
  o.command_timeout = std::chrono::milliseconds(1000);
  o.backoff_min = std::chrono::milliseconds(20);
  o.backoff_max = std::chrono::milliseconds(200);
  return o;
}

/// A prefix no other scope of this program used ("test<N>:").
inline std::string fresh_prefix() {
  static std::atomic<int> next{0};
  return "test" + std::to_string(next.fetch_add(1)) + ":";
}

/// A scope on `server` with its own client.
inline detail::redis_scope scope_on(const redis_server& server, const std::string& prefix,
                                    const std::string& replica) {
  const redis::options o = redis_options_for(server);
  return {std::make_shared<redis::client>(o), o, prefix, replica};
}

/// A scope on the shared server.
inline detail::redis_scope shared_scope(const std::string& prefix, const std::string& replica) {
  return scope_on(shared_redis(), prefix, replica);
}

/// Every key of `server` under `prefix` ("" for all) with PTTL -1 (no TTL), via SCAN.
inline std::vector<std::string> keys_without_ttl(redis::client& c, const std::string& prefix) {
  std::vector<std::string> out;
  std::string cursor = "0";
  do {
    const auto r = c.run({"SCAN", cursor, "MATCH", prefix + "*", "COUNT", "1000"});
    cursor = r.elements.at(0).str;
    for (const auto& key : r.elements.at(1).elements) {
      if (c.run({"PTTL", key.str}).integer == -1) out.push_back(key.str);
    }
  } while (cursor != "0");
  return out;
}

/// All keys of `server` under `prefix` (SCAN).
inline std::vector<std::string> keys_under(redis::client& c, const std::string& prefix) {
  std::vector<std::string> out;
  std::string cursor = "0";
  do {
    const auto r = c.run({"SCAN", cursor, "MATCH", prefix + "*", "COUNT", "1000"});
    cursor = r.elements.at(0).str;
    for (const auto& key : r.elements.at(1).elements) out.push_back(key.str);
  } while (cursor != "0");
  return out;
}

/// After every test program: the shared server holds no key without a TTL (issue 31: "every
/// key the server writes has a TTL or is deleted by the server").
class every_key_has_a_ttl : public ::testing::Environment {
 public:
  /// Scans the shared server if a test started it.
  void TearDown() override {
    if (!shared_redis_started().load()) return;
    redis::client c(redis_options_for(shared_redis()));
    const auto bare = keys_without_ttl(c, "");
    EXPECT_TRUE(bare.empty()) << bare.size() << " keys without a TTL, e.g. " << bare.front();
  }
};

}  // namespace mcpcxx::testing::contract
