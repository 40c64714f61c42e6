// Which stores a change event drops: the shared store (Redis) only for a change made on this
// replica, which drops its entries once; a memory store for every change, wherever it was made.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "core/notification_bus.hpp"
#include "core/response_cache_store.hpp"

namespace mcpcxx::testing {
namespace {

using namespace std::chrono_literals;

// A shared store that records the tags it is asked to drop.
class drop_recorder final : public detail::response_cache_store {
 public:
  std::optional<detail::cached_response> get(const std::string&) override { return std::nullopt; }
  void put(const std::string&, std::string, std::chrono::milliseconds,
           const std::vector<std::string>&) override {}
  void drop(const std::string& tag) override { dropped.push_back(tag); }

  std::vector<std::string> dropped;
};

detail::change_event change(detail::change_kind kind, std::string subject, bool remote) {
  detail::change_event e{kind, std::move(subject), nullptr};
  e.from_other_replica = remote;
  return e;
}

class ResponseCacheDrop : public ::testing::Test {
 protected:
  std::unique_ptr<detail::notification_bus> bus_ =
      detail::make_memory_notification_bus([](std::string_view) {});
  detail::response_caches caches_{*bus_, [](const std::string&) {}};
};

TEST_F(ResponseCacheDrop, AChangeMadeHereDropsTheSharedEntries) {
  auto shared = std::make_shared<drop_recorder>();
  caches_.use_shared(shared);
  caches_.store_for("c", {});
  bus_->publish(change(detail::change_kind::resource_updated, "file:///a", false));
  bus_->publish(change(detail::change_kind::list_changed, "tools", false));
  EXPECT_EQ(shared->dropped, (std::vector<std::string>{"res:file:///a", "list:tools"}));
}

TEST_F(ResponseCacheDrop, AChangeFromAnotherReplicaLeavesTheSharedEntries) {
  auto shared = std::make_shared<drop_recorder>();
  caches_.use_shared(shared);
  caches_.store_for("c", {});
  bus_->publish(change(detail::change_kind::resource_updated, "file:///a", true));
  bus_->publish(change(detail::change_kind::list_changed, "tools", true));
  EXPECT_TRUE(shared->dropped.empty()) << shared->dropped.front();
}

TEST_F(ResponseCacheDrop, AMemoryStoreDropsEveryChange) {
  const auto store = caches_.store_for("c", {});
  store->put("k", "body", 60s, {"res:file:///a"});
  ASSERT_TRUE(store->get("k").has_value());
  bus_->publish(change(detail::change_kind::resource_updated, "file:///a", true));
  EXPECT_FALSE(store->get("k").has_value());
}

}  // namespace
}  // namespace mcpcxx::testing
