// Requests run concurrently on the worker pool; registration while serving is safe.
#include <future>
#include <thread>

#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"

namespace mcpcxx::testing {
namespace {

TEST(concurrency_test, a_request_can_wait_for_a_later_request_without_deadlock) {
  server srv(captured_log{}.options());  // two workers
  auto gate = std::make_shared<std::promise<void>>();
  auto opened = gate->get_future().share();
  srv.add_tool({.name = "wait_for_open"}, [opened](const json&, request_context&) {
    const bool ok = opened.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
    return tool_result::text(ok ? "opened" : "never opened");
  });
  srv.add_tool({.name = "open"}, [gate](const json&, request_context&) {
    gate->set_value();
    return tool_result::text("done");
  });
  harness h(srv, false);
  h.s.receive(modern_request(1, "tools/call", {{"name", "wait_for_open"}}));
  h.s.receive(modern_request(2, "tools/call", {{"name", "open"}}));
  auto frames = h.sink->wait_for(2);
  ASSERT_EQ(frames.size(), 2u);
  for (const auto& f : frames) {
    if (f.frame["id"] == 1) {
      EXPECT_EQ(f.frame["result"]["content"][0]["text"], "opened");
    }
  }
}

TEST(concurrency_test, registering_while_serving_is_safe) {
  server srv(captured_log{}.options());
  srv.add_tool({.name = "t0"},
               [](const json&, request_context&) { return tool_result::text("x"); });
  harness h(srv, false);
  std::thread writer([&] {
    for (int i = 1; i < 200; ++i) {
      srv.add_tool({.name = "t" + std::to_string(i)},
                   [](const json&, request_context&) { return tool_result::text("x"); });
    }
  });
  for (int i = 0; i < 200; ++i) {
    h.s.receive(modern_request(i, i % 2 ? "tools/list" : "tools/call", {{"name", "t0"}}));
  }
  writer.join();
  h.s.wait_idle();
  auto frames = h.sink->wait_for(200);
  EXPECT_EQ(frames.size(), 200u);
  json last = h.roundtrip(modern_request(999, "tools/list"));
  EXPECT_EQ(last["result"]["tools"].size(), 100u);  // the first page of 200
  EXPECT_TRUE(last["result"].contains("nextCursor"));
}

TEST(concurrency_test, shutdown_cancels_what_is_still_running_and_sends_nothing) {
  server srv(captured_log{}.options());
  srv.add_tool({.name = "forever"}, [](const json&, request_context& ctx) {
    while (!ctx.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return tool_result::text("stopped");
  });
  harness h(srv, false);
  h.s.receive(modern_request(1, "tools/call", {{"name", "forever"}}));
  EXPECT_TRUE(h.s.shutdown(std::chrono::milliseconds(50)));
  EXPECT_EQ(h.s.in_flight(), 0u);
  EXPECT_TRUE(h.sink->frames().empty());
  h.s.receive(modern_request(2, "tools/list"));  // ignored after shutdown
  EXPECT_TRUE(h.sink->frames().empty());
}

}  // namespace
}  // namespace mcpcxx::testing
