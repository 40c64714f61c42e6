// json_sha256 must digest exactly the bytes of the compact dump (the requestState binding depends
// on it), for every JSON shape, key spelling and invalid UTF-8, with and without skipped members.
#include "state/codec.hpp"

#include <string>

#include <gtest/gtest.h>

namespace mcpcxx::state {
namespace {

std::string dumped_sha(const json& j) {
  return sha256(j.dump(-1, ' ', false, json::error_handler_t::replace));
}

TEST(JsonSha256, EqualsTheDigestOfTheCompactDump) {
  const json cases[] = {
      nullptr,
      true,
      42,
      -7,
      1.5e300,
      "text",
      json::array(),
      json::object(),
      json::parse(R"({"name":"echo","arguments":{"text":"hi","n":[1,2.5,null,false]}})"),
      json::parse(R"({"b":1,"a":{"z":[{"y":"x"}],"quote\"key":"v\\n"},"\u00e9t\u00e9":"\u2603"})"),
      json{{"ctrl\x01key", "tab\there"}, {"plain", json::array({"\x7f", "\x1f"})}},
      json{{"long", std::string(5000, 'x')}},  // longer than the stream's buffer
  };
  for (const json& j : cases) EXPECT_EQ(json_sha256(j), dumped_sha(j)) << j.dump();
}

TEST(JsonSha256, InvalidUtf8IsReplacedAsDumpDoes) {
  const json j = {{"k", std::string("bad \xff\xfe bytes")}, {std::string("k\xc3"), 1}};
  EXPECT_EQ(json_sha256(j), dumped_sha(j));
}

TEST(JsonSha256, SkippedMembersAreLeftOutAsIfErased) {
  json full = json::parse(
      R"({"_meta":{"x":1},"arguments":{"a":1},"inputResponses":{},"name":"t","requestState":"s"})");
  json stripped = full;
  stripped.erase("_meta");
  stripped.erase("inputResponses");
  stripped.erase("requestState");
  EXPECT_EQ(json_sha256(full, {"inputResponses", "requestState", "_meta"}), dumped_sha(stripped));
  EXPECT_EQ(json_sha256(json{{"_meta", 1}}, {"_meta"}), dumped_sha(json::object()));
  EXPECT_NE(json_sha256(full, {"_meta"}), json_sha256(full, {"_meta", "name"}));
}

TEST(Sha256Stream, PiecesEqualTheWhole) {
  const std::string whole(1300, 'q');
  sha256_stream s;
  s.update(std::string_view(whole).substr(0, 1));
  s.update(std::string_view(whole).substr(1, 600));
  s.update(std::string_view(whole).substr(601));
  EXPECT_EQ(s.finish(), sha256(whole));
}

}  // namespace
}  // namespace mcpcxx::state

namespace mcpcxx::state {
namespace {

TEST(Sha256Stream, TwoStreamsAtOnceOnOneThreadStayApart) {
  sha256_stream outer;  // takes the thread's cached context
  outer.update("outer ");
  {
    sha256_stream inner;  // gets a context of its own
    inner.update("inner");
    EXPECT_EQ(inner.finish(), sha256("inner"));
  }
  outer.update("text");
  EXPECT_EQ(outer.finish(), sha256("outer text"));
  sha256_stream again;  // the cached context is free again and starts clean
  again.update("x");
  EXPECT_EQ(again.finish(), sha256("x"));
}

}  // namespace
TEST(HexEncode, TwoDigitsPerByteHighNibbleFirst) {
  EXPECT_EQ(hex_encode(""), "");
  EXPECT_EQ(hex_encode(std::string_view("\x00\x0f\xa0\xff", 4)), "000fa0ff");
  EXPECT_EQ(hex_encode(std::string_view("\x00\x0f\xa0\xff", 4), hex_case::upper), "000FA0FF");
  EXPECT_EQ(hex_encode("Az"), "417a");
}

TEST(HexEncode, EveryByteValue) {
  std::string all;
  for (int b = 0; b < 256; ++b) all.push_back(static_cast<char>(b));
  const std::string hex = hex_encode(all);
  ASSERT_EQ(hex.size(), 512U);
  for (int b = 0; b < 256; ++b) {
    EXPECT_EQ(std::stoi(hex.substr(static_cast<std::size_t>(b) * 2, 2), nullptr, 16), b);
  }
  EXPECT_EQ(hex.find_first_not_of("0123456789abcdef"), std::string::npos);
}

TEST(HexEncode, OfASha256DigestIsTheKnownLowercaseText) {
  EXPECT_EQ(hex_encode(sha256("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

}  // namespace mcpcxx::state
