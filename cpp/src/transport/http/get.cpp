// GET on the MCP endpoint (legacy sessions only): the session's server-initiated SSE stream, and
// resumption of any of its streams with Last-Event-ID from the bounded replay buffer.
#include "core/store_unavailable.hpp"
#include "transport/http/endpoint.hpp"
#include "transport/http/security.hpp"
#include "wire/era.hpp"

namespace mcpcxx::http {

namespace {

response not_allowed_modern() {
  response r = row_response({mcpcxx::wire::situation::H5_get_on_modern});
  r.headers.emplace_back("Allow", "POST");
  return r;
}

// Keeps the session alive while the stream is open (until it ends either way) and detaches it
// when the client leaves.
void guard_stream(const std::shared_ptr<http_session>& s,
                  const std::shared_ptr<reply_channel>& out) {
  s->enter();
  std::weak_ptr<http_session> weak = s;
  const reply_channel* raw = out.get();
  out->on_disconnect([weak, raw] {
    if (auto sp = weak.lock()) {
      sp->detach(raw);
      sp->touch();
    }
  });
  out->on_end([weak] {
    if (auto sp = weak.lock()) sp->leave();
  });
}

// Ends a stream whose replay the shared store could not serve (its head is already sent).
void end_unserved(const std::shared_ptr<reply_channel>& out) {
  out->write(": the event store did not answer; resume again with the same Last-Event-ID\n\n");
  out->end_stream();
}

}  // namespace

void endpoint::resume_post_stream(const std::shared_ptr<http_session>& s, event_position after,
                                  const response_headers& headers,
                                  const std::shared_ptr<reply_channel>& out) {
  out->open_stream(200, headers);
  try {
    switch (s->resume_stream(after, out, ctx_->followers.has_room())) {
      case http_session::resumed::live_here:
        guard_stream(s, out);
        break;
      case http_session::resumed::follow:
        guard_stream(s, out);
        ctx_->followers.follow(s, after, out);
        break;
      case http_session::resumed::ended:
        break;
    }
  } catch (const detail::store_unavailable&) {
    s->detach(out.get());
    end_unserved(out);
  }
}

void endpoint::handle_get(request& req, const std::shared_ptr<reply_channel>& out) {
  const std::string* pv = req.header("mcp-protocol-version");
  if (!ctx_->opts.legacy || (pv != nullptr && mcpcxx::wire::is_modern_version(*pv))) {
    return out->send(not_allowed_modern());
  }
  if (!accepts(req.header("accept"), "text/event-stream")) {
    return out->send(row_response({mcpcxx::wire::situation::H9_get_not_acceptable}));
  }
  auto auth = authorize(req, {}, {});
  if (auth.rejection) return out->send(*auth.rejection);
  std::optional<response> error;
  auto s = legacy_session(req, auth.who, error);
  if (!s) return out->send(*error);
  response_headers headers{{"Mcp-Session-Id", s->id()}};
  const std::string* last = req.header("last-event-id");
  if (last != nullptr) {
    auto pos = parse_event_id(*last);
    bool known = false;
    try {
      known = pos && s->issued(*pos);
    } catch (const detail::store_unavailable& e) {
      return out->send(store_unavailable(s->id(), e.what(), std::nullopt));
    }
    if (!known) return out->send(row_response({mcpcxx::wire::situation::H11_bad_last_event_id}));
    if (pos->stream != 0) return resume_post_stream(s, *pos, headers, out);
  }
  if (last == nullptr && s->get_open()) {
    return out->send(row_response({mcpcxx::wire::situation::H12_get_stream_conflict}));
  }
  // The head goes first so that replayed events follow it on the wire.
  out->open_stream(200, headers);
  std::optional<event_position> after;
  if (last != nullptr) after = parse_event_id(*last);
  const bool priming =
      mcpcxx::wire::has(s->engine().negotiated_version(), mcpcxx::wire::feature::sse_priming);
  bool attached = false;
  try {
    attached = s->attach_get(out, after, priming);
  } catch (const detail::store_unavailable&) {
    return end_unserved(out);
  }
  if (!attached) {
    out->write(": another GET stream is open for this session\n\n");
    out->end_stream();
    return;
  }
  guard_stream(s, out);
}

}  // namespace mcpcxx::http
