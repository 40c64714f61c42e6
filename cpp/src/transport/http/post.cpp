// POST on the MCP endpoint: media-type checks, parsing, era routing, and handing the message to a
// stateless engine session (2026-07-28) or to the caller's legacy session.
#include <algorithm>

#include "mcpcxx/error_codes.hpp"

#include "transport/http/endpoint.hpp"
#include "transport/http/exchange.hpp"
#include "transport/http/security.hpp"

namespace mcpcxx::http {

namespace {

constexpr std::string_view k_version_key = "io.modelcontextprotocol/protocolVersion";
constexpr std::string_view k_caps_key = "io.modelcontextprotocol/clientCapabilities";

const json* meta_of(const jsonrpc::message& msg) {
  if (!msg.params.is_object()) return nullptr;
  auto it = msg.params.find("_meta");
  return it != msg.params.end() && it->is_object() ? &*it : nullptr;
}

bool has_body_version(const jsonrpc::message& msg) {
  const json* meta = meta_of(msg);
  return meta != nullptr && meta->contains(k_version_key);
}

bool meta_incomplete(const jsonrpc::message& msg) {
  const json* meta = meta_of(msg);
  return meta == nullptr || !meta->contains(k_version_key) || !meta->contains(k_caps_key);
}

std::string name_of(const jsonrpc::message& msg) {
  if (!msg.params.is_object()) return {};
  for (const char* f : {"name", "uri"}) {
    auto it = msg.params.find(f);
    if (it != msg.params.end() && it->is_string()) return it->get<std::string>();
  }
  return {};
}

response rpc_error(int status, const std::optional<jsonrpc::request_id>& id, int code,
                   std::string message, json data = nullptr) {
  response r;
  r.status = status;
  r.body = jsonrpc::serialize_error(id, {code, std::move(message), std::move(data)});
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

 private:
  std::weak_ptr<http_session> session_;
};

// Hands `msg` to the engine with the era the transport already chose for it.
// TODO(engine merge): pass `hint` to session::receive once it takes an era_hint; the modern-era
// method gate in post_modern goes away with it.
void receive_in_era(session& s, jsonrpc::message msg, const std::shared_ptr<frame_sink>& sink,
                    [[maybe_unused]] era_hint hint) {
  s.receive(std::move(msg), sink);
}

bool batch_has_requests(const jsonrpc::message& msg) {
  return msg.body.is_array() && std::any_of(msg.body.begin(), msg.body.end(), [](const json& e) {
           return e.is_object() && e.contains("method") && e.contains("id");
         });
}

}  // namespace

void endpoint::handle_post(request& req, const std::shared_ptr<reply_channel>& out) {
  if (!accepts(req.header("accept"), "application/json") ||
      !accepts(req.header("accept"), "text/event-stream")) {
    return out->send(
        error_response(406, error_code::invalid_request,
                       "Not acceptable: the Accept header must list both application/json and "
                       "text/event-stream"));
  }
  if (!is_json_content_type(req.header("content-type"))) {
    return out->send(error_response(
        415, error_code::invalid_request,
        "Unsupported media type: the body must be sent with Content-Type: application/json"));
  }
  if (ctx_->opts.auth && !bearer_token(req.header("authorization"))) {
    return out->send(*authorize(req, {}, {}).rejection);
  }
  jsonrpc::message msg = jsonrpc::parse(req.body, ctx_->srv.options().limits);
  if (msg.kind == jsonrpc::message_kind::invalid) {
    return out->send(rpc_error(400, msg.id, msg.error.code, msg.error.message, msg.error.data));
  }
  auto auth = authorize(req, msg.method, name_of(msg));
  if (auth.rejection) return out->send(*auth.rejection);
  const std::string* pv = req.header("mcp-protocol-version");
  bool modern =
      !ctx_->opts.legacy || has_body_version(msg) || (pv != nullptr && *pv == k_modern_version);
  if (modern) return post_modern(req, std::move(msg), std::move(auth.principal), out);
  post_legacy(req, std::move(msg), std::move(auth.principal), out);
}

void endpoint::post_modern(request& req, jsonrpc::message msg, json principal,
                           const std::shared_ptr<reply_channel>& out) {
  using jsonrpc::message_kind;
  if (msg.kind == message_kind::batch) {
    return out->send(rpc_error(400, std::nullopt, error_code::invalid_request,
                               "Invalid request: 2026-07-28 POST bodies carry one message, not "
                               "a batch; send each message in its own POST"));
  }
  if (msg.kind == message_kind::response) {
    return out->send(rpc_error(400, std::nullopt, error_code::invalid_request,
                               "Invalid request: 2026-07-28 clients do not send responses"));
  }
  if (msg.kind == message_kind::request &&
      (msg.method == "initialize" ||
       (!has_body_version(msg) && (msg.method == "ping" || msg.method == "logging/setLevel")))) {
    // The engine reads these as legacy (initialize always); in 2026-07-28 they do not exist.
    return out->send(
        rpc_error(404, msg.id, error_code::method_not_found,
                  "Method not found: " + msg.method + " was removed in 2026-07-28",
                  {{"method", msg.method}, {"supported", {std::string(k_modern_version)}}}));
  }
  if (auto mismatch = check_modern_headers(*ctx_, req, msg)) {
    return out->send(rpc_error(400, msg.id, error_code::header_mismatch, *mismatch));
  }
  static const auto sink = std::make_shared<null_sink>();
  session s = ctx_->srv.open_session(sink, {transport_kind::http});
  if (!principal.is_null()) s.set_principal(std::move(principal));
  if (msg.kind != message_kind::request) {
    receive_in_era(s, std::move(msg), nullptr, era_hint::modern);
    response r;
    r.status = 202;
    return out->send(r);
  }
  exchange_setup setup;
  setup.modern = true;
  setup.meta_incomplete = meta_incomplete(msg);
  setup.batch = msg.kind == message_kind::batch;
  setup.id = *msg.id;
  auto ex = std::make_shared<post_exchange>(ctx_, out, std::move(setup), s);
  ex->begin();
  receive_in_era(s, std::move(msg), ex, era_hint::modern);
}

void endpoint::post_legacy(request& req, jsonrpc::message msg, json principal,
                           const std::shared_ptr<reply_channel>& out) {
  using jsonrpc::message_kind;
  if (msg.kind == message_kind::request && msg.method == "initialize") {
    return post_initialize(std::move(msg), std::move(principal), out);
  }
  std::optional<response> error;
  auto s = legacy_session(req, principal, error);
  if (!s) return out->send(*error);
  if (!principal.is_null()) s->engine().set_principal(std::move(principal));
  bool is_request = msg.kind == message_kind::request ||
                    (msg.kind == message_kind::batch && batch_has_requests(msg));
  if (!is_request) {
    receive_in_era(s->engine(), std::move(msg), nullptr, era_hint::legacy);
    response r;
    r.status = 202;
    r.headers.emplace_back("Mcp-Session-Id", s->id());
    return out->send(r);
  }
  exchange_setup setup;
  if (msg.id) setup.id = *msg.id;
  setup.legacy = s;
  setup.batch = msg.kind == message_kind::batch;
  setup.priming = s->engine().negotiated_version() >= "2025-11-25";
  auto ex = std::make_shared<post_exchange>(ctx_, out, std::move(setup), s->engine());
  ex->begin();
  receive_in_era(s->engine(), std::move(msg), ex, era_hint::legacy);
}

void endpoint::post_initialize(jsonrpc::message msg, json principal,
                               const std::shared_ptr<reply_channel>& out) {
  if (ctx_->sessions.full()) {
    return out->send(rpc_error(503, msg.id, error_code::internal_error,
                               "Service unavailable: too many sessions; retry later"));
  }
  auto hs = std::make_shared<http_session>(mint_session_id(), principal_key(principal),
                                           ctx_->opts.replay_buffer_events);
  hs->set_engine(ctx_->srv.open_session(std::make_shared<legacy_sink>(hs), {transport_kind::http}));
  if (!principal.is_null()) hs->engine().set_principal(std::move(principal));
  exchange_setup setup;
  setup.id = *msg.id;
  setup.legacy = hs;
  setup.initialize = true;
  auto ex = std::make_shared<post_exchange>(ctx_, out, std::move(setup), hs->engine());
  ex->begin();
  receive_in_era(hs->engine(), std::move(msg), ex, era_hint::legacy);
}

}  // namespace mcpcxx::http
