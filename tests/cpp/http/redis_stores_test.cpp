// The Redis stores of legacy sessions against a private redis-server: both contract suites, what
// only a shared store promises (two store objects on one Redis, as two replicas, see each other's
// records and events; ids stay unique and exact), that every key has a TTL or is deleted, and the
// failure when Redis is stopped or hung (detail::store_unavailable, never a hang).
#include "http/redis_stores.hpp"

#include <algorithm>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "core/store_unavailable.hpp"
#include "http/event_store_contract.hpp"
#include "http/fixture.hpp"
#include "http/session_store_contract.hpp"
#include "transport/http/redis_event_store.hpp"
#include "transport/http/redis_keys.hpp"
#include "transport/http/redis_session_store.hpp"
#include "transport/http/session_table.hpp"

namespace mcpcxx::http_test {

namespace {

constexpr auto k_ttl = std::chrono::milliseconds(60000);

// The prefixes the contract factories handed out; their keys are audited at the end.
std::vector<std::string>& contract_prefixes() {
  static std::vector<std::string> prefixes;
  return prefixes;
}

std::string contract_prefix() {
  contract_prefixes().push_back(fresh_prefix());
  return contract_prefixes().back();
}

// After each contract test: every key it left has a TTL.
class contract_audit : public ::testing::EmptyTestEventListener {
  void OnTestEnd(const ::testing::TestInfo&) override {
    for (const auto& p : contract_prefixes()) expect_every_key_expires(*shared_redis_client(), p);
    contract_prefixes().clear();
  }
};

[[maybe_unused]] const bool k_audit_installed = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new contract_audit);
  return true;
}();

}  // namespace

INSTANTIATE_TEST_SUITE_P(Redis, SessionStoreContract,
                         ::testing::Values(session_store_factory{
                             "redis",
                             [](std::size_t max_sessions) {
                               return std::make_shared<http::redis_session_store>(
                                   shared_redis_client(), contract_prefix(), max_sessions, k_ttl);
                             }}),
                         session_store_factory_name);

INSTANTIATE_TEST_SUITE_P(Redis, EventStoreContract,
                         ::testing::Values(event_store_factory{
                             "redis",
                             [](std::size_t capacity) {
                               return std::make_shared<http::redis_event_store>(
                                   shared_redis_client(), contract_prefix(), capacity, k_ttl);
                             }}),
                         event_store_factory_name);

namespace {

using http::event_position;
using http::session_record;

// Two store objects on one Redis and prefix: two replicas.
struct two_replicas {
  std::string prefix = fresh_prefix();
  std::shared_ptr<redis::client> client_a =
      std::make_shared<redis::client>(redis_test_options(shared_redis()->url()));
  std::shared_ptr<redis::client> client_b =
      std::make_shared<redis::client>(redis_test_options(shared_redis()->url()));
  http::redis_session_store records_a{client_a, prefix, 3, k_ttl};
  http::redis_session_store records_b{client_b, prefix, 3, k_ttl};
  http::redis_event_store events_a{client_a, prefix, 4, k_ttl};
  http::redis_event_store events_b{client_b, prefix, 4, k_ttl};

  ~two_replicas() { expect_every_key_expires(*client_a, prefix); }
};

session_record record_at(std::int64_t last_used_ns) {
  return {http::mint_session_id(), "user:alice", "2025-11-25", R"({"roots":{}})", last_used_ns};
}

TEST(HttpRedisSessionStore, TwoReplicasSeeEachOthersRecordsAndChanges) {
  two_replicas r;
  session_record rec = record_at(100);
  rec.client_info = R"({"name":"c","version":"1"})";
  ASSERT_TRUE(r.records_a.insert(rec));
  auto seen = r.records_b.find(rec.id);
  ASSERT_TRUE(seen);
  EXPECT_EQ(seen->principal_key, "user:alice");
  EXPECT_EQ(seen->client_info, R"({"name":"c","version":"1"})");
  EXPECT_EQ(seen->log_level, "");
  EXPECT_TRUE(seen->subscriptions.empty());
  EXPECT_TRUE(r.records_b.update(rec.id, {"warning", {"file:///b", "file:///a"}, {}}));
  EXPECT_TRUE(r.records_a.update(rec.id, {std::nullopt, {}, {"file:///b"}}));
  auto used = r.records_a.use(rec.id, 200);
  ASSERT_TRUE(used);
  EXPECT_EQ(used->log_level, "warning");
  EXPECT_EQ(used->subscriptions, std::vector<std::string>{"file:///a"});
  EXPECT_EQ(used->last_used_ns, 200);
  EXPECT_FALSE(r.records_b.insert(rec)) << "the id is taken on every replica";
  EXPECT_TRUE(r.records_b.remove(rec.id));
  EXPECT_FALSE(r.records_a.find(rec.id));
  EXPECT_FALSE(r.records_a.update(rec.id, {"debug", {}, {}}));
  EXPECT_FALSE(r.records_a.use(rec.id, 300));
}

TEST(HttpRedisSessionStore, TheCapacityCountsTheRecordsOfEveryReplica) {
  two_replicas r;
  ASSERT_TRUE(r.records_a.insert(record_at(1)));
  ASSERT_TRUE(r.records_b.insert(record_at(2)));
  ASSERT_TRUE(r.records_a.insert(record_at(3)));
  EXPECT_TRUE(r.records_b.full());
  EXPECT_FALSE(r.records_b.insert(record_at(4)));
  EXPECT_EQ(r.records_a.size(), 3u);
  EXPECT_EQ(r.records_b.take_all().size(), 3u) << "take_all takes every replica's records";
  EXPECT_EQ(r.records_a.size(), 0u);
}

TEST(HttpRedisSessionStore, LastUsesAreComparedExactlyAtWallClockMagnitudes) {
  two_replicas r;
  // 2^60 + 1 and 2^60 + 2: one double, two different times.
  const std::int64_t base = (std::int64_t{1} << 60) + 1;
  session_record older = record_at(base);
  session_record newer = record_at(base + 1);
  ASSERT_TRUE(r.records_a.insert(older));
  ASSERT_TRUE(r.records_a.insert(newer));
  EXPECT_TRUE(r.records_b.touch(older.id, base - 5));
  EXPECT_EQ(r.records_b.find(older.id)->last_used_ns, base) << "never backwards";
  auto taken = r.records_b.take_expired(base, [](const std::string&) { return false; });
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0].id, older.id);
  EXPECT_TRUE(r.records_a.find(newer.id));
}

TEST(HttpRedisSessionStore, ARecordGoneByItsTtlLeavesOnlyAnIndexEntryThatIsDropped) {
  two_replicas r;
  session_record rec = record_at(10);
  ASSERT_TRUE(r.records_a.insert(rec));
  // What Redis does when the TTL passes with no replica left to reap it.
  r.client_a->run({"DEL", http::redis_session_keys::of(r.prefix, rec.id).rec});
  EXPECT_EQ(r.records_a.missing({rec.id}), std::vector<std::string>{rec.id});
  EXPECT_EQ(r.records_a.size(), 1u) << "counted until dropped";
  EXPECT_TRUE(r.records_b.take_expired(10, [](const std::string&) { return false; }).empty());
  EXPECT_EQ(r.records_a.size(), 0u);
  // An insert drops the entries last used longer than the TTL ago (by their score).
  session_record old = record_at(20);
  ASSERT_TRUE(r.records_a.insert(old));
  r.client_a->run({"DEL", http::redis_session_keys::of(r.prefix, old.id).rec});
  const std::int64_t later = 20 + std::chrono::nanoseconds(k_ttl).count() + 1;
  ASSERT_TRUE(r.records_b.insert(record_at(later)));
  EXPECT_EQ(r.records_b.size(), 1u) << "the older entry was past its TTL";
}

TEST(HttpRedisSessionStore, EveryKeyHasTheTtlAndTouchRenewsTheSessionsEventKeysToo) {
  two_replicas r;
  session_record rec = record_at(10);
  rec.subscriptions = {"file:///x"};
  ASSERT_TRUE(r.records_a.insert(rec));
  auto events = r.events_a.open(rec.id);
  events->cancel(events->open_stream(), jsonrpc::request_id{std::int64_t{1}});
  events->append(0, "g");
  const auto keys = http::redis_session_keys::of(r.prefix, rec.id);
  for (const auto& k : {keys.rec, keys.subs, keys.ev_meta, keys.ev_log, keys.ev_cxl}) {
    const auto pttl = r.client_a->run({"PTTL", k}).integer;
    EXPECT_GT(pttl, 0) << k;
    EXPECT_LE(pttl, k_ttl.count()) << k;
    r.client_a->run({"PEXPIRE", k, "5000"});
  }
  ASSERT_TRUE(r.records_b.touch(rec.id, 11));
  for (const auto& k : {keys.rec, keys.subs, keys.ev_meta, keys.ev_log, keys.ev_cxl}) {
    EXPECT_GT(r.client_a->run({"PTTL", k}).integer, 5000) << k << " renewed by touch";
  }
  EXPECT_GE(expect_every_key_expires(*r.client_a, r.prefix), 7u) << "index keys included";
  EXPECT_TRUE(r.records_b.remove(rec.id));
  r.events_b.forget(rec.id);
  EXPECT_EQ(keys_under(*r.client_a, r.prefix + "{s:").size(), 0u) << "remove and forget delete";
}

TEST(HttpRedisEventStore, TwoReplicasNumberOneSessionsEventsTogether) {
  two_replicas r;
  const std::string sid = http::mint_session_id();
  auto a = r.events_a.open(sid);
  auto b = r.events_b.open(sid);
  EXPECT_EQ(a->open_stream(), 1u);
  EXPECT_EQ(b->open_stream(), 2u) << "stream numbers are the session's, across replicas";
  const std::string a1 = a->append(1, "a1");
  const std::string b1 = b->append(2, "b1");
  const std::string a2 = a->append(0, "g");
  EXPECT_EQ(a1, "id: 1-1\nevent: message\ndata: a1\n\n");
  EXPECT_EQ(b1, "id: 2-2\nevent: message\ndata: b1\n\n");
  EXPECT_EQ(a2, "id: 0-3\nevent: message\ndata: g\n\n");
  std::vector<std::string> replayed;
  b->replay({1, 0}, [&](std::string_view t) { replayed.emplace_back(t); });
  EXPECT_EQ(replayed, std::vector<std::string>{a1}) << "B replays what A appended, byte for byte";
  EXPECT_TRUE(b->issued({0, 3}));
  EXPECT_FALSE(b->issued({0, 4}));
  a->finish(1);
  EXPECT_EQ(b->state(1).now, http::stream_state::phase::ended);
  EXPECT_EQ(a->state(2).now, http::stream_state::phase::running);
  b->cancel(2, jsonrpc::request_id{std::string("r2")});
  EXPECT_EQ(a->state(2).request, jsonrpc::request_id{std::string("r2")});
  r.events_a.forget(sid);
  EXPECT_NO_THROW(b->append(0, "late"));
  EXPECT_FALSE(b->issued({0, 3})) << "B's handle is no longer the session's record";
  auto fresh = r.events_b.open(sid);
  EXPECT_EQ(fresh->open_stream(), 1u) << "a forgotten session starts afresh everywhere";
  r.events_b.forget(sid);
}

// Every copy of a session gets a bus notification: the log keeps it once, and each copy gets
// the kept event's text (the one with the GET stream sends it live with that id).
TEST(HttpRedisEventStore, ABroadcastFrameFromEveryCopyIsKeptOnce) {
  two_replicas r;
  const std::string sid = http::mint_session_id();
  auto a = r.events_a.open(sid);
  auto b = r.events_b.open(sid);
  const std::string frame = R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})";
  const std::string first = a->append_once(0, frame);
  EXPECT_EQ(b->append_once(0, frame), first);
  EXPECT_EQ(first, "id: 0-1\nevent: message\ndata: " + frame + "\n\n");
  const std::string other = b->append_once(0, R"({"jsonrpc":"2.0","method":"x"})");
  EXPECT_EQ(other.rfind("id: 0-2\n", 0), 0u) << other;
  EXPECT_EQ(a->append(0, frame).rfind("id: 0-3\n", 0), 0u) << "a plain append is always kept";
  std::vector<std::string> replayed;
  a->replay({0, 0}, [&](std::string_view t) { replayed.emplace_back(t); });
  EXPECT_EQ(replayed.size(), 3u);
  // After the window, the same notification is a new change.
  std::this_thread::sleep_for(http::k_broadcast_window + std::chrono::milliseconds(100));
  EXPECT_EQ(b->append_once(0, frame).rfind("id: 0-4\n", 0), 0u);
  EXPECT_EQ(a->append_once(0, frame).rfind("id: 0-4\n", 0), 0u);
  r.events_a.forget(sid);
}

TEST(HttpRedisEventStore, ConcurrentAppendsOnTwoReplicasGetUniqueGaplessIds) {
  two_replicas r;
  const std::string sid = http::mint_session_id();
  constexpr int k_each = 150;
  std::vector<std::shared_ptr<http::session_events>> handles = {r.events_a.open(sid),
                                                                r.events_b.open(sid)};
  std::vector<std::vector<std::uint64_t>> seqs(2);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < 2; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < k_each; ++i) {
        const std::string text = handles[t]->append(0, std::to_string(i));
        seqs[t].push_back(http::parse_event_id(text.substr(4, text.find('\n') - 4))->seq);
      }
    });
  }
  for (auto& th : threads) th.join();
  std::set<std::uint64_t> all(seqs[0].begin(), seqs[0].end());
  all.insert(seqs[1].begin(), seqs[1].end());
  ASSERT_EQ(all.size(), 2u * k_each) << "unique across replicas";
  EXPECT_EQ(*all.begin(), 1u);
  EXPECT_EQ(*all.rbegin(), 2u * k_each) << "no gap";
  EXPECT_TRUE(std::is_sorted(seqs[0].begin(), seqs[0].end()));
  r.events_a.forget(sid);
}

// Runs `f`; true when it throws detail::store_unavailable.
template <class F>
bool throws_store_unavailable(F&& f) {
  try {
    f();
  } catch (const detail::store_unavailable&) {
    return true;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected detail::store_unavailable, got: " << e.what();
  }
  return false;
}

TEST(HttpRedisStores, AStoppedOrHungRedisIsStoreUnavailableAndTheStoresRecover) {
  testing::redis_server own;
  auto client = std::make_shared<redis::client>(redis_test_options(own.url()));
  http::redis_session_store records(client, "p:", 8, k_ttl);
  http::redis_event_store events(client, "p:", 4, k_ttl);
  session_record rec = record_at(1);
  ASSERT_TRUE(records.insert(rec));
  auto e = events.open(rec.id);
  e->append(0, "g");
  const std::size_t size_before = records.size();
  own.kill();
  EXPECT_TRUE(throws_store_unavailable([&] { records.find(rec.id); }));
  EXPECT_TRUE(throws_store_unavailable([&] { records.insert(record_at(2)); }));
  EXPECT_TRUE(throws_store_unavailable([&] { records.use(rec.id, 3); }));
  EXPECT_TRUE(throws_store_unavailable([&] { e->append(0, "h"); }));
  EXPECT_TRUE(throws_store_unavailable([&] { events.open(http::mint_session_id()); }));
  EXPECT_EQ(records.size(), size_before) << "statistics answer the last known value";
  EXPECT_NO_THROW(records.bytes());
  EXPECT_NO_THROW(events.bytes());
  own.restart();  // empty: no data survives
  EXPECT_TRUE(eventually([&] {
    try {
      return !records.find(rec.id) && records.insert(record_at(4));
    } catch (const detail::store_unavailable&) {
      return false;
    }
  })) << "the client reconnects by itself";
  own.freeze();
  EXPECT_TRUE(throws_store_unavailable([&] { records.touch(rec.id, 5); }))
      << "a hung Redis times out (command_timeout) instead of hanging";
  own.thaw();
}

}  // namespace
}  // namespace mcpcxx::http_test
