// is_valid() on typical tool arguments performs no heap allocation, and a compiled schema is
// safe to use from several threads at once.
#include <atomic>
#include <cstdlib>
#include <new>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "mcpcxx/json_schema.hpp"

namespace {
thread_local bool g_counting = false;
thread_local std::size_t g_allocations = 0;
}  // namespace

// Counting replacements of the global allocation functions (this test binary only). GCC cannot
// see that these replacements pair malloc with free, hence the suppressed diagnostic.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t n) {
  if (g_counting) ++g_allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

using mcpcxx::json;
namespace schema = mcpcxx::schema;

const char* kToolSchema = R"({
  "type": "object",
  "properties": {
    "query": {"type": "string", "minLength": 1, "maxLength": 200},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100},
    "mode": {"enum": ["fast", "exact", "fuzzy"]},
    "tag": {"type": "string", "pattern": "^x-"},
    "verbose": {"type": "boolean"},
    "score": {"type": "number", "exclusiveMinimum": 0},
    "filters": {"type": "object", "properties": {
      "lang": {"type": "string"}, "since": {"type": "string"}}, "additionalProperties": false},
    "ids": {"type": "array", "items": {"type": "integer"}, "maxItems": 10}
  },
  "required": ["query", "limit"],
  "additionalProperties": false
})";

TEST(schema_alloc, is_valid_success_path_does_not_allocate) {
  auto compiled = schema::compile(json::parse(kToolSchema));
  const json args =
      json::parse(R"({"query":"weather in paris","limit":10,"mode":"fast","tag":"x-demo",
    "verbose":true,"score":0.5,"filters":{"lang":"fr","since":"2024"},"ids":[1,2,3]})");
  ASSERT_TRUE(compiled->is_valid(args));
  g_allocations = 0;
  g_counting = true;
  const bool ok = compiled->is_valid(args);
  g_counting = false;
  EXPECT_TRUE(ok);
  EXPECT_EQ(g_allocations, 0u);
}

TEST(schema_alloc, validate_builds_messages_only_on_failure) {
  auto compiled = schema::compile(json::parse(kToolSchema));
  const json good = json::parse(R"({"query":"q","limit":1})");
  g_allocations = 0;
  g_counting = true;
  auto r = compiled->validate(good);
  g_counting = false;
  EXPECT_TRUE(r.valid);
  EXPECT_EQ(g_allocations, 0u);
}

TEST(schema_threads, concurrent_validation_gives_identical_results) {
  auto compiled = schema::compile(json::parse(kToolSchema));
  const json bad = json::parse(R"({"query":"","limit":500,"mode":"slow","extra":1})");
  const auto expected = compiled->validate(bad);
  ASSERT_EQ(expected.violations.size(), 4u);
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        auto r = compiled->validate(bad);
        if (r.violations.size() != expected.violations.size() ||
            r.violations[0].message != expected.violations[0].message || compiled->is_valid(bad))
          ++mismatches;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

}  // namespace
