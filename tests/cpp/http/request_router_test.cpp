// The request router behind legacy HTTP sessions (core/request_router.hpp): every session the
// table holds is attached, every removal detaches it, and a response or notification POSTed for
// a session this process does not hold is routed to the process that does. Two replicas are two
// transport_contexts over two servers sharing one router, driven in-process through endpoint.
#include "core/request_router.hpp"

#include <algorithm>
#include <cctype>
#include <condition_variable>
#include <map>
#include <mutex>
#include <utility>

#include "http/fixture.hpp"
#include "transport/http/context.hpp"
#include "transport/http/endpoint.hpp"
#include "transport/http/memory_event_store.hpp"
#include "transport/http/memory_session_store.hpp"
#include "wire/situation.hpp"

namespace mcpcxx::http_test {
namespace {

// A router shared by the replicas of one test: delivers through the memory router and records
// what the transport asked of it.
class recording_request_router final : public detail::request_router {
 public:
  void attach(const std::string& session_id, inbox in) override {
    note("attach " + session_id);
    inner_->attach(session_id, std::move(in));
  }
  bool detach(const std::string& session_id) override {
    note("detach " + session_id);
    return inner_->detach(session_id);
  }
  bool route(const std::string& session_id, std::string message) override {
    note("route " + session_id);
    return inner_->route(session_id, std::move(message));
  }
  bool route_to(const std::string& origin, const std::string& session_id,
                std::string message) override {
    note("route_to " + session_id);
    return inner_->route_to(origin, session_id, std::move(message));
  }
  void broadcast(const std::string& session_id, std::string message) override {
    note("broadcast " + session_id);
    inner_->broadcast(session_id, std::move(message));
  }
  /// The calls so far ("attach <id>", "detach <id>", "route <id>"), in order.
  std::vector<std::string> calls() const {
    std::lock_guard g(lock_);
    return calls_;
  }

 private:
  mutable std::mutex lock_;
  std::vector<std::string> calls_;
  const std::unique_ptr<detail::request_router> inner_ = detail::make_memory_request_router();

  void note(std::string call) {
    std::lock_guard g(lock_);
    calls_.push_back(std::move(call));
  }
};

// The bytes the endpoint wrote for each request number (what a connection would send).
class router_test_wire final : public http::reply_target {
 public:
  void deliver(std::uint64_t request_no, std::string bytes, http::delivery kind, bool) override {
    {
      std::lock_guard g(lock_);
      sent_[request_no] += bytes;
      if (kind == http::delivery::final) ended_[request_no] = true;
    }
    cv_.notify_all();
  }
  /// The bytes of request `no` once `done(bytes, ended)` holds (or after 20 s).
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

// A response as sent: status, lower-cased headers, and the body (chunks joined).
reply parse_router_wire(const std::string& bytes) {
  reply r;
  const std::size_t head_end = bytes.find("\r\n\r\n");
  if (bytes.rfind("HTTP/1.1 ", 0) != 0 || head_end == std::string::npos) return r;
  r.status = std::stoi(bytes.substr(9, 3));
  for (std::size_t at = bytes.find("\r\n") + 2; at < head_end;) {
    const std::size_t eol = bytes.find("\r\n", at);
    const std::string line = bytes.substr(at, eol - at);
    const std::size_t colon = line.find(':');
    std::string name = line.substr(0, colon);
    for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    r.headers[name] = line.substr(colon + 2);
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

// One replica: a server, its transport over the shared router, and the bytes it wrote.
struct router_replica {
  server srv;
  std::shared_ptr<http::transport_context> ctx;
  http::endpoint ep;
  std::shared_ptr<router_test_wire> wire = std::make_shared<router_test_wire>();
  std::uint64_t next_no = 1;

  explicit router_replica(std::shared_ptr<detail::request_router> router)
      : srv(server_options{.log_requests = false}),
        ctx(std::make_shared<http::transport_context>(
            srv, http_options{}, http::transport_stores{{}, {}, std::move(router)})),
        ep(ctx) {}
  router_replica(const router_replica&) = delete;
  router_replica& operator=(const router_replica&) = delete;
  ~router_replica() {
    for (auto& s : ctx->sessions.take_all()) s->engine().shutdown(std::chrono::milliseconds(0));
  }

  /// Hands `method` `/mcp` with `headers` ({lower-case name, value}) and `body` to the endpoint;
  /// returns its request number.
  std::uint64_t send(std::string method, http::header_list headers, std::string body = {}) {
    http::request req;
    req.method = std::move(method);
    req.target = "/mcp";
    req.headers = {{"host", "127.0.0.1:1"},
                   {"content-type", "application/json"},
                   {"accept", "application/json, text/event-stream"}};
    for (auto& h : headers) req.headers.push_back(std::move(h));
    req.body = std::move(body);
    const std::uint64_t no = next_no++;
    ep.handle(std::move(req), std::make_shared<http::reply_channel>(wire, no, true));
    return no;
  }
  /// The complete reply to request `no`, as sent.
  std::string reply_bytes(std::uint64_t no) {
    return wire->wait(no, [](const std::string&, bool ended) { return ended; });
  }
  /// What request `no` has sent once its bytes contain `needle` (or everything after 20 s).
  std::string bytes_containing(std::uint64_t no, const std::string& needle) {
    return wire->wait(
        no, [&](const std::string& b, bool) { return b.find(needle) != std::string::npos; });
  }
};

http::header_list router_session_headers(const std::string& sid) {
  return {{"mcp-session-id", sid}, {"mcp-protocol-version", "2025-11-25"}};
}

// Initializes a 2025-11-25 session on `r` (the client declares elicitation); its id.
std::string open_router_session(router_replica& r) {
  const std::string init = json{{"jsonrpc", "2.0"},
                                {"id", 1},
                                {"method", "initialize"},
                                {"params",
                                 {{"protocolVersion", "2025-11-25"},
                                  {"capabilities", {{"elicitation", json::object()}}},
                                  {"clientInfo", {{"name", "router-test"}, {"version", "1"}}}}}}
                               .dump();
  const reply init_reply = parse_router_wire(r.reply_bytes(r.send("POST", {}, init)));
  EXPECT_EQ(init_reply.status, 200) << init_reply.body;
  std::string sid = init_reply.header("mcp-session-id");
  const reply ready = parse_router_wire(
      r.reply_bytes(r.send("POST", router_session_headers(sid),
                           R"({"jsonrpc":"2.0","method":"notifications/initialized"})")));
  EXPECT_EQ(ready.status, 202);
  return sid;
}

// Adds tool "confirm": asks the client to confirm (an elicitation), returns what it answered.
void add_confirm_tool(server& s) {
  tool_spec spec;
  spec.name = "confirm";
  s.add_tool(spec, [](const json&, request_context& ctx) {
    auto r = ctx.elicit("Proceed?",
                        {{"type", "object"}, {"properties", {{"ok", {{"type", "boolean"}}}}}});
    return tool_result::text(r.action + " " + r.content.dump());
  });
}

// The elicitation/create request on a tool call's SSE stream (null when there is none).
json elicitation_in(const std::string& stream_bytes) {
  for (const auto& data : parse_router_wire(stream_bytes).events()) {
    json m = json::parse(data, nullptr, false);
    if (!m.is_discarded() && m.value("method", "") == "elicitation/create") return m;
  }
  return nullptr;
}

const std::string k_router_unknown_sid = "0123456789abcdef0123456789abcdef";

TEST(HttpRequestRouter, AResponsePostedToAnotherReplicaReachesTheSessionsHolder) {
  auto router = std::make_shared<recording_request_router>();
  router_replica a(router);
  router_replica b(router);
  add_confirm_tool(a.srv);
  const std::string sid = open_router_session(a);
  ASSERT_EQ(sid.size(), 32u);
  const std::uint64_t call = a.send("POST", router_session_headers(sid), legacy_call(4, "confirm"));
  const json ask = elicitation_in(a.bytes_containing(call, "elicitation/create"));
  ASSERT_TRUE(ask.is_object()) << "no elicitation on the call's stream";
  const std::string answer = json{{"jsonrpc", "2.0"},
                                  {"id", ask.at("id")},
                                  {"result", {{"action", "accept"}, {"content", {{"ok", true}}}}}}
                                 .dump();
  const std::string routed = b.reply_bytes(b.send("POST", router_session_headers(sid), answer));
  // B answers as A answers a POST of responses/notifications to a session it holds.
  const std::string known =
      a.reply_bytes(a.send("POST", router_session_headers(sid),
                           R"({"jsonrpc":"2.0","method":"notifications/roots/list_changed"})"));
  EXPECT_EQ(parse_router_wire(routed).status, 202) << routed;
  EXPECT_EQ(routed, known);
  EXPECT_EQ(b.ctx->sessions.size(), 0u) << "B never held the session";
  const reply result = parse_router_wire(a.reply_bytes(call));
  const auto events = result.events();
  ASSERT_FALSE(events.empty()) << result.body;
  const json last = json::parse(events.back(), nullptr, false);
  EXPECT_EQ(last["id"], 4) << last;
  EXPECT_EQ(last["result"]["content"][0]["text"], R"(accept {"ok":true})") << last;
  const auto calls = router->calls();
  EXPECT_EQ(std::count(calls.begin(), calls.end(), "route " + sid), 1);
}

TEST(HttpRequestRouter, ARequestForASessionHeldElsewhereIsNotRouted) {
  auto router = std::make_shared<recording_request_router>();
  router_replica a(router);
  router_replica b(router);
  const std::string sid = open_router_session(a);
  const reply refused = parse_router_wire(
      b.reply_bytes(b.send("POST", router_session_headers(sid), legacy_call(9, "echo"))));
  EXPECT_EQ(refused.status, 404) << refused.body;
  EXPECT_EQ(refused.json_body()["id"], 9) << "the request's id is echoed, as today";
  const auto calls = router->calls();
  EXPECT_EQ(std::count(calls.begin(), calls.end(), "route " + sid), 0);
}

TEST(HttpRequestRouter, AnUnknownSessionKeepsTodaysAnswerWithTheMemoryRouter) {
  router_replica r(nullptr);  // the default: the memory router
  const std::string expected_body =
      R"({"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Session not found: it )"
      R"(expired or was terminated; send initialize to start a new session"}})";
  const std::string expected_bytes =
      http::serialize(http::row_response({mcpcxx::wire::situation::H14_session_not_found}), true);
  for (const char* body : {R"({"jsonrpc":"2.0","id":7,"result":{}})",
                           R"({"jsonrpc":"2.0","method":"notifications/cancelled",)"
                           R"("params":{"requestId":3}})",
                           R"([{"jsonrpc":"2.0","id":7,"result":{}},)"
                           R"({"jsonrpc":"2.0","method":"notifications/ping"}])"}) {
    const std::string sent =
        r.reply_bytes(r.send("POST", router_session_headers(k_router_unknown_sid), body));
    const reply got = parse_router_wire(sent);
    EXPECT_EQ(got.status, 404) << body;
    EXPECT_EQ(got.body, expected_body) << body;
    EXPECT_EQ(sent, expected_bytes) << body;
  }
}

TEST(HttpRequestRouter, SessionsAreAttachedOnCreationAndDetachedOnDeleteAndExpiry) {
  auto router = std::make_shared<recording_request_router>();
  router_replica r(router);
  const std::string deleted = open_router_session(r);
  const std::string expired = open_router_session(r);
  const std::vector<std::string> opened = {"attach " + deleted, "attach " + expired};
  EXPECT_EQ(router->calls(), opened);
  const reply gone =
      parse_router_wire(r.reply_bytes(r.send("DELETE", router_session_headers(deleted))));
  EXPECT_EQ(gone.status, 204);
  auto calls = router->calls();
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[2], "detach " + deleted);
  // What the reaper does when the idle timeout passed.
  EXPECT_EQ(r.ctx->sessions.take_expired(std::chrono::nanoseconds(0)).size(), 1u);
  calls = router->calls();
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_EQ(calls[3], "detach " + expired);
  EXPECT_FALSE(router->route(expired, R"({"jsonrpc":"2.0","method":"notifications/ping"})"))
      << "nothing is attached for an expired session";
}

TEST(HttpRequestRouter, ARefusedInsertAndShutdownLeaveNothingAttached) {
  auto router = std::make_shared<recording_request_router>();
  http::session_table table(std::make_shared<http::memory_session_store>(1),
                            std::make_shared<http::memory_event_store>(4), router);
  auto kept = table.create("", json::object());
  auto refused = table.create("", json::object());
  ASSERT_TRUE(table.insert(kept));
  EXPECT_FALSE(table.insert(refused)) << "the store holds one session";
  EXPECT_FALSE(router->route(refused->id(), "{}")) << "a session never inserted is not attached";
  EXPECT_EQ(table.take_all().size(), 1u);
  const auto calls = router->calls();
  EXPECT_EQ(calls.back(), "detach " + kept->id());
  EXPECT_FALSE(router->route(kept->id(), "{}")) << "take_all detaches";
}

}  // namespace
}  // namespace mcpcxx::http_test
