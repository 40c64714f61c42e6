#include "transport/http/session_table.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <sys/random.h>
#include <system_error>

#include "transport/http/wire.hpp"

namespace mcpcxx::http {

namespace {

std::int64_t table_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string event_id(std::uint64_t stream, std::uint64_t seq) {
  return std::to_string(stream) + "-" + std::to_string(seq);
}

// The last event of a resumed stream whose request was cancelled (row H41).
std::string cancelled_event(const jsonrpc::request_id& id) {
  return sse_event({},
                   jsonrpc::serialize_error(
                       id, mcpcxx::wire::render(mcpcxx::wire::situation::H41_request_cancelled)));
}

}  // namespace

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

std::optional<event_position> parse_event_id(std::string_view id) {
  auto dash = id.find('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 >= id.size()) return std::nullopt;
  event_position p;
  auto a = std::from_chars(id.data(), id.data() + dash, p.stream);
  auto b = std::from_chars(id.data() + dash + 1, id.data() + id.size(), p.seq);
  if (a.ec != std::errc{} || a.ptr != id.data() + dash || b.ec != std::errc{} ||
      b.ptr != id.data() + id.size()) {
    return std::nullopt;
  }
  return p;
}

http_session::http_session(std::string id, std::string principal_key, std::size_t replay_capacity)
    : id_(std::move(id)),
      principal_key_(std::move(principal_key)),
      replay_capacity_(replay_capacity) {
  touch();
}

void http_session::touch() { last_used_.store(table_now_ns()); }

std::uint64_t http_session::new_stream() {
  std::lock_guard g(lock_);
  running_streams_.push_back(next_stream_);
  return next_stream_++;
}

std::string http_session::record_locked(std::uint64_t stream, std::string_view frame,
                                        bool priming) {
  std::uint64_t seq = next_seq_++;
  std::string id = event_id(stream, seq);
  std::string text = priming ? "id: " + id + "\ndata: \n\n" : sse_event(id, frame);
  if (replay_capacity_ > 0) {
    replay_.push_back({stream, seq, text});
    replay_bytes_ += text.size();
    while (replay_.size() > replay_capacity_) {
      replay_bytes_ -= replay_.front().text.size();
      replay_.pop_front();
    }
  }
  return text;
}

std::string http_session::record(std::uint64_t stream, std::string_view frame) {
  std::lock_guard g(lock_);
  std::string text = record_locked(stream, frame, false);
  for (const auto& [s, ch] : resumed_) {
    if (s == stream) ch->write(text);
  }
  return text;
}

std::string http_session::prime(std::uint64_t stream) {
  std::lock_guard g(lock_);
  return record_locked(stream, {}, true);
}

void http_session::replay_locked(event_position after, reply_channel& ch) const {
  for (const auto& e : replay_) {
    if (e.stream == after.stream && e.seq > after.seq) ch.write(e.text);
  }
}

void http_session::finish_stream(std::uint64_t stream) {
  std::vector<std::shared_ptr<reply_channel>> ended;
  {
    std::lock_guard g(lock_);
    std::erase(running_streams_, stream);
    for (auto it = resumed_.begin(); it != resumed_.end();) {
      if (it->first == stream) {
        ended.push_back(std::move(it->second));
        it = resumed_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& ch : ended) ch->end_stream();
}

void http_session::cancel_stream(std::uint64_t stream, const jsonrpc::request_id& id) {
  {
    std::lock_guard g(lock_);
    cancelled_streams_.emplace_back(stream, id);
    // Only streams still represented in the replay buffer need remembering.
    if (cancelled_streams_.size() > replay_capacity_ + 1) cancelled_streams_.pop_front();
    // A client that resumed the stream while the request still ran gets the same definite end.
    for (const auto& [s, ch] : resumed_) {
      if (s == stream) ch->write(cancelled_event(id));
    }
  }
  finish_stream(stream);
}

bool http_session::issued(event_position p) const {
  std::lock_guard g(lock_);
  if (p.seq == 0 || p.seq >= next_seq_ || p.stream >= next_stream_) return false;
  if (replay_.empty() || p.seq < replay_.front().seq) return true;
  // Sequence numbers are contiguous in the buffer: the event is at a known offset.
  return replay_[p.seq - replay_.front().seq].stream == p.stream;
}

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
    replay_locked(*after, *ch);
  } else if (prime) {
    ch->write(record_locked(0, {}, true));
  }
  get_stream_ = std::move(ch);
  return true;
}

bool http_session::resume_stream(event_position after, const std::shared_ptr<reply_channel>& ch) {
  std::unique_lock g(lock_);
  replay_locked(after, *ch);
  bool running = std::find(running_streams_.begin(), running_streams_.end(), after.stream) !=
                 running_streams_.end();
  if (!running) {
    // A definite end, never 200-then-nothing: a cancelled request's stream says so (H41).
    auto c = std::find_if(cancelled_streams_.begin(), cancelled_streams_.end(),
                          [&](const auto& e) { return e.first == after.stream; });
    if (c != cancelled_streams_.end()) ch->write(cancelled_event(c->second));
    g.unlock();
    ch->end_stream();
    return false;
  }
  resumed_.emplace_back(after.stream, ch);
  return true;
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

void http_session::push_server_frame(std::string_view frame) {
  std::lock_guard g(lock_);
  std::string text = record_locked(0, frame, false);
  if (get_stream_) get_stream_->write(text);
}

void http_session::close_get() {
  std::shared_ptr<reply_channel> ch;
  std::vector<std::pair<std::uint64_t, std::shared_ptr<reply_channel>>> resumed;
  {
    std::lock_guard g(lock_);
    ch = std::move(get_stream_);
    resumed.swap(resumed_);
  }
  if (ch) ch->end_stream();
  for (auto& [stream, r] : resumed) r->end_stream();
}

std::size_t http_session::bytes() const {
  std::lock_guard g(lock_);
  return sizeof(*this) + id_.capacity() + principal_key_.capacity() + replay_bytes_ +
         replay_.size() * sizeof(event) + running_streams_.capacity() * sizeof(std::uint64_t) +
         cancelled_streams_.size() * sizeof(std::pair<std::uint64_t, jsonrpc::request_id>);
}

bool session_table::insert(std::shared_ptr<http_session> s) {
  std::lock_guard g(lock_);
  if (sessions_.size() >= max_sessions_) return false;
  std::string key = s->id();
  return sessions_.emplace(std::move(key), std::move(s)).second;
}

std::shared_ptr<http_session> session_table::find(const std::string& id) const {
  std::lock_guard g(lock_);
  auto it = sessions_.find(id);
  return it == sessions_.end() ? nullptr : it->second;
}

std::shared_ptr<http_session> session_table::remove(const std::string& id) {
  std::lock_guard g(lock_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return nullptr;
  auto s = std::move(it->second);
  sessions_.erase(it);
  return s;
}

std::vector<std::shared_ptr<http_session>> session_table::take_expired(
    std::chrono::nanoseconds timeout) {
  std::int64_t cutoff = table_now_ns() - timeout.count();
  std::vector<std::shared_ptr<http_session>> out;
  std::lock_guard g(lock_);
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    if (!it->second->active() && it->second->last_used_ns() <= cutoff) {
      out.push_back(std::move(it->second));
      it = sessions_.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

std::vector<std::shared_ptr<http_session>> session_table::take_all() {
  std::lock_guard g(lock_);
  std::vector<std::shared_ptr<http_session>> out;
  out.reserve(sessions_.size());
  for (auto& [id, s] : sessions_) out.push_back(std::move(s));
  sessions_.clear();
  return out;
}

std::size_t session_table::size() const {
  std::lock_guard g(lock_);
  return sessions_.size();
}

bool session_table::full() const {
  std::lock_guard g(lock_);
  return sessions_.size() >= max_sessions_;
}

std::size_t session_table::bytes() const {
  std::lock_guard g(lock_);
  std::size_t total = sessions_.bucket_count() * sizeof(void*);
  for (const auto& [id, s] : sessions_) {
    // Node: key string, shared_ptr, hash link; plus the control block of make_shared.
    total += id.capacity() + sizeof(std::string) + sizeof(s) + 2 * sizeof(void*) + 16;
    total += s->bytes();
  }
  return total;
}

}  // namespace mcpcxx::http
