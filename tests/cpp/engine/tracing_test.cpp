// The tracing hook: one span per request with the MCP semantic-convention facts, the W3C parent
// from _meta, protocol vs tool failures told apart; and the trace/session ids in the log line.
#include "mcpcxx/tracing.hpp"

#include <mutex>

#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"

namespace mcpcxx::testing {
namespace {

struct recorded {
  std::string name, method, target, request_id, parent_trace, parent_span, tracestate;
  std::string outcome, error_type, category, reference;
  std::optional<std::int64_t> rpc_code;
  bool ended = false;
};

class recording_tracer final : public tracer {
 public:
  std::mutex mutex;
  std::vector<std::shared_ptr<recorded>> spans;

  std::unique_ptr<span> start_span(const span_start_info& i) override {
    auto r = std::make_shared<recorded>();
    r->name = i.name;
    r->method = i.method;
    r->target = i.target;
    r->request_id = i.request_id;
    if (i.parent != nullptr) {
      r->parent_trace = i.parent->trace_id;
      r->parent_span = i.parent->span_id;
      r->tracestate = i.parent->tracestate;
    }
    std::lock_guard lock(mutex);
    spans.push_back(r);
    return std::make_unique<recorded_span>(r);
  }

 private:
  struct recorded_span final : span {
    explicit recorded_span(std::shared_ptr<recorded> r) : r_(std::move(r)) {}
    void end(const span_end_info& i) noexcept override {
      r_->outcome = i.outcome;
      r_->error_type = i.error_type;
      r_->category = i.category;
      r_->reference = i.reference;
      r_->rpc_code = i.rpc_code;
      r_->ended = true;
    }
    std::shared_ptr<recorded> r_;
  };
};

constexpr const char* k_parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

json traced(json params) {
  json meta = modern_meta();
  meta["traceparent"] = k_parent;
  meta["tracestate"] = "rojo=00f067aa0ba902b7";
  params["_meta"] = meta;
  return params;
}

std::string traced_request(int id, const std::string& method, json params) {
  return json{
      {"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", traced(std::move(params))}}
      .dump();
}

class tracing_test : public ::testing::Test {
 protected:
  captured_log log;
  std::unique_ptr<server> srv;
  std::shared_ptr<recording_tracer> t = std::make_shared<recording_tracer>();
  span* seen_by_handler = nullptr;

  void SetUp() override {
    srv = std::make_unique<server>(log.options());
    srv->add_tool({.name = "echo"}, [this](const json&, request_context& ctx) {
      seen_by_handler = ctx.trace_span();
      return tool_result::text("ok");
    });
    srv->add_tool({.name = "missing"}, [](const json&, request_context&) -> tool_result {
      throw tool_error("Lookup failed: 4 was not found. List items first.",
                       error_category::not_found, false, "4");
    });
    srv->add_tool({.name = "explode"}, [](const json&, request_context&) -> tool_result {
      throw std::runtime_error("secret");
    });
  }
};

TEST_F(tracing_test, parses_w3c_traceparent_and_refuses_malformed_ones) {
  auto p = parse_traceparent(k_parent, "a=1");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_EQ(p->span_id, "00f067aa0ba902b7");
  EXPECT_EQ(p->flags, 1);
  EXPECT_EQ(p->tracestate, "a=1");
  EXPECT_TRUE(parse_traceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-extra"));
  for (const char* bad : {"", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
                          "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                          "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
                          "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
                          "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                          "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x"}) {
    EXPECT_FALSE(parse_traceparent(bad)) << bad;
  }
}

TEST_F(tracing_test, one_span_per_request_with_parent_and_outcome) {
  srv->set_tracer(t);
  harness h(*srv);
  h.roundtrip(traced_request(1, "tools/call", {{"name", "echo"}}));
  h.roundtrip(traced_request(2, "tools/call", {{"name", "missing"}}));
  h.roundtrip(traced_request(3, "tools/call", {{"name", "explode"}}));
  h.roundtrip(traced_request(4, "tools/call", {{"name", "nope"}}));
  h.roundtrip(traced_request(5, "tools/list", json::object()));
  ASSERT_EQ(t->spans.size(), 5u);
  const auto& ok = *t->spans[0];
  EXPECT_EQ(ok.name, "tools/call echo");
  EXPECT_EQ(ok.target, "echo");
  EXPECT_EQ(ok.request_id, "1");
  EXPECT_EQ(ok.parent_trace, "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_EQ(ok.parent_span, "00f067aa0ba902b7");
  EXPECT_EQ(ok.tracestate, "rojo=00f067aa0ba902b7");
  EXPECT_EQ(ok.outcome, "ok");
  EXPECT_EQ(ok.error_type, "");
  EXPECT_NE(seen_by_handler, nullptr);
  EXPECT_EQ(t->spans[1]->outcome, "tool_error");
  EXPECT_EQ(t->spans[1]->error_type, "tool_error");
  EXPECT_EQ(t->spans[1]->category, "not_found");
  EXPECT_FALSE(t->spans[1]->rpc_code);
  EXPECT_EQ(t->spans[2]->category, "internal");
  EXPECT_EQ(t->spans[2]->reference.rfind("ERR-", 0), 0u);
  EXPECT_EQ(t->spans[3]->outcome, "protocol_error");
  EXPECT_EQ(t->spans[3]->error_type, "-32602");
  EXPECT_EQ(t->spans[3]->rpc_code, -32602);
  EXPECT_EQ(t->spans[4]->name, "tools/list");
  for (const auto& s : t->spans) EXPECT_TRUE(s->ended);
}

TEST_F(tracing_test, without_a_tracer_handlers_see_no_span) {
  harness h(*srv);
  h.roundtrip(traced_request(1, "tools/call", {{"name", "echo"}}));
  EXPECT_EQ(seen_by_handler, nullptr);
}

TEST_F(tracing_test, request_log_line_carries_trace_id_and_correlation_fields) {
  harness h(*srv);
  h.roundtrip(traced_request(1, "tools/call", {{"name", "explode"}}));
  h.roundtrip(modern_request(2, "tools/call", {{"name", "echo"}}));
  std::vector<json> requests;
  for (const auto& l : log.snapshot()) {
    json j = json::parse(l);
    if (j["event"] == "request") requests.push_back(j);
  }
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0]["traceId"], "4bf92f3577b34da6a3ce929d0e0e4736");
  EXPECT_EQ(requests[0]["tool"], "explode");
  EXPECT_EQ(requests[0]["outcome"], "tool_error");
  EXPECT_EQ(requests[0]["category"], "internal");
  EXPECT_TRUE(requests[0]["reference"].is_string());
  EXPECT_TRUE(requests[0]["latencyMs"].is_number());
  EXPECT_FALSE(requests[1].contains("traceId"));
}

TEST_F(tracing_test, log_threshold_drops_lines_below_it) {
  auto o = log.options();
  o.log_threshold = log_level::warning;
  server quiet(o);
  quiet.add_tool({.name = "echo"},
                 [](const json&, request_context&) { return tool_result::text("ok"); });
  harness h(quiet);
  h.roundtrip(modern_request(1, "tools/call", {{"name", "echo"}}));
  h.roundtrip(modern_request(2, "tools/call", {{"name", "nope"}}));
  const auto lines = log.snapshot();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(json::parse(lines[0])["level"], "warning");
}

}  // namespace
}  // namespace mcpcxx::testing
