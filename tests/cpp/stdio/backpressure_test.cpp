// stdio back-pressure: a client that stops reading its replies makes the server stop reading
// requests (stdio_options::max_outbound_bytes), and serving resumes once the client reads again.
#include <atomic>
#include <future>
#include <thread>

#include <gtest/gtest.h>

#include "mcpcxx/server.hpp"
#include "mcpcxx/stdio.hpp"

#include "stdio/stdio_test_support.hpp"

namespace mcpcxx {
namespace {

using namespace std::chrono_literals;
using stdio_test::line_source;
using stdio_test::pipe_fds;
using stdio_test::write_all;

/// Waits until `value` stops changing for `quiet` (at most `limit`); returns the settled value.
std::size_t settled(const std::atomic<std::size_t>& value, std::chrono::milliseconds quiet,
                    std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  std::size_t last = value.load();
  auto since = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(10ms);
    const std::size_t now = value.load();
    if (now != last) {
      last = now;
      since = std::chrono::steady_clock::now();
    } else if (std::chrono::steady_clock::now() - since >= quiet) {
      break;
    }
  }
  return last;
}

TEST(Backpressure, AClientThatNeverReadsStopsTheServerReadingAndReadingResumes) {
  server_options so;
  so.log_writer = [](std::string_view) {};
  server srv(so);
  pipe_fds in;
  pipe_fds out;
  stdio_options o;
  o.protect_stdout = false;
  o.handle_signals = false;
  o.max_outbound_bytes = std::size_t{64} * 1024;
  auto serving =
      std::async(std::launch::async, [&] { return serve_fds(srv, in.read, out.write, o); });

  constexpr int k_requests = 20000;  // about 880 KB of requests and 800 KB of replies
  std::atomic<std::size_t> sent{0};
  std::thread client([&] {
    for (int id = 1; id <= k_requests; ++id) {
      const std::string line =
          R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"ping"})" + "\n";
      if (!write_all(in.write, line)) return;
      ++sent;
    }
  });
  // Nobody reads `out`: the server fills the pipe, queues up to the bound, then stops reading,
  // so the client's writes block well before all requests are sent.
  const std::size_t stalled_at = settled(sent, 300ms, 20s);
  EXPECT_LT(stalled_at, static_cast<std::size_t>(k_requests) / 2)
      << "the server kept reading although nobody read its replies";

  line_source replies(out.read);
  std::size_t got = 0;
  while (got < static_cast<std::size_t>(k_requests) && replies.next()) ++got;
  client.join();
  EXPECT_EQ(got, static_cast<std::size_t>(k_requests)) << "reading must resume as replies drain";
  in.close_write();
  EXPECT_EQ(serving.get(), 0);
}

}  // namespace
}  // namespace mcpcxx
