// Streamable HTTP transport for both eras: stateless 2026-07-28 POSTs and legacy sessions
// (2025-11-25, 2025-06-18, 2025-03-26) with a GET SSE stream, event ids and resumability.
// Thread-safety: start(), stop() and wait() may be called from any thread, but start() and stop()
// only once each; port() and stats() are safe at any time. The auth verifier is called from I/O
// threads concurrently and must be thread-safe. The server must outlive the http_server.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mcpcxx/json.hpp"
#include "mcpcxx/server.hpp"

namespace mcpcxx {

namespace detail {
class http_server_impl;
}

/// What the auth hook sees of a request (never the other headers, never the body bytes).
struct http_auth_request {
  std::string_view http_method;  ///< "POST", "GET" or "DELETE"
  std::string_view mcp_method;   ///< JSON-RPC method of a POST body; empty otherwise
  std::string_view mcp_name;     ///< params.name / params.uri when the method has one
};

/// Outcome of verifying a bearer token.
struct http_auth_result {
  /// What went wrong; none means the token is valid and `principal` is set.
  enum class failure { none, invalid_token, insufficient_scope, unavailable };
  failure status = failure::invalid_token;
  json principal = nullptr;         ///< the verified identity tools see (never the token)
  std::vector<std::string> scopes;  ///< scopes required (insufficient_scope) or to request
  std::string description;          ///< error_description for WWW-Authenticate (no secrets)

  /// A valid token for `principal`.
  static http_auth_result allow(json principal);
  /// A missing, malformed, expired or foreign token (401).
  static http_auth_result invalid(std::string description = "The access token is invalid");
  /// A valid token lacking `required` scopes (403).
  static http_auth_result insufficient(std::vector<std::string> required,
                                       std::string description = "Insufficient scope");
  /// The token cannot be verified now (key set or introspection endpoint unreachable): 503,
  /// row H43, with Retry-After. `description` goes to the server log, never to the client.
  static http_auth_result unavailable(std::string description);
};

/// Verifies a bearer token; called once per request, never logged. Must be thread-safe. The
/// principal it allows is what request_context::principal() shows: an object with "sub" and a
/// "scopes" array (tool_spec::scopes are checked against it at every request), and "iss",
/// "client_id" and "claims" when known. Its tasks, requestStates and legacy sessions belong to
/// its principal_identity() (issuer, subject, client id, http_auth_options::identity_claims).
/// A verifier that throws gets 500 (row H26, the detail logged under a reference).
using http_token_verifier =
    std::function<http_auth_result(std::string_view token, const http_auth_request& request)>;

/// OAuth 2.1 resource-server settings (RFC 9728 protected resource metadata).
struct http_auth_options {
  http_token_verifier verifier;  ///< required when auth is enabled
  /// Canonical resource URI; default "http://HOST:PORT/mcp" as bound.
  std::string resource;
  /// URL of the metadata document; default
  /// "http://HOST:PORT/.well-known/oauth-protected-resource/mcp".
  std::string resource_metadata_url;
  std::vector<std::string> authorization_servers;  ///< at least one issuer URL
  std::vector<std::string> scopes_supported;       ///< advertised in the metadata and on 401
  /// Claims that are part of a principal's identity besides its issuer, subject and client id
  /// (principal_identity(); for example a tenant claim "tid"). A claim a token refresh changes
  /// (iat, exp, nbf, jti, auth_time, scope, scp, scopes) is refused (std::invalid_argument).
  std::vector<std::string> identity_claims;
};

/// Transport settings; the defaults are the secure local-development profile.
struct http_options {
  std::string host = "127.0.0.1";  ///< bind address (loopback by default)
  std::uint16_t port = 0;          ///< 0 picks an ephemeral port; read it with port()
  std::string path = "/mcp";       ///< the MCP endpoint
  std::size_t io_threads = 1;      ///< threads running socket I/O (requests run on the engine pool)
  /// Opt-in: run every request handler on the I/O thread that read the request instead of the
  /// server's worker pool, so a call crosses no thread. Only for servers whose handlers are all
  /// quick and never block: while one runs, its I/O thread serves no other connection (other
  /// I/O threads go on); whatever its connection is sent meanwhile (progress, a per-tool
  /// deadline's answer) leaves when it returns; and a handler that waits for the client's answer
  /// to a legacy question waits out the ask timeout (the question cannot be written meanwhile).
  /// http_server only: an http_endpoint refuses it. Default off.
  bool inline_dispatch = false;
  /// Default 50 us, at most 10 ms; 0 turns it off. While a request waits for its handler on the
  /// worker pool and nothing else is ready, one I/O thread keeps polling for the reply this long
  /// before it sleeps, so a quick handler's reply costs no wake-up (docs/benchmarks-engine.md).
  /// Only while fewer replies are awaited than the process has CPUs. Likewise, after a handler ran
  /// and replied on an I/O thread (inline dispatch, an inline tool, an engine refusal), that thread
  /// polls this long for the next request. http_server only: an http_endpoint runs on its host's
  /// threads and does not read it.
  std::chrono::microseconds reply_poll{50};

  std::size_t max_body_bytes = 4UL * 1024 * 1024;  ///< larger bodies get 413
  std::size_t max_header_bytes = 16UL * 1024;      ///< request line + headers; larger get 431
  std::size_t max_headers = 64;                    ///< more header fields get 431
  /// Default 10 s. The whole head must arrive within it (408, row H25). A new connection that
  /// sends nothing is closed (no reply) after it too, not after idle_timeout.
  std::chrono::milliseconds header_timeout{10000};
  std::chrono::milliseconds body_timeout{30000};  ///< default 30 s; whole body within (408, H25)
  /// Default 60 s. A keep-alive connection between requests is closed after this (no reply).
  std::chrono::milliseconds idle_timeout{60000};
  /// Default 60 s. A connection whose queued reply bytes make no progress for this long (the
  /// client stopped reading) is closed and the cut logged (`http_write_timeout`; no row: nothing
  /// can reach the client). Restarts on every write progress: a slow reader is never cut.
  std::chrono::milliseconds write_timeout{60000};
  /// Default 1024. At the cap a new connection replaces an idle one (the longest-idle keep-alive
  /// connection, else the oldest that never sent a byte; counted in http_stats::
  /// evicted_connections); with none idle it is closed at accept (rejected_connections). The cap
  /// in force is min(max_connections, RLIMIT_NOFILE soft limit - 64) (http_stats::connection_cap),
  /// so connections cannot exhaust the process's descriptors.
  std::size_t max_connections = 1024;
  /// Default 50 ms, doubling to accept_backoff_max (default 1 s): the pause before accepting
  /// again after EMFILE/ENFILE/ENOBUFS/ENOMEM (open connections keep being served). Logged once
  /// per episode (`http_accept_backoff`, then `http_accept_resumed`); http_stats::accept_failures.
  std::chrono::milliseconds accept_backoff_min{50};
  std::chrono::milliseconds accept_backoff_max{1000};  ///< see accept_backoff_min
  /// Default 5 s. serve_http() on SIGINT/SIGTERM calls stop(drain_grace): in-flight requests may
  /// finish within it; what remains is answered 503 (row H18) and flushed.
  std::chrono::milliseconds drain_grace{5000};
  /// Default 1 s. After the grace period, stop() lets connections write what was answered (the
  /// 503s) for up to this long, then closes the rest.
  std::chrono::milliseconds stop_flush_timeout{1000};

  /// Accepted Host header values (host or host:port). Empty: loopback names when bound to a
  /// loopback address, anything otherwise.
  std::vector<std::string> allowed_hosts;
  /// Accepted Origin values ("http://example.com:8080"); "*" accepts any. Empty: loopback
  /// origins (http(s)://localhost|127.0.0.1|[::1] on any port). Requests without Origin pass.
  std::vector<std::string> allowed_origins;

  /// Serve legacy sessions (initialize, Mcp-Session-Id, GET, DELETE). false: modern only.
  bool legacy = true;
  std::chrono::milliseconds session_idle_timeout{30 * 60 * 1000};  ///< legacy session expiry
  std::size_t max_sessions = 10000;        ///< further initialize requests get 503
  std::size_t replay_buffer_events = 256;  ///< per legacy session, for Last-Event-ID resumption
  std::chrono::milliseconds sse_keepalive{15000};  ///< ":" comment interval on open SSE streams

  /// Credential headers handlers may read through request_context::http_headers (any case):
  /// "authorization", "proxy-authorization", "cookie", "set-cookie". Handlers see every other
  /// header; these four are withheld unless named here (naming another header is refused with
  /// std::invalid_argument, as it is never withheld).
  std::vector<std::string> expose_headers;

  /// Serves the Prometheus exposition (server::metrics_text) at GET `metrics_path`, after the same
  /// Host and Origin checks as the MCP endpoint and without auth (scrapers send no token; bind
  /// to loopback or restrict the network). Off by default: the path is then unknown (404, H3).
  bool metrics = false;
  std::string metrics_path = "/metrics";  ///< must start with '/' and differ from `path`

  /// The store URL (server_options::store::url's forms), for a server created without one:
  /// the http_server constructor attaches it (server::use_store) before serving. Empty: serve_http
  /// reads MCPCXX_STORE_URL; with neither, state stays in this process. A server whose own store
  /// differs is refused (std::invalid_argument). Never written by to_json (it may hold a
  /// password).
  std::string store;

  /// Enables bearer-token authorization on the MCP endpoint.
  std::optional<http_auth_options> auth;
};

/// Live counters for tests and monitoring.
struct http_stats {
  std::size_t connections = 0;             ///< open TCP connections
  std::size_t sessions = 0;                ///< live legacy sessions
  std::size_t session_bytes = 0;           ///< transport-side bytes held by legacy sessions
  std::uint64_t requests = 0;              ///< HTTP requests parsed
  std::uint64_t rejected_connections = 0;  ///< closed at accept (cap with none idle, or stopping)
  std::uint64_t evicted_connections = 0;  ///< idle connections closed to admit a new one at the cap
  std::uint64_t accept_failures = 0;      ///< accepts failed for lack of descriptors (backed off)
  std::uint64_t write_timeouts = 0;       ///< connections cut because the client stopped reading
  std::size_t connection_cap = 0;         ///< the connection cap in force (see max_connections)
  std::uint64_t sessions_expired = 0;     ///< reaped for idleness
  std::size_t exchanges = 0;  ///< POST exchanges alive (in flight or being answered); 0 when idle
};

/// A Streamable HTTP server for one engine.
class http_server {
 public:
  /// Prepares a server; nothing is bound until start(). Throws std::invalid_argument for bad
  /// options (empty path, zero threads, auth without a verifier or authorization server).
  explicit http_server(server& srv, http_options options = {});
  /// Stops with a zero grace period when still running.
  ~http_server();
  http_server(const http_server&) = delete;
  http_server& operator=(const http_server&) = delete;

  /// Binds, listens and starts the I/O threads. Throws std::system_error when binding fails.
  void start();
  /// The bound port (valid after start()).
  std::uint16_t port() const;
  /// Graceful drain (call it on SIGTERM/SIGINT): stops accepting (new requests on open
  /// connections get 503, row H16), lets in-flight requests finish for up to `grace`, answers
  /// the rest with 503 (row H18, the request's id; the last event of an SSE response) and cancels
  /// their handlers, ends sessions, flushes (stop_flush_timeout) and closes every connection.
  /// Blocks until done. Idempotent; any thread except an I/O thread.
  void stop(std::chrono::milliseconds grace = std::chrono::milliseconds(5000));
  /// stop(options.drain_grace).
  void drain();
  /// Blocks until stop() has completed.
  void wait();
  /// A snapshot of the counters.
  http_stats stats() const;
  /// Forces the legacy-session reaper to run now (tests); returns the sessions it expired.
  std::size_t reap_idle_sessions();

 private:
  std::unique_ptr<detail::http_server_impl> impl_;
};

/// One HTTP request received by a foreign HTTP server (an ASGI adapter, for example).
struct http_request_data {
  std::string method;                                        ///< "POST", "GET", ...
  std::string target;                                        ///< path and query, e.g. "/mcp"
  std::vector<std::pair<std::string, std::string>> headers;  ///< names in any case
  std::string body;
};

/// Receives the response to an http_request_data; called from any thread, in order.
class http_response_sink {
 public:
  virtual ~http_response_sink() = default;
  /// Status and headers (no framing headers: the foreign server frames the body).
  virtual void start(int status, std::vector<std::pair<std::string, std::string>> headers) = 0;
  /// Body bytes: the whole body, or one SSE event of a stream.
  virtual void write(std::string data) = 0;
  /// The response is complete.
  virtual void end() = 0;
};

/// Lets the foreign server report that its client went away (cancels a 2026-07-28 request).
class http_exchange {
 public:
  virtual ~http_exchange() = default;
  /// The client disconnected before the response ended.
  virtual void disconnected() = 0;
};

/// The MCP endpoint without sockets: the routing, checks, sessions and SSE of http_server for
/// requests that another HTTP server parsed. host/port/threads/timeouts/limits other than
/// max_body_bytes are unused; Host checks use allowed_hosts (default: loopback names).
/// Thread-safety: handle() may be called from any thread concurrently.
class http_endpoint {
 public:
  /// Throws std::invalid_argument for bad options (auth needs explicit resource URLs here).
  explicit http_endpoint(server& srv, http_options options = {});
  /// Ends every session (like close(0)).
  ~http_endpoint();
  http_endpoint(const http_endpoint&) = delete;
  http_endpoint& operator=(const http_endpoint&) = delete;

  /// Handles one request; the response goes to `sink` now or later from engine threads.
  std::shared_ptr<http_exchange> handle(http_request_data request,
                                        std::shared_ptr<http_response_sink> sink);
  /// Expires idle legacy sessions now; returns how many.
  std::size_t reap_idle_sessions();
  /// Refuses new requests, waits up to `grace` for in-flight ones, then ends all sessions.
  void close(std::chrono::milliseconds grace = std::chrono::milliseconds(5000));
  /// A snapshot of the counters (connections is always 0).
  http_stats stats() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// Serves `srv` over HTTP until SIGINT or SIGTERM; returns 0 after a graceful stop. Throws as
/// http_server's constructor and start() do (a refused option, a port in use); the calling
/// thread's signal mask is as it was on every return and throw.
int serve_http(server& srv, const http_options& options = {});

}  // namespace mcpcxx
