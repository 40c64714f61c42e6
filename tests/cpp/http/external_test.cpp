// http_endpoint: the same endpoint driven by a foreign HTTP server (as the ASGI adapter does).
#include "http/fixture.hpp"

namespace mcpcxx::http_test {
namespace {

struct collected : http_response_sink {
  std::mutex lock;
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;
  std::vector<std::string> pieces;
  std::atomic<bool> ended{false};

  void start(int s, std::vector<std::pair<std::string, std::string>> h) override {
    std::lock_guard g(lock);
    status = s;
    headers = std::move(h);
  }
  void write(std::string d) override {
    std::lock_guard g(lock);
    pieces.push_back(std::move(d));
  }
  void end() override { ended = true; }
  std::string header(const std::string& k) {
    std::lock_guard g(lock);
    for (auto& [n, v] : headers) {
      if (n == k) return v;
    }
    return {};
  }
};

struct endpoint_fixture {
  std::shared_ptr<tool_probe> probe = std::make_shared<tool_probe>();
  server srv;
  http_endpoint ep;
  explicit endpoint_fixture(http_options o = {}) : srv(quiet()), ep(srv, std::move(o)) {
    add_test_tools(srv, probe);
  }
  static server_options quiet() {
    server_options so;
    so.log_requests = false;
    return so;
  }
  std::shared_ptr<collected> send(const std::string& method, const std::string& body,
                                  const std::vector<std::string>& header_lines,
                                  std::shared_ptr<http_exchange>* ex = nullptr) {
    http_request_data d;
    d.method = method;
    d.target = "/mcp";
    d.body = body;
    d.headers.emplace_back("Host", "localhost:8000");
    for (auto& line : header_lines) {
      auto c = line.find(": ");
      d.headers.emplace_back(line.substr(0, c), line.substr(c + 2));
    }
    auto sink = std::make_shared<collected>();
    auto handle = ep.handle(std::move(d), sink);
    if (ex) *ex = handle;
    return sink;
  }
};

TEST(HttpEndpoint, ModernRequestsAnswerJsonOrSse) {
  endpoint_fixture f;
  auto r = modern_call(1, "echo", {{"text", "via asgi"}});
  auto a = f.send("POST", r.body, r.headers);
  ASSERT_TRUE(eventually([&] { return a->ended.load(); }));
  EXPECT_EQ(a->status, 200);
  EXPECT_EQ(a->header("content-type"), "application/json");
  EXPECT_EQ(a->header("content-length"), "") << "framing headers are the foreign server's";
  ASSERT_EQ(a->pieces.size(), 1u);
  EXPECT_EQ(json::parse(a->pieces[0])["result"]["content"][0]["text"], "via asgi");

  json params = {{"name", "progress"}, {"arguments", json::object()}, {"_meta", modern_meta()}};
  params["_meta"]["progressToken"] = "t";
  auto p = modern(2, "tools/call", params);
  auto s = f.send("POST", p.body, p.headers);
  ASSERT_TRUE(eventually([&] { return s->ended.load(); }));
  EXPECT_EQ(s->header("content-type"), "text/event-stream");
  ASSERT_EQ(s->pieces.size(), 4u);
  EXPECT_EQ(split_events(s->pieces[3], false).at(0).find("\"id\":2") != std::string::npos, true);
}

TEST(HttpEndpoint, ChecksAndSessionsWorkTheSame) {
  endpoint_fixture f;
  auto bad = f.send("POST", "{}", {"Content-Type: text/plain", "Accept: */*"});
  ASSERT_TRUE(eventually([&] { return bad->ended.load(); }));
  EXPECT_EQ(bad->status, 415);
  auto init = f.send("POST", initialize_body(), k_accept);
  ASSERT_TRUE(eventually([&] { return init->ended.load(); }));
  ASSERT_EQ(init->status, 200);
  std::string sid = init->header("mcp-session-id");
  EXPECT_EQ(sid.size(), 32u);
  EXPECT_EQ(f.ep.stats().sessions, 1u);
  auto call = f.send("POST", legacy_call(2, "echo", {{"text", "s"}}), legacy_headers(sid));
  ASSERT_TRUE(eventually([&] { return call->ended.load(); }));
  EXPECT_EQ(call->status, 200);
  auto missing = f.send("POST", legacy_call(3, "echo"), k_accept);
  ASSERT_TRUE(eventually([&] { return missing->ended.load(); }));
  EXPECT_EQ(missing->status, 400);
  f.ep.close(std::chrono::milliseconds(100));
  EXPECT_EQ(f.ep.stats().sessions, 0u);
}

TEST(HttpEndpoint, DisconnectCancelsModernRequests) {
  endpoint_fixture f;
  std::shared_ptr<http_exchange> ex;
  auto r = modern_call(1, "slow");
  auto a = f.send("POST", r.body, r.headers, &ex);
  ASSERT_TRUE(eventually([&] { return f.probe->slow_started.load() == 1; }));
  ex->disconnected();
  EXPECT_TRUE(eventually([&] { return f.probe->slow_cancelled.load() == 1; }));
}

TEST(HttpEndpoint, BodyLimitAndAuthOptions) {
  http_options o;
  o.max_body_bytes = 16;
  endpoint_fixture f(o);
  auto big = f.send("POST", std::string(17, 'x'), k_accept);
  ASSERT_TRUE(big->ended.load());
  EXPECT_EQ(big->status, 413);
  server s;
  http_options a;
  a.auth = http_auth_options{};
  a.auth->verifier = [](std::string_view, const http_auth_request&) {
    return http_auth_result::invalid();
  };
  a.auth->authorization_servers = {"https://auth.example.com"};
  EXPECT_THROW(http_endpoint(s, a), std::invalid_argument) << "resource URLs must be explicit";
}

}  // namespace
}  // namespace mcpcxx::http_test
