// The allocation-free log line (engine/log_line.hpp): valid JSON for any input, members in call
// order, durations formatted as a double would dump, and server_log's level/event override.
#include "observability/log_line.hpp"

#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "observability/server_log.hpp"

namespace mcpcxx::detail {
namespace {

TEST(LogLine, WritesTsLevelEventThenMembersInOrder) {
  std::string buf = "left over from the previous line";
  log_line line(buf, "info", "request");
  const std::string text(line.str("method", "tools/call").integer("id", -7).finish());
  const json j = json::parse(text);
  EXPECT_EQ(j["level"], "info");
  EXPECT_EQ(j["event"], "request");
  EXPECT_EQ(j["method"], "tools/call");
  EXPECT_EQ(j["id"], -7);
  EXPECT_EQ(text.rfind(R"({"ts":")", 0), 0u) << text;
  EXPECT_LT(text.find("\"method\""), text.find("\"id\"")) << text;
  EXPECT_TRUE(std::regex_match(j["ts"].get<std::string>(),
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)")))
      << text;
}

TEST(LogLine, EscapesQuotesControlsAndInvalidUtf8) {
  std::string buf;
  const std::vector<std::string> values = {"a\"b\\c", "tab\there\nline", std::string("nul\0x", 5),
                                           "caf\xc3\xa9", "bad \xff\xfe utf8"};
  for (const auto& v : values) {
    log_line line(buf, "info", "e");
    const std::string text(line.str("v", v).str(v, "key too").finish());
    json j;
    ASSERT_NO_THROW(j = json::parse(text)) << text;
    if (v.find('\xff') == std::string::npos) {
      EXPECT_EQ(j["v"], v);
    } else {
      EXPECT_EQ(j["v"], "bad \xef\xbf\xbd\xef\xbf\xbd utf8");  // replaced, as dump(replace) does
    }
  }
}

// The line is written through a cursor into the buffer sized to its capacity: it must grow in
// the middle of a member, and a reused buffer must hold exactly the new line.
TEST(LogLine, GrowsMidMemberAndReusesTheBufferExactly) {
  std::string buf;
  const std::string long_plain(5000, 'p');
  std::string long_escaped(3000, 'e');
  long_escaped[2999] = '\n';  // escaped from the last byte, after most of it was copied
  {
    log_line line(buf, "info", "e");
    const json j = json::parse(line.str("a", long_plain).str("b", long_escaped).finish());
    EXPECT_EQ(j["a"], long_plain);
    EXPECT_EQ(j["b"], long_escaped);
  }
  log_line line(buf, "info", "short");
  const std::string_view text = line.integer("n", 1).finish();
  EXPECT_EQ(text.size(), buf.size());
  EXPECT_EQ(json::parse(text)["n"], 1);
  EXPECT_EQ(text.back(), '}');
}

TEST(LogLine, MillisMatchTheDoubleDump) {
  for (const std::int64_t us : {0LL, 1LL, 12LL, 100LL, 1500LL, 2000LL, 1234567LL, 99999999LL}) {
    std::string buf;
    log_line line(buf, "info", "e");
    const std::string text(line.millis("latencyMs", us).finish());
    const std::string expected =
        json(static_cast<double>(us) / 1000.0).dump();  // what the json-object line wrote
    EXPECT_NE(text.find("\"latencyMs\":" + expected + "}"), std::string::npos)
        << text << " vs " << expected;
  }
}

TEST(LogLine, MembersCopyAnObjectButNotTsLevelEvent) {
  std::string buf;
  log_line line(buf, "info", "e");
  const json fields = {{"a", 1}, {"s", "x\"y"}, {"level", "debug"}, {"nested", {{"k", {1, 2}}}}};
  const json j = json::parse(line.members(fields).finish());
  EXPECT_EQ(j["a"], 1);
  EXPECT_EQ(j["s"], "x\"y");
  EXPECT_EQ(j["level"], "info");
  EXPECT_EQ(j["nested"]["k"], json::array({1, 2}));
}

TEST(ServerLog, AFieldNamedLevelOverridesTheArgument) {
  std::vector<std::string> lines;
  server_log log([&](std::string_view l) { lines.emplace_back(l); });
  log.write("info", "handler_log", {{"level", "debug"}, {"data", {{"x", 1}}}});
  log.write("warning", "plain", json::object());
  log.write("error", "not_an_object", json::array({1}));
  ASSERT_EQ(lines.size(), 3u);
  const json first = json::parse(lines[0]);
  EXPECT_EQ(first["level"], "debug");
  EXPECT_EQ(first["event"], "handler_log");
  EXPECT_EQ(first["data"]["x"], 1);
  EXPECT_EQ(lines[0].find("\"level\"", lines[0].find("\"level\"") + 1), std::string::npos);
  EXPECT_EQ(json::parse(lines[1])["level"], "warning");
  EXPECT_EQ(json::parse(lines[2]).size(), 3u);
}

}  // namespace
}  // namespace mcpcxx::detail
