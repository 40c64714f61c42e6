// ~server is bounded (issue 10): it waits up to server_options::stop_grace for running handlers,
// then detaches the ones that never return (logged) and drops queued requests nobody started; a
// detached handler still finds its engine state alive when it finally returns.
#include <atomic>
#include <future>
#include <thread>

#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"
#include "support/wait.hpp"

namespace mcpcxx::testing {
namespace {

using namespace std::chrono_literals;

/// A handler blocked until the test opens its gate (bounded so a broken test still ends).
struct gated_tool {
  std::shared_ptr<std::promise<void>> gate = std::make_shared<std::promise<void>>();
  std::shared_future<void> opened = gate->get_future().share();
  std::shared_ptr<std::atomic<int>> started = std::make_shared<std::atomic<int>>(0);
  std::shared_ptr<std::atomic<int>> returned = std::make_shared<std::atomic<int>>(0);
  /// Owned only by the registered handler: expires when the engine's tool registry is freed.
  std::weak_ptr<int> registry;

  void add_to(server& srv) {
    auto owned_by_handler = std::make_shared<int>(0);
    registry = owned_by_handler;
    srv.add_tool({.name = "hang"},
                 [o = opened, s = started, r = returned, keep = std::move(owned_by_handler)](
                     const json&, request_context& ctx) {
                   ++*s;
                   o.wait_for(30s);
                   ctx.report_progress(1.0, 1.0);  // touches the session and engine after ~server
                   const bool cancelled = ctx.cancelled();
                   ++*r;
                   return tool_result::text(cancelled ? "cancelled" : "late");
                 });
  }
};

bool logged(const captured_log& log, const std::string& needle) {
  for (const auto& line : log.snapshot()) {
    if (line.find(needle) != std::string::npos) return true;
  }
  return false;
}

TEST(server_stop_test, a_handler_that_never_returns_is_detached_after_the_grace) {
  captured_log log;
  gated_tool tool;
  std::shared_ptr<collecting_sink> sink;
  {
    server_options o = log.options();
    o.stop_grace = 100ms;
    o.worker_threads = 1;
    o.max_worker_threads = 1;  // the echo stays queued behind the hung handler
    server srv(o);
    tool.add_to(srv);
    srv.add_tool({.name = "echo"},
                 [](const json&, request_context&) { return tool_result::text("never run"); });
    harness h(srv, false);
    sink = h.sink;
    h.s.receive(modern_request(1, "tools/call", {{"name", "hang"}}));
    ASSERT_TRUE(wait_until([&] { return tool.started->load() == 1; }));
    h.s.receive(modern_request(2, "tools/call", {{"name", "echo"}}));  // queued behind it
  }  // ~server: returns while the handler still blocks
  EXPECT_EQ(tool.returned->load(), 0) << "destruction must not wait for the handler";
  EXPECT_TRUE(logged(log, "handlers_abandoned_at_stop"));
  EXPECT_TRUE(logged(log, R"("detached":1)")) << "one stuck worker detached";
  EXPECT_TRUE(logged(log, R"("dropped":1)")) << "the queued echo was never started";

  EXPECT_FALSE(tool.registry.expired()) << "the detached handler keeps its engine state alive";
  tool.gate->set_value();  // the detached handler returns into a state kept alive for it
  EXPECT_TRUE(wait_until([&] { return tool.returned->load() == 1; }));
  // Once it has returned, the last owner of the engine state is gone: nothing leaks (and the
  // process does not exit while the detached thread still runs, which LeakSanitizer would report).
  EXPECT_TRUE(wait_until([&] { return tool.registry.expired(); }))
      << "the engine state must be freed when the detached handler returns";
  // The dropped request never ran: it is answered once, as never started (row P27a).
  int answers = 0;
  for (const auto& f : sink->frames()) {
    if (f.frame.value("id", json()) != 2) continue;
    ++answers;
    EXPECT_EQ(f.frame["error"]["data"]["effect"], "not_applied") << f.frame;
  }
  EXPECT_EQ(answers, 1);
}

TEST(server_stop_test, handlers_that_return_within_the_grace_are_waited_for) {
  captured_log log;
  gated_tool tool;
  std::shared_ptr<collecting_sink> sink;
  std::thread opener;
  {
    server_options o = log.options();
    o.stop_grace = 20s;  // far longer than the handler needs: it is joined, not detached
    server srv(o);
    tool.add_to(srv);
    harness h(srv, false);
    sink = h.sink;
    h.s.receive(modern_request(1, "tools/call", {{"name", "hang"}}));
    ASSERT_TRUE(wait_until([&] { return tool.started->load() == 1; }));
    opener = std::thread([&tool] {
      std::this_thread::sleep_for(50ms);
      tool.gate->set_value();
    });
  }
  opener.join();
  EXPECT_EQ(tool.returned->load(), 1) << "~server waited for the handler within its grace";
  EXPECT_FALSE(logged(log, "handlers_abandoned_at_stop"));
  bool replied = false;
  for (const auto& f : sink->frames()) replied = replied || f.frame.value("id", json()) == 1;
  EXPECT_TRUE(replied) << "the handler's reply was delivered before ~server returned";
}

}  // namespace
}  // namespace mcpcxx::testing
