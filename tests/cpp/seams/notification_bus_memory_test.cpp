// The in-memory notification bus: the contract suite (notification_bus_contract.hpp), then what
// only the memory bus promises: synchronous delivery on the publishing thread.
#include <atomic>
#include <thread>

#include "core/notification_bus.hpp"
#include "seams/notification_bus_contract.hpp"

namespace mcpcxx::testing::contract {

INSTANTIATE_TEST_SUITE_P(Memory, NotificationBusContract,
                         ::testing::Values(bus_factory{
                             "memory",
                             [](detail::bus_error_callback on_error) {
                               return detail::make_memory_notification_bus(std::move(on_error));
                             },
                             true}),
                         bus_factory_name{});

TEST(MemoryNotificationBusSync, PublishDeliversOnThePublishingThreadBeforeReturning) {
  auto bus = detail::make_memory_notification_bus({});
  auto r = make_recorder();
  std::atomic<int> other_thread_calls{0};
  const auto publisher = std::this_thread::get_id();
  bus->subscribe(detail::change_kind::list_changed, r->handler());
  bus->subscribe(detail::change_kind::list_changed, [&](const detail::change_event&) {
    if (std::this_thread::get_id() != publisher) other_thread_calls.fetch_add(1);
  });
  for (int i = 0; i < 5; ++i) {
    bus->publish({detail::change_kind::list_changed, "tools", nullptr});
    EXPECT_EQ(r->count(), static_cast<std::size_t>(i + 1)) << "delivered before publish returned";
  }
  EXPECT_EQ(other_thread_calls.load(), 0);
}

TEST(MemoryNotificationBusSync, NestedPublishIsDeliveredBeforeTheOuterPublishReturns) {
  auto bus = detail::make_memory_notification_bus({});
  auto inner = make_recorder();
  bus->subscribe(detail::change_kind::resource_updated, inner->handler());
  std::size_t inner_seen_in_handler = 99;
  bus->subscribe(detail::change_kind::list_changed, [&](const detail::change_event&) {
    bus->publish({detail::change_kind::resource_updated, "nested", nullptr});
    inner_seen_in_handler = inner->count();
  });
  bus->publish({detail::change_kind::list_changed, "outer", nullptr});
  EXPECT_EQ(inner_seen_in_handler, 1u);
  EXPECT_EQ(inner->count(), 1u);
}

TEST(MemoryNotificationBusSync, SubscriberAddedDuringPublishMissesThatEvent) {
  auto bus = detail::make_memory_notification_bus({});
  auto added = make_recorder();
  bool done = false;
  bus->subscribe(detail::change_kind::list_changed, [&](const detail::change_event&) {
    if (done) return;
    done = true;
    bus->subscribe(detail::change_kind::list_changed, added->handler());
  });
  bus->publish({detail::change_kind::list_changed, "first", nullptr});
  EXPECT_EQ(added->count(), 0u) << "publish() delivers to the subscribers registered before it";
  bus->publish({detail::change_kind::list_changed, "second", nullptr});
  ASSERT_EQ(added->count(), 1u);
  EXPECT_EQ(added->payload_events()[0].subject, "second");
}

TEST(MemoryNotificationBusSync, ErrorsReachTheCallbackBeforePublishReturns) {
  std::vector<std::string> errors;
  auto bus = detail::make_memory_notification_bus(
      [&](std::string_view what) { errors.emplace_back(what); });
  bus->subscribe(detail::change_kind::task_status,
                 [](const detail::change_event&) { throw std::logic_error("bad task"); });
  bus->publish({detail::change_kind::task_status, "t", nullptr});
  EXPECT_EQ(errors, std::vector<std::string>{"bad task"});
}

TEST(MemoryNotificationBusSync, AFailingErrorCallbackDoesNotStopDelivery) {
  auto bus = detail::make_memory_notification_bus(
      [](std::string_view) { throw std::runtime_error("log failed"); });
  auto after = make_recorder();
  bus->subscribe(detail::change_kind::task_status,
                 [](const detail::change_event&) { throw std::logic_error("bad task"); });
  bus->subscribe(detail::change_kind::task_status, after->handler());
  bus->publish({detail::change_kind::task_status, "t", nullptr});
  EXPECT_EQ(after->count(), 1u);
}

}  // namespace mcpcxx::testing::contract
