// The revisions table (cpp/src/wire/revisions.hpp): what each revision has, the lookups, the
// supported list generated from it (public and wire), and the one era rule for every transport.
#include <gtest/gtest.h>

#include "mcpcxx/server.hpp"

#include "wire/era.hpp"

namespace mcpcxx {
namespace {

using wire::era;
using wire::feature;

TEST(Revisions, FeaturesComeFromTheTable) {
  EXPECT_TRUE(wire::has("2025-03-26", feature::batching));
  EXPECT_FALSE(wire::has("2025-06-18", feature::batching));
  EXPECT_FALSE(wire::has("2025-11-25", feature::batching));
  EXPECT_FALSE(wire::has("2024-11-05", feature::completions));
  EXPECT_TRUE(wire::has("2025-03-26", feature::completions));
  EXPECT_TRUE(wire::has("2025-11-25", feature::tasks));
  EXPECT_FALSE(wire::has("2026-07-28", feature::tasks));
  EXPECT_TRUE(wire::has("2026-07-28", feature::tasks_extension));
  EXPECT_TRUE(wire::has("2025-06-18", feature::elicitation_form));
  EXPECT_FALSE(wire::has("2025-06-18", feature::elicitation_modes));
  EXPECT_TRUE(wire::has("2026-07-28", feature::sampling_tools));
  EXPECT_TRUE(wire::has("2025-11-25", feature::sse_priming));
  EXPECT_FALSE(wire::has("2025-06-18", feature::sse_priming));
  // A revision the server does not implement has nothing, whatever its date.
  EXPECT_FALSE(wire::has("2099-01-01", feature::completions));
  EXPECT_FALSE(wire::has("", feature::completions));
}

TEST(Revisions, ErasAndLookups) {
  EXPECT_TRUE(wire::is_modern_version("2026-07-28"));
  EXPECT_FALSE(wire::is_modern_version("2025-11-25"));
  EXPECT_TRUE(wire::is_legacy_version("2024-11-05"));
  EXPECT_FALSE(wire::is_legacy_version("2026-07-28"));
  EXPECT_FALSE(wire::is_supported_version("2025-01-01"));
  EXPECT_EQ(wire::k_modern, "2026-07-28");
  EXPECT_EQ(wire::k_latest_legacy, "2025-11-25");
  ASSERT_NE(wire::find_revision("2025-06-18"), nullptr);
  EXPECT_EQ(wire::find_revision("2025-06-18")->of_era, era::legacy);
  EXPECT_EQ(wire::find_revision("2025-06-19"), nullptr);
}

TEST(Revisions, SupportedListsAreGeneratedFromTheTable) {
  ASSERT_EQ(wire::k_versions.size(), std::size(wire::k_revisions));
  ASSERT_EQ(std::size(k_supported_versions), wire::k_versions.size());
  for (std::size_t i = 0; i < wire::k_versions.size(); ++i) {
    EXPECT_EQ(wire::k_versions[i], wire::k_revisions[i].name);
    EXPECT_EQ(std::string_view(k_supported_versions[i]), wire::k_versions[i]);
  }
  std::size_t n = 0;
  for (const char* v : k_supported_versions) EXPECT_EQ(std::string_view(v), wire::k_versions[n++]);
  EXPECT_EQ(n, wire::k_versions.size());
  EXPECT_EQ(k_modern_version, wire::k_modern);
  EXPECT_EQ(k_latest_legacy_version, wire::k_latest_legacy);
  EXPECT_EQ(wire::supported_versions_json(),
            json({"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}));
}

json meta(const char* key) { return {{key, "x"}}; }

TEST(MessageEra, OneRuleForEveryTransport) {
  const json version = meta("io.modelcontextprotocol/protocolVersion");
  const json caps = meta("io.modelcontextprotocol/clientCapabilities");
  const json other = meta("progressToken");
  EXPECT_EQ(wire::message_era({.method = "tools/list"}), era::legacy);
  EXPECT_EQ(wire::message_era({.method = "tools/list", .meta = &other}), era::legacy);
  EXPECT_EQ(wire::message_era({.method = "tools/list", .meta = &version}), era::modern);
  // Either modern key makes the message modern (then refused as malformed if the other lacks).
  EXPECT_EQ(wire::message_era({.method = "tools/list", .meta = &caps}), era::modern);
  // initialize selects legacy semantics, whatever its _meta.
  EXPECT_EQ(wire::message_era({.method = "initialize", .meta = &version}), era::legacy);
}

TEST(MessageEra, TransportFactsComeFirst) {
  const std::string modern = "2026-07-28";
  const std::string legacy = "2025-06-18";
  const json caps = meta("io.modelcontextprotocol/clientCapabilities");
  EXPECT_EQ(wire::message_era({.method = "initialize", .version_header = &modern}), era::modern);
  EXPECT_EQ(wire::message_era({.method = "tools/list", .version_header = &legacy}), era::legacy);
  EXPECT_EQ(wire::message_era({.method = "tools/list", .meta = &caps, .version_header = &legacy}),
            era::modern);
  EXPECT_EQ(wire::message_era({.method = "initialize", .legacy_served = false}), era::modern);
}

}  // namespace
}  // namespace mcpcxx
