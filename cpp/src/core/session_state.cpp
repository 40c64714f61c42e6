// The receive path of a session: classify each message; a request becomes an exchange that is
// routed (era selection, the method table's gates), admitted in flight and run (on the receiving
// thread or the worker pool) with the one exception classifier; the in-flight table; and the
// public session facade over it, with frame_sink's out-of-line default (the core constructs
// sessions and sends batch replies through frame_sink, so both are defined in the core).
// Messages that are not requests (notifications, cancellations, responses, batches):
// session_messages.cpp.
#include "core/session_state.hpp"

#include <cxxabi.h>

#include "mcpcxx/context.hpp"
#include "mcpcxx/jsonrpc.hpp"
#include "mcpcxx/server.hpp"
#include "mcpcxx/session.hpp"

#include "core/batch_reply.hpp"
#include "core/classify.hpp"
#include "core/exchange.hpp"
#include "core/method_table.hpp"
#include "core/middleware_chain.hpp"
#include "core/notification_middleware.hpp"
#include "core/server_core.hpp"
#include "core/wire_errors.hpp"
#include "wire/era.hpp"
#include "wire/situation.hpp"

namespace mcpcxx::detail {

namespace {

using ::mcpcxx::wire::render;
using ::mcpcxx::wire::row_of;

// ---- routing: era selection and the method table's gates ----

constexpr std::string_view k_caps_key = "io.modelcontextprotocol/clientCapabilities";
constexpr std::string_view k_info_key = "io.modelcontextprotocol/clientInfo";
constexpr std::string_view k_level_key = "io.modelcontextprotocol/logLevel";

using refusal = std::optional<method_outcome>;

refusal refuse_frame(situation row, const json& args = json::object()) {
  return method_outcome::protocol(row, args);
}

// P11 when a modern request's _meta lacks the protocol version or the client capabilities.
refusal missing_meta_refusal(const json* meta) {
  std::vector<std::string> missing;
  if (meta == nullptr || !meta->contains(mcpcxx::wire::k_version_meta_key))
    missing.emplace_back(mcpcxx::wire::k_version_meta_key);
  if (meta == nullptr || !meta->contains(k_caps_key)) missing.emplace_back(k_caps_key);
  if (missing.empty()) return std::nullopt;
  return refuse_frame(situation::P11_missing_modern_meta, {{"missing", missing}});
}

// The optional logLevel of a modern request's _meta; P22 when it names no level.
refusal modern_log_level(request_facts& f, const json& meta) {
  auto it = meta.find(k_level_key);
  if (it == meta.end()) return std::nullopt;
  auto level = it->is_string() ? parse_log_level(it->get_ref<const std::string&>()) : std::nullopt;
  if (!level) return refuse_frame(situation::P22_invalid_log_level, {{"level", *it}});
  f.min_log_level = level;
  return std::nullopt;
}

refusal modern_facts(request_facts& f, const json* meta) {
  if (auto r = missing_meta_refusal(meta)) return r;
  const json& version = (*meta)[mcpcxx::wire::k_version_meta_key];
  if (!version.is_string() ||
      !::mcpcxx::wire::is_modern_version(version.get_ref<const std::string&>())) {
    return refuse_frame(situation::P12_unsupported_version, {{"requested", version}});
  }
  const json& caps = (*meta)[k_caps_key];
  if (!caps.is_object())
    return method_outcome::protocol(
        situation::P15b_param_invalid,
        wire::param_invalid_args(k_caps_key, "an object (use {} for none)"));
  f.modern = true;
  f.version = version.get<std::string>();
  f.client_capabilities = caps;
  if (auto it = meta->find(k_info_key); it != meta->end()) f.client_info = *it;
  return modern_log_level(f, *meta);
}

void legacy_facts(request_facts& f, legacy_state&& l) {
  f.modern = false;
  f.version = std::move(l.version);
  f.client_capabilities = std::move(l.client_capabilities);
  f.client_info = std::move(l.client_info);
  f.min_log_level = l.level;
}

// Which era serves the request: the transport's hint when it decided (with the same function),
// else the one era rule of wire::message_era on the request alone.
bool served_modern(const exchange& ex, const json* meta, era_hint hint) {
  if (hint != era_hint::unknown) return hint == era_hint::modern;
  return ::mcpcxx::wire::message_era({.method = ex.method(), .meta = meta}) ==
         ::mcpcxx::wire::era::modern;
}

refusal gate(const exchange& ex, const method_info* m, bool initialized) {
  const auto& f = ex.facts;
  if (m == nullptr) return refuse_frame(situation::P8_method_not_found, {{"method", ex.method()}});
  if (f.modern && (m->flags & in_modern) == 0) {
    return refuse_frame(situation::P9_method_not_in_era,
                        {{"method", ex.method()}, {"protocolVersion", f.version}});
  }
  if (!f.modern && (m->flags & in_legacy) == 0) {
    return initialized ? refuse_frame(situation::P9_method_not_in_era,
                                      {{"method", ex.method()}, {"protocolVersion", f.version}})
                       : refuse_frame(situation::P14_not_initialized, {{"method", ex.method()}});
  }
  if (!f.modern && !initialized && (m->flags & before_init) == 0) {
    return refuse_frame(situation::P14_not_initialized, {{"method", ex.method()}});
  }
  if (!m->capability.empty() && !ex.core().registry().has_capability(m->capability)) {
    return refuse_frame(situation::P10_capability_not_advertised,
                        {{"method", ex.method()}, {"capability", m->capability}});
  }
  return std::nullopt;
}

// _meta moves out of params into the shared copy handlers read (request_context::request_meta):
// no decoder or binding reads it there, and copying it was a dozen allocations per request.
std::shared_ptr<const json> take_meta(json& params) {
  auto it = params.find("_meta");
  if (it == params.end() || !it->is_object()) return nullptr;
  auto meta = std::make_shared<const json>(std::move(*it));
  params.erase(it);
  return meta;
}

// Hands the request's _meta (if any) to its handler, with its progressToken.
void keep_meta(request_facts& f, std::shared_ptr<const json> meta) {
  if (meta == nullptr) return;
  if (auto it = meta->find("progressToken");
      it != meta->end() && (it->is_string() || it->is_number_integer())) {
    f.progress_token = *it;
  }
  f.request_meta = std::move(meta);
}

// Fills the era facts of `ex`, finds its row and applies every gate in order.
refusal route(exchange& ex, era_hint hint, const method_info*& m) {
  json& params = ex.params();
  if (!params.is_null() && !params.is_object()) {
    return method_outcome::protocol(situation::P15b_param_invalid,
                                    wire::param_invalid_args("params", "an object", &params));
  }
  if (params.is_null()) params = json::object();
  std::shared_ptr<const json> owned_meta = take_meta(params);
  const json* meta = owned_meta.get();
  bool initialized = false;
  m = find_method(ex.method());
  if (served_modern(ex, meta, hint)) {
    // A method the modern era does not have is unknown whatever its _meta (initialize over a
    // modern HTTP request is -32601, as the conformance suite expects).
    if (m == nullptr || (m->flags & in_modern) == 0) {
      ex.facts.modern = true;
      ex.facts.version = std::string(mcpcxx::wire::k_modern);
      return gate(ex, m, false);
    }
    if (auto r = modern_facts(ex.facts, meta)) return r;
    initialized = !ex.session().legacy_version().empty();
  } else {
    legacy_facts(ex.facts, ex.session().legacy());
    initialized = !ex.facts.version.empty();
  }
  keep_meta(ex.facts, std::move(owned_meta));
  return gate(ex, m, initialized);
}

// Row P27a: the server stopped before a worker started the request; nothing ran.
method_outcome not_started_outcome() {
  return method_outcome::protocol(situation::P27a_stopped_before_start,
                                  {{"started", false}, {"effect", "not_applied"}});
}

handler_kind kind_of(const method_info& m) {
  if (m.name == "tools/call") return handler_kind::tool;
  if (m.name == "resources/read") return handler_kind::resource;
  if (m.name == "prompts/get") return handler_kind::prompt;
  if (m.name == "completion/complete") return handler_kind::completion;
  return handler_kind::engine;
}

// The row's handler, after the before hooks of the server's middleware (if any) let it run.
method_outcome serve_through_middleware(const std::shared_ptr<exchange>& ex, const method_info& m) {
  if (const auto& chain = ex->middleware()) {
    if (auto answered = chain->before(*ex)) return std::move(*answered);
  }
  return ex->core().methods().serve(m, ex);
}

// Runs the row's handler; whatever escapes it goes through the one classifier. A request
// answered before its handler started (the server stopping, a cancel) never starts it.
void run(const std::shared_ptr<exchange>& ex, const method_info& m) {
  switch (ex->begin_handler()) {
    case exchange::start::refused:
      return;
    case exchange::start::settled:
      ex->session().handler_returned();
      return;
    case exchange::start::run:
      break;
  }
  method_outcome out;
  try {
    out = serve_through_middleware(ex, m);
  } catch (abi::__forced_unwind&) {
    throw;  // a cancelled thread (pthread_exit at interpreter exit) must unwind, never be swallowed
  } catch (...) {
    out = classify(std::current_exception(), *ex, kind_of(m));
  }
  const bool continues = out.handler_continues;
  if (out.kind != outcome_kind::pending) ex->finish(std::move(out));
  if (!continues) ex->session().handler_returned();
}

// A request queued for a worker. If the pool drops it unstarted (~server past stop_grace), it is
// answered as never started (P27a) so it leaves its session's in-flight table: left there, the
// table would keep the exchange, which keeps the session and its engine alive for ever.
class queued_request {
 public:
  queued_request(std::shared_ptr<exchange> ex, const method_info& m) : ex_(std::move(ex)), m_(m) {}
  queued_request(const queued_request&) = delete;
  queued_request& operator=(const queued_request&) = delete;
  ~queued_request() {
    if (!ex_) return;
    if (ex_->refuse_unstarted(not_started_outcome())) ex_->session().handler_returned();
  }
  void run_once() {
    const std::shared_ptr<exchange> ex = std::move(ex_);
    if (ex) run(ex, m_);
  }

 private:
  std::shared_ptr<exchange> ex_;
  const method_info& m_;
};

// A tools/call of a tool that declared inline_dispatch runs on the receiving thread, as every
// request does with session_options::inline_dispatch (such a tool is never a task tool). So does a
// call of a tool that does not exist: its reply (row P17 and its suggestions) runs no user code.
bool tool_runs_inline(exchange& ex, const method_info& m) {
  if (kind_of(m) != handler_kind::tool) return false;
  const json& p = ex.params();
  const auto name = p.find("name");
  if (name == p.end() || !name->is_string()) return false;
  const auto tool = ex.core().registry().find_tool(name->get_ref<const std::string&>());
  if (!tool) return true;
  if (!tool->spec.inline_dispatch) return false;
  ex.set_inline_tool(tool);
  return true;
}

// Hands `ex` the server's middleware chain (read once per request); true when a middleware
// that applies may block (a Python coroutine), which never runs on the receiving thread.
bool attach_middleware(exchange& ex, const method_info& m) {
  auto chain = ex.core().middleware().chain();
  if (!chain) return false;
  const bool blocks = chain->blocks(m.name);
  ex.set_middleware(std::move(chain));
  return blocks;
}

// How a long-running job is named in the log: the tool of a tools/call, else the method.
std::string job_label(const exchange& ex, const method_info& m) {
  if (kind_of(m) == handler_kind::tool) {
    const auto name = ex.params().find("name");
    if (name != ex.params().end() && name->is_string()) return "tool " + name->get<std::string>();
  }
  return std::string(m.name);
}

// Routes `ex`, admits it in flight and runs its handler where its row says; every path ends in
// exactly one ex->finish() or abandon().
void dispatch(std::shared_ptr<exchange> ex, era_hint hint) {
  const method_info* m = nullptr;
  auto r = route(*ex, hint, m);
  if (ex->core().tracer_ptr() != nullptr) ex->begin_span();
  if (r) {
    ex->finish(std::move(*r));
    return;
  }
  if (!ex->session().admit(ex, (m->flags & not_cancellable) == 0)) {
    ex->finish(method_outcome::protocol(situation::P6_duplicate_request_id,
                                        {{"id", jsonrpc::id_key(ex->id())}}));
    return;
  }
  const bool middleware_blocks = attach_middleware(*ex, *m);
  if (((m->flags & on_worker) != 0 && !ex->session().options().inline_dispatch &&
       !tool_runs_inline(*ex, *m)) ||
      middleware_blocks) {
    auto& pool = ex->core().pool();  // before the capture below moves ex
    std::string label = job_label(*ex, *m);
    pool.post([q = std::make_shared<queued_request>(std::move(ex), *m)] { q->run_once(); },
              std::move(label));
  } else {
    run(ex, *m);
  }
}

}  // namespace

session_state::session_state(std::shared_ptr<server_core> core, std::shared_ptr<frame_sink> sink,
                             session_options options)
    : core_(std::move(core)),
      sink_(std::move(sink)),
      options_(std::move(options)),
      outbound_(options_.request_id_prefix) {}

void session_state::send(const std::shared_ptr<frame_sink>& to, std::string frame,
                         const frame_info& info) {
  const auto& target = to ? to : sink_;
  if (!target) return;
  try {
    target->send_frame(std::move(frame), info);
  } catch (const std::exception& e) {
    core_->log().write("error", "sink_failed", {{"what", e.what()}});
  }
}

void session_state::send_pieces(const std::shared_ptr<frame_sink>& to,
                                std::vector<std::string> pieces, const frame_info& info) {
  const auto& target = to ? to : sink_;
  if (!target) return;
  try {
    target->send_pieces(std::move(pieces), info);
  } catch (const std::exception& e) {
    core_->log().write("error", "sink_failed", {{"what", e.what()}});
  }
}

void session_state::receive(jsonrpc::message msg, const std::shared_ptr<frame_sink>& reply_to,
                            era_hint hint, const std::shared_ptr<const json>& headers) {
  {
    std::lock_guard lock(mutex_);
    if (closed_) return;
  }
  if (msg.kind == jsonrpc::message_kind::batch) {
    receive_batch(std::move(msg), reply_to ? reply_to : sink_, hint, headers);
    return;
  }
  receive_one(std::move(msg), reply_route{reply_to ? reply_to : sink_, nullptr}, hint, headers);
}

void session_state::receive_one(jsonrpc::message msg, const reply_route& route, era_hint hint,
                                const std::shared_ptr<const json>& headers) {
  switch (msg.kind) {
    case jsonrpc::message_kind::invalid: {
      core_->count(outcome_class::protocol_error, "invalid_message");
      // The codec names the row it hit; a hand-built invalid message without one is the generic
      // "not a JSON-RPC message" row.
      const std::string_view row = row_of(msg.refusal.value_or(situation::P2_not_an_object)).id;
      json logged = {{"situation", row}, {"code", msg.error.code}};  // wire-text: not wire (log)
      logged["message"] = msg.error.message;
      core_->log().write("warning", "invalid_message", logged);
      std::string frame = jsonrpc::serialize_error(msg.id, msg.error);
      if (route.batch) return route.batch->add(std::move(frame));
      return send(route.sink, std::move(frame), {frame_kind::response, row});
    }
    case jsonrpc::message_kind::batch:  // a batch inside a batch
      core_->count(outcome_class::protocol_error, "batch_not_allowed");
      return route.batch->add(
          jsonrpc::serialize_error(std::nullopt, render(situation::P4_batch_not_allowed)));
    case jsonrpc::message_kind::response:
      return receive_response(msg);
    case jsonrpc::message_kind::notification:
      return receive_notification(msg);
    case jsonrpc::message_kind::request: {
      auto ex = std::make_shared<exchange>(shared_from_this(), route, *msg.id,
                                           std::move(msg.method), std::move(msg.params));
      ex->facts.http_headers = headers;
      dispatch(std::move(ex), hint);
      return;
    }
  }
}

bool session_state::admit(const std::shared_ptr<exchange>& ex, bool cancellable) {
  std::lock_guard lock(mutex_);
  if (!in_flight_.emplace(jsonrpc::id_key(ex->id()), in_flight_entry{ex, cancellable}).second) {
    return false;
  }
  ex->mark_registered();
  ++running_;
  return true;
}

void session_state::forget(const jsonrpc::request_id& id) {
  std::lock_guard lock(mutex_);
  in_flight_.erase(jsonrpc::id_key(id));
}

void session_state::handler_returned() {
  std::lock_guard lock(mutex_);
  if (running_ > 0) --running_;
  if (running_ == 0) idle_cv_.notify_all();
}

void session_state::cancel(const jsonrpc::request_id& id, std::string_view reason) {
  std::shared_ptr<exchange> ex;
  {
    std::lock_guard lock(mutex_);
    auto it = in_flight_.find(jsonrpc::id_key(id));
    if (it == in_flight_.end() || !it->second.cancellable) return;  // unknown or done: ignore
    ex = it->second.ex;
  }
  ex->abandon(reason);
}

bool session_state::shutdown(std::chrono::milliseconds grace, leftover_requests mode,
                             std::optional<std::chrono::milliseconds> cancelled_wait) {
  // Listen streams never finish on their own; a stopping server ends them gracefully (a client
  // that went away gets nothing: its listens are abandoned with the other requests below).
  if (mode == leftover_requests::answer_stopped) {
    if (const auto& end_streams = core_->hooks().end_streams) {
      end_streams(this, "the server is stopping");
    }
  }
  refuse_unstarted(mode);  // at once: a queued request must not start while the server stops
  const bool drained = wait_idle_for(grace);
  std::vector<std::shared_ptr<exchange>> rest;
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    for (auto& [key, entry] : in_flight_) rest.push_back(entry.ex);
  }
  outbound_.close();  // handlers waiting for the client give up (request_cancelled)
  refuse_unstarted(mode);
  for (auto& ex : rest) {
    if (mode == leftover_requests::answer_stopped) {
      ex->interrupt(method_outcome::protocol(situation::P27_stopped_before_reply,
                                             {{"graceMs", grace.count()}, {"effect", "unknown"}}));
    } else {
      ex->abandon("session shut down");
    }
  }
  return drained || wait_idle_for(cancelled_wait.value_or(grace));
}

std::size_t session_state::refuse_unstarted(leftover_requests mode) {
  std::vector<std::shared_ptr<exchange>> all;
  {
    std::lock_guard lock(mutex_);
    for (auto& [key, entry] : in_flight_) all.push_back(entry.ex);
  }
  std::size_t refused = 0;
  for (auto& ex : all) {
    const bool answer = mode == leftover_requests::answer_stopped;
    if (ex->refuse_unstarted(answer ? std::optional(not_started_outcome()) : std::nullopt)) {
      handler_returned();
      ++refused;
    }
  }
  return refused;
}

void session_state::wait_idle() const {
  std::unique_lock lock(mutex_);
  idle_cv_.wait(lock, [this] { return running_ == 0; });
}

bool session_state::wait_idle_for(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return idle_cv_.wait_for(lock, timeout, [this] { return running_ == 0; });
}

std::size_t session_state::in_flight_count() const {
  std::lock_guard lock(mutex_);
  return running_;
}

std::string session_state::legacy_version() const {
  std::lock_guard lock(mutex_);
  return legacy_.version;
}

bool session_state::legacy_ready() const {
  std::lock_guard lock(mutex_);
  return !legacy_.version.empty() && legacy_.initialized_notification;
}

bool session_state::subscribed(const std::string& uri) const {
  std::lock_guard lock(mutex_);
  return legacy_.subscriptions.count(uri) != 0;
}

legacy_state session_state::legacy() const {
  std::lock_guard lock(mutex_);
  return legacy_;
}

void session_state::set_principal(json p, std::string identity) {
  std::lock_guard lock(mutex_);
  principal_ = std::move(p);
  identity_ = std::move(identity);
}

std::string session_state::identity() const {
  std::lock_guard lock(mutex_);
  return identity_;
}

json session_state::principal() const {
  std::lock_guard lock(mutex_);
  return principal_;
}

}  // namespace mcpcxx::detail

// ---- the public session facade (mcpcxx/session.hpp) ----

namespace mcpcxx {

void frame_sink::send_pieces(std::vector<std::string> pieces, const frame_info& info) {
  std::size_t total = 0;
  for (const auto& p : pieces) total += p.size();
  std::string frame;
  frame.reserve(total);
  for (auto& p : pieces) {
    frame.append(p);
    p = std::string();  // release each piece once copied, so the peak stays near one copy
  }
  send_frame(std::move(frame), info);
}

session::session(std::shared_ptr<detail::session_state> state) : state_(std::move(state)) {}

std::shared_ptr<detail::session_state> detail::state_of(const session& s) { return s.state_; }

void session::receive(std::string_view bytes, const std::shared_ptr<frame_sink>& reply_to,
                      era_hint hint) {
  state_->receive(jsonrpc::parse(bytes, state_->core().options().limits), reply_to, hint);
}
void session::receive(jsonrpc::message msg, const std::shared_ptr<frame_sink>& reply_to,
                      era_hint hint) {
  state_->receive(std::move(msg), reply_to, hint);
}
void session::receive(jsonrpc::message msg, const std::shared_ptr<frame_sink>& reply_to,
                      era_hint hint, json http_headers) {
  state_->receive(std::move(msg), reply_to, hint,
                  std::make_shared<const json>(std::move(http_headers)));
}
void session::cancel(const jsonrpc::request_id& id, std::string_view reason) {
  state_->cancel(id, reason);
}
bool session::shutdown(std::chrono::milliseconds grace, leftover_requests rest,
                       std::optional<std::chrono::milliseconds> cancelled_wait) {
  return state_->shutdown(grace, rest, cancelled_wait.value_or(grace));
}
std::size_t session::refuse_unstarted() {
  return state_->refuse_unstarted(leftover_requests::answer_stopped);
}
void session::wait_idle() const { state_->wait_idle(); }
std::size_t session::in_flight() const { return state_->in_flight_count(); }
std::string session::negotiated_version() const { return state_->legacy_version(); }
bool session::legacy_initialized() const { return !state_->legacy_version().empty(); }
void session::set_principal(json principal) {
  std::string identity = principal_identity(principal);
  state_->set_principal(std::move(principal), std::move(identity));
}
void session::set_principal(json principal, std::string identity) {
  state_->set_principal(std::move(principal), std::move(identity));
}
void session::notify(std::string_view method, const json& params) {
  state_->send(nullptr, jsonrpc::serialize_notification(method, params),
               {frame_kind::notification});
}

std::size_t session::end_listens(std::string_view reason) {
  const auto& end_streams = state_->core().hooks().end_streams;
  return end_streams ? end_streams(state_.get(), reason) : 0;
}

}  // namespace mcpcxx
