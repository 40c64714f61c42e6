// The Redis request router: the contract suite (tests/cpp/seams/request_router_contract.hpp) with
// a peer replica on the same Redis, then two-router behaviour: routes cross replicas, the
// holder key follows attach/detach/moves, keeps a TTL and is renewed, and Redis outages.
#include "seams/request_router_contract.hpp"
#include "store/store_support.hpp"

namespace mcpcxx::testing::contract {

namespace {

using detail::request_router;

// The prefix of the router a factory made last: its peer joins the same deployment.
std::string& last_router_prefix() {
  static std::string p;
  return p;
}

std::unique_ptr<request_router> router_on(
    const detail::redis_scope& scope, std::chrono::milliseconds ttl = std::chrono::seconds(30)) {
  detail::redis_router_options o;
  o.holder_ttl = ttl;
  return detail::make_redis_request_router(scope, o);
}

}  // namespace

INSTANTIATE_TEST_SUITE_P(Redis, RequestRouterContract,
                         ::testing::Values(router_factory{
                             "redis",
                             [] {
                               last_router_prefix() = fresh_prefix();
                               return router_on(shared_scope(last_router_prefix(), "first"));
                             },
                             [](request_router&) {
                               return router_on(shared_scope(last_router_prefix(), "peer"));
                             }}),
                         router_factory_name{});

class RedisRouterReplicas : public ::testing::Test {
 protected:
  void SetUp() override {
    prefix_ = fresh_prefix();
    a_ = router_on(shared_scope(prefix_, "a"));
    b_ = router_on(shared_scope(prefix_, "b"));
    raw_ = std::make_unique<redis::client>(redis_options_for(shared_redis()));
  }

  std::string holder(const std::string& session) {
    const auto r = raw_->run({"GET", prefix_ + "route:" + session});
    return r.is_nil() ? "(none)" : r.str;
  }

  std::string prefix_;
  std::unique_ptr<request_router> a_;
  std::unique_ptr<request_router> b_;
  std::unique_ptr<redis::client> raw_;
};

TEST_F(RedisRouterReplicas, EachReplicaReachesSessionsHeldByTheOther) {
  auto on_a = make_message_recorder();
  auto on_b = make_message_recorder();
  a_->attach("sa", on_a->inbox());
  b_->attach("sb", on_b->inbox());
  EXPECT_TRUE(b_->route("sa", "to a"));
  EXPECT_TRUE(a_->route("sb", "to b"));
  ASSERT_TRUE(route_fence(*b_, "sa", on_a));
  ASSERT_TRUE(route_fence(*a_, "sb", on_b));
  EXPECT_EQ(on_a->payload_messages(), std::vector<std::string>{"to a"});
  EXPECT_EQ(on_b->payload_messages(), std::vector<std::string>{"to b"});
  EXPECT_FALSE(a_->route("nobody", "m"));
  EXPECT_FALSE(b_->route("nobody", "m"));
}

TEST_F(RedisRouterReplicas, TheHolderKeyNamesTheReplicaAndHasTheTtl) {
  a_->attach("s", make_message_recorder()->inbox());
  EXPECT_EQ(holder("s"), "a");
  const auto ttl = raw_->run({"PTTL", prefix_ + "route:s"}).integer;
  EXPECT_GT(ttl, 0);
  EXPECT_LE(ttl, 30000);
  ASSERT_TRUE(a_->detach("s"));
  EXPECT_EQ(holder("s"), "(none)") << "detach deletes the key";
}

TEST_F(RedisRouterReplicas, ASessionThatMovedIsRoutedToItsNewHolderOnly) {
  auto old_inbox = make_message_recorder();
  auto new_inbox = make_message_recorder();
  a_->attach("moving", old_inbox->inbox());
  b_->attach("moving", new_inbox->inbox());
  EXPECT_EQ(holder("moving"), "b");
  auto c = router_on(shared_scope(prefix_, "c"));
  EXPECT_TRUE(c->route("moving", "from c"));
  ASSERT_TRUE(route_fence(*c, "moving", new_inbox));
  EXPECT_EQ(new_inbox->payload_messages(), std::vector<std::string>{"from c"});
  EXPECT_EQ(old_inbox->count(), 0u);
  EXPECT_TRUE(a_->detach("moving")) << "A still had it attached locally";
  EXPECT_EQ(holder("moving"), "b") << "A's detach leaves B's key alone";
  EXPECT_TRUE(c->route("moving", "still b"));
}

TEST_F(RedisRouterReplicas, AHolderThatDiedWithoutDetachingIsNotRoutedTo) {
  a_->attach("orphan", make_message_recorder()->inbox());
  // A replica killed with SIGKILL leaves its key until the TTL; its channel has no listener.
  raw_->run({"SET", prefix_ + "route:ghost", "dead-replica", "PX", "30000"});
  EXPECT_FALSE(b_->route("ghost", "m")) << "PUBLISH reached nobody";
}

TEST_F(RedisRouterReplicas, KeysAreRenewedWhileAttachedAndExpireAfterTheHolderGoes) {
  auto quick = router_on(shared_scope(prefix_, "quick"), std::chrono::milliseconds(300));
  quick->attach("kept", make_message_recorder()->inbox());
  for (int i = 0; i < 4; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_EQ(holder("kept"), "quick") << "renewed every third of the TTL, round " << i;
  }
  // Deleted behind the router's back (Redis restarted empty): the next renewal writes it again.
  raw_->run({"DEL", prefix_ + "route:kept"});
  ASSERT_TRUE(eventually([&] { return holder("kept") == "quick"; }));
  quick.reset();
  EXPECT_EQ(holder("kept"), "(none)") << "a router going away deletes the keys it holds";
}

TEST_F(RedisRouterReplicas, AMessageForASessionDetachedInTransitIsDropped) {
  auto in = make_message_recorder();
  a_->attach("brief", in->inbox());
  // Delivered on A's subscriber thread: make it wait so the detach lands in between.
  std::atomic<bool> release{false};
  auto blocker = make_message_recorder();
  a_->attach("blocker", [&release, r = blocker->inbox()](std::string m) {
    while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    r(std::move(m));
  });
  ASSERT_TRUE(b_->route("blocker", "hold"));
  ASSERT_TRUE(b_->route("brief", "too late"));
  ASSERT_TRUE(a_->detach("brief"));
  release.store(true);
  ASSERT_TRUE(route_fence(*b_, "blocker", blocker));
  EXPECT_EQ(in->count(), 0u) << "a detached inbox is never called";
}

TEST(RedisRouterOutage, LocalRoutesWorkWhileRedisIsDownAndKeysReturnAfter) {
  redis_server server;
  const std::string prefix = fresh_prefix();
  std::vector<std::string> trouble;
  std::mutex trouble_mutex;
  detail::redis_router_options o;
  o.holder_ttl = std::chrono::milliseconds(600);
  o.on_trouble = [&](std::string_view what) {
    std::lock_guard g(trouble_mutex);
    trouble.emplace_back(what);
  };
  auto a = detail::make_redis_request_router(scope_on(server, prefix, "a"), o);
  auto b = router_on(scope_on(server, prefix, "b"));
  auto in = make_message_recorder();
  server.kill();
  a->attach("local", in->inbox());  // Redis down: attached here, key written later
  EXPECT_TRUE(a->route("local", "still here"));
  EXPECT_EQ(in->count(), 1u) << "delivered locally, synchronously";
  EXPECT_FALSE(b->route("local", "m")) << "another replica cannot reach it while Redis is down";
  server.restart();
  ASSERT_TRUE(eventually([&] { return b->route("local", "after restart"); }))
      << "the key is written again once Redis is back (renewal)";
  ASSERT_TRUE(route_fence(*b, "local", in));
  std::lock_guard g(trouble_mutex);
  ASSERT_FALSE(trouble.empty());
  EXPECT_NE(trouble.front().find("request router: Redis failed"), std::string::npos)
      << trouble.front();
}

}  // namespace mcpcxx::testing::contract
