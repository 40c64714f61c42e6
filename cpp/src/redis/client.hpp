// redis::client: the Redis connection the scale-out stores share (docs/scale-out.md). Commands
// are formatted and replies parsed by hiredis (libhiredis-dev); the socket I/O is ours, so one
// code path serves TCP, Unix sockets and TLS (rediss://, OpenSSL) with the same deadlines.
//
// Failure model: every call has a deadline (options::command_timeout; connecting has
// options::connect_timeout, DNS included). A connection that fails or times out is closed, with
// the idle pooled ones, and the call throws redis::unavailable; the next call reconnects, but not
// before the backoff since the last failed connect has passed (it throws at once while backing
// off, and while another caller's reconnect is under way), so a stopped Redis costs callers one
// fast exception each, never a hang. A pooled connection the server closed while idle (a restart)
// is replaced silently.
// Thread-safety: every member may be called from any thread at once; commands go over a small
// pool of connections (options::pool_size), each used by one caller at a time.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mcpcxx::redis {

/// Where the store is: a parsed MCPCXX_STORE_URL / server_options::store::url.
struct store_url {
  enum class scheme { memory, redis, rediss, unix_socket };
  scheme kind = scheme::memory;
  std::string host;           ///< redis, rediss
  std::uint16_t port = 6379;  ///< redis, rediss
  std::string path;           ///< unix_socket: the socket's path
  int db = 0;                 ///< SELECTed after connecting (the URL's /db, or ?db= for unix)
  std::string user;           ///< AUTH user ("" = the default user)
  std::string password;       ///< AUTH password ("" = no AUTH)
  std::string ca_file;        ///< rediss: the ?ca= file of trusted CAs ("" = the system's CAs)

  /// The URL as given but with the password replaced by "***" (for logs and errors).
  std::string redacted() const;
};

/// Parses "memory:", "redis://[user:password@]host[:port][/db]",
/// "rediss://[user:password@]host[:port][/db][?ca=/path/ca.pem]" and
/// "unix:///path[?db=N][&user=U][&password=P]" (user and password percent-decoded; host may be
/// an [IPv6] literal; port 6379, db 0 by default); nullopt with `why` set (what is wrong and the
/// accepted forms) otherwise. `why` may be null.
std::optional<store_url> parse_store_url(std::string_view text, std::string* why);

/// A Redis reply (RESP2).
struct reply {
  enum class type { nil, status, error, integer, string, array };
  type kind = type::nil;
  std::int64_t integer = 0;     ///< type::integer
  std::string str;              ///< status, error, string
  std::vector<reply> elements;  ///< array

  bool is_nil() const noexcept { return kind == type::nil; }
  bool is_error() const noexcept { return kind == type::error; }
};

/// Redis could not be reached or did not answer in time; what() names the URL (redacted) and why.
class unavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Redis answered a command with an error reply (a bug or a misconfigured server, not an outage).
class command_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// How the client connects and how long it waits.
struct options {
  store_url url;
  std::chrono::milliseconds connect_timeout{2000};  ///< TCP/TLS connect, AUTH, SELECT
  std::chrono::milliseconds command_timeout{1500};  ///< one command or pipeline, round trip
  std::chrono::milliseconds backoff_min{100};       ///< first wait after a failed connect
  std::chrono::milliseconds backoff_max{5000};      ///< the wait doubles up to this
  std::size_t pool_size = 4;                        ///< connections kept open at most
};

/// One command: its arguments, binary-safe.
using command = std::vector<std::string>;

/// A pooled, reconnecting Redis client (see the file comment).
class client {
 public:
  /// A client of o.url; it connects on first use (or check()), never in the constructor.
  explicit client(options o);
  ~client();  ///< closes the pooled connections
  client(const client&) = delete;
  client& operator=(const client&) = delete;

  /// Connects, authenticates, selects the db and PINGs within connect_timeout (whatever the
  /// backoff; success ends it and pools the connection); throws unavailable (unreachable, refused
  /// authentication, not Redis) naming the redacted URL.
  void check();
  /// Runs one command; throws unavailable, command_error (an error reply) or
  /// std::invalid_argument (an empty command).
  reply run(const command& c);
  /// Runs several commands in one round trip (not atomic: wrap in MULTI/EXEC for that); the
  /// replies in order, error replies included (never thrown). Throws unavailable.
  std::vector<reply> pipeline(const std::vector<command>& cs);
  /// EVALSHA of `script` (loading it with SCRIPT LOAD on NOSCRIPT); throws like run().
  reply eval(const std::string& script, const std::vector<std::string>& keys,
             const std::vector<std::string>& args);
  /// True after the last command or connect succeeded; false after one failed, and before the
  /// first success (call check() at start-up; for /healthz).
  bool healthy() const noexcept;
  /// The options given at construction.
  const options& config() const noexcept;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// Receives messages of subscribed channels: (channel, payload), on the subscriber's thread.
using message_handler = std::function<void(std::string_view channel, std::string_view payload)>;

/// A SUBSCRIBE connection with its own reader thread, which connects at construction. It
/// reconnects with backoff after a failure and subscribes again to every channel; `on_state(false)`
/// runs when the connection is lost (or the first connect fails) and `on_state(true)` once every
/// channel is subscribed again (the first time too), each only on a change (messages published in
/// between are lost: a caller that cannot lose them reads the state from the store after
/// on_state(true)). A connection silent for 2 s is PINGed, so a hung Redis counts as lost after
/// command_timeout more. After unsubscribe() returns, a channel's messages are no longer
/// delivered (except one whose delivery had already begun). Exceptions from handlers are swallowed.
/// Thread-safety: subscribe/unsubscribe/stop from any thread; handlers run on the reader thread
/// one at a time and must not call stop() nor destroy the subscriber.
class subscriber {
 public:
  /// Starts the reader thread, which connects to o.url (throws std::system_error when it cannot).
  subscriber(options o, message_handler on_message, std::function<void(bool up)> on_state = {});
  ~subscriber();  ///< stops
  subscriber(const subscriber&) = delete;
  subscriber& operator=(const subscriber&) = delete;

  /// Adds `channel` (takes effect within one round trip; kept across reconnects).
  void subscribe(const std::string& channel);
  /// Removes `channel`.
  void unsubscribe(const std::string& channel);
  /// Waits until every channel asked for so far is subscribed or `timeout` passes; true if so.
  bool wait_subscribed(std::chrono::milliseconds timeout);
  /// Ends the reader thread (waiting for a connect under way, connect_timeout at most); no
  /// handler runs after it returns. Idempotent.
  void stop();

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace mcpcxx::redis
