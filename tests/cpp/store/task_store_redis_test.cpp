// The Redis task store: the contract suite (tests/cpp/seams/task_store_contract.hpp), the
// in-memory store's own tests (tests/cpp/engine/tasks_test.cpp, InMemoryTaskStore) run against
// Redis, then what only the shared store does: replicas share records, pages and the bound;
// leases fail the tasks of a replica that stopped; every key has a TTL; outages throw.
#include <mutex>
#include <set>
#include <thread>

#include "seams/task_store_contract.hpp"
#include "store/store_support.hpp"
#include "store/task_codec.hpp"

namespace mcpcxx::testing::contract {

namespace {

using namespace std::chrono_literals;

std::shared_ptr<detail::leased_task_store> store_on(const detail::redis_scope& scope,
                                                    std::size_t max_tasks = 1000,
                                                    std::chrono::milliseconds lease = 5s) {
  detail::redis_task_store_options o;
  o.max_tasks = max_tasks;
  o.lease = lease;
  return detail::make_redis_task_store(scope, o);
}

// tests/cpp/engine/tasks_test.cpp's record(): created now, poll 100 ms.
task_record record(const std::string& id, const std::string& owner, std::int64_t ttl_ms = 60000) {
  task_record r;
  r.task_id = id;
  r.owner = owner;
  r.created_at = r.last_updated_at = task_record::clock::now();
  r.ttl_ms = ttl_ms;
  r.poll_interval_ms = 100;
  return r;
}

}  // namespace

INSTANTIATE_TEST_SUITE_P(Redis, TaskStoreContract,
                         ::testing::Values(task_store_factory{
                             "redis",
                             [](std::size_t max_tasks) -> std::shared_ptr<task_store> {
                               return store_on(shared_scope(fresh_prefix(), "contract"), max_tasks);
                             }}),
                         task_store_factory_name{});

// ---- InMemoryTaskStore's tests (tests/cpp/engine/tasks_test.cpp), against Redis ----

TEST(RedisTaskStore, BoundedByMaxTasks) {
  auto store = store_on(shared_scope(fresh_prefix(), "r"), 2);
  EXPECT_TRUE(store->create(record("a", "o")));
  EXPECT_TRUE(store->create(record("b", "o")));
  EXPECT_FALSE(store->create(record("c", "o")));
  EXPECT_FALSE(store->create(record("a", "o"))) << "duplicate id";
}

TEST(RedisTaskStore, DuplicateIdsAreRefusedBelowTheBoundToo) {
  auto store = store_on(shared_scope(fresh_prefix(), "r"));
  ASSERT_TRUE(store->create(record("a", "o")));
  task_record other = record("a", "someone else");
  other.method = "something/else";
  EXPECT_FALSE(store->create(other));
  EXPECT_EQ(store->get("a", "o")->method, "tools/call") << "the first record stays";
  EXPECT_FALSE(store->get("a", "someone else"));
}

TEST(RedisTaskStore, ExpiredRecordsAreFreedAndNeverHandedOut) {
  auto store = store_on(shared_scope(fresh_prefix(), "r"), 1);
  ASSERT_TRUE(store->create(record("short", "o", 30)));
  EXPECT_TRUE(store->get("short", "o"));
  std::this_thread::sleep_for(60ms);
  EXPECT_FALSE(store->get("short", "o"));
  EXPECT_FALSE(store->update("short", [](task_record&) {}));
  EXPECT_TRUE(store->create(record("next", "o"))) << "the expired record freed its slot";
}

TEST(RedisTaskStore, OwnersSeeOnlyTheirRecords) {
  auto store = store_on(shared_scope(fresh_prefix(), "r"));
  ASSERT_TRUE(store->create(record("mine", "alice")));
  EXPECT_TRUE(store->get("mine", "alice"));
  EXPECT_FALSE(store->get("mine", "bob"));
  auto page = store->list("bob", std::nullopt, 10);
  ASSERT_TRUE(page);
  EXPECT_TRUE(page->tasks.empty());
}

TEST(RedisTaskStore, ListPagesOldestFirstAndRefusesForeignCursors) {
  auto store = store_on(shared_scope(fresh_prefix(), "r"));
  for (const char* id : {"t1", "t2", "t3", "t4", "t5"}) ASSERT_TRUE(store->create(record(id, "o")));
  ASSERT_TRUE(store->create(record("other", "x")));
  std::vector<std::string> seen;
  std::optional<std::string> cursor;
  int pages = 0;
  do {
    auto page = store->list("o", cursor, 2);
    ASSERT_TRUE(page);
    for (const auto& r : page->tasks) seen.push_back(r.task_id);
    cursor = page->next_cursor;
    ++pages;
  } while (cursor);
  EXPECT_EQ(seen, (std::vector<std::string>{"t1", "t2", "t3", "t4", "t5"}));
  EXPECT_EQ(pages, 3);
  for (const char* bad : {"", "bogus", "tasks:", "tasks:x", "tasks:1x", "tasks:99999"}) {
    EXPECT_FALSE(store->list("o", std::string(bad), 2)) << bad;
  }
}

TEST(RedisTaskStore, UpdateIsAtomicUnderConcurrency) {
  auto store = store_on(shared_scope(fresh_prefix(), "r"));
  ASSERT_TRUE(store->create(record("n", "o")));
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 500; ++i) {
        store->update("n", [](task_record& r) { r.poll_interval_ms += 1; });
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(store->get("n", "o")->poll_interval_ms, 100 + 4 * 500);
}

// ---- replicas sharing one Redis ----

class RedisTaskReplicas : public ::testing::Test {
 protected:
  void SetUp() override {
    prefix_ = fresh_prefix();
    a_ = store_on(shared_scope(prefix_, "a"), 1000, 300ms);
    b_ = store_on(shared_scope(prefix_, "b"), 1000, 300ms);
    raw_ = std::make_unique<redis::client>(redis_options_for(shared_redis()));
  }
  void TearDown() override {
    const auto bare = keys_without_ttl(*raw_, prefix_);
    EXPECT_TRUE(bare.empty()) << bare.size() << " keys without a TTL, e.g. " << bare.front();
  }

  bool lease_exists(const std::string& id) {
    return raw_->run({"EXISTS", prefix_ + "task-lease:" + id}).integer == 1;
  }

  // What a replica killed right after creating `r` leaves behind: the record and a lease that is
  // never renewed (the keys the create script writes, by hand).
  void plant_orphan(const task_record& r, std::chrono::milliseconds lease) {
    const std::string id = r.task_id;
    raw_->run({"HSET", prefix_ + "task:" + id, "r", detail::encode_record(r), "v", "1", "st",
               std::string(to_string(r.status)), "rep", "dead-replica", "seq", "1"});
    raw_->run({"PEXPIREAT", prefix_ + "task:" + id, std::to_string(detail::expiry_ms(r))});
    raw_->run(
        {"SET", prefix_ + "task-lease:" + id, "dead-replica", "PX", std::to_string(lease.count())});
  }

  std::string prefix_;
  std::shared_ptr<detail::leased_task_store> a_;
  std::shared_ptr<detail::leased_task_store> b_;
  std::unique_ptr<redis::client> raw_;
};

TEST_F(RedisTaskReplicas, ARecordCreatedOnOneReplicaIsReadAndChangedOnAnother) {
  const task_record full = make_full_task("shared", "alice");
  ASSERT_TRUE(a_->create(full));
  const auto on_b = b_->get("shared", "alice");
  ASSERT_TRUE(on_b);
  EXPECT_TRUE(same_record(*on_b, full));
  const auto changed = b_->update("shared", [](task_record& r) {
    r.status_message = "changed on b";
    r.task_id = "renamed";  // ignored: id and owner never change
    r.owner = "mallory";
  });
  ASSERT_TRUE(changed);
  EXPECT_EQ(changed->task_id, "shared");
  EXPECT_EQ(changed->owner, "alice");
  EXPECT_EQ(a_->get("shared", "alice")->status_message, "changed on b");
  EXPECT_FALSE(a_->get("renamed", "mallory"));
}

TEST_F(RedisTaskReplicas, PagesAndTheBoundAreSharedByTheReplicas) {
  auto small_a = store_on(shared_scope(prefix_, "a2"), 3);
  auto small_b = store_on(shared_scope(prefix_, "b2"), 3);
  ASSERT_TRUE(small_a->create(record("1", "o")));
  ASSERT_TRUE(small_b->create(record("2", "o")));
  ASSERT_TRUE(small_a->create(record("3", "o")));
  EXPECT_FALSE(small_b->create(record("4", "o"))) << "the bound counts every replica's records";
  const auto first = small_a->list("o", std::nullopt, 2);
  ASSERT_TRUE(first && first->next_cursor);
  const auto second = small_b->list("o", first->next_cursor, 2);
  ASSERT_TRUE(second) << "a cursor of one replica is good on another";
  ASSERT_EQ(second->tasks.size(), 1u);
  EXPECT_EQ(second->tasks[0].task_id, "3");
  EXPECT_FALSE(second->next_cursor);
}

TEST_F(RedisTaskReplicas, ConcurrentUpdatesFromTwoReplicasNeverInterleave) {
  ASSERT_TRUE(a_->create(record("n", "o")));
  {
    thread_group threads;
    for (auto* store : {a_.get(), b_.get(), a_.get(), b_.get()}) {
      threads.spawn([store] {
        for (int i = 0; i < 200; ++i) {
          store->update("n", [](task_record& r) { r.poll_interval_ms += 1; });
        }
      });
    }
  }
  EXPECT_EQ(b_->get("n", "o")->poll_interval_ms, 100 + 4 * 200);
}

TEST_F(RedisTaskReplicas, EveryKeyHasATtlNoLongerThanItsRecordNeeds) {
  ASSERT_TRUE(a_->create(record("t1", "alice", 60000)));
  ASSERT_TRUE(b_->create(record("t2", "bob", 120000)));
  ASSERT_TRUE(a_->update("t1", [](task_record& r) { r.status = task_status::completed; }));
  ASSERT_TRUE(a_->list("alice", std::nullopt, 10));
  const auto keys = keys_under(*raw_, prefix_);
  EXPECT_EQ(
      std::set<std::string>(keys.begin(), keys.end()),
      (std::set<std::string>{prefix_ + "task:t1", prefix_ + "task:t2", prefix_ + "task-lease:t2",
                             prefix_ + "task-index", prefix_ + "task-owner:alice",
                             prefix_ + "task-owner:bob", prefix_ + "task-seq"}))
      << "t1 is completed: its lease is deleted";
  for (const auto& k : keys) {
    const auto ttl = raw_->run({"PTTL", k}).integer;
    EXPECT_GT(ttl, 0) << k;
    EXPECT_LE(ttl, 120000) << k;
  }
  EXPECT_LE(raw_->run({"PTTL", prefix_ + "task-lease:t2"}).integer, 300);
  EXPECT_LE(raw_->run({"PTTL", prefix_ + "task-owner:alice"}).integer, 60000);
}

TEST_F(RedisTaskReplicas, ARecordAlreadyExpiredAtCreateWritesNothing) {
  EXPECT_TRUE(a_->create(make_expired_task("stale", "alice")));
  EXPECT_TRUE(keys_under(*raw_, prefix_).empty());
  EXPECT_EQ(a_->leased(), 0u);
}

TEST_F(RedisTaskReplicas, TheLeaseOfARunningTaskIsRenewedAndDroppedWhenItEnds) {
  ASSERT_TRUE(a_->create(record("run", "o")));
  EXPECT_EQ(a_->leased(), 1u);
  for (int i = 0; i < 5; ++i) {
    std::this_thread::sleep_for(200ms);  // past the 300 ms lease: only renewal keeps it
    const auto r = b_->get("run", "o");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, task_status::working) << "round " << i;
  }
  ASSERT_TRUE(a_->update("run", [](task_record& r) { r.status = task_status::completed; }));
  EXPECT_EQ(a_->leased(), 0u);
  EXPECT_FALSE(lease_exists("run"));
  EXPECT_EQ(b_->get("run", "o")->status, task_status::completed) << "finished, not failed";
}

// A task cancelled on B while it runs on A: A's next renewal tells it, whatever became of the
// bus message; a task A settles itself is never reported.
TEST_F(RedisTaskReplicas, TheRunningReplicaLearnsOfASettlementElsewhereAtItsNextRenewal) {
  auto told = std::make_shared<std::vector<std::string>>();
  auto lock = std::make_shared<std::mutex>();
  detail::redis_task_store_options o;
  o.lease = 300ms;
  o.on_settled_elsewhere = [told, lock](const std::string& id) {
    std::lock_guard g(*lock);
    told->push_back(id);
  };
  auto runner = detail::make_redis_task_store(shared_scope(prefix_, "runner"), o);
  ASSERT_TRUE(runner->create(record("elsewhere", "o")));
  ASSERT_TRUE(runner->create(record("here", "o")));
  ASSERT_TRUE(b_->update("elsewhere", [](task_record& r) { r.status = task_status::cancelled; }));
  ASSERT_TRUE(runner->update("here", [](task_record& r) { r.status = task_status::completed; }));
  ASSERT_TRUE(eventually([&] {
    std::lock_guard g(*lock);
    return !told->empty();
  }));
  std::this_thread::sleep_for(300ms);  // three more renewals
  std::lock_guard g(*lock);
  EXPECT_EQ(*told, std::vector<std::string>{"elsewhere"}) << "once, and only for it";
  EXPECT_EQ(runner->leased(), 0u);
}

TEST_F(RedisTaskReplicas, ATaskWhoseReplicaDiedFailsWithTheOutcomeUnknown) {
  task_record orphan = make_full_task("orphan", "alice");
  orphan.status = task_status::working;
  orphan.input_requests = json::object();
  plant_orphan(orphan, 200ms);
  ASSERT_TRUE(eventually([&] { return !lease_exists("orphan"); }));
  const auto r = b_->get("orphan", "alice");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, task_status::failed);
  ASSERT_TRUE(r->error.is_object());
  EXPECT_EQ(r->error.at("code"), -32603);
  const std::string message = r->error.at("message").get<std::string>();
  EXPECT_NE(message.find("stopped before the task finished"), std::string::npos) << message;
  EXPECT_NE(message.find("outcome is unknown"), std::string::npos) << message;
  EXPECT_NE(message.find("may or may not have been applied"), std::string::npos) << message;
  EXPECT_NE(message.find("Check the current state"), std::string::npos) << message;
  EXPECT_EQ(r->error.at("data"),
            (json{{"taskId", "orphan"}, {"replica", "dead-replica"}, {"effect", "unknown"}}));
  EXPECT_EQ(message.rfind("Task \"orphan\" failed: the server replica running it stopped", 0), 0u)
      << "row P53 of the situation table";
  EXPECT_EQ(r->status_message, message) << "legacy tasks/get shows only the status message";
  const auto again = a_->get("orphan", "alice");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->last_updated_at, r->last_updated_at) << "failed once, not again per read";
  EXPECT_EQ(again->created_at, orphan.created_at);
}

TEST_F(RedisTaskReplicas, ListFailsOrphansTooAndLeavesLiveTasksAlone) {
  ASSERT_TRUE(a_->create(record("live", "o")));
  task_record orphan = record("orphan", "o");
  plant_orphan(orphan, 1ms);
  raw_->run({"ZADD", prefix_ + "task-owner:o", "0", "orphan"});  // listed first
  ASSERT_TRUE(eventually([&] { return !lease_exists("orphan"); }));
  const auto page = b_->list("o", std::nullopt, 10);
  ASSERT_TRUE(page);
  ASSERT_EQ(page->tasks.size(), 2u);
  EXPECT_EQ(page->tasks[0].task_id, "orphan");
  EXPECT_EQ(page->tasks[0].status, task_status::failed);
  EXPECT_EQ(page->tasks[1].status, task_status::working);
  EXPECT_EQ(a_->get("orphan", "o")->status, task_status::failed) << "the failure is stored";
}

TEST_F(RedisTaskReplicas, AFinishedTaskWithoutALeaseIsNeverFailed) {
  ASSERT_TRUE(a_->create(record("done", "o")));
  ASSERT_TRUE(a_->update("done", [](task_record& r) { r.status = task_status::cancelled; }));
  a_->release();
  EXPECT_EQ(b_->get("done", "o")->status, task_status::cancelled);
}

TEST_F(RedisTaskReplicas, ReleaseFailsTheUnfinishedTasksOfTheReplicaOnTheNextRead) {
  std::vector<task_record> lost;
  std::mutex lost_mutex;
  detail::redis_task_store_options o;
  o.on_lost = [&](const task_record& r) {
    std::lock_guard g(lost_mutex);
    lost.push_back(r);
  };
  auto reader = detail::make_redis_task_store(shared_scope(prefix_, "reader"), o);
  ASSERT_TRUE(a_->create(record("x", "o")));
  ASSERT_TRUE(a_->create(record("y", "o")));
  EXPECT_EQ(a_->leased(), 2u);
  a_->release();
  EXPECT_EQ(a_->leased(), 0u);
  EXPECT_FALSE(lease_exists("x"));
  EXPECT_EQ(reader->get("x", "o")->status, task_status::failed);
  EXPECT_EQ(reader->get("y", "o")->status, task_status::failed);
  EXPECT_EQ(reader->get("x", "o")->status, task_status::failed);
  std::lock_guard g(lost_mutex);
  ASSERT_EQ(lost.size(), 2u) << "on_lost once per task";
  EXPECT_EQ(lost[0].task_id, "x");
  ASSERT_TRUE(a_->create(record("after", "o")));
  EXPECT_FALSE(lease_exists("after")) << "a released store takes no new leases";
}

TEST_F(RedisTaskReplicas, DestroyingAStoreReleasesItsLeases) {
  ASSERT_TRUE(a_->create(record("x", "o")));
  a_.reset();
  EXPECT_FALSE(lease_exists("x"));
  EXPECT_EQ(b_->get("x", "o")->status, task_status::failed);
}

TEST_F(RedisTaskReplicas, TheOwnerRestoresItsOwnLapsedLeaseInsteadOfFailing) {
  ASSERT_TRUE(a_->create(record("mine", "o")));
  raw_->run({"DEL", prefix_ + "task-lease:mine"});  // as after a Redis restart
  EXPECT_EQ(a_->get("mine", "o")->status, task_status::working);
  EXPECT_TRUE(lease_exists("mine")) << "the owner wrote its lease again";
  EXPECT_EQ(b_->get("mine", "o")->status, task_status::working);
}

TEST_F(RedisTaskReplicas, ALeaseThatComesBackBeforeTheWriteKeepsTheTaskAlive) {
  // The failure is a compare-and-set that requires the lease to be gone still: a renewal that
  // lands between the read and the write wins. Here the lease exists: reads never fail it.
  task_record r = record("renewed", "o");
  plant_orphan(r, 60s);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(b_->get("renewed", "o")->status, task_status::working);
}

TEST(RedisTaskStoreOutage, CallsThrowUnavailableAndWorkAgainAfterTheRestart) {
  redis_server server;
  std::mutex trouble_mutex;
  std::vector<std::string> trouble;
  detail::redis_task_store_options o;
  o.on_trouble = [&](std::string_view what) {
    std::lock_guard g(trouble_mutex);
    trouble.emplace_back(what);
  };
  const std::string prefix = fresh_prefix();
  auto store = detail::make_redis_task_store(scope_on(server, prefix, "a"), o);
  ASSERT_TRUE(store->create(record("t", "o")));
  server.kill();
  EXPECT_THROW(store->get("t", "o"), redis::unavailable);
  EXPECT_THROW(store->create(record("u", "o")), redis::unavailable);
  bool called = false;
  EXPECT_THROW(store->update("t", [&](task_record&) { called = true; }), redis::unavailable);
  EXPECT_FALSE(called);
  EXPECT_THROW(store->list("o", std::nullopt, 10), redis::unavailable);
  server.restart();  // empty: the record is gone with the data
  ASSERT_TRUE(eventually([&] {
    try {
      return store->create(record("v", "o"));
    } catch (const redis::unavailable&) {
      return false;  // still backing off
    }
  }));
  EXPECT_TRUE(store->get("v", "o"));
  std::lock_guard g(trouble_mutex);
  ASSERT_GE(trouble.size(), 2u);
  EXPECT_NE(trouble.front().find("task store: Redis failed"), std::string::npos);
  EXPECT_NE(trouble.back().find("Redis works again"), std::string::npos);
}

}  // namespace mcpcxx::testing::contract
