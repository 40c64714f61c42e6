// JSON-RPC codec cost for a typical tools/call exchange, beside the floor of the JSON library:
// nlohmann::json::parse + dump of the same bytes. Reports ns per op and heap allocations per op.
#include <atomic>
#include <cstdlib>
#include <new>
#include <string>

#include <benchmark/benchmark.h>

#include "mcpcxx/jsonrpc.hpp"

#include "alloc_counter.hpp"

namespace {

using mcpcxx::json;
namespace rpc = mcpcxx::jsonrpc;

const std::string k_request =
    R"({"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":)"
    R"({"text":"hello from the benchmark, a sentence of typical length"},"_meta":)"
    R"({"progressToken":"p-42","io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
    R"("io.modelcontextprotocol/clientCapabilities":{}}}})";

const json k_result = json::parse(
    R"({"content":[{"type":"text","text":"hello from the benchmark, a sentence of typical length"}],)"
    R"("isError":false,"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":)"
    R"({"name":"mcpcxx-server","version":"0.1.0"}}})");

/// Runs `op` and reports allocations per iteration.
template <class Op>
void measure(benchmark::State& state, Op&& op) {
  const std::size_t before = mcpcxx::bench::allocation_count();
  for (auto _ : state) op();
  const std::size_t after = mcpcxx::bench::allocation_count();
  state.counters["allocs/op"] =
      benchmark::Counter(static_cast<double>(after - before), benchmark::Counter::kAvgIterations);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * k_request.size()));
}

void BM_Floor_NlohmannParseDump(benchmark::State& state) {
  measure(state, [] {
    const json v = json::parse(k_request);
    std::string out = v.dump();
    benchmark::DoNotOptimize(out);
  });
}

void BM_Codec_ParseClassify(benchmark::State& state) {
  measure(state, [] {
    rpc::message m = rpc::parse(k_request);
    benchmark::DoNotOptimize(m);
  });
}

void BM_Floor_NlohmannDumpResultEnvelope(benchmark::State& state) {
  measure(state, [] {
    const json envelope = {{"jsonrpc", "2.0"}, {"id", 42}, {"result", k_result}};
    std::string out = envelope.dump();
    benchmark::DoNotOptimize(out);
  });
}

void BM_Codec_SerializeResult(benchmark::State& state) {
  const rpc::request_id id{std::int64_t{42}};
  measure(state, [&] {
    std::string out = rpc::serialize_result(id, k_result);
    benchmark::DoNotOptimize(out);
  });
}

void BM_Codec_SerializeError(benchmark::State& state) {
  const rpc::request_id id{std::string("req-42")};
  const rpc::error_object e{-32602, "Unknown tool: ech", json{{"suggestions", {"echo"}}}};
  measure(state, [&] {
    std::string out = rpc::serialize_error(id, e);
    benchmark::DoNotOptimize(out);
  });
}

void BM_Codec_RoundTrip(benchmark::State& state) {
  measure(state, [] {
    rpc::message m = rpc::parse(k_request);
    std::string out = rpc::serialize_result(*m.id, k_result);
    benchmark::DoNotOptimize(out);
  });
}

void BM_Floor_RoundTrip(benchmark::State& state) {
  measure(state, [] {
    const json v = json::parse(k_request);
    const json envelope = {{"jsonrpc", "2.0"}, {"id", v["id"]}, {"result", k_result}};
    std::string out = envelope.dump();
    benchmark::DoNotOptimize(out);
  });
}

}  // namespace

BENCHMARK(BM_Floor_NlohmannParseDump);
BENCHMARK(BM_Codec_ParseClassify);
BENCHMARK(BM_Floor_NlohmannDumpResultEnvelope);
BENCHMARK(BM_Codec_SerializeResult);
BENCHMARK(BM_Codec_SerializeError);
BENCHMARK(BM_Floor_RoundTrip);
BENCHMARK(BM_Codec_RoundTrip);
BENCHMARK_MAIN();
