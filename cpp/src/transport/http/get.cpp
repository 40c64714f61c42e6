// GET on the MCP endpoint (legacy sessions only): the session's server-initiated SSE stream, and
// resumption of any of its streams with Last-Event-ID from the bounded replay buffer.
#include "mcpcxx/error_codes.hpp"

#include "transport/http/endpoint.hpp"
#include "transport/http/security.hpp"

namespace mcpcxx::http {

namespace {

response not_allowed_modern() {
  response r = error_response(405, error_code::invalid_request,
                              "Method not allowed: 2026-07-28 has no GET stream; POST each "
                              "request (use subscriptions/listen for notifications)");
  r.headers.emplace_back("Allow", "POST");
  return r;
}

// Keeps the session alive while the stream is open and detaches it when the client leaves.
void guard_stream(const std::shared_ptr<http_session>& s,
                  const std::shared_ptr<reply_channel>& out) {
  s->enter();
  std::weak_ptr<http_session> weak = s;
  const reply_channel* raw = out.get();
  out->on_disconnect([weak, raw] {
    if (auto sp = weak.lock()) {
      sp->detach(raw);
      sp->touch();
      sp->leave();
    }
  });
}

}  // namespace

void endpoint::handle_get(request& req, const std::shared_ptr<reply_channel>& out) {
  const std::string* pv = req.header("mcp-protocol-version");
  if (!ctx_->opts.legacy || (pv != nullptr && *pv == k_modern_version)) {
    return out->send(not_allowed_modern());
  }
  if (!accepts(req.header("accept"), "text/event-stream")) {
    return out->send(error_response(406, error_code::invalid_request,
                                    "Not acceptable: a GET stream needs Accept: "
                                    "text/event-stream"));
  }
  auto auth = authorize(req, {}, {});
  if (auth.rejection) return out->send(*auth.rejection);
  std::optional<response> error;
  auto s = legacy_session(req, auth.principal, error);
  if (!s) return out->send(*error);
  response_headers headers{{"Mcp-Session-Id", s->id()}};
  const std::string* last = req.header("last-event-id");
  if (last != nullptr) {
    auto pos = parse_event_id(*last);
    if (!pos) {
      return out->send(error_response(400, error_code::invalid_request,
                                      "Bad Request: Last-Event-ID is not an event id of this "
                                      "session; open a GET stream without it"));
    }
    if (pos->stream != 0) {
      out->open_stream(200, headers);
      if (s->resume_stream(*pos, out)) guard_stream(s, out);
      return;
    }
  }
  if (last == nullptr && s->get_open()) {
    return out->send(error_response(409, error_code::invalid_request,
                                    "Conflict: this session already has an open GET stream; "
                                    "close it or resume with Last-Event-ID"));
  }
  // The head goes first so that replayed events follow it on the wire.
  out->open_stream(200, headers);
  std::optional<event_position> after;
  if (last != nullptr) after = parse_event_id(*last);
  if (!s->attach_get(out, after, s->engine().negotiated_version() >= "2025-11-25")) {
    out->write(": another GET stream is open for this session\n\n");
    out->end_stream();
    return;
  }
  guard_stream(s, out);
}

}  // namespace mcpcxx::http
