// The call records contract (call_records_contract.hpp): detail::call_records of
// cpp/src/core/call_records.hpp, for any implementation an instantiation file names.
#include "seams/call_records_contract.hpp"

#include <atomic>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace mcpcxx::testing::contract {

namespace {

using detail::call_state;
using std::chrono::milliseconds;

// Of `n` threads that claim `key` at once (thread i as call "<key>-c<i>" on stores[i % size],
// with `replaces`), what each got.
struct claim_race {
  std::vector<detail::claim_outcome> outcomes;
  std::vector<std::string> calls;

  static claim_race run(const std::vector<std::shared_ptr<detail::call_records>>& stores,
                        const std::string& key, int n, const std::string& replaces = "") {
    claim_race race;
    race.outcomes.resize(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) race.calls.push_back(key + "-c" + std::to_string(i));
    std::atomic<int> ready{0};
    {
      thread_group threads;
      for (int i = 0; i < n; ++i) {
        threads.spawn([&, i] {
          const auto at = static_cast<std::size_t>(i);
          ready.fetch_add(1);
          while (ready.load() < n) std::this_thread::yield();
          race.outcomes[at] = stores[at % stores.size()]->claim(
              claim_of(key, race.calls[at], std::chrono::minutes(1), replaces));
        });
      }
    }
    return race;
  }

  // The one call that claimed (fails unless exactly one did and every other saw it running).
  ::testing::AssertionResult claimed_once(std::string& winner) const {
    std::vector<std::string> claimed;
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
      if (outcomes[i].claimed) claimed.push_back(calls[i]);
    }
    if (claimed.size() != 1) {
      return ::testing::AssertionFailure() << claimed.size() << " calls claimed, not 1";
    }
    winner = claimed.front();
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
      const auto& o = outcomes[i];
      if (o.claimed) continue;
      if (o.record.call_id != winner || o.record.state != call_state::running) {
        return ::testing::AssertionFailure()
               << calls[i] << " saw " << o.record.call_id << " in state "
               << static_cast<int>(o.record.state) << ", not " << winner << " running";
      }
    }
    return ::testing::AssertionSuccess();
  }
};

}  // namespace

TEST_P(CallRecordsContract, AFreeKeyIsClaimedAndEveryKeyOnItsOwn) {
  EXPECT_TRUE(store().claim(claim_of("k1", "c1")).claimed);
  EXPECT_TRUE(store().claim(claim_of("k2", "c2")).claimed) << "another key is free";
  EXPECT_TRUE(refused_by(store(), claim_of("k1", "c3"), call_state::running, "c1"));
  EXPECT_TRUE(refused_by(store(), claim_of("k2", "c4"), call_state::running, "c2"));
}

TEST_P(CallRecordsContract, ARepeatGetsTheRunningRecordOfTheFirstCall) {
  const auto first = claim_of("k", "c1");
  ASSERT_TRUE(store().claim(first).claimed);
  auto repeat = claim_of("k", "c2");
  repeat.now_ms = first.now_ms + 5;
  const auto o = store().claim(repeat);
  ASSERT_FALSE(o.claimed);
  EXPECT_EQ(o.record.state, call_state::running);
  EXPECT_EQ(o.record.call_id, "c1");
  EXPECT_EQ(o.record.first_called_at_ms, first.now_ms);
  EXPECT_EQ(o.record.task_id, "");
  EXPECT_EQ(o.record.result, "");
  EXPECT_EQ(o.record.reason, "");
  EXPECT_TRUE(refused_by(*replica(), claim_of("k", "c1"), call_state::running, "c1"))
      << "the holder's own id claims nothing a second time";
}

TEST_P(CallRecordsContract, ARepeatOfAnAppliedCallGetsItsResult) {
  const auto first = claim_of("k", "c1");
  ASSERT_TRUE(store().claim(first).claimed);
  detail::call_record done = outcome_of(call_state::applied, R"({"content":[]})", "");
  done.call_id = "someone-else";  // settle keeps the first call, whatever `r` says
  done.first_called_at_ms = 1;
  store().settle("k", "c1", done);
  const auto o = replica()->claim(claim_of("k", "c2"));
  ASSERT_FALSE(o.claimed);
  EXPECT_EQ(o.record.state, call_state::applied);
  EXPECT_EQ(o.record.result, R"({"content":[]})");
  EXPECT_EQ(o.record.call_id, "c1");
  EXPECT_EQ(o.record.first_called_at_ms, first.now_ms);
  EXPECT_EQ(o.record.reason, "");
}

TEST_P(CallRecordsContract, ARepeatOfAnUnknownOutcomeGetsItsReason) {
  ASSERT_TRUE(store().claim(claim_of("k", "c1")).claimed);
  store().settle("k", "c1", outcome_of(call_state::unknown, "", "timeout"));
  const auto o = replica()->claim(claim_of("k", "c2"));
  ASSERT_FALSE(o.claimed);
  EXPECT_EQ(o.record.state, call_state::unknown);
  EXPECT_EQ(o.record.reason, "timeout");
  EXPECT_EQ(o.record.call_id, "c1");
  EXPECT_EQ(o.record.result, "");
}

TEST_P(CallRecordsContract, ReleaseFreesTheKey) {
  ASSERT_TRUE(store().claim(claim_of("k", "c1")).claimed);
  ASSERT_TRUE(store().claim(claim_of("other", "c9")).claimed);
  store().release("k", "c1");
  EXPECT_TRUE(replica()->claim(claim_of("k", "c2")).claimed) << "the next identical call runs";
  EXPECT_TRUE(refused_by(store(), claim_of("k", "c3"), call_state::running, "c2"));
  EXPECT_TRUE(refused_by(store(), claim_of("other", "c3"), call_state::running, "c9"))
      << "release forgets its own key only";
}

TEST_P(CallRecordsContract, OnlyTheHoldingCallSettlesReleasesOrNotesATask) {
  ASSERT_TRUE(store().claim(claim_of("k", "c1")).claimed);
  store().settle("k", "c2", outcome_of(call_state::applied, "late", ""));
  store().set_task("k", "c2", "t-wrong");
  store().release("k", "c2");
  const auto o = replica()->claim(claim_of("k", "c3"));
  ASSERT_FALSE(o.claimed) << "a release by another call freed the key";
  EXPECT_EQ(o.record.state, call_state::running) << "a settle by another call changed it";
  EXPECT_EQ(o.record.call_id, "c1");
  EXPECT_EQ(o.record.task_id, "") << "set_task by another call changed it";

  store().settle("free", "c1", outcome_of(call_state::applied, "r", ""));
  store().set_task("free", "c1", "t");
  store().release("free", "c1");
  EXPECT_TRUE(store().claim(claim_of("free", "c4")).claimed) << "a settle made a record";
}

TEST_P(CallRecordsContract, TheTaskOfTheFirstCallShowsInRepeatsAndOutlivesTheSettle) {
  ASSERT_TRUE(store().claim(claim_of("k", "c1")).claimed);
  store().set_task("k", "c1", "task-42");
  const auto running = replica()->claim(claim_of("k", "c2"));
  ASSERT_FALSE(running.claimed);
  EXPECT_EQ(running.record.task_id, "task-42");
  EXPECT_EQ(running.record.state, call_state::running);
  detail::call_record done = outcome_of(call_state::applied, "result", "");
  done.task_id = "ignored";
  store().settle("k", "c1", done);
  const auto applied = replica()->claim(claim_of("k", "c3"));
  ASSERT_FALSE(applied.claimed);
  EXPECT_EQ(applied.record.task_id, "task-42");
  EXPECT_EQ(applied.record.state, call_state::applied);
}

TEST_P(CallRecordsContract, ARecordIsGoneOnceItsWindowHasPassedWhateverBecameOfIt) {
  const milliseconds window(300);
  ASSERT_TRUE(store().claim(claim_of("settled", "c1", window)).claimed);
  const auto last = claim_of("running", "c2", window);
  ASSERT_TRUE(store().claim(last).claimed);
  store().settle("settled", "c1", outcome_of(call_state::applied, "r", ""));
  EXPECT_TRUE(refused_by(store(), claim_of("settled", "c3", window), call_state::applied, "c1"))
      << "kept within the window (if this fails, the machine took 300 ms between two calls)";
  sleep_past_unix_ms(last.now_ms + window.count() + 5);
  EXPECT_TRUE(replica()->claim(claim_of("settled", "c4")).claimed);
  EXPECT_TRUE(replica()->claim(claim_of("running", "c5")).claimed)
      << "a running record expires too";
  store().settle("running", "c2", outcome_of(call_state::applied, "late", ""));
  store().release("settled", "c1");
  EXPECT_TRUE(refused_by(store(), claim_of("running", "c6"), call_state::running, "c5"))
      << "a late settle of an expired call changed its successor's record";
  EXPECT_TRUE(refused_by(store(), claim_of("settled", "c6"), call_state::running, "c4"))
      << "a late release of an expired call freed its successor's record";
}

TEST_P(CallRecordsContract, ReplacesTakesOverTheUnknownRecordOfThatCallAsANewFirstCall) {
  const auto first = claim_of("k", "c1");
  ASSERT_TRUE(store().claim(first).claimed);
  store().set_task("k", "c1", "t1");
  store().settle("k", "c1", outcome_of(call_state::unknown, "", "timeout"));
  sleep_past_unix_ms(first.now_ms + 2);
  const auto takeover = claim_of("k", "c2", std::chrono::minutes(1), "c1");
  EXPECT_TRUE(replica()->claim(takeover).claimed);
  const auto o = store().claim(claim_of("k", "c3"));
  ASSERT_FALSE(o.claimed);
  EXPECT_EQ(o.record.state, call_state::running);
  EXPECT_EQ(o.record.call_id, "c2");
  EXPECT_EQ(o.record.first_called_at_ms, takeover.now_ms);
  EXPECT_EQ(o.record.task_id, "");
  EXPECT_EQ(o.record.reason, "");
  store().settle("k", "c1", outcome_of(call_state::applied, "late", ""));
  EXPECT_TRUE(refused_by(store(), claim_of("k", "c4"), call_state::running, "c2"))
      << "the replaced call no longer holds the record";
}

TEST_P(CallRecordsContract, ReplacesLeavesEveryOtherRecordAlone) {
  const auto with_replaces = [](const std::string& key, const std::string& call,
                                const std::string& replaces) {
    return claim_of(key, call, std::chrono::minutes(1), replaces);
  };
  ASSERT_TRUE(store().claim(claim_of("unknown", "c1")).claimed);
  store().settle("unknown", "c1", outcome_of(call_state::unknown, "", "failed"));
  ASSERT_TRUE(store().claim(claim_of("running", "c2")).claimed);
  ASSERT_TRUE(store().claim(claim_of("applied", "c3")).claimed);
  store().settle("applied", "c3", outcome_of(call_state::applied, "r", ""));

  EXPECT_TRUE(
      refused_by(store(), with_replaces("unknown", "x1", "c-other"), call_state::unknown, "c1"))
      << "an unknown record of another call";
  EXPECT_TRUE(refused_by(store(), with_replaces("running", "x2", "c2"), call_state::running, "c2"))
      << "a running record";
  EXPECT_TRUE(refused_by(store(), with_replaces("applied", "x3", "c3"), call_state::applied, "c3"))
      << "an applied record";
  EXPECT_TRUE(store().claim(with_replaces("free", "x4", "c9")).claimed)
      << "a free key is claimed as usual";
}

TEST_P(CallRecordsContract, OfSixteenConcurrentClaimsOfOneKeyExactlyOneClaims) {
  for (int round = 0; round < 10; ++round) {
    const std::string key = "race" + std::to_string(round);
    const claim_race race = claim_race::run({replica()}, key, 16);
    std::string winner;
    ASSERT_TRUE(race.claimed_once(winner)) << "round " << round;
    EXPECT_TRUE(refused_by(store(), claim_of(key, "late"), call_state::running, winner));
  }
}

TEST_P(CallRecordsContract, OfSixteenConcurrentClaimsFromTwoReplicasExactlyOneClaims) {
  for (int round = 0; round < 10; ++round) {
    const std::string key = "race" + std::to_string(round);
    const claim_race race = claim_race::run({replica(), replica()}, key, 16);
    std::string winner;
    ASSERT_TRUE(race.claimed_once(winner)) << "round " << round;
    EXPECT_TRUE(refused_by(store(), claim_of(key, "late"), call_state::running, winner));
  }
}

TEST_P(CallRecordsContract, OfSixteenConcurrentTakeoversExactlyOneClaims) {
  for (int round = 0; round < 5; ++round) {
    const std::string key = "takeover" + std::to_string(round);
    ASSERT_TRUE(store().claim(claim_of(key, "lost")).claimed);
    store().settle(key, "lost", outcome_of(call_state::unknown, "", "timeout"));
    const claim_race race = claim_race::run({replica(), replica()}, key, 16, "lost");
    std::string winner;
    ASSERT_TRUE(race.claimed_once(winner)) << "round " << round;
  }
}

}  // namespace mcpcxx::testing::contract
