// Legacy (2025-xx) HTTP sessions: ids from the kernel CSPRNG, the GET SSE stream, SSE event ids
// with a bounded replay buffer for Last-Event-ID resumption, and idle expiry.
// Thread-safety: the table and each session are internally locked; any thread may call them.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "mcpcxx/jsonrpc.hpp"
#include "mcpcxx/session.hpp"

#include "transport/http/reply_channel.hpp"

namespace mcpcxx::http {

/// 32 hex characters (128 bits) from getrandom(2); throws std::system_error when unavailable.
std::string mint_session_id();

/// A parsed SSE event id "<stream>-<seq>".
struct event_position {
  std::uint64_t stream = 0;
  std::uint64_t seq = 0;
};
/// Parses an event id minted by this transport; nullopt for foreign ids.
std::optional<event_position> parse_event_id(std::string_view id);

/// One legacy session as the transport sees it.
class http_session {
 public:
  http_session(std::string id, std::string principal_key, std::size_t replay_capacity);

  const std::string& id() const noexcept { return id_; }
  /// The creator's principal identity (principal_identity()); "" without auth.
  const std::string& principal_key() const noexcept { return principal_key_; }
  /// The engine session (set once right after creation).
  mcpcxx::session& engine() { return *engine_; }
  void set_engine(mcpcxx::session s) { engine_.emplace(std::move(s)); }

  /// Marks use now; the reaper expires sessions idle past the timeout with nothing active.
  void touch();
  /// Nanoseconds (steady clock) of the last use.
  std::int64_t last_used_ns() const noexcept { return last_used_.load(); }
  /// POST exchanges and GET streams in progress keep a session alive.
  void enter() noexcept { ++active_; }
  void leave() noexcept { --active_; }
  bool active() const noexcept { return active_.load() > 0; }

  /// A fresh stream number for a POST SSE response (0 is the GET stream).
  std::uint64_t new_stream();
  /// Assigns an id to `frame` on `stream`, keeps it for replay, returns the SSE event text.
  std::string record(std::uint64_t stream, std::string_view frame);
  /// A priming event (id, empty data) for `stream`, also recorded.
  std::string prime(std::uint64_t stream);
  /// Marks a POST stream ended (its final response was recorded).
  void finish_stream(std::uint64_t stream);
  /// Marks a POST stream ended without a response (the request `id` was cancelled): resuming it
  /// replays what was sent, then ends with row H41 for `id`.
  void cancel_stream(std::uint64_t stream, const jsonrpc::request_id& id);

  /// True when this session issued the event id `p`: its sequence number was handed out, on
  /// stream `p.stream` (checked while the event is in the replay buffer; evicted ones only
  /// by their stream having existed). False for an id beyond the counter or of a stream the
  /// session never had (row H11).
  bool issued(event_position p) const;
  /// Installs the GET stream after replaying GET-stream events following `after` (or writing a
  /// priming event when `prime`); false when one is already open without `after`. A resume
  /// (`after` set) takes over from an open GET stream, which is told so and ended: a client
  /// resumes when it lost its stream, and the spec sends each message on one stream only.
  bool attach_get(std::shared_ptr<reply_channel> ch, std::optional<event_position> after,
                  bool prime);
  /// Replays a POST stream after `after` onto `ch`; when that stream is still running, `ch`
  /// receives its further events and true is returned; otherwise `ch` is ended.
  bool resume_stream(event_position after, const std::shared_ptr<reply_channel>& ch);
  /// True while a GET stream is open.
  bool get_open() const;
  /// Detaches `ch` wherever it is attached (GET stream or a resumed stream).
  void detach(const reply_channel* ch);
  /// Server-initiated frame: sent on the GET stream when open, always kept for replay.
  void push_server_frame(std::string_view frame);
  /// Closes the GET stream (shutdown or DELETE).
  void close_get();

  /// Transport-side bytes held (ids, replay buffer, bookkeeping).
  std::size_t bytes() const;

 private:
  struct event {
    std::uint64_t stream;
    std::uint64_t seq;
    std::string text;
  };
  std::string id_;
  std::string principal_key_;
  std::optional<mcpcxx::session> engine_;
  std::atomic<std::int64_t> last_used_{0};
  std::atomic<int> active_{0};
  mutable std::mutex lock_;
  std::deque<event> replay_;
  std::size_t replay_capacity_;
  std::size_t replay_bytes_ = 0;
  std::uint64_t next_seq_ = 1;
  std::uint64_t next_stream_ = 1;
  std::vector<std::uint64_t> running_streams_;
  // Cancelled streams still worth answering on resumption (bounded like the replay buffer).
  std::deque<std::pair<std::uint64_t, jsonrpc::request_id>> cancelled_streams_;
  std::shared_ptr<reply_channel> get_stream_;
  std::vector<std::pair<std::uint64_t, std::shared_ptr<reply_channel>>> resumed_;

  std::string record_locked(std::uint64_t stream, std::string_view frame, bool priming);
  void replay_locked(event_position after, reply_channel& ch) const;
};

/// All live legacy sessions.
class session_table {
 public:
  explicit session_table(std::size_t max_sessions) : max_sessions_(max_sessions) {}

  /// Adds a session; false when the table is full.
  bool insert(std::shared_ptr<http_session> s);
  /// The live session with `id`, or nullptr.
  std::shared_ptr<http_session> find(const std::string& id) const;
  /// Removes and returns the session with `id` (nullptr when absent).
  std::shared_ptr<http_session> remove(const std::string& id);
  /// Removes sessions idle for longer than `timeout` with nothing active.
  std::vector<std::shared_ptr<http_session>> take_expired(std::chrono::nanoseconds timeout);
  /// Removes every session.
  std::vector<std::shared_ptr<http_session>> take_all();
  std::size_t size() const;
  bool full() const;
  /// Sum of bytes() plus the table's own per-entry overhead.
  std::size_t bytes() const;

 private:
  mutable std::mutex lock_;
  std::unordered_map<std::string, std::shared_ptr<http_session>> sessions_;
  std::size_t max_sessions_;
};

}  // namespace mcpcxx::http
