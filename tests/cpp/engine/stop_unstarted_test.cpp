// A stop never starts a request it answered (issue 27): requests still queued for a worker when
// session::shutdown begins are answered at once with P27a (never started, nothing applied) and
// their handlers never run; those running when the grace ends get P27 (outcome unknown). Every
// request is answered exactly once, in both eras.
#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/collecting_sink.hpp"

namespace mcpcxx::testing {
namespace {

using namespace std::chrono_literals;

/// A tool that records which calls started and blocks until the test opens the gate.
struct recording_tool {
  std::mutex mutex;
  std::vector<int> started;
  std::promise<void> gate;
  std::shared_future<void> opened = gate.get_future().share();
  void add_to(server& srv) {
    srv.add_tool({.name = "apply"}, [this](const json& args, request_context&) {
      {
        std::lock_guard lock(mutex);
        started.push_back(args.value("n", 0));
      }
      opened.wait_for(30s);
      return tool_result::text("applied");
    });
  }
  std::vector<int> starts() {
    std::lock_guard lock(mutex);
    return started;
  }
};

server_options two_workers_no_growth() {
  server_options o;
  o.worker_threads = 2;
  o.max_worker_threads = 2;  // so that calls wait in the queue, as on a saturated server
  return o;
}

void run_stop(bool modern) {
  server srv(two_workers_no_growth());
  recording_tool tool;
  tool.add_to(srv);
  harness h(srv, false);
  if (!modern) h.initialize();
  const std::size_t before = h.sink->frames().size();
  for (int id = 1; id <= 6; ++id) {
    json p = {{"name", "apply"}, {"arguments", {{"n", id}}}};
    h.s.receive(modern ? modern_request(id, "tools/call", p) : request(id, "tools/call", p));
  }
  const auto until = std::chrono::steady_clock::now() + 10s;
  while (tool.starts().size() < 2 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(2ms);
  }
  ASSERT_EQ(tool.starts().size(), 2u);
  const auto stop_began = std::chrono::steady_clock::now();
  std::thread stopper([&] { h.s.shutdown(300ms, leftover_requests::answer_stopped); });
  // The four queued calls are refused at once, well before the grace ends.
  auto frames = h.sink->wait_for(before + 4);
  const auto refused_after = std::chrono::steady_clock::now() - stop_began;
  ASSERT_GE(frames.size(), before + 4);
  EXPECT_LT(refused_after, 300ms);
  stopper.join();
  tool.gate.set_value();
  std::this_thread::sleep_for(100ms);  // a wrongly queued handler would start now
  frames = h.sink->frames();
  std::map<int, json> errors;
  for (std::size_t i = before; i < frames.size(); ++i) {
    const json& f = frames[i].frame;
    ASSERT_TRUE(f.contains("error")) << f.dump();
    ASSERT_TRUE(errors.emplace(f["id"].get<int>(), f["error"]).second) << "answered twice: " << f;
  }
  ASSERT_EQ(errors.size(), 6u);
  const auto starts = tool.starts();
  ASSERT_EQ(starts.size(), 2u) << "a refused request's handler ran";
  for (const auto& [id, error] : errors) {
    const bool ran = std::find(starts.begin(), starts.end(), id) != starts.end();
    EXPECT_EQ(error["code"], -32603);
    if (ran) {
      EXPECT_EQ(error["data"]["effect"], "unknown");
      EXPECT_EQ(error["data"]["graceMs"], 300);
      EXPECT_NE(error["message"].get<std::string>().find("check whether it took effect"),
                std::string::npos);
    } else {
      EXPECT_EQ(error["data"]["effect"], "not_applied");
      EXPECT_EQ(error["data"]["started"], false);
      EXPECT_NE(error["message"].get<std::string>().find("never started"), std::string::npos);
    }
  }
}

TEST(stop_unstarted_test, queued_calls_are_refused_at_once_and_never_start_modern) {
  run_stop(true);
}

TEST(stop_unstarted_test, queued_calls_are_refused_at_once_and_never_start_legacy) {
  run_stop(false);
}

TEST(stop_unstarted_test, a_silent_stop_never_starts_queued_calls_either) {
  server srv(two_workers_no_growth());
  recording_tool tool;
  tool.add_to(srv);
  harness h(srv, false);
  for (int id = 1; id <= 5; ++id) {
    h.s.receive(modern_request(id, "tools/call", {{"name", "apply"}, {"arguments", {{"n", id}}}}));
  }
  const auto until = std::chrono::steady_clock::now() + 10s;
  while (tool.starts().size() < 2 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(2ms);
  }
  std::thread stopper([&] { h.s.shutdown(50ms); });  // the client went away: no replies
  stopper.join();
  tool.gate.set_value();
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(tool.starts().size(), 2u);
  EXPECT_TRUE(h.sink->frames().empty());
}

}  // namespace
}  // namespace mcpcxx::testing
