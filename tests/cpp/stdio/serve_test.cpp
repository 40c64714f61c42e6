// serve_fds end to end with a real mcpcxx::server over pipes: exchange, bad lines, over-long
// lines, EOF draining and cancelling, EPIPE, concurrency, regular files, descriptor flags.
#include <atomic>
#include <future>
#include <mutex>
#include <set>
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

tool_spec spec(std::string name) {
  tool_spec t;
  t.name = std::move(name);
  return t;
}

/// A server with test tools served over two pipes on a background thread.
class Serve : public ::testing::Test {
 protected:
  void make_server(std::size_t max_message_bytes = std::size_t{4} * 1024u * 1024u) {
    server_options o;
    o.limits.max_message_bytes = max_message_bytes;
    o.log_writer = [this](std::string_view line) {
      std::lock_guard lock(log_mutex_);
      log_.emplace_back(line);
    };
    srv_ = std::make_unique<server>(std::move(o));
    srv_->add_tool(spec("echo"), [](const json& a, request_context&) {
      return tool_result::text(a.at("text").get<std::string>());
    });
    srv_->add_tool(spec("held"), [this](const json&, request_context& ctx) {
      started_.set_value();
      while (release_.wait_for(1ms) != std::future_status::ready) {
        if (ctx.cancelled()) {
          saw_cancel_ = true;
          return tool_result::text("cancelled");
        }
      }
      return tool_result::text("released");
    });
  }
  void start(stdio_options o = {}) {
    if (!srv_) make_server();
    o.protect_stdout = false;
    serving_ = std::async(std::launch::async,
                          [this, o] { return serve_fds(*srv_, in_.read, out_.write, o); });
  }
  void send(std::string_view line) { ASSERT_TRUE(write_all(in_.write, line)); }
  json reply() {
    const auto line = replies_.next();
    if (!line) throw std::runtime_error("no reply (EOF or hang guard)");
    return json::parse(*line);
  }
  void initialize() {
    send(
        R"({"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})"
        "\n");
    const json r = reply();
    ASSERT_EQ(r.at("id"), "init") << r;
    send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
         "\n");
  }
  /// Ends input, waits for serve_fds, then closes our write end so the reply stream hits EOF.
  int finish() {
    in_.close_write();
    const int rc = serving_.get();
    out_.close_write();
    return rc;
  }
  bool logged(std::string_view fragment) {
    std::lock_guard lock(log_mutex_);
    for (const auto& l : log_) {
      if (l.find(fragment) != std::string::npos) return true;
    }
    return false;
  }

  // Declared before srv_ so they outlive it: the server's threads (the deadline thread logging a
  // timeout after its reply went out) write here until ~server has joined them.
  std::mutex log_mutex_;
  std::vector<std::string> log_;
  pipe_fds in_;
  pipe_fds out_;
  line_source replies_{out_.read};
  std::unique_ptr<server> srv_;
  std::future<int> serving_;
  std::promise<void> started_;
  std::promise<void> release_promise_;
  std::shared_future<void> release_ = release_promise_.get_future().share();
  std::atomic<bool> saw_cancel_{false};
};

TEST_F(Serve, InitializeAndPing) {
  start();
  initialize();
  send(R"({"jsonrpc":"2.0","id":2,"method":"ping"})"
       "\n");
  const json pong = reply();
  EXPECT_EQ(pong, json::parse(R"({"jsonrpc":"2.0","id":2,"result":{}})"));
  EXPECT_EQ(finish(), 0);
  EXPECT_FALSE(replies_.next().has_value()) << "nothing but replies on the stream";
  EXPECT_EQ(replies_.rest(), "");
}

TEST_F(Serve, InitializeResultCarriesTheNegotiatedVersion) {
  start();
  send(
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}})"
      "\n");
  const json r = reply();
  EXPECT_EQ(r.at("result").at("protocolVersion"), "2025-06-18") << r;
  EXPECT_EQ(finish(), 0);
}

TEST_F(Serve, ParseErrorLineIsAnsweredAndReadingContinues) {
  start();
  send("{not json\n");
  send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":\"\xC0\xAF\"}\n");
  send(R"({"jsonrpc":"2.0","id":3,"method":"ping"})"
       "\n");
  const json e1 = reply();
  EXPECT_EQ(e1.at("error").at("code"), -32700) << e1;
  EXPECT_TRUE(e1.at("id").is_null());
  const json e2 = reply();
  EXPECT_EQ(e2.at("error").at("code"), -32700) << e2;
  EXPECT_NE(e2.at("error").at("message").get<std::string>().find("UTF-8"), std::string::npos);
  EXPECT_EQ(reply().at("id"), 3);
  EXPECT_EQ(finish(), 0);
}

TEST_F(Serve, NumberBeyondDoubleRangeIsAnsweredAndReadingContinues) {
  start();
  initialize();
  send(
      R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x","n":1e400}}})"
      "\n");
  send(R"({"jsonrpc":"2.0","id":8,"method":"ping"})"
       "\n");
  const json e = reply();
  // EXPECT, not ASSERT: finish() must run or the serving thread never sees EOF.
  EXPECT_TRUE(e.contains("error")) << "the 1e400 request must be answered first: " << e;
  const int code = e.value("error", json::object()).value("code", 0);
  EXPECT_TRUE(code == -32700 || code == -32600) << e;
  EXPECT_TRUE(e.at("id") == 7 || e.at("id").is_null()) << e;
  if (e.contains("error")) {
    EXPECT_EQ(reply().at("id"), 8);
  }
  EXPECT_EQ(finish(), 0);
}

TEST_F(Serve, OverlongLineIsRejectedWithoutStoppingTheStream) {
  make_server(512);
  start();
  const std::string huge = R"({"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":")" +
                           std::string(300000, 'x') + "\"}}\n";
  send(huge);
  send(R"({"jsonrpc":"2.0","id":10,"method":"ping"})"
       "\n");
  const json e = reply();
  EXPECT_EQ(e.at("error").at("code"), -32600) << e;
  EXPECT_TRUE(e.at("id").is_null());
  EXPECT_EQ(e.at("error").at("message"),
            "Invalid request: the message exceeds the maximum size of 512 bytes; send smaller "
            "messages.");
  EXPECT_EQ(reply().at("id"), 10);
  EXPECT_EQ(finish(), 0);
}

TEST_F(Serve, ModeratelyOversizedMessageIsAnsweredByTheCodecWithItsId) {
  make_server(256);
  start();
  send(R"({"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":")" + std::string(300, 'x') +
       "\"}}\n");
  send(R"({"jsonrpc":"2.0","id":10,"method":"ping"})"
       "\n");
  const json e = reply();
  EXPECT_EQ(e.at("error").at("code"), -32600) << e;
  EXPECT_EQ(e.at("id"), 9) << "within twice the limit the codec reads the id (P3)";
  EXPECT_NE(e.at("error").at("message").get<std::string>().find("exceeds the maximum size of 256"),
            std::string::npos)
      << e;
  EXPECT_EQ(reply().at("id"), 10);
  EXPECT_EQ(finish(), 0);
}

TEST_F(Serve, BlankLinesAndCrLfAreAccepted) {
  start();
  send("\r\n\n   \n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\n");
  EXPECT_EQ(reply().at("id"), 1);
  EXPECT_EQ(finish(), 0);
  EXPECT_FALSE(replies_.next().has_value()) << "blank lines get no reply";
}

TEST_F(Serve, LastLineWithoutNewlineIsServedAtEof) {
  start();
  send(R"({"jsonrpc":"2.0","id":"last","method":"ping"})");
  in_.close_write();
  EXPECT_EQ(reply().at("id"), "last");
  EXPECT_EQ(finish(), 0);
}

TEST_F(Serve, EofWaitsForAnInFlightRequest) {
  start();
  initialize();
  send(R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"held","arguments":{}}})"
       "\n");
  started_.get_future().wait();
  in_.close_write();  // EOF while the call is still running
  release_promise_.set_value();
  const json r = reply();
  EXPECT_EQ(r.at("id"), 5);
  EXPECT_EQ(r.at("result").at("content").at(0).at("text"), "released") << r;
  EXPECT_EQ(finish(), 0);
  EXPECT_FALSE(saw_cancel_);
}

TEST_F(Serve, EofCancelsRequestsStillRunningAfterTheGrace) {
  stdio_options o;
  o.drain_grace = 20ms;
  start(o);
  initialize();
  send(R"({"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"held","arguments":{}}})"
       "\n");
  started_.get_future().wait();
  EXPECT_EQ(finish(), 0);
  EXPECT_TRUE(saw_cancel_) << "the handler observed the cancellation";
  EXPECT_FALSE(replies_.next().has_value()) << "a cancelled request gets no reply";
  EXPECT_TRUE(logged("cancelling 1 request(s)"));
}

TEST_F(Serve, ClosedStdoutEndsServingWithoutACrash) {
  start();
  out_.close_read();
  send(R"({"jsonrpc":"2.0","id":1,"method":"ping"})"
       "\n");
  EXPECT_NE(serving_.get(), 0) << "EPIPE is an I/O failure";
  EXPECT_TRUE(logged("writing to stdout failed"));
}

TEST_F(Serve, ClosedStdoutCancelsInFlightRequests) {
  start();
  initialize();
  send(R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"held","arguments":{}}})"
       "\n");
  started_.get_future().wait();
  out_.close_read();
  send(R"({"jsonrpc":"2.0","id":8,"method":"ping"})"
       "\n");
  EXPECT_NE(serving_.get(), 0);
  EXPECT_TRUE(saw_cancel_);
}

TEST_F(Serve, ConcurrentRequestsGetWholeRepliesInAnyOrder) {
  start();
  initialize();
  constexpr int k_calls = 120;
  std::thread sender([&] {
    std::string burst;
    for (int i = 0; i < k_calls; ++i) {
      const std::string text(static_cast<std::size_t>((i * 7919) % 20000),
                             static_cast<char>('a' + i % 26));
      burst += json{{"jsonrpc", "2.0"},
                    {"id", i},
                    {"method", "tools/call"},
                    {"params", {{"name", "echo"}, {"arguments", {{"text", text}}}}}}
                   .dump() +
               "\n";
    }
    write_all(in_.write, burst);  // far more than a pipe holds: reads must run during writes
  });
  std::set<int> seen;
  for (int i = 0; i < k_calls; ++i) {
    const json r = reply();  // throws on a torn or interleaved line
    const int id = r.at("id");
    EXPECT_TRUE(seen.insert(id).second) << "duplicate reply " << id;
    const std::string text = r.at("result").at("content").at(0).at("text");
    EXPECT_EQ(text, std::string(static_cast<std::size_t>((id * 7919) % 20000),
                                static_cast<char>('a' + id % 26)));
  }
  sender.join();
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(k_calls));
  EXPECT_EQ(finish(), 0);
}

// inline_dispatch: handlers run on the reading thread, so replies come back in request order;
// large replies still fill the pipe (partial direct writes continue through the write queue).
TEST_F(Serve, InlineDispatchAnswersEveryRequestInOrderWithWholeReplies) {
  stdio_options o;
  o.inline_dispatch = true;
  start(o);
  initialize();
  constexpr int k_calls = 120;
  std::thread sender([&] {
    std::string burst;
    for (int i = 0; i < k_calls; ++i) {
      const std::string text(static_cast<std::size_t>((i * 7919) % 20000),
                             static_cast<char>('a' + i % 26));
      burst += json{{"jsonrpc", "2.0"},
                    {"id", i},
                    {"method", "tools/call"},
                    {"params", {{"name", "echo"}, {"arguments", {{"text", text}}}}}}
                   .dump() +
               "\n";
    }
    write_all(in_.write, burst);
  });
  for (int i = 0; i < k_calls; ++i) {
    const json r = reply();  // throws on a torn or interleaved line
    ASSERT_EQ(r.at("id"), i) << "replies out of request order";
    EXPECT_EQ(r.at("result").at("content").at(0).at("text").get<std::string>().size(),
              static_cast<std::size_t>((i * 7919) % 20000));
  }
  sender.join();
  EXPECT_EQ(finish(), 0);
}

// inline_dispatch with a handler that outlives its deadline: the timeout reply is written from
// the deadline thread while the reading (and only io) thread is still inside the handler.
TEST_F(Serve, InlineDispatchDeadlineAnswersWhileTheHandlerStillRuns) {
  make_server();
  tool_spec slow = spec("held_with_deadline");
  slow.timeout = 100ms;
  srv_->add_tool(slow, [this](const json&, request_context&) {
    release_.wait();  // ignores cancellation: only the test releases it
    return tool_result::text("late");
  });
  stdio_options o;
  o.inline_dispatch = true;
  start(o);
  initialize();
  send(
      R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}})"
      "\n"
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"held_with_deadline"}})"
      "\n");
  const json first = reply();
  EXPECT_EQ(first.at("id"), 1) << first;
  const json timed_out = reply();  // arrives although the handler has not returned
  EXPECT_EQ(timed_out.at("id"), 2) << timed_out;
  EXPECT_EQ(timed_out.at("result").at("isError"), true) << timed_out;
  EXPECT_EQ(timed_out.at("result").at("_meta").at("mcpcxx/error").at("category"), "timeout");
  release_promise_.set_value();
  EXPECT_EQ(finish(), 0);
}

TEST_F(Serve, DescriptorFlagsAreRestored) {
  const int in_flags = ::fcntl(in_.read, F_GETFL);
  const int out_flags = ::fcntl(out_.write, F_GETFL);
  start();
  send(R"({"jsonrpc":"2.0","id":1,"method":"ping"})"
       "\n");
  reply();
  in_.close_write();
  EXPECT_EQ(serving_.get(), 0);
  EXPECT_EQ(::fcntl(in_.read, F_GETFL), in_flags) << "O_NONBLOCK must not leak to the caller";
  EXPECT_EQ(::fcntl(out_.write, F_GETFL), out_flags);
  EXPECT_TRUE(write_all(out_.write, "x\n")) << "serve_fds never closes the caller's fds";
  EXPECT_EQ(replies_.next(), "x");
}

TEST(ServeFiles, RegularFilesAsInputAndOutput) {
  char in_path[] = "/tmp/mcpcxx_in_XXXXXX";
  char out_path[] = "/tmp/mcpcxx_out_XXXXXX";
  const int in_fd = ::mkstemp(in_path);
  const int out_fd = ::mkstemp(out_path);
  ASSERT_GE(in_fd, 0);
  ASSERT_GE(out_fd, 0);
  ::unlink(in_path);
  ::unlink(out_path);
  ASSERT_TRUE(write_all(in_fd, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\nnope\n"));
  ::lseek(in_fd, 0, SEEK_SET);
  server_options o;
  o.log_writer = [](std::string_view) {};
  server srv(o);
  stdio_options so;
  so.protect_stdout = false;
  EXPECT_EQ(serve_fds(srv, in_fd, out_fd, so), 0);
  ::lseek(out_fd, 0, SEEK_SET);
  line_source lines(out_fd);
  std::vector<json> got;
  while (auto l = lines.next()) got.push_back(json::parse(*l));
  ASSERT_EQ(got.size(), 2u);
  std::set<std::string> kinds;
  for (const auto& g : got) kinds.insert(g.contains("error") ? "error" : "result");
  EXPECT_EQ(kinds, (std::set<std::string>{"error", "result"}));
  ::close(in_fd);
  ::close(out_fd);
}

TEST(ServeFiles, ReadErrorEndsServingWithNonZero) {
  pipe_fds in;  // reading the write end fails with EBADF: an I/O failure, not EOF
  pipe_fds out;
  server_options o;
  std::mutex m;
  std::vector<std::string> log;
  o.log_writer = [&](std::string_view l) {
    std::lock_guard lock(m);
    log.emplace_back(l);
  };
  server srv(o);
  stdio_options so;
  so.protect_stdout = false;
  EXPECT_NE(serve_fds(srv, in.write, out.write, so), 0);
  std::lock_guard lock(m);
  ASSERT_FALSE(log.empty());
  EXPECT_NE(log.back().find("reading stdin failed"), std::string::npos) << log.back();
}

TEST(ServeFiles, UnusableDescriptorIsReportedNotThrown) {
  server_options o;
  std::vector<std::string> log;
  o.log_writer = [&](std::string_view l) { log.emplace_back(l); };
  server srv(o);
  stdio_options so;
  so.protect_stdout = false;
  EXPECT_NE(serve_fds(srv, 987654, 987655, so), 0);
  ASSERT_FALSE(log.empty());
  EXPECT_NE(log.back().find("stdio transport failed"), std::string::npos) << log.back();
}

}  // namespace
}  // namespace mcpcxx
