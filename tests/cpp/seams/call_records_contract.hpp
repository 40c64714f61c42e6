// The contract every detail::call_records passes (cpp/src/core/call_records.hpp): a
// value-parameterised suite, CallRecordsContract, whose tests are in call_records_contract.cpp.
// An implementation runs them with one instantiation file:
//
//   INSTANTIATE_TEST_SUITE_P(Redis, CallRecordsContract,
//                            ::testing::Values(call_records_factory{"redis", [] {
//                              auto prefix = fresh_prefix();
//                              return [prefix] { return make_redis_call_records(...); }; }}),
//                            call_records_factory_name{});
//
// A factory makes a deployment: a function giving, at each call, another replica of one store
// (an object sharing the records of the others; a store serving one process gives itself every
// time). Claims carry the system clock in Unix ms, and the windows that must pass are a few
// hundred milliseconds, waited for in real time: a store may measure them by its own clock.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "core/call_records.hpp"
#include "seams/seam_support.hpp"

namespace mcpcxx::testing::contract {

/// Gives another replica of one deployment at each call.
using call_records_replicas = std::function<std::shared_ptr<detail::call_records>()>;

/// Makes the store under test; one parameter of CallRecordsContract.
struct call_records_factory {
  std::string name;  ///< the test name suffix (letters, digits, underscores)
  /// Makes a fresh, empty deployment (see the file comment).
  std::function<call_records_replicas()> make;
};

/// Prints a factory by its name (gtest's parameter printer).
inline void PrintTo(const call_records_factory& f, std::ostream* os) { *os << f.name; }

/// Names each instantiation's tests after the factory.
struct call_records_factory_name {
  /// The factory's name.
  std::string operator()(const ::testing::TestParamInfo<call_records_factory>& info) const {
    return info.param.name;
  }
};

/// The system clock now, in Unix ms (what the engine passes as call_claim::now_ms).
inline std::int64_t unix_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// Sleeps until the system clock is past Unix ms `t`.
inline void sleep_past_unix_ms(std::int64_t t) {
  while (unix_now_ms() <= t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(t - unix_now_ms() + 1));
  }
}

/// A claim of `key` by `call` now, kept `window`, taking over `replaces` if set.
inline detail::call_claim claim_of(const std::string& key, const std::string& call,
                                   std::chrono::milliseconds window = std::chrono::minutes(1),
                                   const std::string& replaces = "") {
  detail::call_claim c;
  c.key = key;
  c.call_id = call;
  c.now_ms = unix_now_ms();
  c.window = window;
  c.replaces = replaces;
  return c;
}

/// An outcome for settle(): `state` with `result` (applied) or `reason` (unknown).
inline detail::call_record outcome_of(detail::call_state state, const std::string& result,
                                      const std::string& reason) {
  detail::call_record r;
  r.state = state;
  r.result = result;
  r.reason = reason;
  return r;
}

/// Whether the claim of `c` by `store` was refused with a record in `state` held by `call`.
inline ::testing::AssertionResult refused_by(detail::call_records& store,
                                             const detail::call_claim& c, detail::call_state state,
                                             const std::string& call) {
  const detail::claim_outcome o = store.claim(c);
  if (o.claimed) return ::testing::AssertionFailure() << c.call_id << " claimed " << c.key;
  if (o.record.state != state || o.record.call_id != call) {
    return ::testing::AssertionFailure()
           << c.key << " is held by " << o.record.call_id << " in state "
           << static_cast<int>(o.record.state) << ", not by " << call << " in state "
           << static_cast<int>(state);
  }
  return ::testing::AssertionSuccess();
}

/// The fixture: store() is the deployment's first replica, replica() another one.
class CallRecordsContract : public ::testing::TestWithParam<call_records_factory> {
 protected:
  void SetUp() override {
    replicas_ = GetParam().make();
    store_ = replicas_();
    ASSERT_NE(store_, nullptr);
  }

  /// The deployment's first replica.
  detail::call_records& store() { return *store_; }
  /// Another replica of the deployment (the same store for a single-process one).
  std::shared_ptr<detail::call_records> replica() { return replicas_(); }

 private:
  call_records_replicas replicas_;
  std::shared_ptr<detail::call_records> store_;
};

}  // namespace mcpcxx::testing::contract
