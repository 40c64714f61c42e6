// Implementation of the stderr JSON-lines log.
#include "observability/server_log.hpp"

#include <algorithm>
#include <cerrno>
#include <random>
#include <sys/uio.h>
#include <unistd.h>

#include "observability/log_line.hpp"

namespace mcpcxx::detail {

namespace {

// Every default-writer line of the process leaves under this lock, so a held batch (which may
// exceed PIPE_BUF) never interleaves with another thread's line.
std::mutex& stderr_mutex() {
  static std::mutex m;
  return m;
}

struct held_lines {
  bool holding = false;
  std::string text;  // lines, each with its newline
};

held_lines& this_thread_held() {
  thread_local held_lines h;
  return h;
}

constexpr std::size_t k_held_limit = std::size_t{64} * 1024;

// Writes all of `parts`; stops quietly when stderr is gone (logging must never take the server
// down).
void write_parts(iovec* parts, int count) {
  std::lock_guard lock(stderr_mutex());
  int first = 0;
  while (first < count) {
    const ssize_t n = ::writev(STDERR_FILENO, parts + first, count - first);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    for (auto done = static_cast<std::size_t>(n); done > 0 && first < count;) {
      const std::size_t step = std::min(done, parts[first].iov_len);
      parts[first].iov_base = static_cast<char*>(parts[first].iov_base) + step;
      parts[first].iov_len -= step;
      done -= step;
      if (parts[first].iov_len == 0) ++first;
    }
  }
}

void flush_held(held_lines& h) {
  if (h.text.empty()) return;
  iovec part{h.text.data(), h.text.size()};
  write_parts(&part, 1);
  h.text.clear();
}

// One writev per line (the line and its newline leave together, without copying the line), or
// appended to this thread's held lines.
void write_stderr(std::string_view line) {
  held_lines& h = this_thread_held();
  if (h.holding) {
    h.text.append(line).push_back('\n');
    if (h.text.size() >= k_held_limit) flush_held(h);
    return;
  }
  static constexpr char newline[] = "\n";
  iovec parts[2] = {{const_cast<char*>(line.data()), line.size()}, {const_cast<char*>(newline), 1}};
  write_parts(parts, 2);
}

// A field named level or event overrides the argument (handler_log carries the handler's level).
std::string_view override_of(const json& fields, const char* key, std::string_view fallback) {
  if (!fields.is_object()) return fallback;
  const auto it = fields.find(key);
  return it != fields.end() && it->is_string() ? std::string_view(it->get_ref<const std::string&>())
                                               : fallback;
}

}  // namespace

server_log::server_log(std::function<void(std::string_view)> writer, log_level threshold)
    : writer_(writer ? std::move(writer) : std::function<void(std::string_view)>(write_stderr)),
      threshold_(threshold) {}

bool server_log::enabled(std::string_view level) const noexcept {
  if (threshold_ == log_level::debug) return true;
  const auto l = parse_log_level(level);
  return !l || *l >= threshold_;
}

void server_log::write(std::string_view level, std::string_view event, const json& fields) {
  const std::string_view effective = override_of(fields, "level", level);
  if (!enabled(effective)) return;
  thread_local std::string buf;
  log_line line(buf, effective, override_of(fields, "event", event));
  write_line(line.members(fields).finish());
}

void server_log::write_line(std::string_view line) {
  std::lock_guard lock(mutex_);
  writer_(line);
}

void server_log::hold_lines() noexcept { this_thread_held().holding = true; }

void server_log::release_held_lines() noexcept {
  held_lines& h = this_thread_held();
  h.holding = false;
  flush_held(h);
}

std::string server_log::new_reference() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  static constexpr char hex[] = "0123456789abcdef";
  std::string ref = "ERR-";
  std::uint64_t v = rng();
  for (int i = 0; i < 8; ++i) {
    ref.push_back(hex[v & 0xF]);
    v >>= 4;
  }
  return ref;
}

}  // namespace mcpcxx::detail
