// Middleware: code that runs before and after the handler of the request methods it names, in
// both eras and on every transport (docs/middleware.md).
//
// A middleware has a `before` hook, an `after` hook, or both. `before` runs once routing has
// accepted the request (its era, method and session are valid) and before the method's handler:
// it lets the request go on (nullopt) or answers it instead (a middleware_reply). `after` runs
// with the reply the request is about to get, whoever produced it (the handler, a deadline, an
// async tool completing later, an earlier middleware's refusal) and may replace it. Middleware run
// in the order they were added for `before` and in reverse order for `after`; a middleware's
// `after` runs only if its `before` ran (or it has none and the request reached it).
//
// A middleware may also have an on_notification hook, which sees the client's notifications
// before the server acts on them and may drop them (they get no reply).
//
// Every answer a middleware can give is a row of the situation table: a result, a tool error
// (mcpcxx::tool_error, rows T2/P26), or a refusal (rows P58-P60, T14, T15). A hook that throws is
// an unexpected failure like a handler's (sanitized text and a reference id on the wire, the
// detail in the server log).
//
// Thread-safety: hooks run on whichever thread serves the request (a worker, the transport's
// receiving thread, the deadline thread, or the thread an async tool completes on), any number
// of requests at once; a hook must be safe to call concurrently. A middleware_request and a
// middleware_reply are valid only during the hook call that received them.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mcpcxx/errors.hpp"
#include "mcpcxx/json.hpp"

namespace mcpcxx {

namespace detail {
class exchange;
struct method_outcome;
struct middleware_access;
}  // namespace detail

/// One request as a middleware sees it (read-only, except state()).
class middleware_request {
 public:
  /// The JSON-RPC method ("tools/call", "resources/read", ...).
  std::string_view method() const noexcept;
  /// The tool or prompt name (tools/call, prompts/get) or the uri (resources/read); "" for other
  /// methods or when the params do not carry a string there. A mounted server's middleware
  /// (server::mount) sees the name or uri as that server registered it, without the prefix.
  std::string_view name() const noexcept;
  /// params.arguments of tools/call and prompts/get; null when absent or for other methods.
  const json& arguments() const noexcept;
  /// The request params (an object; _meta moved out, see meta()).
  const json& params() const noexcept;
  /// params._meta as sent; null when absent.
  const json& meta() const noexcept;
  /// The verified principal (context.hpp request_context::principal()); null without one.
  const json& principal() const noexcept;
  /// The stable identity of the principal (principal_identity); "" without one.
  std::string principal_identity() const;
  /// HTTP: the request headers handlers may read (credentials withheld); null on stdio.
  const json& http_headers() const noexcept;
  /// True for a 2026-07-28 request, false for a legacy (initialize-era) one.
  bool modern() const noexcept;
  /// The revision serving the request ("2026-07-28", "2025-11-25", ...).
  const std::string& protocol_version() const noexcept;
  /// The annotations of the called tool (tools/call of a registered tool); null otherwise.
  const json& tool_annotations() const noexcept;
  /// A JSON object the request's middleware share from `before` to `after` (starts empty).
  json& state() const;
  /// Time since the request was received.
  std::chrono::microseconds elapsed() const noexcept;

 private:
  friend struct detail::middleware_access;
  explicit middleware_request(detail::exchange& ex, const std::string* subject = nullptr) noexcept
      : ex_(&ex), subject_(subject) {}
  detail::exchange* ex_;
  const std::string* subject_;  // a mounted server's name for the subject (server::mount)
};

/// A refusal a middleware answers with; each is a row of the situation table.
class refusal {
 public:
  /// Row P58: this caller may not use the method or primitive; `reason` says why in the
  /// caller's terms ("tenant acme cannot read tenant zeta's issues") and is shown as given.
  static refusal forbidden(std::string reason);
  /// Rows T14 (tools/call: a tool error of category rate_limited) and P59 (other methods): too
  /// many requests for `limit` (what is limited, e.g. "calls of search per caller");
  /// `retry_after` is when one is allowed again (rounded up to whole seconds, at least 1).
  static refusal rate_limited(std::string limit, std::chrono::milliseconds retry_after);
  /// Rows T15 (tools/call: a tool error) and P60 (other methods): the reply would be `bytes`
  /// bytes, over `limit_bytes`; `ask_less` says how to ask for less (may be empty).
  static refusal too_large(std::size_t bytes, std::size_t limit_bytes, std::string ask_less);

  /// The row's id ("P58", "P59", "P60"; the tool rows are chosen per method when rendered).
  std::string_view row() const noexcept { return row_; }
  /// The row's arguments.
  const json& arguments() const noexcept { return args_; }
  /// The metrics category it is counted under ("permission_denied", "rate_limited",
  /// "invalid_arguments").
  std::string_view category() const noexcept;

 private:
  refusal(std::string_view row, json args) : row_(row), args_(std::move(args)) {}
  std::string_view row_;
  json args_;
};

/// A reply as a middleware sees or gives it.
class middleware_reply {
 public:
  /// What the reply is.
  enum class kind {
    result,          ///< a result object (a CallToolResult without isError, a list page, ...)
    tool_error,      ///< a CallToolResult with isError:true (a T row or the tool's own)
    protocol_error,  ///< a JSON-RPC error (a P row)
    other,           ///< a task handle or a 2026-07-28 input_required result
  };

  /// Answers with `result`, a result object for the method (decorated for the era as a
  /// handler's result is). Throws std::invalid_argument when `result` is not an object.
  static middleware_reply with_result(json result);
  /// Answers with a tool error: tools/call gets a T2 tool result, other methods the P26 error.
  static middleware_reply with_tool_error(const tool_error& error);
  /// Answers with a refusal's row (see refusal).
  static middleware_reply with_refusal(refusal r);

  middleware_reply(middleware_reply&&) noexcept;
  middleware_reply& operator=(middleware_reply&&) noexcept;
  ~middleware_reply();

  /// What the reply is.
  kind what() const noexcept;
  /// what() as text: "result", "tool_error", "protocol_error" or "other".
  std::string_view kind_name() const noexcept;
  /// True for kind tool_error and protocol_error.
  bool is_error() const noexcept;
  /// The situation row of an error reply ("P17", "T2", a refusal's "P58"); "" for results and
  /// for a tool error not yet rendered for a method.
  std::string_view row() const noexcept;
  /// The metrics category ("ok", "invalid_arguments", "rate_limited", ...).
  std::string_view category() const noexcept;
  /// The result object of kinds result and tool_error (a copy); null otherwise.
  json result() const;
  /// The size in bytes of the result object as sent (kinds result and tool_error); 0 otherwise.
  std::size_t result_bytes() const;

 private:
  friend struct detail::middleware_access;
  middleware_reply();
  std::unique_ptr<detail::method_outcome> outcome_;
  // with_refusal / with_tool_error: rendered for the request's method when it is answered
  std::optional<refusal> refusal_;
  std::shared_ptr<const tool_error> tool_error_;
};

/// A notification from the client as a middleware's on_notification hook sees it (read-only,
/// valid only during the hook call that received it).
class middleware_notification {
 public:
  /// The notification method ("notifications/cancelled", "notifications/roots/list_changed").
  std::string_view method() const noexcept { return method_; }
  /// Its params as sent (null when absent).
  const json& params() const noexcept { return params_; }
  /// The verified principal of the session it came on (null without one).
  const json& principal() const noexcept { return principal_; }
  /// The revision a legacy session negotiated ("2025-11-25", ...); "" outside one (2026-07-28).
  const std::string& protocol_version() const noexcept { return version_; }

 private:
  friend struct detail::middleware_access;
  middleware_notification(std::string_view method, const json& params, json principal,
                          std::string version)
      : method_(method),
        params_(params),
        principal_(std::move(principal)),
        version_(std::move(version)) {}
  std::string_view method_;
  const json& params_;
  json principal_;
  std::string version_;
};

/// One middleware (see the file comment).
struct middleware {
  /// Names it in the server log and in registration errors (required).
  std::string name;
  /// The request methods it wraps ("tools/call", "resources/read", "prompts/get",
  /// "tools/list", ...); empty: every request method except initialize and ping, which are
  /// wrapped only when named.
  std::vector<std::string> methods;
  /// With tools/call: only calls of these tools (empty: every tool). Other methods ignore it.
  std::vector<std::string> tools;
  /// Runs before the handler: nullopt goes on, a reply answers the request instead.
  std::function<std::optional<middleware_reply>(const middleware_request&)> before;
  /// Runs with the reply about to be sent: nullopt keeps it, a reply replaces it.
  std::function<std::optional<middleware_reply>(const middleware_request&, const middleware_reply&)>
      after;
  /// Its hooks may wait on something that needs the thread a reply is sent from (a Python event
  /// loop): the engine then never runs them on a transport or timer thread, only on workers.
  bool may_block = false;
  /// Runs, on the thread that read it and before the server acts on it, for each client
  /// notification this middleware wraps (those `methods` names, or every one when `methods` is
  /// empty): true lets it through, false drops it (logged; notifications get no reply). A hook
  /// that throws drops it too (logged with a reference id). Never runs for a mounted server's.
  std::function<bool(const middleware_notification&)> on_notification;
};

// ---- built-in middleware (docs/middleware.md) ----

/// What the built-in rate limit counts requests per.
enum class rate_key {
  principal,           ///< per caller (every unauthenticated caller shares one bucket)
  tool,                ///< per tool (or method), whoever calls
  principal_and_tool,  ///< per caller and tool
};

/// The built-in rate limit: a token bucket per key.
struct rate_limit_options {
  std::string name = "rate_limit";  ///< also separates its buckets from other limits'
  double burst = 10;                ///< requests allowed at once (>= 1)
  double per_second = 1;            ///< the rate buckets refill at (> 0)
  rate_key per = rate_key::principal_and_tool;
  /// Computes the bucket key instead of `per` (e.g. a tenant claim); "" exempts the request.
  std::function<std::string(const middleware_request&)> key;
  /// What a refusal calls the limit; empty: described from burst, per_second and per.
  std::string description;
  std::vector<std::string> methods = {"tools/call"};  ///< as middleware::methods
  std::vector<std::string> tools;                     ///< as middleware::tools
};

/// A token-bucket rate limit: a request finding its bucket empty is refused (T14 on tools/call,
/// P59 otherwise) with the seconds until a token is back. The buckets live where the server's
/// shared state does (server_options::store: memory, or Redis across replicas, updated
/// atomically on Redis's clock). Throws std::invalid_argument for burst < 1 or per_second <= 0.
middleware rate_limit(rate_limit_options o);

/// The built-in size limit.
struct size_limit_options {
  std::size_t max_bytes = std::size_t{1} << 20;  ///< the largest result object sent (> 0)
  /// How to ask for less, shown in the refusal ("pass a smaller `limit`"); may be empty.
  std::string ask_less;
  std::vector<std::string> methods = {"tools/call", "resources/read", "prompts/get"};
  std::vector<std::string> tools;  ///< as middleware::tools
};

/// Withholds a result over max_bytes: T15 (read-only tool) or T15w (a tool that may write: it
/// ran) on tools/call, P60 on other methods; never a truncated result. Throws
/// std::invalid_argument for max_bytes 0.
middleware size_limit(size_limit_options o);

/// The built-in audit trail.
struct audit_options {
  /// Receives one JSON object per audited call (required); called on the request's thread.
  std::function<void(const json& line)> sink;
  /// Audit calls of read-only tools (readOnlyHint) too; by default only tools that may write.
  bool read_only_too = false;
  std::vector<std::string> tools;  ///< only these tools (empty: every tool)
};

/// One line per tools/call of a tool that may write, once it is answered: {"ts", "principal",
/// "tool", "argumentsDigest" (sha256 of the canonical arguments, never the arguments), "outcome"
/// ("ok", "tool_error", "protocol_error", "other"), "category", "row", "reference"}. Throws
/// std::invalid_argument without a sink.
middleware audit(audit_options o);

/// The built-in authorization by predicate.
struct authorize_options {
  std::string name = "authorize";
  /// Returns why this request is refused, or nullopt to let it run (required). Sees the
  /// principal, the method, the name and the arguments (e.g. a tenant claim that must match an
  /// argument).
  std::function<std::optional<std::string>(const middleware_request&)> deny;
  std::vector<std::string> methods;  ///< as middleware::methods
  std::vector<std::string> tools;    ///< as middleware::tools
};

/// Refuses a request its predicate denies with row P58 (nothing runs). Throws
/// std::invalid_argument without a predicate.
middleware authorize(authorize_options o);

/// The built-in response cache.
struct response_cache_options {
  /// Names it in the log; also separates its entries from other caches' (the store is shared).
  std::string name = "response_cache";
  /// How long an entry is served (required, > 0); hits carry what is left of it as ttlMs.
  std::chrono::milliseconds ttl{0};
  /// "private": an entry per caller (principal_identity; every unauthenticated caller is one
  /// caller); "public": one entry for every caller (the result holds nothing caller-specific).
  std::string scope = "private";
  /// tools/call (read-only tools only), resources/read and prompts/get may be named.
  std::vector<std::string> methods = {"tools/call", "resources/read"};
  std::vector<std::string> tools;  ///< as middleware::tools
  /// Adds to the key (e.g. a tenant claim for a "public" cache shared within a tenant); may be
  /// empty. The key always holds the method, the tool/uri/prompt, the protocol revision, the
  /// canonical arguments (sorted keys) and, for "private", the caller.
  std::function<std::string(const middleware_request&)> vary;
  /// The memory store's bounds (entries, and key plus result bytes); beyond them the least
  /// recently used entries go. A Redis store is bounded by Redis (maxmemory) and the ttl.
  std::size_t max_entries = 10000;
  std::size_t max_bytes = std::size_t{64} << 20;
  /// The memory store's clock (tests advance it); empty: std::chrono::steady_clock. Redis
  /// expires entries on its own clock.
  std::function<std::chrono::steady_clock::time_point()> clock;
};

/// Answers repeated tools/call of read-only tools (readOnlyHint true; other tools never),
/// resources/read and (when named) prompts/get from a cache kept where the server keeps shared
/// state (server_options::store: memory, or Redis across replicas). Only successful results are
/// cached; entries go on notify_resource_updated(uri) (that uri) and on list changes (that
/// family). A store that fails makes the request run uncached (logged, never refused). Results
/// carry _meta["mcpcxx/cache"] {hit, ttlMs, cacheScope}; a 2026-07-28 resources/read also its
/// top-level ttlMs and cacheScope (docs/middleware.md). Throws std::invalid_argument for
/// ttl <= 0, a scope other than "private"/"public", a method it cannot cache, or a zero bound.
middleware response_cache(response_cache_options o);

}  // namespace mcpcxx
