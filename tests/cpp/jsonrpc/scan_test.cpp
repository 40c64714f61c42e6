// The private byte scanners behind parse(): depth pre-scan and UTF-8 check.
#include "jsonrpc/scan.hpp"

#include <string>

#include <gtest/gtest.h>

namespace mcpcxx::jsonrpc::detail {
namespace {

TEST(NestingDepth, CountsArraysAndObjects) {
  EXPECT_EQ(nesting_depth("", 64), 0u);
  EXPECT_EQ(nesting_depth("1", 64), 0u);
  EXPECT_EQ(nesting_depth("{}", 64), 1u);
  EXPECT_EQ(nesting_depth(R"({"a":[{"b":[]}],"c":{}})", 64), 4u);
  EXPECT_EQ(nesting_depth("[][][]", 64), 1u);
}

TEST(NestingDepth, SkipsStringsAndEscapes) {
  EXPECT_EQ(nesting_depth(R"(["[[[", "\"[[", "\\", []])", 64), 2u);
  EXPECT_EQ(nesting_depth(R"({"k\"{{":"}}}"})", 64), 1u);
}

TEST(NestingDepth, StopsEarly) { EXPECT_EQ(nesting_depth(std::string(1000, '['), 10), 11u); }

TEST(NestingDepth, UnbalancedClosersDoNotUnderflow) { EXPECT_EQ(nesting_depth("]]]][", 64), 1u); }

TEST(Utf8, AcceptsWellFormedText) {
  EXPECT_EQ(first_invalid_utf8(""), std::nullopt);
  EXPECT_EQ(first_invalid_utf8("ascii"), std::nullopt);
  EXPECT_EQ(first_invalid_utf8("\xC2\x80\xDF\xBF\xE0\xA0\x80\xED\x9F\xBF\xEE\x80\x80"),
            std::nullopt);
  EXPECT_EQ(first_invalid_utf8("\xF0\x90\x80\x80\xF4\x8F\xBF\xBF"), std::nullopt);
}

TEST(Utf8, RejectsIllFormedText) {
  EXPECT_EQ(first_invalid_utf8("ab\x80"), 2u);            // stray continuation
  EXPECT_EQ(first_invalid_utf8("\xC0\x80"), 0u);          // overlong NUL
  EXPECT_EQ(first_invalid_utf8("a\xE0\x9F\xBF"), 1u);     // overlong 3-byte
  EXPECT_EQ(first_invalid_utf8("\xED\xA0\x80"), 0u);      // surrogate
  EXPECT_EQ(first_invalid_utf8("\xF0\x8F\xBF\xBF"), 0u);  // overlong 4-byte
  EXPECT_EQ(first_invalid_utf8("\xF4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(first_invalid_utf8("\xF5\x80\x80\x80"), 0u);
  EXPECT_EQ(first_invalid_utf8("xy\xE2\x82"), 2u);  // truncated at end
  EXPECT_EQ(first_invalid_utf8("\xE2\x82x"), 0u);   // truncated mid-text
}

TEST(Blank, RecognisesJsonWhitespaceOnly) {
  EXPECT_TRUE(is_blank(""));
  EXPECT_TRUE(is_blank(" \t\r\n"));
  EXPECT_FALSE(is_blank(" x "));
  EXPECT_FALSE(is_blank("\v"));
}

}  // namespace
}  // namespace mcpcxx::jsonrpc::detail
