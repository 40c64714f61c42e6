// A session is one logical peer: a stdio process, a legacy HTTP session, or one stateless modern
// HTTP exchange. It receives frames, dispatches them, and writes replies to frame sinks.
// Thread-safety: receive() is called by one transport thread at a time per session (frames of one
// session are processed in arrival order: notifications inline, requests handed to the worker
// pool). cancel(), shutdown() and the accessors may be called from any thread. Sinks are called
// from worker threads and must serialize their own writes.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mcpcxx/json.hpp"
#include "mcpcxx/jsonrpc.hpp"

namespace mcpcxx {

class server;

class session;
namespace detail {
class session_state;
/// The core state behind `s` (internal: the transports reach session internals through it).
std::shared_ptr<session_state> state_of(const session& s);
}  // namespace detail

/// What a frame handed to a sink is.
enum class frame_kind {
  response,      ///< the final reply to a client request
  notification,  ///< a notification (related to a request or not)
  request,       ///< a server-to-client request (elicitation/create, sampling/createMessage, ...)
};

/// Facts about one outbound frame that a transport may need beyond its bytes.
struct frame_info {
  frame_kind kind = frame_kind::response;
  /// The error-model row (docs/error-model.md) the frame reports, e.g. "P8"; empty for results,
  /// tool results (isError ones included) and notifications. Transports map it to a status
  /// through the situation table instead of re-reading the frame.
  std::string_view situation;
  /// True when the reply was served under the stateless 2026-07-28 revision.
  bool modern = false;
  /// True for a notification every process holding a copy of the session sends it at once
  /// (a list change or resource update from the notification bus): a transport whose replicas
  /// share the session's event log keeps it once.
  bool broadcast = false;
};

/// Destination of outbound frames (one JSON text each, no trailing newline).
class frame_sink {
 public:
  virtual ~frame_sink() = default;
  /// Called from any engine thread; the final reply to a request has kind response.
  virtual void send(std::string frame, frame_kind kind) = 0;
  /// Called by the engine for every frame; transports that need the row or the era override it.
  /// The default forwards to send(frame, kind). `info.situation` is valid only during the call.
  virtual void send_frame(std::string frame, const frame_info& info) {
    send(std::move(frame), info.kind);
  }
  /// A 2025-03-26 batch reply as pieces ("[", member reply, ",", ..., "]") whose concatenation is
  /// one JSON array frame, so a transport can write it without building one large string (stdio
  /// does). The default joins the pieces and calls send_frame. Called from any engine thread.
  virtual void send_pieces(std::vector<std::string> pieces, const frame_info& info);
  /// Bytes this sink accepted and has not written to its peer yet (0 when it does not know).
  /// subscriptions/listen holds its notifications back while this exceeds a bound. Any thread.
  virtual std::size_t queued_bytes() const { return 0; }
};

/// Which era a transport already knows a message belongs to (HTTP reads MCP-Protocol-Version).
enum class era_hint { unknown, legacy, modern };

/// What session::shutdown() does with the requests still running when its grace ends.
enum class leftover_requests {
  cancel_silently,  ///< cancel them; no reply (the client went away: stdin EOF, disconnect)
  answer_stopped,   ///< cancel them and answer each with row P27 (server stopping: SIGTERM)
};

/// Per-session settings chosen by the transport.
struct session_options {
  /// Run request handlers on the calling thread of receive() instead of the worker pool
  /// (in-process test clients and the dispatcher benchmark).
  bool inline_dispatch = false;
  /// The session's id in request log lines and spans (mcp.session.id); the HTTP transport sets
  /// the Mcp-Session-Id of a legacy session. Empty: none.
  std::string id;
  /// The ids of requests this session sends its client (elicitation, sampling, roots): empty,
  /// integers from 1; else strings "<prefix><n>", which the HTTP transport sets when replicas
  /// share a store, so that an answer arriving at any replica finds the one that asked.
  std::string request_id_prefix;
};

/// Handle to a session; cheap to copy, all copies refer to the same session.
class session {
 public:
  /// Processes one inbound frame. Replies go to `reply_to` when given, else to the session sink.
  /// `hint` is the era the transport already knows (HTTP: MCP-Protocol-Version): with modern, a
  /// request is served under 2026-07-28 (missing _meta is refused as such, initialize is not a
  /// method); with legacy, it is served by the session's initialize state; with unknown, the
  /// request's own _meta decides.
  void receive(std::string_view bytes, const std::shared_ptr<frame_sink>& reply_to = nullptr,
               era_hint hint = era_hint::unknown);
  /// Processes an already-parsed message (the HTTP transport parses to check headers first).
  void receive(jsonrpc::message msg, const std::shared_ptr<frame_sink>& reply_to = nullptr,
               era_hint hint = era_hint::unknown);
  /// As above, for a message that came in an HTTP request: its handlers read `http_headers`
  /// ({lower-case name: value}, already stripped of what they must not see) through
  /// request_context::http_headers.
  void receive(jsonrpc::message msg, const std::shared_ptr<frame_sink>& reply_to, era_hint hint,
               json http_headers);
  /// Cancels one in-flight request as if notifications/cancelled had arrived; no reply is sent.
  void cancel(const jsonrpc::request_id& id, std::string_view reason);
  /// Graceful end: requests no worker has started yet are refused at once (with `answer_stopped`
  /// row P27a, "never started, safe to retry"; else silently) and never run; running ones get up
  /// to `grace` to finish and reply; the rest are cancelled (answered per `rest`: nothing, or row
  /// P27 naming `grace`, outcome unknown) and their handlers get up to `cancelled_wait` (default:
  /// `grace` again) to return. Later frames are ignored. Returns true when every handler returned
  /// in time.
  bool shutdown(std::chrono::milliseconds grace,
                leftover_requests rest = leftover_requests::cancel_silently,
                std::optional<std::chrono::milliseconds> cancelled_wait = std::nullopt);
  /// Answers every request no worker has started yet with row P27a (the server is stopping) and
  /// makes sure its handler never runs; returns how many. Any thread.
  std::size_t refuse_unstarted();
  /// Blocks until no request is in flight.
  void wait_idle() const;
  /// Number of requests currently in flight.
  std::size_t in_flight() const;
  /// The legacy protocol version negotiated by initialize; empty before initialize.
  std::string negotiated_version() const;
  /// True after a legacy initialize succeeded.
  bool legacy_initialized() const;
  /// Sets the verified principal every request of this session sees (HTTP auth hook); its
  /// identity (what owns tasks and requestStates) is principal_identity(principal).
  void set_principal(json principal);
  /// As set_principal(principal), with the identity given: principal_identity() of it under
  /// the transport's identity claims ("" only for a null principal).
  void set_principal(json principal, std::string identity);
  /// Sends a server-initiated notification on the session sink (legacy list_changed, ...).
  void notify(std::string_view method, const json& params);
  /// Ends this session's 2026-07-28 subscriptions/listen streams gracefully (the server is
  /// stopping): on a shared channel (stdio) notifications/cancelled then the listen result, on
  /// a stream of its own (HTTP) the result, which ends the stream. Returns how many ended.
  std::size_t end_listens(std::string_view reason);

 private:
  friend class server;
  friend class detail::session_state;  // hands itself to server_options::on_roots_list_changed
  friend std::shared_ptr<detail::session_state> detail::state_of(const session& s);
  explicit session(std::shared_ptr<detail::session_state> state);

  std::shared_ptr<detail::session_state> state_;
};

}  // namespace mcpcxx
