// Server-to-client requests over stdio (issue 12, legacy sessions): the request goes to stdout,
// the client's response comes back on stdin and reaches the waiting tool; cancelling the asking
// call sends notifications/cancelled for the pending request.
#include <future>

#include <gtest/gtest.h>

#include "mcpcxx/server.hpp"
#include "mcpcxx/stdio.hpp"

#include "stdio/stdio_test_support.hpp"

namespace mcpcxx {
namespace {

using stdio_test::line_source;
using stdio_test::pipe_fds;
using stdio_test::write_all;

class StdioClientRequests : public ::testing::Test {
 protected:
  void SetUp() override {
    server_options o;
    o.log_writer = [](std::string_view) {};
    srv_ = std::make_unique<server>(std::move(o));
    tool_spec t;
    t.name = "confirm";
    srv_->add_tool(std::move(t), [](const json&, request_context& ctx) {
      auto r =
          ctx.elicit("Deploy to production?", {{"type", "object"},
                                               {"properties", {{"confirm", {{"type", "boolean"}}}}},
                                               {"required", {"confirm"}}});
      return tool_result::text(r.action + " " + r.content.dump());
    });
    stdio_options so;
    so.protect_stdout = false;
    so.handle_signals = false;
    serving_ = std::async(std::launch::async,
                          [this, so] { return serve_fds(*srv_, in_.read, out_.write, so); });
    send(
        R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
        R"("capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}})");
    ASSERT_EQ(next().at("id"), 0);
    send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  }
  void TearDown() override {
    in_.close_write();
    EXPECT_EQ(serving_.get(), 0);
    out_.close_write();
  }
  void send(const std::string& line) { ASSERT_TRUE(write_all(in_.write, line + "\n")); }
  json next() {
    auto line = lines_.next();
    if (!line) throw std::runtime_error("no line from the server (EOF or hang guard)");
    return json::parse(*line);
  }

  pipe_fds in_;
  pipe_fds out_;
  line_source lines_{out_.read};
  std::unique_ptr<server> srv_;
  std::future<int> serving_;
};

TEST_F(StdioClientRequests, TheRequestGoesToStdoutAndTheAnswerComesBackOnStdin) {
  send(R"({"jsonrpc":"2.0","id":"call-1","method":"tools/call","params":{"name":"confirm"}})");
  const json req = next();
  ASSERT_EQ(req.at("method"), "elicitation/create") << req;
  EXPECT_EQ(req.at("params").at("message"), "Deploy to production?");
  send(json{{"jsonrpc", "2.0"},
            {"id", req.at("id")},
            {"result", {{"action", "accept"}, {"content", {{"confirm", true}}}}}}
           .dump());
  const json reply = next();
  EXPECT_EQ(reply.at("id"), "call-1");
  EXPECT_EQ(reply.at("result").at("content").at(0).at("text"), R"(accept {"confirm":true})");
}

TEST_F(StdioClientRequests, CancellingTheCallCancelsThePendingRequest) {
  send(R"({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"confirm"}})");
  const json req = next();
  ASSERT_EQ(req.at("method"), "elicitation/create") << req;
  send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}})");
  const json cancelled = next();
  EXPECT_EQ(cancelled.at("method"), "notifications/cancelled");
  EXPECT_EQ(cancelled.at("params").at("requestId"), req.at("id"));
  // The late answer is ignored, and the session goes on serving.
  send(json{{"jsonrpc", "2.0"}, {"id", req.at("id")}, {"result", {{"action", "decline"}}}}.dump());
  send(R"({"jsonrpc":"2.0","id":10,"method":"ping"})");
  const json pong = next();
  EXPECT_EQ(pong.at("id"), 10) << "no reply for the cancelled call 9";
}

}  // namespace
}  // namespace mcpcxx
