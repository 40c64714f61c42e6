// serve_stdio with protect_stdout, in a forked child whose fds 0/1/2 are pipes: stray printf,
// std::cout and write(1, ...) from a tool land on stderr, and fd 1 is restored afterwards.
#include <csignal>
#include <cstdio>
#include <iostream>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include "mcpcxx/server.hpp"
#include "mcpcxx/stdio.hpp"

#include "stdio/stdio_test_support.hpp"

namespace mcpcxx {
namespace {

using stdio_test::line_source;
using stdio_test::pipe_fds;
using stdio_test::write_all;

[[noreturn]] void run_child(pipe_fds& in, pipe_fds& out, pipe_fds& err) {
  ::dup2(in.read, 0);
  ::dup2(out.write, 1);
  ::dup2(err.write, 2);
  for (pipe_fds* p : {&in, &out, &err}) {  // stdin sees EOF only when no copy of in.write is left
    p->close_read();
    p->close_write();
  }
  server srv;
  tool_spec noisy;
  noisy.name = "noisy";
  srv.add_tool(noisy, [](const json&, request_context&) {
    std::printf("printf noise\n");
    std::cout << "cout noise" << std::endl;
    const char raw[] = "raw write noise\n";
    if (::write(1, raw, sizeof raw - 1) < 0) std::abort();
    return tool_result::text("quiet");
  });
  const int rc = serve_stdio(srv);
  std::printf("after serving\n");
  std::fflush(stdout);
  ::_exit(rc);
}

std::string read_all(int fd) {
  std::string all;
  char buf[4096];
  ssize_t n = 0;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) all.append(buf, static_cast<std::size_t>(n));
  return all;
}

TEST(ProtectStdout, StrayOutputGoesToStderrAndFd1IsRestored) {
  pipe_fds in;
  pipe_fds out;
  pipe_fds err;
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) run_child(in, out, err);
  in.close_read();
  out.close_write();
  err.close_write();
  ASSERT_TRUE(write_all(
      in.write,
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}})"
      "\n"
      R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
      "\n"
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"noisy","arguments":{}}})"
      "\n"));
  line_source lines(out.read);
  const auto first = lines.next();
  const auto second = lines.next();
  in.close_write();
  const auto third = lines.next();
  const auto fourth = lines.next();
  if (!fourth.has_value() && !third.has_value()) ::kill(pid, SIGKILL);  // hang guard hit
  const std::string errors = read_all(err.read);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(first && second) << "stderr: " << errors;
  EXPECT_EQ(json::parse(*first).at("id"), 1);
  const json call = json::parse(*second);  // throws if noise was mixed into the stream
  EXPECT_EQ(call.at("id"), 2);
  EXPECT_EQ(call.at("result").at("content").at(0).at("text"), "quiet");
  EXPECT_EQ(third, "after serving") << "fd 1 is the real stdout again after serving";
  EXPECT_FALSE(fourth.has_value());
  EXPECT_NE(errors.find("printf noise"), std::string::npos) << errors;
  EXPECT_NE(errors.find("cout noise"), std::string::npos) << errors;
  EXPECT_NE(errors.find("raw write noise"), std::string::npos) << errors;
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace mcpcxx
