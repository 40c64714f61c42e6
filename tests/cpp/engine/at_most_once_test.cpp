// At-most-once tools in one process (memory records): the canonical key, how a handler's end is
// judged, the registration checks, and what repeats get (replay, reruns, T11/T12/T13, the
// resolver, async tools, the destructive-hint warning, the metrics). Replicas on Redis:
// tests/cpp/replicas; the wire text in both eras: tests/golden/tools_at_most_once*.txtar.
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "methods/once_key.hpp"
#include "methods/once_verdict.hpp"
#include "support/collecting_sink.hpp"
#include "support/wait.hpp"

namespace mcpcxx::testing {
namespace {

using namespace std::chrono_literals;
using detail::canonical_json;
using detail::operation_key;

json call_tool(harness& h, int id, const std::string& tool, json args) {
  return h.roundtrip(modern_request(id, "tools/call", {{"name", tool}, {"arguments", args}}));
}

json error_details(const json& reply) { return reply["result"]["_meta"]["mcpcxx/error"]; }

bool is_replay(const json& reply) { return reply["result"]["_meta"].contains("mcpcxx/replay"); }

const json k_deploy_schema = {
    {"type", "object"},
    {"properties", {{"service", {{"type", "string"}}}, {"count", {{"type", "number"}}}}},
    {"required", {"service"}}};

// A server with `deploy` (at most once for `window`), counting handler runs; `behave` decides
// what a run does.
struct fixture {
  captured_log log;
  server srv;
  std::shared_ptr<std::atomic<int>> runs = std::make_shared<std::atomic<int>>(0);

  explicit fixture(server_options o = captured_log{}.options()) : srv(with_log(std::move(o))) {}

  server_options with_log(server_options o) {
    o.log_writer = log.options().log_writer;
    return o;
  }

  void add(std::function<tool_result(const json&, request_context&)> behave,
           mcpcxx::at_most_once policy = {.window = 1min}) {
    tool_spec spec{.name = "deploy", .input_schema = k_deploy_schema};
    spec.at_most_once = std::move(policy);
    srv.add_tool(spec, [r = runs, behave = std::move(behave)](const json& a, request_context& c) {
      ++*r;
      return behave(a, c);
    });
  }
};

tool_result deployed(const json& a, request_context&) {
  return tool_result::text("deployed " + a["service"].get<std::string>());
}

// ---- the key ----

TEST(at_most_once_key, canonical_json_ignores_key_order_whitespace_and_number_spelling) {
  EXPECT_EQ(canonical_json(json::parse(R"({"b":1,"a":[1.0,2e0,{"y":-0.0,"x":"s"}]})")),
            R"({"a":[1,2,{"x":"s","y":0}],"b":1})");
  EXPECT_EQ(canonical_json(json::parse("1.5")), "1.5");
  EXPECT_EQ(canonical_json(json::parse("1e300")), json::parse("1e300").dump());
  EXPECT_EQ(canonical_json(json::parse(R"("\u00e9\n")")), "\"\u00e9\\n\"");
  EXPECT_NE(canonical_json(json::parse("1")), canonical_json(json::parse("\"1\"")));
}

TEST(at_most_once_key, the_key_separates_scope_tool_and_arguments) {
  const json a = json::parse(R"({"service":"api","count":1})");
  const json same = json::parse(R"({"count":1.0,"service":"api"})");
  const std::string k = operation_key("alice", "deploy", a);
  EXPECT_EQ(k.size(), 64u);
  EXPECT_EQ(k, operation_key("alice", "deploy", same));
  EXPECT_NE(k, operation_key("bob", "deploy", a));
  EXPECT_NE(k, operation_key("alice", "rollback", a));
  EXPECT_NE(k, operation_key("alice", "deploy", json::parse(R"({"service":"api","count":2})")));
  // Lengths first: "ab"+"c" and "a"+"bc" are different scopes and tools.
  EXPECT_NE(operation_key("ab", "c", a), operation_key("a", "bc", a));
}

// ---- the verdict ----

TEST(at_most_once_verdict, results_are_applied_and_failures_go_by_their_stated_effect) {
  using detail::judge;
  using detail::verdict_state;
  const auto never = std::nullopt;
  EXPECT_EQ(judge(detail::method_outcome::ok(json::object()), true, false, never, 0s).state,
            verdict_state::applied);
  EXPECT_EQ(judge(detail::method_outcome::ok(json::object()), false, false, never, 0s).state,
            verdict_state::not_applied);
  const auto failed = [](const char* effect) {
    auto o = detail::method_outcome::tool_reported_error(
        {{"isError", true}, {"_meta", {{"mcpcxx/error", {{"effect", effect}}}}}});
    return o;
  };
  EXPECT_EQ(judge(failed("not_applied"), true, false, never, 0s).state, verdict_state::not_applied);
  EXPECT_EQ(judge(failed("partial"), true, false, never, 0s).state, verdict_state::applied);
  const auto unknown = judge(failed("unknown"), true, false, never, 0s);
  EXPECT_EQ(unknown.state, verdict_state::unknown);
  EXPECT_EQ(unknown.reason, "failed");
  EXPECT_EQ(judge(failed("unknown"), true, true, never, 0s).reason, "cancelled");
  EXPECT_EQ(judge(failed("unknown"), true, true, std::optional(50ms), 60ms).reason, "timeout");
}

// ---- registration ----

TEST(at_most_once_registration, declarations_that_cannot_work_are_refused_with_what_to_change) {
  server srv;
  const auto add = [&](mcpcxx::at_most_once p) {
    tool_spec spec{.name = "deploy", .input_schema = k_deploy_schema};
    spec.at_most_once = std::move(p);
    srv.add_tool(spec, deployed);
  };
  const auto refusal = [&](mcpcxx::at_most_once p) -> std::string {
    try {
      add(std::move(p));
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_NE(refusal({.window = 0ms}).find("window must be more than 0"), std::string::npos);
  EXPECT_NE(refusal({.window = std::chrono::hours(24 * 8)}).find("at most 7 days"),
            std::string::npos);
  EXPECT_NE(refusal({.window = 1min, .key_argument = "count"}).find("must be a required"),
            std::string::npos);
  EXPECT_NE(refusal({.window = 1min, .check = status_check{.tool = "", .arguments = {}}})
                .find("names no tool"),
            std::string::npos);
  EXPECT_NE(refusal({.window = 1min, .check = status_check{.tool = "s", .arguments = {"nope"}}})
                .find("argument 'nope'"),
            std::string::npos);
  EXPECT_EQ(refusal({.window = 1min, .key_argument = "service"}), "accepted");
}

TEST(at_most_once_registration, a_destructive_tool_without_it_is_warned_about_once) {
  const auto warnings = [](bool warn) {
    captured_log log;
    server_options o = log.options();
    o.at_most_once.warn_destructive = warn;
    server srv(o);
    const tool_spec risky{.name = "drop_table", .annotations = {{"destructiveHint", true}}};
    srv.add_tool(risky, deployed);
    srv.remove_tool("drop_table");
    srv.add_tool(risky, deployed);  // registered again: no second warning
    srv.add_tool({.name = "read", .annotations = {{"destructiveHint", false}}}, deployed);
    int n = 0;
    for (const auto& line : log.snapshot()) {
      if (line.find("destructive_tool_without_at_most_once") != std::string::npos) {
        ++n;
        EXPECT_NE(line.find("drop_table"), std::string::npos) << line;
      }
    }
    return n;
  };
  EXPECT_EQ(warnings(true), 1);
  EXPECT_EQ(warnings(false), 0);
}

// ---- repeats ----

TEST(at_most_once_calls, a_repeat_replays_the_first_result_without_running_the_handler) {
  fixture f;
  f.add(deployed);
  harness h(f.srv, false);
  const json first = call_tool(h, 1, "deploy", {{"service", "api"}, {"count", 1}});
  const json again = call_tool(h, 2, "deploy", {{"count", 1.0}, {"service", "api"}});
  EXPECT_FALSE(is_replay(first)) << first;
  ASSERT_TRUE(is_replay(again)) << again;
  EXPECT_EQ(again["result"]["content"], first["result"]["content"]);
  EXPECT_TRUE(
      again["result"]["_meta"]["mcpcxx/replay"]["callId"].get<std::string>().starts_with("call-"));
  EXPECT_EQ(f.runs->load(), 1);
  const json other = call_tool(h, 3, "deploy", {{"service", "api"}, {"count", 2}});
  EXPECT_FALSE(is_replay(other)) << other;
  EXPECT_EQ(f.runs->load(), 2);
  const auto lines = f.log.snapshot();
  const bool logged = std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find("at_most_once_repeat") != std::string::npos &&
           l.find("firstCallId") != std::string::npos && l.find("replayed") != std::string::npos;
  });
  EXPECT_TRUE(logged);
}

TEST(at_most_once_calls, invalid_arguments_and_not_applied_failures_claim_nothing) {
  fixture f;
  f.add([](const json& a, request_context&) -> tool_result {
    if (a.contains("count")) throw tool_error("quota exceeded; nothing was deployed");
    return tool_result::text("ok");
  });
  harness h(f.srv, false);
  EXPECT_TRUE(call_tool(h, 1, "deploy", {{"service", 5}})["result"]["isError"].get<bool>());
  EXPECT_EQ(f.runs->load(), 0);
  const json failed = call_tool(h, 2, "deploy", {{"service", "api"}, {"count", 1}});
  const json again = call_tool(h, 3, "deploy", {{"service", "api"}, {"count", 1}});
  EXPECT_EQ(error_details(again)["effect"], "not_applied") << again;
  EXPECT_FALSE(is_replay(again));
  EXPECT_EQ(f.runs->load(), 2) << "a failure that applied nothing must not block its repeat";
  EXPECT_EQ(again["result"]["content"], failed["result"]["content"]);
}

TEST(at_most_once_calls, an_unknown_outcome_refuses_the_repeat_naming_the_status_check) {
  fixture f;
  f.add([](const json&, request_context&) -> tool_result { throw std::runtime_error("boom"); },
        {.window = 1min, .check = status_check{.tool = "status", .arguments = {"service"}}});
  harness h(f.srv, false);
  call_tool(h, 1, "deploy", {{"service", "api"}});
  const json again = call_tool(h, 2, "deploy", {{"service", "api"}});
  const json d = error_details(again);
  EXPECT_EQ(d["category"], "conflict") << again;
  EXPECT_EQ(d["effect"], "unknown");
  EXPECT_EQ(d["retryable"], false);
  EXPECT_EQ(d["reason"], "failed");
  EXPECT_EQ(d["statusCheck"], json({{"tool", "status"}, {"arguments", {{"service", "api"}}}}));
  const std::string text = again["result"]["content"][0]["text"];
  EXPECT_NE(text.find("status({\"service\":\"api\"})"), std::string::npos) << text;
  EXPECT_NE(text.find("Do not call again unchanged"), std::string::npos) << text;
  EXPECT_EQ(f.runs->load(), 1);
}

TEST(at_most_once_calls, the_resolver_turns_an_unknown_outcome_into_a_replay_or_a_rerun) {
  for (const auto verdict :
       {prior_resolution::verdict::applied, prior_resolution::verdict::not_applied,
        prior_resolution::verdict::unknown}) {
    fixture f;
    auto first = std::make_shared<std::atomic<bool>>(true);
    auto seen = std::make_shared<prior_call>();
    f.add(
        [first](const json&, request_context&) -> tool_result {
          if (first->exchange(false)) throw std::runtime_error("lost the answer");
          return tool_result::text("ran again");
        },
        {.window = 1min, .resolver = [verdict, seen](const prior_call& p, request_context&) {
           *seen = p;
           if (verdict == prior_resolution::verdict::applied) {
             return prior_resolution::applied(tool_result::text("found deployment 7"));
           }
           if (verdict == prior_resolution::verdict::not_applied) {
             return prior_resolution::not_applied();
           }
           return prior_resolution::still_unknown();
         }});
    harness h(f.srv, false);
    call_tool(h, 1, "deploy", {{"service", "api"}});
    const json again = call_tool(h, 2, "deploy", {{"service", "api"}});
    EXPECT_EQ(seen->reason, "failed");
    EXPECT_EQ(seen->arguments, json({{"service", "api"}}));
    const json third = call_tool(h, 3, "deploy", {{"service", "api"}});
    if (verdict == prior_resolution::verdict::applied) {
      EXPECT_TRUE(is_replay(again)) << again;
      EXPECT_EQ(again["result"]["content"][0]["text"], "found deployment 7");
      EXPECT_EQ(third["result"]["content"][0]["text"], "found deployment 7") << third;
      EXPECT_EQ(f.runs->load(), 1);
    } else if (verdict == prior_resolution::verdict::not_applied) {
      EXPECT_EQ(again["result"]["content"][0]["text"], "ran again") << again;
      EXPECT_TRUE(is_replay(third)) << third;
      EXPECT_EQ(f.runs->load(), 2);
    } else {
      EXPECT_EQ(error_details(again)["effect"], "unknown") << again;
      EXPECT_EQ(f.runs->load(), 1);
    }
  }
}

TEST(at_most_once_calls, a_repeat_while_the_first_runs_is_refused_and_retryable) {
  fixture f;
  auto release = std::make_shared<std::atomic<bool>>(false);
  f.add([release](const json& a, request_context& c) {
    while (!*release) std::this_thread::sleep_for(2ms);
    return deployed(a, c);
  });
  harness h(f.srv, false);
  h.s.receive(
      modern_request(1, "tools/call", {{"name", "deploy"}, {"arguments", {{"service", "api"}}}}));
  ASSERT_TRUE(wait_until([&] { return f.runs->load() == 1; }, 5s));
  const json busy = call_tool(h, 2, "deploy", {{"service", "api"}});
  const json d = error_details(busy);
  EXPECT_EQ(d["category"], "conflict") << busy;
  EXPECT_EQ(d["effect"], "not_applied");
  EXPECT_EQ(d["retryable"], true);
  EXPECT_GE(d["retryAfterSeconds"].get<int>(), 1);
  EXPECT_TRUE(d["taskId"].is_null());
  *release = true;
  ASSERT_EQ(h.sink->wait_for(2).size(), 2u);
  EXPECT_TRUE(wait_until(
      [&] {
        return is_replay(call_tool(h, 3, "deploy", {{"service", "api"}}));
      },
      5s));
  EXPECT_EQ(f.runs->load(), 1);
}

TEST(at_most_once_calls, many_identical_calls_at_once_run_the_handler_once) {
  fixture f;
  f.add([](const json& a, request_context& c) {
    std::this_thread::sleep_for(100ms);
    return deployed(a, c);
  });
  constexpr int k_calls = 50;
  std::vector<std::unique_ptr<harness>> hs;
  hs.reserve(k_calls);
  for (int i = 0; i < k_calls; ++i) hs.push_back(std::make_unique<harness>(f.srv, false));
  std::atomic<bool> go{false};
  std::vector<json> replies(k_calls);
  std::vector<std::thread> threads;
  threads.reserve(k_calls);
  for (int i = 0; i < k_calls; ++i) {
    threads.emplace_back([&, i] {
      while (!go) std::this_thread::yield();
      replies[i] = call_tool(*hs[i], i + 1, "deploy", {{"service", "api"}});
    });
  }
  go = true;
  for (auto& t : threads) t.join();
  int plain = 0;
  int refused = 0;
  int replayed = 0;
  for (const auto& r : replies) {
    if (is_replay(r)) {
      ++replayed;
    } else if (r["result"].value("isError", false)) {
      EXPECT_EQ(error_details(r)["category"], "conflict") << r;
      ++refused;
    } else {
      ++plain;
    }
  }
  EXPECT_EQ(f.runs->load(), 1);
  EXPECT_EQ(plain, 1);
  EXPECT_EQ(plain + refused + replayed, k_calls);
}

TEST(at_most_once_calls, a_result_over_the_bound_is_not_kept_and_the_repeat_is_told_it_applied) {
  server_options o = captured_log{}.options();
  o.at_most_once.max_result_bytes = 100;
  fixture f(o);
  f.add([](const json&, request_context&) { return tool_result::text(std::string(200, 'x')); });
  harness h(f.srv, false);
  call_tool(h, 1, "deploy", {{"service", "api"}});
  const json again = call_tool(h, 2, "deploy", {{"service", "api"}});
  EXPECT_EQ(error_details(again)["effect"], "applied") << again;
  EXPECT_EQ(error_details(again)["retryable"], false);
  EXPECT_EQ(f.runs->load(), 1);
}

TEST(at_most_once_calls, the_key_argument_alone_decides_and_callers_are_apart) {
  fixture f;
  f.add(deployed, {.window = 1min, .key_argument = "service"});
  harness h(f.srv, false);
  call_tool(h, 1, "deploy", {{"service", "api"}, {"count", 1}});
  EXPECT_TRUE(is_replay(call_tool(h, 2, "deploy", {{"service", "api"}, {"count", 9}})));
  EXPECT_FALSE(is_replay(call_tool(h, 3, "deploy", {{"service", "db"}, {"count", 1}})));
  EXPECT_EQ(f.runs->load(), 2);
}

TEST(at_most_once_calls, the_window_end_lets_the_same_call_run_again) {
  fixture f;
  f.add(deployed, {.window = 150ms});
  harness h(f.srv, false);
  call_tool(h, 1, "deploy", {{"service", "api"}});
  EXPECT_TRUE(is_replay(call_tool(h, 2, "deploy", {{"service", "api"}})));
  std::this_thread::sleep_for(200ms);
  EXPECT_FALSE(is_replay(call_tool(h, 3, "deploy", {{"service", "api"}})));
  EXPECT_EQ(f.runs->load(), 2);
}

TEST(at_most_once_calls, an_async_tool_is_recorded_when_its_completion_comes) {
  fixture f;
  auto parked = std::make_shared<std::vector<tool_completion>>();
  auto mutex = std::make_shared<std::mutex>();
  tool_spec spec{.name = "deploy", .input_schema = k_deploy_schema};
  spec.at_most_once = mcpcxx::at_most_once{.window = 1min};
  f.srv.add_async_tool(spec, [&](const json&, request_context&, tool_completion done) {
    ++*f.runs;
    std::lock_guard g(*mutex);
    parked->push_back(std::move(done));
  });
  harness h(f.srv, false);
  h.s.receive(
      modern_request(1, "tools/call", {{"name", "deploy"}, {"arguments", {{"service", "api"}}}}));
  ASSERT_TRUE(wait_until([&] { return f.runs->load() == 1; }, 5s));
  EXPECT_EQ(error_details(call_tool(h, 2, "deploy", {{"service", "api"}}))["category"], "conflict");
  {
    std::lock_guard g(*mutex);
    parked->front().complete(tool_result::text("async done"));
  }
  ASSERT_EQ(h.sink->wait_for(2).size(), 2u);
  const json again = call_tool(h, 3, "deploy", {{"service", "api"}});
  EXPECT_TRUE(is_replay(again)) << again;
  EXPECT_EQ(again["result"]["content"][0]["text"], "async done");
  EXPECT_EQ(f.runs->load(), 1);
}

TEST(at_most_once_calls, the_metrics_count_each_kind_of_repeat_per_tool) {
  fixture f;
  f.add(deployed);
  harness h(f.srv, false);
  call_tool(h, 1, "deploy", {{"service", "api"}});
  call_tool(h, 2, "deploy", {{"service", "api"}});
  call_tool(h, 3, "deploy", {{"service", "api"}});
  const std::string text = f.srv.metrics_text();
  EXPECT_NE(text.find(R"(mcpcxx_at_most_once_total{tool="deploy",outcome="replayed"} 2)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(R"(mcpcxx_at_most_once_total{tool="deploy",outcome="unknown"} 0)"),
            std::string::npos);
  EXPECT_NE(text.find("mcpcxx_at_most_once_evicted_total 0"), std::string::npos);
}

}  // namespace
}  // namespace mcpcxx::testing
