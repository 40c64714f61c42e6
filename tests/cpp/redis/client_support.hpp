// What the Redis client tests share: client options with short backoffs, the text of the
// redis::unavailable an operation throws, and whether a client answers PING.
#pragma once

#include <chrono>
#include <exception>
#include <string>

#include <gtest/gtest.h>

#include "redis/client.hpp"

namespace mcpcxx::redis {

/// Options for `url` (which must parse) with the tests' timeouts and quick backoff.
inline options test_client_options(const std::string& url) {
  options o;
  std::string why;
  o.url = parse_store_url(url, &why).value_or(store_url{});
  EXPECT_TRUE(why.empty()) << url << ": " << why;
  o.connect_timeout = std::chrono::milliseconds(2000);
  o.command_timeout = std::chrono::milliseconds(1500);
  o.backoff_min = std::chrono::milliseconds(20);
  o.backoff_max = std::chrono::milliseconds(200);
  return o;
}

/// The text of the redis::unavailable `f` throws; a test failure and "" when it throws nothing
/// or something else.
template <typename F>
std::string unavailable_text(F&& f) {
  try {
    f();
  } catch (const unavailable& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected redis::unavailable, got: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected redis::unavailable, nothing was thrown";
  return "";
}

/// True when `c` answers PING now.
inline bool answers_ping(client& c) {
  try {
    return c.run({"PING"}).str == "PONG";
  } catch (const unavailable&) {
    return false;
  }
}

}  // namespace mcpcxx::redis
