// compose_tool_error_message: the founding document's template, empty parts skipped, one period.
#include <gtest/gtest.h>

#include "mcpcxx/errors.hpp"

namespace mcpcxx {
namespace {

TEST(Compose, AllParts) {
  EXPECT_EQ(compose_tool_error_message({"Issue lookup", "issue ENG-42", "it was not found",
                                        "Verify the key or list recent issues first",
                                        "Do not retry unchanged"}),
            "Issue lookup failed: issue ENG-42. It was not found. Verify the key or list recent "
            "issues first. Do not retry unchanged.");
}

TEST(Compose, ExistingEndPunctuationIsNotDoubled) {
  EXPECT_EQ(compose_tool_error_message({"Export", "report.csv.", "Storage is down.",
                                        "Try again later!", "Is it safe to retry?"}),
            "Export failed: report.csv. Storage is down. Try again later! Is it safe to retry?");
}

TEST(Compose, TrailingSeparatorsAndSpacesAreCleaned) {
  EXPECT_EQ(compose_tool_error_message(
                {" Search ", "  acme/widgets ; ", "  access denied,  ", "ask for access:", ""}),
            "Search failed: acme/widgets. Access denied. Ask for access.");
}

TEST(Compose, EmptyPartsAreSkipped) {
  EXPECT_EQ(compose_tool_error_message({"Upload", "", "", "Pick a smaller file", ""}),
            "Upload failed. Pick a smaller file.");
  EXPECT_EQ(compose_tool_error_message({"", "", "the disk is full", "", "retry later"}),
            "The disk is full. Retry later.");
  EXPECT_EQ(compose_tool_error_message({"", "issue ENG-7", "", "", ""}), "Issue ENG-7.");
  EXPECT_EQ(compose_tool_error_message({"", "", "", "", "   "}), "The operation failed.");
  EXPECT_EQ(compose_tool_error_message({"", ".", "", "", ""}), "The operation failed.");
}

TEST(Compose, IdentifiersAreNeverRecased) {
  EXPECT_EQ(compose_tool_error_message({"", "", "acme/widgets is private", "iPhone sync is off",
                                        "x-request-id was reused"}),
            "acme/widgets is private. iPhone sync is off. x-request-id was reused.");
}

TEST(Compose, ResourceAfterColonKeepsItsCase) {
  EXPECT_EQ(compose_tool_error_message({"Read", "the file", "", "", ""}), "Read failed: the file.");
}

}  // namespace
}  // namespace mcpcxx
