// The memory call records: the contract suite (call_records_contract.hpp), then what only the
// memory store promises: the bound drops the oldest settled record (never a running one), and
// records expire by the claiming caller's clock.
#include <atomic>

#include "core/call_records.hpp"
#include "seams/call_records_contract.hpp"

namespace mcpcxx::testing::contract {

INSTANTIATE_TEST_SUITE_P(Memory, CallRecordsContract,
                         ::testing::Values(call_records_factory{
                             "memory",
                             [] {
                               auto store = detail::make_memory_call_records(1000);
                               return call_records_replicas([store] { return store; });
                             }}),
                         call_records_factory_name{});

namespace {

// A claim of `key` by `call` at Unix ms `now`, kept a minute.
detail::call_claim memory_claim_at(const std::string& key, const std::string& call,
                                   std::int64_t now) {
  detail::call_claim c = claim_of(key, call);
  c.now_ms = now;
  return c;
}

}  // namespace

TEST(MemoryCallRecords, TheBoundDropsTheOldestSettledRecordAndNeverARunningOne) {
  std::atomic<int> evicted{0};
  auto store = detail::make_memory_call_records(3, [&] { evicted.fetch_add(1); });
  const std::int64_t t = unix_now_ms();
  const auto applied = outcome_of(detail::call_state::applied, "r", "");
  ASSERT_TRUE(store->claim(memory_claim_at("k1", "c1", t)).claimed);
  ASSERT_TRUE(store->claim(memory_claim_at("k2", "c2", t + 1)).claimed);
  ASSERT_TRUE(store->claim(memory_claim_at("k3", "c3", t + 2)).claimed);
  store->settle("k2", "c2", applied);  // settled first, but its first call came later
  store->settle("k1", "c1", applied);
  ASSERT_TRUE(store->claim(memory_claim_at("k4", "c4", t + 3)).claimed);
  EXPECT_EQ(evicted.load(), 1);
  EXPECT_TRUE(
      refused_by(*store, memory_claim_at("k2", "x", t + 4), detail::call_state::applied, "c2"))
      << "the oldest settled record (k1) goes, not the last settled";
  EXPECT_TRUE(
      refused_by(*store, memory_claim_at("k3", "x", t + 4), detail::call_state::running, "c3"));
  ASSERT_TRUE(store->claim(memory_claim_at("k1", "c5", t + 5)).claimed) << "k1 was dropped";
  EXPECT_EQ(evicted.load(), 2) << "k2 made room for k1";

  // k3, k4, k1 run: beyond the bound, claims still succeed and drop nothing.
  ASSERT_TRUE(store->claim(memory_claim_at("k5", "c6", t + 6)).claimed);
  EXPECT_EQ(evicted.load(), 2);
  for (const auto& [key, call] : {std::pair<const char*, const char*>{"k3", "c3"},
                                  {"k4", "c4"},
                                  {"k1", "c5"},
                                  {"k5", "c6"}}) {
    EXPECT_TRUE(
        refused_by(*store, memory_claim_at(key, "x", t + 7), detail::call_state::running, call))
        << key;
  }
}

TEST(MemoryCallRecords, RecordsExpireByTheClaimingCallersClock) {
  auto store = detail::make_memory_call_records(1000);
  const std::int64_t t = unix_now_ms();
  detail::call_claim first = memory_claim_at("k", "c1", t);
  first.window = std::chrono::hours(2);
  ASSERT_TRUE(store->claim(first).claimed);
  EXPECT_TRUE(refused_by(*store, memory_claim_at("k", "c2", t + 3600000),
                         detail::call_state::running, "c1"))
      << "an hour later, within the window, the record still runs (never replica_lost)";
  EXPECT_TRUE(refused_by(*store, memory_claim_at("k", "c3", t + 7200000 - 1),
                         detail::call_state::running, "c1"));
  EXPECT_TRUE(store->claim(memory_claim_at("k", "c4", t + 7200000)).claimed)
      << "free once first call + window is reached";
}

TEST(MemoryCallRecords, ASettleThatClaimsToBeRunningIsRefused) {
  auto store = detail::make_memory_call_records(10);
  ASSERT_TRUE(store->claim(claim_of("k", "c1")).claimed);
  EXPECT_THROW(store->settle("k", "c1", detail::call_record{}), std::invalid_argument);
}

}  // namespace mcpcxx::testing::contract
