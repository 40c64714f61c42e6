// The SSE event store of legacy sessions: the event ids, the events kept for Last-Event-ID
// resumption and the state of each stream, as operations a store shared by several processes
// could serve (issue 30). Live channels (the GET stream, resumed streams) are not stored here:
// they stay in http_session, which writes what append() returns and fans it out.
//
// Contract (tests/cpp/http/event_store_contract.hpp checks it for every implementation):
// - Event ids are "<stream>-<seq>". Stream 0 is the session's GET stream; open_stream() hands
//   out 1, 2, 3, ... Sequence numbers are per session, across all its streams: 1, 2, 3, ...
//   without gaps, in the order the appends took effect.
// - The event text append() returns is the exact SSE event written on the wire:
//   sse_event(id, frame) of wire.hpp, and "id: <id>\ndata: \n\n" for a priming event.
//   replay() hands back those same bytes.
// - The store keeps the last `replay_capacity` events of each session (across its streams) and
//   drops the oldest beyond it; capacity 0 keeps none. Cancel markers are bounded to the last
//   `replay_capacity + 1` cancelled streams of the session.
// Thread-safety: every operation may be called from any thread at the same time; operations on
// one session take effect one at a time (each is atomic). The visitor of replay() may run while
// the store holds a lock: it must not call back into the store.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "mcpcxx/jsonrpc.hpp"

namespace mcpcxx::http {

/// A parsed SSE event id "<stream>-<seq>".
struct event_position {
  std::uint64_t stream = 0;
  std::uint64_t seq = 0;
};
/// Parses an event id minted by this transport; nullopt for foreign ids.
std::optional<event_position> parse_event_id(std::string_view id);
/// Formats the event id "<stream>-<seq>" of `p`.
std::string format_event_id(event_position p);

/// How long identical broadcast frames count as one (session_events::append_once): the copies
/// of a session on several replicas get a bus notification within milliseconds of each other.
inline constexpr std::chrono::milliseconds k_broadcast_window{1000};

/// How a stream stands when a client resumes it.
struct stream_state {
  enum class phase {
    running,    ///< opened and neither finished nor cancelled: further events will follow
    ended,      ///< finished, or never opened, or a cancel marker that was dropped
    cancelled,  ///< ended without its response: resuming it ends with row H41 for `request`
  };
  phase now = phase::ended;
  jsonrpc::request_id request;  ///< the cancelled request (phase::cancelled only)
};

/// Receives one stored SSE event text during replay().
using event_visitor = std::function<void(std::string_view event_text)>;

/// The events and streams of one legacy session. Obtained from event_store::open().
class session_events {
 public:
  virtual ~session_events() = default;

  /// A fresh POST stream number (1, 2, ...), marked running.
  virtual std::uint64_t open_stream() = 0;
  /// Numbers `frame` as the session's next event on `stream`, keeps it, returns its SSE text.
  virtual std::string append(std::uint64_t stream, std::string_view frame) = 0;
  /// As append(), for a frame every copy of the session appends at once (frame_info::broadcast):
  /// a store shared by several processes keeps identical such frames of `stream` appended within
  /// k_broadcast_window once, and hands each caller that one event's text. The default (one
  /// process, one copy) is append().
  virtual std::string append_once(std::uint64_t stream, std::string_view frame) {
    return append(stream, frame);
  }
  /// As append() for a priming event: "id: <id>\ndata: \n\n".
  virtual std::string append_priming(std::uint64_t stream) = 0;
  /// Visits, oldest first, the kept events of `after.stream` whose seq is above `after.seq`.
  virtual void replay(event_position after, const event_visitor& visit) const = 0;
  /// True when the session handed out `p`: seq in 1..last, stream opened (0 always), and, while
  /// that event is kept, on stream `p.stream`; an evicted seq counts by its stream alone (H11).
  virtual bool issued(event_position p) const = 0;
  /// Marks `stream` ended with its response; a cancelled stream stays cancelled.
  virtual void finish(std::uint64_t stream) = 0;
  /// Marks `stream` ended without its response, for request `id` (resumption ends with H41).
  virtual void cancel(std::uint64_t stream, const jsonrpc::request_id& id) = 0;
  /// Whether `stream` is running, ended, or cancelled (with its request id).
  virtual stream_state state(std::uint64_t stream) const = 0;
  /// Bytes held for this session's events and stream states (event texts and bookkeeping).
  virtual std::size_t bytes() const = 0;
};

/// Where legacy sessions keep their events (the in-memory default: memory_event_store.hpp).
class event_store {
 public:
  virtual ~event_store() = default;

  /// The events of session `session_id`: the record already kept for it (another handle to the
  /// same events), else a new empty one. Never null. A store may drop a record that no handle
  /// refers to any more (the in-memory store frees it with its last handle; a shared store keeps
  /// it for other processes until forget()).
  virtual std::shared_ptr<session_events> open(const std::string& session_id) = 0;
  /// Ends the session's record: a later open() starts afresh. Handles opened before stay usable
  /// (no throw) but are no longer the session's record.
  virtual void forget(const std::string& session_id) = 0;
  /// Sessions with a record (opened and not forgotten).
  virtual std::size_t sessions() const = 0;
  /// Bytes held for every session with a record.
  virtual std::size_t bytes() const = 0;
};

}  // namespace mcpcxx::http
