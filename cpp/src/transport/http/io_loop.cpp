// Implementation of the I/O threads' run loop.
#include "transport/http/io_loop.hpp"

#include <sched.h>
#include <thread>

#include "engine/cpu_relax.hpp"

namespace mcpcxx::http {

namespace {

// Pauses between two polls unless a frame is posted first: about 2-4 us. A poll takes the
// scheduler's lock and makes a syscall; polling back to back made the worker posting the reply
// wait for that lock.
constexpr int k_watch_rounds = 64;

bool worth_polling(const reply_watch& watch) {
  const auto n = watch.awaited.load(std::memory_order_acquire);
  return n > 0 && n <= watch.max_awaited;
}

// Polls until a handler ran (true) or polling stops being worth it or the time is up (false).
// The count is read before each poll: a reply is posted before its exchange leaves the count, so
// the poll after the count reads zero still finds it.
bool poll_for_reply(asio::io_context& io, const reply_watch& watch) {
  const auto deadline = std::chrono::steady_clock::now() + watch.spin;
  for (;;) {
    const auto seen = watch.posted.load(std::memory_order_acquire);
    const bool worth = worth_polling(watch);
    if (io.poll() > 0) return true;
    if (!worth || io.stopped() || std::chrono::steady_clock::now() >= deadline) return false;
    // A thread woken on this CPU (the worker with the reply, a local client) runs at once.
    std::this_thread::yield();
    for (int i = 0; i < k_watch_rounds && watch.posted.load(std::memory_order_acquire) == seen;
         ++i) {
      detail::cpu_relax();
    }
  }
}

// poll_for_reply() by the one thread that claims `watch.polling`; false when another holds it.
bool poll_alone(asio::io_context& io, const reply_watch& watch) {
  bool expected = false;
  if (!watch.polling.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) {
    return false;
  }
  const bool ran = poll_for_reply(io, watch);
  watch.polling.store(false, std::memory_order_release);
  return ran;
}

}  // namespace

std::size_t spare_cpus_for_replies() {
  cpu_set_t set;
  CPU_ZERO(&set);
  const int cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
  return cpus > 1 ? static_cast<std::size_t>(cpus - 1) : 0;
}

void run_io_thread(asio::io_context& io, const reply_watch& watch) {
  if (watch.spin.count() == 0) {  // polling off: exactly asio's own loop
    io.run();
    return;
  }
  for (;;) {
    if (worth_polling(watch) && poll_alone(io, watch)) continue;
    if (io.run_one() == 0) return;  // stopped, or no work left
  }
}

}  // namespace mcpcxx::http
