// The contract every detail::request_router passes (cpp/src/core/request_router.hpp): a
// value-parameterised suite, RequestRouterContract, whose tests are in
// request_router_contract.cpp. An implementation runs them with one instantiation file:
//
//   INSTANTIATE_TEST_SUITE_P(Redis, RequestRouterContract,
//                            ::testing::Values(router_factory{"redis", make_redis_router,
//                                                             make_redis_peer}),
//                            router_factory_name{});
//
// Delivery may be asynchronous (a distributed router hands the message to the holding replica):
// the suite waits for expected deliveries with bounded waits and proves that nothing more
// arrives with fences (a marker routed after the others: by the per-thread ordering clause, once
// the inbox has the marker it has everything the same thread routed to it before).
#pragma once

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "core/request_router.hpp"
#include "seams/seam_support.hpp"

namespace mcpcxx::testing::contract {

/// Makes the router under test; one parameter of RequestRouterContract.
struct router_factory {
  std::string name;  ///< the test name suffix (letters, digits, underscores)
  /// Makes a router of a fresh, empty deployment (no session attached anywhere).
  std::function<std::unique_ptr<detail::request_router>()> make;
  /// Makes another replica of the deployment `first` belongs to (sessions attached on one are
  /// reachable from the other); empty for a single-process router (the cross-replica test skips).
  std::function<std::unique_ptr<detail::request_router>(detail::request_router& first)> make_peer;
};

/// Prints a factory by its name (gtest's parameter printer).
inline void PrintTo(const router_factory& f, std::ostream* os) { *os << f.name; }

/// Names each instantiation's tests after the factory (the last argument of
/// INSTANTIATE_TEST_SUITE_P).
struct router_factory_name {
  /// The factory's name.
  std::string operator()(const ::testing::TestParamInfo<router_factory>& info) const {
    return info.param.name;
  }
};

/// The prefix of fence messages (never used by a test's own messages).
inline constexpr std::string_view k_router_fence_prefix = "router-fence#";

/// Collects the messages one inbox receives (thread-safe; shared with its inbox).
class message_recorder : public std::enable_shared_from_this<message_recorder> {
 public:
  /// An inbox that records into this recorder (and keeps it alive).
  detail::request_router::inbox inbox() {
    return [self = shared_from_this()](std::string m) { self->add(std::move(m)); };
  }

  /// Records one message.
  void add(std::string m) {
    std::lock_guard g(mutex_);
    messages_.push_back(std::move(m));
  }

  /// The messages so far that are not fences, in arrival order.
  std::vector<std::string> payload_messages() const {
    std::lock_guard g(mutex_);
    std::vector<std::string> out;
    for (const auto& m : messages_) {
      if (!is_fence(m)) out.push_back(m);
    }
    return out;
  }

  /// How many non-fence messages arrived so far.
  std::size_t count() const {
    std::lock_guard g(mutex_);
    return static_cast<std::size_t>(std::count_if(
        messages_.begin(), messages_.end(), [](const std::string& m) { return !is_fence(m); }));
  }

  /// Whether `m` arrived.
  bool saw(std::string_view m) const {
    std::lock_guard g(mutex_);
    return std::find(messages_.begin(), messages_.end(), m) != messages_.end();
  }

  /// Whether `m` is a fence marker.
  static bool is_fence(std::string_view m) {
    return m.substr(0, k_router_fence_prefix.size()) == k_router_fence_prefix;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> messages_;
};

/// A new recorder (recorders must be owned by a shared_ptr: their inboxes share them).
inline std::shared_ptr<message_recorder> make_message_recorder() {
  return std::make_shared<message_recorder>();
}

/// Routes a fence to `session` and waits until `to` received it: afterwards every message this
/// thread routed to `session` earlier has reached `to`.
inline ::testing::AssertionResult route_fence(detail::request_router& router,
                                              const std::string& session,
                                              const std::shared_ptr<message_recorder>& to) {
  static std::atomic<int> next{0};
  const std::string m = std::string(k_router_fence_prefix) + std::to_string(next.fetch_add(1));
  if (!router.route(session, m)) {
    return ::testing::AssertionFailure() << "route() of a fence to " << session << " was refused";
  }
  if (!eventually([&] { return to->saw(m); })) {
    return ::testing::AssertionFailure() << "the inbox of " << session << " never received " << m;
  }
  return ::testing::AssertionSuccess();
}

/// The fixture: a fresh router per test from the factory.
class RequestRouterContract : public ::testing::TestWithParam<router_factory> {
 protected:
  void SetUp() override {
    router_ = GetParam().make();
    ASSERT_NE(router_, nullptr);
  }
  void TearDown() override { router_.reset(); }

  /// The router under test.
  detail::request_router& router() { return *router_; }

  std::unique_ptr<detail::request_router> router_;
};

}  // namespace mcpcxx::testing::contract
