// Hung handlers: a tool whose deadline passed keeps running, but its worker is replaced (up to
// server_options::max_stuck_workers), so healthy tools keep being served (issue 10).
#include <future>
#include <thread>

#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"
#include "support/wait.hpp"

namespace mcpcxx::testing {
namespace {

using namespace std::chrono_literals;

/// A tool that ignores cancellation and returns only when the test opens the gate.
struct hung_tool {
  std::shared_ptr<std::promise<void>> gate = std::make_shared<std::promise<void>>();
  std::shared_future<void> opened = gate->get_future().share();
  void add_to(server& srv, std::chrono::milliseconds deadline) const {
    auto o = opened;
    srv.add_tool({.name = "hang", .timeout = deadline}, [o](const json&, request_context&) {
      o.wait_for(30s);  // bounded so a broken test ends
      return tool_result::text("late");
    });
  }
  void release() const { gate->set_value(); }
};

std::size_t count_id(const std::vector<collecting_sink::entry>& frames, int id) {
  std::size_t n = 0;
  for (const auto& f : frames) n += f.frame.contains("id") && f.frame["id"] == id ? 1 : 0;
  return n;
}

TEST(stuck_handlers_test, a_healthy_tool_is_served_while_more_handlers_hang_than_workers) {
  captured_log log;
  server_options o = log.options();  // two workers
  o.max_stuck_workers = 8;
  server srv(o);
  hung_tool hung;
  hung.add_to(srv, 30ms);
  srv.add_tool({.name = "ok"},
               [](const json&, request_context&) { return tool_result::text("y"); });
  harness h(srv, false);
  for (int id = 1; id <= 5; ++id) h.s.receive(modern_request(id, "tools/call", {{"name", "hang"}}));
  auto timeouts = h.sink->wait_for(5);
  ASSERT_EQ(timeouts.size(), 5u);
  for (const auto& f : timeouts) EXPECT_TRUE(f.frame["result"]["isError"].get<bool>());
  // The workers are replaced as each deadline passes, so the healthy tool still runs.
  EXPECT_TRUE(wait_until([&] { return srv.metrics().stuck_handlers == 5; }, 5s));
  h.s.receive(modern_request(100, "tools/call", {{"name", "ok"}}));
  auto frames = h.sink->wait_for(6);
  ASSERT_EQ(count_id(frames, 100), 1u) << "the healthy tool was starved by hung handlers";
  hung.release();
  EXPECT_TRUE(wait_until([&] { return srv.metrics().stuck_handlers == 0; }, 5s));
  h.s.receive(modern_request(101, "tools/call", {{"name", "ok"}}));
  EXPECT_EQ(count_id(h.sink->wait_for(7), 101), 1u);
  bool logged = false;
  for (const auto& line : log.snapshot()) logged |= line.find("handler_stuck") != std::string::npos;
  EXPECT_TRUE(logged);
}

TEST(stuck_handlers_test, past_the_bound_the_pool_runs_short_and_recovers_when_handlers_return) {
  captured_log log;
  server_options o = log.options();  // two workers
  o.max_worker_threads = 2;          // no growth: only stuck replacements add threads
  o.max_stuck_workers = 1;
  server srv(o);
  hung_tool hung;
  hung.add_to(srv, 20ms);
  srv.add_tool({.name = "ok"},
               [](const json&, request_context&) { return tool_result::text("y"); });
  harness h(srv, false);
  for (int id = 1; id <= 3; ++id) h.s.receive(modern_request(id, "tools/call", {{"name", "hang"}}));
  ASSERT_EQ(h.sink->wait_for(3).size(), 3u);
  EXPECT_TRUE(wait_until([&] { return srv.metrics().stuck_handlers == 3; }, 5s));
  h.s.receive(modern_request(100, "tools/call", {{"name", "ok"}}));
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(count_id(h.sink->frames(), 100), 0u) << "one replacement, three hung: no worker left";
  hung.release();
  EXPECT_EQ(count_id(h.sink->wait_for(4), 100), 1u);
  EXPECT_TRUE(wait_until([&] { return srv.metrics().stuck_handlers == 0; }, 5s));
}

TEST(stuck_handlers_test, a_handler_that_returns_before_its_deadline_is_never_counted_stuck) {
  server srv(captured_log{}.options());
  srv.add_tool({.name = "quick", .timeout = 5000ms},
               [](const json&, request_context&) { return tool_result::text("y"); });
  harness h(srv, false);
  for (int id = 1; id <= 20; ++id)
    h.s.receive(modern_request(id, "tools/call", {{"name", "quick"}}));
  ASSERT_EQ(h.sink->wait_for(20).size(), 20u);
  EXPECT_EQ(srv.metrics().stuck_handlers, 0u);
}

}  // namespace
}  // namespace mcpcxx::testing
