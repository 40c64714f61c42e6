// The contract every mcpcxx::task_store passes (cpp/include/mcpcxx/tasks.hpp): a
// value-parameterised suite, TaskStoreContract, whose tests are in task_store_contract.cpp. An
// implementation runs them with one instantiation file:
//
//   INSTANTIATE_TEST_SUITE_P(Redis, TaskStoreContract,
//                            ::testing::Values(task_store_factory{"redis", [](std::size_t n) {
//                              return make_redis_task_store(redis_url(), n); }}),
//                            task_store_factory_name{});
//
// Time points in the records the suite stores are whole milliseconds, so a store that keeps
// milliseconds gives them back equal. Records expire by the system clock (created_at + ttl_ms):
// the suite builds records already expired, or expiring a few hundred milliseconds ahead, and
// waits for the clock, never for the store.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "mcpcxx/tasks.hpp"

#include "seams/seam_support.hpp"

namespace mcpcxx::testing::contract {

/// Makes the store under test; one parameter of TaskStoreContract.
struct task_store_factory {
  std::string name;  ///< the test name suffix (letters, digits, underscores)
  /// Makes a fresh, empty store that holds at most `max_tasks` records at once.
  std::function<std::shared_ptr<task_store>(std::size_t max_tasks)> make;
};

/// Prints a factory by its name (gtest's parameter printer).
inline void PrintTo(const task_store_factory& f, std::ostream* os) { *os << f.name; }

/// Names each instantiation's tests after the factory (the last argument of
/// INSTANTIATE_TEST_SUITE_P).
struct task_store_factory_name {
  /// The factory's name.
  std::string operator()(const ::testing::TestParamInfo<task_store_factory>& info) const {
    return info.param.name;
  }
};

/// The system clock now, in whole milliseconds.
inline task_record::clock::time_point now_ms() {
  return std::chrono::time_point_cast<std::chrono::milliseconds>(task_record::clock::now());
}

/// A working record of `owner`, created at `created_at`, kept `ttl_ms` from then.
inline task_record make_task(const std::string& id, const std::string& owner,
                             task_record::clock::time_point created_at,
                             std::int64_t ttl_ms = 60000) {
  task_record r;
  r.task_id = id;
  r.owner = owner;
  r.created_at = r.last_updated_at = created_at;
  r.ttl_ms = ttl_ms;
  r.poll_interval_ms = 250;
  return r;
}

/// A record with every field set to something other than its default.
inline task_record make_full_task(const std::string& id, const std::string& owner) {
  task_record r = make_task(id, owner, now_ms() - std::chrono::milliseconds(1500), 120000);
  r.method = "tools/call";
  r.status = task_status::input_required;
  r.status_message = "waiting for the user \xE2\x9C\x93";
  r.last_updated_at = r.created_at + std::chrono::milliseconds(700);
  r.poll_interval_ms = 1234;
  r.result = json{{"content", json::array({json{{"type", "text"}, {"text", "partial"}}})}};
  r.error = json{{"code", -32603}, {"message", "not yet"}, {"data", json{{"n", 1}}}};
  r.input_requests =
      json{{"q1", json{{"method", "elicitation/create"}, {"params", json{{"message", "Name?"}}}}}};
  return r;
}

/// A record that expired `ago` ago (created a minute before that, with a minute of TTL).
inline task_record make_expired_task(const std::string& id, const std::string& owner,
                                     std::chrono::milliseconds ago = std::chrono::seconds(5)) {
  return make_task(id, owner, now_ms() - ago - std::chrono::minutes(1), 60000);
}

/// Sleeps until the system clock reaches `t` (records expire by it).
inline void sleep_until_clock(task_record::clock::time_point t) {
  while (task_record::clock::now() < t) {
    std::this_thread::sleep_for(t - task_record::clock::now() + std::chrono::milliseconds(1));
  }
}

/// When record `r` expires.
inline task_record::clock::time_point expiry_of(const task_record& r) {
  return r.created_at + std::chrono::milliseconds(r.ttl_ms);
}

/// Whether `got` has every field of `want` (success), else which fields differ.
inline ::testing::AssertionResult same_record(const task_record& got, const task_record& want) {
  ::testing::AssertionResult out = ::testing::AssertionSuccess();
  bool ok = true;
  const auto differs = [&](const char* field) {
    if (ok) out = ::testing::AssertionFailure() << "task " << want.task_id << " differs in:";
    ok = false;
    out << " " << field;
  };
  if (got.task_id != want.task_id) differs("task_id");
  if (got.owner != want.owner) differs("owner");
  if (got.method != want.method) differs("method");
  if (got.status != want.status) differs("status");
  if (got.status_message != want.status_message) differs("status_message");
  if (got.created_at != want.created_at) differs("created_at");
  if (got.last_updated_at != want.last_updated_at) differs("last_updated_at");
  if (got.ttl_ms != want.ttl_ms) differs("ttl_ms");
  if (got.poll_interval_ms != want.poll_interval_ms) differs("poll_interval_ms");
  if (got.result != want.result) differs("result");
  if (got.error != want.error) differs("error");
  if (got.input_requests != want.input_requests) differs("input_requests");
  return out;
}

/// Lists every page of `owner` with `limit` from the first, appending the ids in order to
/// `ids`; fails when a page is refused, exceeds `limit`, or the walk does not end.
inline ::testing::AssertionResult walk_pages(task_store& store, const std::string& owner,
                                             std::size_t limit, std::vector<std::string>& ids) {
  std::optional<std::string> cursor;
  for (int page_no = 0; page_no < 1000; ++page_no) {
    const auto page = store.list(owner, cursor, limit);
    if (!page) return ::testing::AssertionFailure() << "page " << page_no << " was refused";
    if (page->tasks.size() > limit) {
      return ::testing::AssertionFailure()
             << "page " << page_no << " has " << page->tasks.size() << " > " << limit;
    }
    for (const auto& r : page->tasks) {
      if (r.owner != owner) {
        return ::testing::AssertionFailure() << r.task_id << " of " << r.owner << " listed";
      }
      ids.push_back(r.task_id);
    }
    if (!page->next_cursor) return ::testing::AssertionSuccess();
    cursor = page->next_cursor;
  }
  return ::testing::AssertionFailure() << "the walk did not end after 1000 pages";
}

/// The fixture: make_store(n) gives a fresh store from the factory.
class TaskStoreContract : public ::testing::TestWithParam<task_store_factory> {
 protected:
  /// A fresh store holding at most `max_tasks` records.
  std::shared_ptr<task_store> make_store(std::size_t max_tasks = 1000) {
    auto store = GetParam().make(max_tasks);
    EXPECT_NE(store, nullptr);
    return store;
  }
};

}  // namespace mcpcxx::testing::contract
