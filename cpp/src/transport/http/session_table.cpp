#include "transport/http/session_table.hpp"

#include <algorithm>
#include <cerrno>
#include <sys/random.h>
#include <system_error>

#include "core/store_unavailable.hpp"
#include "transport/http/wire.hpp"

namespace mcpcxx::http {

namespace {

// The last event of a resumed stream whose request was cancelled (row H41).
std::string cancelled_event(const jsonrpc::request_id& id) {
  return sse_event({},
                   jsonrpc::serialize_error(
                       id, mcpcxx::wire::render(mcpcxx::wire::situation::H41_request_cancelled)));
}

// Moves `after` to the event `text` (an SSE event this store made: "id: <id>\n...").
void advance_to(event_position& after, std::string_view text) {
  constexpr std::string_view k_id = "id: ";
  if (text.substr(0, k_id.size()) != k_id) return;
  const auto end = text.find('\n');
  if (end == std::string_view::npos) return;
  if (auto p = parse_event_id(text.substr(k_id.size(), end - k_id.size()))) after = *p;
}

// initialize's params.<member> as the session record keeps it ("" when absent).
std::string param_text(const json& initialize_params, const char* member) {
  if (!initialize_params.is_object()) return {};
  auto it = initialize_params.find(member);
  if (it == initialize_params.end()) return {};
  return it->dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

std::int64_t session_clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string mint_session_id() {
  unsigned char raw[16];
  std::size_t got = 0;
  while (got < sizeof raw) {
    ssize_t n = ::getrandom(raw + got, sizeof raw - got, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::system_error(errno, std::generic_category(), "getrandom");
    }
    got += static_cast<std::size_t>(n);
  }
  static constexpr char hex[] = "0123456789abcdef";
  std::string id;
  id.reserve(32);
  for (unsigned char b : raw) {
    id.push_back(hex[b >> 4]);
    id.push_back(hex[b & 0xF]);
  }
  return id;
}

http_session::http_session(std::string id, std::string principal_key,
                           std::string client_capabilities, std::shared_ptr<session_events> events,
                           std::shared_ptr<session_store> records, std::string client_info)
    : id_(std::move(id)),
      principal_key_(std::move(principal_key)),
      client_capabilities_(std::move(client_capabilities)),
      client_info_(std::move(client_info)),
      events_(std::move(events)),
      records_(std::move(records)) {}

bool http_session::touch() {
  if (!records_->shared()) {
    records_->touch(id_, records_->clock_ns());
    return true;
  }
  auto r = records_->use(id_, records_->clock_ns());
  if (!r) return false;
  adopt_client_state(*r);
  return true;
}

std::uint64_t http_session::new_stream() {
  std::uint64_t n = k_unstored_stream;
  try {
    n = events_->open_stream();
  } catch (const detail::store_unavailable&) {
    return n;  // the stream is still answered, with unnumbered events
  }
  std::lock_guard g(lock_);
  local_streams_.push_back(n);
  return n;
}

std::string http_session::append_locked(std::uint64_t stream, std::string_view frame,
                                        bool priming) {
  if (stream != k_unstored_stream) {
    try {
      return priming ? events_->append_priming(stream) : events_->append(stream, frame);
    } catch (const detail::store_unavailable&) {
      // The client still gets the event live; it cannot be resumed.
    }
  }
  return priming ? std::string() : sse_event({}, frame);
}

std::string http_session::record(std::uint64_t stream, std::string_view frame) {
  std::lock_guard g(lock_);
  std::string text = append_locked(stream, frame, false);
  for (const auto& [s, ch] : resumed_) {
    if (s == stream) ch->write(text);
  }
  return text;
}

std::string http_session::prime(std::uint64_t stream) {
  std::lock_guard g(lock_);
  return append_locked(stream, {}, true);
}

http_session::resumed_channels http_session::take_resumed_locked(std::uint64_t stream) {
  resumed_channels taken;
  for (auto it = resumed_.begin(); it != resumed_.end();) {
    if (it->first == stream) {
      taken.push_back(std::move(*it));
      it = resumed_.erase(it);
    } else {
      ++it;
    }
  }
  return taken;
}

void http_session::finish_stream(std::uint64_t stream) {
  resumed_channels ended;
  {
    std::lock_guard g(lock_);
    std::erase(local_streams_, stream);
    try {
      if (stream != k_unstored_stream) events_->finish(stream);
    } catch (const detail::store_unavailable&) {
      // Left running in the store: a resume elsewhere replays it and ends (not run here).
    }
    ended = take_resumed_locked(stream);
  }
  for (auto& [s, ch] : ended) ch->end_stream();
}

void http_session::cancel_stream(std::uint64_t stream, const jsonrpc::request_id& id) {
  resumed_channels ended;
  {
    std::lock_guard g(lock_);
    std::erase(local_streams_, stream);
    try {
      if (stream != k_unstored_stream) events_->cancel(stream, id);
    } catch (const detail::store_unavailable&) {
      // As in finish_stream(): the marker is lost, a resume ends without row H41.
    }
    ended = take_resumed_locked(stream);
    // A client that resumed the stream while the request still ran gets the same definite end.
    if (!ended.empty()) {
      const std::string last = cancelled_event(id);
      for (auto& [s, ch] : ended) ch->write(last);
    }
  }
  for (auto& [s, ch] : ended) ch->end_stream();
}

bool http_session::issued(event_position p) const { return events_->issued(p); }

bool http_session::attach_get(std::shared_ptr<reply_channel> ch,
                              std::optional<event_position> after, bool prime) {
  std::lock_guard g(lock_);
  bool open = get_stream_ && !get_stream_->closed() && !get_stream_->finished();
  if (open && !after) return false;
  if (open) {
    // A resuming client replaces the stream it lost; the old one says why it ends.
    get_stream_->write(": replaced by a GET that resumed this stream with Last-Event-ID\n\n");
    get_stream_->end_stream();
  }
  if (after) {
    events_->replay(*after, [&](std::string_view text) { ch->write(text); });
  } else if (prime) {
    ch->write(append_locked(0, {}, true));
  }
  get_stream_ = std::move(ch);
  return true;
}

http_session::resumed http_session::resume_stream(event_position& after,
                                                  const std::shared_ptr<reply_channel>& ch,
                                                  bool can_follow) {
  std::unique_lock g(lock_);
  // The state first: a stream that ended before it was read has every event stored already.
  stream_state st = events_->state(after.stream);
  events_->replay(after, [&](std::string_view text) {
    ch->write(text);
    advance_to(after, text);
  });
  const bool here =
      std::find(local_streams_.begin(), local_streams_.end(), after.stream) != local_streams_.end();
  if (st.now == stream_state::phase::running && (here || can_follow)) {
    resumed_.emplace_back(after.stream, ch);
    return here ? resumed::live_here : resumed::follow;
  }
  // A definite end, never 200-then-nothing: a cancelled request's stream says so (H41).
  if (st.now == stream_state::phase::cancelled) ch->write(cancelled_event(st.request));
  if (st.now == stream_state::phase::running) {
    ch->write(
        ": the request of this stream runs on another replica; resume again with the "
        "last event id received\n\n");
  }
  g.unlock();
  ch->end_stream();
  return resumed::ended;
}

bool http_session::follow_stream(event_position& after, const std::shared_ptr<reply_channel>& ch) {
  std::unique_lock g(lock_);
  const auto at =
      std::find_if(resumed_.begin(), resumed_.end(), [&](const auto& p) { return p.second == ch; });
  if (at == resumed_.end() || ch->closed() || ch->finished()) return false;
  stream_state st = events_->state(after.stream);
  events_->replay(after, [&](std::string_view text) {
    ch->write(text);
    advance_to(after, text);
  });
  if (st.now == stream_state::phase::running) return true;
  if (st.now == stream_state::phase::cancelled) ch->write(cancelled_event(st.request));
  resumed_.erase(at);
  g.unlock();
  ch->end_stream();
  return false;
}

bool http_session::get_open() const {
  std::lock_guard g(lock_);
  return get_stream_ && !get_stream_->closed() && !get_stream_->finished();
}

void http_session::detach(const reply_channel* ch) {
  std::lock_guard g(lock_);
  if (get_stream_.get() == ch) get_stream_.reset();
  resumed_.erase(std::remove_if(resumed_.begin(), resumed_.end(),
                                [&](const auto& p) { return p.second.get() == ch; }),
                 resumed_.end());
}

void http_session::push_server_frame(std::string_view frame, bool broadcast) {
  std::lock_guard g(lock_);
  std::string text;
  if (broadcast) {
    try {
      text = events_->append_once(0, frame);
    } catch (const detail::store_unavailable&) {
      text = sse_event({}, frame);  // live, not resumable, as in append_locked()
    }
  } else {
    text = append_locked(0, frame, false);
  }
  if (get_stream_) get_stream_->write(text);
}

void http_session::close_get() {
  std::shared_ptr<reply_channel> ch;
  resumed_channels resumed;
  {
    std::lock_guard g(lock_);
    ch = std::move(get_stream_);
    resumed.swap(resumed_);
  }
  if (ch) ch->end_stream();
  for (auto& [stream, r] : resumed) r->end_stream();
}

std::size_t http_session::bytes() const {
  return sizeof(*this) + id_.capacity() + principal_key_.capacity() +
         client_capabilities_.capacity() + client_info_.capacity() + events_->bytes();
}

session_table::session_table(std::shared_ptr<session_store> records,
                             std::shared_ptr<event_store> events,
                             std::shared_ptr<detail::request_router> router,
                             jsonrpc::parse_limits limits)
    : records_(std::move(records)),
      events_(std::move(events)),
      router_(std::move(router)),
      limits_(limits) {}

detail::request_router::inbox session_table::inbox_for(
    const std::shared_ptr<http_session>& s) const {
  // What post_legacy does with a body of responses/notifications for a known session, minus
  // the HTTP reply: a routed message has none of its own.
  return [weak = std::weak_ptr<http_session>(s), limits = limits_](const std::string& message) {
    auto live = weak.lock();
    if (!live) return;
    jsonrpc::message msg = jsonrpc::parse(message, limits);
    if (msg.kind == jsonrpc::message_kind::invalid) return;
    try {
      live->touch();
    } catch (const detail::store_unavailable&) {
      // Delivered all the same: the holder awaits it, and the next request touches again.
    }
    live->engine().receive(std::move(msg), nullptr, era_hint::legacy);
  };
}

void session_table::detach_all(const std::vector<std::shared_ptr<http_session>>& taken) {
  for (const auto& s : taken) router_->detach(s->id());
}

std::shared_ptr<http_session> session_table::create(std::string principal_key,
                                                    const json& initialize_params) {
  std::string id = mint_session_id();
  auto events = events_->open(id);
  return std::make_shared<http_session>(
      std::move(id), std::move(principal_key), param_text(initialize_params, "capabilities"),
      std::move(events), records_, param_text(initialize_params, "clientInfo"));
}

bool session_table::insert(std::shared_ptr<http_session> s) {
  // Attached before it can be found, detached after it can no longer be: while the table holds
  // a session, the router reaches it. The id reaches the client only after insert() returns.
  std::string key = s->id();
  router_->attach(key, inbox_for(s));
  session_record r = s->to_record(records_->clock_ns());
  {
    std::lock_guard g(lock_);
    if (records_->insert(std::move(r))) {
      live_.emplace(std::move(key), std::move(s));
      return true;
    }
  }
  router_->detach(key);
  return false;
}

std::shared_ptr<http_session> session_table::find(const std::string& id) const {
  std::lock_guard g(lock_);
  auto it = live_.find(id);
  return it == live_.end() ? nullptr : it->second;
}

std::shared_ptr<http_session> session_table::remove(const std::string& id) {
  std::shared_ptr<http_session> s;
  {
    std::lock_guard g(lock_);
    auto it = live_.find(id);
    if (it == live_.end()) return nullptr;
    // The stores first: a shared store that fails leaves the session as it was.
    records_->remove(id);
    events_->forget(id);
    s = std::move(it->second);
    live_.erase(it);
  }
  router_->detach(id);
  return s;
}

bool session_table::route_elsewhere(const std::string& id, std::string message,
                                    const std::string& principal_key) {
  if (find(id)) return false;
  // A store that holds the record of a session held elsewhere (a shared one) names its owner.
  auto r = records_->find(id);
  if (r && r->principal_key != principal_key) return false;
  return router_->route(id, std::move(message));
}

std::vector<std::shared_ptr<http_session>> session_table::release_locked(
    const std::vector<session_record>& taken) {
  std::vector<std::shared_ptr<http_session>> out;
  out.reserve(taken.size());
  for (const auto& r : taken) {
    auto node = live_.extract(r.id);
    if (!node.empty()) out.push_back(std::move(node.mapped()));
    events_->forget(r.id);
  }
  return out;
}

std::vector<std::shared_ptr<http_session>> session_table::take_expired(
    std::chrono::nanoseconds timeout) {
  std::int64_t cutoff = records_->clock_ns() - timeout.count();
  if (records_->shared()) return take_expired_shared(cutoff);
  std::vector<std::shared_ptr<http_session>> out;
  {
    std::lock_guard g(lock_);
    auto taken = records_->take_expired(cutoff, [this](const std::string& id) {
      auto it = live_.find(id);
      return it != live_.end() && it->second->active();
    });
    out = release_locked(taken);
  }
  detach_all(out);
  return out;
}

std::vector<std::shared_ptr<http_session>> session_table::take_all() {
  std::vector<std::shared_ptr<http_session>> out;
  {
    std::lock_guard g(lock_);
    const bool local = !records_->shared();  // shared records outlive this process's copies
    if (local) records_->take_all();
    out.reserve(live_.size());
    for (auto& [id, s] : live_) {
      out.push_back(std::move(s));
      if (local) events_->forget(id);
    }
    live_.clear();
  }
  detach_all(out);
  return out;
}

std::size_t session_table::size() const { return records_->size(); }

bool session_table::full() const { return records_->full(); }

std::size_t session_table::bytes() const {
  std::size_t total = records_->bytes();
  std::lock_guard g(lock_);
  total += live_.bucket_count() * sizeof(void*);
  for (const auto& [id, s] : live_) {
    // Node: key string, shared_ptr, hash link; plus the control block of make_shared.
    total += id.capacity() + sizeof(std::string) + sizeof(s) + 2 * sizeof(void*) + 16;
    total += s->bytes();
  }
  return total;
}

}  // namespace mcpcxx::http
