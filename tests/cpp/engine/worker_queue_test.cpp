// The worker pool's queue (unbounded; growth off here, worker_pool_test covers it): while every
// worker is busy, further requests wait in the queue, none is dropped or answered early, and all
// run once a worker frees.
#include <future>

#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"

namespace mcpcxx::testing {
namespace {

using namespace std::chrono_literals;

TEST(worker_queue_test, requests_wait_while_every_worker_is_busy_and_all_are_served) {
  captured_log log;
  server_options o = log.options();
  o.worker_threads = 1;
  o.max_worker_threads = 1;  // no growth: the queue itself is under test
  server srv(o);
  auto gate = std::make_shared<std::promise<void>>();
  std::shared_future<void> opened = gate->get_future().share();
  auto started = std::make_shared<std::promise<void>>();
  srv.add_tool({.name = "block"}, [opened, started](const json&, request_context&) {
    started->set_value();
    opened.wait_for(30s);
    return tool_result::text("unblocked");
  });
  srv.add_tool({.name = "echo"},
               [](const json&, request_context&) { return tool_result::text("queued"); });
  harness h(srv, false);
  h.s.receive(modern_request(1, "tools/call", {{"name", "block"}}));
  started->get_future().wait();
  constexpr int k_queued = 200;
  for (int id = 2; id <= k_queued + 1; ++id) {
    h.s.receive(modern_request(id, "tools/call", {{"name", "echo"}}));
  }
  EXPECT_TRUE(h.sink->frames().empty()) << "nothing runs while the only worker is busy";
  EXPECT_EQ(h.s.in_flight(), static_cast<std::size_t>(k_queued + 1));
  gate->set_value();
  auto frames = h.sink->wait_for(k_queued + 1);
  ASSERT_EQ(frames.size(), static_cast<std::size_t>(k_queued + 1));
  for (const auto& f : frames) {
    ASSERT_TRUE(f.frame.contains("result")) << f.frame;
    EXPECT_FALSE(f.frame["result"].value("isError", false)) << f.frame;
  }
}

}  // namespace
}  // namespace mcpcxx::testing
