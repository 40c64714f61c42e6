// The built-in middleware in one process (memory buckets): rate_limit, size_limit, audit and
// authorize, their refusals and their option checks. Across replicas on Redis:
// tests/cpp/replicas/rate_limit_replicas_test.cpp.
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"

namespace mcpcxx::testing {
namespace {

using namespace std::chrono_literals;

json builtin_call(harness& h, int id, const std::string& tool, json args = json::object()) {
  return h.roundtrip(modern_request(id, "tools/call", {{"name", tool}, {"arguments", args}}));
}

json builtin_details(const json& reply) { return reply["result"]["_meta"]["mcpcxx/error"]; }

bool refused(const json& reply) {
  return reply["result"].value("isError", false) &&
         builtin_details(reply).value("category", "") == "rate_limited";
}

void add_tools(server& srv) {
  srv.add_tool({.name = "echo", .annotations = {{"readOnlyHint", true}}},
               [](const json& a, request_context&) { return tool_result::text(a.dump()); });
  srv.add_tool({.name = "write"}, [](const json& a, request_context&) {
    if (a.contains("fail")) throw tool_error("write failed: nothing written. Fix it.");
    return tool_result::text(std::string(a.value("n", 1), 'w'));
  });
}

TEST(middleware_rate_limit, a_burst_then_the_refill_rate_with_the_wait_in_the_refusal) {
  server srv;
  add_tools(srv);
  srv.add_middleware(rate_limit({.burst = 3, .per_second = 2}));
  harness h(srv);
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(refused(builtin_call(h, i, "echo"))) << i;
  const json r = builtin_call(h, 9, "echo");
  ASSERT_TRUE(refused(r));
  EXPECT_EQ(builtin_details(r)["retryAfterSeconds"], 1);
  EXPECT_EQ(builtin_details(r)["limit"],
            "at most 3 requests at once, then 2 per second per caller and tool");
  EXPECT_FALSE(refused(builtin_call(h, 10, "write"))) << "another tool has its own bucket";
  std::this_thread::sleep_for(600ms);  // 2 per second: one token back after 500 ms
  EXPECT_FALSE(refused(builtin_call(h, 11, "echo")));
  EXPECT_TRUE(refused(builtin_call(h, 12, "echo")));
}

TEST(middleware_rate_limit, a_computed_key_shares_one_bucket_and_an_empty_key_exempts) {
  server srv;
  add_tools(srv);
  srv.add_middleware(rate_limit({.burst = 1,
                                 .per_second = 0.01,
                                 .key =
                                     [](const middleware_request& r) {
                                       const json& a = r.arguments();
                                       return a.is_object() ? a.value("tenant", std::string()) : "";
                                     },
                                 .description = "1 call per tenant per 100 s"}));
  harness h(srv);
  EXPECT_FALSE(refused(builtin_call(h, 1, "echo", {{"tenant", "acme"}})));
  const json r = builtin_call(h, 2, "write", {{"tenant", "acme"}});
  ASSERT_TRUE(refused(r));
  EXPECT_EQ(builtin_details(r)["limit"], "1 call per tenant per 100 s");
  EXPECT_EQ(builtin_details(r)["retryAfterSeconds"], 100);
  EXPECT_FALSE(refused(builtin_call(h, 3, "echo", {{"tenant", "zeta"}})));
  for (int i = 4; i < 8; ++i)
    EXPECT_FALSE(refused(builtin_call(h, i, "echo"))) << "no tenant: exempt";
}

TEST(middleware_rate_limit, other_methods_get_p59_and_bad_options_are_refused) {
  server srv;
  add_tools(srv);
  srv.add_middleware(rate_limit({.burst = 1, .per_second = 0.5, .methods = {"tools/list"}}));
  harness h(srv);
  EXPECT_TRUE(h.roundtrip(modern_request(1, "tools/list")).contains("result"));
  const json r = h.roundtrip(modern_request(2, "tools/list"));
  EXPECT_EQ(r["error"]["code"], error_code::rate_limited);
  EXPECT_EQ(r["error"]["data"]["retryAfterSeconds"], 2);
  EXPECT_THROW(rate_limit({.burst = 0.5}), std::invalid_argument);
  EXPECT_THROW(rate_limit({.per_second = 0}), std::invalid_argument);
}

TEST(middleware_size_limit, withholds_results_over_the_limit_and_never_truncates) {
  server srv;
  add_tools(srv);
  srv.add_middleware(size_limit({.max_bytes = 120, .ask_less = "pass a smaller n"}));
  harness h(srv);
  EXPECT_EQ(builtin_call(h, 1, "write", {{"n", 10}})["result"]["content"][0]["text"], "wwwwwwwwww");
  const json big = builtin_call(h, 2, "write", {{"n", 500}});
  EXPECT_EQ(builtin_details(big)["effect"], "applied");
  EXPECT_EQ(builtin_details(big)["askLess"], "pass a smaller n");
  EXPECT_EQ(big["result"]["content"].size(), 1U);
  EXPECT_EQ(big["result"]["content"][0]["text"].get<std::string>().find("www"), std::string::npos);
  const json read = builtin_call(h, 3, "echo", {{"pad", std::string(300, 'x')}});
  EXPECT_EQ(builtin_details(read)["effect"], "not_applied");
  EXPECT_THROW(size_limit({.max_bytes = 0}), std::invalid_argument);
}

TEST(middleware_audit, one_line_per_call_of_a_tool_that_may_write_with_a_digest_not_arguments) {
  server srv;
  add_tools(srv);
  auto lines = std::make_shared<std::vector<json>>();
  auto mu = std::make_shared<std::mutex>();
  srv.add_middleware(audit({.sink = [=](const json& l) {
    std::lock_guard g(*mu);
    lines->push_back(l);
  }}));
  harness h(srv);
  builtin_call(h, 1, "echo", {{"x", 1}});
  builtin_call(h, 2, "write", {{"n", 2}, {"secret", "s3"}});
  builtin_call(h, 3, "write", {{"secret", "s3"}, {"n", 2.0}});
  builtin_call(h, 4, "write", {{"fail", true}});
  std::lock_guard g(*mu);
  ASSERT_EQ(lines->size(), 3U) << "echo is read-only: not audited";
  const json& first = (*lines)[0];
  EXPECT_EQ(first["tool"], "write");
  EXPECT_EQ(first["outcome"], "ok");
  EXPECT_EQ(first["principal"], "");
  EXPECT_EQ(first.dump().find("s3"), std::string::npos) << "arguments never logged";
  EXPECT_EQ(first["argumentsDigest"].get<std::string>().size(), 7U + 64U);
  EXPECT_EQ(first["argumentsDigest"], (*lines)[1]["argumentsDigest"]) << "canonical arguments";
  EXPECT_EQ((*lines)[2]["outcome"], "tool_error");
  EXPECT_EQ((*lines)[2]["row"], "T2");
  EXPECT_THROW(audit({}), std::invalid_argument);
}

TEST(middleware_authorize, a_denied_request_is_p58_with_the_reason_and_nothing_runs) {
  server srv;
  auto runs = std::make_shared<int>(0);
  srv.add_tool({.name = "issues"}, [runs](const json&, request_context&) {
    ++*runs;
    return tool_result::text("ok");
  });
  srv.add_middleware(
      authorize({.deny = [](const middleware_request& r) -> std::optional<std::string> {
                   const json& a = r.arguments();
                   if (a.value("tenant", "") == "zeta") {
                     return "tenant zeta's issues are not this caller's";
                   }
                   return std::nullopt;
                 },
                 .methods = {"tools/call"}}));
  harness h(srv);
  EXPECT_EQ(builtin_call(h, 1, "issues", {{"tenant", "acme"}})["result"]["content"][0]["text"],
            "ok");
  const json r = builtin_call(h, 2, "issues", {{"tenant", "zeta"}});
  EXPECT_EQ(r["error"]["data"]["reason"], "tenant zeta's issues are not this caller's");
  EXPECT_EQ(*runs, 1);
  EXPECT_THROW(authorize({}), std::invalid_argument);
}

}  // namespace
}  // namespace mcpcxx::testing
