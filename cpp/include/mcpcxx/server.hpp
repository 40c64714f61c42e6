// The MCP server engine: registries, capabilities, options, and session factory.
// Thread-safety: registration (add_*/remove_*) may happen at any time from any thread, including
// while sessions are serving; list results are rebuilt after each change. A server must outlive
// its sessions and transports.
// Destruction is bounded: ~server waits up to server_options::stop_grace for running handlers to
// return, then leaves each one still running on its detached thread (logged as
// handlers_abandoned_at_stop) and drops queued requests no worker started. A detached handler
// keeps the engine state it uses alive through shared ownership and ends on its own when it
// returns (its reply goes nowhere); only what the handler's own closure captured by reference is
// the caller's to keep alive.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mcpcxx/jsonrpc.hpp"
#include "mcpcxx/log_level.hpp"
#include "mcpcxx/middleware.hpp"
#include "mcpcxx/primitives.hpp"
#include "mcpcxx/session.hpp"
#include "mcpcxx/tasks.hpp"
#include "mcpcxx/tracing.hpp"
#include "mcpcxx/versions.hpp"  // k_supported_versions, k_modern_version, ...

namespace mcpcxx {

namespace detail {
class engine;
struct shared_store;
}  // namespace detail
class server;
namespace detail {
/// The store `srv` shares with its replicas, or null (the HTTP transport's way in).
std::shared_ptr<shared_store> shared_store_of(const server& srv);
}  // namespace detail

/// The server's Implementation object.
struct server_info {
  std::string name = "mcpcxx-server";
  std::string version = "0.0.0";
  std::optional<std::string> title;
  std::optional<std::string> description;
  json icons = nullptr;  ///< Icon[] or null
  std::optional<std::string> website_url;
};

/// Where the state that replicas of one server share lives (docs/scale-out.md).
struct store_options {
  /// "" or "memory:": in this process only (the default; one replica).
  /// "redis://[user:password@]host[:port][/db]", "rediss://..." (TLS; "?ca=/path/ca.pem" for a
  /// private CA) or "unix:///path[?db=N]": Redis, shared by every replica given the same URL and
  /// key_prefix. Empty here and in http_options::store: serve_http reads MCPCXX_STORE_URL.
  std::string url;
  /// Prefix of every Redis key the server writes; "": "mcpcxx:<info.name>:".
  std::string key_prefix;
  /// Limit, rows P57/H51: one round trip to the store; past it (or with the store unreachable) what
  /// needs the store is refused. Default 1.5 s.
  std::chrono::milliseconds timeout{1500};
  /// How long a task stays `working` after its replica stopped renewing it; it is then failed
  /// (within 2 x task_lease). Default 5 s.
  std::chrono::milliseconds task_lease{5000};
  /// Task records (live and terminal, until their TTL) the shared store keeps at most, across
  /// every replica; a call that would become a task beyond it gets row P50. Default 1000.
  std::size_t max_tasks = 1000;
};

/// How the server keeps the records of at-most-once tools (tool_spec::at_most_once). The records
/// live in the shared store when store_options::url names one, else in this process.
struct at_most_once_options {
  /// A result larger than this (serialized bytes) is not kept: a repeat then gets row T13.
  std::size_t max_result_bytes = std::size_t{64} * 1024;
  /// Records kept in this process at most (no shared store); beyond it the oldest settled record
  /// is dropped (counted in mcpcxx_at_most_once_total{outcome="evicted"}), never a running one.
  std::size_t max_records = 100000;
  /// How long a running call's claim in a shared store outlives its replica: past it, a repeat
  /// learns the outcome is unknown (reason replica_lost). Default 5 s, renewed every third.
  std::chrono::milliseconds lease{5000};
  /// Log a warning (once per tool name) when a tool annotated destructiveHint: true registers
  /// without tool_spec::at_most_once.
  bool warn_destructive = true;
};

/// Engine configuration.
struct server_options {
  server_info info;
  std::optional<std::string> instructions;
  /// Put the exception text of unexpected handler failures on the wire (never by default).
  bool expose_exception_details = false;
  jsonrpc::parse_limits limits;
  std::size_t page_size = 100;  ///< items per list page
  /// ttlMs of modern discover results and the default of every primitive's cache_hint (>= 0).
  std::int64_t list_ttl_ms = 60000;
  /// cacheScope of modern discover results and the default of every primitive's cache_hint
  /// ("public" or "private").
  std::string cache_scope = "public";
  /// Worker threads always kept for request handlers. 0: max(2, hardware_concurrency).
  std::size_t worker_threads = 0;
  /// Limit (no error row: requests wait in the queue): the pool grows past worker_threads while
  /// every worker waits inside a handler (sleep, I/O, a lock) and requests are queued, up to this
  /// many threads; grown threads exit after 10 s idle. Quick handlers never grow it. Default 64.
  std::size_t max_worker_threads = 64;
  /// A handler still running after this long is logged once (handler_running_long, with the tool
  /// or method) and counted in server_metrics::long_running_handlers. Default 30 s.
  std::chrono::milliseconds long_handler_after{30000};
  /// Limit, row P28: a 2025-03-26 batch with more members than this is refused as a whole
  /// (nothing runs). Default 1000.
  std::size_t max_batch_members = 1000;
  /// Limit, row P29: the bytes of one batch reply. A member whose reply would push the batch
  /// reply past it gets P29 (its result dropped; it ran) instead. Default 16 MiB.
  std::size_t max_batch_reply_bytes = std::size_t{16} * 1024 * 1024;
  /// Limit (no error row: nothing is refused). A tool handler still running after its deadline is
  /// "stuck": the client already got the timeout (T5/T5w) and its cancellation token is
  /// cancelled; its worker stops counting and a replacement thread serves other requests. At
  /// most this many replacements exist at once; past it the pool runs short (logged as
  /// handler_stuck, counted in server_metrics::stuck_handlers). Default 16.
  std::size_t max_stuck_workers = 16;
  /// Limit (no error row): how long ~server waits for handlers still running to return before
  /// detaching their threads (see the file comment). Default 5 s.
  std::chrono::milliseconds stop_grace{5000};
  bool assert_formats = false;  ///< JSON Schema `format` asserts when true
  /// 2026-07-28 multi-round-trip requests: the key sealing `requestState` (AES-256-GCM), base64
  /// or base64url of 32 random bytes (`openssl rand -base64 32`). Give every replica serving one
  /// endpoint the same key so each accepts the others' states. Empty: a fresh random key per
  /// server (states then open only on this instance and die with it). The server constructor
  /// throws std::invalid_argument for a malformed key. Never written by to_json.
  std::string request_state_key;
  /// Earlier keys still accepted when opening a `requestState` (rotation: move the old current
  /// key here, set a new one, drop it after request_state_ttl_s). Never written by to_json.
  std::vector<std::string> request_state_previous_keys;
  /// Where state shared between replicas lives (sessions, events, tasks, listen delivery). A
  /// Redis store needs request_state_key (else the constructor throws std::invalid_argument);
  /// an unreachable one makes it throw std::runtime_error within store.timeout + 2 s.
  store_options store;
  at_most_once_options at_most_once;  ///< repeated calls of at-most-once tools
  /// Seconds a `requestState` stays valid after it is issued (> 0). Default 600.
  std::int64_t request_state_ttl_s = 600;
  /// Writes one line (no newline) to the server log; default: stderr. Called from any thread.
  std::function<void(std::string_view line)> log_writer;
  /// Log one JSON line per request outcome (method, tool, id, category, latency, reference).
  bool log_requests = true;
  /// Server-log lines below this level are not written (request lines are info when ok, warning
  /// otherwise; unexpected failures error). Default debug: everything.
  log_level log_threshold = log_level::debug;
  /// Advertise and implement the logging capability.
  bool logging = true;
  /// Extra capabilities merged into the advertised ServerCapabilities (e.g. experimental).
  json extra_capabilities = json::object();
  /// Legacy sessions: how long a handler's request to the client (request_context::elicit,
  /// elicit_url, sample, list_roots) waits for the answer before it sends notifications/cancelled
  /// and throws client_request_timeout. A tool's own deadline still applies. Default 5 minutes
  /// (elicitation waits for a person).
  std::chrono::milliseconds client_request_timeout = std::chrono::minutes(5);
  /// Called on the transport's receiving thread when a legacy client sends
  /// notifications/roots/list_changed; `s` is its session. Exceptions are logged and dropped.
  std::function<void(session s)> on_roots_list_changed;
  /// Tasks (tools declared with tool_spec::task): the store, TTLs, poll interval, task threads.
  task_options tasks;
  /// Limit, row P43: open 2026-07-28 subscriptions/listen streams per server. Default 10000.
  std::size_t max_listeners = 10000;
  /// Limit, row P42: resourceSubscriptions URIs of one subscriptions/listen. Default 1000.
  std::size_t max_listen_uris = 1000;
  /// Limit (no error row): notifications one listen stream may hold while its client does not
  /// read (list_changed and resources/updated coalesce, so this counts distinct ones). Past it
  /// the stream is ended gracefully (the client may listen again and re-read). Default 256.
  std::size_t listener_queue = 256;
};

/// Counters of outcomes since start (see docs/error-model.md for the categories).
struct server_metrics {
  std::uint64_t requests = 0;
  std::uint64_t notifications = 0;
  std::uint64_t protocol_errors = 0;
  std::uint64_t tool_errors = 0;
  std::map<std::string, std::uint64_t> by_category;  ///< "ok", "invalid_arguments", "timeout", ...
  /// Handlers running past their deadline right now (a gauge, not a counter).
  std::uint64_t stuck_handlers = 0;
  /// Handlers running longer than server_options::long_handler_after right now (a gauge).
  std::uint64_t long_running_handlers = 0;
  /// Worker threads alive right now, grown ones included (a gauge).
  std::uint64_t worker_threads = 0;
};

struct skills_options;  // mcpcxx/skills.hpp
struct skills_changes;

/// The engine. Create one, register primitives, then open sessions from transports.
class server {
 public:
  /// Creates the engine and its worker pool.
  explicit server(server_options options = {});
  ~server();
  server(const server&) = delete;
  server& operator=(const server&) = delete;

  /// Registers a tool. Throws std::invalid_argument for a bad or duplicate name and
  /// schema::schema_error for a schema that does not compile.
  void add_tool(tool_spec spec, tool_handler handler);
  /// Registers a tool whose handler completes later (async_tool_handler), with add_tool's checks;
  /// also refuses inline_dispatch. A call that runs as a task waits for the completion on a task
  /// thread.
  void add_async_tool(tool_spec spec, async_tool_handler handler);
  /// Removes a tool; returns false when absent.
  bool remove_tool(std::string_view name);
  /// Registers a concrete resource; throws std::invalid_argument for an empty or duplicate URI.
  void add_resource(resource_spec spec, resource_reader reader);
  /// Removes a concrete resource; returns false when absent.
  bool remove_resource(std::string_view uri);
  /// Whether a concrete resource is registered at `uri` (templates are not matched).
  bool has_resource(std::string_view uri) const;
  /// Registers a resource template; throws std::invalid_argument for a malformed template.
  void add_resource_template(resource_template_spec spec, resource_template_reader reader);
  /// Removes a resource template by its uriTemplate; returns false when absent.
  bool remove_resource_template(std::string_view uri_template);
  /// Registers a prompt; throws std::invalid_argument for an empty or duplicate name.
  void add_prompt(prompt_spec spec, prompt_handler handler);
  /// Removes a prompt; returns false when absent.
  bool remove_prompt(std::string_view name);
  /// Installs the completion handler (enables the completions capability).
  void set_completion_handler(completion_handler handler);
  /// Declares extension `id` with its settings object: advertised in ServerCapabilities
  /// `extensions` (server/discover on 2026-07-28; initialize on legacy revisions, whose schemas
  /// allow the extra member). `id` follows the spec's _meta key rules with a mandatory prefix
  /// ("com.example/feature": dot-separated labels, a slash, a name). Throws
  /// std::invalid_argument for a bad id, settings that are not an object, or an id already
  /// declared.
  void add_extension(std::string id, json settings = json::object());
  /// Adds middleware `m` after those already added (mcpcxx/middleware.hpp): its before hook runs
  /// after theirs, its after hook before theirs. Requests already running keep the middleware
  /// they started with. Throws std::invalid_argument for a middleware without a name or hooks,
  /// or naming a method the server does not serve.
  void add_middleware(middleware m);
  /// Serves `child`'s tools, prompts, resources and resource templates from this server under
  /// `prefix` (docs/composition.md): tools and prompts as "<prefix>_<name>", URIs as
  /// "scheme://<prefix>/<rest>". Calls run the child's handlers with this server's request
  /// context, this server's middleware and then the child's; the child's scopes and other spec
  /// fields apply. Later registrations on either server are mirrored (list_changed) and the
  /// child's notify_resource_updated reaches this server's subscribers. Allowed while serving.
  /// `child` stays usable on its own; this server keeps its engine alive. Throws
  /// std::invalid_argument for a bad prefix, a prefix already used, `child` == *this, a mount
  /// cycle, or names that would collide or be invalid (all named, with what to do).
  void mount(server& child, const std::string& prefix);
  /// Withdraws extension `id`; returns false when it was not declared.
  bool remove_extension(std::string_view id);
  /// Serves the skills below directory `root` (mcpcxx/skills.hpp, docs/skills.md): each
  /// directory holding a SKILL.md is a skill, its files skill:// resources; declares the
  /// io.modelcontextprotocol/skills extension and serves skills/list, skills/get and, with
  /// options.directory_read, resources/directory/read. The tree is read once, into memory.
  /// Throws std::invalid_argument naming the file and the problem (frontmatter, name, symlink,
  /// limit, a tree without skills, skills already added) or std::runtime_error for an I/O error;
  /// nothing is served then.
  void add_skills(const std::string& root, const skills_options& options);
  /// add_skills with the default skills_options.
  void add_skills(const std::string& root);
  /// Re-reads the tree add_skills loaded and serves the new one: resources list_changed for
  /// added, removed or resized files, resources/updated for files whose bytes changed. Throws
  /// like add_skills and keeps serving the old tree then. Any thread.
  skills_changes reload_skills();

  /// Sends notifications/resources/updated {uri} to legacy sessions subscribed to `uri`
  /// (resources/subscribe) and to 2026-07-28 listen streams whose resourceSubscriptions name it.
  /// Any thread. Registration changes (add_* / remove_* after start) send list_changed by
  /// themselves (docs/listen.md: coalesced per family within 20 ms).
  void notify_resource_updated(std::string_view uri);
  /// Sends notifications/elicitation/complete {elicitationId} to the legacy session that was asked
  /// for URL-mode elicitation `elicitation_id` (request_context::elicit_url or a thrown
  /// url_elicitation_required); false when no live session is known for it. Any thread.
  bool notify_elicitation_complete(std::string_view elicitation_id);
  /// The inputSchema of a registered tool (HTTP x-mcp-header checks), shared with the registry
  /// (no copy; it stays valid while held, even if the tool is replaced); null when absent.
  std::shared_ptr<const json> tool_input_schema(std::string_view name) const;
  /// The scopes a registered tool requires (HTTP 403 checks); empty when absent or unscoped.
  std::vector<std::string> tool_scopes(std::string_view name) const;
  /// The scopes a request of `method` naming `name` requires: tools/call a tool's,
  /// resources/read and resources/subscribe a URI's resource's (or its template's), prompts/get a
  /// prompt's (HTTP 403 checks); empty when none, unknown or another method.
  std::vector<std::string> required_scopes(std::string_view method, std::string_view name) const;

  /// Opens a session writing to `sink`.
  session open_session(std::shared_ptr<frame_sink> sink, session_options options = {});

  /// The ServerCapabilities object currently advertised.
  json capabilities() const;
  /// The options the server was created with.
  const server_options& options() const;
  /// A snapshot of the outcome counters.
  server_metrics metrics() const;
  /// Every metric in the Prometheus text exposition format 0.0.4 (names and labels:
  /// docs/observability.md). Any thread.
  std::string metrics_text() const;
  /// Writes one JSON line {level, event, ...fields} to the server log (server_options::log_writer)
  /// unless `level` is below log_threshold. `level` is a log level name. Any thread.
  void write_log(std::string_view level, std::string_view event, const json& fields) const;
  /// Moves the state replicas share onto the store at `url` (store_options::url's forms), as
  /// server_options::store does at construction; serve_http and http_server::start call it for
  /// http_options::store and MCPCXX_STORE_URL. "" and "memory:" change nothing. Call it before
  /// serving. Throws like the constructor, and std::invalid_argument when the server already
  /// uses another store.
  void use_store(const std::string& url);
  /// False while a configured shared store cannot be reached (readiness); true without one.
  bool store_ready() const;
  /// Attaches `t` (null detaches): one span per request from then on (tracing.hpp). Call it
  /// before sessions serve requests; it must not race with request handling.
  void set_tracer(std::shared_ptr<tracer> t);

 private:
  friend std::shared_ptr<detail::shared_store> detail::shared_store_of(const server& srv);
  std::shared_ptr<detail::engine> engine_;
};

}  // namespace mcpcxx
