// Legacy (2025-xx) HTTP sessions as this process serves them: ids from the kernel CSPRNG, the
// live engine session, the GET SSE stream and resumed streams (http_session), and the table of
// live sessions with idle expiry (session_table). What could be shared between processes lives
// behind two stores: each session's record in a session_store (session_store.hpp) and its SSE
// event ids and replay buffer in an event_store (event_store.hpp); http_session writes live
// channels and delegates storage to them. Each session in the table is attached to the request
// router (core/request_router.hpp), so a settling message that reached another process arrives.
// With a shared session store (session_store::shared(), several replicas), a replica serves a
// session another one created: the table revives it from its record (find_or_revive) and caches
// it; the cached copy takes over client state changed elsewhere on each use, and is dropped when
// the record is gone (ended elsewhere). A store that does not answer throws
// detail::store_unavailable out of the operations that need it (the endpoint answers row H51).
// Thread-safety: the table and each session are internally locked; any thread may call them.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "mcpcxx/json.hpp"
#include "mcpcxx/jsonrpc.hpp"
#include "mcpcxx/session.hpp"

#include "core/request_router.hpp"
#include "transport/http/event_store.hpp"
#include "transport/http/reply_channel.hpp"
#include "transport/http/session_store.hpp"

namespace mcpcxx::http {

/// 32 hex characters (128 bits) from getrandom(2); throws std::system_error when unavailable.
std::string mint_session_id();

/// The clock of session records' last use: steady-clock nanoseconds.
std::int64_t session_clock_ns();

/// The stream number a POST stream gets when the event store cannot open one: its events are
/// sent unnumbered and not kept.
inline constexpr std::uint64_t k_unstored_stream = ~std::uint64_t{0};

/// One legacy session as this process serves it.
class http_session {
 public:
  /// `events`: the session's record in the event store; `records`: the session store that
  /// touch() updates (the session is in it once session_table::insert() accepted it);
  /// `client_info`: initialize's params.clientInfo as JSON ("" when absent).
  http_session(std::string id, std::string principal_key, std::string client_capabilities,
               std::shared_ptr<session_events> events, std::shared_ptr<session_store> records,
               std::string client_info = {});

  const std::string& id() const noexcept { return id_; }
  /// The creator's principal identity (principal_identity()); "" without auth.
  const std::string& principal_key() const noexcept { return principal_key_; }
  /// The engine session (set once right after creation).
  mcpcxx::session& engine() { return *engine_; }
  /// Sets the engine session; with a shared store, its changes of log level and subscriptions
  /// are written to the record from then on (before the request that made them is answered).
  void set_engine(mcpcxx::session s);
  /// What the session store keeps: id, principal, negotiated version, capabilities and info,
  /// log level and subscriptions, `now_ns`.
  session_record to_record(std::int64_t now_ns) const;
  /// Puts the engine session in the state `r` records: initialized with its version,
  /// capabilities, info, log level and subscriptions (a session revived on this replica).
  void restore(const session_record& r);

  /// Marks use now in the session store; the reaper expires sessions idle past the timeout
  /// with nothing active. With a shared store it also takes over the log level and
  /// subscriptions the record holds, and returns false when the record is gone (the session
  /// ended elsewhere); true otherwise.
  bool touch();
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

  /// True when this session issued the event id `p` (session_events::issued: row H11 when not).
  bool issued(event_position p) const;
  /// Installs the GET stream after replaying GET-stream events following `after` (or writing a
  /// priming event when `prime`); false when one is already open without `after`. A resume
  /// (`after` set) takes over from an open GET stream, which is told so and ended: a client
  /// resumes when it lost its stream, and the spec sends each message on one stream only.
  bool attach_get(std::shared_ptr<reply_channel> ch, std::optional<event_position> after,
                  bool prime);
  /// How resume_stream() left its channel.
  enum class resumed {
    ended,      ///< the stream is over (or runs elsewhere and cannot be followed): `ch` ended
    live_here,  ///< it runs here: `ch` receives its further events as they are recorded
    follow,     ///< it runs on another replica: `ch` stays open for follow_stream()
  };
  /// Replays a POST stream after `after` onto `ch` and sets `after` to the last event sent.
  /// A stream running on another replica is followed when `can_follow`, else ended with a
  /// comment that says to resume again. Throws detail::store_unavailable.
  resumed resume_stream(event_position& after, const std::shared_ptr<reply_channel>& ch,
                        bool can_follow);
  /// One step of following `ch` (a resume_stream() that returned follow) from `after`: writes
  /// what the store kept since, advancing `after`, and ends `ch` once the stream ended there.
  /// False when `ch` is done (ended now or before, the client left, or close_get() took it).
  /// Throws detail::store_unavailable.
  bool follow_stream(event_position& after, const std::shared_ptr<reply_channel>& ch);
  /// True while a GET stream is open.
  bool get_open() const;
  /// Detaches `ch` wherever it is attached (GET stream or a resumed stream).
  void detach(const reply_channel* ch);
  /// Server-initiated frame: sent on the GET stream when open, always kept for replay.
  /// A `broadcast` frame (frame_info::broadcast) is kept once by a store the replicas share.
  void push_server_frame(std::string_view frame, bool broadcast = false);
  /// Closes the GET stream (shutdown or DELETE).
  void close_get();

  /// Transport-side bytes held (ids, capabilities, the session's events, bookkeeping).
  std::size_t bytes() const;

  /// The client state last read from or written to a shared record.
  struct client_mirror {
    std::mutex lock;
    std::string log_level;
    std::vector<std::string> subscriptions;
    bool stale = false;  ///< a change could not be written: the record's state wins next
  };

 private:
  using resumed_channels = std::vector<std::pair<std::uint64_t, std::shared_ptr<reply_channel>>>;
  std::string id_;
  std::string principal_key_;
  std::string client_capabilities_;
  std::string client_info_;
  std::optional<mcpcxx::session> engine_;
  const std::shared_ptr<client_mirror> mirror_ = std::make_shared<client_mirror>();
  std::atomic<int> active_{0};
  const std::shared_ptr<session_events> events_;
  const std::shared_ptr<session_store> records_;
  // Guards the live channels, and makes each store write and its fan-out to them one step.
  mutable std::mutex lock_;
  std::shared_ptr<reply_channel> get_stream_;
  resumed_channels resumed_;
  // POST streams this process opened and still runs (a stream running elsewhere cannot be
  // followed from here: resuming it replays what is stored, then ends).
  std::vector<std::uint64_t> local_streams_;

  /// Removes and returns the channels that resumed `stream`.
  resumed_channels take_resumed_locked(std::uint64_t stream);
  /// Takes the record's log level and subscriptions into the engine session when they differ.
  void adopt_client_state(const session_record& r);
  /// append() (or append_priming() when `priming`), unnumbered and unkept when the store fails.
  std::string append_locked(std::uint64_t stream, std::string_view frame, bool priming);
};

/// Opens the engine session of a session being revived (the endpoint's, with the server).
using engine_opener = std::function<mcpcxx::session(const std::shared_ptr<http_session>&)>;

/// The live legacy sessions of this process, over the session store (their records), the
/// event store (their events) and the request router (their inboxes): the one place all three
/// are kept in step with the live sessions.
class session_table {
 public:
  /// `router` must not be null; `limits` parse the messages it routes to this table's sessions.
  session_table(std::shared_ptr<session_store> records, std::shared_ptr<event_store> events,
                std::shared_ptr<detail::request_router> router, jsonrpc::parse_limits limits = {});

  /// A new session (fresh id, its events opened) for `principal_key`, keeping
  /// `initialize_params.capabilities`; it joins the table with insert() once initialized.
  std::shared_ptr<http_session> create(std::string principal_key, const json& initialize_params);
  /// Adds an initialized session (its record stored as used now) and attaches it to the router;
  /// false (not attached) when the store is full.
  bool insert(std::shared_ptr<http_session> s);
  /// The live session with `id`, or nullptr.
  std::shared_ptr<http_session> find(const std::string& id) const;
  /// find(id); else, with a shared store, the session revived from its record when that
  /// belongs to `principal_key`: its engine session opened by `open` and restored from the
  /// record, attached to the router and cached. nullptr when there is no such record. Throws
  /// detail::store_unavailable.
  std::shared_ptr<http_session> find_or_revive(const std::string& id,
                                               const std::string& principal_key,
                                               const engine_opener& open);
  /// Drops the cached session `id` without touching the stores (its record is gone: it ended on
  /// another replica); detached from the router. Returns it (nullptr when absent).
  std::shared_ptr<http_session> drop(const std::string& id);
  /// True when the session store is shared with other processes.
  bool shared() const noexcept { return records_->shared(); }
  /// Removes and returns the session with `id` (nullptr when absent); its events are forgotten
  /// and it is detached from the router.
  std::shared_ptr<http_session> remove(const std::string& id);
  /// Removes sessions idle for longer than `timeout` with nothing active (events forgotten,
  /// detached from the router). With a shared store it first marks its active sessions used
  /// (so that other replicas spare them), and also drops (and returns) the cached sessions whose
  /// record is gone; a store that does not answer makes it return nothing (the next run retries).
  std::vector<std::shared_ptr<http_session>> take_expired(std::chrono::nanoseconds timeout);
  /// Removes every session (events forgotten, detached from the router). With a shared store
  /// only this process lets go of them: records and events stay for the other replicas.
  std::vector<std::shared_ptr<http_session>> take_all();
  /// Hands `message` (responses/notifications only) to the process holding session `id` through
  /// the router; false when this table holds `id` (the caller serves it), when the store's
  /// record of `id` belongs to another principal than `principal_key` (the owner check a held
  /// session gets), or when nobody holds it. Throws detail::store_unavailable.
  bool route_elsewhere(const std::string& id, std::string message,
                       const std::string& principal_key);
  /// Sends what in `msg` (a POST of responses/notifications for session `id`) belongs to other
  /// processes through the router (settling_routes.cpp): an answer whose id names another
  /// replica goes to that replica's copy of the session, notifications/cancelled to every other
  /// copy. Returns what is left for this process (nullopt: nothing); `msg` itself when nothing
  /// was routed: a router reaching this process only, nothing of another's, or a session that
  /// is not `principal_key`'s (the caller refuses it as any request). Throws
  /// detail::store_unavailable.
  std::optional<jsonrpc::message> route_settling(const std::string& id, jsonrpc::message msg,
                                                 const std::string& principal_key);
  /// The session_options::request_id_prefix of this process's sessions: "<origin>-" when the
  /// router reaches other processes, else empty (integer ids).
  std::string request_id_prefix() const;
  std::size_t size() const;
  bool full() const;
  /// Sum of the sessions' bytes(), the records' bytes, and the table's per-entry overhead.
  std::size_t bytes() const;

 private:
  mutable std::mutex lock_;
  std::unordered_map<std::string, std::shared_ptr<http_session>> live_;
  const std::shared_ptr<session_store> records_;
  const std::shared_ptr<event_store> events_;
  const std::shared_ptr<detail::request_router> router_;
  const jsonrpc::parse_limits limits_;

  /// The router inbox of `s`: a routed message is received as a POST of responses/notifications.
  detail::request_router::inbox inbox_for(const std::shared_ptr<http_session>& s) const;
  /// route_settling() of a batch: each member whose `elsewhere` is true is routed (a
  /// cancellation also kept when `id` is held here); the rest, parsed again, or nullopt.
  std::optional<jsonrpc::message> route_batch(const std::string& id, jsonrpc::message msg,
                                              const std::function<bool(const json&)>& elsewhere);
  /// Whether session `id` (live here, else its record) belongs to `principal_key`. Throws
  /// detail::store_unavailable.
  bool owned_by(const std::string& id, const std::string& principal_key) const;
  /// Detaches `taken` from the router (called without the table's lock).
  void detach_all(const std::vector<std::shared_ptr<http_session>>& taken);
  /// Moves the live sessions of `taken` out of the table and forgets their events.
  std::vector<std::shared_ptr<http_session>> release_locked(
      const std::vector<session_record>& taken);
  /// take_expired() on a shared store.
  std::vector<std::shared_ptr<http_session>> take_expired_shared(std::int64_t cutoff);
  /// The live sessions (a copy of the table's entries).
  std::vector<std::shared_ptr<http_session>> live() const;
};

}  // namespace mcpcxx::http
