// frame_writer: ordered, newline-terminated, never interleaved; EPIPE ends it without a crash.
#include <cerrno>
#include <cstdlib>
#include <future>
#include <map>
#include <thread>
#include <vector>

#include <asio/error.hpp>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "stdio/stdio_test_support.hpp"
#include "transport/stdio_fds.hpp"
#include "transport/stdio_writer.hpp"

namespace mcpcxx::stdio_detail {
namespace {

using stdio_test::background_io;
using stdio_test::line_source;
using stdio_test::pipe_fds;
using namespace std::chrono_literals;

TEST(Writer, WritesFramesInOrderEachOnItsOwnLine) {
  pipe_fds p;
  background_io bg;
  auto w = std::make_shared<frame_writer>(bg.io(), p.write);
  w->send(R"({"a":1})");
  w->send(R"({"b":2})");
  w->send("");
  w->send(R"({"c":3})");
  ASSERT_TRUE(w->flush(60s));
  EXPECT_EQ(w->frames_written(), 4u);
  line_source lines(p.read);
  EXPECT_EQ(lines.next(), R"({"a":1})");
  EXPECT_EQ(lines.next(), R"({"b":2})");
  EXPECT_EQ(lines.next(), "");
  EXPECT_EQ(lines.next(), R"({"c":3})");
  bg.stop();
  w->release();
}

TEST(Writer, NeverClosesTheCallersDescriptor) {
  pipe_fds p;
  {
    background_io bg;
    auto w = std::make_shared<frame_writer>(bg.io(), p.write);
    bg.stop();
    w->release();
  }
  EXPECT_TRUE(stdio_test::write_all(p.write, "still open\n"));
  line_source lines(p.read);
  EXPECT_EQ(lines.next(), "still open");
}

TEST(Writer, RawNewlinesInsideAFrameCannotSplitIt) {
  pipe_fds p;
  background_io bg;
  auto w = std::make_shared<frame_writer>(bg.io(), p.write);
  w->send("{\"a\":\n1}");
  ASSERT_TRUE(w->flush(60s));
  line_source lines(p.read);
  EXPECT_EQ(lines.next(), "{\"a\": 1}");
  bg.stop();
  w->release();
}

TEST(Writer, ConcurrentSendersNeverInterleave) {
  pipe_fds p;
  background_io bg;
  auto w = std::make_shared<frame_writer>(bg.io(), p.write);
  constexpr int k_threads = 6;
  constexpr int k_frames = 100;
  std::thread drain([&] {
    line_source lines(p.read);
    std::map<int, int> next_seq;
    for (int i = 0; i < k_threads * k_frames; ++i) {
      const auto line = lines.next();
      ASSERT_TRUE(line.has_value()) << "frame " << i << " missing";
      const auto v = nlohmann::json::parse(*line);  // throws (fails the test) when torn
      const int t = v.at("t");
      EXPECT_EQ(v.at("seq").get<int>(), next_seq[t]++) << "per-sender order";
      EXPECT_EQ(v.at("pad").get<std::string>().size(), static_cast<std::size_t>(v.at("len")));
    }
  });
  std::vector<std::thread> senders;
  senders.reserve(k_threads);
  for (int t = 0; t < k_threads; ++t) {
    senders.emplace_back([&, t] {
      for (int i = 0; i < k_frames; ++i) {
        const std::size_t len = static_cast<std::size_t>((i * 7919 + t * 104729) % 9000);
        w->send(nlohmann::json{{"t", t}, {"seq", i}, {"len", len}, {"pad", std::string(len, 'p')}}
                    .dump());
      }
    });
  }
  for (auto& s : senders) s.join();
  EXPECT_TRUE(w->flush(60s));
  drain.join();
  bg.stop();
  w->release();
}

TEST(Writer, ClosedReaderEndsWritingWithEpipe) {
  ignore_sigpipe();
  pipe_fds p;
  background_io bg;
  auto w = std::make_shared<frame_writer>(bg.io(), p.write);
  std::promise<std::error_code> failed;
  w->on_failure([&](const std::error_code& ec) { failed.set_value(ec); });
  p.close_read();
  w->send(R"({"x":1})");
  auto f = failed.get_future();
  ASSERT_EQ(f.wait_for(60s), std::future_status::ready);
  EXPECT_EQ(f.get(), std::error_code(asio::error::broken_pipe));
  EXPECT_EQ(w->error(), std::error_code(asio::error::broken_pipe));
  EXPECT_FALSE(w->flush(60s));
  w->send("dropped");  // after a failure frames are dropped, never queued or written
  EXPECT_EQ(w->frames_written(), 0u);
  bg.stop();
  w->release();
}

TEST(Writer, SendAfterReleaseIsDropped) {
  pipe_fds p;
  auto bg = std::make_unique<background_io>();
  auto w = std::make_shared<frame_writer>(bg->io(), p.write);
  bg->stop();
  w->release();
  bg.reset();  // the io_context is gone; a late engine thread may still call send()
  w->send(R"({"late":true})");
  EXPECT_EQ(w->frames_written(), 0u);
}

TEST(Writer, WritesToARegularFile) {
  char path[] = "/tmp/mcpcxx_writer_XXXXXX";
  const int fd = ::mkstemp(path);
  ASSERT_GE(fd, 0);
  ::unlink(path);
  {
    background_io bg;
    auto w = std::make_shared<frame_writer>(bg.io(), fd);
    w->send("one");
    w->send("two");
    ASSERT_TRUE(w->flush(60s));
    bg.stop();
    w->release();
  }
  ::lseek(fd, 0, SEEK_SET);
  line_source lines(fd);
  EXPECT_EQ(lines.next(), "one");
  EXPECT_EQ(lines.next(), "two");
  ::close(fd);
}

TEST(Writer, RejectsAnInvalidDescriptor) {
  background_io bg;
  EXPECT_THROW(frame_writer(bg.io(), 987654), std::system_error);
}

}  // namespace
}  // namespace mcpcxx::stdio_detail
