// The at-most-once step of tools/call (core/tool_step.hpp), attached to tools that declare
// tool_spec::at_most_once: it claims the operation's record before the handler runs, records how
// the handler ended, and answers a repeat from the record instead of running the handler
// (rows T11, T12, T13, or the first call's result again). docs/error-model.md, "Repeated calls".
// Thread-safety: the step and the service may be used by any number of calls at once;
// use_records() may run while calls are in flight (they finish on the records they claimed in).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "core/call_records.hpp"
#include "core/tool_step.hpp"

namespace mcpcxx::detail {

class server_core;

/// What a call of an at-most-once tool led to, as mcpcxx_at_most_once_total counts it.
enum class once_event : std::uint8_t {
  replayed,     ///< a repeat got the first call's result again
  in_progress,  ///< a repeat was refused while the first call runs (T11, or its task)
  unknown,      ///< a repeat was refused: the first call's outcome is unknown (T12)
  not_kept,     ///< a repeat was refused: applied, result too large to keep (T13)
  resolved,     ///< the resolver settled an unknown outcome (replayed or rerun)
  unsettled,    ///< the store could not record how a call ended (it turns unknown)
};
inline constexpr std::size_t k_once_events = 6;

/// The at-most-once state of one server: where records live, and the counters.
class once_service {
 public:
  /// Records in memory (options().at_most_once) until use_records().
  explicit once_service(server_core& core);
  /// Moves new claims to `records` (the shared store).
  void use_records(std::shared_ptr<call_records> records);
  /// Where claims go now.
  std::shared_ptr<call_records> records() const;
  server_core& core() const noexcept { return core_; }
  /// Counts `e` for tool `tool`.
  void count(const std::string& tool, once_event e);
  /// mcpcxx_at_most_once_total and mcpcxx_at_most_once_evicted_total in Prometheus text ("" until
  /// a tool declares at_most_once).
  std::string metrics_text() const;
  /// A tool declares at_most_once: its series print from now on.
  void declare(const std::string& tool);

 private:
  server_core& core_;
  mutable std::mutex mutex_;
  std::shared_ptr<call_records> records_;
  std::map<std::string, std::array<std::uint64_t, k_once_events>> counts_;
  std::shared_ptr<std::atomic<std::uint64_t>> evicted_;  // counted by the memory records
};

/// The step of at-most-once tools (see the file comment).
std::shared_ptr<const tool_step> make_once_step(std::shared_ptr<once_service> service);

}  // namespace mcpcxx::detail
