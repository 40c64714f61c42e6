// tool_spec::inline_dispatch over Streamable HTTP: the declared tool runs on the I/O thread, every
// other tool on the worker pool, in one server.
#include <future>
#include <string>

#include "http/fixture.hpp"
#include "http/hold_and_peer.hpp"

namespace mcpcxx::http_test {
namespace {

http_options one_io_thread() {
  http_options o;
  o.io_threads = 1;
  return o;
}

TEST(HttpInlineTool, AnInlineToolIsAnsweredWhileAPooledOneRuns) {
  http_fixture f(one_io_thread());
  auto st = std::make_shared<hold_and_peer>();
  add_hold_and_peer(*f.srv, st, std::chrono::seconds(20), {.hold = false, .peer = true});
  // "hold" occupies a pool worker; the one I/O thread is free to read and run "peer".
  EXPECT_EQ(hold_then_peer(f, st), "met");
}

TEST(HttpInlineTool, AnInlineToolHoldsItsIoThread) {
  http_fixture f(one_io_thread());
  auto st = std::make_shared<hold_and_peer>();
  add_hold_and_peer(*f.srv, st, std::chrono::milliseconds(300), {.hold = true, .peer = false});
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
