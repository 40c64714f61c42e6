// The server log: the stderr JSON-lines writer (server_log.hpp) and the allocation-free line
// builder its lines are written with (log_line.hpp).
#include "observability/server_log.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <ctime>
#include <random>
#include <sys/uio.h>
#include <unistd.h>

#include "jsonrpc/plain_text.hpp"
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

// ---- log_line ----

namespace {

// The formatted "YYYY-MM-DDTHH:MM:SS." of the second `t`, cached per thread: gmtime runs once a
// second, not once a line.
const char* second_prefix(std::time_t t) {
  thread_local std::time_t cached = -1;
  thread_local char prefix[64];  // roomier than the 20 used, for the int formats
  if (t != cached) {
    std::tm tm{};
    gmtime_r(&t, &tm);
    std::snprintf(prefix, sizeof prefix, "%04d-%02d-%02dT%02d:%02d:%02d.", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    cached = t;
  }
  return prefix;
}

}  // namespace

void iso_timestamp(char (&out)[24]) {
  using namespace std::chrono;
  const auto since = system_clock::now().time_since_epoch();
  const auto secs = duration_cast<seconds>(since);
  const auto ms = static_cast<int>(duration_cast<milliseconds>(since - secs).count());
  std::memcpy(out, second_prefix(static_cast<std::time_t>(secs.count())), 20);
  out[20] = static_cast<char>('0' + ms / 100);
  out[21] = static_cast<char>('0' + ms / 10 % 10);
  out[22] = static_cast<char>('0' + ms % 10);
  out[23] = 'Z';
}

log_line::log_line(std::string& buf, std::string_view level, std::string_view event) : buf_(buf) {
  buf_.resize(std::max<std::size_t>(buf_.capacity(), 256));
  char ts[24];
  iso_timestamp(ts);
  put(R"({"ts":")");
  put(std::string_view(ts, sizeof ts));
  put('"');
  str("level", level);
  str("event", event);
}

void log_line::grow(std::size_t n) { buf_.resize(std::max(buf_.size() * 2, at_ + n)); }

void log_line::put(std::string_view s) {
  std::memcpy(room(s.size()), s.data(), s.size());
  at_ += s.size();
}

// Plain printable ASCII is copied while it is checked (one pass); other ASCII is escaped here, and
// text with bytes of 0x80 and above by nlohmann, which owns the UTF-8 checks.
void log_line::string(std::string_view s) {
  char* out = room(s.size() + 2);
  *out++ = '"';
  for (const char c : s) {
    if (!jsonrpc::plain_byte(c)) {
      std::string quoted;
      jsonrpc::append_quoted(quoted, s);
      put(quoted);
      return;
    }
    *out++ = c;
  }
  *out = '"';
  at_ += s.size() + 2;
}

void log_line::put_int(std::int64_t v) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
  put(std::string_view(digits, static_cast<std::size_t>(end - digits)));
}

void log_line::key(std::string_view k) {
  put(',');
  string(k);
  put(':');
}

log_line& log_line::str(std::string_view k, std::string_view value) {
  key(k);
  string(value);
  return *this;
}

log_line& log_line::integer(std::string_view k, std::int64_t value) {
  key(k);
  put_int(value);
  return *this;
}

log_line& log_line::millis(std::string_view k, std::int64_t micros) {
  key(k);
  if (micros < 0) micros = 0;
  put_int(micros / 1000);
  put('.');
  int frac = static_cast<int>(micros % 1000);
  int width = 3;
  while (width > 1 && frac % 10 == 0) {  // "2.5" not "2.500", but "2.0" as a double dumps
    frac /= 10;
    --width;
  }
  char digits[3];
  for (int i = width - 1; i >= 0; --i, frac /= 10) digits[i] = static_cast<char>('0' + frac % 10);
  put(std::string_view(digits, static_cast<std::size_t>(width)));
  return *this;
}

log_line& log_line::value(std::string_view k, const json& v) {
  key(k);
  put(v.dump(-1, ' ', false, json::error_handler_t::replace));
  return *this;
}

log_line& log_line::members(const json& fields) {
  if (!fields.is_object()) return *this;
  for (const auto& [k, v] : fields.items()) {
    if (k == "ts" || k == "level" || k == "event") continue;  // written first, once
    if (v.is_string()) {
      str(k, v.get_ref<const std::string&>());
    } else {
      value(k, v);
    }
  }
  return *this;
}

std::string_view log_line::finish() {
  put('}');
  buf_.resize(at_);
  return buf_;
}

}  // namespace mcpcxx::detail
