// tool_spec::inline_dispatch over Streamable HTTP: the declared tool runs on the I/O thread, every
// other tool on the worker pool, in one server.
#include <future>
#include <string>

#include "http/fixture.hpp"

namespace mcpcxx::http_test {
namespace {

// "hold" waits (up to `patience`) for "peer" to run; it answers "met" if it did, else "alone".
struct meeting {
  std::atomic<bool> entered{false};
  std::atomic<bool> peer_ran{false};
};

void add_meeting(server& s, const std::shared_ptr<meeting>& st, bool hold_inline, bool peer_inline,
                 std::chrono::milliseconds patience) {
  s.add_tool({.name = "hold", .inline_dispatch = hold_inline},
             [st, patience](const json&, request_context&) {
               st->entered = true;
               const auto until = std::chrono::steady_clock::now() + patience;
               while (!st->peer_ran && std::chrono::steady_clock::now() < until) {
                 std::this_thread::sleep_for(std::chrono::milliseconds(2));
               }
               return tool_result::text(st->peer_ran ? "met" : "alone");
             });
  s.add_tool({.name = "peer", .inline_dispatch = peer_inline}, [st](const json&, request_context&) {
    st->peer_ran = true;
    return tool_result::text("peer");
  });
}

// Calls "hold" on one connection and, once it runs, "peer" on another; returns hold's answer.
std::string hold_then_peer(http_fixture& f, const std::shared_ptr<meeting>& st) {
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

http_options one_io_thread() {
  http_options o;
  o.io_threads = 1;
  return o;
}

TEST(HttpInlineTool, AnInlineToolIsAnsweredWhileAPooledOneRuns) {
  http_fixture f(one_io_thread());
  auto st = std::make_shared<meeting>();
  add_meeting(*f.srv, st, /*hold_inline=*/false, /*peer_inline=*/true, std::chrono::seconds(20));
  // "hold" occupies a pool worker; the one I/O thread is free to read and run "peer".
  EXPECT_EQ(hold_then_peer(f, st), "met");
}

TEST(HttpInlineTool, AnInlineToolHoldsItsIoThread) {
  http_fixture f(one_io_thread());
  auto st = std::make_shared<meeting>();
  add_meeting(*f.srv, st, /*hold_inline=*/true, /*peer_inline=*/false,
              std::chrono::milliseconds(300));
  // The only I/O thread is inside "hold": "peer" is read only once "hold" returned. This is the
  // cost the declaration accepts, and why only a tool that never blocks may make it.
  EXPECT_EQ(hold_then_peer(f, st), "alone");
}

TEST(HttpInlineTool, LegacyAndModernCallsAreAnsweredOnManyConnections) {
  http_fixture f;
  f.srv->add_tool({.name = "fast_echo", .inline_dispatch = true},
                  [](const json& a, request_context&) {
                    return tool_result::text(a.value("text", std::string()));
                  });
  std::vector<std::future<int>> clients;
  clients.reserve(8);
  for (int c = 0; c < 8; ++c) {
    clients.push_back(std::async(std::launch::async, [&f, c] {
      client k(f.port());
      const bool legacy = c % 2 == 0;
      const std::string sid = legacy ? open_legacy_session(k) : std::string();
      int ok = 0;
      for (int i = 0; i < 25; ++i) {
        const std::string text = std::to_string(c) + ":" + std::to_string(i);
        reply r;
        if (legacy) {
          r = k.post(legacy_call(i + 2, "fast_echo", {{"text", text}}), legacy_headers(sid));
        } else {
          auto call = modern_call(i, "fast_echo", {{"text", text}});
          r = k.post(call.body, call.headers);
        }
        if (r.status == 200 && r.json_body()["result"]["content"][0]["text"] == text) ++ok;
      }
      return ok;
    }));
  }
  for (auto& c : clients) EXPECT_EQ(c.get(), 25);
}

}  // namespace
}  // namespace mcpcxx::http_test
