// The session_store contract (session_store_contract.hpp says how an implementation instantiates
// it): records round-trip, capacity and duplicate refusal, last use only moving forward, expiry
// by cutoff honouring `active`, removal, take_all, concurrent inserts at the capacity, bytes, and
// the client state (info, log level, subscriptions) stored and updated alone.
#include "http/session_store_contract.hpp"

#include <algorithm>
#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "transport/http/session_table.hpp"

namespace mcpcxx::http_test {

using http::session_record;

std::string session_store_factory_name(
    const ::testing::TestParamInfo<session_store_factory>& info) {
  return info.param.name;
}

namespace {

// A record with a fresh id, used last at `last_used_ns`.
session_record contract_record(std::int64_t last_used_ns, std::string capabilities = "{}") {
  return {http::mint_session_id(), "user:alice", "2025-11-25", std::move(capabilities),
          last_used_ns};
}

std::set<std::string> ids_of(const std::vector<session_record>& records) {
  std::set<std::string> out;
  for (const auto& r : records) out.insert(r.id);
  return out;
}

const http::session_active_fn k_none_active = [](const std::string&) { return false; };

}  // namespace

TEST_P(SessionStoreContract, AStoredRecordIsFoundWithEveryField) {
  auto store = make_store(4);
  session_record r{http::mint_session_id(), "sub:42|iss:https://as.example", "2025-06-18",
                   R"({"roots":{"listChanged":true},"sampling":{}})", 12345};
  ASSERT_TRUE(store->insert(r));
  auto found = store->find(r.id);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->id, r.id);
  EXPECT_EQ(found->principal_key, "sub:42|iss:https://as.example");
  EXPECT_EQ(found->protocol_version, "2025-06-18");
  EXPECT_EQ(found->client_capabilities, R"({"roots":{"listChanged":true},"sampling":{}})");
  EXPECT_EQ(found->last_used_ns, 12345);
  EXPECT_FALSE(store->find(http::mint_session_id()));
  EXPECT_EQ(store->size(), 1u);
}

TEST_P(SessionStoreContract, TheClientStateIsStoredAndUpdatedAlone) {
  auto store = make_store(4);
  session_record r = contract_record(7);
  r.client_info = R"({"name":"c","version":"1"})";
  r.log_level = "info";
  r.subscriptions = {"file:///a", "file:///b"};
  ASSERT_TRUE(store->insert(r));
  auto found = store->find(r.id);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->client_info, R"({"name":"c","version":"1"})");
  EXPECT_EQ(found->log_level, "info");
  EXPECT_EQ(found->subscriptions, (std::vector<std::string>{"file:///a", "file:///b"}));
  EXPECT_TRUE(store->update(r.id, {"error", {"file:///c", "file:///a"}, {"file:///b"}}));
  found = store->find(r.id);
  EXPECT_EQ(found->log_level, "error");
  EXPECT_EQ(found->subscriptions, (std::vector<std::string>{"file:///a", "file:///c"}))
      << "sorted, each once";
  EXPECT_EQ(found->last_used_ns, 7) << "an update is not a use";
  EXPECT_EQ(found->principal_key, "user:alice");
  EXPECT_TRUE(store->update(r.id, {std::nullopt, {}, {"file:///a", "file:///z"}}));
  found = store->use(r.id, 9);
  ASSERT_TRUE(found) << "use() is touch() and find()";
  EXPECT_EQ(found->log_level, "error") << "no level given: unchanged";
  EXPECT_EQ(found->subscriptions, std::vector<std::string>{"file:///c"});
  EXPECT_EQ(found->last_used_ns, 9);
  const std::string gone = http::mint_session_id();
  EXPECT_FALSE(store->update(gone, {"debug", {"file:///x"}, {}}));
  EXPECT_FALSE(store->find(gone)) << "update creates nothing";
  EXPECT_FALSE(store->use(gone, 10));
  EXPECT_EQ(store->missing({r.id, gone}), std::vector<std::string>{gone});
}

TEST_P(SessionStoreContract, InsertIsRefusedWhenFullOrTheIdIsTaken) {
  auto store = make_store(2);
  session_record a = contract_record(1);
  session_record b = contract_record(2);
  session_record c = contract_record(3);
  EXPECT_FALSE(store->full());
  ASSERT_TRUE(store->insert(a));
  session_record twin = a;
  twin.principal_key = "user:mallory";
  EXPECT_FALSE(store->insert(twin)) << "an id already present";
  EXPECT_EQ(store->find(a.id)->principal_key, "user:alice");
  ASSERT_TRUE(store->insert(b));
  EXPECT_TRUE(store->full());
  EXPECT_FALSE(store->insert(c)) << "beyond max_sessions";
  EXPECT_FALSE(store->find(c.id));
  EXPECT_EQ(store->size(), 2u);
  EXPECT_TRUE(store->remove(a.id));
  EXPECT_FALSE(store->full());
  EXPECT_TRUE(store->insert(c));
  EXPECT_EQ(store->size(), 2u);
}

TEST_P(SessionStoreContract, TouchMovesTheLastUseForwardOnly) {
  auto store = make_store(4);
  session_record r = contract_record(100);
  ASSERT_TRUE(store->insert(r));
  EXPECT_TRUE(store->touch(r.id, 250));
  EXPECT_EQ(store->find(r.id)->last_used_ns, 250);
  EXPECT_TRUE(store->touch(r.id, 200));
  EXPECT_EQ(store->find(r.id)->last_used_ns, 250) << "never backwards";
  EXPECT_FALSE(store->touch(http::mint_session_id(), 300)) << "no such record";
  EXPECT_EQ(store->size(), 1u) << "touch creates nothing";
}

TEST_P(SessionStoreContract, RemoveSaysWhetherTheRecordWasThere) {
  auto store = make_store(4);
  session_record r = contract_record(1);
  ASSERT_TRUE(store->insert(r));
  EXPECT_TRUE(store->remove(r.id));
  EXPECT_FALSE(store->remove(r.id));
  EXPECT_FALSE(store->find(r.id));
  EXPECT_EQ(store->size(), 0u);
}

TEST_P(SessionStoreContract, ExpiryTakesRecordsUsedAtOrBeforeTheCutoffThatAreNotActive) {
  auto store = make_store(8);
  session_record a = contract_record(10);
  session_record b = contract_record(20);
  session_record c = contract_record(30);
  session_record busy = contract_record(10);
  for (const auto& r : {a, b, c, busy}) ASSERT_TRUE(store->insert(r));
  EXPECT_TRUE(store->take_expired(9, k_none_active).empty());
  auto taken = store->take_expired(20, [&](const std::string& id) { return id == busy.id; });
  EXPECT_EQ(ids_of(taken), (std::set<std::string>{a.id, b.id}));
  for (const auto& r : taken) {
    EXPECT_EQ(r.principal_key, "user:alice");
    EXPECT_EQ(r.protocol_version, "2025-11-25");
  }
  EXPECT_EQ(store->size(), 2u);
  EXPECT_FALSE(store->find(a.id));
  EXPECT_TRUE(store->find(busy.id)) << "active sessions are spared";
  EXPECT_TRUE(store->touch(busy.id, 40));
  EXPECT_EQ(ids_of(store->take_expired(35, k_none_active)), (std::set<std::string>{c.id}))
      << "the touched record is used later than the cutoff";
  EXPECT_EQ(ids_of(store->take_expired(40, k_none_active)), (std::set<std::string>{busy.id}));
  EXPECT_EQ(store->size(), 0u);
}

TEST_P(SessionStoreContract, TakeAllEmptiesTheStore) {
  auto store = make_store(3);
  std::vector<session_record> records{contract_record(1), contract_record(2), contract_record(3)};
  for (const auto& r : records) ASSERT_TRUE(store->insert(r));
  ASSERT_TRUE(store->full());
  auto all = store->take_all();
  EXPECT_EQ(ids_of(all), ids_of(records));
  EXPECT_EQ(store->size(), 0u);
  EXPECT_FALSE(store->full());
  for (const auto& r : records) EXPECT_FALSE(store->find(r.id));
  EXPECT_TRUE(store->take_all().empty());
}

TEST_P(SessionStoreContract, ConcurrentInsertsStopExactlyAtTheCapacity) {
  constexpr int k_threads = 4;
  constexpr int k_per_thread = 40;
  constexpr std::size_t k_max = 100;
  auto store = make_store(k_max);
  std::atomic<std::size_t> accepted{0};
  std::vector<std::thread> threads;
  threads.reserve(k_threads);
  for (int t = 0; t < k_threads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < k_per_thread; ++i) {
        if (store->insert(contract_record(i))) ++accepted;
        store->touch(http::mint_session_id(), i);  // misses, concurrently
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(accepted.load(), k_max);
  EXPECT_EQ(store->size(), k_max);
  EXPECT_TRUE(store->full());
  EXPECT_EQ(store->take_all().size(), k_max);
}

TEST_P(SessionStoreContract, BytesGrowWithRecordsAndShrinkWhenTheyGo) {
  auto store = make_store(8);
  const std::size_t empty = store->bytes();
  session_record small = contract_record(1);
  ASSERT_TRUE(store->insert(small));
  const std::size_t one = store->bytes();
  EXPECT_GT(one, empty + small.id.size());
  session_record big = contract_record(2, "{\"x\":\"" + std::string(3000, 'y') + "\"}");
  ASSERT_TRUE(store->insert(big));
  const std::size_t two = store->bytes();
  EXPECT_GE(two, one + 3000);
  EXPECT_TRUE(store->remove(big.id));
  EXPECT_LE(store->bytes() + 3000, two);
  store->take_all();
  EXPECT_LT(store->bytes(), one);
}

}  // namespace mcpcxx::http_test
