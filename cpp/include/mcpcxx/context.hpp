// The per-request context handed to tool, resource, prompt and completion handlers.
// Thread-safety: a context belongs to one request. Its methods may be called from the handler's
// thread or any thread the handler spawns; progress and log calls are internally serialized.
// The request facts (ids, version, client info and capabilities, request_meta, http_headers,
// client_extension, principal) are set by the engine before the handler runs and never change
// afterwards, so any number of threads may read them at once.
// elicit, elicit_url, sample and list_roots block the calling thread until the client answers
// (or the wait times out or is cancelled); several may run at once from different threads.
//
// On 2026-07-28 (no server-to-client requests) a question is a multi-round trip instead: the
// handler of tools/call, prompts/get or resources/read is RE-RUN from the start on every retry
// of the client, each question answered from the retry's inputResponses or the answers sealed in
// requestState; the first unanswered question stops the run with an input_required result (an
// internal signal that is NOT a std::exception: a `catch (...)` around a question must rethrow).
// Contract: effects before a question must be safe to repeat, and the questions of a run must
// depend only on the request and the earlier answers. See docs/architecture.md.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mcpcxx/json.hpp"
#include "mcpcxx/log_level.hpp"

namespace mcpcxx {

/// Cooperative cancellation shared by the engine and a handler; copies share one state.
class cancellation_token {
 public:
  /// Creates a fresh, not-cancelled token.
  cancellation_token();
  /// True once the request was cancelled by the client, timed out, or the server is stopping.
  bool cancelled() const noexcept;
  /// Marks the token cancelled and runs the registered callbacks once, on this thread.
  void cancel() const;
  /// Registers `fn` to run once on cancellation; runs it at once if already cancelled.
  void on_cancel(std::function<void()> fn) const;

 private:
  struct state;
  std::shared_ptr<state> state_;
};

/// A server-to-client request a handler makes: the method and its params, no id.
struct client_request {
  std::string method;  ///< "elicitation/create", "sampling/createMessage" or "roots/list"
  json params;
  /// 2026-07-28: the inputRequests key (empty: the position in the run, "ask-0", "ask-1", ...).
  /// Ignored on legacy sessions.
  std::string key = {};
};

/// The client's answer to elicitation/create.
struct elicit_result {
  std::string action;  ///< "accept", "decline" or "cancel"
  json content;        ///< the submitted object when accepted (already validated), else null
};

class request_context;
class span;

/// Sink the engine installs so a context can emit request-related notifications, ask the
/// client and read the server's own resources.
struct context_hooks {
  /// Sends a notification related to this request (progress, log message).
  std::function<void(std::string_view method, json params)> notify;
  /// Records a progress message as the running task's statusMessage, with or without a
  /// progressToken; empty = the request is not (yet) a task.
  std::function<void(const std::string& message)> task_status;
  /// Writes a handler log record to the server log (stderr).
  std::function<void(log_level level, const json& data, const std::optional<std::string>& logger)>
      record;
  /// Puts `request` to the client and returns the client's result object; blocks the
  /// handler's thread. Installed by the engine per era: legacy = a live request on the session
  /// (live12); 2026-07-28 = answered from inputResponses / sealed requestState, or throws the
  /// engine's internal input-required signal (modern12). Empty = cannot ask (throws
  /// client_capability_error).
  std::function<json(const client_request&)> ask;
  /// Puts several requests at once (2026-07-28: every unanswered one in the same
  /// InputRequiredResult). Empty = one by one through `ask`.
  std::function<std::vector<json>(const std::vector<client_request>&)> ask_all;
  /// Runs this server's reader for `uri` with `ctx` and returns the ResourceContents array;
  /// throws resource_not_found when no resource or template matches. Installed by the engine;
  /// empty = no resources to read (request_context::read_resource throws resource_not_found).
  std::function<json(const std::string& uri, request_context& ctx)> read_resource;
  /// Turns the running call into a task (request_context::start_task); empty = it cannot.
  std::function<bool()> start_task;
  /// Whatever the hooks point into, kept alive as long as the context (which may outlive its
  /// request when a handler keeps it).
  std::shared_ptr<const void> owner;
};

/// Everything a handler may know about its request.
class request_context {
 public:
  /// Engine-side constructor.
  request_context(json request_id, std::string protocol_version, json client_info,
                  json client_capabilities, std::optional<json> progress_token,
                  std::optional<log_level> min_log_level, cancellation_token token,
                  context_hooks hooks);

  /// The JSON-RPC id of the request (number or string).
  const json& request_id() const noexcept { return request_id_; }
  /// The protocol revision the request is served under, e.g. "2026-07-28" or "2025-11-25".
  const std::string& protocol_version() const noexcept { return protocol_version_; }
  /// True when served under the stateless 2026-07-28 era.
  bool modern() const noexcept;
  /// The client's self-reported Implementation object (may be null); never use it for security.
  const json& client_info() const noexcept { return client_info_; }
  /// The client's declared capabilities for this request.
  const json& client_capabilities() const noexcept { return client_capabilities_; }
  /// Verified principal from the HTTP auth hook (null on stdio or without auth): an object
  /// {"sub", "scopes": [...], "claims"?, "client_id"?, "exp"?} (see principal_scopes()).
  const json& principal() const noexcept { return principal_; }
  /// Engine-side: sets the verified principal.
  void set_principal(json p) { principal_ = std::move(p); }
  /// The request's `params._meta` object as the client sent it ({} when absent): traceparent,
  /// tracestate, baggage, progressToken, custom keys and, on 2026-07-28, the reserved
  /// io.modelcontextprotocol/* keys.
  const json& request_meta() const noexcept;
  /// Engine-side: sets the request's _meta (shared, never copied per handler).
  void set_request_meta(std::shared_ptr<const json> meta) { request_meta_ = std::move(meta); }
  /// Streamable HTTP: the request's headers as {lower-case name: value} (a repeated header's
  /// values joined with ", "); Authorization, Proxy-Authorization, Cookie and Set-Cookie are
  /// withheld unless http_options::expose_headers names them. Null on stdio and in-process
  /// sessions (no HTTP request).
  const json& http_headers() const noexcept;
  /// Engine-side: sets the exposed HTTP headers (an object); unset (null) when not over HTTP.
  void set_http_headers(std::shared_ptr<const json> headers) { http_headers_ = std::move(headers); }
  /// The request's span when a tracer is attached (server::set_tracer); null otherwise. Owned by
  /// the engine; valid while the handler runs.
  span* trace_span() const noexcept { return trace_span_; }
  /// Engine-side: sets the request's span.
  void set_trace_span(span* s) noexcept { trace_span_ = s; }
  /// The settings object the client declared for extension `id` (client capabilities
  /// `extensions`: this request's on 2026-07-28, the session's initialize ones on legacy);
  /// nullptr when the client did not declare it.
  const json* client_extension(std::string_view id) const;

  /// True once cancelled (client cancel, deadline, shutdown).
  bool cancelled() const noexcept { return token_.cancelled(); }
  /// The token itself, to hand to other threads.
  const cancellation_token& token() const noexcept { return token_; }

  /// Throws missing_client_capability (-> -32021) unless the client declared capability `name`.
  void require_client_capability(std::string_view name) const;

  /// Emits notifications/progress when the client sent a progressToken; in a task, `message`
  /// also becomes the task's statusMessage, token or not. Throws std::invalid_argument when
  /// `progress` does not increase over the previous report.
  void report_progress(double progress, std::optional<double> total = std::nullopt,
                       std::optional<std::string> message = std::nullopt);
  /// Emits notifications/message when the client asked for logs at or below `level`; always
  /// writes the record to the server log (stderr). Returns true when sent to the client.
  bool log(log_level level, json data, std::optional<std::string> logger = std::nullopt);

  /// Form-mode elicitation: checks `requested_schema` against the spec's restricted subset
  /// (std::invalid_argument for the tool author on a bad schema), asks, validates the answer.
  elicit_result elicit(std::string_view message, const json& requested_schema);
  /// URL-mode elicitation (2025-11-25+): the user completes a flow at `url`.
  elicit_result elicit_url(std::string_view message, std::string_view url,
                           std::string_view elicitation_id);
  /// sampling/createMessage with `params` (messages, maxTokens, ...): the CreateMessageResult.
  json sample(const json& params);
  /// roots/list: the `roots` array.
  json list_roots();
  /// Puts `requests` and returns the client's raw result objects in order (the caller checks
  /// their shape). On 2026-07-28 every unanswered one goes out in one InputRequiredResult under
  /// its `key`; legacy sessions ask them one after the other. Throws client_capability_error
  /// (nothing sent) when the client did not declare a request's capability.
  std::vector<json> ask_all(const std::vector<client_request>& requests);

  /// Reads this server's own resource `uri` (a concrete resource, else the first matching
  /// template) by running its reader with this context, as resources/read would: the
  /// ResourceContents array (never empty). Throws resource_not_found when nothing matches or the
  /// reader gives no contents; the reader's own exceptions pass through unchanged.
  json read_resource(std::string_view uri);

  /// For a tool declared with task_started_by_handler: answers the request now with a task the
  /// client polls, and runs the rest of this handler as that task (later questions and progress
  /// go to the task; cancelling the task cancels this context's token). False, changing
  /// nothing, when this call cannot become a task (the client did not declare the tasks
  /// extension, the tool does not support tasks, it already is one, or the task store is full).
  bool start_task();

 private:
  json request_id_;
  std::string protocol_version_;
  json client_info_;
  json client_capabilities_;
  json principal_;
  std::shared_ptr<const json> request_meta_;
  std::shared_ptr<const json> http_headers_;
  span* trace_span_ = nullptr;
  std::optional<json> progress_token_;
  std::optional<log_level> min_log_level_;
  cancellation_token token_;
  context_hooks hooks_;

  // Sends through hooks_.ask; client_capability_error when no hook is installed.
  json ask_client(std::string_view method, json params);
  std::optional<double> last_progress_;
  // A mutex that lets the context move (contexts are built and returned by value); a moved-to
  // context gets a fresh, unlocked one. Held in place: no allocation per request.
  struct movable_mutex {
    std::mutex m;
    movable_mutex() = default;
    movable_mutex(movable_mutex&& /*unused*/) noexcept {}
    movable_mutex& operator=(movable_mutex&& /*unused*/) noexcept { return *this; }
  };
  movable_mutex progress_lock_;
};

/// The scopes a principal holds: the strings of its "scopes" array (empty for null, a
/// principal without one, or non-string members).
std::vector<std::string> principal_scopes(const json& principal);

/// The members of `required` that `principal` does not hold, in order (all of them for a null
/// principal); empty when every one is held.
std::vector<std::string> missing_scopes(const json& principal,
                                        const std::vector<std::string>& required);

/// The stable identity that owns a principal's tasks, 2026-07-28 requestStates and legacy HTTP
/// sessions (docs/auth.md): compact JSON of its issuer ("iss"), subject ("sub"), OAuth client id
/// ("client_id", else "azp") and each claim named in `identity_claims` (null when absent), every
/// one read from the principal's top level, else from its "claims" object. What a refresh or a
/// step-up changes (iat, exp, nbf, jti, scopes) is never part of it. "" for a null principal; a
/// principal without a string "sub" is identified by its whole JSON.
std::string principal_identity(const json& principal,
                               const std::vector<std::string>& identity_claims = {});

/// Why `name` cannot be an identity claim (empty, or a claim a token refresh or step-up
/// changes: iat, exp, nbf, jti, auth_time, scope, scp, scopes, or "claims", which holds them all);
/// nullopt when it can.
std::optional<std::string> identity_claim_problem(std::string_view name);

}  // namespace mcpcxx
