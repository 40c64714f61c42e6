// Legacy sessions served by two replicas over one Redis, with no affinity: a session initialized
// on one is revived on the other from its record (version, client capabilities and info, log
// level, subscriptions), DELETE and expiry end it everywhere, a stream is resumed on the other
// replica from the shared event store, a foreign principal is refused there (routed messages
// included), and a stopped Redis is answered with rows H51/P57. Each replica is a server and its
// transport driven in-process through endpoint (as request_router_test.cpp does), over the stores
// of make_redis_transport_stores() and one request router.
#include <algorithm>
#include <cctype>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "core/session_state.hpp"
#include "http/fixture.hpp"
#include "http/redis_stores.hpp"
#include "transport/http/context.hpp"
#include "transport/http/endpoint.hpp"
#include "transport/http/redis_keys.hpp"
#include "transport/http/redis_session_store.hpp"
#include "transport/http/redis_transport_stores.hpp"

namespace mcpcxx::http_test {
namespace {

// Delivers through the memory router and counts the routes asked for.
class counting_router final : public detail::request_router {
 public:
  void attach(const std::string& id, inbox in) override { inner_->attach(id, std::move(in)); }
  bool detach(const std::string& id) override { return inner_->detach(id); }
  bool route(const std::string& id, std::string message) override {
    ++routes;
    return inner_->route(id, std::move(message));
  }
  bool route_to(const std::string& origin, const std::string& id, std::string message) override {
    return inner_->route_to(origin, id, std::move(message));
  }
  void broadcast(const std::string& id, std::string message) override {
    inner_->broadcast(id, std::move(message));
  }
  std::atomic<int> routes{0};

 private:
  const std::unique_ptr<detail::request_router> inner_ = detail::make_memory_request_router();
};

// The bytes the endpoint wrote per request number.
class revival_wire final : public http::reply_target {
 public:
  void deliver(std::uint64_t no, std::string bytes, http::delivery kind, bool) override {
    {
      std::lock_guard g(lock_);
      sent_[no] += bytes;
      if (kind == http::delivery::final) ended_[no] = true;
    }
    cv_.notify_all();
  }
  std::string wait(std::uint64_t no, const std::function<bool(const std::string&, bool)>& done) {
    std::unique_lock g(lock_);
    cv_.wait_for(g, std::chrono::seconds(20), [&] { return done(sent_[no], ended_[no]); });
    return sent_[no];
  }

 private:
  std::mutex lock_;
  std::condition_variable cv_;
  std::map<std::uint64_t, std::string> sent_;
  std::map<std::uint64_t, bool> ended_;
};

// A response as sent: status, lower-cased headers, the body (chunks joined).
reply parse_wire(const std::string& bytes) {
  reply r;
  const std::size_t head_end = bytes.find("\r\n\r\n");
  if (bytes.rfind("HTTP/1.1 ", 0) != 0 || head_end == std::string::npos) return r;
  r.status = std::stoi(bytes.substr(9, 3));
  for (std::size_t at = bytes.find("\r\n") + 2; at < head_end;) {
    const std::size_t eol = bytes.find("\r\n", at);
    const std::string line = bytes.substr(at, eol - at);
    std::string name = line.substr(0, line.find(':'));
    for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    r.headers[name] = line.substr(line.find(':') + 2);
    at = eol + 2;
  }
  r.ok = true;
  std::string rest = bytes.substr(head_end + 4);
  if (r.header("transfer-encoding") != "chunked") {
    r.body = std::move(rest);
    return r;
  }
  for (std::size_t at = 0; at < rest.size();) {
    const std::size_t eol = rest.find("\r\n", at);
    if (eol == std::string::npos) break;
    const std::size_t n = std::stoul(rest.substr(at, eol - at), nullptr, 16);
    r.body += rest.substr(eol + 2, n);
    at = eol + 2 + n + 2;
  }
  return r;
}

// Tools and a resource both replicas serve (the same code on every replica).
void add_replica_tools(server& s, const std::shared_ptr<tool_probe>& probe) {
  add_test_tools(s, probe);
  s.add_tool({.name = "say"}, [](const json&, request_context& ctx) {
    return tool_result::text(ctx.log(log_level::warning, "careful") ? "sent" : "held");
  });
  s.add_tool({.name = "confirm"}, [](const json&, request_context& ctx) {
    return tool_result::text(
        "confirmed " +
        ctx.elicit("Sure?", {{"type", "object"}, {"properties", json::object()}}).action);
  });
  s.add_tool({.name = "two_steps"}, [](const json&, request_context& ctx) {
    ctx.report_progress(1.0, 2.0);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    ctx.report_progress(2.0, 2.0);
    return tool_result::text("both steps");
  });
  s.add_resource({.uri = "memo://a", .name = "a"}, [](const std::string& uri, request_context&) {
    return std::vector<resource_contents>{{.uri = uri, .mime_type = "text/plain", .text = "x"}};
  });
}

// One replica: a server and its transport over the shared Redis stores and router.
struct revival_replica {
  std::shared_ptr<tool_probe> probe = std::make_shared<tool_probe>();
  server srv{server_options{.log_requests = false}};
  std::shared_ptr<http::transport_context> ctx;
  http::endpoint ep;
  std::shared_ptr<revival_wire> wire = std::make_shared<revival_wire>();
  std::uint64_t next_no = 1;
  std::string token;  ///< sent as a bearer token when set

  revival_replica(std::shared_ptr<redis::client> client, const std::string& prefix,
                  std::shared_ptr<detail::request_router> router, const http_options& opts)
      : ctx(std::make_shared<http::transport_context>(
            srv, opts,
            http::make_redis_transport_stores(std::move(client), prefix, opts, std::move(router)))),
        ep(ctx) {
    add_replica_tools(srv, probe);
  }
  revival_replica(const revival_replica&) = delete;
  revival_replica& operator=(const revival_replica&) = delete;
  ~revival_replica() {
    for (auto& s : ctx->sessions.take_all()) {
      s->close_get();
      s->engine().shutdown(std::chrono::milliseconds(0));
    }
  }

  std::uint64_t send(std::string method, http::header_list headers, std::string body = {}) {
    http::request req;
    req.method = std::move(method);
    req.target = "/mcp";
    req.headers = {{"host", "127.0.0.1:1"},
                   {"content-type", "application/json"},
                   {"accept", "application/json, text/event-stream"}};
    if (!token.empty()) req.headers.emplace_back("authorization", "Bearer " + token);
    for (auto& h : headers) req.headers.push_back(std::move(h));
    req.body = std::move(body);
    const std::uint64_t no = next_no++;
    ep.handle(std::move(req), std::make_shared<http::reply_channel>(wire, no, true));
    return no;
  }
  std::string bytes(std::uint64_t no) {
    return wire->wait(no, [](const std::string&, bool ended) { return ended; });
  }
  std::string bytes_containing(std::uint64_t no, const std::string& needle) {
    return wire->wait(
        no, [&](const std::string& b, bool) { return b.find(needle) != std::string::npos; });
  }
  /// POSTs `body` on session `sid` and waits for the whole reply.
  reply post(const std::string& sid, const std::string& body) {
    return parse_wire(bytes(send("POST", headers(sid), body)));
  }
  static http::header_list headers(const std::string& sid) {
    return {{"mcp-session-id", sid}, {"mcp-protocol-version", "2025-11-25"}};
  }
};

// Both replicas of a test: one prefix, one router.
struct revival_cluster {
  std::string prefix = fresh_prefix();
  std::shared_ptr<counting_router> router = std::make_shared<counting_router>();
  std::shared_ptr<redis::client> client;
  revival_replica a;
  revival_replica b;

  explicit revival_cluster(const std::string& url, const http_options& opts = {})
      : client(std::make_shared<redis::client>(redis_test_options(url))),
        a(std::make_shared<redis::client>(redis_test_options(url)), prefix, router, opts),
        b(std::make_shared<redis::client>(redis_test_options(url)), prefix, router, opts) {}
  revival_cluster() : revival_cluster(shared_redis()->url()) {}
};

// Initializes a 2025-11-25 session on `r` (the client declares elicitation); its id.
std::string open_session(revival_replica& r) {
  const std::string init = json{{"jsonrpc", "2.0"},
                                {"id", 1},
                                {"method", "initialize"},
                                {"params",
                                 {{"protocolVersion", "2025-11-25"},
                                  {"capabilities", {{"elicitation", json::object()}}},
                                  {"clientInfo", {{"name", "revival-test"}, {"version", "7"}}}}}}
                               .dump();
  const reply got = parse_wire(r.bytes(r.send("POST", {}, init)));
  EXPECT_EQ(got.status, 200) << got.body;
  std::string sid = got.header("mcp-session-id");
  EXPECT_EQ(r.post(sid, R"({"jsonrpc":"2.0","method":"notifications/initialized"})").status, 202);
  return sid;
}

// The final JSON-RPC message of a reply (JSON body, or the last data event).
json final_message(const reply& r) {
  if (r.header("content-type").rfind("text/event-stream", 0) != 0) return r.json_body();
  json last;
  for (const auto& e : r.events()) {
    if (!e.empty()) last = json::parse(e, nullptr, false);
  }
  return last;
}

std::string tool_text(const reply& r) {
  return final_message(r)["result"]["content"][0].value("text", std::string());
}

std::string rpc(int id, const std::string& method, json params = json::object()) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump();
}

detail::legacy_state engine_state(revival_replica& r, const std::string& sid) {
  auto s = r.ctx->sessions.find(sid);
  return s ? detail::state_of(s->engine())->legacy() : detail::legacy_state{};
}

TEST(HttpRedisRevival, ASessionInitializedOnOneReplicaIsServedByTheOther) {
  revival_cluster c;
  const std::string sid = open_session(c.a);
  EXPECT_EQ(c.b.ctx->sessions.find(sid), nullptr);
  const reply echoed = c.b.post(sid, legacy_call(2, "echo", {{"text", "hi"}}));
  EXPECT_EQ(echoed.status, 200) << echoed.body;
  EXPECT_EQ(tool_text(echoed), "hi");
  auto cached = c.b.ctx->sessions.find(sid);
  ASSERT_NE(cached, nullptr) << "B revived the session and keeps it";
  const detail::legacy_state l = engine_state(c.b, sid);
  EXPECT_EQ(l.version, "2025-11-25");
  EXPECT_TRUE(l.initialized_notification);
  EXPECT_EQ(l.client_capabilities, json({{"elicitation", json::object()}}));
  EXPECT_EQ(l.client_info, json({{"name", "revival-test"}, {"version", "7"}}));
  EXPECT_EQ(c.b.post(sid, rpc(3, "ping")).status, 200);
  EXPECT_EQ(c.b.ctx->sessions.find(sid), cached) << "served from the cache";
  const reply mismatch = parse_wire(c.b.bytes(c.b.send(
      "POST", {{"mcp-session-id", sid}, {"mcp-protocol-version", "2025-06-18"}}, rpc(4, "ping"))));
  EXPECT_EQ(mismatch.status, 400) << "the negotiated version travels with the record";
}

TEST(HttpRedisRevival, TheLogLevelSetOnOneReplicaHoldsOnTheOther) {
  revival_cluster c;
  const std::string sid = open_session(c.a);
  EXPECT_EQ(c.b.post(sid, rpc(2, "logging/setLevel", {{"level", "error"}})).status, 200);
  EXPECT_EQ(tool_text(c.a.post(sid, legacy_call(3, "say"))), "held")
      << "A, which created the session, takes the level B recorded";
  EXPECT_EQ(c.a.post(sid, rpc(4, "logging/setLevel", {{"level", "debug"}})).status, 200);
  EXPECT_EQ(tool_text(c.b.post(sid, legacy_call(5, "say"))), "sent");
  EXPECT_EQ(engine_state(c.b, sid).level, log_level::debug);
  http::redis_session_store records(c.client, c.prefix, 10, std::chrono::minutes(1));
  EXPECT_EQ(records.find(sid)->log_level, "debug");
}

TEST(HttpRedisRevival, SubscriptionsFollowTheSessionAndItsGetStreamResumesOnTheOther) {
  revival_cluster c;
  const std::string sid = open_session(c.a);
  const reply sub = c.b.post(sid, rpc(2, "resources/subscribe", {{"uri", "memo://a"}}));
  EXPECT_EQ(sub.status, 200) << sub.body;
  http::redis_session_store records(c.client, c.prefix, 10, std::chrono::minutes(1));
  EXPECT_EQ(records.find(sid)->subscriptions, std::vector<std::string>{"memo://a"});
  // A's GET stream: A takes the subscription over with the request, and primes the stream.
  const std::uint64_t get = c.a.send("GET", revival_replica::headers(sid));
  const std::string primed = c.a.bytes_containing(get, "\n\n");
  const auto ids = parse_wire(primed).event_ids();
  ASSERT_FALSE(ids.empty()) << primed;
  EXPECT_TRUE(engine_state(c.a, sid).subscriptions.contains("memo://a"));
  // The bus delivers a change to every replica: both copies of the session get it, and the
  // shared log keeps it once (frame_info::broadcast).
  c.a.srv.notify_resource_updated("memo://a");
  c.b.srv.notify_resource_updated("memo://a");
  const std::string on_a = c.a.bytes_containing(get, "resources/updated");
  // The client lost A's stream and resumes on B.
  http::header_list resume = revival_replica::headers(sid);
  resume.emplace_back("last-event-id", ids.front());
  const std::uint64_t again = c.b.send("GET", resume);
  c.b.bytes_containing(again, "resources/updated");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // a second event would be in
  const std::string on_b = c.b.bytes_containing(again, "resources/updated");
  const auto replayed = parse_wire(on_b).events();
  ASSERT_EQ(replayed.size(), 1u) << on_b;
  EXPECT_EQ(json::parse(replayed[0])["params"]["uri"], "memo://a");
  EXPECT_EQ(parse_wire(on_a).events().back(), replayed[0]) << "the same event, byte for byte";
  EXPECT_EQ(c.b.post(sid, rpc(3, "resources/unsubscribe", {{"uri", "memo://a"}})).status, 200);
  EXPECT_TRUE(records.find(sid)->subscriptions.empty());
}

TEST(HttpRedisRevival, APostStreamFromOneReplicaIsResumedOnTheOther) {
  revival_cluster c;
  const std::string sid = open_session(c.a);
  const reply streamed = c.a.post(sid, legacy_call(2, "progress", {}, {{"progressToken", "p"}}));
  const auto ids = streamed.event_ids();
  ASSERT_GE(ids.size(), 3u) << streamed.body;
  http::header_list resume = revival_replica::headers(sid);
  resume.emplace_back("last-event-id", ids[1]);
  const reply resumed = parse_wire(c.b.bytes(c.b.send("GET", resume)));
  EXPECT_EQ(resumed.status, 200);
  const auto all = streamed.events();
  EXPECT_EQ(resumed.events(), std::vector<std::string>(all.end() - (ids.size() - 2), all.end()))
      << "exactly the events after " << ids[1];
  EXPECT_EQ(resumed.event_ids(), std::vector<std::string>(ids.begin() + 2, ids.end()));
  http::header_list bogus = revival_replica::headers(sid);
  bogus.emplace_back("last-event-id", "9-99");
  EXPECT_EQ(parse_wire(c.b.bytes(c.b.send("GET", bogus))).status, 400) << "row H11";
}

// A streaming tools/call of `tool` on `on` (a progress token asks for events), with the id of
// its first event and the headers of a GET that resumes it after that event.
struct streaming_call {
  std::uint64_t no = 0;
  std::string first_event;
  http::header_list resume;
};

streaming_call start_streaming_call(revival_replica& on, const std::string& sid, int id,
                                    const std::string& tool) {
  streaming_call s;
  s.no = on.send("POST", revival_replica::headers(sid),
                 legacy_call(id, tool, {}, {{"progressToken", "q"}}));
  const auto ids = parse_wire(on.bytes_containing(s.no, "progress")).event_ids();
  if (!ids.empty()) s.first_event = ids.front();
  s.resume = revival_replica::headers(sid);
  s.resume.emplace_back("last-event-id", s.first_event);
  return s;
}

// A stream still running on A, resumed on B: B replays what is stored, then follows what A
// appends until A finishes it, and the session is no longer busy on B once the stream ended.
TEST(HttpRedisRevival, AStreamStillRunningOnOneReplicaIsFollowedOnTheOther) {
  revival_cluster c;
  const std::string sid = open_session(c.a);
  const streaming_call call = start_streaming_call(c.a, sid, 2, "two_steps");
  ASSERT_FALSE(call.first_event.empty());
  const reply followed = parse_wire(c.b.bytes(c.b.send("GET", call.resume)));
  const reply original = parse_wire(c.a.bytes(call.no));
  EXPECT_EQ(followed.status, 200);
  const auto all = original.event_ids();
  ASSERT_GE(all.size(), 3u) << original.body;
  const auto after_first = std::find(all.begin(), all.end(), call.first_event);
  ASSERT_NE(after_first, all.end());
  EXPECT_EQ(followed.event_ids(), std::vector<std::string>(after_first + 1, all.end()))
      << "every later event, the result last: " << followed.body;
  EXPECT_EQ(tool_text(followed), "both steps");
  auto on_b = c.b.ctx->sessions.find(sid);
  ASSERT_NE(on_b, nullptr);
  EXPECT_TRUE(eventually([&] { return !on_b->active(); }))
      << "the ended stream no longer keeps the session busy";
  EXPECT_TRUE(eventually([&] { return c.b.ctx->followers.size() == 0; }));
}

// Resumed where it runs: live, and once it ended the session is idle again (it expires).
TEST(HttpRedisRevival, AStreamResumedOnItsOwnReplicaReleasesTheSessionWhenItEnds) {
  revival_cluster c;
  const std::string sid = open_session(c.a);
  const streaming_call call = start_streaming_call(c.a, sid, 2, "two_steps");
  ASSERT_FALSE(call.first_event.empty());
  const reply resumed = parse_wire(c.a.bytes(c.a.send("GET", call.resume)));
  EXPECT_EQ(tool_text(resumed), "both steps") << resumed.body;
  c.a.bytes(call.no);
  auto s = c.a.ctx->sessions.find(sid);
  ASSERT_NE(s, nullptr);
  EXPECT_TRUE(eventually([&] { return !s->active(); })) << "an ended stream keeps nothing busy";
}

// Cancelled on A while followed on B: B ends with row H41, as a resume on A would.
TEST(HttpRedisRevival, AFollowedStreamWhoseRequestIsCancelledEndsWithH41) {
  revival_cluster c;
  const std::string sid = open_session(c.a);
  const streaming_call call = start_streaming_call(c.a, sid, 3, "notify_slow");
  ASSERT_FALSE(call.first_event.empty());
  const std::uint64_t get = c.b.send("GET", call.resume);
  ASSERT_EQ(c.a.post(sid, R"({"jsonrpc":"2.0","method":"notifications/cancelled",)"
                          R"("params":{"requestId":3}})")
                .status,
            202);
  const reply ended = parse_wire(c.b.bytes(get));
  EXPECT_EQ(ended.status, 200);
  const json last = final_message(ended);
  EXPECT_EQ(last["id"], 3) << ended.body;
  EXPECT_EQ(last["error"]["message"],
            mcpcxx::wire::render(mcpcxx::wire::situation::H41_request_cancelled).message);
}

TEST(HttpRedisRevival, DeleteOnOneReplicaEndsTheSessionEverywhere) {
  revival_cluster c;
  const std::string sid = open_session(c.a);
  ASSERT_EQ(c.b.post(sid, rpc(2, "ping")).status, 200);
  ASSERT_NE(c.b.ctx->sessions.find(sid), nullptr);
  EXPECT_EQ(parse_wire(c.b.bytes(c.b.send("DELETE", revival_replica::headers(sid)))).status, 204);
  EXPECT_EQ(c.b.ctx->sessions.find(sid), nullptr);
  ASSERT_NE(c.a.ctx->sessions.find(sid), nullptr) << "A still caches it until its next use";
  const reply gone = c.a.post(sid, rpc(3, "ping"));
  EXPECT_EQ(gone.status, 404) << gone.body;
  EXPECT_EQ(c.a.ctx->sessions.find(sid), nullptr) << "dropped on use";
  EXPECT_EQ(c.b.post(sid, rpc(4, "ping")).status, 404);
  EXPECT_EQ(keys_under(*c.client, c.prefix + "{s:" + sid).size(), 0u);
  expect_every_key_expires(*c.client, c.prefix);
}

// Makes the record of `sid` last used long ago (as if idle for years), in record and index.
void age(revival_cluster& c, const std::string& sid) {
  c.client->run({"HSET", http::redis_session_keys::of(c.prefix, sid).rec, "last", "1"});
  c.client->run({"ZADD", http::redis_index_keys(c.prefix)[0], "1", sid});
}

TEST(HttpRedisRevival, IdleExpiryOnOneReplicaEndsTheSessionOnTheOther) {
  revival_cluster c;
  const std::string idle = open_session(c.a);
  const std::string busy = open_session(c.a);
  ASSERT_EQ(c.b.post(idle, rpc(2, "ping")).status, 200);
  ASSERT_EQ(c.b.post(busy, rpc(3, "ping")).status, 200);
  age(c, busy);
  c.b.ctx->sessions.find(busy)->enter();  // something in progress, on B only
  EXPECT_TRUE(c.b.ctx->sessions.take_expired(std::chrono::hours(1)).empty())
      << "B's reaper spares its busy session and marks it used";
  age(c, idle);
  auto taken = c.a.ctx->sessions.take_expired(std::chrono::hours(1));
  ASSERT_EQ(taken.size(), 1u) << "A takes the idle one and spares the one busy on B";
  EXPECT_EQ(taken[0]->id(), idle);
  auto dropped = c.b.ctx->sessions.take_expired(std::chrono::hours(1));
  ASSERT_EQ(dropped.size(), 1u) << "B drops its copy of the session A expired";
  EXPECT_EQ(dropped[0]->id(), idle);
  ASSERT_NE(c.b.ctx->sessions.find(busy), nullptr);
  c.b.ctx->sessions.find(busy)->leave();
  EXPECT_EQ(c.a.post(busy, rpc(4, "ping")).status, 200);
  EXPECT_EQ(c.b.post(idle, rpc(5, "ping")).status, 404);
  expect_every_key_expires(*c.client, c.prefix);
}

http_options alice_and_mallory() {
  http_options o;
  http_auth_options a;
  a.authorization_servers = {"https://as.example"};
  a.verifier = [](std::string_view token, const http_auth_request&) {
    return http_auth_result::allow(
        {{"sub", std::string(token)}, {"iss", "https://as.example"}, {"scopes", json::array()}});
  };
  o.auth = a;
  return o;
}

TEST(HttpRedisRevival, AForeignPrincipalIsRefusedOnTheOtherReplicaRoutedMessagesToo) {
  revival_cluster c(shared_redis()->url(), alice_and_mallory());
  c.a.token = "alice";
  const std::string sid = open_session(c.a);
  const std::uint64_t call =
      c.a.send("POST", revival_replica::headers(sid), legacy_call(2, "confirm"));
  const std::string asked = c.a.bytes_containing(call, "elicitation/create");
  json ask;
  for (const auto& e : parse_wire(asked).events()) {
    json m = json::parse(e, nullptr, false);
    if (m.is_object() && m.value("method", "") == "elicitation/create") ask = m;
  }
  ASSERT_TRUE(ask.is_object()) << asked;
  const std::string answer = json{{"jsonrpc", "2.0"},
                                  {"id", ask["id"]},
                                  {"result", {{"action", "accept"}, {"content", json::object()}}}}
                                 .dump();
  c.b.token = "mallory";
  EXPECT_EQ(c.b.post(sid, rpc(3, "ping")).status, 404);
  EXPECT_EQ(c.b.post(sid, answer).status, 404) << "not routed for a foreign principal";
  EXPECT_EQ(c.router->routes.load(), 0);
  EXPECT_EQ(parse_wire(c.b.bytes(c.b.send("GET", revival_replica::headers(sid)))).status, 404);
  EXPECT_EQ(parse_wire(c.b.bytes(c.b.send("DELETE", revival_replica::headers(sid)))).status, 404);
  EXPECT_EQ(c.b.ctx->sessions.find(sid), nullptr) << "nothing cached for mallory";
  c.b.token = "alice";
  EXPECT_EQ(c.b.post(sid, answer).status, 202) << "the owner's answer is routed to A";
  EXPECT_EQ(c.router->routes.load(), 1);
  EXPECT_EQ(tool_text(parse_wire(c.a.bytes(call))), "confirmed accept");
  EXPECT_EQ(c.b.post(sid, rpc(4, "ping")).status, 200);
}

// Redis down: the replica holding a session serves it from its copy; another replica answers
// row H51 (503, Retry-After), and initialize row P57.
TEST(HttpRedisRevival, AStoppedRedisIsAnsweredWithRowsH51AndP57) {
  testing::redis_server own;
  revival_cluster c(own.url());
  const std::string sid = open_session(c.a);
  own.kill();
  const reply refused = c.b.post(sid, rpc(2, "ping"));
  EXPECT_EQ(refused.status, 503) << refused.body;
  EXPECT_EQ(refused.header("retry-after"), "2");
  const json error = refused.json_body()["error"];
  EXPECT_EQ(error["code"], -32603) << refused.body;
  EXPECT_EQ(
      error.value("message", "")
          .rfind("Service unavailable: session " + sid + " is kept in the store this server shares",
                 0),
      0u)
      << refused.body;
  EXPECT_EQ(refused.json_body()["id"], 2);
  EXPECT_EQ(c.a.post(sid, rpc(3, "ping")).status, 200) << "A serves from its copy";
  const reply streamed = c.a.post(sid, legacy_call(6, "progress", {}, {{"progressToken", "p"}}));
  EXPECT_EQ(streamed.status, 200) << streamed.body;
  EXPECT_EQ(final_message(streamed)["id"], 6) << "events go out live, unnumbered";
  const reply init =
      parse_wire(c.b.bytes(c.b.send("POST", {},
                                    rpc(4, "initialize",
                                        {{"protocolVersion", "2025-11-25"},
                                         {"capabilities", json::object()},
                                         {"clientInfo", {{"name", "x"}, {"version", "1"}}}}))));
  EXPECT_EQ(final_message(init)["error"]["code"], -32603) << init.body;
  EXPECT_NE(init.body.find("needs the store"), std::string::npos) << init.body;
  EXPECT_TRUE(c.b.ctx->sessions.take_expired(std::chrono::nanoseconds(0)).empty())
      << "the reaper survives an outage";
  own.restart();  // empty: the record is gone
  EXPECT_TRUE(eventually([&] { return c.b.post(sid, rpc(5, "ping")).status == 404; }));
  EXPECT_TRUE(eventually([&] { return c.a.post(sid, rpc(7, "ping")).status == 404; }))
      << "A takes the record's loss over once the store answers";
}

}  // namespace
}  // namespace mcpcxx::http_test
