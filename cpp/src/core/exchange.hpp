// detail::exchange: one request from registration to its single reply. It owns the claim-once
// flag, the deadline, the cancellation token, the era facts and decoration, the request log line,
// the metrics, and the sending of the reply frame through frame_sink::send_frame with the row id.
// Handlers never send: they return a method_outcome and the dispatcher calls finish() once.
// Thread-safety: finish(), abandon() and the deadline may race from any thread; exactly one of
// them settles the exchange (an atomic flag), the others return false and send nothing. The
// request data (method, params, facts) is written by the receiving thread before the handler
// runs and only read afterwards.
//
// method_outcome (below): what a method handler returns instead of replying from inside itself. The
// exchange that owns the request turns it into the request's single reply (era decoration,
// frame, frame_info, log line, metrics).
//
// Kinds:
//   result          a result object; the exchange adds the era's decoration (resultType, _meta
//                   serverInfo) before sending it.
//   cached_page     an already-serialized, already-decorated result (cached list pages).
//   protocol_error  a JSON-RPC error: a row of the situation table (cpp/src/wire) and its
//                   arguments, rendered by the table. Every protocol error carries its row id, so
//                   transports (HTTP status) never re-read the frame.
//   tool_failure    a CallToolResult with isError:true rendered from a T row, and its category.
// Both error kinds are built only as a row and its arguments (protocol, tool_failed); rows whose
// arguments the engine computes (P26's code by category, P15a/P15b's shapes) get them from
// engine/wire_errors.hpp.
//   input_required  a 2026-07-28 InputRequiredResult {inputRequests, requestState} of a
//                   tools/call, prompts/get or resources/read run stopped at an unanswered
//                   question (engine/input_round.hpp); the exchange adds resultType
//                   "input_required" and _meta serverInfo.
//   task            a CreateTaskResult (engine/task_calls.hpp): 2026-07-28 the flat task fields
//                   with resultType "task"; 2025-11-25 {task: Task}.
//   pending         the handler handed the exchange to something that settles it later (a
//                   subscriptions/listen stream, engine/listeners.hpp); the dispatcher does not
//                   finish it. Never sent: finish() with it answers the internal-error row.
// The exchange refuses to send pending, or input_required outside the modern era (it answers
// the internal-error row and logs it), so a handler cannot ship one half-done.
// Thread-safety: plain values.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "mcpcxx/context.hpp"
#include "mcpcxx/jsonrpc.hpp"
#include "mcpcxx/session.hpp"
#include "mcpcxx/tracing.hpp"

#include "observability/metrics_registry.hpp"
#include "registry/registry.hpp"
#include "wire/situation.hpp"

namespace mcpcxx::detail {

/// A row of the situation table (spelled out because detail::wire names the factory shims).
using situation = ::mcpcxx::wire::situation;

/// Which kind of reply a handler produced (see the file comment).
enum class outcome_kind {
  result,
  cached_page,
  protocol_error,
  tool_failure,
  input_required,
  task,
  pending
};

/// A handler's answer; build it with the named constructors.
struct method_outcome {
  outcome_kind kind = outcome_kind::result;
  /// kind result / tool_failure: the result object (for a T row, without its details).
  json result;
  /// kind tool_failure of a T row: the details object, written into the frame at
  /// _meta["mcpcxx/error"] and, when `details_structured`, at structuredContent (serialized once,
  /// never copied into `result`); null otherwise.
  json details;
  bool details_structured = false;
  /// With `details`: the JSON text of its "violations" member (row T1), written in its place
  /// (the member is null in `details`); empty when the details are whole.
  std::string details_violations;
  /// kind cached_page: the serialized result object.
  std::shared_ptr<const std::string> page;
  /// The situation row ("P8", "T3"); empty for plain results. Static storage (a literal).
  std::string_view row_id;
  /// kind protocol_error: the error object rendered for `row_id`.
  jsonrpc::error_object error;
  /// The metrics category ("ok", "invalid_arguments", "timeout", ...).
  std::string category = "ok";
  /// The reference id of an unexpected failure (logged with its detail); empty otherwise.
  std::string reference;
  /// How the metrics count it.
  outcome_class counted_as = outcome_class::ok;
  /// kind pending: the handler itself still runs (an async tool) and reports its return to the
  /// session when it completes; the dispatcher must not.
  bool handler_continues = false;

  /// A result object to decorate for the era.
  static method_outcome ok(json result);
  /// A result the tool itself marked isError (row T6): sent as is, counted as a tool error.
  static method_outcome tool_reported_error(json result);
  /// An already-serialized, already-decorated result object.
  static method_outcome cached(std::shared_ptr<const std::string> page);
  /// A JSON-RPC error: row `row` of the situation table rendered with `args`.
  static method_outcome protocol(situation row, const json& args = json::object(),
                                 std::string reference = {});
  /// An isError tool result: T row `row` rendered with `args` (which hold "name", the tool).
  static method_outcome tool_failed(situation row, const json& args, bool has_output_schema,
                                    std::string category, std::string reference = {});
  /// tool_failed with the row's data keys moved out of `args` (same result, fewer copies).
  static method_outcome tool_failed(situation row, json&& args, bool has_output_schema,
                                    std::string category, std::string reference = {});
  /// `result` with the details put back where the frame writes them (for a task's stored
  /// result, which is kept as a tree).
  json full_result() const;
  /// The exchange was handed over and settles later (see `pending` in the file comment).
  static method_outcome pending();
  /// pending, and the handler still runs (an async tool that completes later).
  static method_outcome still_running();

 private:
  // The two ways an error outcome is built (protocol, tool_failed) end here, with the text the
  // situation table rendered for the row; nothing else may build one.
  static method_outcome rendered(situation row, jsonrpc::error_object error);
  static method_outcome rendered_tool_failed(situation row, json result, std::string category);
  static method_outcome rendered_tool_failed(situation row,
                                             ::mcpcxx::wire::tool_failure_parts parts,
                                             std::string category);
};

class server_core;
class session_state;
class middleware_chain;
class batch_reply;
class input_round;

/// Installs a feature's behaviour on the hooks of a handler's context (a task's, for example).
using context_decorator = std::function<void(context_hooks&)>;

/// The era facts routing decided for one request.
struct request_facts {
  bool modern = false;
  std::string version;  ///< the revision served ("" for a legacy request before initialize)
  json client_capabilities = json::object();
  json client_info = nullptr;
  std::optional<log_level> min_log_level;
  std::optional<json> progress_token;
  std::shared_ptr<const json> request_meta;  ///< params._meta as sent (null when absent)
  /// HTTP: the headers handlers may read (the transport withheld the credentials); else null.
  std::shared_ptr<const json> http_headers;
};

/// Where a request's reply goes: the sink, or a batch reply gathering a 2025-03-26 batch.
/// Notifications of the request always go to `sink`.
struct reply_route {
  std::shared_ptr<frame_sink> sink;
  std::shared_ptr<batch_reply> batch;
};

/// One request being served.
class exchange : public std::enable_shared_from_this<exchange> {
 public:
  /// A request received on `session`; `params` is an object or null.
  exchange(std::shared_ptr<session_state> session, reply_route route, jsonrpc::request_id id,
           std::string method, json params);
  /// Settles the in-flight gauge of a request dropped without a reply.
  ~exchange();
  exchange(const exchange&) = delete;
  exchange& operator=(const exchange&) = delete;

  /// Era facts; filled by routing on the receiving thread before the handler runs.
  request_facts facts;

  const jsonrpc::request_id& id() const noexcept { return id_; }
  const std::string& method() const noexcept { return method_; }
  /// Where the reply and the request's notifications go (the session's sink unless the
  /// transport gave the request a stream of its own, as HTTP does).
  const std::shared_ptr<frame_sink>& reply_sink() const noexcept { return route_.sink; }
  /// The request params (always an object once routing accepted the request). Routing moves
  /// _meta out; after that they stay intact (decoders copy or point into them), because the
  /// input round digests them when it seals a run (engine/input_round.hpp).
  json& params() noexcept { return params_; }
  /// The request params, read-only.
  const json& params() const noexcept { return params_; }
  server_core& core() const noexcept;
  session_state& session() const noexcept { return *session_; }
  /// Cancelled by notifications/cancelled, shutdown or the deadline.
  const cancellation_token& token() const noexcept { return token_; }
  /// Names the tool of a tools/call in the request log line (its metrics label stays
  /// "_unknown" until set_tool_slot names a registered tool).
  void set_tool(std::string name) {
    tool_ = std::move(name);
    tool_slot_.store(k_unknown_tool_slot, std::memory_order_relaxed);
  }
  /// The metrics label slot of the registered tool this request calls.
  void set_tool_slot(std::uint32_t slot) noexcept {
    tool_slot_.store(slot, std::memory_order_relaxed);
  }
  const std::string& tool() const noexcept { return tool_; }

  /// Sends the single reply for `o` and settles; false (nothing sent) when already settled.
  bool finish(method_outcome o);
  /// Settles without a reply (cancellation, shutdown) and cancels the token; false when already
  /// settled. A batch member settled this way leaves no entry in the batch reply.
  bool abandon(std::string_view why);
  /// Sends the reply for `o` and cancels the token (the server stops while the handler runs);
  /// false (nothing sent) when already settled.
  bool interrupt(method_outcome o);
  /// What begin_handler() found.
  enum class start { run, refused, settled };
  /// Called by the dispatcher right before the handler runs: `run` marks the handler started;
  /// `refused` when refuse_unstarted() already answered the request (its handler must never run;
  /// the refuser accounted for it); `settled` when it was cancelled or answered otherwise first
  /// (the handler is skipped; the caller accounts for it). Exactly one of begin_handler and
  /// refuse_unstarted wins.
  start begin_handler() noexcept;
  /// A request whose handler has not started (queued for a worker) when the server stops: marks
  /// it so the handler never runs and answers it with `o` (nullopt: settles it without a reply,
  /// when the client is gone). False when the handler already started.
  bool refuse_unstarted(std::optional<method_outcome> o);
  /// When `after` passes before the exchange settles, sends `on_expiry()` and cancels the token.
  void arm_deadline(std::chrono::milliseconds after, std::function<method_outcome()> on_expiry,
                    const std::shared_ptr<exchange>& self);
  /// Drops the deadline, if any (the handler returned).
  void disarm_deadline();
  /// True once a reply was sent or suppressed.
  bool settled() const noexcept { return settled_.load(std::memory_order_acquire); }
  /// Starts the request span when a tracer is attached (after routing filled the facts).
  void begin_span();
  /// The W3C parent the client sent: params._meta traceparent/tracestate, else the HTTP
  /// headers'; nullopt when none or malformed.
  std::optional<trace_parent> incoming_parent() const;
  /// The context handed to user handlers (progress and log notifications stop after the reply).
  /// `decorate` adds a feature's behaviour (a task's: tasks/task_calls.hpp).
  request_context make_context(const std::shared_ptr<exchange>& self,
                               const context_decorator& decorate = {}) const;

  /// Set by session_state when the request is in its in-flight table (so settling removes it).
  void mark_registered() noexcept { registered_ = true; }
  /// Set by the dispatcher before the handler runs: `tool`'s tool_spec::inline_dispatch put this
  /// call on the receiving thread, so make_context refuses legacy questions to the client.
  void set_inline_tool(std::shared_ptr<const tool_entry> tool) noexcept {
    inline_tool_ = std::move(tool);
  }
  /// The tool set by set_inline_tool (looked up once, on this thread); null for other calls.
  const std::shared_ptr<const tool_entry>& inline_tool() const noexcept { return inline_tool_; }
  /// 2026-07-28: the inputs of a request that may answer input_required (null: it brought none,
  /// and an empty round opens on the first question); make_context installs the modern ask hook.
  /// Set before the handler runs.
  void set_input_round(std::shared_ptr<input_round> round) {
    round_ = std::move(round);
    may_ask_ = true;
  }
  /// The request's round: the one set by set_input_round, else an empty one opened now (once,
  /// whichever thread asks first); null for a legacy request or a method that cannot ask.
  input_round* round() const;
  /// The modern ask hook: round()->ask, refused with std::logic_error once the request settled.
  std::vector<json> ask_round(const std::vector<client_request>& questions) const;

  /// Middleware (core/middleware_chain.hpp): the chain this request runs through; set once by
  /// the session's dispatch() before the request runs or is queued, read by run() for the before
  /// hooks and by finish() for the after hooks.
  void set_middleware(std::shared_ptr<const middleware_chain> chain) noexcept {
    chain_ = std::move(chain);
  }
  /// The chain set by set_middleware(); null on a server without middleware.
  const std::shared_ptr<const middleware_chain>& middleware() const noexcept { return chain_; }
  /// How many of the chain's middleware the request reached (their after hooks run).
  std::size_t middleware_reached() const noexcept {
    return chain_reached_.load(std::memory_order_acquire);
  }
  /// Set by the chain as its before hooks run (on the handler's thread; a shutdown may finish the
  /// request meanwhile).
  void set_middleware_reached(std::size_t n) noexcept {
    chain_reached_.store(n, std::memory_order_release);
  }
  /// The object the request's middleware share (created on first use).
  json& middleware_state();
  /// The verified principal (copied from the session once, on first use).
  const json& middleware_principal() const;
  /// The registered tool a tools/call names (looked up once); null otherwise.
  const std::shared_ptr<const tool_entry>& middleware_tool() const;
  /// Time since the request was received.
  std::chrono::microseconds elapsed() const noexcept {
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                                 started_);
  }

 private:
  bool claim();
  // Sends the reply of a claimed exchange (finish() after its middleware ran).
  void send_claimed(method_outcome o);
  // finish() with middleware: runs the after hooks (on a worker when one may block), then sends.
  void finish_through_middleware(method_outcome o);
  void release_worker(std::uint64_t job) const;
  void deliver(std::string frame, std::string_view row);
  std::string frame_for(method_outcome& o) const;
  /// The frame of a tool_failure whose details are kept apart (method_outcome::details).
  std::string tool_failure_frame(const method_outcome& o) const;
  void log_outcome(const method_outcome& o, std::int64_t micros) const;
  void end_span(std::string_view outcome, const method_outcome* o) noexcept;
  void install_ask_hooks(context_hooks& hooks, bool modern) const;

  std::shared_ptr<session_state> session_;
  reply_route route_;
  jsonrpc::request_id id_;
  std::string method_;
  json params_;
  std::string tool_;
  // Atomic: a cancel on the reading thread (abandon) may read it while the handler's thread sets
  // it.
  std::atomic<std::uint32_t> tool_slot_{k_no_tool_slot};
  // Opened lazily: most requests never ask, and an empty round costs an allocation per request.
  bool may_ask_ = false;
  mutable std::once_flag round_once_;
  mutable std::shared_ptr<input_round> round_;
  std::unique_ptr<span> span_;
  cancellation_token token_;
  std::atomic<bool> settled_{false};
  // 0: not started, 1: handler started, 2: refused before it started (never runs).
  std::atomic<std::uint8_t> run_state_{0};
  bool registered_ = false;
  std::shared_ptr<const tool_entry> inline_tool_;
  std::shared_ptr<const middleware_chain> chain_;
  std::atomic<std::size_t> chain_reached_{0};
  std::unique_ptr<json> middleware_state_;
  mutable std::once_flag middleware_lookup_once_;
  mutable json middleware_principal_;
  mutable std::shared_ptr<const tool_entry> middleware_tool_;
  std::optional<std::uint64_t> deadline_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
};

}  // namespace mcpcxx::detail
