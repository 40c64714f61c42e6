// line_splitter: newline framing, "\r\n", blank lines, chunk boundaries, over-long lines.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "transport/stdio_framing.hpp"

namespace mcpcxx::stdio_detail {
namespace {

/// Records what the splitter reports; "<overlong>" marks an over-long line.
struct recorder final : line_handler {
  std::vector<std::string> events;
  void on_line(std::string_view line) override { events.emplace_back(line); }
  void on_overlong() override { events.emplace_back("<overlong>"); }
};

std::vector<std::string> split(std::string_view input, std::size_t max, std::size_t chunk) {
  line_splitter s(max);
  recorder r;
  for (std::size_t i = 0; i < input.size(); i += chunk) s.feed(input.substr(i, chunk), r);
  s.finish(r);
  return r.events;
}

using lines = std::vector<std::string>;

TEST(Framing, SplitsOnNewlines) {
  EXPECT_EQ(split("a\nbb\nccc\n", 100, 100), (lines{"a", "bb", "ccc"}));
}

TEST(Framing, AcceptsCrLf) { EXPECT_EQ(split("a\r\nb\r\n", 100, 100), (lines{"a", "b"})); }

TEST(Framing, KeepsALoneCrInsideALine) { EXPECT_EQ(split("a\rb\n", 100, 100), (lines{"a\rb"})); }

TEST(Framing, SkipsBlankAndWhitespaceOnlyLines) {
  EXPECT_EQ(split("\n\r\n  \n\t\r\nx\n\n", 100, 100), (lines{"x"}));
}

TEST(Framing, DeliversAnUnterminatedLastLineAtEnd) {
  EXPECT_EQ(split("a\nlast", 100, 100), (lines{"a", "last"}));
  EXPECT_EQ(split("a\nlast\r", 100, 100), (lines{"a", "last"}));
}

TEST(Framing, NothingBeforeFinishForAnIncompleteLine) {
  line_splitter s(100);
  recorder r;
  s.feed("abc", r);
  EXPECT_TRUE(r.events.empty());
  EXPECT_EQ(s.buffered(), 3u);
  s.feed("def\n", r);
  EXPECT_EQ(r.events, (lines{"abcdef"}));
  EXPECT_EQ(s.buffered(), 0u);
}

TEST(Framing, EveryChunkSizeGivesTheSameLines) {
  const std::string input = "{\"a\":1}\r\n\n{\"b\":\"x\\ny\"}\n  \n{\"c\":[1,2,3]}\nend";
  const lines expected{"{\"a\":1}", "{\"b\":\"x\\ny\"}", "{\"c\":[1,2,3]}", "end"};
  for (std::size_t chunk = 1; chunk <= input.size(); ++chunk) {
    EXPECT_EQ(split(input, 100, chunk), expected) << "chunk " << chunk;
  }
}

TEST(Framing, LimitIsOnTheLineWithoutItsEnd) {
  EXPECT_EQ(split("12345\n", 5, 100), (lines{"12345"}));
  EXPECT_EQ(split("12345\r\n", 5, 100), (lines{"12345"}));
  EXPECT_EQ(split("123456\n", 5, 100), (lines{"<overlong>"}));
  for (std::size_t chunk = 1; chunk <= 8; ++chunk) {
    EXPECT_EQ(split("12345\r\n123456\r\n", 5, chunk), (lines{"12345", "<overlong>"})) << chunk;
  }
}

TEST(Framing, OverlongLineIsReportedOnceAndReadingContinues) {
  const std::string input = "ok1\n" + std::string(1000, 'x') + "\nok2\n";
  for (std::size_t chunk : {1u, 7u, 64u, 2000u}) {
    EXPECT_EQ(split(input, 16, chunk), (lines{"ok1", "<overlong>", "ok2"})) << chunk;
  }
}

TEST(Framing, OverlongLineIsNotBuffered) {
  line_splitter s(64);
  recorder r;
  const std::string chunk(4096, 'y');
  std::size_t most = 0;
  for (int i = 0; i < 2500; ++i) {  // a 10 MB line
    s.feed(chunk, r);
    most = std::max(most, s.buffered());
  }
  EXPECT_LE(most, 65u);
  EXPECT_EQ(r.events, (lines{"<overlong>"}));
  s.feed("tail\n{\"next\":1}\n", r);
  EXPECT_EQ(r.events, (lines{"<overlong>", "{\"next\":1}"}));
}

TEST(Framing, OverlongUnterminatedLastLineIsNotDelivered) {
  EXPECT_EQ(split("ok\n" + std::string(50, 'z'), 10, 100), (lines{"ok", "<overlong>"}));
  EXPECT_EQ(split("ok\n" + std::string(50, 'z'), 10, 3), (lines{"ok", "<overlong>"}));
}

TEST(Framing, TwoOverlongLinesInARow) {
  const std::string input = std::string(30, 'a') + "\n" + std::string(30, 'b') + "\nz\n";
  EXPECT_EQ(split(input, 10, 4), (lines{"<overlong>", "<overlong>", "z"}));
  EXPECT_EQ(split(input, 10, 100), (lines{"<overlong>", "<overlong>", "z"}));
}

}  // namespace
}  // namespace mcpcxx::stdio_detail
