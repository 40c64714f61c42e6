// Test support for where handlers run: "hold" waits for "peer" to run, so the answer shows
// whether a second request was read and run while the first one was still running.
#pragma once

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "http/fixture.hpp"

namespace mcpcxx::http_test {

/// Shared state of the two tools.
struct hold_and_peer {
  std::atomic<bool> entered{false};
  std::atomic<bool> peer_ran{false};
};

/// Which tools declare tool_spec::inline_dispatch.
struct inline_tools {
  bool hold = false;
  bool peer = false;
};

/// Adds "hold" (waits up to `patience` for "peer"; answers "met" if it ran, else "alone") and
/// "peer".
inline void add_hold_and_peer(server& s, const std::shared_ptr<hold_and_peer>& st,
                              std::chrono::milliseconds patience, inline_tools declared = {}) {
  s.add_tool({.name = "hold", .inline_dispatch = declared.hold},
             [st, patience](const json&, request_context&) {
               st->entered = true;
               const auto until = std::chrono::steady_clock::now() + patience;
               while (!st->peer_ran && std::chrono::steady_clock::now() < until) {
                 std::this_thread::sleep_for(std::chrono::milliseconds(2));
               }
               return tool_result::text(st->peer_ran ? "met" : "alone");
             });
  s.add_tool({.name = "peer", .inline_dispatch = declared.peer},
             [st](const json&, request_context&) {
               st->peer_ran = true;
               return tool_result::text("peer");
             });
}

/// Calls "hold" on one connection and, once it runs, "peer" on another; returns hold's answer.
inline std::string hold_then_peer(http_fixture& f, const std::shared_ptr<hold_and_peer>& st) {
  auto held = std::async(std::launch::async, [&] {
    client a(f.port());
    auto call = modern_call(1, "hold");
    return a.post(call.body, call.headers).json_body();
  });
  EXPECT_TRUE(eventually([&] { return st->entered.load(); }));
  client b(f.port());
  auto call = modern_call(2, "peer");
  const reply peer = b.post(call.body, call.headers);
  EXPECT_EQ(peer.status, 200) << peer.body;
  EXPECT_EQ(peer.json_body()["result"]["content"][0]["text"], "peer") << peer.body;
  const json hold = held.get();
  return hold["result"]["content"][0]["text"].get<std::string>();
}

}  // namespace mcpcxx::http_test
