// The Redis call records: the contract suite (tests/cpp/seams/call_records_contract.hpp) with
// every replica a store object of its own, then what only the shared store does: a claim whose
// replica died reads as unknown/replica_lost, a live replica's claim outlives its lease, the keys
// and their TTLs, and outages throw.
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "seams/call_records_contract.hpp"
#include "store/store_support.hpp"

namespace mcpcxx::testing::contract {

namespace {

using namespace std::chrono_literals;
using detail::call_state;

std::shared_ptr<detail::call_records> records_on(const detail::redis_scope& scope,
                                                 std::chrono::milliseconds lease = 5s) {
  detail::redis_call_records_options o;
  o.lease = lease;
  return detail::make_redis_call_records(scope, o);
}

}  // namespace

INSTANTIATE_TEST_SUITE_P(Redis, CallRecordsContract,
                         ::testing::Values(call_records_factory{
                             "redis",
                             [] {
                               auto prefix = fresh_prefix();
                               auto next = std::make_shared<int>(0);
                               return call_records_replicas([prefix, next] {
                                 return records_on(
                                     shared_scope(prefix, "replica-" + std::to_string((*next)++)));
                               });
                             }}),
                         call_records_factory_name{});

// Replicas a and b (lease 300 ms) on one prefix, and a raw client to look at the keys.
class RedisCallReplicas : public ::testing::Test {
 protected:
  void SetUp() override {
    prefix_ = fresh_prefix();
    a_ = records_on(shared_scope(prefix_, "a"), 300ms);
    b_ = records_on(shared_scope(prefix_, "b"), 300ms);
    raw_ = std::make_unique<redis::client>(redis_options_for(shared_redis()));
  }
  void TearDown() override {
    const auto bare = keys_without_ttl(*raw_, prefix_);
    EXPECT_TRUE(bare.empty()) << bare.size() << " keys without a TTL, e.g. " << bare.front();
  }

  bool lease_exists(const std::string& key) {
    return raw_->run({"EXISTS", prefix_ + "once-lease:" + key}).integer == 1;
  }

  std::string prefix_;
  std::shared_ptr<detail::call_records> a_;
  std::shared_ptr<detail::call_records> b_;
  std::unique_ptr<redis::client> raw_;
};

TEST_F(RedisCallReplicas, AClaimWhoseReplicaDiedReadsAsUnknownReplicaLostOnce) {
  const auto first = claim_of("k", "c1");
  ASSERT_TRUE(a_->claim(first).claimed);
  a_->set_task("k", "c1", "t1");
  a_.reset();  // the replica dies: nobody renews its lease
  ASSERT_TRUE(eventually([&] { return !lease_exists("k"); }));
  auto c = records_on(shared_scope(prefix_, "c"), 300ms);
  std::mutex seen_mutex;
  std::set<std::int64_t> first_calls;
  std::atomic<int> lost{0};
  {
    thread_group threads;
    for (int i = 0; i < 8; ++i) {
      threads.spawn([&, i] {
        const auto o = (i % 2 == 0 ? b_ : c)->claim(claim_of("k", "x" + std::to_string(i)));
        if (!o.claimed && o.record.state == call_state::unknown &&
            o.record.reason == "replica_lost" && o.record.call_id == "c1" &&
            o.record.task_id == "t1") {
          lost.fetch_add(1);
        }
        std::lock_guard g(seen_mutex);
        first_calls.insert(o.record.first_called_at_ms);
      });
    }
  }
  EXPECT_EQ(lost.load(), 8) << "every reader sees the same outcome";
  EXPECT_EQ(first_calls, std::set<std::int64_t>{first.now_ms});
  EXPECT_EQ(raw_->run({"HGET", prefix_ + "once:k", "st"}).str, "unknown") << "stored, once";
  EXPECT_FALSE(lease_exists("k")) << "reading a lost claim takes no lease";
  EXPECT_GT(raw_->run({"PTTL", prefix_ + "once:k"}).integer, 50000) << "the window stays";
}

TEST_F(RedisCallReplicas, OfSixteenTakeoversOfALostClaimExactlyOneClaims) {
  ASSERT_TRUE(a_->claim(claim_of("k", "lost")).claimed);
  a_.reset();
  ASSERT_TRUE(eventually([&] { return !lease_exists("k"); }));
  auto c = records_on(shared_scope(prefix_, "c"), 300ms);
  std::atomic<int> claimed{0};
  {
    thread_group threads;
    for (int i = 0; i < 16; ++i) {
      threads.spawn([&, i] {
        const auto o =
            (i % 2 == 0 ? b_ : c)->claim(claim_of("k", "x" + std::to_string(i), 1min, "lost"));
        if (o.claimed) claimed.fetch_add(1);
      });
    }
  }
  EXPECT_EQ(claimed.load(), 1);
  EXPECT_TRUE(lease_exists("k")) << "the taker holds a lease";
}

TEST_F(RedisCallReplicas, ALiveReplicasClaimStaysRunningPastItsLease) {
  ASSERT_TRUE(a_->claim(claim_of("k", "c1")).claimed);
  for (int i = 0; i < 5; ++i) {
    std::this_thread::sleep_for(200ms);  // past the 300 ms lease: only renewal keeps it
    EXPECT_TRUE(refused_by(*b_, claim_of("k", "x"), call_state::running, "c1")) << "round " << i;
  }
  a_->settle("k", "c1", outcome_of(call_state::applied, "r", ""));
  EXPECT_FALSE(lease_exists("k")) << "settle deletes the lease";
  std::this_thread::sleep_for(400ms);  // renewals after the settle must not bring it back
  EXPECT_FALSE(lease_exists("k"));
  EXPECT_TRUE(refused_by(*b_, claim_of("k", "x"), call_state::applied, "c1"));
}

TEST_F(RedisCallReplicas, TheHolderRestoresALapsedLeaseOfItsRunningClaim) {
  ASSERT_TRUE(a_->claim(claim_of("k", "c1")).claimed);
  raw_->run({"DEL", prefix_ + "once-lease:k"});  // as after a Redis restart kept the record
  ASSERT_TRUE(eventually([&] { return lease_exists("k"); }));
  EXPECT_EQ(raw_->run({"GET", prefix_ + "once-lease:k"}).str, "a");
  EXPECT_TRUE(refused_by(*b_, claim_of("k", "x"), call_state::running, "c1"));
}

TEST_F(RedisCallReplicas, TheKeysAndTheirTtls) {
  const auto first = claim_of("k", "c1", 60s);
  ASSERT_TRUE(a_->claim(first).claimed);
  ASSERT_TRUE(b_->claim(claim_of("gone", "c2", 60s)).claimed);
  EXPECT_EQ((std::set<std::string>{prefix_ + "once:k", prefix_ + "once-lease:k",
                                   prefix_ + "once:gone", prefix_ + "once-lease:gone"}),
            [&] {
              const auto keys = keys_under(*raw_, prefix_);
              return std::set<std::string>(keys.begin(), keys.end());
            }());
  const auto record_ttl = raw_->run({"PTTL", prefix_ + "once:k"}).integer;
  EXPECT_GT(record_ttl, 50000);
  EXPECT_LE(record_ttl, 60000) << "PXAT first call + window";
  const auto lease_ttl = raw_->run({"PTTL", prefix_ + "once-lease:k"}).integer;
  EXPECT_GT(lease_ttl, 0);
  EXPECT_LE(lease_ttl, 300);
  EXPECT_EQ(raw_->run({"HGET", prefix_ + "once:k", "at"}).str, std::to_string(first.now_ms));

  a_->settle("k", "c1", outcome_of(call_state::unknown, "", "cancelled"));
  b_->release("gone", "c2");
  const auto keys = keys_under(*raw_, prefix_);
  EXPECT_EQ(std::set<std::string>(keys.begin(), keys.end()),
            std::set<std::string>{prefix_ + "once:k"})
      << "settle deletes the lease, release both keys";
  EXPECT_GT(raw_->run({"PTTL", prefix_ + "once:k"}).integer, 50000) << "settle keeps the TTL";
}

TEST(RedisCallRecordsOutage, CallsThrowUnavailableAndWorkAgainAfterTheRestart) {
  redis_server server;
  std::mutex trouble_mutex;
  std::vector<std::string> trouble;
  detail::redis_call_records_options o;
  o.on_trouble = [&](std::string_view what) {
    std::lock_guard g(trouble_mutex);
    trouble.emplace_back(what);
  };
  auto store = detail::make_redis_call_records(scope_on(server, fresh_prefix(), "a"), o);
  ASSERT_TRUE(store->claim(claim_of("k", "c1")).claimed);
  server.kill();
  EXPECT_THROW(store->claim(claim_of("k2", "c2")), redis::unavailable);
  EXPECT_THROW(store->settle("k", "c1", outcome_of(call_state::applied, "r", "")),
               redis::unavailable);
  EXPECT_THROW(store->set_task("k", "c1", "t"), redis::unavailable);
  EXPECT_THROW(store->release("k", "c1"), redis::unavailable);
  server.restart();  // empty: the record is gone with the data
  ASSERT_TRUE(eventually([&] {
    try {
      return store->claim(claim_of("k", "c3")).claimed;
    } catch (const redis::unavailable&) {
      return false;  // still backing off
    }
  }));
  std::lock_guard g(trouble_mutex);
  ASSERT_GE(trouble.size(), 2u);
  EXPECT_NE(trouble.front().find("call records: Redis failed"), std::string::npos);
  EXPECT_NE(trouble.back().find("Redis works again"), std::string::npos);
}

}  // namespace mcpcxx::testing::contract
