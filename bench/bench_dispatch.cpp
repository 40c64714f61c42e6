// Dispatcher benchmark: the bytes of a request go in, the bytes of the response come out,
// in process, with the C++ echo tool. Beside it, the floor of this JSON library: nlohmann parse
// plus dump of the same bytes. Heap allocations per iteration are counted by replacing the global
// operator new. Run through bench/run_dispatch.sh, which writes the figures for
// docs/benchmarks-engine.md.
#include <atomic>
#include <cstdlib>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <utility>

#include <benchmark/benchmark.h>

#include "mcpcxx/mcpcxx.hpp"

#include "alloc_counter.hpp"
#include "observability/log_line.hpp"

namespace {

using mcpcxx::json;

// Keeps the last frame so the optimizer cannot drop the work, without extra copies.
class last_frame_sink final : public mcpcxx::frame_sink {
 public:
  void send(std::string frame, mcpcxx::frame_kind) override { last = std::move(frame); }
  std::string last;
};

const std::string k_call =
    R"({"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello world"},)"
    R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}})";

const std::string k_list =
    R"({"jsonrpc":"2.0","id":43,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}})";

std::unique_ptr<mcpcxx::server> make_server(int extra_tools) {
  mcpcxx::server_options o;
  o.log_requests = false;  // the per-request log line is measured separately below
  o.log_writer = [](std::string_view) {};
  o.worker_threads = 1;
  auto s = std::make_unique<mcpcxx::server>(o);
  s->add_tool({.name = "echo",
               .description = "Echo",
               .input_schema = {{"type", "object"},
                                {"properties", {{"text", {{"type", "string"}}}}},
                                {"required", {"text"}}}},
              [](const json& a, mcpcxx::request_context&) {
                return mcpcxx::tool_result::text(a["text"].get<std::string>());
              });
  for (int i = 0; i < extra_tools; ++i) {
    s->add_tool(
        {.name = "tool_" + std::to_string(i),
         .description = "Tool number " + std::to_string(i),
         .input_schema = {{"type", "object"}, {"properties", {{"x", {{"type", "integer"}}}}}}},
        [](const json&, mcpcxx::request_context&) { return mcpcxx::tool_result::text("x"); });
  }
  return s;
}

void report_allocs(benchmark::State& state, std::uint64_t before) {
  state.counters["allocs_per_iter"] =
      benchmark::Counter(static_cast<double>(mcpcxx::bench::allocation_count() - before) /
                         static_cast<double>(state.iterations()));
}

void BM_dispatch_floor_parse_dump(benchmark::State& state) {
  const auto before = mcpcxx::bench::allocation_count();
  for (auto _ : state) {
    std::string out = json::parse(k_call).dump();
    benchmark::DoNotOptimize(out);
  }
  report_allocs(state, before);
}

void run_dispatch(benchmark::State& state, const std::string& frame, int extra_tools, bool log) {
  auto srv = make_server(extra_tools);
  if (log) {
    mcpcxx::server_options o;  // logging variant: a fresh server with the request log on
    o.log_writer = [](std::string_view) {};
    o.worker_threads = 1;
    srv = std::make_unique<mcpcxx::server>(o);
    srv->add_tool({.name = "echo", .input_schema = {{"type", "object"}}},
                  [](const json& a, mcpcxx::request_context&) {
                    return mcpcxx::tool_result::text(a["text"].get<std::string>());
                  });
  }
  auto sink = std::make_shared<last_frame_sink>();
  auto session = srv->open_session(sink, {.inline_dispatch = true});
  session.receive(frame);  // warm the list cache
  const auto before = mcpcxx::bench::allocation_count();
  for (auto _ : state) {
    session.receive(frame);
    benchmark::DoNotOptimize(sink->last.data());
  }
  report_allocs(state, before);
  if (sink->last.find("\"result\"") == std::string::npos) state.SkipWithError("no result produced");
}

void BM_dispatch_tools_call_echo(benchmark::State& state) { run_dispatch(state, k_call, 0, false); }

void BM_dispatch_tools_call_echo_logged(benchmark::State& state) {
  run_dispatch(state, k_call, 0, true);
}

// At-most-once (memory records): a first call claims and settles a record; a repeat is answered
// from it. Each first call needs new arguments, so its baseline is a plain tool given the same
// varying frames.
std::string call_frame(const std::string& tool, std::uint64_t n) {
  return R"({"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":")" + tool +
         R"(","arguments":{"text":"hello )" + std::to_string(n) +
         R"("},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
         R"("io.modelcontextprotocol/clientCapabilities":{}}}})";
}

void run_once(benchmark::State& state, const std::string& tool, bool vary) {
  auto srv = make_server(0);
  mcpcxx::tool_spec spec{.name = "once_echo",
                         .input_schema = {{"type", "object"},
                                          {"properties", {{"text", {{"type", "string"}}}}},
                                          {"required", {"text"}}}};
  spec.at_most_once = mcpcxx::at_most_once{.window = std::chrono::minutes(10)};
  srv->add_tool(spec, [](const json& a, mcpcxx::request_context&) {
    return mcpcxx::tool_result::text(a["text"].get<std::string>());
  });
  auto sink = std::make_shared<last_frame_sink>();
  auto session = srv->open_session(sink, {.inline_dispatch = true});
  std::uint64_t n = 0;
  session.receive(call_frame(tool, n));
  const auto before = mcpcxx::bench::allocation_count();
  for (auto _ : state) {
    session.receive(call_frame(tool, vary ? ++n : 0));
    benchmark::DoNotOptimize(sink->last.data());
  }
  report_allocs(state, before);
  if (sink->last.find("\"result\"") == std::string::npos) state.SkipWithError("no result produced");
}

void BM_dispatch_echo_varying_arguments(benchmark::State& state) { run_once(state, "echo", true); }
void BM_dispatch_at_most_once_first_call(benchmark::State& state) {
  run_once(state, "once_echo", true);
}
void BM_dispatch_at_most_once_replay(benchmark::State& state) {
  run_once(state, "once_echo", false);
}

void BM_dispatch_tools_list_100_cached(benchmark::State& state) {
  run_dispatch(state, k_list, 99, false);
}

// tools/call of a success and of each error path, request log on (the default), on a server with
// the failing tools of the example server. The target: every error path at >= 0.85 of success.
const std::string k_modern_meta =
    R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
    R"("io.modelcontextprotocol/clientCapabilities":{}})";

std::string call_frame(std::string_view name, std::string_view args) {
  return R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":")" + std::string(name) +
         R"(","arguments":)" + std::string(args) + "," + k_modern_meta + "}}";
}

void run_path(benchmark::State& state, const std::string& frame, std::string_view marker) {
  mcpcxx::server_options o;
  o.log_writer = [](std::string_view) {};
  o.worker_threads = 1;
  mcpcxx::server srv(o);
  const json key_schema = {
      {"type", "object"},
      {"properties", {{"key", {{"type", "string"}, {"pattern", "^[A-Z]+-[0-9]+$"}}}}},
      {"required", {"key"}}};
  srv.add_tool({.name = "lookup", .input_schema = key_schema},
               [](const json& a, mcpcxx::request_context&) -> mcpcxx::tool_result {
                 const std::string key = a["key"].get<std::string>();
                 if (key == "ENG-1") return mcpcxx::tool_result::text("ENG-1: Fix the login page");
                 throw mcpcxx::tool_error("Issue lookup failed for issue " + key +
                                              ": it was not found. Verify the issue key.",
                                          mcpcxx::error_category::not_found, false, key);
               });
  srv.add_tool(
      {.name = "lookup_returns", .input_schema = key_schema},
      [](const json& a, mcpcxx::request_context&) -> mcpcxx::tool_result {
        const std::string key = a["key"].get<std::string>();
        return mcpcxx::tool_result::failed(mcpcxx::tool_error(
            "Issue lookup failed for issue " + key + ": it was not found. Verify the issue key.",
            mcpcxx::error_category::not_found, false, key));
      });
  srv.add_tool({.name = "explode", .input_schema = {{"type", "object"}}},
               [](const json&, mcpcxx::request_context&) -> mcpcxx::tool_result {
                 throw std::runtime_error("database password=hunter2 rejected");
               });
  auto sink = std::make_shared<last_frame_sink>();
  auto session = srv.open_session(sink, {.inline_dispatch = true});
  session.receive(frame);
  if (sink->last.find(marker) == std::string::npos) state.SkipWithError("unexpected reply");
  const auto before = mcpcxx::bench::allocation_count();
  for (auto _ : state) {
    session.receive(frame);
    benchmark::DoNotOptimize(sink->last.data());
  }
  report_allocs(state, before);
}

void BM_path_success(benchmark::State& s) {
  run_path(s, call_frame("lookup", R"({"key":"ENG-1"})"), R"("result")");
}
void BM_path_tool_error(benchmark::State& s) {
  run_path(s, call_frame("lookup", R"({"key":"ENG-9"})"), R"("isError":true)");
}
// The same failure returned with tool_result::failed instead of thrown.
void BM_path_tool_error_returned(benchmark::State& s) {
  run_path(s, call_frame("lookup_returns", R"({"key":"ENG-9"})"), R"("isError":true)");
}
void BM_path_invalid_args(benchmark::State& s) {
  run_path(s, call_frame("lookup", R"({"key":5})"), R"("isError":true)");
}
void BM_path_unexpected(benchmark::State& s) {
  run_path(s, call_frame("explode", "{}"), R"("isError":true)");
}
void BM_path_unknown_tool(benchmark::State& s) {
  run_path(s, call_frame("lookpu", R"({"key":"ENG-1"})"), R"("error")");
}

// The request log line alone, with the fields exchange::log_outcome writes for a tools/call.
void BM_request_log_line(benchmark::State& state) {
  std::string buf;
  std::size_t bytes = 0;
  const auto before = mcpcxx::bench::allocation_count();
  for (auto _ : state) {
    mcpcxx::detail::log_line line(buf, "info", "request");
    line.str("method", "tools/call")
        .integer("id", 42)
        .str("outcome", "ok")
        .str("category", "ok")
        .millis("latencyMs", 1234)
        .str("era", "modern")
        .str("tool", "echo");
    bytes += line.finish().size();
  }
  benchmark::DoNotOptimize(bytes);
  report_allocs(state, before);
}

// The cache lookup and frame assembly alone, without parsing the request bytes.
void BM_dispatch_tools_list_100_cache_hit_only(benchmark::State& state) {
  auto srv = make_server(99);
  auto sink = std::make_shared<last_frame_sink>();
  auto session = srv->open_session(sink, {.inline_dispatch = true});
  const auto parsed = mcpcxx::jsonrpc::parse(k_list);
  const auto before = mcpcxx::bench::allocation_count();
  for (auto _ : state) {
    auto msg = parsed;  // its cost alone is BM_copy_parsed_list_request, to subtract
    session.receive(std::move(msg));
    benchmark::DoNotOptimize(sink->last.data());
  }
  report_allocs(state, before);
}

// The copy of the parsed request that BM_dispatch_tools_list_100_cache_hit_only makes per call
// (Pause/ResumeTiming would cost more than it).
void BM_copy_parsed_list_request(benchmark::State& state) {
  const auto parsed = mcpcxx::jsonrpc::parse(k_list);
  const auto before = mcpcxx::bench::allocation_count();
  for (auto _ : state) {
    auto msg = parsed;
    benchmark::DoNotOptimize(msg);
  }
  report_allocs(state, before);
}

// Every benchmark of this program, in the order they run.
// Middleware on tools/call (inline dispatch, as BM_dispatch_tools_call_echo, which is the zero
// middleware baseline): `add` installs what is measured.
void run_with_middleware(benchmark::State& state, const std::function<void(mcpcxx::server&)>& add) {
  auto srv = make_server(0);
  add(*srv);
  auto sink = std::make_shared<last_frame_sink>();
  auto session = srv->open_session(sink, {.inline_dispatch = true});
  session.receive(k_call);
  const auto before = mcpcxx::bench::allocation_count();
  for (auto _ : state) {
    session.receive(k_call);
    benchmark::DoNotOptimize(sink->last.data());
  }
  report_allocs(state, before);
  if (sink->last.find("hello world") == std::string::npos) state.SkipWithError("no result");
}

void BM_middleware_pass_through(benchmark::State& state) {
  run_with_middleware(state, [](mcpcxx::server& s) {
    s.add_middleware(
        {.name = "pass",
         .before = [](const mcpcxx::middleware_request&)
             -> std::optional<mcpcxx::middleware_reply> { return std::nullopt; },
         .after = [](const mcpcxx::middleware_request&, const mcpcxx::middleware_reply&)
             -> std::optional<mcpcxx::middleware_reply> { return std::nullopt; }});
  });
}

void BM_middleware_rate_limit(benchmark::State& state) {
  run_with_middleware(state, [](mcpcxx::server& s) {
    s.add_middleware(mcpcxx::rate_limit({.burst = 1e12, .per_second = 1e12}));
  });
}

void BM_middleware_size_limit(benchmark::State& state) {
  run_with_middleware(state, [](mcpcxx::server& s) { s.add_middleware(mcpcxx::size_limit({})); });
}

void BM_middleware_authorize(benchmark::State& state) {
  run_with_middleware(state, [](mcpcxx::server& s) {
    s.add_middleware(mcpcxx::authorize(
        {.deny = [](const mcpcxx::middleware_request& r) -> std::optional<std::string> {
          if (r.principal().is_null()) return std::nullopt;
          return "denied";
        }}));
  });
}

void BM_middleware_audit(benchmark::State& state) {
  run_with_middleware(state, [](mcpcxx::server& s) {
    s.add_middleware(mcpcxx::audit({.sink = [](const json& l) { benchmark::DoNotOptimize(&l); }}));
  });
}

void BM_middleware_all_four(benchmark::State& state) {
  run_with_middleware(state, [](mcpcxx::server& s) {
    s.add_middleware(mcpcxx::authorize(
        {.deny = [](const mcpcxx::middleware_request&) -> std::optional<std::string> {
          return std::nullopt;
        }}));
    s.add_middleware(mcpcxx::rate_limit({.burst = 1e12, .per_second = 1e12}));
    s.add_middleware(mcpcxx::size_limit({}));
    s.add_middleware(mcpcxx::audit({.sink = [](const json& l) { benchmark::DoNotOptimize(&l); }}));
  });
}

// The response cache: `lookup` (echo's body, annotated read-only) called with the same arguments
// every time, answered from a memory cache (every call after the first is a hit) or run each time
// (no middleware: the uncached baseline of the same tool).
void run_lookup(benchmark::State& state, bool cached) {
  auto srv = make_server(0);
  srv->add_tool({.name = "lookup",
                 .input_schema = {{"type", "object"}},
                 .annotations = {{"readOnlyHint", true}}},
                [](const json& a, mcpcxx::request_context&) {
                  return mcpcxx::tool_result::text(a["text"].get<std::string>());
                });
  if (cached) srv->add_middleware(mcpcxx::response_cache({.ttl = std::chrono::hours(1)}));
  std::string call = k_call;
  call.replace(call.find("\"echo\""), 6, "\"lookup\"");
  auto sink = std::make_shared<last_frame_sink>();
  auto session = srv->open_session(sink, {.inline_dispatch = true});
  session.receive(call);
  const auto before = mcpcxx::bench::allocation_count();
  for (auto _ : state) {
    session.receive(call);
    benchmark::DoNotOptimize(sink->last.data());
  }
  report_allocs(state, before);
  if (sink->last.find("hello world") == std::string::npos) state.SkipWithError("no result");
  if (cached && sink->last.find("\"hit\":true") == std::string::npos) {
    state.SkipWithError("not a cache hit");
  }
}

void BM_response_cache_uncached(benchmark::State& state) { run_lookup(state, false); }
void BM_response_cache_hit(benchmark::State& state) { run_lookup(state, true); }

// server::mount: the echo tool of a mounted server called as m_echo through the parent (neither
// has middleware), against BM_dispatch_tools_call_echo (the same tool registered directly).
void BM_mount_tools_call_echo(benchmark::State& state) {
  auto child = make_server(0);
  auto parent = make_server(0);
  parent->mount(*child, "m");
  std::string call = k_call;
  call.replace(call.find("\"echo\""), 6, "\"m_echo\"");
  auto sink = std::make_shared<last_frame_sink>();
  auto session = parent->open_session(sink, {.inline_dispatch = true});
  session.receive(call);
  const auto before = mcpcxx::bench::allocation_count();
  for (auto _ : state) {
    session.receive(call);
    benchmark::DoNotOptimize(sink->last.data());
  }
  report_allocs(state, before);
  if (sink->last.find("hello world") == std::string::npos) state.SkipWithError("no result");
}

const std::pair<const char*, void (*)(benchmark::State&)> k_benchmarks[] = {
    {"BM_dispatch_floor_parse_dump", BM_dispatch_floor_parse_dump},
    {"BM_dispatch_tools_call_echo", BM_dispatch_tools_call_echo},
    {"BM_dispatch_tools_call_echo_logged", BM_dispatch_tools_call_echo_logged},
    {"BM_dispatch_tools_list_100_cached", BM_dispatch_tools_list_100_cached},
    {"BM_path_success", BM_path_success},
    {"BM_path_tool_error", BM_path_tool_error},
    {"BM_path_tool_error_returned", BM_path_tool_error_returned},
    {"BM_path_invalid_args", BM_path_invalid_args},
    {"BM_path_unexpected", BM_path_unexpected},
    {"BM_path_unknown_tool", BM_path_unknown_tool},
    {"BM_request_log_line", BM_request_log_line},
    {"BM_dispatch_tools_list_100_cache_hit_only", BM_dispatch_tools_list_100_cache_hit_only},
    {"BM_copy_parsed_list_request", BM_copy_parsed_list_request},
    {"BM_dispatch_echo_varying_arguments", BM_dispatch_echo_varying_arguments},
    {"BM_dispatch_at_most_once_first_call", BM_dispatch_at_most_once_first_call},
    {"BM_dispatch_at_most_once_replay", BM_dispatch_at_most_once_replay},
    {"BM_middleware_pass_through", BM_middleware_pass_through},
    {"BM_middleware_rate_limit", BM_middleware_rate_limit},
    {"BM_middleware_size_limit", BM_middleware_size_limit},
    {"BM_middleware_authorize", BM_middleware_authorize},
    {"BM_middleware_audit", BM_middleware_audit},
    {"BM_middleware_all_four", BM_middleware_all_four},
    {"BM_mount_tools_call_echo", BM_mount_tools_call_echo},
    {"BM_response_cache_uncached", BM_response_cache_uncached},
    {"BM_response_cache_hit", BM_response_cache_hit},
};

}  // namespace

// MCPCXX_BENCH_ITERATIONS=N runs every benchmark exactly N iterations, once: run under callgrind
// with two values of N, the difference of the instruction counts divided by the difference of N
// is the cost of one call without the setup (bench/callgrind_dispatch.py).
int main(int argc, char** argv) {
  const char* fixed = std::getenv("MCPCXX_BENCH_ITERATIONS");
  const benchmark::IterationCount n = fixed != nullptr ? std::atoll(fixed) : 0;
  for (const auto& [name, fn] : k_benchmarks) {
    auto* b = benchmark::RegisterBenchmark(name, fn);
    if (n > 0) b->Iterations(n)->Repetitions(1);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
