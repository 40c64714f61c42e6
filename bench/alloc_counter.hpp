// Counting replacement of the global operator new/delete for benchmark programs: include it in
// exactly one translation unit of a benchmark executable, then read allocation_count().
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace mcpcxx::bench {

/// Heap allocations made through operator new since the program started.
inline std::atomic<std::uint64_t> g_allocation_count{0};
inline std::uint64_t allocation_count() noexcept {
  return g_allocation_count.load(std::memory_order_relaxed);
}

}  // namespace mcpcxx::bench

// These replacements pair malloc with free on purpose; GCC 12 cannot see through the replaced
// global operators and reports every inlined new/delete pair as mismatched.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t n) {
  mcpcxx::bench::g_allocation_count.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
