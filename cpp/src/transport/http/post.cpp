// POST on the MCP endpoint: media-type checks, parsing, era routing, and handing the message to a
// stateless engine session (2026-07-28) or to the caller's legacy session.
#include <algorithm>

#include "core/store_unavailable.hpp"
#include "transport/http/endpoint.hpp"
#include "transport/http/exchange.hpp"
#include "transport/http/handler_headers.hpp"
#include "transport/http/security.hpp"
#include "wire/era.hpp"
#include "wire/situation.hpp"

namespace mcpcxx::http {

namespace {

using mcpcxx::wire::situation;

const json* meta_of(const jsonrpc::message& msg) {
  if (!msg.params.is_object()) return nullptr;
  auto it = msg.params.find("_meta");
  return it != msg.params.end() && it->is_object() ? &*it : nullptr;
}

bool has_body_version(const jsonrpc::message& msg) {
  const json* meta = meta_of(msg);
  return meta != nullptr && meta->contains(wire::k_version_meta_key);
}

std::string name_of(const jsonrpc::message& msg) {
  if (!msg.params.is_object()) return {};
  for (const char* f : {"name", "uri"}) {
    auto it = msg.params.find(f);
    if (it != msg.params.end() && it->is_string()) return it->get<std::string>();
  }
  return {};
}

// The id of a single request, which every error about it echoes; none for other messages.
std::optional<jsonrpc::request_id> request_id_of(const jsonrpc::message& msg) {
  if (msg.kind != jsonrpc::message_kind::request) return std::nullopt;
  return msg.id;
}

// The codec's answer to a body it refused, with the HTTP status of the row the codec names.
response refused_body(const jsonrpc::message& msg) {
  response r;
  r.status = mcpcxx::wire::http_status(msg.refusal.value_or(situation::P2_not_an_object), false);
  r.body = jsonrpc::serialize_error(msg.id, msg.error);
  return r;
}

// Drops frames: stateless sessions have no channel for server-initiated messages.
class null_sink : public frame_sink {
 public:
  void send(std::string, frame_kind) override {}
};

// Server-initiated frames of a legacy session go to its GET stream.
class legacy_sink : public frame_sink {
 public:
  explicit legacy_sink(std::weak_ptr<http_session> s) : session_(std::move(s)) {}
  void send(std::string frame, frame_kind) override {
    if (auto s = session_.lock()) s->push_server_frame(frame);
  }
  void send_frame(std::string frame, const frame_info& info) override {
    if (auto s = session_.lock()) s->push_server_frame(frame, info.broadcast);
  }

 private:
  std::weak_ptr<http_session> session_;
};

bool batch_has_requests(const jsonrpc::message& msg) {
  return msg.body.is_array() && std::any_of(msg.body.begin(), msg.body.end(), [](const json& e) {
           return e.is_object() && e.contains("method") && e.contains("id");
         });
}

// The answer to a legacy POST of responses/notifications the session took: 202, no body.
response legacy_post_accepted(const std::string& session_id) {
  response r;
  r.status = 202;
  r.headers.emplace_back("Mcp-Session-Id", session_id);
  return r;
}

// True when the POST names a session this process does not hold and the request router
// delivered its body (responses/notifications only) to the process that does, whose owner is
// `who` as far as the session store knows. Throws detail::store_unavailable.
bool post_routed_to_holder(transport_context& ctx, const request& req, std::string body,
                           const caller& who) {
  const std::string* sid = req.header("mcp-session-id");
  if (sid == nullptr || sid->empty()) return false;
  return ctx.sessions.route_elsewhere(*sid, std::move(body), who.identity);
}

// What route_settling_elsewhere left for this process.
enum class settled { elsewhere, partly, not_at_all };

// Answers to requests another replica's copy of the session sent, and cancellations, go to
// where they settle something (session_table::route_settling); `msg` keeps the rest. Throws
// detail::store_unavailable.
settled route_settling_elsewhere(transport_context& ctx, const request& req, jsonrpc::message& msg,
                                 const caller& who) {
  const std::string* sid = req.header("mcp-session-id");
  if (sid == nullptr || sid->empty()) return settled::not_at_all;
  const std::size_t before = msg.body.is_array() ? msg.body.size() : 1;
  auto rest = ctx.sessions.route_settling(*sid, std::move(msg), who.identity);
  if (!rest) return settled::elsewhere;
  msg = std::move(*rest);
  const std::size_t after = msg.body.is_array() ? msg.body.size() : 1;
  return after == before ? settled::not_at_all : settled::partly;
}

// True when no part of `msg` (responses/notifications) is left for this process: what settles
// another copy's request went there, and the rest to the session's holder when this process
// does not hold it. Throws detail::store_unavailable.
bool routed_elsewhere(transport_context& ctx, const request& req, jsonrpc::message& msg,
                      const caller& who) {
  const settled where = route_settling_elsewhere(ctx, req, msg, who);
  if (where == settled::elsewhere) return true;
  std::string body = where == settled::partly
                         ? msg.body.dump(-1, ' ', false, json::error_handler_t::replace)
                         : req.body;
  return post_routed_to_holder(ctx, req, std::move(body), who);
}

}  // namespace

void endpoint::handle_post(request& req, const std::shared_ptr<reply_channel>& out) {
  if (!accepts(req.header("accept"), "application/json") ||
      !accepts(req.header("accept"), "text/event-stream")) {
    return out->send(row_response({situation::H8_post_not_acceptable}));
  }
  if (!is_json_content_type(req.header("content-type"))) {
    return out->send(row_response({situation::H10_unsupported_media_type}));
  }
  if (ctx_->opts.auth && !bearer_token(req.header("authorization"))) {
    return out->send(*authorize(req, {}, {}).rejection);
  }
  const auto& limits = ctx_->srv.options().limits;
  jsonrpc::message msg = jsonrpc::parse(req.body, limits);
  if (msg.kind == jsonrpc::message_kind::invalid) {
    return out->send(refused_body(msg));
  }
  auto auth = authorize(req, msg.method, name_of(msg), request_id_of(msg));
  if (auth.rejection) return out->send(*auth.rejection);
  // The era: the same function the engine applies to a stdio message (wire::message_era).
  const wire::era served = wire::message_era({.method = msg.method,
                                              .meta = meta_of(msg),
                                              .version_header = req.header("mcp-protocol-version"),
                                              .legacy_served = ctx_->opts.legacy});
  if (served == wire::era::modern)
    return post_modern(req, std::move(msg), std::move(auth.who), out);
  post_legacy(req, std::move(msg), std::move(auth.who), out);
}

void endpoint::post_modern(request& req, jsonrpc::message msg, caller who,
                           const std::shared_ptr<reply_channel>& out) {
  using jsonrpc::message_kind;
  if (msg.kind == message_kind::batch) {
    return out->send(row_response({situation::H27_modern_batch}, std::nullopt, true));
  }
  if (msg.kind == message_kind::response) {
    return out->send(row_response({situation::H28_modern_response}, std::nullopt, true));
  }
  // SEP-2243 headers bind requests that claim 2026-07-28 (body _meta or header). A legacy
  // request on a modern-only server claims nothing: the engine answers it (initialize: -32601).
  const std::string* pv = req.header("mcp-protocol-version");
  bool claims_modern = has_body_version(msg) || pv != nullptr;
  if (auto mismatch = claims_modern ? check_modern_headers(*ctx_, req, msg) : std::nullopt) {
    return out->send(row_response(*mismatch, msg.id, true));
  }
  static const auto sink = std::make_shared<null_sink>();
  session s =
      ctx_->srv.open_session(sink, session_options{.inline_dispatch = ctx_->opts.inline_dispatch});
  if (!who.principal.is_null()) s.set_principal(std::move(who.principal), std::move(who.identity));
  if (msg.kind != message_kind::request) {
    s.receive(std::move(msg), nullptr, era_hint::modern);
    response r;
    r.status = 202;
    return out->send(r);
  }
  exchange_setup setup;
  setup.modern = true;
  setup.id = *msg.id;
  auto ex = std::make_shared<post_exchange>(ctx_, out, std::move(setup), s);
  ex->begin();
  s.receive(std::move(msg), ex, era_hint::modern, handler_headers(req, ctx_->exposed_headers));
}

void endpoint::post_legacy(request& req, jsonrpc::message msg, caller who,
                           const std::shared_ptr<reply_channel>& out) {
  using jsonrpc::message_kind;
  if (msg.kind == message_kind::request && msg.method == "initialize") {
    return post_initialize(std::move(msg), std::move(who), out);
  }
  bool is_request = msg.kind == message_kind::request ||
                    (msg.kind == message_kind::batch && batch_has_requests(msg));
  // A request cannot be routed: its reply stream is this connection. Responses and
  // notifications go to the holder first, which may await them (before a shared store would
  // revive the session here).
  try {
    if (!is_request && routed_elsewhere(*ctx_, req, msg, who)) {
      return out->send(legacy_post_accepted(*req.header("mcp-session-id")));
    }
  } catch (const detail::store_unavailable& e) {
    return out->send(store_unavailable(*req.header("mcp-session-id"), e.what(), std::nullopt));
  }
  std::optional<response> error;
  auto s = legacy_session(req, who, error, request_id_of(msg));
  if (!s) return out->send(*error);
  // The current token's principal: scopes are checked against it, the identity is unchanged.
  if (!who.principal.is_null()) {
    s->engine().set_principal(std::move(who.principal), std::move(who.identity));
  }
  if (!is_request) {
    s->engine().receive(std::move(msg), nullptr, era_hint::legacy);
    return out->send(legacy_post_accepted(s->id()));
  }
  exchange_setup setup;
  if (msg.id) setup.id = *msg.id;
  setup.legacy = s;
  setup.priming = wire::has(s->engine().negotiated_version(), wire::feature::sse_priming);
  auto ex = std::make_shared<post_exchange>(ctx_, out, std::move(setup), s->engine());
  ex->begin();
  s->engine().receive(std::move(msg), ex, era_hint::legacy,
                      handler_headers(req, ctx_->exposed_headers));
}

void endpoint::post_initialize(jsonrpc::message msg, caller who,
                               const std::shared_ptr<reply_channel>& out) {
  std::shared_ptr<http_session> hs;
  try {
    if (ctx_->sessions.full()) {
      return out->send(row_response({situation::H17_too_many_sessions}, msg.id));
    }
    hs = ctx_->sessions.create(who.identity, msg.params);
  } catch (const detail::store_unavailable& e) {
    return out->send(
        row_response({situation::P57_store_unavailable, {{"reason", e.what()}}}, msg.id));
  }
  hs->set_engine(open_engine(hs));
  if (!who.principal.is_null()) {
    hs->engine().set_principal(std::move(who.principal), std::move(who.identity));
  }
  exchange_setup setup;
  setup.id = *msg.id;
  setup.legacy = hs;
  setup.initialize = true;
  auto ex = std::make_shared<post_exchange>(ctx_, out, std::move(setup), hs->engine());
  ex->begin();
  hs->engine().receive(std::move(msg), ex, era_hint::legacy);
}

mcpcxx::session endpoint::open_engine(const std::shared_ptr<http_session>& hs) {
  return ctx_->srv.open_session(
      std::make_shared<legacy_sink>(hs),
      session_options{.inline_dispatch = ctx_->opts.inline_dispatch,
                      .id = hs->id(),
                      .request_id_prefix = ctx_->sessions.request_id_prefix()});
}

}  // namespace mcpcxx::http
