// The pause instruction of a spin-wait, and the CPUs one may use, shared by every loop that looks
// for work before it sleeps.
// Thread-safety: none needed (no state).
#pragma once

#include <cstddef>
#include <sched.h>
#include <thread>

namespace mcpcxx::detail {

/// Tells the CPU this thread is spin-waiting (x86 pause, arm yield); elsewhere yields the thread.
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#else
  std::this_thread::yield();
#endif
}

/// The CPUs this process may run on, minus one (0 on a single CPU): a thread that polls instead
/// of sleeping may use only these, or it takes the CPU the work it waits for needs.
inline std::size_t spare_cpus() noexcept {
  cpu_set_t set;
  CPU_ZERO(&set);
  const int cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
  return cpus > 1 ? static_cast<std::size_t>(cpus - 1) : 0;
}

}  // namespace mcpcxx::detail
