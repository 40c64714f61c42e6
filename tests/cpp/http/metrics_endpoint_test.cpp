// GET /metrics on the Streamable HTTP server: opt-in, Host/Origin checked, GET only (H50).
#include "http/fixture.hpp"

namespace mcpcxx::http_test {
namespace {

reply send_request(std::uint16_t port, const std::string& method, const std::string& path,
                   const std::vector<std::string>& headers = {}) {
  client c(port);
  c.send_raw(client::request(method, path, headers, ""));
  return c.read_reply();
}

http_options with_metrics(std::string path = "/metrics") {
  http_options o;
  o.metrics = true;
  o.metrics_path = std::move(path);
  return o;
}

TEST(HttpMetrics, OffByDefaultThePathIsUnknown) {
  http_fixture f;
  reply r = send_request(f.port(), "GET", "/metrics");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.body.find("mcpcxx_"), std::string::npos);
}

TEST(HttpMetrics, ServesTheExpositionAfterACall) {
  http_fixture f(with_metrics());
  client c(f.port());
  auto call = modern_call(1, "echo", {{"text", "hi"}});
  ASSERT_EQ(c.post(call.body, call.headers).status, 200);
  reply r = send_request(f.port(), "GET", "/metrics");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(r.body.find(R"(mcpcxx_requests_total{method="tools/call",tool="echo",outcome="ok",)"
                        R"(category="ok"} 1)"),
            std::string::npos)
      << r.body;
  EXPECT_NE(r.body.find("# TYPE mcpcxx_request_duration_seconds histogram"), std::string::npos);
}

TEST(HttpMetrics, OtherMethodsAre405WithAllow) {
  http_fixture f(with_metrics("/internal/metrics"));
  reply r = send_request(f.port(), "POST", "/internal/metrics");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.header("allow"), "GET");
  EXPECT_NE(r.body.find("metrics endpoint accepts GET"), std::string::npos) << r.body;
  EXPECT_EQ(send_request(f.port(), "GET", "/metrics").status, 404);
  EXPECT_EQ(send_request(f.port(), "GET", "/internal/metrics").status, 200);
}

TEST(HttpMetrics, ForeignOriginIsRefusedLikeTheMcpEndpoint) {
  http_fixture f(with_metrics());
  EXPECT_EQ(send_request(f.port(), "GET", "/metrics", {"Origin: http://evil.example.com"}).status,
            403);
  EXPECT_EQ(send_request(f.port(), "GET", "/metrics", {"Origin: http://localhost:9090"}).status,
            200);
}

TEST(HttpMetrics, BadMetricsPathIsRefusedAtConstruction) {
  server s;
  EXPECT_THROW(http_server(s, with_metrics("metrics")), std::invalid_argument);
  EXPECT_THROW(http_server(s, with_metrics("/mcp")), std::invalid_argument);
}

}  // namespace
}  // namespace mcpcxx::http_test
