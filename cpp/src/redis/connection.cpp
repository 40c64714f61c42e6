// One Redis connection over hiredis's codec (redis/connection.hpp).
#include "redis/connection.hpp"

#include <array>
#include <hiredis/hiredis.h>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "redis/tls.hpp"

namespace mcpcxx::redis::detail {

namespace {

reply from_hiredis(const redisReply& r) {
  reply out;
  switch (r.type) {
    case REDIS_REPLY_STATUS:
      out.kind = reply::type::status;
      out.str.assign(r.str, r.len);
      break;
    case REDIS_REPLY_ERROR:
      out.kind = reply::type::error;
      out.str.assign(r.str, r.len);
      break;
    case REDIS_REPLY_STRING:
      out.kind = reply::type::string;
      out.str.assign(r.str, r.len);
      break;
    case REDIS_REPLY_INTEGER:
      out.kind = reply::type::integer;
      out.integer = r.integer;
      break;
    case REDIS_REPLY_ARRAY:
      out.kind = reply::type::array;
      out.elements.reserve(r.elements);
      for (std::size_t i = 0; i < r.elements; ++i)
        out.elements.push_back(from_hiredis(*r.element[i]));
      break;
    default:  // REDIS_REPLY_NIL
      break;
  }
  return out;
}

// The RESP text of `cs`, one after the other (binary-safe arguments).
std::string format_commands(const std::vector<command>& cs) {
  std::string out;
  std::vector<const char*> argv;
  std::vector<std::size_t> lengths;
  for (const command& c : cs) {
    if (c.empty()) throw std::invalid_argument("redis: a command needs at least its name");
    argv.clear();
    lengths.clear();
    for (const std::string& a : c) {
      argv.push_back(a.data());
      lengths.push_back(a.size());
    }
    char* text = nullptr;
    const int n =
        redisFormatCommandArgv(&text, static_cast<int>(c.size()), argv.data(), lengths.data());
    if (n < 0) throw std::bad_alloc();
    out.append(text, static_cast<std::size_t>(n));
    redisFreeCommand(text);
  }
  return out;
}

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

void free_reader(redisReader* r) { redisReaderFree(r); }

}  // namespace

std::string failure_text(const store_url& u, const std::string& reason) {
  return "Redis at " + u.redacted() + ": " + reason;
}

connector::connector(store_url u) : url_(std::move(u)) {}

connector::~connector() = default;

tls_context* connector::tls() {
  if (url_.kind != store_url::scheme::rediss) return nullptr;
  const std::lock_guard lock(mutex_);
  if (!tls_) {
    try {
      tls_ = std::make_unique<tls_context>(url_.ca_file);
    } catch (const io_error& e) {
      throw unavailable(failure_text(url_, e.what()));  // not kept: a fixed file is read next time
    }
  }
  return tls_.get();
}

connection::connection(connector& c, std::chrono::milliseconds timeout)
    : url_(c.url()), reader_(redisReaderCreate(), free_reader) {
  if (!reader_) throw std::bad_alloc();
  const auto deadline = clock::now() + timeout;
  try {
    stream_ = stream::open(url_, c.tls(), deadline);
  } catch (const io_error& e) {
    fail(e, timeout);
  }
  handshake(deadline, timeout);
}

connection::~connection() = default;

void connection::handshake(clock::time_point deadline, std::chrono::milliseconds timeout) {
  std::vector<command> cs;
  if (!url_.password.empty()) {
    cs.push_back(url_.user.empty() ? command{"AUTH", url_.password}
                                   : command{"AUTH", url_.user, url_.password});
  }
  if (url_.db != 0) cs.push_back({"SELECT", std::to_string(url_.db)});
  cs.push_back({"PING"});
  write(cs, deadline, timeout);
  std::vector<reply> rs;
  for (std::size_t i = 0; i < cs.size(); ++i) rs.push_back(read_reply(deadline, timeout));
  std::size_t at = 0;
  if (!url_.password.empty() && rs[at++].is_error()) {
    throw unavailable(failure_text(url_, "authentication refused: " + quoted(rs[0].str)));
  }
  if (url_.db != 0 && rs[at++].is_error()) {
    throw unavailable(failure_text(
        url_, "SELECT " + std::to_string(url_.db) + " refused: " + quoted(rs[at - 1].str)));
  }
  const reply& pong = rs[at];
  if (pong.is_error() && pong.str.rfind("NOAUTH", 0) == 0) {
    throw unavailable(failure_text(
        url_, "authentication required (the URL has no password): " + quoted(pong.str)));
  }
  if (pong.kind != reply::type::status || pong.str != "PONG") {
    throw unavailable(failure_text(url_, "PING was not answered PONG: " + quoted(pong.str)));
  }
}

std::vector<reply> connection::round_trip(const std::vector<command>& cs,
                                          std::chrono::milliseconds timeout) {
  const auto deadline = clock::now() + timeout;
  write(cs, deadline, timeout);
  std::vector<reply> out;
  out.reserve(cs.size());
  for (std::size_t i = 0; i < cs.size(); ++i) out.push_back(read_reply(deadline, timeout));
  return out;
}

void connection::send(const std::vector<command>& cs, std::chrono::milliseconds timeout) {
  write(cs, clock::now() + timeout, timeout);
}

void connection::write(const std::vector<command>& cs, clock::time_point deadline,
                       std::chrono::milliseconds timeout) {
  const std::string text = format_commands(cs);
  try {
    stream_->write_all(text, deadline);
  } catch (const io_error& e) {
    fail(e, timeout);
  }
}

std::optional<reply> connection::parsed() {
  void* raw = nullptr;
  if (redisReaderGetReply(reader_.get(), &raw) != REDIS_OK) {
    throw unavailable(
        failure_text(url_, std::string("the server's reply is not RESP: ") + reader_->errstr));
  }
  if (raw == nullptr) return std::nullopt;
  reply out = from_hiredis(*static_cast<redisReply*>(raw));
  freeReplyObject(raw);
  return out;
}

reply connection::read_reply(clock::time_point deadline, std::chrono::milliseconds timeout) {
  for (;;) {
    if (auto r = parsed()) return std::move(*r);
    std::array<char, 16384> buf;
    try {
      const read_result got = stream_->read_some(buf.data(), buf.size(), deadline);
      redisReaderFeed(reader_.get(), buf.data(), got.bytes);
    } catch (const io_error& e) {
      fail(e, timeout);
    }
  }
}

std::optional<reply> connection::next_reply(clock::time_point deadline, int wake_fd) {
  for (;;) {
    if (auto r = parsed()) return r;
    std::array<char, 16384> buf;
    read_result got;
    try {
      got = stream_->read_some(buf.data(), buf.size(), deadline, wake_fd, true);
    } catch (const io_error& e) {
      fail(e, std::chrono::milliseconds(0));
    }
    if (got.end != wait_end::data) return std::nullopt;
    redisReaderFeed(reader_.get(), buf.data(), got.bytes);
  }
}

bool connection::still_idle() { return stream_->still_idle(); }

void connection::fail(const io_error& e, std::chrono::milliseconds timeout) const {
  if (e.timed_out()) {
    throw unavailable(failure_text(
        url_, "timed out after " + std::to_string(timeout.count()) + " ms " + e.what()));
  }
  throw unavailable(failure_text(url_, e.what()));
}

}  // namespace mcpcxx::redis::detail
