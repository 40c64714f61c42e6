// The task store contract (task_store_contract.hpp): the task_store interface of
// cpp/include/mcpcxx/tasks.hpp, for any implementation an instantiation file names.
#include "seams/task_store_contract.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <string>

namespace mcpcxx::testing::contract {

using std::chrono::milliseconds;

TEST_P(TaskStoreContract, CreateThenGetGivesTheWholeRecord) {
  auto store = make_store();
  const task_record want = make_full_task("t-full", "alice");
  ASSERT_TRUE(store->create(want));
  const auto got = store->get("t-full", "alice");
  ASSERT_TRUE(got.has_value()) << "get() right after create() returned";
  EXPECT_TRUE(same_record(*got, want));
}

TEST_P(TaskStoreContract, GetIsForTheOwnerOnly) {
  auto store = make_store();
  ASSERT_TRUE(store->create(make_task("t-alice", "alice", now_ms())));
  ASSERT_TRUE(store->create(make_task("t-anyone", "", now_ms())));
  EXPECT_TRUE(store->get("t-alice", "alice").has_value());
  EXPECT_FALSE(store->get("t-alice", "bob").has_value());
  EXPECT_FALSE(store->get("t-alice", "").has_value());
  EXPECT_FALSE(store->get("t-alice", "Alice").has_value());
  EXPECT_TRUE(store->get("t-anyone", "").has_value());
  EXPECT_FALSE(store->get("t-unknown", "alice").has_value());
  EXPECT_FALSE(store->get("", "alice").has_value());
}

TEST_P(TaskStoreContract, CreateFailsWhenFullOfLiveTasks) {
  auto store = make_store(3);
  ASSERT_TRUE(store->create(make_task("a", "alice", now_ms())));
  ASSERT_TRUE(store->create(make_task("b", "bob", now_ms())));
  ASSERT_TRUE(store->create(make_task("c", "alice", now_ms())));
  EXPECT_FALSE(store->create(make_task("d", "alice", now_ms())));
  EXPECT_FALSE(store->create(make_task("e", "carol", now_ms()))) << "the bound is per store";
  EXPECT_FALSE(store->get("d", "alice").has_value()) << "a refused record is not stored";
  for (const char* id : {"a", "c"}) EXPECT_TRUE(store->get(id, "alice").has_value()) << id;
  EXPECT_TRUE(store->get("b", "bob").has_value());
}

TEST_P(TaskStoreContract, CreateSucceedsOnceARecordHasExpired) {
  auto store = make_store(2);
  const auto start = now_ms();
  ASSERT_TRUE(store->create(make_task("long", "alice", start)));
  const task_record brief = make_task("brief", "alice", start, 300);
  ASSERT_TRUE(store->create(brief));
  EXPECT_FALSE(store->create(make_task("next", "alice", now_ms())))
      << "full while `brief` lives (if this fails, the machine took 300 ms between two calls)";
  sleep_until_clock(expiry_of(brief));
  EXPECT_TRUE(store->create(make_task("next", "alice", now_ms())))
      << "an expired record does not count against the bound";
  EXPECT_FALSE(store->get("brief", "alice").has_value());
  EXPECT_TRUE(store->get("next", "alice").has_value());
  EXPECT_TRUE(store->get("long", "alice").has_value());
}

TEST_P(TaskStoreContract, ARecordIsNeverHandedOutPastItsTtl) {
  auto store = make_store();
  const task_record brief = make_task("brief", "alice", now_ms(), 300);
  ASSERT_TRUE(store->create(brief));
  ASSERT_TRUE(store->create(make_task("long", "alice", now_ms())));
  ASSERT_TRUE(store->get("brief", "alice").has_value()) << "alive before its TTL";
  sleep_until_clock(expiry_of(brief));

  EXPECT_FALSE(store->get("brief", "alice").has_value());
  bool change_called = false;
  EXPECT_FALSE(store->update("brief", [&](task_record&) { change_called = true; }).has_value());
  EXPECT_FALSE(change_called) << "update() called the change on an expired record";
  std::vector<std::string> ids;
  ASSERT_TRUE(walk_pages(*store, "alice", 10, ids));
  EXPECT_EQ(ids, std::vector<std::string>{"long"});
}

TEST_P(TaskStoreContract, AnAlreadyExpiredRecordIsNeverHandedOut) {
  auto store = make_store();
  // Whether create() takes a record that is already past its TTL is the store's choice; either
  // way nothing hands it out.
  (void)store->create(make_expired_task("stale", "alice"));
  EXPECT_FALSE(store->get("stale", "alice").has_value());
  bool change_called = false;
  EXPECT_FALSE(store->update("stale", [&](task_record&) { change_called = true; }).has_value());
  EXPECT_FALSE(change_called);
  const auto page = store->list("alice", std::nullopt, 10);
  ASSERT_TRUE(page.has_value());
  EXPECT_TRUE(page->tasks.empty());
}

TEST_P(TaskStoreContract, UpdateAppliesTheChangeAndReturnsTheChangedRecord) {
  auto store = make_store();
  const task_record original = make_full_task("t", "alice");
  ASSERT_TRUE(store->create(original));
  const auto later = original.last_updated_at + milliseconds(5000);
  const auto updated = store->update("t", [&](task_record& r) {
    r.status = task_status::completed;
    r.status_message.reset();
    r.result = json{{"content", json::array()}, {"isError", false}};
    r.input_requests = json::object();
    r.last_updated_at = later;
  });
  ASSERT_TRUE(updated.has_value());
  task_record want = original;
  want.status = task_status::completed;
  want.status_message.reset();
  want.result = json{{"content", json::array()}, {"isError", false}};
  want.input_requests = json::object();
  want.last_updated_at = later;
  EXPECT_TRUE(same_record(*updated, want)) << "the record update() returned";
  const auto stored = store->get("t", "alice");
  ASSERT_TRUE(stored.has_value());
  EXPECT_TRUE(same_record(*stored, want)) << "the record get() returns afterwards";
}

TEST_P(TaskStoreContract, UpdateOfAMissingRecordIsNulloptWithoutCallingTheChange) {
  auto store = make_store();
  ASSERT_TRUE(store->create(make_task("present", "alice", now_ms())));
  bool change_called = false;
  EXPECT_FALSE(store->update("absent", [&](task_record&) { change_called = true; }).has_value());
  EXPECT_FALSE(change_called);
}

TEST_P(TaskStoreContract, ConcurrentUpdatesNeverInterleave) {
  constexpr int k_threads = 8;
  constexpr int k_per_thread = 250;
  auto store = make_store();
  task_record counter = make_task("counter", "alice", now_ms());
  counter.status_message = "0";
  ASSERT_TRUE(store->create(counter));
  std::mutex seen_mutex;
  std::vector<int> seen;  // the value each update wrote, as update() returned it
  std::atomic<int> mismatches{0};
  std::atomic<int> missing{0};
  {
    thread_group threads;
    for (int t = 0; t < k_threads; ++t) {
      threads.spawn([&] {
        std::vector<int> mine;
        for (int i = 0; i < k_per_thread; ++i) {
          int wrote = -1;
          const auto r = store->update("counter", [&](task_record& rec) {
            wrote = std::stoi(rec.status_message.value_or("-1000000")) + 1;
            rec.status_message = std::to_string(wrote);
            rec.poll_interval_ms += 1;
          });
          if (!r) {
            missing.fetch_add(1);
            continue;
          }
          if (r->status_message != std::to_string(wrote)) mismatches.fetch_add(1);
          mine.push_back(wrote);
        }
        std::lock_guard g(seen_mutex);
        seen.insert(seen.end(), mine.begin(), mine.end());
      });
    }
  }
  EXPECT_EQ(missing.load(), 0);
  EXPECT_EQ(mismatches.load(), 0) << "update() returned a record other than the one it changed";
  constexpr int k_total = k_threads * k_per_thread;
  std::sort(seen.begin(), seen.end());
  std::vector<int> each_once(k_total);
  for (int i = 0; i < k_total; ++i) each_once[static_cast<std::size_t>(i)] = i + 1;
  EXPECT_EQ(seen, each_once) << "every update saw the one before it";
  const auto final_record = store->get("counter", "alice");
  ASSERT_TRUE(final_record.has_value());
  EXPECT_EQ(final_record->status_message, std::to_string(k_total));
  EXPECT_EQ(final_record->poll_interval_ms, counter.poll_interval_ms + k_total);
}

TEST_P(TaskStoreContract, ConcurrentCreatesRespectTheBoundExactly) {
  constexpr int k_threads = 6;
  constexpr int k_per_thread = 40;
  constexpr std::size_t k_bound = 100;
  auto store = make_store(k_bound);
  std::atomic<int> created{0};
  std::atomic<int> not_found_after_create{0};
  {
    thread_group threads;
    for (int t = 0; t < k_threads; ++t) {
      threads.spawn([&, t] {
        const std::string owner = "owner-" + std::to_string(t % 2);
        for (int i = 0; i < k_per_thread; ++i) {
          const std::string id = "t" + std::to_string(t) + "-" + std::to_string(i);
          if (!store->create(make_task(id, owner, now_ms()))) continue;
          created.fetch_add(1);
          if (!store->get(id, owner)) not_found_after_create.fetch_add(1);
        }
      });
    }
  }
  EXPECT_EQ(created.load(), static_cast<int>(k_bound));
  EXPECT_EQ(not_found_after_create.load(), 0) << "get() right after create() returned true";
  std::vector<std::string> ids;
  ASSERT_TRUE(walk_pages(*store, "owner-0", 7, ids));
  ASSERT_TRUE(walk_pages(*store, "owner-1", 7, ids));
  EXPECT_EQ(ids.size(), k_bound);
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), k_bound);
}

TEST_P(TaskStoreContract, ListWalksEveryLiveRecordOfTheOwnerOnceOldestFirst) {
  auto store = make_store();
  const auto base = now_ms() - milliseconds(1000);
  std::vector<std::string> alice_ids;
  // Interleaved: alice's records, other owners' and an expired one of alice's, oldest first.
  for (int i = 0; i < 10; ++i) {
    const std::string id = "alice-" + std::to_string(i);
    ASSERT_TRUE(store->create(make_task(id, "alice", base + milliseconds(3 * i))));
    alice_ids.push_back(id);
    ASSERT_TRUE(store->create(
        make_task("bob-" + std::to_string(i), "bob", base + milliseconds(3 * i + 1))));
    if (i == 4) (void)store->create(make_expired_task("alice-expired", "alice"));
  }
  ASSERT_TRUE(store->create(make_task("anyone", "", base + milliseconds(40))));

  for (std::size_t limit : {std::size_t{1}, std::size_t{3}, std::size_t{10}, std::size_t{50}}) {
    std::vector<std::string> ids;
    ASSERT_TRUE(walk_pages(*store, "alice", limit, ids)) << "limit " << limit;
    EXPECT_EQ(ids, alice_ids) << "limit " << limit;
  }
  const auto first = store->list("alice", std::nullopt, 4);
  ASSERT_TRUE(first.has_value());
  ASSERT_FALSE(first->tasks.empty());
  EXPECT_TRUE(same_record(first->tasks[0], make_task("alice-0", "alice", base)))
      << "pages carry the whole records";
  std::vector<std::string> bob_ids;
  ASSERT_TRUE(walk_pages(*store, "bob", 4, bob_ids));
  EXPECT_EQ(bob_ids.size(), 10u);
  std::vector<std::string> anyone_ids;
  ASSERT_TRUE(walk_pages(*store, "", 4, anyone_ids));
  EXPECT_EQ(anyone_ids, std::vector<std::string>{"anyone"});
}

TEST_P(TaskStoreContract, ListOfAnOwnerWithoutRecordsIsOneEmptyPage) {
  auto store = make_store();
  ASSERT_TRUE(store->create(make_task("mine", "alice", now_ms())));
  const auto page = store->list("bob", std::nullopt, 10);
  ASSERT_TRUE(page.has_value());
  EXPECT_TRUE(page->tasks.empty());
  EXPECT_FALSE(page->next_cursor.has_value());
}

TEST_P(TaskStoreContract, ListLeavesOutRecordsThatExpiredSinceThePreviousPage) {
  auto store = make_store();
  const auto base = now_ms();
  ASSERT_TRUE(store->create(make_task("p1", "alice", base)));
  ASSERT_TRUE(store->create(make_task("p2", "alice", base + milliseconds(1))));
  ASSERT_TRUE(store->create(make_task("p3", "alice", base + milliseconds(2))));
  const task_record brief = make_task("p4-brief", "alice", base + milliseconds(3), 300);
  ASSERT_TRUE(store->create(brief));
  ASSERT_TRUE(store->create(make_task("p5", "alice", base + milliseconds(4))));
  const auto first = store->list("alice", std::nullopt, 2);
  ASSERT_TRUE(first.has_value());
  ASSERT_EQ(first->tasks.size(), 2u) << "(if this fails, the machine took 300 ms)";
  ASSERT_TRUE(first->next_cursor.has_value());
  sleep_until_clock(expiry_of(brief));

  std::vector<std::string> rest;
  std::optional<std::string> cursor = first->next_cursor;
  for (int page_no = 0; cursor && page_no < 10; ++page_no) {
    const auto page = store->list("alice", cursor, 2);
    ASSERT_TRUE(page.has_value()) << "the cursor points at a record that still lives";
    for (const auto& r : page->tasks) rest.push_back(r.task_id);
    cursor = page->next_cursor;
  }
  EXPECT_FALSE(cursor.has_value());
  EXPECT_EQ(rest, (std::vector<std::string>{"p3", "p5"}));
}

TEST_P(TaskStoreContract, ACursorTheStoreDidNotIssueIsRefused) {
  auto store = make_store();
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(store->create(make_task("t" + std::to_string(i), "alice", now_ms())));
  }
  const auto first = store->list("alice", std::nullopt, 2);
  ASSERT_TRUE(first.has_value());
  ASSERT_TRUE(first->next_cursor.has_value());
  EXPECT_TRUE(store->list("alice", first->next_cursor, 2).has_value()) << "an issued cursor";
  for (const std::string& bad :
       {std::string(), std::string("not-a-cursor"), std::string("\xFF\xFE garbage \x01"),
        *first->next_cursor + "-tampered"}) {
    EXPECT_FALSE(store->list("alice", bad, 2).has_value()) << "cursor '" << bad << "'";
  }
}

}  // namespace mcpcxx::testing::contract
