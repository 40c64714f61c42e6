// The exchange: claim-once settling, era decoration, the reply frame, the log line, the metrics;
// and what a handler uses of it: the request_context (mcpcxx/context.hpp) and the text result
// builder (tool_result::text; the other builders are in engine/server.cpp). Its deadline and its
// trace span: exchange_timing.cpp.
#include "core/exchange.hpp"

#include <array>
#include <charconv>
#include <optional>
#include <span>
#include <stdexcept>
#include <vector>

#include "mcpcxx/context.hpp"
#include "mcpcxx/errors.hpp"
#include "mcpcxx/server.hpp"

#include "core/batch_reply.hpp"
#include "core/input_round.hpp"
#include "core/method_table.hpp"
#include "core/middleware_chain.hpp"
#include "core/outbound.hpp"
#include "core/server_core.hpp"
#include "core/session_state.hpp"
#include "jsonrpc/splice.hpp"
#include "observability/log_line.hpp"
#include "wire/revisions.hpp"

namespace mcpcxx::detail {

namespace {

constexpr const char* k_class_names[] = {"ok", "tool_error", "protocol_error", "cancelled"};

// A modern result with resultType (by kind) and _meta's serverInfo, spliced into the frame as it
// is serialized (jsonrpc/splice.hpp), not copied into the result's tree. nullopt on a legacy
// session (no input_required frame there) or for a non-object result: the caller answers P24.
std::optional<std::string> modern_frame(const jsonrpc::request_id& id, method_outcome& o,
                                        const server_core& e, bool modern) {
  if (!modern) return std::nullopt;
  if (o.result.is_null()) o.result = json::object();
  if (!o.result.is_object()) return std::nullopt;
  std::string_view type = o.kind == outcome_kind::task ? R"("task")" : R"("complete")";
  if (o.kind == outcome_kind::input_required) type = R"("input_required")";
  return jsonrpc::serialize_result_spliced(
      id, o.result,
      {{{}, "resultType", type},
       {"_meta", "io.modelcontextprotocol/serverInfo", e.server_info_text()}});
}

// One allocation of the exact size: the page is copied once (it is most of the frame).
std::string raw_result_frame(const jsonrpc::request_id& id, std::string_view serialized) {
  constexpr std::string_view head = R"({"jsonrpc":"2.0","id":)";
  constexpr std::string_view middle = R"(,"result":)";
  char number[24];
  std::string id_text;
  std::string_view id_view;
  if (const auto* n = std::get_if<std::int64_t>(&id)) {
    id_view = std::string_view(number, std::to_chars(number, number + sizeof number, *n).ptr);
  } else {
    id_text = jsonrpc::id_to_json(id).dump();
    id_view = id_text;
  }
  std::string frame;
  frame.reserve(head.size() + id_view.size() + middle.size() + serialized.size() + 1);
  frame.append(head).append(id_view).append(middle).append(serialized).push_back('}');
  return frame;
}

// The request line's members written only when they have a value, after the era.
void log_optional_members(log_line& line, const method_outcome& o, const std::string& tool) {
  if (!tool.empty()) line.str("tool", tool);
  if (!o.row_id.empty()) line.str("situation", o.row_id);
  if (!o.reference.empty()) line.str("reference", o.reference);
  if (o.kind == outcome_kind::protocol_error) {
    line.integer("code", o.error.code);  // wire-text: not wire (a log member)
  }
}

}  // namespace

method_outcome method_outcome::ok(json result) {
  method_outcome o;
  o.result = std::move(result);
  return o;
}

method_outcome method_outcome::tool_reported_error(json result) {
  method_outcome o = ok(std::move(result));
  o.row_id = ::mcpcxx::wire::row_of(situation::T6_tool_reported_error).id;
  o.category = "tool_result_error";
  o.counted_as = outcome_class::tool_error;
  return o;
}

method_outcome method_outcome::cached(std::shared_ptr<const std::string> page) {
  method_outcome o;
  o.kind = outcome_kind::cached_page;
  o.page = std::move(page);
  return o;
}

method_outcome method_outcome::protocol(situation row, const json& args, std::string reference) {
  method_outcome o = rendered(row, ::mcpcxx::wire::render(row, args));
  o.reference = std::move(reference);
  return o;
}

method_outcome method_outcome::rendered(situation row, jsonrpc::error_object error) {
  method_outcome o;
  o.kind = outcome_kind::protocol_error;
  o.row_id = ::mcpcxx::wire::row_of(row).id;
  o.error = std::move(error);
  o.category = "protocol";
  o.counted_as = outcome_class::protocol_error;
  return o;
}

method_outcome method_outcome::tool_failed(situation row, const json& args, bool has_output_schema,
                                           std::string category, std::string reference) {
  return tool_failed(row, json(args), has_output_schema, std::move(category), std::move(reference));
}

method_outcome method_outcome::tool_failed(situation row, json&& args, bool has_output_schema,
                                           std::string category, std::string reference) {
  method_outcome o = rendered_tool_failed(
      row, ::mcpcxx::wire::render_tool_failure(row, std::move(args), has_output_schema),
      std::move(category));
  o.reference = std::move(reference);
  return o;
}

method_outcome method_outcome::rendered_tool_failed(situation row,
                                                    ::mcpcxx::wire::tool_failure_parts parts,
                                                    std::string category) {
  method_outcome o = rendered_tool_failed(row, std::move(parts.result), std::move(category));
  o.details = std::move(parts.details);
  o.details_structured = parts.structured;
  return o;
}

json method_outcome::full_result() const {
  if (details.is_null()) return result;
  json whole = details;
  if (!details_violations.empty()) whole["violations"] = json::parse(details_violations);
  return ::mcpcxx::wire::whole_tool_result({result, std::move(whole), details_structured});
}

method_outcome method_outcome::rendered_tool_failed(situation row, json result,
                                                    std::string category) {
  method_outcome o;
  o.kind = outcome_kind::tool_failure;
  o.result = std::move(result);
  o.row_id = ::mcpcxx::wire::row_of(row).id;
  o.category = std::move(category);
  o.counted_as = outcome_class::tool_error;
  return o;
}

method_outcome method_outcome::pending() {
  method_outcome o;
  o.kind = outcome_kind::pending;
  return o;
}

method_outcome method_outcome::still_running() {
  method_outcome o = pending();
  o.handler_continues = true;
  return o;
}

exchange::exchange(std::shared_ptr<session_state> session, reply_route route,
                   jsonrpc::request_id id, std::string method, json params)
    : session_(std::move(session)),
      route_(std::move(route)),
      id_(std::move(id)),
      method_(std::move(method)),
      params_(std::move(params)) {
  core().stats().started();
}

exchange::~exchange() {
  if (!settled()) core().stats().stopped();
}

server_core& exchange::core() const noexcept { return session_->core(); }

bool exchange::claim() {
  if (settled_.exchange(true, std::memory_order_acq_rel)) return false;
  core().stats().stopped();
  if (registered_) session_->forget(id_);
  return true;
}

bool exchange::finish(method_outcome o) {
  if (!claim()) return false;
  if (chain_) {
    finish_through_middleware(std::move(o));
  } else {
    send_claimed(std::move(o));
  }
  return true;
}

// A middleware that may block (a Python coroutine) must not run on a transport, timer or event
// loop thread: the reply is then finished on a worker.
void exchange::finish_through_middleware(method_outcome o) {
  if (!chain_->any_blocks() || worker_pool::current_job() != 0) {
    chain_->after(*this, o);
    send_claimed(std::move(o));
    return;
  }
  auto held = std::make_shared<method_outcome>(std::move(o));
  core().pool().post(
      [self = shared_from_this(), held] {
        self->chain_->after(*self, *held);
        self->send_claimed(std::move(*held));
      },
      "middleware after " + method_);
}

void exchange::send_claimed(method_outcome o) {
  const std::string_view row =
      o.kind == outcome_kind::protocol_error ? o.row_id : std::string_view{};
  std::string frame = frame_for(o);
  // Counted before the reply leaves, so a client that got its reply sees it in the metrics.
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::steady_clock::now() - started_)
                      .count();
  core().stats().record({method_, tool_slot_.load(std::memory_order_relaxed), o.counted_as,
                         o.category, us, !o.reference.empty(), true});
  deliver(std::move(frame), row);
  log_outcome(o, us);
  if (span_) end_span(k_class_names[static_cast<int>(o.counted_as)], &o);
}

json& exchange::middleware_state() {
  if (!middleware_state_) middleware_state_ = std::make_unique<json>(json::object());
  return *middleware_state_;
}

const json& exchange::middleware_principal() const {
  std::call_once(middleware_lookup_once_, [this] {
    middleware_principal_ = session_->principal();
    if (method_ != "tools/call") return;
    const auto name = params_.find("name");
    if (name != params_.end() && name->is_string()) {
      middleware_tool_ = core().registry().find_tool(name->get_ref<const std::string&>());
    }
  });
  return middleware_principal_;
}

const std::shared_ptr<const tool_entry>& exchange::middleware_tool() const {
  middleware_principal();  // one lookup fills both
  return middleware_tool_;
}

// A T row's frame: its details serialized once and written at _meta["mcpcxx/error"] (and at
// structuredContent when shown) as the result is written, with the era's decoration; the bytes
// of the whole result tree dumped.
std::string exchange::tool_failure_frame(const method_outcome& o) const {
  const jsonrpc::spliced_member violations{{}, "violations", o.details_violations};
  const std::string details =
      o.details_violations.empty()
          ? jsonrpc::serialize_value(o.details)
          : jsonrpc::serialize_object_spliced(o.details, std::span(&violations, 1));
  std::array<jsonrpc::spliced_member, 4> members;
  std::size_t n = 0;
  members[n++] = {"_meta", "mcpcxx/error", details};
  if (o.details_structured) members[n++] = {{}, "structuredContent", details};
  if (facts.modern) {
    members[n++] = {{}, "resultType", R"("complete")"};
    members[n++] = {"_meta", "io.modelcontextprotocol/serverInfo", core().server_info_text()};
  }
  return jsonrpc::serialize_result_spliced(
      id_, o.result, std::span<const jsonrpc::spliced_member>(members.data(), n));
}

// Builds the reply frame; a reserved kind, or a modern result that is not an object, becomes the
// internal-error row (never shipped half-done).
std::string exchange::frame_for(method_outcome& o) const {
  switch (o.kind) {
    case outcome_kind::cached_page:
      return raw_result_frame(id_, *o.page);
    case outcome_kind::protocol_error:
      return jsonrpc::serialize_error(id_, o.error);
    case outcome_kind::tool_failure:
      if (!o.details.is_null()) return tool_failure_frame(o);
      [[fallthrough]];
    case outcome_kind::result:
    case outcome_kind::task:
      if (!facts.modern) return jsonrpc::serialize_result(id_, o.result);
      [[fallthrough]];
    case outcome_kind::input_required:
      if (auto frame = modern_frame(id_, o, core(), facts.modern)) return std::move(*frame);
      break;
    case outcome_kind::pending:
      break;
  }
  const std::string ref = server_log::new_reference();
  core().log().write("error", "unsupported_outcome",
                     {{"method", method_}, {"reference", ref}, {"kind", static_cast<int>(o.kind)}});
  o = method_outcome::protocol(situation::P24_internal_error, {{"reference", ref}}, ref);
  return jsonrpc::serialize_error(id_, o.error);
}

void exchange::deliver(std::string frame, std::string_view row) {
  if (route_.batch) {
    route_.batch->add(std::move(frame), id_);
    return;
  }
  session_->send(route_.sink, std::move(frame), {frame_kind::response, row, facts.modern});
}

bool exchange::abandon(std::string_view why) {
  if (!claim()) return false;
  if (route_.batch) route_.batch->skip();
  request_sample s{method_, tool_slot_.load(std::memory_order_relaxed), outcome_class::cancelled,
                   "cancelled"};
  s.timed = false;
  core().stats().record(s);
  if (span_) end_span("cancelled", nullptr);
  core().log().write("info", "request_cancelled",
                     {{"id", jsonrpc::id_to_json(id_)}, {"reason", std::string(why)}});
  token_.cancel();
  return true;
}

exchange::start exchange::begin_handler() noexcept {
  std::uint8_t expected = 0;
  if (!run_state_.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
    return expected == 2 ? start::refused : start::run;
  }
  return settled() ? start::settled : start::run;
}

bool exchange::refuse_unstarted(std::optional<method_outcome> o) {
  std::uint8_t expected = 0;
  if (!run_state_.compare_exchange_strong(expected, 2, std::memory_order_acq_rel)) return false;
  if (o) {
    interrupt(std::move(*o));
  } else {
    abandon("the server stopped before the request started");
  }
  return true;
}

bool exchange::interrupt(method_outcome o) {
  if (!finish(std::move(o))) return false;
  token_.cancel();
  return true;
}

void exchange::disarm_deadline() {
  if (deadline_) core().deadlines().cancel(*deadline_);
  deadline_.reset();
}

std::optional<trace_parent> exchange::incoming_parent() const {
  for (const json* bag : {facts.request_meta.get(), facts.http_headers.get()}) {
    if (bag == nullptr || !bag->is_object()) continue;
    const auto tp = bag->find("traceparent");
    if (tp == bag->end() || !tp->is_string()) continue;
    const auto ts = bag->find("tracestate");
    const bool has_state = ts != bag->end() && ts->is_string();
    if (auto p = parse_traceparent(tp->get_ref<const std::string&>(),
                                   has_state ? ts->get_ref<const std::string&>() : "")) {
      return p;
    }
  }
  return std::nullopt;
}

// The request line is written member by member into a per-thread buffer (log_line.hpp): it is
// on by default, so it must cost a fraction of the dispatch it describes.
void exchange::log_outcome(const method_outcome& o, std::int64_t us) const {
  if (!core().options().log_requests) return;
  const std::string_view level = o.counted_as == outcome_class::ok ? "info" : "warning";
  if (!core().log().enabled(level)) return;
  thread_local std::string buf;
  log_line line(buf, level, "request");
  line.str("method", method_);
  if (const auto* n = std::get_if<std::int64_t>(&id_)) {
    line.integer("id", *n);
  } else {
    line.str("id", std::get<std::string>(id_));
  }
  if (const std::string& sid = session_->options().id; !sid.empty()) line.str("sessionId", sid);
  if (facts.request_meta || facts.http_headers) {
    if (auto parent = incoming_parent()) line.str("traceId", parent->trace_id);
  }
  line.str("outcome", k_class_names[static_cast<int>(o.counted_as)])
      .str("category", o.category)
      .millis("latencyMs", us)
      .str("era", facts.modern ? "modern" : "legacy");
  log_optional_members(line, o, tool_);
  core().log().write_line(line.finish());
}

// The era chooses how a handler asks the client: a live request on a legacy session (a tools/call
// asks on its own reply stream, HTTP: the POST's SSE stream; other requests on the session's
// stream, HTTP: GET); on 2026-07-28 a multi-round trip answered from inputResponses / requestState
// or stopping the run (core/input_round.hpp). Methods that cannot answer input_required get no
// hook, and an empty hook makes every ask refuse with client_capability_error.
void exchange::install_ask_hooks(context_hooks& hooks, bool modern) const {
  if (!modern && inline_tool_ != nullptr) {
    // The answer would arrive on the thread this handler occupies: waiting for it could only
    // time out, so the promise the tool made is held to at once, with the fix in the message.
    const exchange* x = this;
    hooks.ask = [x](const client_request& q) -> json {
      throw std::logic_error("tool '" + x->tool_ + "' is declared inline_dispatch (it never " +
                             "blocks) but asked the client (" + q.method +
                             ") on a legacy session, whose answer only the thread it occupies " +
                             "could read; remove inline_dispatch from this tool");
    };
    return;
  }
  if (!modern) {
    // One raw pointer: no allocation per request, and no asking code runs until the handler asks
    // (hooks.owner keeps the exchange alive as long as the context).
    const exchange* x = this;
    hooks.ask = [x](const client_request& q) {
      return legacy_ask(x->session_, x->method_ == "tools/call" ? x->route_.sink : nullptr,
                        x->token_, q);
    };
    return;
  }
  hooks.ask = nullptr;
  hooks.ask_all = nullptr;
  if (!may_ask_) return;
  const exchange* x = this;  // see make_context on lifetimes
  hooks.ask = [x](const client_request& q) { return x->ask_round({q}).front(); };
  hooks.ask_all = [x](const std::vector<client_request>& qs) { return x->ask_round(qs); };
}

// A context kept past its request (or a handler past its deadline) is refused rather than left to
// ask a round nobody will answer.
std::vector<json> exchange::ask_round(const std::vector<client_request>& questions) const {
  if (settled()) throw std::logic_error("a handler asked the client after its request had ended");
  return round()->ask(questions);
}

input_round* exchange::round() const {
  if (!may_ask_) return nullptr;
  std::call_once(round_once_, [this] {
    if (round_) return;
    auto self = std::const_pointer_cast<exchange>(shared_from_this());
    round_ = std::make_shared<input_round>(self, std::nullopt, json(), json(), json());
  });
  return round_.get();
}

request_context exchange::make_context(const std::shared_ptr<exchange>& self,
                                       const context_decorator& decorate) const {
  context_hooks hooks;
  // The hooks capture one raw pointer: trivially copyable and small, so std::function keeps it in
  // place instead of allocating per request. hooks.owner keeps this exchange alive as long as the
  // context, even one a handler kept past its request.
  hooks.owner = self;
  const exchange* x = this;
  hooks.notify = [x](std::string_view method, const json& params) {
    // Request-related notifications must stop once the request has its reply.
    if (x->settled()) return;
    x->session_->send(x->route_.sink, jsonrpc::serialize_notification(method, params),
                      {frame_kind::notification});
  };
  hooks.record = [x](log_level level, const json& data, const std::optional<std::string>& logger) {
    json fields = {{"method", x->method_}, {"level", to_string(level)}, {"data", data}};
    if (logger) fields["logger"] = *logger;
    x->core().log().write("info", "handler_log", fields);
  };
  install_ask_hooks(hooks, facts.modern);
  hooks.read_resource = core().hooks().read_resource;
  if (decorate) decorate(hooks);
  request_context ctx(jsonrpc::id_to_json(id_), facts.version, facts.client_info,
                      facts.client_capabilities, facts.progress_token, facts.min_log_level, token_,
                      std::move(hooks));
  ctx.set_principal(session_->principal());
  ctx.set_request_meta(facts.request_meta);
  ctx.set_http_headers(facts.http_headers);
  ctx.set_trace_span(span_.get());
  return ctx;
}

}  // namespace mcpcxx::detail

// ---- the handler's request_context and cancellation_token (mcpcxx/context.hpp) ----

namespace mcpcxx {

struct cancellation_token::state {
  std::atomic<bool> flag{false};
  std::mutex mutex;
  std::vector<std::function<void()>> callbacks;
};

cancellation_token::cancellation_token() : state_(std::make_shared<state>()) {}

bool cancellation_token::cancelled() const noexcept {
  return state_->flag.load(std::memory_order_acquire);
}

void cancellation_token::cancel() const {
  std::vector<std::function<void()>> run;
  {
    std::lock_guard lock(state_->mutex);
    if (state_->flag.exchange(true, std::memory_order_acq_rel)) return;
    run.swap(state_->callbacks);
  }
  for (auto& fn : run) {
    try {
      fn();
    } catch (...) {  // a failing callback must not stop the others or the canceller
    }
  }
}

void cancellation_token::on_cancel(std::function<void()> fn) const {
  {
    std::lock_guard lock(state_->mutex);
    if (!state_->flag.load(std::memory_order_acquire)) {
      state_->callbacks.push_back(std::move(fn));
      return;
    }
  }
  fn();
}

request_context::request_context(json request_id, std::string protocol_version, json client_info,
                                 json client_capabilities, std::optional<json> progress_token,
                                 std::optional<log_level> min_log_level, cancellation_token token,
                                 context_hooks hooks)
    : request_id_(std::move(request_id)),
      protocol_version_(std::move(protocol_version)),
      client_info_(std::move(client_info)),
      client_capabilities_(std::move(client_capabilities)),
      progress_token_(std::move(progress_token)),
      min_log_level_(min_log_level),
      token_(std::move(token)),
      hooks_(std::move(hooks)) {}

bool request_context::modern() const noexcept { return wire::is_modern_version(protocol_version_); }

void request_context::report_progress(double progress, std::optional<double> total,
                                      std::optional<std::string> message) {
  std::lock_guard lock(progress_lock_.m);
  if (last_progress_ && !(progress > *last_progress_)) {
    throw std::invalid_argument("progress must increase with each report: got " +
                                std::to_string(progress) + " after " +
                                std::to_string(*last_progress_));
  }
  last_progress_ = progress;
  // A task's pollers (tasks/get) see its progress without a token; the notification needs one.
  if (message && hooks_.task_status) hooks_.task_status(*message);
  if (!progress_token_ || !hooks_.notify) return;
  json params = {{"progressToken", *progress_token_}, {"progress", progress}};
  if (total) params["total"] = *total;
  if (message) params["message"] = *message;
  hooks_.notify("notifications/progress", std::move(params));
}

bool request_context::log(log_level level, json data, std::optional<std::string> logger) {
  if (hooks_.record) hooks_.record(level, data, logger);
  if (!min_log_level_ || level < *min_log_level_ || !hooks_.notify) return false;
  json params = {{"level", to_string(level)}, {"data", std::move(data)}};
  if (logger) params["logger"] = *logger;
  std::lock_guard lock(progress_lock_.m);
  hooks_.notify("notifications/message", std::move(params));
  return true;
}

json request_context::read_resource(std::string_view uri) {
  const std::string key(uri);
  if (!hooks_.read_resource) throw resource_not_found(key);
  return hooks_.read_resource(key, *this);
}

bool request_context::start_task() { return hooks_.start_task ? hooks_.start_task() : false; }

void request_context::require_client_capability(std::string_view name) const {
  if (client_capabilities_.is_object() && client_capabilities_.contains(name)) return;
  throw missing_client_capability(json{{std::string(name), json::object()}});
}

const json& request_context::request_meta() const noexcept {
  static const json empty = json::object();
  return request_meta_ ? *request_meta_ : empty;
}

const json& request_context::http_headers() const noexcept {
  static const json none = nullptr;
  return http_headers_ ? *http_headers_ : none;
}

const json* request_context::client_extension(std::string_view id) const {
  if (!client_capabilities_.is_object()) return nullptr;
  auto ext = client_capabilities_.find("extensions");
  if (ext == client_capabilities_.end() || !ext->is_object()) return nullptr;
  auto it = ext->find(id);
  return it == ext->end() ? nullptr : &*it;
}

// Member by member: nested initializer lists would copy every value once more (a third of an
// echo tool's handler).
tool_result tool_result::text(std::string text) {
  json block(json::value_t::object);
  auto& fields = block.get_ref<json::object_t&>();
  fields.emplace("text", std::move(text));
  fields.emplace("type", "text");
  tool_result r;
  r.content.get_ref<json::array_t&>().push_back(std::move(block));
  return r;
}

}  // namespace mcpcxx
