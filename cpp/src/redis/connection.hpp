// One Redis connection: commands formatted and replies parsed by hiredis's codec over our stream
// (redis/stream.hpp). Opening it authenticates (AUTH), selects the db (SELECT) and PINGs in one
// round trip. Every failure throws redis::unavailable naming the redacted URL and the reason;
// a connection that threw is broken and must be dropped.
// Thread-safety: one connection is used by one thread at a time.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "redis/client.hpp"
#include "redis/stream.hpp"

struct redisReader;

namespace mcpcxx::redis::detail {

/// "Redis at <redacted url>: <reason>", the text of every unavailable.
std::string failure_text(const store_url& u, const std::string& reason);

/// Opens connections to one URL, sharing one TLS context among them (made on first use).
/// Thread-safety: open() may be called from any thread.
class connector {
 public:
  /// Connections to `u`.
  explicit connector(store_url u);
  ~connector();
  connector(const connector&) = delete;
  connector& operator=(const connector&) = delete;

  /// The URL.
  const store_url& url() const noexcept { return url_; }
  /// The TLS context for rediss:// (loaded once); nullptr for other schemes. Throws unavailable.
  tls_context* tls();

 private:
  store_url url_;
  std::mutex mutex_;
  std::unique_ptr<tls_context> tls_;
};

/// A connected, authenticated connection.
class connection {
 public:
  /// Connects through `c`, then AUTH, SELECT and PING, all within `timeout`; throws unavailable.
  connection(connector& c, std::chrono::milliseconds timeout);
  ~connection();
  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;

  /// Sends `cs` and reads one reply per command within `timeout`; throws unavailable.
  std::vector<reply> round_trip(const std::vector<command>& cs, std::chrono::milliseconds timeout);
  /// Sends `cs` within `timeout` without reading; throws unavailable.
  void send(const std::vector<command>& cs, std::chrono::milliseconds timeout);
  /// The next reply, waiting until `deadline` or until `wake_fd` is readable (then nullopt, as
  /// when the deadline passes); throws unavailable when the connection fails.
  std::optional<reply> next_reply(clock::time_point deadline, int wake_fd);
  /// False when an idle connection was closed by the server (a pooled one is checked first).
  bool still_idle();

 private:
  std::optional<reply> parsed();
  reply read_reply(clock::time_point deadline, std::chrono::milliseconds timeout);
  void write(const std::vector<command>& cs, clock::time_point deadline,
             std::chrono::milliseconds timeout);
  void handshake(clock::time_point deadline, std::chrono::milliseconds timeout);
  [[noreturn]] void fail(const io_error& e, std::chrono::milliseconds timeout) const;

  store_url url_;
  std::unique_ptr<redisReader, void (*)(redisReader*)> reader_;
  std::unique_ptr<stream> stream_;
};

}  // namespace mcpcxx::redis::detail
