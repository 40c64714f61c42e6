// The contract suite every session_store implementation passes (the contract itself is stated in
// cpp/src/transport/http/session_store.hpp). The tests are in session_store_contract.cpp; a test
// binary that compiles that file instantiates the suite once per implementation with a factory
// (memory_stores_test.cpp does it for memory_session_store):
//
//   INSTANTIATE_TEST_SUITE_P(
//       Redis, SessionStoreContract,
//       ::testing::Values(mcpcxx::http_test::session_store_factory{
//           "redis", [](std::size_t max) { return make_redis_session_store(max); }}),
//       mcpcxx::http_test::session_store_factory_name);
//
// The factory returns a new, empty, independent store holding at most `max_sessions` records
// (a shared implementation gives each store its own key prefix). Record ids are fresh random
// ids (mint_session_id()).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <ostream>
#include <string>

#include <gtest/gtest.h>

#include "transport/http/session_store.hpp"

namespace mcpcxx::http_test {

/// Makes the store under test.
struct session_store_factory {
  std::string name;  ///< the instantiation's name in test names ([A-Za-z0-9_])
  std::function<std::shared_ptr<http::session_store>(std::size_t max_sessions)> make;
};

/// Prints the factory as its name in test output (GetParam() = memory).
inline void PrintTo(const session_store_factory& f, std::ostream* os) { *os << f.name; }

/// Test names from session_store_factory::name.
std::string session_store_factory_name(const ::testing::TestParamInfo<session_store_factory>& info);

/// The suite's fixture: GetParam() is the implementation's factory.
class SessionStoreContract : public ::testing::TestWithParam<session_store_factory> {
 protected:
  /// A new empty store holding at most `max_sessions` records.
  std::shared_ptr<http::session_store> make_store(std::size_t max_sessions) const {
    return GetParam().make(max_sessions);
  }
};

}  // namespace mcpcxx::http_test
