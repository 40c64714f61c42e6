// Implementation of the stderr JSON-lines log.
#include "engine/server_log.hpp"

#include <chrono>
#include <cstdio>
#include <random>
#include <unistd.h>

namespace mcpcxx::detail {

namespace {

void write_stderr(std::string_view line) {
  std::string buf(line);
  buf.push_back('\n');
  std::size_t off = 0;
  while (off < buf.size()) {
    const ssize_t n = ::write(STDERR_FILENO, buf.data() + off, buf.size() - off);
    if (n <= 0) return;  // stderr gone: logging must never take the server down
    off += static_cast<std::size_t>(n);
  }
}

std::string iso_now() {
  using namespace std::chrono;
  const auto now = system_clock::now();
  const auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  const std::time_t t = system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

}  // namespace

server_log::server_log(std::function<void(std::string_view)> writer)
    : writer_(writer ? std::move(writer) : std::function<void(std::string_view)>(write_stderr)) {}

void server_log::write(std::string_view level, std::string_view event, json fields) {
  json rec = json::object();
  rec["ts"] = iso_now();
  rec["level"] = level;
  rec["event"] = event;
  if (fields.is_object()) {
    for (auto& [k, v] : fields.items()) rec[k] = std::move(v);
  }
  const std::string line = rec.dump(-1, ' ', false, json::error_handler_t::replace);
  std::lock_guard lock(mutex_);
  writer_(line);
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
