// JSON Schema validation of typical tool arguments (bench/schema_compare.py runs this next to
// Python's jsonschema and pydantic-core). `--dump-cases` prints the schema and instances as JSON
// so the comparison uses exactly the same data.
#include <cstring>
#include <iostream>

#include <benchmark/benchmark.h>

#include "mcpcxx/json_schema.hpp"

namespace {

using mcpcxx::json;
namespace schema = mcpcxx::schema;

const json& cases() {
  static const json c = json::parse(R"({
  "schema": {
    "type": "object",
    "properties": {
      "query": {"type": "string", "minLength": 1, "maxLength": 200},
      "limit": {"type": "integer", "minimum": 1, "maximum": 100},
      "mode": {"enum": ["fast", "exact", "fuzzy"]},
      "user": {"type": "string", "pattern": "^[a-z0-9_-]{3,32}$"},
      "verbose": {"type": "boolean"},
      "threshold": {"type": "number", "minimum": 0, "maximum": 1},
      "filters": {
        "type": "object",
        "properties": {
          "lang": {"type": "string", "maxLength": 8},
          "year": {"type": "integer", "minimum": 1900, "maximum": 2100}
        },
        "required": ["lang"],
        "additionalProperties": false
      },
      "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 10}
    },
    "required": ["query", "limit", "mode"],
    "additionalProperties": false
  },
  "valid": {"query": "weather in paris", "limit": 10, "mode": "fast", "user": "alice_01",
            "verbose": true, "threshold": 0.25, "filters": {"lang": "fr", "year": 2024},
            "tags": ["news", "today"]},
  "invalid": {"query": "", "limit": 500, "mode": "slow", "user": "A!", "verbose": "yes",
              "threshold": 2, "filters": {"year": 1800, "extra": 1}, "tags": ["a", 3]}
})");
  return c;
}

const schema::compiled_schema& compiled() {
  static const auto s = schema::compile(cases()["schema"]);
  return *s;
}

// The most common MCP tool schema shape: flat properties with only type and annotations.
const json& flat_cases() {
  static const json c = json::parse(R"({
  "schema": {
    "type": "object",
    "properties": {
      "query": {"type": "string", "description": "What to search for."},
      "limit": {"type": "integer", "description": "At most this many results."},
      "verbose": {"type": "boolean", "default": false},
      "threshold": {"type": "number", "title": "Threshold"},
      "tags": {"type": "array", "description": "Tags to match."}
    },
    "required": ["query", "limit"],
    "additionalProperties": false
  },
  "valid": {"query": "weather in paris", "limit": 10, "verbose": true, "threshold": 0.25,
            "tags": ["news", "today"]},
  "invalid": {"query": "weather in paris", "limit": 1.5, "extra": true}
})");
  return c;
}

const schema::compiled_schema& flat_compiled() {
  static const auto s = schema::compile(flat_cases()["schema"]);
  return *s;
}

void BM_schema_flat_is_valid_valid(benchmark::State& st) {
  const json& inst = flat_cases()["valid"];
  for (auto _ : st) benchmark::DoNotOptimize(flat_compiled().is_valid(inst));
}

void BM_schema_flat_is_valid_invalid(benchmark::State& st) {
  const json& inst = flat_cases()["invalid"];
  for (auto _ : st) benchmark::DoNotOptimize(flat_compiled().is_valid(inst));
}

void BM_schema_flat_validate_invalid(benchmark::State& st) {
  const json& inst = flat_cases()["invalid"];
  for (auto _ : st) benchmark::DoNotOptimize(flat_compiled().validate(inst));
}

void BM_schema_is_valid_valid(benchmark::State& st) {
  const json& inst = cases()["valid"];
  for (auto _ : st) benchmark::DoNotOptimize(compiled().is_valid(inst));
}

void BM_schema_validate_valid(benchmark::State& st) {
  const json& inst = cases()["valid"];
  for (auto _ : st) benchmark::DoNotOptimize(compiled().validate(inst));
}

void BM_schema_is_valid_invalid(benchmark::State& st) {
  const json& inst = cases()["invalid"];
  for (auto _ : st) benchmark::DoNotOptimize(compiled().is_valid(inst));
}

void BM_schema_validate_invalid(benchmark::State& st) {
  const json& inst = cases()["invalid"];
  for (auto _ : st) benchmark::DoNotOptimize(compiled().validate(inst));
}

void BM_schema_validate_and_format_invalid(benchmark::State& st) {
  const json& inst = cases()["invalid"];
  for (auto _ : st) {
    auto r = compiled().validate(inst);
    benchmark::DoNotOptimize(schema::format_violations(r, inst));
  }
}

void BM_schema_compile(benchmark::State& st) {
  const json& s = cases()["schema"];
  for (auto _ : st) benchmark::DoNotOptimize(schema::compile(s));
}

BENCHMARK(BM_schema_is_valid_valid);
BENCHMARK(BM_schema_validate_valid);
BENCHMARK(BM_schema_is_valid_invalid);
BENCHMARK(BM_schema_validate_invalid);
BENCHMARK(BM_schema_validate_and_format_invalid);
BENCHMARK(BM_schema_compile);
BENCHMARK(BM_schema_flat_is_valid_valid);
BENCHMARK(BM_schema_flat_is_valid_invalid);
BENCHMARK(BM_schema_flat_validate_invalid);

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--dump-cases") == 0) {
      std::cout << cases().dump() << "\n";
      return 0;
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
