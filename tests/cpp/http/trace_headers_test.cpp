// Over HTTP the W3C parent may come from the traceparent/tracestate headers; params._meta wins
// when it has one. A tracer may decline a span (null).
#include <mutex>
#include <utility>

#include "mcpcxx/tracing.hpp"

#include "http/fixture.hpp"

namespace mcpcxx::http_test {
namespace {

struct seen_span {
  std::string name, trace_id, span_id, tracestate, session_id;
};

class capture_tracer final : public tracer {
 public:
  std::mutex mutex;
  std::vector<seen_span> spans;
  std::unique_ptr<span> start_span(const span_start_info& i) override {
    seen_span s{std::string(i.name), "", "", "", std::string(i.session_id)};
    if (i.parent != nullptr) {
      s.trace_id = i.parent->trace_id;
      s.span_id = i.parent->span_id;
      s.tracestate = i.parent->tracestate;
    }
    std::lock_guard lock(mutex);
    spans.push_back(std::move(s));
    return nullptr;  // untraced: the engine must cope with a tracer that declines
  }
};

constexpr const char* k_header_parent = "00-11111111111111111111111111111111-2222222222222222-01";
constexpr const char* k_meta_parent = "00-33333333333333333333333333333333-4444444444444444-00";

TEST(HttpTraceHeaders, TraceparentHeaderParentsTheSpanAndMetaWins) {
  http_fixture f;
  auto t = std::make_shared<capture_tracer>();
  f.srv->set_tracer(t);
  client c(f.port());
  auto call = modern_call(1, "echo", {{"text", "x"}});
  call.headers.push_back(std::string("traceparent: ") + k_header_parent);
  call.headers.emplace_back("tracestate: vendor=1");
  ASSERT_EQ(c.post(call.body, call.headers).status, 200);

  json body = json::parse(modern_call(2, "echo", {{"text", "y"}}).body);
  body["params"]["_meta"]["traceparent"] = k_meta_parent;
  auto second = modern_call(2, "echo", {{"text", "y"}});
  second.headers.push_back(std::string("traceparent: ") + k_header_parent);
  ASSERT_EQ(c.post(body.dump(), second.headers).status, 200);

  std::lock_guard lock(t->mutex);
  ASSERT_EQ(t->spans.size(), 2u);
  EXPECT_EQ(t->spans[0].name, "tools/call echo");
  EXPECT_EQ(t->spans[0].trace_id, "11111111111111111111111111111111");
  EXPECT_EQ(t->spans[0].span_id, "2222222222222222");
  EXPECT_EQ(t->spans[0].tracestate, "vendor=1");
  EXPECT_EQ(t->spans[1].trace_id, "33333333333333333333333333333333");
  f.srv->set_tracer(nullptr);
}

}  // namespace
}  // namespace mcpcxx::http_test

namespace mcpcxx::http_test {
namespace {

// Issue 14 §4: a legacy session's request log lines carry its Mcp-Session-Id; 2026-07-28 requests
// have no session and no sessionId member.
TEST(HttpLogCorrelation, LegacyRequestLinesCarryTheSessionId) {
  auto probe = std::make_shared<tool_probe>();
  server_options so;
  so.log_requests = true;
  so.log_writer = [probe](std::string_view line) {
    std::lock_guard g(probe->lock);
    probe->log_lines.emplace_back(line);
  };
  server srv(std::move(so));
  add_test_tools(srv, probe);
  http_server http(srv, {});
  http.start();
  std::string sid;
  {
    client c(http.port());
    sid = open_legacy_session(c);
    ASSERT_FALSE(sid.empty());
    ASSERT_EQ(c.post(legacy_call(7, "echo", {{"text", "x"}}), legacy_headers(sid)).status, 200);
    auto call = modern_call(8, "echo", {{"text", "y"}});
    ASSERT_EQ(c.post(call.body, call.headers).status, 200);
  }
  http.stop(std::chrono::milliseconds(2000));
  // The request line is written after the reply leaves (exchange::finish), on the worker that ran
  // the call; the client can hold its reply, and stop() can return, before that line lands.
  std::vector<json> requests;
  const auto request_lines = [&] {
    std::lock_guard g(probe->lock);
    requests.clear();
    for (const auto& l : probe->log_lines) {
      json j = json::parse(l);
      if (j.value("event", "") == "request" && j.value("method", "") == "tools/call") {
        requests.push_back(j);
      }
    }
    return requests.size() >= 2;
  };
  EXPECT_TRUE(eventually(request_lines));
  ASSERT_EQ(requests.size(), 2u);
  // Two workers write them: call 8 may be logged before call 7's worker writes its line.
  if (requests[0]["id"] == 8) std::swap(requests[0], requests[1]);
  EXPECT_EQ(requests[0]["id"], 7);
  EXPECT_EQ(requests[0]["sessionId"], sid);
  EXPECT_EQ(requests[1]["id"], 8);
  EXPECT_FALSE(requests[1].contains("sessionId")) << requests[1];
}

}  // namespace
}  // namespace mcpcxx::http_test
