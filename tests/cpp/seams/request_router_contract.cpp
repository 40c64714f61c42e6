// The request router contract (request_router_contract.hpp): every clause of the contract in
// cpp/src/core/request_router.hpp, for any implementation an instantiation file names.
#include "seams/request_router_contract.hpp"

#include <cstdint>
#include <set>
#include <thread>

namespace mcpcxx::testing::contract {
namespace {

using detail::request_router;
using namespace std::string_literals;

}  // namespace

TEST_P(RequestRouterContract, RouteToAnAttachedSessionDeliversOnceAndReturnsTrue) {
  auto s1 = make_message_recorder();
  auto s2 = make_message_recorder();
  router().attach("s1", s1->inbox());
  router().attach("s2", s2->inbox());
  EXPECT_TRUE(router().route("s1", R"({"jsonrpc":"2.0","id":1,"result":{}})"));
  EXPECT_TRUE(router().route("s2", R"({"jsonrpc":"2.0","id":2,"result":{}})"));
  ASSERT_TRUE(route_fence(router(), "s1", s1));
  ASSERT_TRUE(route_fence(router(), "s2", s2));
  EXPECT_EQ(s1->payload_messages(),
            std::vector<std::string>{R"({"jsonrpc":"2.0","id":1,"result":{}})"});
  EXPECT_EQ(s2->payload_messages(),
            std::vector<std::string>{R"({"jsonrpc":"2.0","id":2,"result":{}})"});
}

TEST_P(RequestRouterContract, RouteToANeverAttachedOrDetachedSessionReturnsFalse) {
  EXPECT_FALSE(router().route("nobody", "m"));
  auto r = make_message_recorder();
  router().attach("s", r->inbox());
  EXPECT_FALSE(router().route("S", "m")) << "session ids are compared exactly";
  EXPECT_FALSE(router().route("s ", "m")) << "session ids are compared exactly";
  ASSERT_TRUE(router().detach("s"));
  EXPECT_FALSE(router().route("s", "after detach"));
  router().attach("s", make_message_recorder()->inbox());
  EXPECT_TRUE(router().route("s", "attached again"));
  EXPECT_EQ(r->count(), 0u) << "a refused route() delivers nothing";
}

TEST_P(RequestRouterContract, DetachIsFalseWhenNotAttached) {
  EXPECT_FALSE(router().detach("never"));
  router().attach("s", make_message_recorder()->inbox());
  EXPECT_TRUE(router().detach("s"));
  EXPECT_FALSE(router().detach("s")) << "a second detach";
}

TEST_P(RequestRouterContract, AttachAgainReplacesTheInbox) {
  auto old_inbox = make_message_recorder();
  auto new_inbox = make_message_recorder();
  auto token = std::make_shared<int>(1);
  std::weak_ptr<int> captured = token;
  router().attach("moving", [in = old_inbox->inbox(), token](std::string m) { in(std::move(m)); });
  token.reset();
  ASSERT_TRUE(router().route("moving", "to the old holder"));
  ASSERT_TRUE(route_fence(router(), "moving", old_inbox));

  router().attach("moving", new_inbox->inbox());
  EXPECT_TRUE(eventually([&] { return captured.expired(); })) << "the replaced inbox is destroyed";
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(router().route("moving", "m" + std::to_string(i)));
  ASSERT_TRUE(route_fence(router(), "moving", new_inbox));
  EXPECT_EQ(old_inbox->payload_messages(), std::vector<std::string>{"to the old holder"});
  EXPECT_EQ(new_inbox->count(), 10u);
  EXPECT_TRUE(router().detach("moving"));
  EXPECT_FALSE(router().detach("moving")) << "one attachment per id, whatever replaced it";
}

TEST_P(RequestRouterContract, DetachedInboxIsDestroyedAndNeverCalledAgain) {
  auto gone = make_message_recorder();
  auto token = std::make_shared<int>(1);
  std::weak_ptr<int> captured = token;
  router().attach("s", [in = gone->inbox(), token](std::string m) { in(std::move(m)); });
  token.reset();
  ASSERT_TRUE(router().route("s", "before"));
  ASSERT_TRUE(route_fence(router(), "s", gone));
  ASSERT_TRUE(router().detach("s"));
  EXPECT_TRUE(captured.expired()) << "the inbox is destroyed by the time detach returns";
  EXPECT_FALSE(router().route("s", "after"));
  EXPECT_EQ(gone->payload_messages(), std::vector<std::string>{"before"});
}

TEST_P(RequestRouterContract, NoCallAfterDetachReturnsWhileAnotherThreadRoutes) {
  // Per round: an inbox that flags any call it sees after detach() returned.
  struct round_state {
    std::atomic<int> calls{0};
    std::atomic<bool> detached{false};
    std::atomic<int> late_calls{0};
  };
  constexpr int k_rounds = 100;
  constexpr std::uint64_t k_messages_after = 5;
  auto keeper_calls = std::make_shared<std::atomic<std::uint64_t>>(0);
  router().attach("keeper", [keeper_calls](const std::string&) { keeper_calls->fetch_add(1); });
  background_loop routing([this](std::uint64_t i) {
    router().route("racing", "r" + std::to_string(i));
    router().route("keeper", "k" + std::to_string(i));
  });
  std::vector<std::shared_ptr<round_state>> rounds;  // summed once the calls have stopped
  int not_destroyed = 0;
  for (int round = 0; round < k_rounds; ++round) {
    auto state = rounds.emplace_back(std::make_shared<round_state>());
    auto token = std::make_shared<int>(round);
    std::weak_ptr<int> captured = token;
    router().attach("racing", [state, token](const std::string&) {
      state->calls.fetch_add(1);
      std::this_thread::yield();  // a longer run: detach() more often meets a call in progress
      // Set at the end of a call, the flag means the call was still running (or began) after
      // detach() returned.
      if (state->detached.load()) state->late_calls.fetch_add(1);
    });
    token.reset();
    ASSERT_TRUE(soon([&] { return state->calls.load() > 0; })) << "round " << round;
    ASSERT_TRUE(router().detach("racing")) << "round " << round;
    state->detached.store(true);
    if (!captured.expired()) ++not_destroyed;
    // Give the detached inbox chances to be (wrongly) called: the keeper gets more messages.
    const std::uint64_t target = keeper_calls->load() + k_messages_after;
    ASSERT_TRUE(soon([&] { return keeper_calls->load() >= target; })) << "round " << round;
  }
  routing.stop();
  int late_calls = 0;
  for (const auto& r : rounds) late_calls += r->late_calls.load();
  EXPECT_EQ(late_calls, 0) << "calls running after detach() returned";
  EXPECT_EQ(not_destroyed, 0) << "rounds whose inbox outlived detach()";
  EXPECT_GE(routing.iterations(), std::uint64_t{k_rounds} * k_messages_after);
}

TEST_P(RequestRouterContract, InboxMayDetachItselfAndIsNotCalledAgain) {
  // What the inbox saw; the test holds it too, so the inbox reaches it after its own closure may
  // be gone (only through a pointer copied to the stack).
  struct self_state {
    std::atomic<int> calls{0};
    std::atomic<int> detach_result{-1};             // 1 true, 0 false
    std::atomic<int> destroyed_during_its_run{-1};  // 1 yes, 0 no
    std::weak_ptr<int> token;                       // set before attaching, then only read
  };
  auto state = std::make_shared<self_state>();
  auto token = std::make_shared<int>(1);
  state->token = token;
  request_router* r = &router();
  router().attach("self", [state, token, r](const std::string&) {
    self_state* s = state.get();  // the closure may be destroyed below: use only `s` afterwards
    if (s->calls.fetch_add(1) != 0) return;
    const bool detached = r->detach("self");
    s->detach_result.store(detached ? 1 : 0);
    s->destroyed_during_its_run.store(s->token.expired() ? 1 : 0);
  });
  token.reset();

  bool routed = false;
  run_or_abort([&] { routed = router().route("self", "first"); },
               "route() to an inbox that detaches itself");
  EXPECT_TRUE(routed);
  ASSERT_TRUE(eventually([&] { return state->detach_result.load() != -1; }));
  EXPECT_EQ(state->detach_result.load(), 1) << "detach() from inside the inbox";
  EXPECT_EQ(state->destroyed_during_its_run.load(), 0)
      << "the inbox was destroyed while it was still running (its captures freed under it)";
  EXPECT_TRUE(eventually([&] { return state->token.expired(); }))
      << "the inbox is destroyed once its run returned";
  EXPECT_FALSE(router().route("self", "second"));
  EXPECT_EQ(state->calls.load(), 1);
}

TEST_P(RequestRouterContract, InboxMayRouteAttachAndDetachReentrantly) {
  auto other = make_message_recorder();
  auto added = make_message_recorder();
  router().attach("other", other->inbox());
  auto results = std::make_shared<std::atomic<int>>(-1);
  request_router* r = &router();
  router().attach("busy", [r, results, added](const std::string& m) {
    if (m != "go") return;
    const bool routed = r->route("other", "from busy");
    r->attach("added", added->inbox());
    const bool detached = r->detach("other");
    results->store((routed ? 1 : 0) + (detached ? 2 : 0));
  });
  run_or_abort([&] { router().route("busy", "go"); },
               "route() to an inbox that routes, attaches and detaches");
  ASSERT_TRUE(eventually([&] { return results->load() != -1; }));
  EXPECT_EQ(results->load(), 3) << "1: the nested route() succeeded, 2: the detach() did";
  EXPECT_TRUE(eventually([&] { return other->saw("from busy"); }));
  EXPECT_EQ(other->payload_messages(), std::vector<std::string>{"from busy"});
  EXPECT_FALSE(router().route("other", "gone"));
  EXPECT_TRUE(router().route("added", "hello"));
  ASSERT_TRUE(route_fence(router(), "added", added));
  EXPECT_EQ(added->payload_messages(), std::vector<std::string>{"hello"});
}

TEST_P(RequestRouterContract, EachRoutingThreadsMessagesArriveInOrder) {
  constexpr int k_threads = 4;
  constexpr int k_per_thread = 500;
  auto inbox = make_message_recorder();
  router().attach("one", inbox->inbox());
  std::atomic<int> refused{0};
  {
    thread_group threads;
    for (int t = 0; t < k_threads; ++t) {
      threads.spawn([this, t, &refused] {
        for (int i = 0; i < k_per_thread; ++i) {
          if (!router().route("one", std::to_string(t) + ":" + std::to_string(i))) {
            refused.fetch_add(1);
          }
        }
      });
    }
  }
  EXPECT_EQ(refused.load(), 0);
  constexpr std::size_t k_total = std::size_t{k_threads} * k_per_thread;
  ASSERT_TRUE(eventually([&] { return inbox->count() >= k_total; })) << inbox->count();
  ASSERT_TRUE(route_fence(router(), "one", inbox));
  const auto got = inbox->payload_messages();
  ASSERT_EQ(got.size(), k_total);
  std::vector<std::vector<int>> seen(k_threads);
  for (const auto& m : got) {
    const auto colon = m.find(':');
    ASSERT_NE(colon, std::string::npos) << m;
    seen[std::stoul(m.substr(0, colon))].push_back(std::stoi(m.substr(colon + 1)));
  }
  std::vector<int> in_order(k_per_thread);
  for (int i = 0; i < k_per_thread; ++i) in_order[static_cast<std::size_t>(i)] = i;
  for (int t = 0; t < k_threads; ++t) {
    EXPECT_EQ(seen[static_cast<std::size_t>(t)], in_order) << "routing thread " << t;
  }
}

TEST_P(RequestRouterContract, ConcurrentRoutingToManySessionsDeliversEveryMessageOnce) {
  constexpr int k_sessions = 8;
  constexpr int k_threads = 4;
  constexpr int k_per_session = 150;  // per thread
  std::vector<std::shared_ptr<message_recorder>> inboxes;
  for (int s = 0; s < k_sessions; ++s) {
    inboxes.push_back(make_message_recorder());
    router().attach("session-" + std::to_string(s), inboxes.back()->inbox());
  }
  std::atomic<int> refused{0};
  {
    thread_group threads;
    for (int t = 0; t < k_threads; ++t) {
      threads.spawn([this, t, &refused] {
        for (int i = 0; i < k_per_session; ++i) {
          for (int s = 0; s < k_sessions; ++s) {
            const std::string id = "session-" + std::to_string(s);
            if (!router().route(id, id + "/" + std::to_string(t) + "/" + std::to_string(i))) {
              refused.fetch_add(1);
            }
          }
        }
      });
    }
  }
  EXPECT_EQ(refused.load(), 0);
  constexpr std::size_t k_expected = std::size_t{k_threads} * k_per_session;
  for (int s = 0; s < k_sessions; ++s) {
    const std::string id = "session-" + std::to_string(s);
    const auto& inbox = inboxes[static_cast<std::size_t>(s)];
    ASSERT_TRUE(eventually([&] { return inbox->count() >= k_expected; })) << id;
    ASSERT_TRUE(route_fence(router(), id, inbox));
    const auto got = inbox->payload_messages();
    EXPECT_EQ(got.size(), k_expected) << id;
    std::set<std::string> distinct;
    for (const auto& m : got) {
      EXPECT_EQ(m.rfind(id + "/", 0), 0u) << id << " got " << m;
      distinct.insert(m);
    }
    EXPECT_EQ(distinct.size(), k_expected) << id << ": a message arrived twice";
  }
}

TEST_P(RequestRouterContract, MessagesArriveByteIdentical) {
  std::string every_byte;
  for (int c = 0; c < 256; ++c) every_byte.push_back(static_cast<char>(c));
  const std::vector<std::string> messages = {
      R"({"jsonrpc":"2.0","id":"a","result":{"content":[]}})",
      "nul\0inside\0twice"s,
      "\0leading and trailing\0"s,
      "h\xC3\xA9llo \xE2\x9C\x93 \xF0\x9F\x98\x80 \xE6\x97\xA5\xE6\x9C\xAC",
      "  spaces, \ttabs,\r\nnewlines\n",
      every_byte,
      std::string(std::size_t{512} * 1024, 'z') + "\xC3\xA9" + std::string(3, '\0'),
  };
  auto inbox = make_message_recorder();
  router().attach("bytes", inbox->inbox());
  for (const auto& m : messages) ASSERT_TRUE(router().route("bytes", m));
  ASSERT_TRUE(route_fence(router(), "bytes", inbox));
  const auto got = inbox->payload_messages();
  ASSERT_EQ(got.size(), messages.size());
  for (std::size_t i = 0; i < messages.size(); ++i) {
    EXPECT_EQ(got[i].size(), messages[i].size()) << "message " << i;
    EXPECT_TRUE(got[i] == messages[i]) << "message " << i << " changed on the way";
  }
}

TEST_P(RequestRouterContract, RouteWhileTheSessionMovesStillReachesIt) {
  // The session is attached throughout (attach() replaces the inbox in one step), so every
  // route() must deliver and return true; together the inboxes get each message once.
  constexpr int k_moves = 3000;
  auto delivered = std::make_shared<std::atomic<std::uint64_t>>(0);
  const auto make_inbox = [delivered] {
    return [delivered](const std::string&) { delivered->fetch_add(1); };
  };
  router().attach("moving", make_inbox());
  std::atomic<std::uint64_t> refused{0};
  std::atomic<std::uint64_t> accepted{0};
  const auto route_once = [this, &refused, &accepted](std::uint64_t i) {
    if (router().route("moving", "m" + std::to_string(i))) {
      accepted.fetch_add(1);
    } else {
      refused.fetch_add(1);
    }
  };
  {
    background_loop first(route_once);
    background_loop second(route_once);
    for (int i = 0; i < k_moves; ++i) router().attach("moving", make_inbox());
  }
  EXPECT_EQ(refused.load(), 0u) << "route() returned false (and dropped the message) while the "
                                   "session was attached";
  EXPECT_TRUE(eventually([&] { return delivered->load() >= accepted.load(); }));
  EXPECT_EQ(delivered->load(), accepted.load());
}

TEST_P(RequestRouterContract, RoutesFromAnotherReplicaReachTheHolder) {
  if (!GetParam().make_peer) GTEST_SKIP() << "a single-process router has no other replica";
  auto peer = GetParam().make_peer(router());
  ASSERT_NE(peer, nullptr);
  auto inbox = make_message_recorder();
  router().attach("held-here", inbox->inbox());
  EXPECT_TRUE(peer->route("held-here", "via the peer"));
  ASSERT_TRUE(route_fence(*peer, "held-here", inbox));
  EXPECT_EQ(inbox->payload_messages(), std::vector<std::string>{"via the peer"});
  ASSERT_TRUE(router().detach("held-here"));
  EXPECT_FALSE(peer->route("held-here", "after detach"));
  EXPECT_EQ(inbox->count(), 1u);
}

TEST_P(RequestRouterContract, RouteToThisOriginDeliversHereOnce) {
  auto inbox = make_message_recorder();
  router().attach("s", inbox->inbox());
  EXPECT_TRUE(router().route_to(router().origin(), "s", "answer"));
  ASSERT_TRUE(route_fence(router(), "s", inbox));
  EXPECT_EQ(inbox->payload_messages(), std::vector<std::string>{"answer"});
}

TEST_P(RequestRouterContract, RouteToAnUnknownOriginDeliversNothing) {
  auto inbox = make_message_recorder();
  router().attach("s", inbox->inbox());
  router().route_to(router().origin() + "-elsewhere", "s", "lost");
  ASSERT_TRUE(route_fence(router(), "s", inbox));
  EXPECT_EQ(inbox->count(), 0u);
}

TEST_P(RequestRouterContract, BroadcastNeverReachesTheSendersOwnInbox) {
  auto inbox = make_message_recorder();
  router().attach("s", inbox->inbox());
  router().broadcast("s", "cancel");
  // A distributed router hears its own broadcast: a message it publishes to itself afterwards
  // arrives after that, so once it is in, the broadcast has been skipped.
  EXPECT_TRUE(router().route_to(router().origin(), "s", "after"));
  if (GetParam().make_peer) {
    auto peer = GetParam().make_peer(router());
    ASSERT_NE(peer, nullptr);
    EXPECT_TRUE(peer->route_to(router().origin(), "s", "router-fence#self"));
    ASSERT_TRUE(eventually([&] { return inbox->saw("router-fence#self"); }));
  }
  EXPECT_EQ(inbox->payload_messages(), std::vector<std::string>{"after"});
}

// Two replicas hold copies of one session (a revival): the route names the last to attach, yet
// an answer addressed to the other copy's origin reaches that copy and only it.
TEST_P(RequestRouterContract, RouteToReachesTheNamedCopyNotTheHolder) {
  if (!GetParam().make_peer) GTEST_SKIP() << "a single-process router has no other replica";
  auto peer = GetParam().make_peer(router());
  ASSERT_NE(peer, nullptr);
  ASSERT_NE(peer->origin(), router().origin());
  auto first = make_message_recorder();
  auto second = make_message_recorder();
  router().attach("shared", first->inbox());
  peer->attach("shared", second->inbox());
  EXPECT_TRUE(peer->route_to(router().origin(), "shared", "to the first copy"));
  EXPECT_TRUE(router().route_to(peer->origin(), "shared", "to the second copy"));
  ASSERT_TRUE(eventually([&] { return first->count() == 1 && second->count() == 1; }));
  // Sent after the others by the same senders: once in, nothing else of theirs is on its way.
  ASSERT_TRUE(peer->route_to(router().origin(), "shared", "router-fence#first"));
  ASSERT_TRUE(router().route_to(peer->origin(), "shared", "router-fence#second"));
  ASSERT_TRUE(eventually(
      [&] { return first->saw("router-fence#first") && second->saw("router-fence#second"); }));
  EXPECT_EQ(first->payload_messages(), std::vector<std::string>{"to the first copy"});
  EXPECT_EQ(second->payload_messages(), std::vector<std::string>{"to the second copy"});
}

TEST_P(RequestRouterContract, BroadcastReachesEveryOtherCopyOnce) {
  if (!GetParam().make_peer) GTEST_SKIP() << "a single-process router has no other replica";
  auto peer = GetParam().make_peer(router());
  auto third = GetParam().make_peer(router());
  ASSERT_TRUE(peer && third);
  auto here = make_message_recorder();
  auto there = make_message_recorder();
  auto unrelated = make_message_recorder();
  router().attach("shared", here->inbox());
  peer->attach("shared", there->inbox());
  third->attach("other", unrelated->inbox());
  router().broadcast("shared", "cancel 7");
  ASSERT_TRUE(eventually([&] { return there->count() == 1; }));
  // Sent after the broadcast reached the peer, through the sender's own channel: once it is in,
  // the sender has seen (and skipped) its own broadcast.
  ASSERT_TRUE(route_fence(*peer, "shared", there));
  EXPECT_TRUE(peer->route_to(router().origin(), "shared", "fence here"));
  ASSERT_TRUE(eventually([&] { return here->saw("fence here"); }));
  EXPECT_EQ(there->payload_messages(), std::vector<std::string>{"cancel 7"});
  EXPECT_EQ(here->payload_messages(), std::vector<std::string>{"fence here"});
  EXPECT_EQ(unrelated->count(), 0u);
}

}  // namespace mcpcxx::testing::contract
