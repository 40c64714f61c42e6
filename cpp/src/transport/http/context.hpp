// State shared by every connection of one http_server: options, the engine, sessions, counters,
// and the bookkeeping that lets stop() wait for and cancel in-flight requests.
// Thread-safety: all members are safe to use from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "mcpcxx/http.hpp"
#include "mcpcxx/server.hpp"

#include "core/request_router.hpp"
#include "transport/http/event_store.hpp"
#include "transport/http/security.hpp"
#include "transport/http/session_store.hpp"
#include "transport/http/session_table.hpp"
#include "transport/http/stream_follower.hpp"

namespace mcpcxx::http {

/// What stop() needs of an in-flight POST: answering it itself when the grace period ends.
class cuttable {
 public:
  virtual ~cuttable() = default;
  /// Answers the request with row H18 (503) now unless it already has its reply.
  virtual void cut_off() = 0;
};

/// max_connections lowered so that the connections cannot use up the process's descriptors
/// (RLIMIT_NOFILE soft limit minus k_reserved_descriptors for the engine, logs and accept).
std::size_t effective_connection_cap(std::size_t max_connections);
/// Descriptors kept out of the connection cap.
inline constexpr std::size_t k_reserved_descriptors = 64;

/// The stores behind legacy sessions (session_store.hpp, event_store.hpp) and the router of
/// their settling messages (core/request_router.hpp). A null member gets the in-memory default
/// (memory_session_store, memory_event_store sized by the options; the memory request router).
struct transport_stores {
  std::shared_ptr<session_store> sessions;
  std::shared_ptr<event_store> events;
  /// Delivers a response/notification POSTed for a session another process holds.
  std::shared_ptr<detail::request_router> router;
};

/// Everything the endpoint needs besides the request.
class transport_context {
 public:
  transport_context(server& srv, http_options opts, transport_stores stores = {});

  server& srv;
  const http_options opts;
  const origin_policy origins;
  /// Lower-cased credential headers handlers may read (http_options::expose_headers).
  const std::vector<std::string> exposed_headers;
  /// The live legacy sessions, over the stores and the router given at construction.
  session_table sessions;
  /// Resumed POST streams whose request runs on another replica (stopped with the server).
  stream_follower followers;
  std::atomic<bool> stopping{false};
  std::atomic<std::uint64_t> requests{0};
  std::atomic<std::uint64_t> sessions_expired{0};
  std::atomic<std::uint64_t> rejected_connections{0};
  std::atomic<std::uint64_t> evicted_connections{0};
  std::atomic<std::uint64_t> accept_failures{0};
  std::atomic<std::uint64_t> write_timeouts{0};
  std::string resource;               ///< resolved after bind
  std::string resource_metadata_url;  ///< resolved after bind

  /// Registers an in-flight POST served by `s`; returns the key for exchange_done().
  std::uint64_t exchange_started(const session& s, std::weak_ptr<cuttable> ex);
  /// Unregisters an in-flight POST.
  void exchange_done(std::uint64_t key);
  /// Waits until no POST is in flight or `deadline` passes; true when none is left.
  bool wait_exchanges(std::chrono::steady_clock::time_point deadline);
  /// Ends the subscriptions/listen streams of the in-flight POSTs gracefully (their result ends
  /// each stream); stop() calls it first, since a listen never finishes on its own.
  std::size_t end_listens();
  /// Answers every in-flight POST with row H18 (503), then shuts down their engine sessions
  /// (their handlers see cancellation; their late results are dropped).
  void cancel_exchanges(std::chrono::milliseconds grace);
  /// Answers every in-flight request no worker has started with P27a (the server is stopping);
  /// its handler never runs. Returns how many.
  std::size_t refuse_unstarted();
  /// POSTs between exchange_started() and exchange_done(): the I/O threads poll for their
  /// replies before sleeping while it is non-zero and small (io_loop.hpp). An open POST stream
  /// (subscriptions/listen) counts too, so on a 2-CPU machine it turns polling off meanwhile.
  std::atomic<std::size_t> awaited_replies{0};
  /// Frames the engine handed to a connection (connection::deliver): what an I/O thread polling
  /// for a reply watches between its polls.
  std::atomic<std::uint64_t> frames_posted{0};
  /// Set while one I/O thread polls for a reply (io_loop.hpp).
  std::atomic<bool> reply_polling{false};
  /// POST exchanges alive (in flight, or finished but still referenced): a leak shows here.
  std::atomic<std::size_t> live_exchanges{0};
  /// Writes one line to the server log (never tokens, never bodies).
  void log(std::string_view line) const;
  /// Writes one structured JSON line (the engine's log format) to the server log.
  void log_event(std::string_view level, std::string_view event, const json& fields) const;

 private:
  mutable std::mutex flight_lock_;
  std::condition_variable flight_cv_;
  std::unordered_map<std::uint64_t, std::pair<session, std::weak_ptr<cuttable>>> in_flight_;
  std::uint64_t next_key_ = 1;
};

}  // namespace mcpcxx::http
