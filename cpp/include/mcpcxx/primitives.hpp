// Declarations of what a server offers: tools, resources, resource templates, prompts and
// completion, with the handler signatures the engine calls.
// Thread-safety: handlers run on the engine's worker threads and may run concurrently with each
// other (including the same handler for different requests); they must be thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mcpcxx/context.hpp"
#include "mcpcxx/json.hpp"
#include "mcpcxx/tasks.hpp"

namespace mcpcxx {

/// 2026-07-28 caching hints of one primitive (ttlMs, cacheScope; spec "Caching"). Unset members
/// take server_options::list_ttl_ms / cache_scope. A primitive has no wire field for them: a list
/// result carries the smallest ttl_ms and the most private scope of every entry of its list (all
/// pages alike), resources/read those of the resource or template read. Registration throws
/// std::invalid_argument for a negative ttl_ms or a scope other than "public" / "private".
struct cache_hint {
  std::optional<std::int64_t> ttl_ms;  ///< milliseconds a client may reuse the result (>= 0)
  std::optional<std::string> scope;    ///< "public" (no user data) or "private" (per user)
};

class tool_error;
class unexpected_error;

/// What a tool returns on success (or an explicit error result with is_error = true).
struct tool_result {
  json content = json::array();  ///< ContentBlock[]
  std::optional<json> structured_content;
  bool is_error = false;
  json meta = nullptr;  ///< result _meta or null
  /// Set by failed(): the tool failed with this error; the other members are then ignored.
  std::shared_ptr<const tool_error> error;
  /// Set by failed(unexpected_error): the tool failed unexpectedly; the other members are then
  /// ignored.
  std::shared_ptr<const unexpected_error> unexpected;

  /// One text content block.
  static tool_result text(std::string text);
  /// structuredContent plus its JSON serialization as a text block.
  static tool_result structured(json value);
  /// The tool failed with `error`: the very reply (row T2) that throwing it would give, without
  /// the cost of unwinding an exception (about a third of a small tool's failure).
  static tool_result failed(tool_error error);
  /// The tool failed unexpectedly, as reported by a foreign runtime (a Python exception): the
  /// very reply (row T3, with a fresh reference id and the detail logged under it) that throwing
  /// `error` would give, without unwinding. Only the engine can give it a CallToolResult.
  static tool_result failed(unexpected_error error);
};

/// The read an at-most-once tool's refusals point the model to, so it can learn whether an earlier
/// identical call was applied: rendered as `tool({"arg": value, ...})` with this call's values.
struct status_check {
  std::string tool;                    ///< the tool that reads the operation's state
  std::vector<std::string> arguments;  ///< names of this call's arguments passed on to it
};

/// What an at-most-once tool's earlier identical call left when its outcome is unknown (it
/// timed out, was cancelled after it started, failed with effect unknown, or its replica died).
struct prior_call {
  std::string call_id;  ///< the earlier call's id (also in the server log)
  std::chrono::system_clock::time_point first_called_at;
  std::string reason;  ///< "timeout", "cancelled", "failed" or "replica_lost"
  json arguments;      ///< the arguments of the call asking now (identical by the tool's key)
};

/// A resolver's verdict on a prior_call (at_most_once::resolver).
struct prior_resolution {
  enum class verdict : std::uint8_t {
    unknown,      ///< still unknown: the repeat is refused with effect unknown (row T12)
    applied,      ///< it was applied: `result` is replayed and kept as the operation's result
    not_applied,  ///< it was not applied: the repeat runs the handler
  };
  verdict kind = verdict::unknown;
  tool_result result;  ///< with applied: what the earlier call would have returned

  /// The outcome stays unknown.
  static prior_resolution still_unknown();
  /// The earlier call was applied and `r` is its result.
  static prior_resolution applied(tool_result r);
  /// The earlier call applied nothing: run this one.
  static prior_resolution not_applied();
};

/// At-most-once execution of a tool (docs/error-model.md, "Repeated calls"): an identical call
/// within `window` of the first never runs the handler again. Identical means the same
/// principal (none: every unauthenticated caller alike), the same tool and the same canonical
/// arguments (key order and number spelling aside), or with `key_argument` the same value of
/// that argument alone. Registration throws std::invalid_argument for a window outside
/// (0, 7 days], a key_argument the inputSchema does not require, or a status_check naming an
/// argument the inputSchema lacks.
struct at_most_once {
  std::chrono::milliseconds window{0};  ///< how long after the first call a repeat is matched
  /// The argument carrying a caller-chosen idempotency key; empty: every argument is compared.
  std::string key_argument;
  std::optional<mcpcxx::status_check> check;  ///< named in the refusals; none: "the current state"
  /// Looks up an unknown outcome when a repeat arrives (on the repeat's worker thread, with its
  /// context); unset: the repeat is refused with row T12. Exceptions count as still_unknown.
  std::function<prior_resolution(const prior_call&, request_context&)> resolver;
};

/// A rule on the caller's principal that a tool, resource, resource template or prompt requires
/// besides its scopes (the specs' `visible_to`). A request without a principal never runs it: the
/// primitive is hidden and refused as needing authentication (row P65, P56 for a scoped tool). A
/// false test hides the primitive from its list and refuses it (row P66); a test that throws is
/// an unexpected error (hidden; refused with P24, the detail logged under its reference). For a
/// rule that depends on a request's arguments use the `authorize` middleware (middleware.hpp).
/// Thread-safety: `test` runs on worker threads, concurrently; it must be thread-safe.
struct principal_rule {
  /// True when `principal` (a non-null object, see request_context::principal()) may see and use
  /// the primitive.
  std::function<bool(const json& principal)> test;
  /// What the rule requires, in words for refusals ("the role ops"); empty: not said.
  std::string requirement;
  /// True when a test is set.
  explicit operator bool() const noexcept { return static_cast<bool>(test); }
};

/// A rule holding when the principal has every role of `roles` in its "roles" claim (top level or
/// in "claims"; an array of strings or one space-separated string). Throws std::invalid_argument
/// for an empty list or an empty role.
principal_rule require_roles(std::vector<std::string> roles);

/// A rule holding when each member of `claims` (a non-empty object) equals the principal's claim
/// of that name (top level or in "claims"). Throws std::invalid_argument otherwise.
principal_rule require_claims(json claims);

/// A tool's declaration as listed by tools/list.
struct tool_spec {
  std::string name;  ///< 1-64 chars of [A-Za-z0-9_.-], unique per server
  std::optional<std::string> title;
  std::optional<std::string> description;
  json input_schema = json{{"type", "object"}};  ///< compiled at registration
  std::optional<json> output_schema;  ///< compiled at registration; validates structuredContent
  json annotations = nullptr;  ///< ToolAnnotations object (readOnlyHint, destructiveHint, ...)
  json icons = nullptr;        ///< Icon[] or null
  json meta = nullptr;         ///< _meta object or null
  /// Per-call deadline; exceeded -> isError with category timeout.
  std::optional<std::chrono::milliseconds> timeout;
  cache_hint cache;  ///< tools/list hints (no wire form on Tool)
  /// Whether a call may run as a task (mcpcxx/tasks.hpp); listed as execution.taskSupport to
  /// 2025-11-25 sessions.
  task_support task = task_support::forbidden;
  /// 2026-07-28: the handler starts in the request (its questions are input-required rounds)
  /// and calls request_context::start_task() when the rest should run as a task. False: a call
  /// that becomes a task is one from the start. Legacy task-augmented calls always start at once.
  bool task_started_by_handler = false;
  /// OAuth scopes a caller's principal must all hold (request_context::principal()): without
  /// them the tool is left out of tools/list and refused (HTTP 403 row H42, else rows P55/P56).
  /// Empty: every caller. A request without a principal (stdio, HTTP without auth) holds none.
  std::vector<std::string> scopes;
  /// A rule on the principal besides the scopes (principal_rule): hidden and refused (P66) when
  /// it fails. Unset: every caller holding the scopes.
  principal_rule visible_to;
  /// Opt-in promise that the handler is quick and never blocks (no sleep, no waiting on I/O,
  /// locks held by slow code or other requests): its calls run on the transport thread that read
  /// them instead of the worker pool, skipping two thread hand-offs. While it runs, that thread
  /// reads nothing else (stdio: stdin; HTTP: its connections). A legacy question to the client
  /// (sampling, elicitation, roots) is refused at once with std::logic_error, since its answer
  /// could only be read by the blocked thread; 2026-07-28 input rounds do not block and work.
  /// Needs task == forbidden (a task outlives its request): registration refuses the mix.
  bool inline_dispatch = false;
  /// Runs each operation at most once within a window (see at_most_once); unset: every call runs.
  std::optional<mcpcxx::at_most_once> at_most_once;
};

/// Tool handler: receives the validated arguments (an object, {} when absent).
using tool_handler = std::function<tool_result(const json& arguments, request_context& ctx)>;

/// Answers one call of an async tool (server::add_async_tool). Copies share the call; the first
/// complete() or fail() answers it and later ones are ignored (as is a call already answered by
/// its deadline or cancelled). Dropping the last copy unanswered answers it as an unexpected
/// failure (row T3). Thread-safety: any thread, concurrently.
class tool_completion {
 public:
  /// What the engine puts behind a completion.
  struct target {
    virtual ~target() = default;
    /// Answers with a result (tool_result::failed for an expected failure).
    virtual void complete(tool_result r) = 0;
    /// Answers as if the handler had thrown `error`.
    virtual void fail(std::exception_ptr error) = 0;
  };
  /// A completion answering through `t` (the engine makes these).
  explicit tool_completion(std::shared_ptr<target> t);
  /// Answers the call with `r`.
  void complete(tool_result r) const;
  /// Answers the call as if the handler had thrown `error`.
  void fail(std::exception_ptr error) const;

 private:
  struct shared;
  std::shared_ptr<shared> shared_;
};

/// Async tool handler: starts the work and returns without waiting for it; the engine answers
/// the call when `done` is completed, from any thread. `ctx` stays valid until then. No worker
/// thread is held while the work waits (an event loop, an async client), so any number of such
/// calls can be in flight at once. Exceptions it throws answer the call as a thrown handler's.
using async_tool_handler =
    std::function<void(const json& arguments, request_context& ctx, tool_completion done)>;

/// A concrete resource as listed by resources/list.
struct resource_spec {
  std::string uri;
  std::string name;
  std::optional<std::string> title;
  std::optional<std::string> description;
  std::optional<std::string> mime_type;
  std::optional<std::int64_t> size;
  json icons = nullptr;
  json annotations = nullptr;
  json meta = nullptr;
  cache_hint cache;  ///< resources/list and resources/read hints (no wire form on Resource)
  /// OAuth scopes a caller's principal must all hold: without them the resource is left out of
  /// resources/list and refused (rows P64/P65, HTTP 403 row H44). Empty: every caller.
  std::vector<std::string> scopes;
  /// A rule on the principal besides the scopes (principal_rule); unset: no rule.
  principal_rule visible_to;
};

/// One entry of resources/read contents: text or base64 blob.
struct resource_contents {
  std::string uri;
  std::optional<std::string> mime_type;
  std::optional<std::string> text;
  std::optional<std::string> blob_base64;
  json meta = nullptr;
};

/// Reads a concrete resource; throw resource_not_found when it vanished.
using resource_reader =
    std::function<std::vector<resource_contents>(const std::string& uri, request_context& ctx)>;

/// An RFC 6570 resource template (mcpcxx/uri_template.hpp) as listed by
/// resources/templates/list.
struct resource_template_spec {
  std::string uri_template;  ///< "test://template/{id}/data"
  std::string name;
  std::optional<std::string> title;
  std::optional<std::string> description;
  std::optional<std::string> mime_type;
  json icons = nullptr;
  json annotations = nullptr;
  json meta = nullptr;
  cache_hint cache;  ///< resources/templates/list and resources/read hints (no wire form)
  /// OAuth scopes a caller's principal must all hold: without them the template (and every resource
  /// read through it) is left out of resources/templates/list and refused (rows P64/P65, HTTP 403
  /// row H44, also for completion/complete of it). Empty: every caller.
  std::vector<std::string> scopes;
  /// A rule on the principal besides the scopes (principal_rule); unset: no rule.
  principal_rule visible_to;
};

/// Reads a URI matching a template; `variables` holds the values the URI defines (percent-decoded;
/// a variable of an absent {?x}, {/x}, ... expression is not in it).
using resource_template_reader = std::function<std::vector<resource_contents>(
    const std::string& uri, const std::map<std::string, std::string>& variables,
    request_context& ctx)>;

/// One declared prompt argument.
struct prompt_argument {
  std::string name;
  std::optional<std::string> title;
  std::optional<std::string> description;
  bool required = false;
};

/// A prompt as listed by prompts/list.
struct prompt_spec {
  std::string name;
  std::optional<std::string> title;
  std::optional<std::string> description;
  std::vector<prompt_argument> arguments;
  json icons = nullptr;
  json meta = nullptr;
  cache_hint cache;  ///< prompts/list hints (no wire form on Prompt)
  /// OAuth scopes a caller's principal must all hold: without them the prompt is left out of
  /// prompts/list and refused (rows P64/P65, HTTP 403 row H44, also for
  /// completion/complete of it). Empty: every caller.
  std::vector<std::string> scopes;
  /// A rule on the principal besides the scopes (principal_rule); unset: no rule.
  principal_rule visible_to;
};

/// prompts/get result.
struct prompt_result {
  std::optional<std::string> description;
  json messages = json::array();  ///< [{role, content: ContentBlock}]
};

/// Renders a prompt; required arguments are checked by the engine before the call.
using prompt_handler = std::function<prompt_result(
    const std::map<std::string, std::string>& arguments, request_context& ctx)>;

/// A completion/complete request, already validated.
struct completion_request {
  std::string ref_type;  ///< "ref/prompt" or "ref/resource"
  std::string ref;       ///< prompt name or resource (template) URI
  std::string argument_name;
  std::string argument_value;
  std::map<std::string, std::string> context_arguments;
};

/// completion/complete result; at most 100 values are sent (the rest sets has_more).
struct completion_result {
  std::vector<std::string> values;
  std::optional<std::int64_t> total;
  bool has_more = false;
};

/// Completion handler for all refs of a server.
using completion_handler =
    std::function<completion_result(const completion_request& request, request_context& ctx)>;

// JSON forms (nlohmann ADL hooks, defined in cpp/src/model/): each type is its MCP wire object
// (Tool, CallToolResult, Resource, ResourceContents, ResourceTemplate, PromptArgument, Prompt,
// GetPromptResult, CompleteRequest params, Completion). from_json throws std::invalid_argument
// naming the key and what it must be; tool_spec::timeout and the `cache` hints have no wire form
// and are left untouched.

/// tool_spec <-> Tool (the tools/list entry).
void to_json(json& j, const tool_spec& s);
void from_json(const json& j, tool_spec& s);
/// tool_result <-> CallToolResult.
void to_json(json& j, const tool_result& r);
void from_json(const json& j, tool_result& r);
/// resource_spec <-> Resource (the resources/list entry).
void to_json(json& j, const resource_spec& s);
void from_json(const json& j, resource_spec& s);
/// resource_contents <-> TextResourceContents | BlobResourceContents (exactly one of text, blob).
void to_json(json& j, const resource_contents& c);
void from_json(const json& j, resource_contents& c);
/// resource_template_spec <-> ResourceTemplate (the resources/templates/list entry).
void to_json(json& j, const resource_template_spec& s);
void from_json(const json& j, resource_template_spec& s);
/// prompt_argument <-> PromptArgument.
void to_json(json& j, const prompt_argument& a);
void from_json(const json& j, prompt_argument& a);
/// prompt_spec <-> Prompt (the prompts/list entry).
void to_json(json& j, const prompt_spec& s);
void from_json(const json& j, prompt_spec& s);
/// prompt_result <-> GetPromptResult.
void to_json(json& j, const prompt_result& r);
void from_json(const json& j, prompt_result& r);
/// completion_request <-> CompleteRequest params ({ref, argument, context: {arguments}}).
void to_json(json& j, const completion_request& r);
void from_json(const json& j, completion_request& r);
/// completion_result <-> Completion ({values, total?, hasMore}); the engine caps values at 100.
void to_json(json& j, const completion_result& r);
void from_json(const json& j, completion_result& r);

}  // namespace mcpcxx
