// server_log::hold_lines: the default writer's lines of one thread gather until released, then
// leave in order; other threads and configured writers are never held; a large batch is written
// before it grows without bound.
#include <fcntl.h>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>

#include "observability/server_log.hpp"

namespace mcpcxx::detail {
namespace {

// Points stderr at a non-blocking pipe for the test's lifetime; `drain` reads what arrived.
class captured_stderr : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::pipe(fds_), 0);
    ASSERT_EQ(::fcntl(fds_[0], F_SETFL, O_NONBLOCK), 0);
    ASSERT_EQ(::fcntl(fds_[1], F_SETPIPE_SZ, 1 << 20) > 0, true);
    saved_ = ::dup(STDERR_FILENO);
    ASSERT_GE(saved_, 0);
    ASSERT_GE(::dup2(fds_[1], STDERR_FILENO), 0);
  }
  void TearDown() override {
    server_log::release_held_lines();
    ::dup2(saved_, STDERR_FILENO);
    ::close(saved_);
    ::close(fds_[0]);
    ::close(fds_[1]);
  }
  std::string drain() {
    std::string out;
    char buf[65536];
    for (;;) {
      const ssize_t n = ::read(fds_[0], buf, sizeof buf);
      if (n <= 0) return out;
      out.append(buf, static_cast<std::size_t>(n));
    }
  }
  int fds_[2] = {-1, -1};
  int saved_ = -1;
};

std::vector<std::string> events(const std::string& text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  for (std::size_t nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1) {
    out.push_back(json::parse(text.substr(at, nl - at)).at("event").get<std::string>());
  }
  EXPECT_EQ(at, text.size()) << "a line without its newline";
  return out;
}

TEST_F(captured_stderr, HeldLinesLeaveTogetherInOrderOnRelease) {
  server_log log(nullptr);
  log.write("info", "before", json::object());
  EXPECT_EQ(events(drain()), std::vector<std::string>{"before"});
  server_log::hold_lines();
  log.write("info", "one", json::object());
  log.write("error", "two", {{"detail", "a\nb"}});
  EXPECT_EQ(drain(), "") << "a held line was written before the release";
  server_log::release_held_lines();
  EXPECT_EQ(events(drain()), (std::vector<std::string>{"one", "two"}));
  log.write("info", "after", json::object());
  EXPECT_EQ(events(drain()), std::vector<std::string>{"after"});
}

TEST_F(captured_stderr, OtherThreadsAreNotHeld) {
  server_log log(nullptr);
  server_log::hold_lines();
  std::thread([&] { log.write("info", "elsewhere", json::object()); }).join();
  EXPECT_EQ(events(drain()), std::vector<std::string>{"elsewhere"});
  log.write("info", "here", json::object());
  EXPECT_EQ(drain(), "");
  server_log::release_held_lines();
  EXPECT_EQ(events(drain()), std::vector<std::string>{"here"});
}

TEST_F(captured_stderr, AConfiguredWriterIsNeverHeld) {
  std::vector<std::string> lines;
  server_log log([&](std::string_view l) { lines.emplace_back(l); });
  server_log::hold_lines();
  log.write("info", "direct", json::object());
  EXPECT_EQ(lines.size(), 1u);
  server_log::release_held_lines();
  EXPECT_EQ(drain(), "");
}

TEST_F(captured_stderr, ABigHeldBatchIsWrittenBeforeTheRelease) {
  server_log log(nullptr);
  server_log::hold_lines();
  const std::string filler(1000, 'x');
  for (int i = 0; i < 100; ++i) log.write("info", "big", {{"filler", filler}});
  const std::string early = drain();
  EXPECT_GE(early.size(), std::size_t{64} * 1024) << "100 KB were held in memory";
  server_log::release_held_lines();
  const std::string all = early + drain();
  EXPECT_EQ(events(all).size(), 100u);
}

}  // namespace
}  // namespace mcpcxx::detail
