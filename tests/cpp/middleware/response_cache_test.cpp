// The built-in response cache (mcpcxx::response_cache) in one process (memory store): hits and
// misses, expiry on an injected clock, per-caller and public entries, what is never cached,
// invalidation by resource updates and list changes, the memory bounds, the hints on the wire in
// both eras, and the option checks. Across replicas on Redis:
// tests/cpp/replicas/response_cache_replicas_test.cpp.
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"
#include "support/wait.hpp"

namespace mcpcxx::testing {
namespace {

using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

// A clock the test moves by hand.
struct manual_clock {
  std::shared_ptr<std::atomic<steady::rep>> ticks =
      std::make_shared<std::atomic<steady::rep>>(steady::now().time_since_epoch().count());
  std::function<steady::time_point()> fn() const {
    return [t = ticks] { return steady::time_point(steady::duration(t->load())); };
  }
  void advance(std::chrono::milliseconds d) {
    *ticks += std::chrono::duration_cast<steady::duration>(d).count();
  }
};

// A server whose tools and readers count their runs.
struct counted_server {
  server srv;
  std::shared_ptr<std::atomic<int>> runs = std::make_shared<std::atomic<int>>(0);

  explicit counted_server(server_options o = {}) : srv(std::move(o)) {
    auto n = runs;
    srv.add_tool({.name = "lookup", .annotations = {{"readOnlyHint", true}}},
                 [n](const json& a, request_context& ctx) {
                   ++*n;
                   if (a.contains("fail")) throw tool_error("lookup failed. Fix the query.");
                   return tool_result::text(a.dump() + " for " + ctx.principal().dump() + " #" +
                                            std::to_string(n->load()));
                 });
    srv.add_tool({.name = "write"}, [n](const json&, request_context&) {
      ++*n;
      return tool_result::text("written #" + std::to_string(n->load()));
    });
    for (const char* uri : {"mem://a", "mem://b"}) {
      srv.add_resource({.uri = uri, .name = uri}, [n](const std::string& u, request_context&) {
        ++*n;
        return std::vector<resource_contents>{
            {.uri = u, .text = u + " #" + std::to_string(n->load())}};
      });
    }
    srv.add_prompt({.name = "greet"}, [n](const std::map<std::string, std::string>&,
                                          request_context&) {
      ++*n;
      const std::string text = "hello #" + std::to_string(n->load());
      return prompt_result{
          .messages =
              json::array({{{"role", "user"}, {"content", {{"type", "text"}, {"text", text}}}}})};
    });
  }
};

json call(harness& h, int id, const std::string& tool, json args = json::object()) {
  return h.roundtrip(modern_request(id, "tools/call", {{"name", tool}, {"arguments", args}}));
}

json read(harness& h, int id, const std::string& uri) {
  return h.roundtrip(modern_request(id, "resources/read", {{"uri", uri}}));
}

json cache_meta(const json& reply) {
  const json& r = reply.value("result", json::object());
  const json m = r.value("_meta", json::object());
  return m.value("mcpcxx/cache", json());
}

bool hit(const json& reply) {
  const json m = cache_meta(reply);
  return m.is_object() && m.value("hit", false);
}

response_cache_options for_ttl(std::chrono::milliseconds ttl, const manual_clock& c) {
  return {.ttl = ttl, .clock = c.fn()};
}

TEST(response_cache, a_repeated_read_only_call_is_answered_without_running_the_tool) {
  counted_server s;
  manual_clock c;
  s.srv.add_middleware(response_cache(for_ttl(10s, c)));
  harness h(s.srv);
  const json first = call(h, 1, "lookup", {{"q", "x"}, {"n", 1}});
  EXPECT_FALSE(hit(first));
  EXPECT_EQ(cache_meta(first), (json{{"hit", false}, {"ttlMs", 10000}, {"cacheScope", "private"}}));
  const json again = call(h, 2, "lookup", {{"n", 1.0}, {"q", "x"}});  // same canonical arguments
  EXPECT_TRUE(hit(again)) << again;
  EXPECT_EQ(again["result"]["content"], first["result"]["content"]);
  EXPECT_EQ(again["result"].value("resultType", ""), "complete");
  EXPECT_FALSE(again["result"].contains("ttlMs")) << "CallToolResult has no ttlMs: only in _meta";
  EXPECT_EQ(s.runs->load(), 1);
  EXPECT_FALSE(hit(call(h, 3, "lookup", {{"q", "y"}}))) << "other arguments: another entry";
  EXPECT_EQ(s.runs->load(), 2);
}

TEST(response_cache, an_entry_expires_after_its_ttl_and_hits_say_what_is_left) {
  counted_server s;
  manual_clock c;
  s.srv.add_middleware(response_cache(for_ttl(1000ms, c)));
  harness h(s.srv);
  call(h, 1, "lookup");
  c.advance(400ms);
  const json r = call(h, 2, "lookup");
  ASSERT_TRUE(hit(r));
  EXPECT_EQ(cache_meta(r)["ttlMs"], 600);
  c.advance(600ms);
  EXPECT_FALSE(hit(call(h, 3, "lookup")));
  EXPECT_EQ(s.runs->load(), 2);
}

TEST(response_cache, private_entries_are_per_caller_and_public_ones_are_shared) {
  for (const std::string scope : {"private", "public"}) {
    counted_server s;
    s.srv.add_middleware(response_cache({.ttl = 10s, .scope = scope}));
    harness alice(s.srv), bob(s.srv);
    alice.s.set_principal({{"sub", "alice"}});
    bob.s.set_principal({{"sub", "bob"}});
    const json a = call(alice, 1, "lookup");
    const json b = call(bob, 2, "lookup");
    if (scope == "private") {
      EXPECT_FALSE(hit(b)) << "bob never sees alice's entry";
      EXPECT_NE(a["result"]["content"], b["result"]["content"]);
      EXPECT_TRUE(hit(call(bob, 3, "lookup")));
      EXPECT_EQ(s.runs->load(), 2);
    } else {
      EXPECT_TRUE(hit(b));
      EXPECT_EQ(a["result"]["content"], b["result"]["content"]);
      EXPECT_EQ(cache_meta(b)["cacheScope"], "public");
      EXPECT_EQ(s.runs->load(), 1);
    }
  }
}

TEST(response_cache, tools_that_may_write_are_never_cached_even_when_named) {
  counted_server s;
  s.srv.add_middleware(response_cache({.ttl = 10s, .tools = {"write", "lookup"}}));
  harness h(s.srv);
  const json w1 = call(h, 1, "write");
  const json w2 = call(h, 2, "write");
  EXPECT_EQ(s.runs->load(), 2);
  EXPECT_FALSE(cache_meta(w2).is_object()) << w2;
  EXPECT_NE(w1["result"]["content"], w2["result"]["content"]);
}

TEST(response_cache, tool_errors_and_protocol_errors_are_never_cached) {
  counted_server s;
  s.srv.add_middleware(response_cache({.ttl = 10s}));
  harness h(s.srv);
  for (int i = 0; i < 2; ++i) {
    const json r = call(h, i, "lookup", {{"fail", true}});
    EXPECT_TRUE(r["result"].value("isError", false)) << r;
    EXPECT_FALSE(cache_meta(r).is_object());
  }
  EXPECT_EQ(s.runs->load(), 2);
  for (int i = 0; i < 2; ++i) {
    const json r = read(h, 10 + i, "mem://missing");
    ASSERT_TRUE(r.contains("error")) << r;
  }
  for (int i = 20; i < 22; ++i) {
    const json r = call(h, i, "nope");  // no such tool: an error, never an entry
    EXPECT_TRUE(r.contains("error") || r["result"].value("isError", false)) << r;
    EXPECT_FALSE(hit(r));
  }
}

TEST(response_cache, only_the_listed_tools_are_cached) {
  counted_server s;
  s.srv.add_tool({.name = "other", .annotations = {{"readOnlyHint", true}}},
                 [n = s.runs](const json&, request_context&) {
                   ++*n;
                   return tool_result::text("other");
                 });
  s.srv.add_middleware(response_cache({.ttl = 10s, .tools = {"lookup"}}));
  harness h(s.srv);
  call(h, 1, "other");
  EXPECT_FALSE(hit(call(h, 2, "other")));
  call(h, 3, "lookup");
  EXPECT_TRUE(hit(call(h, 4, "lookup")));
  EXPECT_EQ(s.runs->load(), 3);
}

TEST(response_cache, a_resource_update_drops_that_resource_only) {
  counted_server s;
  s.srv.add_middleware(response_cache({.ttl = 10s}));
  harness h(s.srv);
  read(h, 1, "mem://a");
  read(h, 2, "mem://b");
  EXPECT_TRUE(hit(read(h, 3, "mem://a")));
  s.srv.notify_resource_updated("mem://a");
  const json r = read(h, 4, "mem://a");
  EXPECT_FALSE(hit(r));
  EXPECT_EQ(r["result"]["contents"][0]["text"], "mem://a #3");
  EXPECT_TRUE(hit(read(h, 5, "mem://b")));
  EXPECT_EQ(s.runs->load(), 3);
}

TEST(response_cache, a_tool_list_change_drops_tool_results_and_keeps_resources) {
  counted_server s;
  s.srv.add_middleware(response_cache({.ttl = 10s}));
  harness h(s.srv);
  call(h, 1, "lookup");
  read(h, 2, "mem://a");
  ASSERT_TRUE(hit(call(h, 3, "lookup")));
  s.srv.remove_tool("write");
  int id = 10;
  // a list change may be announced at the end of its coalescing window
  EXPECT_TRUE(wait_until([&] { return !hit(call(h, ++id, "lookup")); }, 5s));
  EXPECT_TRUE(hit(read(h, 99, "mem://a")));
}

TEST(response_cache, the_memory_store_keeps_its_bounds_dropping_the_least_recently_used) {
  counted_server s;
  s.srv.add_middleware(response_cache({.ttl = 10s, .max_entries = 2}));
  harness h(s.srv);
  call(h, 1, "lookup", {{"k", 1}});
  call(h, 2, "lookup", {{"k", 2}});
  EXPECT_TRUE(hit(call(h, 3, "lookup", {{"k", 1}})));  // 1 is now the most recently used
  call(h, 4, "lookup", {{"k", 3}});                    // evicts 2
  EXPECT_TRUE(hit(call(h, 5, "lookup", {{"k", 1}})));
  EXPECT_FALSE(hit(call(h, 6, "lookup", {{"k", 2}})));
  EXPECT_EQ(s.runs->load(), 4);

  counted_server small;
  small.srv.add_middleware(response_cache({.ttl = 10s, .max_bytes = 300}));
  harness hs(small.srv);
  call(hs, 1, "lookup", {{"k", 1}});
  EXPECT_TRUE(hit(call(hs, 2, "lookup", {{"k", 1}})));
  call(hs, 3, "lookup", {{"k", 2}});  // two entries are over 300 bytes: 1 goes
  EXPECT_FALSE(hit(call(hs, 4, "lookup", {{"k", 1}})));
  call(hs, 5, "lookup", {{"big", std::string(800, 'x')}});  // never fits: not kept
  EXPECT_FALSE(hit(call(hs, 6, "lookup", {{"big", std::string(800, 'x')}})));
}

TEST(response_cache, a_modern_resource_read_carries_the_cache_hints_and_a_legacy_one_only_meta) {
  counted_server s;
  manual_clock c;
  s.srv.add_middleware(response_cache({.ttl = 5000ms, .scope = "public", .clock = c.fn()}));
  harness h(s.srv);
  const json first = read(h, 1, "mem://a");
  EXPECT_EQ(first["result"]["ttlMs"], 5000);
  EXPECT_EQ(first["result"]["cacheScope"], "public");
  c.advance(1500ms);
  const json again = read(h, 2, "mem://a");
  ASSERT_TRUE(hit(again));
  EXPECT_EQ(again["result"]["ttlMs"], 3500);
  EXPECT_EQ(again["result"]["cacheScope"], "public");
  EXPECT_EQ(again["result"]["resultType"], "complete");

  harness legacy(s.srv);
  legacy.initialize();
  const json l1 = legacy.roundtrip(request(3, "resources/read", {{"uri", "mem://a"}}));
  const json l2 = legacy.roundtrip(request(4, "resources/read", {{"uri", "mem://a"}}));
  EXPECT_FALSE(hit(l1)) << "each revision has its own entries";
  EXPECT_TRUE(hit(l2));
  for (const json& l : {l1, l2}) {
    EXPECT_FALSE(l["result"].contains("ttlMs")) << l;
    EXPECT_FALSE(l["result"].contains("cacheScope")) << l;
    EXPECT_FALSE(l["result"].contains("resultType")) << l;
  }
}

TEST(response_cache, prompts_are_cached_only_when_named) {
  counted_server s;
  s.srv.add_middleware(response_cache({.ttl = 10s, .methods = {"prompts/get"}}));
  harness h(s.srv);
  const auto get = [&](int id) {
    return h.roundtrip(modern_request(id, "prompts/get", {{"name", "greet"}}));
  };
  get(1);
  const json r = get(2);
  EXPECT_TRUE(hit(r)) << r;
  EXPECT_FALSE(r["result"].contains("ttlMs"));
  call(h, 3, "lookup");
  EXPECT_FALSE(hit(call(h, 4, "lookup"))) << "tools/call is not named";
  EXPECT_EQ(s.runs->load(), 3);
}

TEST(response_cache, bad_options_are_refused_with_what_to_change) {
  const auto refused = [](response_cache_options o, const std::string& says) {
    try {
      response_cache(std::move(o));
      ADD_FAILURE() << "accepted; expected: " << says;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused({}, "ttl must be above 0");
  refused({.ttl = -5ms}, "ttl must be above 0");
  refused({.ttl = 1s, .scope = "shared"}, "scope must be \"private\"");
  refused({.ttl = 1s, .methods = {"tools/list"}}, "cannot cache \"tools/list\"");
  refused({.ttl = 1s, .methods = {}}, "name the methods");
  refused({.ttl = 1s, .max_entries = 0}, "max_entries and max_bytes must be above 0");
  refused({.ttl = 1s, .max_bytes = 0}, "max_entries and max_bytes must be above 0");
  server srv;
  EXPECT_THROW(srv.add_middleware(
                   response_cache({.ttl = 1s, .methods = {"resources/read"}, .tools = {"lookup"}})),
               std::invalid_argument);
}

}  // namespace
}  // namespace mcpcxx::testing
