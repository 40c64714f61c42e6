// State shared by every connection of one http_server: options, the engine, sessions, counters,
// and the bookkeeping that lets stop() wait for and cancel in-flight requests.
// Thread-safety: all members are safe to use from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "mcpcxx/http.hpp"
#include "mcpcxx/server.hpp"

#include "transport/http/security.hpp"
#include "transport/http/session_table.hpp"
#include "transport/http/tool_headers.hpp"

namespace mcpcxx::http {

/// Everything the endpoint needs besides the request.
class transport_context {
 public:
  transport_context(server& srv, http_options opts);

  server& srv;
  const http_options opts;
  const origin_policy origins;
  session_table sessions;
  std::atomic<bool> stopping{false};
  std::atomic<std::uint64_t> requests{0};
  std::atomic<std::uint64_t> sessions_expired{0};
  std::atomic<std::uint64_t> rejected_connections{0};
  std::string resource;               ///< resolved after bind
  std::string resource_metadata_url;  ///< resolved after bind

  /// Registers an in-flight POST served by `s`; returns the key for exchange_done().
  std::uint64_t exchange_started(const session& s);
  /// Unregisters an in-flight POST.
  void exchange_done(std::uint64_t key);
  /// Waits until no POST is in flight or `deadline` passes; true when none is left.
  bool wait_exchanges(std::chrono::steady_clock::time_point deadline);
  /// Shuts down the engine sessions of every in-flight stateless POST.
  void cancel_exchanges(std::chrono::milliseconds grace);
  /// Writes one line to the server log (never tokens, never bodies).
  void log(std::string_view line) const;

 private:
  mutable std::mutex flight_lock_;
  std::condition_variable flight_cv_;
  std::unordered_map<std::uint64_t, session> in_flight_;
  std::uint64_t next_key_ = 1;
};

}  // namespace mcpcxx::http
