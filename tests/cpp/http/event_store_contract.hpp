// The contract suite every event_store implementation passes (the contract itself is stated in
// cpp/src/transport/http/event_store.hpp). The tests are in event_store_contract.cpp; a test
// binary that compiles that file instantiates the suite once per implementation with a factory
// (memory_stores_test.cpp does it for memory_event_store):
//
//   INSTANTIATE_TEST_SUITE_P(
//       Redis, EventStoreContract,
//       ::testing::Values(mcpcxx::http_test::event_store_factory{
//           "redis", [](std::size_t capacity) { return make_redis_event_store(capacity); }}),
//       mcpcxx::http_test::event_store_factory_name);
//
// The factory returns a new, independent store whose sessions keep `capacity` events each. The
// tests name sessions with fresh random ids (mint_session_id()), so a store shared between test
// runs (one Redis database) does not see one test's sessions in another.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <ostream>
#include <string>

#include <gtest/gtest.h>

#include "transport/http/event_store.hpp"

namespace mcpcxx::http_test {

/// Makes the store under test.
struct event_store_factory {
  std::string name;  ///< the instantiation's name in test names ([A-Za-z0-9_])
  std::function<std::shared_ptr<http::event_store>(std::size_t replay_capacity)> make;
};

/// Prints the factory as its name in test output (GetParam() = memory).
inline void PrintTo(const event_store_factory& f, std::ostream* os) { *os << f.name; }

/// Test names from event_store_factory::name.
std::string event_store_factory_name(const ::testing::TestParamInfo<event_store_factory>& info);

/// The suite's fixture: GetParam() is the implementation's factory.
class EventStoreContract : public ::testing::TestWithParam<event_store_factory> {
 protected:
  /// A new store keeping `replay_capacity` events per session.
  std::shared_ptr<http::event_store> make_store(std::size_t replay_capacity) const {
    return GetParam().make(replay_capacity);
  }
};

}  // namespace mcpcxx::http_test
