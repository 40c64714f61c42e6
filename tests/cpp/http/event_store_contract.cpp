// The event_store contract (event_store_contract.hpp says how an implementation instantiates it):
// ids, ordering, replay after a position, per-session eviction, which ids a session issued (row
// H11), stream states (finish, cancel with the H41 request id), forgetting, concurrent appends
// and the bytes held.
#include "http/event_store_contract.hpp"

#include <algorithm>
#include <set>
#include <thread>
#include <vector>

#include "transport/http/session_table.hpp"

namespace mcpcxx::http_test {

using http::event_position;
using http::stream_state;

std::string event_store_factory_name(const ::testing::TestParamInfo<event_store_factory>& info) {
  return info.param.name;
}

namespace {

// What replay() hands back for `after`, in order.
std::vector<std::string> replayed(const http::session_events& e, event_position after) {
  std::vector<std::string> out;
  e.replay(after, [&](std::string_view text) { out.emplace_back(text); });
  return out;
}

// The SSE text of a one-line frame with id `id`, as the wire carries it.
std::string contract_event(const std::string& id, const std::string& data) {
  return "id: " + id + "\nevent: message\ndata: " + data + "\n\n";
}

}  // namespace

TEST_P(EventStoreContract, StreamsCountFromOneAndEventsAcrossStreamsWithoutGaps) {
  auto store = make_store(16);
  auto e = store->open(http::mint_session_id());
  EXPECT_EQ(e->open_stream(), 1u);
  EXPECT_EQ(e->open_stream(), 2u);
  EXPECT_EQ(e->append(1, "a"), contract_event("1-1", "a"));
  EXPECT_EQ(e->append(0, "g"), contract_event("0-2", "g"));
  EXPECT_EQ(e->append(2, "x\ny"), "id: 2-3\nevent: message\ndata: x\ndata: y\n\n");
  EXPECT_EQ(e->append_priming(1), "id: 1-4\ndata: \n\n");
  EXPECT_EQ(e->append_priming(0), "id: 0-5\ndata: \n\n");
  EXPECT_EQ(e->open_stream(), 3u);
  EXPECT_EQ(e->append(3, ""), contract_event("3-6", ""));
}

TEST_P(EventStoreContract, ReplayHandsBackTheEventsOfOneStreamAfterAPositionInOrder) {
  auto store = make_store(16);
  auto e = store->open(http::mint_session_id());
  const auto s1 = e->open_stream();
  const auto s2 = e->open_stream();
  const std::string p1 = e->append_priming(s1);  // 1-1
  const std::string a = e->append(s1, "a");      // 1-2
  const std::string g = e->append(0, "g");       // 0-3
  const std::string b = e->append(s2, "b");      // 2-4
  const std::string c = e->append(s1, "c");      // 1-5
  EXPECT_EQ(replayed(*e, {s1, 0}), (std::vector<std::string>{p1, a, c}));
  EXPECT_EQ(replayed(*e, {s1, 1}), (std::vector<std::string>{a, c}));
  EXPECT_EQ(replayed(*e, {s1, 2}), (std::vector<std::string>{c}));
  EXPECT_EQ(replayed(*e, {s1, 5}), std::vector<std::string>{});
  EXPECT_EQ(replayed(*e, {0, 0}), (std::vector<std::string>{g}));
  EXPECT_EQ(replayed(*e, {s2, 3}), (std::vector<std::string>{b}));
  EXPECT_EQ(replayed(*e, {7, 0}), std::vector<std::string>{}) << "a stream never opened";
}

TEST_P(EventStoreContract, EachSessionKeepsItsLastCapacityEvents) {
  auto store = make_store(3);
  auto e = store->open(http::mint_session_id());
  auto other = store->open(http::mint_session_id());
  const auto s = e->open_stream();
  const auto t = other->open_stream();
  const std::string o1 = other->append(t, "o1");
  const std::string o2 = other->append(t, "o2");
  std::vector<std::string> sent;
  sent.reserve(5);
  for (const char* f : {"e1", "e2", "e3", "e4", "e5"}) sent.push_back(e->append(s, f));
  EXPECT_EQ(sent[4], contract_event("1-5", "e5"));
  EXPECT_EQ(replayed(*e, {s, 0}), (std::vector<std::string>{sent[2], sent[3], sent[4]}));
  EXPECT_EQ(replayed(*other, {t, 0}), (std::vector<std::string>{o1, o2}))
      << "the capacity is per session";
  // The GET stream's events count against the same capacity.
  const std::string g = e->append(0, "g");
  EXPECT_EQ(replayed(*e, {s, 0}), (std::vector<std::string>{sent[3], sent[4]}));
  EXPECT_EQ(replayed(*e, {0, 0}), (std::vector<std::string>{g}));
}

TEST_P(EventStoreContract, CapacityZeroNumbersEventsButKeepsNone) {
  auto store = make_store(0);
  auto e = store->open(http::mint_session_id());
  const auto s = e->open_stream();
  EXPECT_EQ(e->append(s, "a"), contract_event("1-1", "a"));
  EXPECT_EQ(e->append(s, "b"), contract_event("1-2", "b"));
  EXPECT_EQ(replayed(*e, {s, 0}), std::vector<std::string>{});
  EXPECT_TRUE(e->issued({s, 2}));
  EXPECT_FALSE(e->issued({s, 3}));
}

TEST_P(EventStoreContract, OnlyIdsTheSessionHandedOutAreIssued) {
  auto store = make_store(4);
  auto e = store->open(http::mint_session_id());
  for (event_position p : {event_position{0, 0}, {0, 1}, {1, 1}, {7, 99}})
    EXPECT_FALSE(e->issued(p)) << "fresh session: " << http::format_event_id(p);
  const auto s = e->open_stream();
  e->append(s, "a");  // 1-1
  e->append(0, "g");  // 0-2
  EXPECT_TRUE(e->issued({s, 1}));
  EXPECT_TRUE(e->issued({0, 2}));
  EXPECT_FALSE(e->issued({s, 0})) << "seq 0 is never handed out";
  EXPECT_FALSE(e->issued({0, 1})) << "issued, but on stream 1";
  EXPECT_FALSE(e->issued({s, 2})) << "issued, but on the GET stream";
  EXPECT_FALSE(e->issued({s, 3})) << "beyond the counter";
  EXPECT_FALSE(e->issued({2, 1})) << "a stream never opened";
  auto other = store->open(http::mint_session_id());
  EXPECT_FALSE(other->issued({s, 1})) << "another session's id";
}

TEST_P(EventStoreContract, AnEvictedIdCountsByItsStreamAlone) {
  auto store = make_store(2);
  auto e = store->open(http::mint_session_id());
  const auto s = e->open_stream();
  e->append(s, "a");  // 1-1, evicted below
  e->append(s, "b");  // 1-2, evicted below
  e->append(0, "g");  // 0-3
  e->append(s, "c");  // 1-4
  EXPECT_TRUE(e->issued({s, 1}));
  EXPECT_TRUE(e->issued({0, 1})) << "evicted: its stream is not known any more, stream 0 exists";
  EXPECT_FALSE(e->issued({2, 1})) << "evicted, but stream 2 was never opened";
  EXPECT_FALSE(e->issued({s, 3})) << "kept, on the GET stream";
  EXPECT_TRUE(e->issued({0, 3}));
  EXPECT_FALSE(e->issued({s, 5}));
  EXPECT_EQ(replayed(*e, {s, 1}), (std::vector<std::string>{contract_event("1-4", "c")}));
}

TEST_P(EventStoreContract, StreamsRunUntilFinishedOrCancelled) {
  auto store = make_store(8);
  auto e = store->open(http::mint_session_id());
  const auto s1 = e->open_stream();
  const auto s2 = e->open_stream();
  const auto s3 = e->open_stream();
  EXPECT_EQ(e->state(s1).now, stream_state::phase::running);
  EXPECT_EQ(e->state(0).now, stream_state::phase::ended) << "the GET stream is not resumed as one";
  EXPECT_EQ(e->state(9).now, stream_state::phase::ended) << "never opened";
  e->finish(s1);
  EXPECT_EQ(e->state(s1).now, stream_state::phase::ended);
  e->cancel(s2, jsonrpc::request_id{std::int64_t{7}});
  stream_state c = e->state(s2);
  ASSERT_EQ(c.now, stream_state::phase::cancelled);
  EXPECT_EQ(c.request, jsonrpc::request_id{std::int64_t{7}});
  e->finish(s2);
  EXPECT_EQ(e->state(s2).now, stream_state::phase::cancelled) << "finish keeps the marker";
  e->cancel(s3, jsonrpc::request_id{std::string("req-3")});
  EXPECT_EQ(e->state(s3).request, jsonrpc::request_id{std::string("req-3")});
  EXPECT_EQ(e->state(s2).request, jsonrpc::request_id{std::int64_t{7}});
}

TEST_P(EventStoreContract, CancelMarkersAreKeptForTheLastCapacityPlusOneStreams) {
  auto store = make_store(2);
  auto e = store->open(http::mint_session_id());
  for (std::int64_t i = 1; i <= 4; ++i) e->cancel(e->open_stream(), jsonrpc::request_id{i});
  EXPECT_EQ(e->state(1).now, stream_state::phase::ended) << "the oldest marker is dropped";
  for (std::uint64_t s = 2; s <= 4; ++s) {
    stream_state st = e->state(s);
    ASSERT_EQ(st.now, stream_state::phase::cancelled) << s;
    EXPECT_EQ(st.request, jsonrpc::request_id{static_cast<std::int64_t>(s)});
  }
}

TEST_P(EventStoreContract, OpeningAKeptSessionAgainSharesItsEvents) {
  auto store = make_store(8);
  const std::string sid = http::mint_session_id();
  auto first = store->open(sid);
  const auto s = first->open_stream();
  first->append(s, "a");
  auto second = store->open(sid);
  EXPECT_TRUE(second->issued({s, 1}));
  EXPECT_EQ(second->open_stream(), 2u);
  EXPECT_EQ(second->append(0, "g"), contract_event("0-2", "g"));
  EXPECT_EQ(replayed(*first, {0, 0}), (std::vector<std::string>{contract_event("0-2", "g")}));
  EXPECT_EQ(store->sessions(), 1u);
}

TEST_P(EventStoreContract, AForgottenSessionStartsAfresh) {
  auto store = make_store(8);
  const std::string sid = http::mint_session_id();
  auto kept = store->open(http::mint_session_id());
  auto old = store->open(sid);
  const auto s = old->open_stream();
  old->append(s, "a");
  EXPECT_EQ(store->sessions(), 2u);
  store->forget(sid);
  EXPECT_EQ(store->sessions(), 1u);
  EXPECT_NO_THROW(old->append(s, "late")) << "a handle from before stays usable";
  auto fresh = store->open(sid);
  EXPECT_FALSE(fresh->issued({s, 1}));
  EXPECT_EQ(replayed(*fresh, {s, 0}), std::vector<std::string>{});
  EXPECT_EQ(fresh->open_stream(), 1u);
  EXPECT_EQ(fresh->append(1, "b"), contract_event("1-1", "b"));
  EXPECT_EQ(store->sessions(), 2u);
  store->forget(http::mint_session_id());  // never opened: nothing happens
  EXPECT_EQ(store->sessions(), 2u);
}

TEST_P(EventStoreContract, ConcurrentAppendsGetUniqueContiguousIdsInOrder) {
  constexpr std::size_t k_threads = 4;
  constexpr std::size_t k_per_thread = 300;
  auto store = make_store(k_threads * k_per_thread);
  auto e = store->open(http::mint_session_id());
  std::vector<std::uint64_t> streams;
  streams.reserve(k_threads);
  for (std::size_t t = 0; t < k_threads; ++t) streams.push_back(e->open_stream());
  std::vector<std::vector<std::string>> sent(k_threads);
  std::vector<std::thread> threads;
  threads.reserve(k_threads);
  for (std::size_t t = 0; t < k_threads; ++t) {
    threads.emplace_back([&, t] {
      sent[t].reserve(k_per_thread);
      for (std::size_t i = 0; i < k_per_thread; ++i)
        sent[t].push_back(e->append(streams[t], std::to_string(i)));
    });
  }
  for (auto& th : threads) th.join();
  std::set<std::uint64_t> seqs;
  for (std::size_t t = 0; t < k_threads; ++t) {
    std::uint64_t last = 0;
    for (const auto& text : sent[t]) {
      auto pos = http::parse_event_id(text.substr(4, text.find('\n') - 4));
      ASSERT_TRUE(pos) << text;
      EXPECT_EQ(pos->stream, streams[t]);
      EXPECT_GT(pos->seq, last) << "one thread's appends are numbered in its order";
      last = pos->seq;
      seqs.insert(pos->seq);
    }
    EXPECT_EQ(replayed(*e, {streams[t], 0}), sent[t]);
  }
  ASSERT_EQ(seqs.size(), k_threads * k_per_thread) << "unique";
  EXPECT_EQ(*seqs.begin(), 1u);
  EXPECT_EQ(*seqs.rbegin(), k_threads * k_per_thread) << "no gap";
}

TEST_P(EventStoreContract, BytesGrowWithEventsAndShrinkWithEvictionAndForget) {
  auto store = make_store(2);
  const std::size_t empty = store->bytes();
  const std::string sid = http::mint_session_id();
  auto e = store->open(sid);
  const auto s = e->open_stream();
  const std::size_t opened = store->bytes();
  const std::size_t session_opened = e->bytes();
  EXPECT_GT(opened, empty);
  const std::string big(4000, 'x');
  e->append(s, big);
  const std::size_t with_big = store->bytes();
  EXPECT_GE(with_big, opened + big.size());
  EXPECT_GE(e->bytes(), session_opened + big.size());
  e->append(s, "a");
  e->append(s, "b");  // evicts the big event
  const std::size_t evicted = store->bytes();
  EXPECT_LT(evicted + big.size() - 200, with_big) << evicted << " vs " << with_big;
  EXPECT_LT(e->bytes(), session_opened + 600) << "two small events are left";
  store->forget(sid);
  EXPECT_LT(store->bytes(), evicted) << "a forgotten session is not counted";
  EXPECT_LT(store->bytes(), opened);
}

}  // namespace mcpcxx::http_test
