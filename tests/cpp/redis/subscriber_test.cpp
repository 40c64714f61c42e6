// redis::subscriber against a private redis-server: messages, unsubscribe, subscribing from many
// threads, on_state and resubscription after a restart or a hang, stop().
#include <atomic>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "redis/client.hpp"
#include "redis/redis_server.hpp"
#include "support/wait.hpp"

namespace mcpcxx::redis {
namespace {

using namespace std::chrono_literals;
using ::testing::ElementsAre;
using testing::redis_server;
using testing::wait_until;

options subscriber_options(const std::string& url) {
  options o;
  o.url = parse_store_url(url, nullptr).value_or(store_url{});
  o.connect_timeout = 2000ms;
  o.command_timeout = 1000ms;
  o.backoff_min = 20ms;
  o.backoff_max = 200ms;
  return o;
}

// What a subscriber's callbacks saw, readable from the test thread.
struct inbox {
  std::mutex mutex;
  std::vector<std::pair<std::string, std::string>> messages;
  std::vector<bool> states;

  message_handler handler() {
    return [this](std::string_view channel, std::string_view payload) {
      const std::lock_guard lock(mutex);
      messages.emplace_back(channel, payload);
    };
  }
  std::function<void(bool)> state_handler() {
    return [this](bool up) {
      const std::lock_guard lock(mutex);
      states.push_back(up);
    };
  }
  std::size_t count() {
    const std::lock_guard lock(mutex);
    return messages.size();
  }
  bool has(const std::string& channel, const std::string& payload) {
    const std::lock_guard lock(mutex);
    for (const auto& [c, p] : messages) {
      if (c == channel && p == payload) return true;
    }
    return false;
  }
  std::vector<bool> seen_states() {
    const std::lock_guard lock(mutex);
    return states;
  }
  bool last_state_is(bool up) {
    const std::lock_guard lock(mutex);
    return !states.empty() && states.back() == up;
  }
};

std::int64_t subscribers_of(client& c, const std::string& channel) {
  const reply r = c.run({"PUBSUB", "NUMSUB", channel});
  return r.elements.size() == 2 ? r.elements[1].integer : -1;
}

bool published(client& c, const std::string& channel, const std::string& payload) {
  try {
    return c.run({"PUBLISH", channel, payload}).integer > 0;
  } catch (const unavailable&) {
    return false;
  }
}

TEST(RedisSubscriber, ReceivesMessagesOfItsChannels) {
  redis_server server;
  client pub(subscriber_options(server.url()));
  inbox in;
  subscriber sub(subscriber_options(server.url()), in.handler(), in.state_handler());
  sub.subscribe("alpha");
  sub.subscribe("beta");
  ASSERT_TRUE(sub.wait_subscribed(10s));
  const std::string binary("p\0a\r\ny", 6);
  EXPECT_EQ(pub.run({"PUBLISH", "alpha", "one"}).integer, 1);
  EXPECT_EQ(pub.run({"PUBLISH", "beta", binary}).integer, 1);
  EXPECT_EQ(pub.run({"PUBLISH", "gamma", "not subscribed"}).integer, 0);
  ASSERT_TRUE(wait_until([&] { return in.count() == 2; }));
  EXPECT_TRUE(in.has("alpha", "one"));
  EXPECT_TRUE(in.has("beta", binary));
  EXPECT_THAT(in.seen_states(), ElementsAre(true));
}

TEST(RedisSubscriber, UnsubscribeStopsDelivery) {
  redis_server server;
  client pub(subscriber_options(server.url()));
  inbox in;
  subscriber sub(subscriber_options(server.url()), in.handler());
  sub.subscribe("keep");
  sub.subscribe("drop");
  ASSERT_TRUE(sub.wait_subscribed(10s));
  sub.unsubscribe("drop");
  EXPECT_TRUE(sub.wait_subscribed(1s));  // "keep" only now
  ASSERT_TRUE(wait_until([&] { return subscribers_of(pub, "drop") == 0; }));
  pub.run({"PUBLISH", "drop", "lost"});
  pub.run({"PUBLISH", "keep", "kept"});  // delivered after "lost" would have been
  ASSERT_TRUE(wait_until([&] { return in.has("keep", "kept"); }));
  EXPECT_FALSE(in.has("drop", "lost"));
  sub.subscribe("drop");  // again
  ASSERT_TRUE(sub.wait_subscribed(10s));
  EXPECT_EQ(subscribers_of(pub, "drop"), 1);
}

TEST(RedisSubscriber, SubscribesFromManyThreadsWhileReading) {
  redis_server server;
  client pub(subscriber_options(server.url()));
  inbox in;
  subscriber sub(subscriber_options(server.url()), in.handler());
  std::atomic<bool> done{false};
  std::thread noise([&] {  // messages arrive while channels are added
    while (!done.load()) pub.run({"PUBLISH", "t0-0", "noise"});
  });
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&sub, t] {
      for (int i = 0; i < 25; ++i) sub.subscribe("t" + std::to_string(t) + "-" + std::to_string(i));
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_TRUE(sub.wait_subscribed(10s));
  done = true;
  noise.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(subscribers_of(pub, "t" + std::to_string(t) + "-24"), 1);
  EXPECT_EQ(pub.run({"PUBLISH", "t3-24", "last"}).integer, 1);
  EXPECT_TRUE(wait_until([&] { return in.has("t3-24", "last"); }));
}

TEST(RedisSubscriber, ResubscribesAfterARestartAndReportsState) {
  redis_server server;
  client pub(subscriber_options(server.url()));
  inbox in;
  subscriber sub(subscriber_options(server.url()), in.handler(), in.state_handler());
  sub.subscribe("news");
  ASSERT_TRUE(sub.wait_subscribed(10s));
  ASSERT_TRUE(wait_until([&] { return in.last_state_is(true); }));
  server.kill();
  ASSERT_TRUE(wait_until([&] { return in.last_state_is(false); }));
  EXPECT_FALSE(sub.wait_subscribed(50ms));
  server.restart();
  ASSERT_TRUE(wait_until([&] { return in.last_state_is(true); }));
  EXPECT_TRUE(sub.wait_subscribed(10s));
  EXPECT_THAT(in.seen_states(), ElementsAre(true, false, true));
  ASSERT_TRUE(wait_until([&] { return published(pub, "news", "after restart"); }));
  EXPECT_TRUE(wait_until([&] { return in.has("news", "after restart"); }));
}

TEST(RedisSubscriber, StartsWhileRedisIsDownAndConnectsWhenItComesUp) {
  redis_server server;
  server.kill();
  inbox in;
  subscriber sub(subscriber_options(server.url()), in.handler(), in.state_handler());
  sub.subscribe("later");
  ASSERT_TRUE(wait_until([&] { return in.last_state_is(false); }));
  EXPECT_FALSE(sub.wait_subscribed(50ms));
  server.restart();
  ASSERT_TRUE(sub.wait_subscribed(20s));
  ASSERT_TRUE(
      wait_until([&] { return in.last_state_is(true); }));  // reported after the confirmation
  EXPECT_THAT(in.seen_states(), ElementsAre(false, true));
  client pub(subscriber_options(server.url()));
  EXPECT_EQ(pub.run({"PUBLISH", "later", "x"}).integer, 1);
  EXPECT_TRUE(wait_until([&] { return in.has("later", "x"); }));
}

TEST(RedisSubscriber, NoticesAHungServerThroughItsPing) {
  redis_server server;
  inbox in;
  subscriber sub(subscriber_options(server.url()), in.handler(), in.state_handler());
  sub.subscribe("c");
  ASSERT_TRUE(sub.wait_subscribed(10s));
  server.freeze();  // the connection stays open; only the missing PONG tells
  ASSERT_TRUE(wait_until([&] { return in.last_state_is(false); }));
  server.thaw();
  ASSERT_TRUE(wait_until([&] { return in.last_state_is(true); }));
  EXPECT_TRUE(sub.wait_subscribed(10s));
}

TEST(RedisSubscriber, AThrowingHandlerDoesNotEndTheSubscription) {
  redis_server server;
  client pub(subscriber_options(server.url()));
  std::atomic<int> calls{0};
  subscriber sub(subscriber_options(server.url()), [&](std::string_view, std::string_view) {
    if (calls.fetch_add(1) == 0) throw std::runtime_error("handler failure");
  });
  sub.subscribe("c");
  ASSERT_TRUE(sub.wait_subscribed(10s));
  pub.run({"PUBLISH", "c", "1"});
  pub.run({"PUBLISH", "c", "2"});
  EXPECT_TRUE(wait_until([&] { return calls.load() == 2; }));
}

TEST(RedisSubscriber, NoHandlerRunsAfterStopReturns) {
  redis_server server;
  client pub(subscriber_options(server.url()));
  std::atomic<int> calls{0};
  std::atomic<bool> stopped{false};
  std::atomic<bool> late{false};
  subscriber sub(subscriber_options(server.url()), [&](std::string_view, std::string_view) {
    if (stopped.load()) late = true;
    ++calls;
  });
  sub.subscribe("c");
  ASSERT_TRUE(sub.wait_subscribed(10s));
  std::atomic<bool> done{false};
  std::thread flood([&] {
    while (!done.load()) pub.run({"PUBLISH", "c", "m"});
  });
  ASSERT_TRUE(wait_until([&] { return calls.load() > 10; }));
  sub.stop();
  stopped = true;
  const int at_stop = calls.load();
  ASSERT_TRUE(wait_until([&] { return subscribers_of(pub, "c") == 0; }));  // connection closed
  done = true;
  flood.join();
  EXPECT_EQ(calls.load(), at_stop);
  EXPECT_FALSE(late.load());
  sub.stop();  // twice is fine
}

TEST(RedisSubscriber, WaitSubscribedWithNothingAskedIsTrue) {
  redis_server server;
  subscriber sub(subscriber_options(server.url()), {});
  EXPECT_TRUE(sub.wait_subscribed(1ms));
}

TEST(RedisSubscriber, OverAUnixSocket) {
  redis_server server;
  inbox in;
  subscriber sub(subscriber_options(server.unix_url()), in.handler());
  sub.subscribe("u");
  ASSERT_TRUE(sub.wait_subscribed(10s));
  client pub(subscriber_options(server.url()));
  EXPECT_EQ(pub.run({"PUBLISH", "u", "via unix"}).integer, 1);
  EXPECT_TRUE(wait_until([&] { return in.has("u", "via unix"); }));
}

}  // namespace
}  // namespace mcpcxx::redis
