// subscriptions/listen in process: acknowledgement, filtering, subscriptionId, teardown (client
// cancel, server stop, overflow), bad params, the bounded queue, and automatic list_changed.
#include <atomic>
#include <optional>
#include <thread>

#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"

namespace mcpcxx::testing {
namespace {

constexpr const char* k_sub = "io.modelcontextprotocol/subscriptionId";

tool_handler noop() {
  return [](const json&, request_context&) { return tool_result::text("ok"); };
}

resource_reader text_reader() {
  return [](const std::string& uri, request_context&) {
    return std::vector<resource_contents>{{.uri = uri, .mime_type = "text/plain", .text = "x"}};
  };
}

prompt_handler prompt_noop() {
  return
      [](const std::map<std::string, std::string>&, request_context&) { return prompt_result{}; };
}

// Waits out k_list_changed_window (20 ms), so the next registration is announced at once.
void settle() { std::this_thread::sleep_for(std::chrono::milliseconds(40)); }

server_options opts() {
  auto o = captured_log{}.options();
  o.log_requests = false;
  return o;
}

std::string listen(const json& id, json notifications) {
  json params = {{"notifications", std::move(notifications)}, {"_meta", modern_meta()}};
  return json{
      {"jsonrpc", "2.0"}, {"id", id}, {"method", "subscriptions/listen"}, {"params", params}}
      .dump();
}

std::vector<json> methods_of(const std::vector<collecting_sink::entry>& frames,
                             const std::string& method) {
  std::vector<json> out;
  for (const auto& f : frames) {
    if (f.frame.value("method", "") == method) out.push_back(f.frame);
  }
  return out;
}

class listen_test : public ::testing::Test {
 protected:
  server srv{opts()};
  void SetUp() override {
    srv.add_tool({.name = "t"}, noop());
    srv.add_resource({.uri = "memo://a", .name = "a"}, text_reader());
    srv.add_prompt({.name = "p"}, prompt_noop());
  }
};

TEST_F(listen_test, discover_advertises_list_changed_and_subscribe) {
  harness h(srv);
  json caps = h.roundtrip(modern_request(1, "server/discover"))["result"]["capabilities"];
  EXPECT_EQ(caps["tools"]["listChanged"], true);
  EXPECT_EQ(caps["prompts"]["listChanged"], true);
  EXPECT_EQ(caps["resources"]["listChanged"], true);
  EXPECT_EQ(caps["resources"]["subscribe"], true);
}

TEST_F(listen_test, acknowledges_the_honored_subset_first_and_sends_no_reply) {
  harness h(srv);
  json ack = h.roundtrip(listen(7, {{"toolsListChanged", true},
                                    {"resourceSubscriptions", {"memo://b", "memo://a", "memo://a"}},
                                    {"promptsListChanged", false},
                                    {"com.example/other", true}}));
  EXPECT_EQ(ack["method"], "notifications/subscriptions/acknowledged");
  EXPECT_EQ(
      ack["params"]["notifications"],
      json({{"toolsListChanged", true}, {"resourceSubscriptions", {"memo://a", "memo://b"}}}));
  EXPECT_EQ(ack["params"]["_meta"][k_sub], 7);
  EXPECT_FALSE(ack.contains("id"));
  EXPECT_EQ(h.sink->frames().size(), 1u);  // the listen itself is not answered
}

TEST_F(listen_test, omits_what_the_server_does_not_have) {
  server bare(opts());
  bare.add_tool({.name = "t"}, noop());
  harness h(bare);
  json ack = h.roundtrip(listen(1, {{"toolsListChanged", true},
                                    {"promptsListChanged", true},
                                    {"resourcesListChanged", true},
                                    {"resourceSubscriptions", {"memo://a"}}}));
  EXPECT_EQ(ack["params"]["notifications"], json({{"toolsListChanged", true}}));
}

TEST_F(listen_test, sends_only_what_was_asked_with_the_subscription_id) {
  harness h(srv);
  h.roundtrip(listen(1, {{"toolsListChanged", true}}));
  h.roundtrip(listen(2, {{"resourceSubscriptions", {"memo://a"}}}));
  settle();  // past the list_changed window of SetUp's registrations: announcements go at once
  h.sink->clear();
  srv.add_prompt({.name = "q"}, prompt_noop());  // nobody asked for prompts
  srv.notify_resource_updated("memo://other");   // nobody watches it
  srv.add_tool({.name = "u"}, noop());
  srv.notify_resource_updated("memo://a");
  auto frames = h.sink->wait_for(2);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].frame["method"], "notifications/tools/list_changed");
  EXPECT_EQ(frames[0].frame["params"]["_meta"][k_sub], 1);
  EXPECT_EQ(frames[1].frame["method"], "notifications/resources/updated");
  EXPECT_EQ(frames[1].frame["params"]["uri"], "memo://a");
  EXPECT_EQ(frames[1].frame["params"]["_meta"][k_sub], 2);
}

TEST_F(listen_test, client_cancel_ends_the_stream_silently) {
  harness h(srv);
  h.roundtrip(listen(1, {{"toolsListChanged", true}}));
  h.sink->clear();
  h.s.receive(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}})");
  srv.add_tool({.name = "u"}, noop());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(h.sink->frames().empty());
  EXPECT_EQ(h.s.in_flight(), 0u);
}

TEST_F(listen_test, server_stop_sends_cancelled_then_the_result_on_a_shared_channel) {
  harness h(srv);
  h.roundtrip(listen("s-3", json::object()));
  h.sink->clear();
  EXPECT_EQ(h.s.end_listens("the server is stopping"), 1u);
  auto frames = h.sink->frames();
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].frame["method"], "notifications/cancelled");
  EXPECT_EQ(frames[0].frame["params"]["requestId"], "s-3");
  EXPECT_EQ(frames[0].frame["params"]["_meta"][k_sub], "s-3");
  EXPECT_EQ(frames[1].frame["id"], "s-3");
  EXPECT_EQ(frames[1].frame["result"]["resultType"], "complete");
  EXPECT_EQ(frames[1].frame["result"]["_meta"][k_sub], "s-3");
  EXPECT_EQ(h.s.end_listens("again"), 0u);
}

TEST_F(listen_test, a_dedicated_reply_stream_gets_only_the_result) {
  harness h(srv);
  auto own = std::make_shared<collecting_sink>();
  h.s.receive(listen(4, {{"toolsListChanged", true}}), own);
  ASSERT_EQ(own->wait_for(1).size(), 1u);
  EXPECT_EQ(h.s.end_listens("the server is stopping"), 1u);
  auto frames = own->frames();
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[1].frame["id"], 4);
  EXPECT_TRUE(frames[1].frame.contains("result"));
  EXPECT_TRUE(h.sink->frames().empty());
}

TEST_F(listen_test, stopping_the_session_ends_listens_gracefully) {
  harness h(srv);
  h.roundtrip(listen(5, json::object()));
  h.sink->clear();
  h.s.shutdown(std::chrono::milliseconds(0), leftover_requests::answer_stopped);
  auto frames = h.sink->frames();
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[1].frame["id"], 5);
  EXPECT_FALSE(frames[1].frame.contains("error"));
}

TEST_F(listen_test, destroying_the_server_ends_every_listen) {
  auto sink = std::make_shared<collecting_sink>();
  {
    server s(opts());
    auto sess = s.open_session(sink, {.inline_dispatch = true});
    sess.receive(listen(1, json::object()));
    sess.receive(listen(2, json::object()));
  }
  auto frames = sink->frames();
  EXPECT_EQ(methods_of(frames, "notifications/cancelled").size(), 2u);
  int results = 0;
  for (const auto& f : frames) results += f.frame.contains("result") ? 1 : 0;
  EXPECT_EQ(results, 2);
}

TEST_F(listen_test, a_listen_after_the_server_stopped_ends_at_once) {
  auto sink = std::make_shared<collecting_sink>();
  std::optional<session> late;
  {
    server s(opts());
    late.emplace(s.open_session(sink, {.inline_dispatch = true}));
  }  // ~server: the engine stops, the session handle keeps it alive
  late->receive(listen(4, json::object()));
  auto frames = sink->frames();
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].frame["id"], 4);
  EXPECT_EQ(frames[0].frame["result"]["_meta"][k_sub], 4);
  EXPECT_EQ(late->in_flight(), 0u);
}

TEST_F(listen_test, bad_params_get_their_rows) {
  harness h(srv);
  auto error_of = [&](json params) {
    params["_meta"] = modern_meta();
    return h.roundtrip(json{
        {"jsonrpc", "2.0"},
        {"id", 9},
        {"method", "subscriptions/listen"},
        {"params", params}}.dump())["error"];
  };
  json e = error_of(json::object());
  EXPECT_EQ(e["code"], -32602);
  EXPECT_NE(e["message"].get<std::string>().find("needs params.notifications"), std::string::npos);
  e = error_of({{"notifications", "all"}});
  EXPECT_NE(e["message"].get<std::string>().find("got string"), std::string::npos);
  e = error_of({{"notifications", {{"toolsListChanged", "yes"}}}});
  EXPECT_EQ(e["data"]["field"], "toolsListChanged");
  e = error_of({{"notifications", {{"resourcesListChanged", nullptr}}}});
  EXPECT_EQ(e["data"]["field"], "resourcesListChanged");
  e = error_of({{"notifications", {{"resourceSubscriptions", "memo://a"}}}});
  EXPECT_NE(e["message"].get<std::string>().find("got string"), std::string::npos);
  e = error_of({{"notifications", {{"resourceSubscriptions", {"memo://a", 3}}}}});
  EXPECT_EQ(e["data"]["index"], 1);
  e = error_of({{"notifications", {{"resourceSubscriptions", {""}}}}});
  EXPECT_NE(e["message"].get<std::string>().find("empty string"), std::string::npos);
  EXPECT_EQ(h.s.in_flight(), 0u);
  EXPECT_EQ(h.s.end_listens("none"), 0u);
}

TEST_F(listen_test, limits_on_uris_and_listeners) {
  auto o = opts();
  o.max_listen_uris = 2;
  o.max_listeners = 1;
  server small(o);
  small.add_resource({.uri = "memo://a", .name = "a"}, text_reader());
  harness h(small);
  json e = h.roundtrip(listen(1, {{"resourceSubscriptions", {"a:1", "a:2", "a:3"}}}))["error"];
  EXPECT_EQ(e["code"], -32602);
  EXPECT_EQ(e["data"], json({{"count", 3}, {"limit", 2}}));
  h.roundtrip(listen(2, json::object()));
  e = h.roundtrip(listen(3, json::object()))["error"];
  EXPECT_EQ(e["code"], -32603);
  EXPECT_EQ(e["data"]["limit"], 1);
}

TEST_F(listen_test, legacy_session_gets_method_of_the_other_era) {
  harness h(srv);
  h.initialize();
  json e = h.roundtrip(request(1, "subscriptions/listen", {{"notifications", json::object()}}));
  EXPECT_EQ(e["error"]["code"], -32601);
}

// A sink that reports a large backlog until told otherwise: the client does not read.
class stalled_sink final : public frame_sink {
 public:
  void send(std::string frame, frame_kind) override {
    std::lock_guard lock(mutex_);
    frames_.push_back(json::parse(frame));
  }
  std::size_t queued_bytes() const override { return stalled_ ? std::size_t{1} << 30 : 0; }
  std::atomic<bool> stalled_{false};
  std::vector<json> frames() {
    std::lock_guard lock(mutex_);
    return frames_;
  }

 private:
  std::mutex mutex_;
  std::vector<json> frames_;
};

TEST_F(listen_test, a_stalled_listener_coalesces_then_overflows_and_ends) {
  auto o = opts();
  o.listener_queue = 4;
  server s(o);
  s.add_resource({.uri = "memo://a", .name = "a"}, text_reader());
  s.add_tool({.name = "t"}, noop());
  auto sink = std::make_shared<stalled_sink>();
  auto sess = s.open_session(sink, {.inline_dispatch = true});
  std::vector<std::string> uris;
  uris.reserve(8);
  for (int i = 0; i < 8; ++i) uris.push_back("memo://" + std::to_string(i));
  sess.receive(listen(1, {{"toolsListChanged", true}, {"resourceSubscriptions", uris}}));
  ASSERT_EQ(sink->frames().size(), 1u);
  settle();
  sink->stalled_ = true;
  // The same notification again and again coalesces: one entry each.
  for (int i = 0; i < 100; ++i) s.notify_resource_updated("memo://0");
  for (int i = 0; i < 100; ++i) s.add_tool({.name = "n" + std::to_string(i)}, noop());
  s.notify_resource_updated("memo://1");
  EXPECT_EQ(sink->frames().size(), 1u);
  EXPECT_EQ(sess.in_flight(), 0u);
  // Distinct ones fill the queue (4); the fifth ends the stream.
  s.notify_resource_updated("memo://2");
  s.notify_resource_updated("memo://3");
  auto frames = sink->frames();
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[1]["method"], "notifications/cancelled");
  EXPECT_NE(frames[1]["params"]["reason"].get<std::string>().find("did not read"),
            std::string::npos);
  EXPECT_EQ(frames[2]["id"], 1);
  s.notify_resource_updated("memo://0");
  EXPECT_EQ(sink->frames().size(), 3u);
}

TEST_F(listen_test, a_listener_that_catches_up_gets_the_coalesced_notifications) {
  server s(opts());
  s.add_tool({.name = "t"}, noop());
  auto sink = std::make_shared<stalled_sink>();
  auto sess = s.open_session(sink, {.inline_dispatch = true});
  sess.receive(listen(1, {{"toolsListChanged", true}}));
  sink->stalled_ = true;
  for (int i = 0; i < 50; ++i) s.add_tool({.name = "n" + std::to_string(i)}, noop());
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  EXPECT_EQ(sink->frames().size(), 1u);
  sink->stalled_ = false;
  for (int i = 0; i < 200 && sink->frames().size() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  auto frames = sink->frames();
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[1]["method"], "notifications/tools/list_changed");
}

TEST_F(listen_test, many_listeners_each_get_their_own_id) {
  harness h(srv);
  for (int i = 0; i < 200; ++i) h.s.receive(listen(100 + i, {{"promptsListChanged", true}}));
  h.sink->clear();
  srv.remove_prompt("p");
  auto frames = h.sink->wait_for(200);
  ASSERT_EQ(frames.size(), 200u);
  std::set<int> ids;
  for (const auto& f : frames) ids.insert(f.frame["params"]["_meta"][k_sub].get<int>());
  EXPECT_EQ(ids.size(), 200u);
  EXPECT_EQ(h.s.end_listens("done"), 200u);
}

TEST_F(listen_test, remove_functions_report_absence_and_announce_changes) {
  harness h(srv);
  h.roundtrip(listen(1, {{"resourcesListChanged", true}, {"promptsListChanged", true}}));
  settle();
  h.sink->clear();
  EXPECT_TRUE(srv.remove_resource("memo://a"));
  EXPECT_FALSE(srv.remove_resource("memo://a"));
  EXPECT_FALSE(srv.remove_prompt("nope"));
  EXPECT_TRUE(srv.remove_prompt("p"));
  auto frames = h.sink->wait_for(2);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].frame["method"], "notifications/resources/list_changed");
  EXPECT_EQ(frames[1].frame["method"], "notifications/prompts/list_changed");
}

TEST_F(listen_test, a_burst_of_registrations_is_coalesced) {
  harness legacy(srv);
  legacy.initialize();
  harness h(srv);
  h.roundtrip(listen(1, {{"toolsListChanged", true}}));
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  legacy.sink->clear();
  h.sink->clear();
  const auto began = std::chrono::steady_clock::now();
  for (int i = 0; i < 100; ++i) srv.add_tool({.name = "b" + std::to_string(i)}, noop());
  const auto burst = std::chrono::steady_clock::now() - began;
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  // At most two announcements per 20 ms window the burst spans (the leading one and one at the
  // window's end): one window on a quick machine, more under a sanitizer on a loaded one.
  const auto windows = static_cast<std::size_t>(burst / std::chrono::milliseconds(20)) + 1;
  const auto modern = h.sink->frames().size();
  const auto old = legacy.sink->frames().size();
  EXPECT_GE(modern, 1u);
  EXPECT_LE(modern, 2 * windows) << "burst took " << burst.count() << " ns";
  EXPECT_LT(modern, 100u) << "100 registrations must not mean 100 announcements";
  EXPECT_EQ(modern, old);
}

TEST_F(listen_test, legacy_sessions_get_list_changed_only_after_initialized) {
  harness h(srv);
  h.roundtrip(request(0, "initialize",
                      {{"protocolVersion", "2025-11-25"}, {"capabilities", json::object()}}));
  h.sink->clear();
  srv.add_tool({.name = "early"}, noop());
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(h.sink->frames().empty());
  h.s.receive(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  srv.remove_tool("early");
  EXPECT_EQ(h.sink->wait_for(1).size(), 1u);
}

TEST_F(listen_test, resource_updates_reach_legacy_subscribers_and_listeners) {
  harness legacy(srv);
  legacy.initialize();
  legacy.roundtrip(request(1, "resources/subscribe", {{"uri", "memo://a"}}));
  harness h(srv);
  h.roundtrip(listen(1, {{"resourceSubscriptions", {"memo://a"}}}));
  legacy.sink->clear();
  h.sink->clear();
  srv.notify_resource_updated("memo://a");
  auto old = legacy.sink->wait_for(1);
  auto modern = h.sink->wait_for(1);
  ASSERT_EQ(old.size(), 1u);
  ASSERT_EQ(modern.size(), 1u);
  EXPECT_EQ(old[0].frame["params"], json({{"uri", "memo://a"}}));
  EXPECT_EQ(modern[0].frame["params"]["uri"], "memo://a");
}

}  // namespace
}  // namespace mcpcxx::testing
