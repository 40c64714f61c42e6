// Middleware (mcpcxx/middleware.hpp) in one process: the order of before and after hooks, what a
// refusal renders per method and era (P58-P60, T14, T15/T15w), replaced results, hooks that
// throw, the replies after hooks see (deadlines, async completions), the tool filter, and the
// registration checks. The wire text: tests/golden/middleware_*.txtar.
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"
#include "support/wait.hpp"
#include "wire/situation.hpp"

namespace mcpcxx::testing {
namespace {

using namespace std::chrono_literals;

json mw_call(harness& h, int id, const std::string& tool, json args = json::object()) {
  return h.roundtrip(modern_request(id, "tools/call", {{"name", tool}, {"arguments", args}}));
}

bool mw_logged(const captured_log& log, const std::string& part) {
  for (const auto& line : log.snapshot()) {
    if (line.find(part) != std::string::npos) return true;
  }
  return false;
}

json mw_details(const json& reply) { return reply["result"]["_meta"]["mcpcxx/error"]; }

std::string text(const json& reply) { return reply["result"]["content"][0]["text"]; }

// A server with `echo` (read-only), `write` (may write), `slow` (1 s deadline, sleeps 3 s) and a
// resource, counting handler runs.
struct mw_fixture {
  captured_log log;
  server srv{log.options()};
  std::shared_ptr<std::atomic<int>> runs = std::make_shared<std::atomic<int>>(0);

  mw_fixture() {
    auto r = runs;
    srv.add_tool({.name = "echo", .annotations = {{"readOnlyHint", true}}},
                 [r](const json& a, request_context&) {
                   ++*r;
                   return tool_result::text("echo " + a.value("say", std::string("-")));
                 });
    srv.add_tool({.name = "write"}, [r](const json&, request_context&) {
      ++*r;
      return tool_result::text(std::string(300, 'w'));
    });
    tool_spec slow{.name = "slow", .annotations = {{"readOnlyHint", true}}};
    slow.timeout = 1s;
    srv.add_tool(slow, [](const json&, request_context& c) {
      for (int i = 0; i < 300 && !c.cancelled(); ++i) std::this_thread::sleep_for(10ms);
      return tool_result::text("late");
    });
    srv.add_resource(
        {.uri = "mem://big", .name = "big"}, [](const std::string& uri, request_context&) {
          return std::vector<resource_contents>{{.uri = uri, .text = std::string(500, 'b')}};
        });
  }
};

middleware refuse_with(std::string name, const refusal& r, std::vector<std::string> methods = {}) {
  return {.name = std::move(name),
          .methods = std::move(methods),
          .before = [r](const middleware_request&) -> std::optional<middleware_reply> {
            return middleware_reply::with_refusal(r);
          }};
}

TEST(middleware, before_hooks_run_in_order_and_after_hooks_in_reverse) {
  mw_fixture f;
  auto order = std::make_shared<std::vector<std::string>>();
  auto mu = std::make_shared<std::mutex>();
  for (const char* n : {"a", "b"}) {
    f.srv.add_middleware(
        {.name = n,
         .before = [=](const middleware_request&) -> std::optional<middleware_reply> {
           std::lock_guard g(*mu);
           order->push_back(std::string("before ") + n);
           return std::nullopt;
         },
         .after = [=](const middleware_request&,
                      const middleware_reply&) -> std::optional<middleware_reply> {
           std::lock_guard g(*mu);
           order->push_back(std::string("after ") + n);
           return std::nullopt;
         }});
  }
  harness h(f.srv);
  EXPECT_EQ(text(mw_call(h, 1, "echo", {{"say", "hi"}})), "echo hi");
  EXPECT_EQ(*order, (std::vector<std::string>{"before a", "before b", "after b", "after a"}));
}

TEST(middleware, a_forbidden_refusal_is_row_p58_in_both_eras_and_the_handler_never_runs) {
  mw_fixture f;
  f.srv.add_middleware(refuse_with("tenant", refusal::forbidden("tenant acme cannot deploy")));
  harness h(f.srv);
  const json modern = mw_call(h, 1, "write");
  EXPECT_EQ(modern["error"]["code"], error_code::invalid_params);
  EXPECT_EQ(modern["error"]["message"],
            "Invalid params: tools/call write is not allowed for this caller: tenant acme cannot "
            "deploy. Nothing was executed. Calling it again with the same identity fails the "
            "same way; use what this caller may use, or ask the server's operator for access");
  EXPECT_EQ(modern["error"]["data"]["reason"], "tenant acme cannot deploy");
  harness legacy(f.srv);
  legacy.initialize();
  const json old = legacy.roundtrip(request(2, "tools/list"));
  EXPECT_EQ(old["error"]["code"], error_code::invalid_params);
  EXPECT_NE(old["error"]["message"].get<std::string>().find("tools/list is not allowed"),
            std::string::npos);
  EXPECT_EQ(*f.runs, 0);
}

TEST(middleware, a_rate_limit_is_a_tool_error_on_tools_call_and_p59_elsewhere) {
  mw_fixture f;
  f.srv.add_middleware(refuse_with("limit", refusal::rate_limited("5 calls per minute", 2500ms)));
  harness h(f.srv);
  const json tool = mw_call(h, 1, "write");
  EXPECT_TRUE(tool["result"]["isError"]);
  EXPECT_EQ(mw_details(tool)["category"], "rate_limited");
  EXPECT_EQ(mw_details(tool)["effect"], "not_applied");
  EXPECT_EQ(mw_details(tool)["retryable"], true);
  EXPECT_EQ(mw_details(tool)["retryAfterSeconds"], 3);
  EXPECT_EQ(text(tool),
            "write was not run: 5 calls per minute allows no more calls right now, so this call "
            "changed nothing. Call it again after 3 s; sooner is refused the same way.");
  const json list = h.roundtrip(modern_request(2, "resources/list"));
  EXPECT_EQ(list["error"]["code"], error_code::rate_limited);
  EXPECT_EQ(list["error"]["data"]["retryAfterSeconds"], 3);
  EXPECT_EQ(*f.runs, 0);
}

// An after hook that withholds any result over `limit` bytes.
middleware size_cap(std::size_t limit) {
  return {.name = "size",
          .after = [limit](const middleware_request&,
                           const middleware_reply& r) -> std::optional<middleware_reply> {
            if (r.what() != middleware_reply::kind::result || r.result_bytes() <= limit) {
              return std::nullopt;
            }
            return middleware_reply::with_refusal(
                refusal::too_large(r.result_bytes(), limit, "name fewer items"));
          }};
}

TEST(middleware, a_reply_too_large_is_t15_t15w_or_p60_by_what_ran) {
  mw_fixture f;
  f.srv.add_middleware(size_cap(200));
  harness h(f.srv);
  EXPECT_EQ(text(mw_call(h, 1, "echo")), "echo -");
  const json w = mw_call(h, 2, "write");
  EXPECT_EQ(mw_details(w)["effect"], "applied");
  EXPECT_EQ(mw_details(w)["limitBytes"], 200);
  EXPECT_GT(mw_details(w)["bytes"].get<int>(), 300);
  EXPECT_NE(text(w).find("Do not call it again unchanged"), std::string::npos);
  const json r = h.roundtrip(modern_request(3, "resources/read", {{"uri", "mem://big"}}));
  EXPECT_EQ(r["error"]["code"], error_code::invalid_params);
  EXPECT_NE(r["error"]["message"].get<std::string>().find("resources/read mem://big"),
            std::string::npos);
  EXPECT_EQ(*f.runs, 2);
}

TEST(middleware, an_after_hook_replaces_the_result_and_sees_the_state_its_before_left) {
  mw_fixture f;
  f.srv.add_middleware(
      {.name = "stamp",
       .methods = {"tools/call"},
       .tools = {"echo"},
       .before = [](const middleware_request& r) -> std::optional<middleware_reply> {
         r.state()["seen"] = std::string(r.name());
         return std::nullopt;
       },
       .after = [](const middleware_request& r,
                   const middleware_reply& reply) -> std::optional<middleware_reply> {
         json res = reply.result();
         res["content"][0]["text"] = res["content"][0]["text"].get<std::string>() + " via " +
                                     r.state()["seen"].get<std::string>();
         return middleware_reply::with_result(res);
       }});
  harness h(f.srv);
  EXPECT_EQ(text(mw_call(h, 1, "echo", {{"say", "x"}})), "echo x via echo");
  EXPECT_EQ(text(mw_call(h, 2, "write")), std::string(300, 'w'));  // not in .tools
}

TEST(middleware, a_hook_that_throws_is_an_unexpected_failure_with_a_logged_reference) {
  mw_fixture f;
  f.srv.add_middleware({.name = "boom",
                        .methods = {"tools/call"},
                        .before = [](const middleware_request&) -> std::optional<middleware_reply> {
                          throw std::runtime_error("secret detail");
                        }});
  harness h(f.srv);
  const json r = mw_call(h, 1, "echo");
  EXPECT_EQ(mw_details(r)["category"], "internal");
  EXPECT_EQ(mw_details(r)["effect"], "not_applied");  // echo is read-only: T3
  const std::string ref = mw_details(r)["reference"];
  EXPECT_EQ(text(r).find("secret"), std::string::npos);
  EXPECT_TRUE(mw_logged(f.log, ref));
  EXPECT_TRUE(mw_logged(f.log, "secret detail"));
  EXPECT_EQ(*f.runs, 0);
}

TEST(middleware, an_after_hook_that_throws_replaces_the_reply_and_outer_hooks_still_run) {
  mw_fixture f;
  auto outer_saw = std::make_shared<std::string>();
  f.srv.add_middleware({.name = "outer",
                        .after = [outer_saw](const middleware_request&, const middleware_reply& r)
                            -> std::optional<middleware_reply> {
                          *outer_saw = std::string(r.row());
                          return std::nullopt;
                        }});
  f.srv.add_middleware({.name = "inner",
                        .after = [](const middleware_request&, const middleware_reply&)
                            -> std::optional<middleware_reply> { throw std::logic_error("x"); }});
  harness h(f.srv);
  const json r = mw_call(h, 1, "write");
  EXPECT_EQ(mw_details(r)["effect"], "unknown");  // write may write: T3w
  EXPECT_EQ(*outer_saw, "T3w");
  EXPECT_EQ(*f.runs, 1);
}

TEST(middleware, a_tool_error_from_a_middleware_is_t2_on_tools_call_and_p26_elsewhere) {
  mw_fixture f;
  f.srv.add_middleware(
      {.name = "maint", .before = [](const middleware_request&) -> std::optional<middleware_reply> {
         return middleware_reply::with_tool_error(
             tool_error("Maintenance until 10:00: nothing was done. Call again after 10:00.",
                        error_category::unavailable, true));
       }});
  harness h(f.srv);
  const json t = mw_call(h, 1, "echo");
  EXPECT_EQ(mw_details(t)["category"], "unavailable");
  EXPECT_EQ(text(t), "Maintenance until 10:00: nothing was done. Call again after 10:00.");
  const json p = h.roundtrip(modern_request(2, "resources/read", {{"uri", "mem://big"}}));
  EXPECT_TRUE(p.contains("error"));
  EXPECT_NE(p["error"]["message"].get<std::string>().find("Maintenance"), std::string::npos);
}

TEST(middleware, after_hooks_see_the_deadline_reply_of_a_tool_still_running) {
  mw_fixture f;
  auto seen = std::make_shared<std::string>();
  auto mu = std::make_shared<std::mutex>();
  f.srv.add_middleware({.name = "watch",
                        .after = [=](const middleware_request&,
                                     const middleware_reply& r) -> std::optional<middleware_reply> {
                          std::lock_guard g(*mu);
                          *seen = std::string(r.row()) + " " + std::string(r.category());
                          return std::nullopt;
                        }});
  harness h(f.srv, false);
  const json r = mw_call(h, 1, "slow");
  EXPECT_EQ(mw_details(r)["category"], "timeout");
  std::lock_guard g(*mu);
  EXPECT_EQ(*seen, "T5 timeout");
}

TEST(middleware, after_hooks_see_an_async_tools_result_when_it_completes) {
  mw_fixture f;
  f.srv.add_async_tool({.name = "later"}, [](const json&, request_context&, tool_completion done) {
    std::thread([done = std::move(done)]() mutable {
      std::this_thread::sleep_for(50ms);
      done.complete(tool_result::text("done later"));
    }).detach();
  });
  f.srv.add_middleware({.name = "suffix",
                        .after = [](const middleware_request&,
                                    const middleware_reply& r) -> std::optional<middleware_reply> {
                          json res = r.result();
                          res["content"].push_back({{"type", "text"}, {"text", "checked"}});
                          return middleware_reply::with_result(res);
                        }});
  harness h(f.srv, false);
  const json r = mw_call(h, 1, "later");
  EXPECT_EQ(r["result"]["content"][0]["text"], "done later");
  EXPECT_EQ(r["result"]["content"][1]["text"], "checked");
}

TEST(middleware, the_request_view_shows_method_name_arguments_era_and_annotations) {
  mw_fixture f;
  auto seen = std::make_shared<json>();
  f.srv.add_middleware(
      {.name = "look",
       .before = [seen](const middleware_request& r) -> std::optional<middleware_reply> {
         *seen = {{"method", r.method()},
                  {"name", r.name()},
                  {"arguments", r.arguments()},
                  {"modern", r.modern()},
                  {"version", r.protocol_version()},
                  {"annotations", r.tool_annotations()},
                  {"principal", r.principal()},
                  {"meta", r.meta().is_object()}};
         return std::nullopt;
       }});
  harness h(f.srv);
  mw_call(h, 1, "echo", {{"say", "x"}});
  EXPECT_EQ(*seen, json::parse(R"({"method":"tools/call","name":"echo","arguments":{"say":"x"},
      "modern":true,"version":"2026-07-28","annotations":{"readOnlyHint":true},"principal":null,
      "meta":true})"));
}

// Debug builds assert on a row rendered without one of its arguments: every refusal, with and
// without a subject (tools/list has no name) and without advice (no ask_less), renders whole.
TEST(middleware, every_refusal_renders_with_all_its_arguments_on_every_method) {
  const std::size_t before = wire::missing_argument_count();
  for (const refusal& r : {refusal::forbidden("no"), refusal::rate_limited("a limit", 1500ms),
                           refusal::too_large(10, 5, ""), refusal::too_large(10, 5, "ask less")}) {
    mw_fixture f;
    f.srv.add_middleware(refuse_with("r", r));
    harness h(f.srv);
    for (const char* tool : {"echo", "write"}) {
      const json t = mw_call(h, 1, tool);
      EXPECT_TRUE(t.contains("error") || t["result"].value("isError", false)) << t;
    }
    EXPECT_TRUE(h.roundtrip(modern_request(2, "tools/list")).contains("error"));
    EXPECT_TRUE(
        h.roundtrip(modern_request(3, "resources/read", {{"uri", "mem://big"}})).contains("error"));
    harness legacy(f.srv);
    legacy.initialize();
    EXPECT_TRUE(legacy.roundtrip(request(4, "prompts/list")).contains("error"));
  }
  EXPECT_EQ(wire::missing_argument_count(), before);
}

TEST(middleware, registration_refuses_what_cannot_work_and_says_why) {
  server srv;
  auto hook = [](const middleware_request&) -> std::optional<middleware_reply> {
    return std::nullopt;
  };
  auto refused = [&](middleware m, const std::string& part) {
    try {
      srv.add_middleware(std::move(m));
      ADD_FAILURE() << "accepted; expected: " << part;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  refused({.before = hook}, "give it a name");
  refused({.name = "m"}, "set a before hook, an after hook, or both");
  refused({.name = "m", .methods = {"tools/cal"}, .before = hook},
          "\"tools/cal\" is not a request method");
  refused({.name = "m", .methods = {"tools/list"}, .tools = {"x"}, .before = hook},
          "methods leave out tools/call");
  EXPECT_THROW(refusal::forbidden(""), std::invalid_argument);
  EXPECT_THROW(middleware_reply::with_result(json::array()), std::invalid_argument);
}

}  // namespace
}  // namespace mcpcxx::testing
