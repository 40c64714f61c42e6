#include "transport/http/exchange.hpp"

#include "core/store_unavailable.hpp"
#include "wire/situation.hpp"

namespace mcpcxx::http {

using mcpcxx::wire::situation;

namespace {
// Row H18's data: a request cut off while it ran may have been partly applied.
const json k_outcome_unknown = {{"effect", "unknown"}};
}  // namespace

post_exchange::post_exchange(std::shared_ptr<transport_context> ctx,
                             std::shared_ptr<reply_channel> out, exchange_setup setup,
                             session engine_session)
    : ctx_(std::move(ctx)),
      out_(std::move(out)),
      setup_(std::move(setup)),
      session_(std::move(engine_session)) {
  ++ctx_->live_exchanges;
}

post_exchange::~post_exchange() {
  // The engine let go of this sink without a final reply: the request was cancelled (legacy
  // notifications/cancelled, or shutdown). Its HTTP exchange still has to end.
  --ctx_->live_exchanges;
  std::lock_guard g(lock_);
  if (done_) return;
  if (streaming_) {
    // Resuming this stream must end definitely (row H41), not hang after 200.
    if (setup_.legacy) setup_.legacy->cancel_stream(stream_, setup_.id);
    out_->end_stream();
  } else if (setup_.modern) {
    // A stateless request is only cancelled by its own disconnect (already finished) or by stop.
    out_->send(
        row_response({situation::H18_stopped_before_reply, k_outcome_unknown}, setup_.id, true));
  } else {
    // A POST carrying a request is answered with JSON or an event stream, nothing else: a stream
    // that ends without the reply. No event id, so a client has nothing to resume.
    out_->open_stream(200, headers());
    out_->end_stream();
  }
  finish_locked();
}

void post_exchange::begin() {
  flight_key_ = ctx_->exchange_started(*session_, weak_from_this());
  if (setup_.legacy && !setup_.initialize) setup_.legacy->enter();
  std::weak_ptr<post_exchange> weak = weak_from_this();
  out_->on_disconnect([weak] {
    if (auto self = weak.lock()) self->client_gone();
  });
}

response_headers post_exchange::headers() const {
  response_headers h;
  if (setup_.legacy) h.emplace_back("Mcp-Session-Id", setup_.legacy->id());
  return h;
}

void post_exchange::start_stream_locked() {
  streaming_ = true;
  out_->open_stream(200, headers());
  if (setup_.legacy) {
    stream_ = setup_.legacy->new_stream();
    if (setup_.priming) out_->write(setup_.legacy->prime(stream_));
  }
}

void post_exchange::write_event_locked(std::string_view frame) {
  if (setup_.legacy) {
    out_->write(setup_.legacy->record(stream_, frame));
  } else {
    out_->write(sse_event({}, frame));
  }
}

bool post_exchange::register_session_locked(bool initialized) {
  if (!initialized) {
    setup_.legacy.reset();  // initialize failed: no session is created
    return true;
  }
  problem refusal{situation::H17_too_many_sessions};
  try {
    if (ctx_->sessions.insert(setup_.legacy)) return true;
  } catch (const detail::store_unavailable& e) {
    refusal = {situation::P57_store_unavailable, {{"reason", e.what()}}};
  }
  setup_.legacy->engine().shutdown(std::chrono::milliseconds(0));
  setup_.legacy.reset();
  out_->send(row_response(refusal, setup_.id));
  finish_locked();
  return false;
}

void post_exchange::send(std::string frame, frame_kind kind) {
  send_frame(std::move(frame), {kind, {}, setup_.modern});
}

void post_exchange::send_frame(std::string frame, const frame_info& info) {
  deliver(std::move(frame), info.kind, mcpcxx::wire::http_status(info.situation, info.modern),
          info.situation.empty());
}

void post_exchange::cut_off() {
  std::lock_guard g(lock_);
  if (done_) return;
  ctx_->log_event("warning", "http_request_cut_off",
                  {{"id", jsonrpc::id_to_json(setup_.id)},
                   {"modern", setup_.modern},
                   {"streaming", streaming_}});
  if (setup_.initialize) setup_.legacy.reset();  // never inserted: no session to keep
  if (streaming_) {
    write_event_locked(jsonrpc::serialize_error(
        setup_.id, mcpcxx::wire::render(situation::H18_stopped_before_reply, k_outcome_unknown)));
    if (setup_.legacy) setup_.legacy->finish_stream(stream_);
    out_->end_stream();
  } else {
    out_->send(row_response({situation::H18_stopped_before_reply, k_outcome_unknown}, setup_.id,
                            setup_.modern));
  }
  finish_locked();
}

void post_exchange::deliver(std::string frame, frame_kind kind, int status, bool succeeded) {
  std::lock_guard g(lock_);
  if (done_) {
    if (kind == frame_kind::response) {
      ctx_->log_event(
          "info", "http_reply_dropped",
          {{"id", jsonrpc::id_to_json(setup_.id)}, {"reason", "the HTTP exchange already ended"}});
    }
    return;
  }
  if (kind == frame_kind::response && out_->closed() && !streaming_) {
    // The client left before its reply: nothing can carry it (a legacy streamed reply is kept
    // for Last-Event-ID instead).
    ctx_->log_event(
        "info", "http_reply_dropped",
        {{"id", jsonrpc::id_to_json(setup_.id)}, {"reason", "the client disconnected"}});
  }
  if (kind != frame_kind::response) {  // notifications and server requests switch to SSE
    if (!streaming_) start_stream_locked();
    write_event_locked(frame);
    return;
  }
  if (setup_.initialize && !register_session_locked(succeeded)) return;
  if (streaming_) {
    write_event_locked(frame);
    if (setup_.legacy) setup_.legacy->finish_stream(stream_);
    out_->end_stream();
  } else {
    response r;
    r.status = status;
    r.headers = headers();
    r.body = std::move(frame);
    out_->send(r);
  }
  finish_locked();
}

void post_exchange::send_member(std::string frame, const frame_info&) {
  std::lock_guard g(lock_);
  if (done_) {
    ctx_->log_event("info", "http_reply_dropped",
                    {{"id", nullptr}, {"reason", "the HTTP exchange of the batch already ended"}});
    return;
  }
  if (!streaming_) start_stream_locked();
  write_event_locked(frame);
}

void post_exchange::end_batch(bool replied) {
  std::lock_guard g(lock_);
  if (done_ || !replied || !streaming_) return;  // no reply at all: the destructor ends it
  if (setup_.legacy) setup_.legacy->finish_stream(stream_);
  out_->end_stream();
  finish_locked();
}

void post_exchange::finish_locked() {
  if (done_) return;
  done_ = true;
  if (setup_.legacy) {
    setup_.legacy->touch();
    if (!setup_.initialize) setup_.legacy->leave();
  }
  ctx_->exchange_done(flight_key_);
  if (setup_.modern || !setup_.legacy) {
    // A stateless session lives exactly as long as its one request.
    session_.reset();
  }
}

void post_exchange::client_gone() {
  std::lock_guard g(lock_);
  if (done_ || !setup_.modern) return;  // legacy: a disconnect is not a cancellation
  ctx_->log_event("info", "http_reply_dropped",
                  {{"id", jsonrpc::id_to_json(setup_.id)},
                   {"reason", "the client disconnected; the request is cancelled"}});
  if (session_) session_->cancel(setup_.id, "The client closed the HTTP response stream");
  finish_locked();
}

}  // namespace mcpcxx::http
