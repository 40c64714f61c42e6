// The Redis bus bridge: the contract suite (tests/cpp/seams/notification_bus_contract.hpp) for a
// bridged bus on a real redis-server, then what only a distributed bus does: events cross
// replicas exactly once, in each publisher's order, local delivery survives a Redis outage and
// remote delivery resumes after it.
#include <algorithm>
#include <mutex>
#include <thread>

#include "seams/notification_bus_contract.hpp"
#include "store/store_support.hpp"

namespace mcpcxx::testing::contract {

namespace {

using detail::change_event;
using detail::change_kind;
using detail::notification_bus;

[[maybe_unused]] ::testing::Environment* const k_ttl_check =
    ::testing::AddGlobalTestEnvironment(new every_key_has_a_ttl);

std::unique_ptr<notification_bus> bridged(const detail::redis_scope& scope,
                                          detail::bus_error_callback on_error = {}) {
  return detail::make_redis_notification_bus(scope, std::move(on_error));
}

}  // namespace

INSTANTIATE_TEST_SUITE_P(Redis, NotificationBusContract,
                         ::testing::Values(bus_factory{"redis",
                                                       [](detail::bus_error_callback on_error) {
                                                         return bridged(shared_scope(fresh_prefix(),
                                                                                     "contract"),
                                                                        std::move(on_error));
                                                       },
                                                       false}),
                         bus_factory_name{});

// Two replicas (each a memory bus with a bridge) on one Redis and one prefix.
class RedisBusReplicas : public ::testing::Test {
 protected:
  void SetUp() override {
    prefix_ = fresh_prefix();
    a_ = bridged(shared_scope(prefix_, "replica-a"), errors_.callback());
    b_ = bridged(shared_scope(prefix_, "replica-b"), errors_.callback());
  }

  /// Publishes a fence on `from` and waits until every recorder in `to` has it.
  static ::testing::AssertionResult fenced(notification_bus& from, change_kind kind,
                                           const std::vector<std::shared_ptr<event_recorder>>& to) {
    return fence(from, kind, to);
  }

  std::string prefix_;
  error_log errors_;
  std::unique_ptr<notification_bus> a_;
  std::unique_ptr<notification_bus> b_;
};

TEST_F(RedisBusReplicas, AnEventReachesEverySubscriberOnEveryReplicaExactlyOnce) {
  auto on_a = make_recorder();
  auto on_b = make_recorder();
  auto other_kind_on_b = make_recorder();
  a_->subscribe(change_kind::resource_updated, on_a->handler());
  b_->subscribe(change_kind::resource_updated, on_b->handler());
  b_->subscribe(change_kind::list_changed, other_kind_on_b->handler());
  a_->publish({change_kind::resource_updated, "file:///from-a", json{{"n", 1}}});
  b_->publish({change_kind::resource_updated, "file:///from-b", json{{"n", 2}}});
  ASSERT_TRUE(fenced(*a_, change_kind::resource_updated, {on_a, on_b}));
  ASSERT_TRUE(fenced(*b_, change_kind::resource_updated, {on_a, on_b}));
  ASSERT_TRUE(fenced(*a_, change_kind::list_changed, {other_kind_on_b}));
  for (const auto& r : {on_a, on_b}) {
    std::vector<std::string> subjects;
    for (const auto& e : r->payload_events()) subjects.push_back(e.subject);
    std::sort(subjects.begin(), subjects.end());
    EXPECT_EQ(subjects, (std::vector<std::string>{"file:///from-a", "file:///from-b"}))
        << "each event once on each replica: no echo, no loss";
  }
  EXPECT_EQ(other_kind_on_b->count(), 0u);
  EXPECT_EQ(errors_.size(), 0u);
}

TEST_F(RedisBusReplicas, LocalDeliveryStaysSynchronous) {
  auto on_a = make_recorder();
  a_->subscribe(change_kind::list_changed, on_a->handler());
  for (int i = 0; i < 5; ++i) {
    a_->publish({change_kind::list_changed, "tools", nullptr});
    EXPECT_EQ(on_a->count(), static_cast<std::size_t>(i + 1))
        << "delivered before publish returned";
  }
}

TEST_F(RedisBusReplicas, EachPublisherThreadsEventsArriveInOrderOnTheOtherReplica) {
  constexpr int k_threads = 4;
  constexpr int k_per_thread = 400;
  auto on_b = make_recorder();
  b_->subscribe(change_kind::task_status, on_b->handler());
  {
    thread_group publishers;
    for (int t = 0; t < k_threads; ++t) {
      publishers.spawn([this, t] {
        for (int i = 0; i < k_per_thread; ++i) {
          a_->publish({change_kind::task_status, std::to_string(t), json{{"t", t}, {"i", i}}});
        }
      });
    }
  }
  ASSERT_TRUE(fenced(*a_, change_kind::task_status, {on_b}));
  std::vector<std::vector<int>> seen(k_threads);
  for (const auto& e : on_b->payload_events()) {
    seen.at(e.payload.at("t").get<std::size_t>()).push_back(e.payload.at("i").get<int>());
  }
  std::vector<int> in_order(k_per_thread);
  for (int i = 0; i < k_per_thread; ++i) in_order[static_cast<std::size_t>(i)] = i;
  for (int t = 0; t < k_threads; ++t) {
    EXPECT_EQ(seen[static_cast<std::size_t>(t)], in_order) << "publisher thread " << t;
  }
}

TEST_F(RedisBusReplicas, ThreeReplicasEachGetEveryOtherReplicasEvents) {
  auto c = bridged(shared_scope(prefix_, "replica-c"));
  std::vector<std::shared_ptr<event_recorder>> all;
  for (notification_bus* bus : {a_.get(), b_.get(), c.get()}) {
    all.push_back(make_recorder());
    bus->subscribe(change_kind::list_changed, all.back()->handler());
  }
  a_->publish({change_kind::list_changed, "tools", nullptr});
  b_->publish({change_kind::list_changed, "prompts", nullptr});
  c->publish({change_kind::list_changed, "resources", nullptr});
  for (notification_bus* bus : {a_.get(), b_.get(), c.get()}) {
    ASSERT_TRUE(fenced(*bus, change_kind::list_changed, all));
  }
  for (const auto& r : all) EXPECT_EQ(r->count(), 3u);
}

TEST_F(RedisBusReplicas, RemoteHandlerFailuresAreReportedWhereTheHandlerRuns) {
  error_log b_errors;
  auto b = bridged(shared_scope(prefix_, "replica-b2"), b_errors.callback());
  auto after = make_recorder();
  b->subscribe(change_kind::task_status, [](const change_event& e) {
    if (!event_recorder::is_fence(e)) throw std::runtime_error("bad " + e.subject);
  });
  b->subscribe(change_kind::task_status, after->handler());
  a_->publish({change_kind::task_status, "t1", nullptr});
  ASSERT_TRUE(fenced(*a_, change_kind::task_status, {after}));
  EXPECT_EQ(after->count(), 1u);
  EXPECT_EQ(b_errors.sorted(), std::vector<std::string>{"bad t1"});
}

TEST_F(RedisBusReplicas, UnsubscribedRemoteHandlerIsNeverCalledAgain) {
  auto gone = make_recorder();
  auto stays = make_recorder();
  const auto id = b_->subscribe(change_kind::resource_updated, gone->handler());
  b_->subscribe(change_kind::resource_updated, stays->handler());
  a_->publish({change_kind::resource_updated, "before", nullptr});
  ASSERT_TRUE(fenced(*a_, change_kind::resource_updated, {gone, stays}));
  ASSERT_TRUE(b_->unsubscribe(id));
  a_->publish({change_kind::resource_updated, "after", nullptr});
  ASSERT_TRUE(fenced(*a_, change_kind::resource_updated, {stays}));
  EXPECT_EQ(gone->count(), 1u);
  EXPECT_EQ(stays->count(), 2u);
}

TEST_F(RedisBusReplicas, WantedIsTrueOnceBridgedSinceAnotherReplicaMayWantIt) {
  EXPECT_TRUE(a_->wanted(change_kind::task_status, "any task"));
  EXPECT_TRUE(a_->wanted(change_kind::resource_updated, "file:///nobody/here"));
  auto plain = detail::make_memory_notification_bus({});
  EXPECT_FALSE(plain->wanted(change_kind::task_status, "any task")) << "the memory bus is exact";
}

TEST_F(RedisBusReplicas, AHandlerOfARemoteEventMayPublishAndItsEventTravels) {
  auto on_a = make_recorder();
  a_->subscribe(change_kind::resource_updated, on_a->handler());
  notification_bus* b = b_.get();
  b_->subscribe(change_kind::list_changed, [b](const change_event& e) {
    if (!event_recorder::is_fence(e))
      b->publish({change_kind::resource_updated, "echo:" + e.subject});
  });
  a_->publish({change_kind::list_changed, "tools", nullptr});
  ASSERT_TRUE(eventually([&] { return on_a->saw("echo:tools"); }));
  ASSERT_TRUE(fenced(*b_, change_kind::resource_updated, {on_a}));
  EXPECT_EQ(on_a->count(), 1u) << "the reply published by B's handler reached A once";
}

// A private Redis that the test stops and starts again.
class RedisBusOutage : public ::testing::Test {
 protected:
  redis_server server_;
};

TEST_F(RedisBusOutage, LocalDeliveryGoesOnWhileRedisIsDownAndRemoteResumesAfter) {
  const std::string prefix = fresh_prefix();
  std::vector<std::string> trouble;
  std::mutex trouble_mutex;
  detail::bus_bridge_options o;
  o.on_trouble = [&](std::string_view what) {
    std::lock_guard g(trouble_mutex);
    trouble.emplace_back(what);
  };
  auto a_local = detail::make_memory_notification_bus({});
  auto bridge = detail::make_redis_bus_bridge(*a_local, scope_on(server_, prefix, "a"), o);
  auto b = bridged(scope_on(server_, prefix, "b"));
  auto on_a = make_recorder();
  auto on_b = make_recorder();
  a_local->subscribe(change_kind::list_changed, on_a->handler());
  b->subscribe(change_kind::list_changed, on_b->handler());
  ASSERT_TRUE(bridge->connected());
  ASSERT_TRUE(fence(*a_local, change_kind::list_changed, {on_a, on_b}));

  server_.kill();
  ASSERT_TRUE(eventually([&] { return !bridge->connected(); }));
  for (int i = 0; i < 20; ++i) a_local->publish({change_kind::list_changed, "while-down", nullptr});
  EXPECT_EQ(on_a->count(), 20u) << "local subscribers get every event while Redis is down";
  ASSERT_TRUE(eventually([&] { return bridge->lost() >= 20; })) << bridge->lost();

  server_.restart();
  ASSERT_TRUE(eventually([&] { return bridge->connected(); }));
  int probe = 0;
  ASSERT_TRUE(eventually([&] {
    const std::string subject = std::string(k_fence_prefix) + "probe-" + std::to_string(probe++);
    a_local->publish({change_kind::list_changed, subject, nullptr});
    return on_b->saw(subject);
  })) << "remote delivery resumes after the reconnect";
  EXPECT_EQ(on_b->count(), 0u) << "events published while Redis was down are lost, not replayed";
  std::lock_guard g(trouble_mutex);
  ASSERT_GE(trouble.size(), 2u);
  EXPECT_NE(trouble.front().find("notification bus: Redis failed"), std::string::npos)
      << trouble.front();
  EXPECT_NE(trouble.back().find("Redis works again"), std::string::npos) << trouble.back();
}

TEST_F(RedisBusOutage, ABridgeMadeWhileRedisIsDownConnectsLater) {
  server_.kill();
  const std::string prefix = fresh_prefix();
  detail::bus_bridge_options o;
  o.subscribe_wait = std::chrono::milliseconds(50);
  auto a = detail::make_redis_notification_bus(scope_on(server_, prefix, "a"), {}, o);
  auto on_a = make_recorder();
  a->subscribe(change_kind::task_status, on_a->handler());
  a->publish({change_kind::task_status, "local", nullptr});
  EXPECT_EQ(on_a->count(), 1u);
  server_.restart();
  auto b = bridged(scope_on(server_, prefix, "b"));
  auto on_b = make_recorder();
  b->subscribe(change_kind::task_status, on_b->handler());
  ASSERT_TRUE(eventually([&] {
    a->publish({change_kind::task_status, "probe", nullptr});
    return on_b->saw("probe");
  })) << "the bridge made while Redis was down subscribes once it is back";
}

TEST(RedisBusForeignMessages, GarbageOnTheChannelIsReportedAndIgnored) {
  const std::string prefix = fresh_prefix();
  std::atomic<int> reports{0};
  detail::bus_bridge_options o;
  o.on_trouble = [&](std::string_view what) {
    if (what.find("unreadable") != std::string_view::npos) reports.fetch_add(1);
  };
  auto a = detail::make_redis_notification_bus(shared_scope(prefix, "a"), {}, o);
  auto on_a = make_recorder();
  a->subscribe(change_kind::list_changed, on_a->handler());
  redis::client raw(redis_options_for(shared_redis()));
  raw.run({"PUBLISH", prefix + "bus", "not cbor at all \xFF"});
  auto b = bridged(shared_scope(prefix, "b"));
  ASSERT_TRUE(fence(*b, change_kind::list_changed, {on_a}));
  EXPECT_EQ(reports.load(), 1);
  EXPECT_EQ(on_a->count(), 0u);
}

}  // namespace mcpcxx::testing::contract
