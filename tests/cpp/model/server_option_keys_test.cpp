// server_option_keys(): exactly the keys from_json(server_options) accepts, and the list its
// refusal of any other key names.
#include <set>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "mcpcxx/server_json.hpp"

#include "support/refusal.hpp"

namespace mcpcxx {
namespace {

using ::mcpcxx::testing::refusal;

TEST(ServerOptionKeys, EveryKeyIsAcceptedByTheParser) {
  const auto keys = server_option_keys();
  ASSERT_FALSE(keys.empty());
  const std::set<std::string_view> listed(keys.begin(), keys.end());
  EXPECT_EQ(listed.size(), keys.size());
  for (std::string_view key : keys) {
    // null means "keep the default" for every key, so only the key itself is under test.
    EXPECT_EQ(refusal<server_options>({{std::string(key), nullptr}}), "") << key;
  }
  EXPECT_EQ(refusal<server_options>({{"worker_threads", 2}, {"task_threads", 1}}), "");
  // The JSON form to_json writes is read back: none of its keys is outside the list.
  const json written = server_options{};
  for (const auto& [key, value] : written.items()) {
    EXPECT_TRUE(listed.contains(key)) << key;
  }
}

TEST(ServerOptionKeys, AnotherKeyIsRefusedNamingTheList) {
  std::string listed;
  for (std::string_view key : server_option_keys()) {
    listed.append(listed.empty() ? "" : ", ").append(key);
  }
  for (const char* unknown : {"workers", "Info", "request_state", ""}) {
    EXPECT_EQ(refusal<server_options>({{unknown, 1}}),
              std::string("unexpected server option '") + unknown + "'; known options: " + listed)
        << unknown;
  }
}

}  // namespace
}  // namespace mcpcxx
