// The notification bus contract (notification_bus_contract.hpp): every clause of the contract in
// cpp/src/core/notification_bus.hpp, for any implementation an instantiation file names.
#include "seams/notification_bus_contract.hpp"

#include <cstdint>
#include <limits>
#include <set>
#include <thread>

namespace mcpcxx::testing::contract {
namespace {

using detail::change_event;
using detail::change_kind;
using detail::notification_bus;
using namespace std::string_literals;

}  // namespace

TEST_P(NotificationBusContract, SubscriptionIdsAreNonZeroAndDistinct) {
  std::set<notification_bus::subscription> ids;
  for (int i = 0; i < 30; ++i) {
    const auto id = bus().subscribe(k_all_kinds[i % 3], [](const change_event&) {});
    EXPECT_NE(id, 0u);
    ids.insert(id);
  }
  EXPECT_EQ(ids.size(), 30u);
}

TEST_P(NotificationBusContract, EachEventReachesEverySubscriberOfItsKindOnceAndNoOther) {
  std::map<change_kind, std::vector<std::shared_ptr<event_recorder>>> by_kind;
  for (change_kind k : k_all_kinds) {
    for (int i = 0; i < 2; ++i) {
      auto r = make_recorder();
      bus().subscribe(k, r->handler());
      by_kind[k].push_back(r);
    }
  }
  bus().publish({change_kind::list_changed, "tools", nullptr});
  bus().publish({change_kind::resource_updated, "file:///a.txt", nullptr});
  bus().publish({change_kind::task_status, "task-1", json{{"status", "working"}}});
  for (change_kind k : k_all_kinds) ASSERT_TRUE(fence(bus(), k, by_kind[k]));

  const std::map<change_kind, std::string> expected = {
      {change_kind::list_changed, "tools"},
      {change_kind::resource_updated, "file:///a.txt"},
      {change_kind::task_status, "task-1"}};
  for (change_kind k : k_all_kinds) {
    for (const auto& r : by_kind[k]) {
      const auto got = r->payload_events();
      ASSERT_EQ(got.size(), 1u) << "kind " << static_cast<int>(k);
      EXPECT_EQ(got[0].kind, k);
      EXPECT_EQ(got[0].subject, expected.at(k));
    }
  }
}

TEST_P(NotificationBusContract, PublishWithoutSubscribersIsHarmless) {
  for (change_kind k : k_all_kinds) bus().publish({k, "nobody", nullptr});
  auto late = make_recorder();
  bus().subscribe(change_kind::list_changed, late->handler());
  bus().publish({change_kind::list_changed, "after", nullptr});
  ASSERT_TRUE(fence(bus(), change_kind::list_changed, {late}));
  const auto got = late->payload_events();
  ASSERT_EQ(got.size(), 1u) << "a subscriber sees only what was published after it subscribed";
  EXPECT_EQ(got[0].subject, "after");
  EXPECT_EQ(errors_.size(), 0u);
}

TEST_P(NotificationBusContract, EachPublisherThreadsEventsArriveInOrder) {
  constexpr int k_threads = 4;
  constexpr int k_per_thread = 500;
  std::vector<std::shared_ptr<event_recorder>> subscribers;
  for (int i = 0; i < 3; ++i) {
    subscribers.push_back(make_recorder());
    bus().subscribe(change_kind::resource_updated, subscribers.back()->handler());
  }
  {
    thread_group publishers;
    for (int t = 0; t < k_threads; ++t) {
      publishers.spawn([this, t] {
        for (int i = 0; i < k_per_thread; ++i) {
          bus().publish({change_kind::resource_updated,
                         "t" + std::to_string(t) + ":" + std::to_string(i),
                         json{{"t", t}, {"i", i}}});
        }
      });
    }
  }
  constexpr std::size_t k_total = std::size_t{k_threads} * k_per_thread;
  for (const auto& s : subscribers) {
    ASSERT_TRUE(eventually([&] { return s->count() >= k_total; })) << s->count();
  }
  ASSERT_TRUE(fence(bus(), change_kind::resource_updated, subscribers));
  for (std::size_t n = 0; n < subscribers.size(); ++n) {
    const auto got = subscribers[n]->payload_events();
    ASSERT_EQ(got.size(), k_total) << "subscriber " << n;
    std::vector<std::vector<int>> seen(k_threads);
    for (const auto& e : got) {
      const int t = e.payload.at("t").get<int>();
      const int i = e.payload.at("i").get<int>();
      ASSERT_EQ(e.subject, "t" + std::to_string(t) + ":" + std::to_string(i));
      seen[static_cast<std::size_t>(t)].push_back(i);
    }
    std::vector<int> in_order(k_per_thread);
    for (int i = 0; i < k_per_thread; ++i) in_order[static_cast<std::size_t>(i)] = i;
    for (int t = 0; t < k_threads; ++t) {
      EXPECT_EQ(seen[static_cast<std::size_t>(t)], in_order)
          << "subscriber " << n << ", publisher thread " << t;
    }
  }
}

TEST_P(NotificationBusContract, UnsubscribeIsFalseForAnUnknownOrEndedSubscription) {
  EXPECT_FALSE(bus().unsubscribe(12345));
  const auto id = bus().subscribe(change_kind::list_changed, [](const change_event&) {});
  EXPECT_FALSE(bus().unsubscribe(id + 1000));
  EXPECT_TRUE(bus().unsubscribe(id));
  EXPECT_FALSE(bus().unsubscribe(id)) << "a second unsubscribe of the same subscription";
}

TEST_P(NotificationBusContract, UnsubscribedHandlerIsDestroyedAndNeverCalledAgain) {
  auto gone = make_recorder();
  auto stays = make_recorder();
  auto token = std::make_shared<int>(7);
  std::weak_ptr<int> captured = token;
  const auto id = bus().subscribe(change_kind::task_status,
                                  [r = gone->handler(), token](const change_event& e) { r(e); });
  token.reset();
  bus().subscribe(change_kind::task_status, stays->handler());
  bus().publish({change_kind::task_status, "before", nullptr});
  ASSERT_TRUE(fence(bus(), change_kind::task_status, {gone, stays}));

  ASSERT_TRUE(bus().unsubscribe(id));
  EXPECT_TRUE(captured.expired()) << "the handler is destroyed by the time unsubscribe returns";
  for (int i = 0; i < 20; ++i) bus().publish({change_kind::task_status, "after", nullptr});
  ASSERT_TRUE(fence(bus(), change_kind::task_status, {stays}));
  EXPECT_EQ(gone->count(), 1u);
  EXPECT_EQ(stays->count(), 21u);
}

TEST_P(NotificationBusContract, NoCallAfterUnsubscribeReturnsWhileAnotherThreadPublishes) {
  // Per round: a handler that flags any call it sees after unsubscribe() returned.
  struct round_state {
    std::atomic<int> calls{0};
    std::atomic<bool> unsubscribed{false};
    std::atomic<int> late_calls{0};
  };
  constexpr int k_rounds = 100;
  constexpr std::uint64_t k_events_after = 5;
  auto keeper_calls = std::make_shared<std::atomic<std::uint64_t>>(0);
  bus().subscribe(change_kind::list_changed,
                  [keeper_calls](const change_event&) { keeper_calls->fetch_add(1); });
  background_loop publisher([this](std::uint64_t i) {
    bus().publish({change_kind::list_changed, "race:" + std::to_string(i), nullptr});
  });
  std::vector<std::shared_ptr<round_state>> rounds;  // summed once the calls have stopped
  int not_destroyed = 0;
  for (int round = 0; round < k_rounds; ++round) {
    auto state = rounds.emplace_back(std::make_shared<round_state>());
    auto token = std::make_shared<int>(round);
    std::weak_ptr<int> captured = token;
    const auto id = bus().subscribe(change_kind::list_changed, [state, token](const change_event&) {
      state->calls.fetch_add(1);
      std::this_thread::yield();  // a longer run: unsubscribe() more often meets a call in progress
      // Set at the end of a call, the flag means the call was still running (or began) after
      // unsubscribe() returned.
      if (state->unsubscribed.load()) state->late_calls.fetch_add(1);
    });
    token.reset();
    ASSERT_TRUE(soon([&] { return state->calls.load() > 0; })) << "round " << round;
    ASSERT_TRUE(bus().unsubscribe(id)) << "round " << round;
    state->unsubscribed.store(true);
    if (!captured.expired()) ++not_destroyed;
    // Give the unsubscribed handler chances to be (wrongly) called: the keeper sees more events.
    const std::uint64_t target = keeper_calls->load() + k_events_after;
    ASSERT_TRUE(soon([&] { return keeper_calls->load() >= target; })) << "round " << round;
  }
  publisher.stop();
  int late_calls = 0;
  for (const auto& r : rounds) late_calls += r->late_calls.load();
  EXPECT_EQ(late_calls, 0) << "calls running after unsubscribe() returned";
  EXPECT_EQ(not_destroyed, 0) << "rounds whose handler outlived unsubscribe()";
  EXPECT_GE(publisher.iterations(), std::uint64_t{k_rounds} * k_events_after);
}

TEST_P(NotificationBusContract, HandlerMayUnsubscribeItselfAndIsNotCalledAgain) {
  // What the handler saw; the test holds it too, so the handler reaches it after its own
  // closure may be gone (only through a pointer copied to the stack).
  struct self_state {
    std::atomic<notification_bus::subscription> id{0};
    std::atomic<int> calls{0};
    std::atomic<int> unsubscribe_result{-1};        // 1 true, 0 false
    std::atomic<int> destroyed_during_its_run{-1};  // 1 yes, 0 no
    std::weak_ptr<int> token;                       // set before subscribing, then only read
  };
  auto state = std::make_shared<self_state>();
  auto token = std::make_shared<int>(1);
  state->token = token;
  notification_bus* b = &bus();
  const auto id =
      b->subscribe(change_kind::resource_updated, [state, token, b](const change_event&) {
        self_state* s = state.get();  // the closure may be destroyed below: use only `s` afterwards
        if (s->calls.fetch_add(1) != 0) return;
        const bool ended = b->unsubscribe(s->id.load());
        s->unsubscribe_result.store(ended ? 1 : 0);
        s->destroyed_during_its_run.store(s->token.expired() ? 1 : 0);
      });
  state->id.store(id);
  token.reset();
  auto other = make_recorder();
  bus().subscribe(change_kind::resource_updated, other->handler());

  run_or_abort(
      [&] {
        bus().publish({change_kind::resource_updated, "first", nullptr});
      },
      "publish() to a handler that unsubscribes itself");
  ASSERT_TRUE(eventually([&] { return state->unsubscribe_result.load() != -1; }));
  EXPECT_EQ(state->unsubscribe_result.load(), 1) << "unsubscribe() from inside the handler";
  EXPECT_EQ(state->destroyed_during_its_run.load(), 0)
      << "the handler was destroyed while it was still running (its captures freed under it)";
  EXPECT_TRUE(eventually([&] { return state->token.expired(); }))
      << "the handler is destroyed once its run returned";

  for (int i = 0; i < 10; ++i) bus().publish({change_kind::resource_updated, "later", nullptr});
  ASSERT_TRUE(fence(bus(), change_kind::resource_updated, {other}));
  EXPECT_EQ(state->calls.load(), 1);
  EXPECT_EQ(other->count(), 11u);
  EXPECT_FALSE(bus().unsubscribe(id)) << "it already ended";
}

TEST_P(NotificationBusContract, HandlerMayPublishSubscribeAndUnsubscribeReentrantly) {
  auto resources = make_recorder();  // subscribed throughout
  auto joined = make_recorder();     // subscribed by the handler
  auto victim = make_recorder();     // unsubscribed by the handler
  auto lists = make_recorder();      // subscribed throughout, after the acting handler
  bus().subscribe(change_kind::resource_updated, resources->handler());
  const auto victim_id = bus().subscribe(change_kind::list_changed, victim->handler());
  auto acted = std::make_shared<std::atomic<bool>>(false);
  auto victim_result = std::make_shared<std::atomic<int>>(-1);
  notification_bus* b = &bus();
  bus().subscribe(
      change_kind::list_changed, [b, acted, victim_result, victim_id, joined](const change_event&) {
        if (acted->exchange(true)) return;
        b->publish({change_kind::resource_updated, "nested", json{{"from", "handler"}}});
        b->subscribe(change_kind::resource_updated, joined->handler());
        victim_result->store(b->unsubscribe(victim_id) ? 1 : 0);
      });
  bus().subscribe(change_kind::list_changed, lists->handler());

  run_or_abort(
      [&] {
        bus().publish({change_kind::list_changed, "go", nullptr});
      },
      "publish() to a handler that publishes, subscribes and unsubscribes");
  ASSERT_TRUE(eventually([&] { return victim_result->load() != -1; }));
  EXPECT_EQ(victim_result->load(), 1);

  bus().publish({change_kind::resource_updated, "after", nullptr});
  bus().publish({change_kind::list_changed, "later", nullptr});
  ASSERT_TRUE(eventually([&] { return resources->saw("nested"); }));
  ASSERT_TRUE(fence(bus(), change_kind::resource_updated, {resources, joined}));
  ASSERT_TRUE(fence(bus(), change_kind::list_changed, {lists}));

  std::vector<std::string> subjects;
  for (const auto& e : resources->payload_events()) subjects.push_back(e.subject);
  EXPECT_EQ(subjects, (std::vector<std::string>{"nested", "after"}));
  std::size_t joined_after = 0;
  for (const auto& e : joined->payload_events()) joined_after += e.subject == "after" ? 1 : 0;
  EXPECT_EQ(joined_after, 1u) << "the subscriber the handler added gets later events";
  for (const auto& e : victim->payload_events()) {
    EXPECT_EQ(e.subject, "go") << "the victim got an event published after its unsubscribe";
  }
  EXPECT_LE(victim->count(), 1u);
  std::vector<std::string> list_subjects;
  for (const auto& e : lists->payload_events()) list_subjects.push_back(e.subject);
  EXPECT_EQ(list_subjects, (std::vector<std::string>{"go", "later"}));
}

TEST_P(NotificationBusContract, WantedFollowsSubscribersAndTheirInterest) {
  const bool exact = exact_wanted();
  if (exact) {
    for (change_kind k : k_all_kinds) EXPECT_FALSE(bus().wanted(k, "anything"));
  }
  const auto lists = bus().subscribe(change_kind::list_changed, [](const change_event&) {});
  EXPECT_TRUE(bus().wanted(change_kind::list_changed, "tools"));
  EXPECT_TRUE(bus().wanted(change_kind::list_changed, "prompts"));
  if (exact) {
    EXPECT_FALSE(bus().wanted(change_kind::resource_updated, "tools")) << "another kind";
  }

  auto asked = std::make_shared<std::atomic<int>>(0);
  const auto only_a = bus().subscribe(
      change_kind::resource_updated, [](const change_event&) {},
      [asked](std::string_view subject) {
        asked->fetch_add(1);
        return subject.substr(0, 9) == "file:///a";
      });
  EXPECT_TRUE(bus().wanted(change_kind::resource_updated, "file:///a/1.txt"));
  if (exact) {
    EXPECT_FALSE(bus().wanted(change_kind::resource_updated, "file:///b/1.txt"));
    EXPECT_GT(asked->load(), 0) << "the interest predicate decides";
  }
  const auto only_b = bus().subscribe(
      change_kind::resource_updated, [](const change_event&) {},
      [](std::string_view subject) { return subject.substr(0, 9) == "file:///b"; });
  EXPECT_TRUE(bus().wanted(change_kind::resource_updated, "file:///a/1.txt"));
  EXPECT_TRUE(bus().wanted(change_kind::resource_updated, "file:///b/1.txt"));
  if (exact) {
    EXPECT_FALSE(bus().wanted(change_kind::resource_updated, "file:///c/1.txt"));
  }

  ASSERT_TRUE(bus().unsubscribe(only_a));
  EXPECT_TRUE(bus().wanted(change_kind::resource_updated, "file:///b/1.txt"));
  if (exact) {
    EXPECT_FALSE(bus().wanted(change_kind::resource_updated, "file:///a/1.txt"));
    const int before = asked->load();
    bus().wanted(change_kind::resource_updated, "file:///a/2.txt");
    EXPECT_EQ(asked->load(), before) << "an unsubscribed interest predicate was consulted";
  }
  ASSERT_TRUE(bus().unsubscribe(only_b));
  ASSERT_TRUE(bus().unsubscribe(lists));
  if (exact) {
    EXPECT_FALSE(bus().wanted(change_kind::list_changed, "tools"));
    EXPECT_FALSE(bus().wanted(change_kind::resource_updated, "file:///b/1.txt"));
  }
}

TEST_P(NotificationBusContract, InterestAnswersWantedButDoesNotFilterDelivery) {
  auto picky = make_recorder();
  bus().subscribe(change_kind::resource_updated, picky->handler(),
                  [](std::string_view subject) { return subject == "file:///wanted"; });
  bus().publish({change_kind::resource_updated, "file:///unwanted", nullptr});
  ASSERT_TRUE(fence(bus(), change_kind::resource_updated, {picky}));
  const auto got = picky->payload_events();
  ASSERT_EQ(got.size(), 1u) << "publish() delivers to every subscriber of the kind";
  EXPECT_EQ(got[0].subject, "file:///unwanted");
}

TEST_P(NotificationBusContract, ThrowingHandlerDoesNotStopDeliveryAndIsReported) {
  auto std_throws = std::make_shared<std::atomic<int>>(0);
  auto other_throws = std::make_shared<std::atomic<int>>(0);
  auto first = make_recorder();
  auto second = make_recorder();
  bus().subscribe(change_kind::task_status, [std_throws](const change_event& e) {
    if (event_recorder::is_fence(e)) return;
    std_throws->fetch_add(1);
    throw std::runtime_error("handler failed on " + e.subject);
  });
  bus().subscribe(change_kind::task_status, first->handler());
  bus().subscribe(change_kind::task_status, [other_throws](const change_event& e) {
    if (event_recorder::is_fence(e)) return;
    other_throws->fetch_add(1);
    throw 42;  // NOLINT(hicpp-exception-baseclass): a non-std exception is the point
  });
  bus().subscribe(change_kind::task_status, second->handler());

  bus().publish({change_kind::task_status, "e1", nullptr});
  bus().publish({change_kind::task_status, "e2", nullptr});
  ASSERT_TRUE(fence(bus(), change_kind::task_status, {first, second}));
  EXPECT_EQ(first->count(), 2u);
  EXPECT_EQ(second->count(), 2u);
  ASSERT_TRUE(eventually([&] { return errors_.size() >= 4; })) << errors_.size();
  EXPECT_EQ(std_throws->load(), 2) << "a handler that threw stays subscribed";
  EXPECT_EQ(other_throws->load(), 2) << "a handler that threw stays subscribed";
  EXPECT_EQ(errors_.sorted(),
            (std::vector<std::string>{"handler failed on e1", "handler failed on e2",
                                      "unknown exception", "unknown exception"}));
}

TEST_P(NotificationBusContract, SubjectAndPayloadArriveIntact) {
  json big = json::object();
  const std::string text = "h\xC3\xA9llo \xE2\x9C\x93 \xF0\x9F\x98\x80 with a \0 inside"s;
  ASSERT_EQ(text.size(), 31u);
  big["text"] = text;
  big["max"] = std::numeric_limits<std::int64_t>::max();
  big["min"] = std::numeric_limits<std::int64_t>::min();
  big["umax"] = std::numeric_limits<std::uint64_t>::max();
  big["tenth"] = 0.1;
  big["flags"] = json::array({true, false, nullptr});
  big["nested"] = json{{"a", json::array({1, json::array({2, json::array({3})})})}};
  big["blob"] = std::string(std::size_t{256} * 1024, 'x');
  json rows = json::array();
  for (int i = 0; i < 1000; ++i)
    rows.push_back(json{{"i", i}, {"name", "row " + std::to_string(i)}});
  big["rows"] = std::move(rows);
  const std::string subject =
      "file:///donn\xC3\xA9"
      "es/\xE2\x9C\x93/space here?x=1&y=%20#frag";

  auto r = make_recorder();
  bus().subscribe(change_kind::task_status, r->handler());
  bus().publish({change_kind::task_status, subject, big});
  bus().publish({change_kind::task_status, "", nullptr});
  bus().publish({change_kind::task_status, "small", json{{"status", "completed"}}});
  ASSERT_TRUE(fence(bus(), change_kind::task_status, {r}));
  const auto got = r->payload_events();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].kind, change_kind::task_status);
  EXPECT_EQ(got[0].subject, subject);
  EXPECT_TRUE(got[0].payload == big) << "the large payload changed on the way";
  EXPECT_EQ(got[0].payload.at("text").get<std::string>(), text) << "embedded NUL and UTF-8";
  EXPECT_EQ(got[1].subject, "");
  EXPECT_TRUE(got[1].payload.is_null());
  EXPECT_EQ(got[2].payload, (json{{"status", "completed"}}));
}

TEST_P(NotificationBusContract, SubscriberChurnDoesNotDisturbOtherSubscribers) {
  constexpr int k_events = 2000;
  constexpr int k_churn = 200;
  auto steady = make_recorder();
  bus().subscribe(change_kind::list_changed, steady->handler());
  std::atomic<int> failed_unsubscribes{0};
  {
    thread_group threads;
    threads.spawn([this] {
      for (int i = 0; i < k_events; ++i) {
        bus().publish({change_kind::list_changed, "e" + std::to_string(i), nullptr});
      }
    });
    for (int t = 0; t < 2; ++t) {
      threads.spawn([this, t, &failed_unsubscribes] {
        for (int i = 0; i < k_churn; ++i) {
          const auto id = bus().subscribe(
              t == 0 ? change_kind::list_changed : change_kind::resource_updated,
              [](const change_event&) {}, [](std::string_view) { return true; });
          bus().wanted(change_kind::list_changed, "tools");
          if (!bus().unsubscribe(id)) failed_unsubscribes.fetch_add(1);
        }
      });
    }
  }
  EXPECT_EQ(failed_unsubscribes.load(), 0);
  ASSERT_TRUE(eventually([&] { return steady->count() >= std::size_t{k_events}; }));
  ASSERT_TRUE(fence(bus(), change_kind::list_changed, {steady}));
  const auto got = steady->payload_events();
  ASSERT_EQ(got.size(), std::size_t{k_events});
  for (int i = 0; i < k_events; ++i) {
    ASSERT_EQ(got[static_cast<std::size_t>(i)].subject, "e" + std::to_string(i));
  }
}

}  // namespace mcpcxx::testing::contract
