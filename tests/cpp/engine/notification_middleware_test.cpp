// Middleware on client notifications (middleware::on_notification): what a hook sees, that a
// dropped notification has no effect while a passed one does, that a throwing hook drops it and
// is logged with a reference id, the methods filter, and the registration checks.
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"

namespace mcpcxx::testing {
namespace {

constexpr const char* k_roots_changed =
    R"({"jsonrpc":"2.0","method":"notifications/roots/list_changed"})";

// A server counting the roots/list_changed notifications it acted on.
struct notified_server {
  captured_log log;
  std::shared_ptr<std::atomic<int>> roots_changes = std::make_shared<std::atomic<int>>(0);
  server srv{options()};

  server_options options() {
    server_options o = log.options();
    auto n = roots_changes;
    o.on_roots_list_changed = [n](const session&) { ++*n; };
    return o;
  }
  bool logged(const std::string& part) const {
    for (const auto& line : log.snapshot()) {
      if (line.find(part) != std::string::npos) return true;
    }
    return false;
  }
};

// What a hook saw: method, params and protocol version of each notification.
struct seen_list {
  std::mutex mutex;
  std::vector<json> items;
  void add(const middleware_notification& n) {
    std::lock_guard g(mutex);
    items.push_back({{"method", n.method()},
                     {"params", n.params()},
                     {"version", n.protocol_version()},
                     {"principal", n.principal()}});
  }
  std::vector<json> snapshot() {
    std::lock_guard g(mutex);
    return items;
  }
};

middleware watcher(const std::shared_ptr<seen_list>& seen, bool let_through,
                   std::vector<std::string> methods = {}) {
  return {.name = "watch",
          .methods = std::move(methods),
          .on_notification = [seen, let_through](const middleware_notification& n) {
            seen->add(n);
            return let_through;
          }};
}

TEST(notification_middleware, a_hook_sees_each_client_notification_and_lets_it_through) {
  notified_server f;
  auto seen = std::make_shared<seen_list>();
  f.srv.add_middleware(watcher(seen, true));
  harness h(f.srv);
  h.initialize("2025-06-18");
  h.s.receive(k_roots_changed);
  h.s.receive(
      R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}})");
  const auto items = seen->snapshot();
  ASSERT_EQ(items.size(), 3U);
  EXPECT_EQ(items[0]["method"], "notifications/initialized");
  EXPECT_EQ(items[0]["version"], "2025-06-18");
  EXPECT_TRUE(items[0]["principal"].is_null());
  EXPECT_EQ(items[1]["method"], "notifications/roots/list_changed");
  EXPECT_EQ(items[2]["params"]["progressToken"], "p");
  EXPECT_EQ(f.roots_changes->load(), 1) << "a notification let through is acted on";
  EXPECT_FALSE(f.logged("notification_dropped"));
}

TEST(notification_middleware, a_dropped_notification_has_no_effect_and_is_logged) {
  notified_server f;
  auto seen = std::make_shared<seen_list>();
  f.srv.add_middleware(watcher(seen, false, {"notifications/roots/list_changed"}));
  harness h(f.srv);
  h.initialize();
  h.s.receive(k_roots_changed);
  EXPECT_EQ(f.roots_changes->load(), 0) << "the dropped notification reached the server";
  ASSERT_EQ(seen->snapshot().size(), 1U) << "the filter let other notifications reach the hook";
  EXPECT_TRUE(f.logged(R"("event":"notification_dropped")"));
  EXPECT_TRUE(f.logged(R"("middleware":"watch")"));
  // Requests go on: the session still answers.
  EXPECT_TRUE(h.roundtrip(request(1, "ping")).contains("result"));
}

TEST(notification_middleware, a_dropped_cancellation_leaves_the_request_running) {
  notified_server f;
  auto release = std::make_shared<std::atomic<bool>>(false);
  f.srv.add_tool({.name = "wait"}, [release](const json&, request_context& c) {
    for (int i = 0; i < 1000 && !release->load() && !c.cancelled(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return tool_result::text(c.cancelled() ? "cancelled" : "finished");
  });
  auto seen = std::make_shared<seen_list>();
  f.srv.add_middleware(watcher(seen, false, {"notifications/cancelled"}));
  harness h(f.srv, false);
  h.initialize();
  h.s.receive(request(7, "tools/call", {{"name", "wait"}, {"arguments", json::object()}}));
  h.s.receive(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}})");
  release->store(true);
  auto frames = h.sink->wait_for(2);  // the initialize reply, then the call's
  ASSERT_GE(frames.size(), 2U);
  EXPECT_EQ(frames.back().frame["id"], 7);
  EXPECT_EQ(frames.back().frame["result"]["content"][0]["text"], "finished");
  EXPECT_EQ(seen->snapshot().at(0)["params"]["requestId"], 7);
}

TEST(notification_middleware, a_hook_that_throws_drops_the_notification_with_a_reference) {
  notified_server f;
  f.srv.add_middleware(
      {.name = "broken", .on_notification = [](const middleware_notification&) -> bool {
         throw std::runtime_error("policy store offline");
       }});
  harness h(f.srv);
  h.initialize();
  h.s.receive(k_roots_changed);
  EXPECT_EQ(f.roots_changes->load(), 0);
  EXPECT_TRUE(f.logged(R"("event":"middleware_exception")"));
  EXPECT_TRUE(f.logged("policy store offline"));
  EXPECT_TRUE(f.logged(R"("reference":")"));
  EXPECT_TRUE(h.roundtrip(request(1, "ping")).contains("result"));
}

TEST(notification_middleware, request_hooks_never_see_notifications_and_vice_versa) {
  notified_server f;
  auto befores = std::make_shared<std::atomic<int>>(0);
  auto seen = std::make_shared<seen_list>();
  middleware both = watcher(seen, true, {"ping", "notifications/roots/list_changed"});
  both.before = [befores](const middleware_request&) -> std::optional<middleware_reply> {
    ++*befores;
    return std::nullopt;
  };
  f.srv.add_middleware(std::move(both));
  harness h(f.srv);
  h.initialize();
  h.s.receive(k_roots_changed);
  EXPECT_TRUE(h.roundtrip(request(1, "ping")).contains("result"));
  EXPECT_EQ(befores->load(), 1) << "before ran for ping only";
  ASSERT_EQ(seen->snapshot().size(), 1U) << "on_notification ran for roots/list_changed only";
  EXPECT_EQ(f.roots_changes->load(), 1);
}

void expect_refused(server& srv, middleware m, const std::string& part) {
  try {
    srv.add_middleware(std::move(m));
    ADD_FAILURE() << "registered; expected a refusal mentioning " << part;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(notification_middleware, registration_refuses_hooks_that_could_never_run) {
  notified_server f;
  const auto hook = [](const middleware_notification&) { return true; };
  const auto before = [](const middleware_request&) -> std::optional<middleware_reply> {
    return std::nullopt;
  };
  expect_refused(f.srv, {.name = "a", .methods = {"notifications/cancelled"}, .before = before},
                 "no on_notification hook");
  expect_refused(f.srv, {.name = "b", .methods = {"tools/call"}, .on_notification = hook},
                 "names no client notification");
  expect_refused(f.srv, {.name = "c", .methods = {"notifications/bogus"}, .on_notification = hook},
                 "\"notifications/bogus\" is not a request method");
  expect_refused(f.srv, {.name = "d"}, "on_notification hook");
  expect_refused(f.srv,
                 {.name = "f",
                  .methods = {"notifications/cancelled"},
                  .before = before,
                  .on_notification = hook},
                 "names only notifications");
  // Server-to-client notifications are not something a client sends.
  expect_refused(
      f.srv,
      {.name = "e", .methods = {"notifications/tools/list_changed"}, .on_notification = hook},
      "is not a request method");
}

}  // namespace
}  // namespace mcpcxx::testing
