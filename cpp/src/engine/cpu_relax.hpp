// The pause instruction of a spin-wait, shared by every loop that looks for work before it sleeps.
// Thread-safety: none needed (no state).
#pragma once

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

}  // namespace mcpcxx::detail
