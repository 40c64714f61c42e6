// Implementation of the I/O threads' run loop.
#include "transport/http/io_loop.hpp"

#include <thread>
#include <utility>

#include "core/cpu_relax.hpp"

namespace mcpcxx::http {

namespace {

// Pauses between two polls unless a frame is posted first: about 2-4 us. A poll takes the
// scheduler's lock and makes a syscall; polling back to back made the worker posting the reply
// wait for that lock.
constexpr int k_watch_rounds = 64;

// Set by run_io_thread on its own thread, and by note_reply_here on an I/O thread that replied.
thread_local bool t_io_thread = false;
thread_local bool t_replied_here = false;

// What a poll waits for: a reply from the pool, or the next request after a reply made here.
enum class awaiting { reply, next_request };

bool worth_polling(const reply_watch& watch, awaiting what) {
  const auto n = watch.awaited.load(std::memory_order_acquire);
  return (what == awaiting::next_request || n > 0) && n <= watch.max_awaited;
}

using clock = std::chrono::steady_clock;

// Polls until a handler ran (true) or polling stops being worth it or `deadline` passes (false).
// The count is read before each poll: a reply is posted before its exchange leaves the count, so
// the poll after the count reads zero still finds it.
bool poll_for(asio::io_context& io, const reply_watch& watch, awaiting what,
              clock::time_point deadline) {
  for (;;) {
    const auto seen = watch.posted.load(std::memory_order_acquire);
    const bool worth = worth_polling(watch, what);
    if (io.poll() > 0) return true;
    if (!worth || io.stopped() || clock::now() >= deadline) return false;
    // A thread woken on this CPU (the worker with the reply, a local client) runs at once.
    std::this_thread::yield();
    for (int i = 0; i < k_watch_rounds && watch.posted.load(std::memory_order_acquire) == seen;
         ++i) {
      detail::cpu_relax();
    }
  }
}

// poll_for() by the one thread that claims `watch.polling`; false when another holds it.
bool poll_alone(asio::io_context& io, const reply_watch& watch, awaiting what,
                clock::time_point deadline) {
  bool expected = false;
  if (!watch.polling.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) {
    return false;
  }
  const bool ran = poll_for(io, watch, what, deadline);
  watch.polling.store(false, std::memory_order_release);
  return ran;
}

}  // namespace

void note_reply_here() noexcept { t_replied_here = t_io_thread; }

void run_io_thread(asio::io_context& io, const reply_watch& watch) {
  if (watch.spin.count() == 0) {  // polling off: exactly asio's own loop
    io.run();
    return;
  }
  t_io_thread = true;
  // Unlike a reply's, this time does not restart with each handler: the first ones to run are
  // usually the write of the reply itself, and only a new reply made here extends it.
  auto next_request_until = clock::time_point::min();
  for (;;) {
    if (worth_polling(watch, awaiting::reply) &&
        poll_alone(io, watch, awaiting::reply, clock::now() + watch.spin)) {
      continue;
    }
    if (std::exchange(t_replied_here, false)) next_request_until = clock::now() + watch.spin;
    if (next_request_until > clock::now() &&
        poll_alone(io, watch, awaiting::next_request, next_request_until)) {
      continue;
    }
    if (io.run_one() == 0) return;  // stopped, or no work left
  }
}

}  // namespace mcpcxx::http
