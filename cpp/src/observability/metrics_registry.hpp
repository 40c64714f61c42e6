// metrics_registry: the engine's request counters, latency histograms and in-flight gauge, kept
// in sharded cells so the per-request cost is one uncontended lock on the calling thread's shard.
// Label values come from fixed sets only: the methods given at construction (the method table) (or
// "_unknown" /
// "_invalid"), registered tools (or "_unknown"), known categories (or "_other"). A client can
// therefore never create a series (bounded cardinality).
// Thread-safety: every member may be called concurrently from any thread. Each thread records
// into one of k_shards shards (picked once per thread); render() and snapshot() lock each shard
// briefly in turn.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "mcpcxx/server.hpp"

namespace mcpcxx::detail {

/// Outcome classes counted by the metrics and named in the request log.
enum class outcome_class { ok, tool_error, protocol_error, cancelled };

/// Tool label slots: 0 no tool (not a tools/call), 1 a name no registered tool has.
inline constexpr std::uint32_t k_no_tool_slot = 0;
inline constexpr std::uint32_t k_unknown_tool_slot = 1;

/// One settled request, as the metrics see it.
struct request_sample {
  std::string_view method;  ///< the JSON-RPC method as sent (mapped to a fixed label)
  std::uint32_t tool_slot = k_no_tool_slot;
  outcome_class outcome;
  std::string_view category;
  std::int64_t micros = 0;  ///< latency from receipt to reply
  bool unexpected = false;  ///< an unexpected failure (it carries a reference id)
  bool timed = true;        ///< false: counted but not in the latency histogram (cancelled)
};

/// Gauges read at render time from their owners.
struct gauge_values {
  std::uint64_t sessions_open = 0;
  std::uint64_t listeners = 0;
  std::uint64_t stuck_handlers = 0;
  std::uint64_t long_running_handlers = 0;
  std::uint64_t worker_threads = 0;
};

/// Sharded counters of one engine.
class metrics_registry {
 public:
  /// `methods`: the method label values (names with static storage), in the order they print.
  explicit metrics_registry(std::vector<std::string_view> methods);
  metrics_registry(const metrics_registry&) = delete;
  metrics_registry& operator=(const metrics_registry&) = delete;

  /// The label slot of tool `name` (registered once; a re-registered name keeps its slot).
  std::uint32_t tool_slot(std::string_view name);
  /// A request was received (in-flight + 1).
  void started() noexcept;
  /// A received request settled or was dropped (in-flight - 1).
  void stopped() noexcept;
  /// Counts one settled request (and its latency unless !timed).
  void record(const request_sample& s) noexcept;
  /// Counts a message refused before it became a request (method label "_invalid"), or a
  /// notification (outcome ok, category "notification").
  void record_message(outcome_class o, std::string_view category) noexcept;

  /// The legacy struct view (server::metrics()).
  server_metrics snapshot() const;
  /// Every metric in the Prometheus text exposition format 0.0.4.
  std::string render(const gauge_values& g) const;

  /// Latency bucket upper bounds in microseconds (the last bucket, +Inf, is implicit).
  static constexpr std::array<std::int64_t, 16> k_bucket_us = {
      500,    1000,   2500,    5000,    10000,   25000,    50000,    100000,
      250000, 500000, 1000000, 2500000, 5000000, 10000000, 30000000, 60000000};

 private:
  struct histogram {
    std::uint64_t count = 0;
    std::int64_t sum_us = 0;
    std::array<std::uint64_t, k_bucket_us.size()> buckets{};  ///< not cumulative
  };
  struct alignas(64) shard {
    std::mutex mutex;
    std::unordered_map<std::uint64_t, std::uint64_t> requests;    ///< request_key -> count
    std::unordered_map<std::uint64_t, histogram> latency;         ///< (method, tool) -> histogram
    std::unordered_map<std::uint64_t, std::uint64_t> unexpected;  ///< (method, tool) -> count
    std::uint64_t notifications = 0;
    std::atomic<std::int64_t> in_flight{0};
  };
  static constexpr std::size_t k_shards = 16;

  shard& local() noexcept;
  std::uint32_t method_index(std::string_view method) const noexcept;
  std::string_view method_name(std::uint32_t i) const noexcept;
  std::vector<std::string> tool_labels() const;
  void render_requests(std::string& out, const std::vector<std::string>& tools) const;
  void render_latency(std::string& out, const std::vector<std::string>& tools) const;
  void render_unexpected(std::string& out, const std::vector<std::string>& tools) const;

  std::vector<std::string_view> methods_;
  mutable std::array<shard, k_shards> shards_;
  mutable std::mutex tools_mutex_;
  std::vector<std::string> tools_;  ///< slot -> label
  std::unordered_map<std::string, std::uint32_t> tool_slots_;
};

}  // namespace mcpcxx::detail
