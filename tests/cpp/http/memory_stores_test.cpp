// The in-memory stores behind legacy sessions: the two contract suites instantiated for them,
// what only the memory event store promises (events freed with their last handle), and how
// session_table keeps the live sessions, their records and their events in step.
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "mcpcxx/mcpcxx.hpp"

#include "http/event_store_contract.hpp"
#include "http/session_store_contract.hpp"
#include "transport/http/context.hpp"
#include "transport/http/memory_event_store.hpp"
#include "transport/http/memory_session_store.hpp"
#include "transport/http/session_table.hpp"

namespace mcpcxx::http_test {

INSTANTIATE_TEST_SUITE_P(Memory, EventStoreContract,
                         ::testing::Values(event_store_factory{
                             "memory",
                             [](std::size_t capacity) {
                               return std::make_shared<http::memory_event_store>(capacity);
                             }}),
                         event_store_factory_name);

INSTANTIATE_TEST_SUITE_P(Memory, SessionStoreContract,
                         ::testing::Values(session_store_factory{
                             "memory",
                             [](std::size_t max_sessions) {
                               return std::make_shared<http::memory_session_store>(max_sessions);
                             }}),
                         session_store_factory_name);

namespace {

using http::event_position;
using http::stream_state;

// A table over fresh in-memory stores (and the memory router), with the stores at hand.
struct memory_table {
  std::shared_ptr<http::memory_session_store> records;
  std::shared_ptr<http::memory_event_store> events;
  http::session_table table;

  explicit memory_table(std::size_t max_sessions, std::size_t replay_capacity = 8)
      : records(std::make_shared<http::memory_session_store>(max_sessions)),
        events(std::make_shared<http::memory_event_store>(replay_capacity)),
        table(records, events, detail::make_memory_request_router()) {}
};

const json k_init_params = {{"protocolVersion", "2025-11-25"},
                            {"capabilities", {{"roots", {{"listChanged", true}}}}}};

TEST(HttpMemoryEventStore, ASessionsEventsGoWithItsLastHandle) {
  http::memory_event_store store(4);
  const std::string sid = http::mint_session_id();
  {
    auto e = store.open(sid);
    e->append(0, "g");
    EXPECT_EQ(store.sessions(), 1u);
    EXPECT_GT(store.bytes(), e->bytes());
  }
  EXPECT_EQ(store.sessions(), 0u) << "nothing is left behind by a session never forgotten";
  auto again = store.open(sid);
  EXPECT_FALSE(again->issued({0, 1}));
}

TEST(HttpMemoryEventStore, AHandleOutlivesItsStore) {
  std::shared_ptr<http::session_events> e;
  {
    http::memory_event_store store(4);
    e = store.open(http::mint_session_id());
  }
  EXPECT_EQ(e->append(0, "late"), "id: 0-1\nevent: message\ndata: late\n\n");
  EXPECT_TRUE(e->issued({0, 1}));
}

TEST(HttpSessionTable, ASessionJoinsWithItsRecordAndLeavesWithItsEvents) {
  memory_table m(4);
  auto s = m.table.create("user:alice", k_init_params);
  EXPECT_EQ(s->id().size(), 32u);
  EXPECT_EQ(m.events->sessions(), 1u) << "its events are opened with it";
  EXPECT_EQ(m.records->size(), 0u) << "no record before initialize succeeded";
  EXPECT_EQ(m.table.find(s->id()), nullptr);
  ASSERT_TRUE(m.table.insert(s));
  auto r = m.records->find(s->id());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->principal_key, "user:alice");
  EXPECT_EQ(r->client_capabilities, R"({"roots":{"listChanged":true}})");
  EXPECT_EQ(r->protocol_version, "") << "no engine session in this test";
  EXPECT_EQ(m.table.find(s->id()), s);
  EXPECT_EQ(m.table.size(), 1u);
  EXPECT_EQ(m.table.remove(s->id()), s);
  EXPECT_EQ(m.table.remove(s->id()), nullptr);
  EXPECT_EQ(m.records->size(), 0u);
  EXPECT_EQ(m.events->sessions(), 0u) << "its events are forgotten";
  EXPECT_EQ(m.table.size(), 0u);
}

TEST(HttpSessionTable, EventsWrittenThroughTheSessionAreTheStoresEvents) {
  memory_table m(4);
  auto s = m.table.create("", json::object());
  ASSERT_TRUE(m.table.insert(s));
  auto same = m.events->open(s->id());
  const auto stream = s->new_stream();
  EXPECT_EQ(stream, 1u);
  EXPECT_EQ(s->prime(stream), "id: 1-1\ndata: \n\n");
  EXPECT_EQ(s->record(stream, "r"), "id: 1-2\nevent: message\ndata: r\n\n");
  s->push_server_frame("n");
  EXPECT_TRUE(same->issued({0, 3}));
  EXPECT_TRUE(s->issued({stream, 2}));
  EXPECT_FALSE(s->issued({stream, 3}));
  EXPECT_EQ(same->state(stream).now, stream_state::phase::running);
  s->cancel_stream(stream, jsonrpc::request_id{std::int64_t{5}});
  EXPECT_EQ(same->state(stream).now, stream_state::phase::cancelled);
  EXPECT_EQ(same->state(stream).request, jsonrpc::request_id{std::int64_t{5}});
}

TEST(HttpSessionTable, ExpirySparesActiveSessions) {
  memory_table m(4);
  auto idle = m.table.create("", json::object());
  auto busy = m.table.create("", json::object());
  ASSERT_TRUE(m.table.insert(idle));
  ASSERT_TRUE(m.table.insert(busy));
  EXPECT_TRUE(m.table.take_expired(std::chrono::hours(1)).empty());
  busy->enter();
  auto taken = m.table.take_expired(std::chrono::nanoseconds(0));
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0], idle);
  EXPECT_EQ(m.table.size(), 1u);
  EXPECT_EQ(m.events->sessions(), 1u) << "the expired session's events are forgotten";
  busy->leave();
  taken = m.table.take_expired(std::chrono::nanoseconds(0));
  ASSERT_EQ(taken.size(), 1u);
  EXPECT_EQ(taken[0], busy);
  EXPECT_EQ(m.table.find(busy->id()), nullptr);
}

TEST(HttpSessionTable, TouchRefreshesTheRecordsLastUse) {
  memory_table m(4);
  auto s = m.table.create("", json::object());
  ASSERT_TRUE(m.table.insert(s));
  const std::int64_t inserted = m.records->find(s->id())->last_used_ns;
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  s->touch();
  EXPECT_GT(m.records->find(s->id())->last_used_ns, inserted);
}

TEST(HttpSessionTable, TheStoresCapacityBoundsTheTable) {
  memory_table m(1);
  auto a = m.table.create("", json::object());
  auto b = m.table.create("", json::object());
  ASSERT_TRUE(m.table.insert(a));
  EXPECT_TRUE(m.table.full());
  EXPECT_FALSE(m.table.insert(b));
  EXPECT_EQ(m.table.find(b->id()), nullptr);
  EXPECT_EQ(m.table.size(), 1u);
  auto all = m.table.take_all();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0], a);
  EXPECT_FALSE(m.table.full());
  EXPECT_EQ(m.records->size(), 0u);
}

TEST(HttpSessionTable, BytesCountRecordsEventsAndEntries) {
  memory_table m(4);
  const std::size_t empty = m.table.bytes();
  auto s = m.table.create("", json::object());
  ASSERT_TRUE(m.table.insert(s));
  const std::size_t one = m.table.bytes();
  EXPECT_GT(one, empty + s->bytes());
  s->record(s->new_stream(), std::string(2000, 'z'));
  EXPECT_GE(m.table.bytes(), one + 2000);
  m.table.remove(s->id());
  EXPECT_LT(m.table.bytes(), one);
}

TEST(HttpSessionTable, TheTransportUsesTheStoresItIsGiven) {
  server srv;
  http_options opts;
  opts.max_sessions = 5;
  auto records = std::make_shared<http::memory_session_store>(1);
  auto events = std::make_shared<http::memory_event_store>(2);
  http::transport_context ctx(srv, opts, {records, events});
  auto s = ctx.sessions.create("", json::object());
  EXPECT_EQ(events->sessions(), 1u);
  ASSERT_TRUE(ctx.sessions.insert(s));
  EXPECT_EQ(records->size(), 1u);
  EXPECT_TRUE(ctx.sessions.full()) << "the given store's capacity (1), not max_sessions (5)";
  const auto stream = s->new_stream();
  for (const char* f : {"a", "b", "c"}) s->record(stream, f);
  std::vector<std::string> kept;
  events->open(s->id())->replay({stream, 0}, [&](std::string_view t) { kept.emplace_back(t); });
  EXPECT_EQ(kept.size(), 2u) << "the given store's replay capacity";
}

TEST(HttpSessionTable, WithoutStoresTheTransportSizesTheMemoryOnesFromItsOptions) {
  server srv;
  http_options opts;
  opts.max_sessions = 2;
  http::transport_context ctx(srv, opts);
  ASSERT_TRUE(ctx.sessions.insert(ctx.sessions.create("", json::object())));
  EXPECT_FALSE(ctx.sessions.full());
  ASSERT_TRUE(ctx.sessions.insert(ctx.sessions.create("", json::object())));
  EXPECT_TRUE(ctx.sessions.full());
  EXPECT_FALSE(ctx.sessions.insert(ctx.sessions.create("", json::object())));
}

}  // namespace
}  // namespace mcpcxx::http_test
