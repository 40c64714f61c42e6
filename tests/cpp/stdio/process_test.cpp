// The example server as a child process over real pipes: SIGTERM/SIGINT drain (in-flight calls
// finish within the grace, the rest get P27, exit 0) and EPIPE on stdout (no SIGPIPE death, one
// log line). Each test is bounded by the line reader's hang guard and a wait limit.
#include <csignal>
#include <cstring>
#include <poll.h>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>

#include "mcpcxx/json.hpp"

#include "stdio/stdio_test_support.hpp"

extern char** environ;

namespace mcpcxx {
namespace {

using namespace std::chrono_literals;
using stdio_test::line_source;
using stdio_test::pipe_fds;
using stdio_test::write_all;

/// The example server with its stdin, stdout and stderr on pipes.
class child_server {
 public:
  explicit child_server(const std::vector<std::string>& env_extra) {
    std::signal(SIGPIPE, SIG_IGN);  // writing to a child that exited must fail, not kill us
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in_.read, 0);
    posix_spawn_file_actions_adddup2(&fa, out_.write, 1);
    posix_spawn_file_actions_adddup2(&fa, err_.write, 2);
    std::vector<std::string> env_strings = env_extra;
    for (char** e = environ; *e != nullptr; ++e) env_strings.emplace_back(*e);
    std::vector<char*> env;
    env.reserve(env_strings.size() + 1);
    for (auto& s : env_strings) env.push_back(s.data());
    env.push_back(nullptr);
    std::string path = MCPCXX_EXAMPLE_SERVER;
    char* argv[] = {path.data(), nullptr};
    const int rc = posix_spawn(&pid_, path.c_str(), &fa, nullptr, argv, env.data());
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) throw std::runtime_error("cannot start the example server");
    in_.close_read();
    out_.close_write();
    err_.close_write();
  }
  ~child_server() {
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  child_server(const child_server&) = delete;
  child_server& operator=(const child_server&) = delete;

  /// False once the child stopped reading (EPIPE; SIGPIPE is ignored in this process).
  bool send(const json& msg) { return write_all(in_.write, msg.dump() + "\n"); }
  json reply() {
    auto line = replies_.next();
    if (!line) throw std::runtime_error("no reply (EOF or hang guard)");
    return json::parse(*line);
  }
  bool at_eof() { return !replies_.next().has_value(); }
  void signal(int signo) const { ::kill(pid_, signo); }
  void close_stdout_reader() { out_.close_read(); }
  /// Waits up to 20 s for the child; returns its wait status (-1 on timeout).
  int wait_exit() {
    for (int i = 0; i < 2000; ++i) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        reaped_ = true;
        return status;
      }
      std::this_thread::sleep_for(10ms);
    }
    return -1;
  }
  /// Everything the child wrote to stderr (call after it exited).
  std::string stderr_text() {
    std::string text;
    char chunk[4096];
    for (;;) {
      const ssize_t n = ::read(err_.read, chunk, sizeof chunk);
      if (n <= 0) return text;
      text.append(chunk, static_cast<std::size_t>(n));
    }
  }
  void initialize() {
    ASSERT_TRUE(send({{"jsonrpc", "2.0"},
                      {"id", 0},
                      {"method", "initialize"},
                      {"params",
                       {{"protocolVersion", "2025-11-25"},
                        {"capabilities", json::object()},
                        {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}}));
    ASSERT_EQ(reply().at("id"), 0);
    ASSERT_TRUE(send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}));
  }
  bool call_sleep(int id, int ms) {
    return send({{"jsonrpc", "2.0"},
                 {"id", id},
                 {"method", "tools/call"},
                 {"params", {{"name", "sleep"}, {"arguments", {{"ms", ms}}}}}});
  }

 private:
  pipe_fds in_;
  pipe_fds out_;
  pipe_fds err_;
  line_source replies_{out_.read};
  pid_t pid_ = -1;
  bool reaped_ = false;
};

std::size_t count_of(const std::string& text, const std::string& fragment) {
  std::size_t n = 0;
  for (auto at = text.find(fragment); at != std::string::npos; at = text.find(fragment, at + 1))
    ++n;
  return n;
}

void expect_drain_on(int signo) {
  child_server child({"MCPCXX_DRAIN_GRACE_MS=1500"});
  child.initialize();
  ASSERT_TRUE(child.call_sleep(1, 300));    // finishes within the grace
  ASSERT_TRUE(child.call_sleep(2, 60000));  // still running when the grace ends
  std::this_thread::sleep_for(100ms);
  child.signal(signo);
  std::this_thread::sleep_for(100ms);
  (void)child.call_sleep(3, 1);  // after the signal: not read any more
  json first = child.reply();
  json second = child.reply();
  if (first.at("id") == 2) std::swap(first, second);
  EXPECT_EQ(first.at("id"), 1);
  EXPECT_EQ(first["result"]["content"][0]["text"], "slept") << first;
  EXPECT_EQ(second.at("id"), 2);
  EXPECT_EQ(second["error"]["code"], -32603) << second;
  EXPECT_EQ(second["error"]["data"]["graceMs"], 1500) << second;
  EXPECT_NE(second["error"]["message"].get<std::string>().find("shutting down"), std::string::npos);
  EXPECT_TRUE(child.at_eof()) << "request 3 arrived after the signal and must not be served";
  const int status = child.wait_exit();
  ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_NE(child.stderr_text().find("received: stopped reading stdin"), std::string::npos);
}

TEST(StdioProcess, SigtermDrainsInFlightCallsAnswersTheRestAndExitsZero) {
  expect_drain_on(SIGTERM);
}

TEST(StdioProcess, SigintDrainsLikeSigterm) { expect_drain_on(SIGINT); }

TEST(StdioProcess, SigtermWhenIdleExitsZeroAtOnce) {
  child_server child({});
  child.initialize();
  child.signal(SIGTERM);
  EXPECT_TRUE(child.at_eof());
  const int status = child.wait_exit();
  ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(StdioProcess, ClosedStdoutEndsWithoutSigpipeAndIsLoggedOnce) {
  child_server child({});
  child.initialize();
  child.close_stdout_reader();
  for (int id = 1; id <= 50; ++id) {
    if (!child.send({{"jsonrpc", "2.0"}, {"id", id}, {"method", "ping"}})) break;
  }
  const int status = child.wait_exit();
  ASSERT_NE(status, -1) << "the server did not end after EPIPE";
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 1) << "EPIPE is an I/O failure";
  EXPECT_EQ(count_of(child.stderr_text(), "writing to stdout failed"), 1u);
}

}  // namespace
}  // namespace mcpcxx
