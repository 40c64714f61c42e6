// The contract every detail::notification_bus passes (cpp/src/core/notification_bus.hpp): a
// value-parameterised suite, NotificationBusContract, whose tests are in
// notification_bus_contract.cpp. An implementation runs them with one instantiation file:
//
//   INSTANTIATE_TEST_SUITE_P(Redis, NotificationBusContract,
//                            ::testing::Values(bus_factory{"redis", make_redis_bus, false}),
//                            bus_factory_name{});
//
// Delivery may be asynchronous (a distributed bus delivers on its own thread): the suite waits for
// expected deliveries with bounded waits and proves that nothing more arrives with fences (a
// marker event published after the others: by the per-thread ordering clause, once a subscriber
// has the marker it has everything the same thread published before it).
#pragma once

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "core/notification_bus.hpp"
#include "seams/seam_support.hpp"

namespace mcpcxx::testing::contract {

/// Makes the bus under test; one parameter of NotificationBusContract.
struct bus_factory {
  std::string name;  ///< the test name suffix (letters, digits, underscores)
  /// Makes a fresh, empty bus reporting handler failures to `on_error`.
  std::function<std::unique_ptr<detail::notification_bus>(detail::bus_error_callback on_error)>
      make;
  /// True when wanted() knows every subscriber (answers false when nobody wants an event); false
  /// for a bus that may always answer true (the contract allows it): the false cases are skipped.
  bool exact_wanted = true;
};

/// Prints a factory by its name (gtest's parameter printer).
inline void PrintTo(const bus_factory& f, std::ostream* os) { *os << f.name; }

/// Names each instantiation's tests after the factory (the last argument of
/// INSTANTIATE_TEST_SUITE_P).
struct bus_factory_name {
  /// The factory's name.
  std::string operator()(const ::testing::TestParamInfo<bus_factory>& info) const {
    return info.param.name;
  }
};

/// Every change kind, for tests that cover each.
inline constexpr detail::change_kind k_all_kinds[] = {detail::change_kind::list_changed,
                                                      detail::change_kind::resource_updated,
                                                      detail::change_kind::task_status};

/// The subject prefix of fence events (never used by a test's own events).
inline constexpr std::string_view k_fence_prefix = "fence#";

/// Collects the events one subscriber receives (thread-safe; shared with its handler).
class event_recorder : public std::enable_shared_from_this<event_recorder> {
 public:
  /// A handler that records into this recorder (and keeps it alive).
  detail::notification_bus::handler handler() {
    return [self = shared_from_this()](const detail::change_event& e) { self->add(e); };
  }

  /// Records one event.
  void add(const detail::change_event& e) {
    std::lock_guard g(mutex_);
    events_.push_back(e);
  }

  /// Every event so far, fences included, in arrival order.
  std::vector<detail::change_event> events() const {
    std::lock_guard g(mutex_);
    return events_;
  }

  /// The events so far that are not fences, in arrival order.
  std::vector<detail::change_event> payload_events() const {
    std::vector<detail::change_event> out;
    for (auto& e : events()) {
      if (!is_fence(e)) out.push_back(std::move(e));
    }
    return out;
  }

  /// How many non-fence events arrived so far.
  std::size_t count() const {
    std::lock_guard g(mutex_);
    return static_cast<std::size_t>(
        std::count_if(events_.begin(), events_.end(),
                      [](const detail::change_event& e) { return !is_fence(e); }));
  }

  /// Whether an event with this subject arrived.
  bool saw(std::string_view subject) const {
    std::lock_guard g(mutex_);
    return std::any_of(events_.begin(), events_.end(),
                       [&](const detail::change_event& e) { return e.subject == subject; });
  }

  /// Whether `e` is a fence marker.
  static bool is_fence(const detail::change_event& e) {
    return std::string_view(e.subject).substr(0, k_fence_prefix.size()) == k_fence_prefix;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<detail::change_event> events_;
};

/// A new recorder (recorders must be owned by a shared_ptr: their handlers share them).
inline std::shared_ptr<event_recorder> make_recorder() {
  return std::make_shared<event_recorder>();
}

/// Publishes a fence of `kind` and waits until every recorder in `to` received it: afterwards
/// every event of that kind this thread published earlier has reached them.
inline ::testing::AssertionResult fence(detail::notification_bus& bus, detail::change_kind kind,
                                        const std::vector<std::shared_ptr<event_recorder>>& to) {
  static std::atomic<int> next{0};
  const std::string subject = std::string(k_fence_prefix) + std::to_string(next.fetch_add(1));
  bus.publish({kind, subject, nullptr});
  for (std::size_t i = 0; i < to.size(); ++i) {
    const auto& r = to[i];
    if (!eventually([&] { return r->saw(subject); })) {
      return ::testing::AssertionFailure() << "recorder #" << i << " never received " << subject;
    }
  }
  return ::testing::AssertionSuccess();
}

/// The errors the bus reported to its error callback (thread-safe).
class error_log {
 public:
  /// The callback to give the bus.
  detail::bus_error_callback callback() {
    return [this](std::string_view what) {
      std::lock_guard g(mutex_);
      errors_.emplace_back(what);
    };
  }
  /// The errors so far, sorted (delivery order across subscribers is not part of the contract).
  std::vector<std::string> sorted() const {
    std::lock_guard g(mutex_);
    auto copy = errors_;
    std::sort(copy.begin(), copy.end());
    return copy;
  }
  /// How many errors so far.
  std::size_t size() const {
    std::lock_guard g(mutex_);
    return errors_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> errors_;
};

/// The fixture: a fresh bus per test from the factory, its errors collected in errors_.
class NotificationBusContract : public ::testing::TestWithParam<bus_factory> {
 protected:
  void SetUp() override {
    bus_ = GetParam().make(errors_.callback());
    ASSERT_NE(bus_, nullptr);
  }
  void TearDown() override { bus_.reset(); }

  /// The bus under test.
  detail::notification_bus& bus() { return *bus_; }
  /// Whether the factory's bus answers wanted() exactly.
  bool exact_wanted() const { return GetParam().exact_wanted; }

  error_log errors_;  // declared before bus_: outlives it
  std::unique_ptr<detail::notification_bus> bus_;
};

}  // namespace mcpcxx::testing::contract
