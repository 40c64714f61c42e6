// Cross-replica task control (tasks/task_control.hpp): tasks/cancel and tasks/update answered by a
// replica that does not run the task reach the handler on the one that does, over the bus. First
// with two task managers in one process sharing a memory bus and a memory store (the mechanism),
// then as two replicas on Redis (bridged buses, Redis task stores); and without a connection
// nothing crosses (the single-process default).
#include "tasks/task_control.hpp"

#include <future>

#include "store/store_support.hpp"
#include "support/wait.hpp"
#include "tasks/tasks.hpp"

namespace mcpcxx::testing::contract {

namespace {

using namespace std::chrono_literals;
using detail::task_manager;

task_options options_with(std::shared_ptr<task_store> store) {
  task_options o;
  o.store = std::move(store);
  o.threads = 1;
  return o;
}

// One replica: a task manager on a shared store, connected to its bus.
struct replica {
  replica(std::shared_ptr<task_store> store, detail::notification_bus& bus)
      : tasks(options_with(std::move(store))), link(detail::connect_task_control(tasks, bus)) {}
  task_manager tasks;
  std::shared_ptr<void> link;
};

// Runs the handler side of task `id` on `owner`: asks `questions`, returns the answers (empty
// when cancelled).
std::future<std::optional<std::vector<json>>> ask_async(task_manager& owner, const std::string& id,
                                                        json questions) {
  return std::async(std::launch::async,
                    [&owner, id, q = std::move(questions)] { return owner.ask(id, q); });
}

json two_questions() {
  return {{"a", {{"method", "elicitation/create"}, {"params", {{"message", "a?"}}}}},
          {"b", {{"method", "elicitation/create"}, {"params", {{"message", "b?"}}}}}};
}

// Runs the shared checks on replicas `a` (runs the task) and `b` (answers the client).
void cancel_reaches_the_owner(task_manager& a, task_manager& b) {
  cancellation_token token;
  const auto r = a.create("alice", std::nullopt, token);
  ASSERT_TRUE(r);
  const auto before = b.cancel(r->task_id, "alice");
  ASSERT_TRUE(before);
  EXPECT_EQ(before->status, task_status::working);
  EXPECT_TRUE(wait_until([&] { return token.cancelled(); }, 10s))
      << "the handler's token on the owner replica fired";
  EXPECT_EQ(a.store().get(r->task_id, "alice")->status, task_status::cancelled);
  a.settle(r->task_id, task_status::completed, json::object(), nullptr);
  EXPECT_EQ(b.store().get(r->task_id, "alice")->status, task_status::cancelled)
      << "what the handler returned after the cancel is dropped";
}

void answers_reach_the_owner(task_manager& a, task_manager& b) {
  cancellation_token token;
  const auto r = a.create("alice", std::nullopt, token);
  ASSERT_TRUE(r);
  auto answers = ask_async(a, r->task_id, two_questions());
  ASSERT_TRUE(wait_until(
      [&] { return b.store().get(r->task_id, "alice")->status == task_status::input_required; },
      10s));
  EXPECT_TRUE(b.answer(r->task_id, "alice", {{"a", {{"action", "accept"}}}}));
  ASSERT_TRUE(wait_until(
      [&] { return !b.store().get(r->task_id, "alice")->input_requests.contains("a"); }, 10s))
      << "the owner took the answer and removed it from inputRequests";
  EXPECT_EQ(b.store().get(r->task_id, "alice")->status, task_status::input_required);
  EXPECT_FALSE(b.answer(r->task_id, "mallory", {{"b", {{"action", "accept"}}}}))
      << "another owner's tasks/update finds no task";
  EXPECT_TRUE(b.answer(r->task_id, "alice", {{"b", {{"action", "decline"}}}}));
  ASSERT_EQ(answers.wait_for(10s), std::future_status::ready);
  const auto got = answers.get();
  ASSERT_TRUE(got);
  ASSERT_EQ(got->size(), 2u);
  EXPECT_EQ((*got)[0], (json{{"action", "accept"}}));
  EXPECT_EQ((*got)[1], (json{{"action", "decline"}}));
  EXPECT_EQ(b.store().get(r->task_id, "alice")->status, task_status::working);
  a.settle(r->task_id, task_status::completed, json::object(), nullptr);
}

TEST(TaskControlMemory, CancelOnAnotherManagerFiresTheOwnersToken) {
  auto store = make_in_memory_task_store();
  auto bus = detail::make_memory_notification_bus({});
  replica a(store, *bus);
  replica b(store, *bus);
  cancel_reaches_the_owner(a.tasks, b.tasks);
}

TEST(TaskControlMemory, AnswersOnAnotherManagerReachTheWaitingHandler) {
  auto store = make_in_memory_task_store();
  auto bus = detail::make_memory_notification_bus({});
  replica a(store, *bus);
  replica b(store, *bus);
  answers_reach_the_owner(a.tasks, b.tasks);
}

TEST(TaskControlMemory, ControlsForFinishedOrUnknownTasksGoNowhere) {
  auto store = make_in_memory_task_store();
  auto bus = detail::make_memory_notification_bus({});
  std::atomic<int> published{0};
  bus->subscribe(detail::change_kind::task_control,
                 [&](const detail::change_event&) { published.fetch_add(1); });
  replica a(store, *bus);
  replica b(store, *bus);
  cancellation_token token;
  const auto r = a.tasks.create("alice", std::nullopt, token);
  ASSERT_TRUE(r);
  a.tasks.settle(r->task_id, task_status::completed, json::object(), nullptr);
  EXPECT_TRUE(b.tasks.cancel(r->task_id, "alice"));
  EXPECT_TRUE(b.tasks.answer(r->task_id, "alice", {{"a", 1}}));
  EXPECT_FALSE(b.tasks.cancel("unknown", "alice"));
  EXPECT_EQ(published.load(), 0) << "nothing to hand on for a terminal or unknown task";
  EXPECT_FALSE(a.tasks.apply_control("unknown", {{"op", "cancel"}}));
  EXPECT_FALSE(a.tasks.apply_control(r->task_id, {{"op", "cancel"}})) << "no longer runs here";
}

TEST(TaskControlMemory, AMalformedControlIsIgnored) {
  auto store = make_in_memory_task_store();
  task_manager a(options_with(store));
  cancellation_token token;
  const auto r = a.create("alice", std::nullopt, token);
  ASSERT_TRUE(r);
  for (const json& bad : {json(nullptr), json("cancel"), json{{"op", "explode"}},
                          json{{"op", "answer"}}, json{{"op", "answer"}, {"responses", 3}}}) {
    EXPECT_FALSE(a.apply_control(r->task_id, bad)) << bad.dump();
  }
  EXPECT_FALSE(token.cancelled());
  EXPECT_TRUE(a.apply_control(r->task_id, {{"op", "cancel"}}));
  EXPECT_TRUE(token.cancelled());
}

TEST(TaskControlMemory, WithoutAConnectionNothingCrossesManagers) {
  // The default: nothing connected (one process runs every unfinished task it knows).
  auto store = make_in_memory_task_store();
  task_manager a(options_with(store));
  task_manager b(options_with(store));
  cancellation_token token;
  const auto r = a.create("alice", std::nullopt, token);
  ASSERT_TRUE(r);
  ASSERT_TRUE(b.cancel(r->task_id, "alice"));
  EXPECT_EQ(store->get(r->task_id, "alice")->status, task_status::cancelled);
  EXPECT_FALSE(token.cancelled()) << "no forwarder: the other manager's handler is not reached";
}

TEST(TaskControlMemory, DisconnectingStopsForwardingAndReceiving) {
  auto store = make_in_memory_task_store();
  auto bus = detail::make_memory_notification_bus({});
  replica a(store, *bus);
  replica b(store, *bus);
  a.link.reset();
  cancellation_token token;
  const auto r = a.tasks.create("alice", std::nullopt, token);
  ASSERT_TRUE(r);
  ASSERT_TRUE(b.tasks.cancel(r->task_id, "alice"));
  EXPECT_FALSE(token.cancelled()) << "A no longer listens";
}

// Two replicas on Redis: bridged buses and Redis task stores on one prefix.
class TaskControlRedis : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string prefix = fresh_prefix();
    bus_a_ = detail::make_redis_notification_bus(shared_scope(prefix, "a"), {});
    bus_b_ = detail::make_redis_notification_bus(shared_scope(prefix, "b"), {});
    a_ = std::make_unique<replica>(detail::make_redis_task_store(shared_scope(prefix, "a")),
                                   *bus_a_);
    b_ = std::make_unique<replica>(detail::make_redis_task_store(shared_scope(prefix, "b")),
                                   *bus_b_);
  }
  void TearDown() override {
    b_.reset();
    a_.reset();
  }

  std::unique_ptr<detail::notification_bus> bus_a_;
  std::unique_ptr<detail::notification_bus> bus_b_;
  std::unique_ptr<replica> a_;
  std::unique_ptr<replica> b_;
};

TEST_F(TaskControlRedis, CancelOnAnotherReplicaFiresTheOwnersToken) {
  cancel_reaches_the_owner(a_->tasks, b_->tasks);
}

TEST_F(TaskControlRedis, AnswersOnAnotherReplicaReachTheWaitingHandler) {
  answers_reach_the_owner(a_->tasks, b_->tasks);
}

TEST_F(TaskControlRedis, AStatusChangeOnOneReplicaIsPublishedToTheOthers) {
  auto seen = std::make_shared<std::atomic<int>>(0);
  bus_b_->subscribe(detail::change_kind::task_status, [seen](const detail::change_event& e) {
    if (e.payload.value("status", "") == "completed") seen->fetch_add(1);
  });
  a_->tasks.set_status_listener([bus = bus_a_.get()](const task_record& r) {
    bus->publish({detail::change_kind::task_status, r.task_id,
                  json{{"status", std::string(to_string(r.status))}}});
  });
  cancellation_token token;
  const auto r = a_->tasks.create("alice", std::nullopt, token);
  ASSERT_TRUE(r);
  a_->tasks.settle(r->task_id, task_status::completed, json::object(), nullptr);
  EXPECT_TRUE(wait_until([&] { return seen->load() == 1; }, 10s));
}

}  // namespace
}  // namespace mcpcxx::testing::contract
