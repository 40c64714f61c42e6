// The run loop of the HTTP server's I/O threads.
// It is asio's io_context::run(), with one difference: while a POST waits for its reply from the
// engine's workers and the thread has nothing else to do, it keeps polling for up to
// http_options::reply_poll before it sleeps in epoll_wait, provided a CPU is spare for it (few
// replies awaited, no other I/O thread polling). A quick tool's reply then finds the thread awake:
// no eventfd wake-up, and no halted CPU to bring back (on a virtual machine without guest
// halt-polling that wake-up alone cost about 20 us per request; docs/benchmarks-engine.md).
// Likewise, after a handler ran on the I/O thread itself (inline dispatch) and replied, the thread
// polls as long for the client's next request, which a sleeping thread would pay the same wake-up
// for (round eleven).
// Thread-safety: each I/O thread runs its own call; any number may run on one io_context.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include <asio.hpp>

namespace mcpcxx::http {

/// The longest http_options::reply_poll accepted.
inline constexpr std::chrono::microseconds k_max_reply_poll{10000};

/// What an I/O thread watches to decide whether to poll instead of sleeping.
struct reply_watch {
  const std::atomic<std::size_t>& awaited;   ///< POSTs waiting for their reply
  const std::atomic<std::uint64_t>& posted;  ///< frames handed to connections so far
  std::atomic<bool>& polling;                ///< one I/O thread of the server polls at a time
  std::chrono::microseconds spin;            ///< longest poll per idle spell (0: never polls)
  std::size_t max_awaited;                   ///< polls only while at most this many await:
                                             ///< detail::spare_cpus(), as more replies
                                             ///< awaited need every CPU for their handlers
};

/// Runs `io` until it is stopped or out of work. While 1 to `watch.max_awaited` POSTs await their
/// reply, one idle thread polls for up to `watch.spin` before it blocks; the time restarts after
/// every handler. A thread whose handler just replied on it (note_reply_here) polls likewise for
/// the next event while at most `watch.max_awaited` replies are awaited.
void run_io_thread(asio::io_context& io, const reply_watch& watch);

/// Called by whichever thread hands a reply to a connection; on a thread inside run_io_thread
/// (an inline handler's reply) it makes that thread poll for the next request before sleeping.
void note_reply_here() noexcept;

}  // namespace mcpcxx::http
