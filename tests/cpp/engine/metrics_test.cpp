// Request metrics: counters by method/tool/outcome/category, latency histograms, gauges, the
// Prometheus text rendering and its bounded label sets.
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"

namespace mcpcxx::testing {
namespace {

// The sample lines of `text` whose metric name is `name` (labels included), in order.
std::vector<std::string> samples(const std::string& text, const std::string& name) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(name + "{", 0) == 0 || line.rfind(name + " ", 0) == 0) out.push_back(line);
  }
  return out;
}

// The value of the one sample of `name` whose label text contains every item of `labels`.
double value(const std::string& text, const std::string& name,
             const std::vector<std::string>& labels = {}) {
  double found = -1;
  for (const auto& line : samples(text, name)) {
    bool all = true;
    for (const auto& l : labels) all = all && line.find(l) != std::string::npos;
    if (!all) continue;
    EXPECT_LT(found, 0) << "more than one sample matches in " << name;
    found = std::stod(line.substr(line.rfind(' ') + 1));
  }
  return found;
}

class metrics_test : public ::testing::Test {
 protected:
  captured_log log;
  std::unique_ptr<server> srv;

  void SetUp() override {
    srv = std::make_unique<server>(log.options());
    srv->add_tool({.name = "echo"},
                  [](const json& a, request_context&) { return tool_result::text(a.dump()); });
    srv->add_tool({.name = "missing"}, [](const json&, request_context&) -> tool_result {
      throw tool_error("Lookup failed: item 4 was not found. List items first.",
                       error_category::not_found, false, "4");
    });
    srv->add_tool({.name = "explode"}, [](const json&, request_context&) -> tool_result {
      throw std::runtime_error("secret detail");
    });
  }
  json call(harness& h, const std::string& tool, int id = 1) {
    return h.roundtrip(
        modern_request(id, "tools/call", {{"name", tool}, {"arguments", json::object()}}));
  }
};

TEST_F(metrics_test, counts_each_outcome_by_method_tool_and_category) {
  harness h(*srv);
  call(h, "echo", 1);
  call(h, "echo", 2);
  call(h, "missing", 3);
  call(h, "explode", 4);
  h.roundtrip(modern_request(5, "tools/list", json::object()));
  const std::string t = srv->metrics_text();
  EXPECT_EQ(
      value(t, "mcpcxx_requests_total",
            {R"(method="tools/call")", R"(tool="echo")", R"(outcome="ok")", R"(category="ok")"}),
      2);
  EXPECT_EQ(value(t, "mcpcxx_requests_total",
                  {R"(tool="missing")", R"(outcome="tool_error")", R"(category="not_found")"}),
            1);
  EXPECT_EQ(value(t, "mcpcxx_requests_total",
                  {R"(tool="explode")", R"(outcome="tool_error")", R"(category="internal")"}),
            1);
  EXPECT_EQ(value(t, "mcpcxx_requests_total", {R"(method="tools/list")", R"(tool="")"}), 1);
  EXPECT_EQ(value(t, "mcpcxx_unexpected_exceptions_total", {R"(tool="explode")"}), 1);
  EXPECT_EQ(value(t, "mcpcxx_unexpected_exceptions_total", {R"(tool="missing")"}), -1);
  const server_metrics m = srv->metrics();
  EXPECT_EQ(m.requests, 5u);
  EXPECT_EQ(m.tool_errors, 2u);
  EXPECT_EQ(m.by_category.at("not_found"), 1u);
}

TEST_F(metrics_test, latency_histograms_are_cumulative_per_method_and_tool) {
  harness h(*srv);
  for (int i = 0; i < 3; ++i) call(h, "echo", i + 1);
  const std::string t = srv->metrics_text();
  const auto buckets = samples(t, "mcpcxx_request_duration_seconds_bucket");
  ASSERT_EQ(buckets.size(), 17u);  // 16 bounds and +Inf, one series
  double last = 0;
  for (const auto& b : buckets) {
    const double v = std::stod(b.substr(b.rfind(' ') + 1));
    EXPECT_GE(v, last) << b;
    last = v;
  }
  EXPECT_EQ(value(t, "mcpcxx_request_duration_seconds_bucket", {R"(le="+Inf")"}), 3);
  EXPECT_EQ(value(t, "mcpcxx_request_duration_seconds_count", {R"(tool="echo")"}), 3);
  EXPECT_GT(value(t, "mcpcxx_request_duration_seconds_sum", {R"(tool="echo")"}), 0);
}

TEST_F(metrics_test, client_chosen_names_never_become_labels) {
  harness h(*srv);
  for (int i = 0; i < 20; ++i) call(h, "no_such_tool_" + std::to_string(i), i + 1);
  h.roundtrip(modern_request(30, "made/up/" + std::string("x"), json::object()));
  h.s.receive(R"({"jsonrpc":"2.0","id":31,"method":"tools/call","params":[1]})");
  const std::string t = srv->metrics_text();
  EXPECT_EQ(t.find("no_such_tool"), std::string::npos);
  EXPECT_EQ(t.find("made/up"), std::string::npos);
  EXPECT_EQ(
      value(t, "mcpcxx_requests_total", {R"(tool="_unknown")", R"(outcome="protocol_error")"}), 20);
  EXPECT_EQ(value(t, "mcpcxx_requests_total", {R"(method="_unknown")"}), 1);
  // Every label value belongs to a fixed set.
  const std::regex label(R"re((\w+)="([^"]*)")re");
  std::set<std::string> tools;
  for (const auto& line : samples(t, "mcpcxx_requests_total")) {
    for (std::sregex_iterator it(line.begin(), line.end(), label), end; it != end; ++it) {
      if ((*it)[1] == "tool") tools.insert((*it)[2]);
    }
  }
  EXPECT_EQ(tools, (std::set<std::string>{"", "_unknown"}));
}

TEST_F(metrics_test, a_removed_and_readded_tool_keeps_one_label) {
  harness h(*srv);
  call(h, "echo", 1);
  ASSERT_TRUE(srv->remove_tool("echo"));
  call(h, "echo", 2);  // now unknown
  srv->add_tool({.name = "echo"},
                [](const json&, request_context&) { return tool_result::text("again"); });
  call(h, "echo", 3);
  const std::string t = srv->metrics_text();
  EXPECT_EQ(value(t, "mcpcxx_requests_total", {R"(tool="echo")", R"(outcome="ok")"}), 2);
  EXPECT_EQ(value(t, "mcpcxx_requests_total", {R"(tool="_unknown")"}), 1);
}

TEST_F(metrics_test, gauges_report_sessions_listeners_in_flight_and_stuck) {
  std::string t = srv->metrics_text();
  EXPECT_EQ(value(t, "mcpcxx_listeners"), 0);
  EXPECT_EQ(value(t, "mcpcxx_stuck_handlers"), 0);
  EXPECT_EQ(value(t, "mcpcxx_requests_in_flight"), 0);
  std::atomic<bool> release{false};
  std::atomic<bool> entered{false};
  srv->add_tool({.name = "hold"}, [&](const json&, request_context&) {
    entered = true;
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return tool_result::text("done");
  });
  {
    harness h(*srv, false);
    h.s.receive(modern_request(8, "subscriptions/listen",
                               {{"notifications", {{"toolsListChanged", true}}}}));
    h.sink->wait_for(1);  // the listen's acknowledgement: the listener is open
    h.s.receive(modern_request(9, "tools/call", {{"name", "hold"}}));
    while (!entered) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    t = srv->metrics_text();
    // An open listen is a request in flight too (it has not been answered).
    EXPECT_EQ(value(t, "mcpcxx_requests_in_flight"), 2);
    EXPECT_GE(value(t, "mcpcxx_sessions_open"), 1);
    EXPECT_EQ(value(t, "mcpcxx_listeners"), 1);
    release = true;
    h.sink->wait_for(2);
    EXPECT_EQ(value(srv->metrics_text(), "mcpcxx_requests_in_flight"), 1);
    h.s.shutdown(std::chrono::milliseconds(0));  // ends the listen, as a transport's close does
  }
  t = srv->metrics_text();
  EXPECT_EQ(value(t, "mcpcxx_requests_in_flight"), 0);
  EXPECT_EQ(value(t, "mcpcxx_listeners"), 0);
}

TEST_F(metrics_test, every_family_has_help_and_type_and_names_follow_conventions) {
  harness h(*srv);
  call(h, "echo");
  const std::string t = srv->metrics_text();
  const std::regex type_line(R"(# TYPE (\w+) (counter|gauge|histogram))");
  int families = 0;
  for (std::sregex_iterator it(t.begin(), t.end(), type_line), end; it != end; ++it) {
    const std::string name = (*it)[1];
    const std::string type = (*it)[2];
    ++families;
    EXPECT_EQ(name.rfind("mcpcxx_", 0), 0u) << name;
    if (type == "counter") {
      EXPECT_TRUE(name.ends_with("_total")) << name;
    }
    if (type == "histogram") {
      EXPECT_TRUE(name.ends_with("_seconds")) << name;
    }
    EXPECT_NE(t.find("# HELP " + name + " "), std::string::npos) << name;
  }
  EXPECT_EQ(families, 10);
}

}  // namespace
}  // namespace mcpcxx::testing

namespace mcpcxx::testing {
namespace {

// The metrics' fixed category labels restate the tool-error categories; a category added to
// error_category without its label would be counted as "_other". Every one must keep its name.
TEST_F(metrics_test, every_tool_error_category_is_its_own_label) {
  int id = 1;
  for (int i = 0; i <= static_cast<int>(error_category::internal); ++i) {
    const auto c = static_cast<error_category>(i);
    const std::string name = "cat_" + std::to_string(i);
    srv->add_tool({.name = name}, [c](const json&, request_context&) -> tool_result {
      throw tool_error("It failed for the test. Do not retry.", c, false, "x");
    });
    harness h(*srv);
    call(h, name, id++);
    const std::string label = "category=\"" + std::string(to_string(c)) + "\"";
    EXPECT_NE(srv->metrics_text().find(label), std::string::npos) << label;
  }
  EXPECT_EQ(srv->metrics_text().find("category=\"_other\""), std::string::npos);
}

}  // namespace
}  // namespace mcpcxx::testing
