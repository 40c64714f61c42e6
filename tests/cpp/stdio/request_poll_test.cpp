// stdio_options::request_poll: after everything read was answered, the reading thread polls stdin
// for the next request before it sleeps. The replies are the same with polling off, at its
// default and at its cap; input ending during a poll ends serving as before; the poll is bounded
// and refused out of range.
#include <chrono>
#include <future>
#include <stdexcept>
#include <string>
#include <sys/resource.h>
#include <thread>

#include <gtest/gtest.h>

#include "mcpcxx/server.hpp"
#include "mcpcxx/stdio.hpp"

#include "core/cpu_relax.hpp"
#include "stdio/stdio_test_support.hpp"

namespace mcpcxx {
namespace {

using namespace std::chrono_literals;
using stdio_test::line_source;
using stdio_test::pipe_fds;
using stdio_test::write_all;

server_options quiet() {
  server_options o;
  o.log_writer = [](std::string_view) {};
  return o;
}

/// A server with one echo tool served over two pipes on a background thread.
class poll_server {
 public:
  void start(stdio_options o) {
    tool_spec echo;
    echo.name = "echo";
    srv_.add_tool(echo, [](const json& a, request_context&) {
      return tool_result::text(a.at("text").get<std::string>());
    });
    o.protect_stdout = false;
    serving_ = std::async(std::launch::async,
                          [this, o] { return serve_fds(srv_, in_.read, out_.write, o); });
    send(R"({"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":)"
         R"("2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})"
         "\n");
    ASSERT_EQ(reply().at("id"), "init");
    send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
         "\n");
  }
  void send(std::string_view line) { ASSERT_TRUE(write_all(in_.write, line)); }
  json reply() {
    const auto line = replies_.next();
    if (!line) throw std::runtime_error("no reply (EOF or hang guard)");
    return json::parse(*line);
  }
  /// One echo call, answered before the next is sent (the sequential client the poll is for).
  void call(int id) {
    send(json{{"jsonrpc", "2.0"},
              {"id", id},
              {"method", "tools/call"},
              {"params", {{"name", "echo"}, {"arguments", {{"text", std::to_string(id)}}}}}}
             .dump() +
         "\n");
    const json r = reply();
    ASSERT_EQ(r.at("id"), id) << r;
    EXPECT_EQ(r.at("result").at("content").at(0).at("text"), std::to_string(id)) << r;
  }
  int finish() {
    in_.close_write();
    const int rc = serving_.get();
    out_.close_write();
    return rc;
  }

 private:
  server srv_{quiet()};
  pipe_fds in_;
  pipe_fds out_;
  line_source replies_{out_.read};
  std::future<int> serving_;
};

// This process's CPU time, all threads.
std::chrono::microseconds process_cpu() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return std::chrono::seconds(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         std::chrono::microseconds(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

TEST(RequestPoll, OutOfRangeIsRefusedBeforeServing) {
  server srv;
  pipe_fds in;
  pipe_fds out;
  ASSERT_TRUE(write_all(in.write, "untouched\n"));
  for (const auto poll : {std::chrono::microseconds(-1), k_max_request_poll + 1us}) {
    stdio_options o;
    o.protect_stdout = false;
    o.request_poll = poll;
    try {
      serve_fds(srv, in.read, out.write, o);
      ADD_FAILURE() << "request_poll " << poll.count() << " us was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("between 0 and 10 ms"), std::string::npos) << e.what();
    }
  }
  line_source unread(in.read);
  EXPECT_EQ(unread.next(), "untouched") << "a refused serve must not read the input";
}

// Whatever the poll, and whichever thread answers: every sequential call and every call of a
// burst gets its own whole reply, and EOF arriving during a poll ends serving with 0.
TEST(RequestPoll, CallsAreAnsweredWithPollingOffDefaultAndAtItsCap) {
  for (const auto poll : {0us, 50us, k_max_request_poll}) {
    for (const bool inline_dispatch : {false, true}) {
      SCOPED_TRACE("request_poll " + std::to_string(poll.count()) + " us, inline_dispatch " +
                   std::to_string(inline_dispatch));
      poll_server run;
      stdio_options o;
      o.request_poll = poll;
      o.inline_dispatch = inline_dispatch;
      run.start(o);
      for (int id = 1; id <= 30; ++id) run.call(id);
      std::string burst;
      for (int id = 100; id < 140; ++id) {
        burst += json{{"jsonrpc", "2.0"}, {"id", id}, {"method", "ping"}}.dump() + "\n";
      }
      run.send(burst);
      for (int i = 0; i < 40; ++i) EXPECT_TRUE(run.reply().contains("result"));
      run.call(7);  // the poll after the burst's replies finds this one
      EXPECT_EQ(run.finish(), 0) << "EOF during the poll must end serving cleanly";
    }
  }
}

// A poll lasts at most request_poll after each answered read: five calls 100 ms apart with the
// 10 ms cap cost about 50 ms of CPU more than with polling off, not the 500 ms of polling
// throughout. The lower bound shows the poll happens at all.
TEST(RequestPoll, ThePollAfterAReplyIsBounded) {
  if (detail::spare_cpus() == 0) GTEST_SKIP() << "one CPU: the reader never polls";
  const auto idle_spells_cpu = [](std::chrono::microseconds poll) {
    poll_server run;
    stdio_options o;
    o.request_poll = poll;
    o.inline_dispatch = true;
    run.start(o);
    const auto before = process_cpu();
    for (int id = 1; id <= 5; ++id) {
      run.call(id);
      std::this_thread::sleep_for(100ms);
    }
    const auto used = process_cpu() - before;
    EXPECT_EQ(run.finish(), 0);
    return used;
  };
  const auto off = idle_spells_cpu(0us);
  const auto capped = idle_spells_cpu(k_max_request_poll);
  EXPECT_GE(capped - off, 15ms) << "no poll seen after the replies (off " << off.count()
                                << " us, capped " << capped.count() << " us)";
  EXPECT_LE(capped, 250ms) << "the poll outlived its bound";
}

}  // namespace
}  // namespace mcpcxx
