#include "transport/http/memory_event_store.hpp"

#include <algorithm>
#include <deque>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "transport/http/wire.hpp"

namespace mcpcxx::http {

struct memory_event_store::index {
  std::mutex lock;
  std::unordered_map<std::string, std::weak_ptr<session_events>> live;
};

namespace {

// One session's replay buffer, stream counters and cancel markers.
class memory_session_events final : public session_events {
 public:
  memory_session_events(std::string session_id, std::size_t capacity,
                        std::weak_ptr<memory_event_store::index> index)
      : session_id_(std::move(session_id)), capacity_(capacity), index_(std::move(index)) {}
  ~memory_session_events() override;
  memory_session_events(const memory_session_events&) = delete;
  memory_session_events& operator=(const memory_session_events&) = delete;

  std::uint64_t open_stream() override {
    std::lock_guard g(lock_);
    running_.push_back(next_stream_);
    return next_stream_++;
  }
  std::string append(std::uint64_t stream, std::string_view frame) override {
    std::lock_guard g(lock_);
    return append_locked(stream, frame, false);
  }
  std::string append_priming(std::uint64_t stream) override {
    std::lock_guard g(lock_);
    return append_locked(stream, {}, true);
  }
  void replay(event_position after, const event_visitor& visit) const override;
  bool issued(event_position p) const override;
  void finish(std::uint64_t stream) override {
    std::lock_guard g(lock_);
    std::erase(running_, stream);
  }
  void cancel(std::uint64_t stream, const jsonrpc::request_id& id) override;
  stream_state state(std::uint64_t stream) const override;
  std::size_t bytes() const override;

 private:
  struct event {
    std::uint64_t stream;
    std::uint64_t seq;
    std::string text;
  };
  const std::string session_id_;
  const std::size_t capacity_;
  const std::weak_ptr<memory_event_store::index> index_;
  mutable std::mutex lock_;
  std::deque<event> replay_;
  std::size_t replay_bytes_ = 0;
  std::uint64_t next_seq_ = 1;
  std::uint64_t next_stream_ = 1;
  std::vector<std::uint64_t> running_;
  // Cancelled streams still worth answering on resumption (bounded like the replay buffer).
  std::deque<std::pair<std::uint64_t, jsonrpc::request_id>> cancelled_;

  std::string append_locked(std::uint64_t stream, std::string_view frame, bool priming);
};

memory_session_events::~memory_session_events() {
  // Unlists this record unless the id was forgotten and opened again meanwhile (a live entry).
  if (auto idx = index_.lock()) {
    std::lock_guard g(idx->lock);
    auto it = idx->live.find(session_id_);
    if (it != idx->live.end() && it->second.expired()) idx->live.erase(it);
  }
}

std::string memory_session_events::append_locked(std::uint64_t stream, std::string_view frame,
                                                 bool priming) {
  std::uint64_t seq = next_seq_++;
  std::string id = format_event_id({stream, seq});
  std::string text = priming ? "id: " + id + "\ndata: \n\n" : sse_event(id, frame);
  if (capacity_ > 0) {
    replay_.push_back({stream, seq, text});
    replay_bytes_ += text.size();
    while (replay_.size() > capacity_) {
      replay_bytes_ -= replay_.front().text.size();
      replay_.pop_front();
    }
  }
  return text;
}

void memory_session_events::replay(event_position after, const event_visitor& visit) const {
  std::lock_guard g(lock_);
  for (const auto& e : replay_) {
    if (e.stream == after.stream && e.seq > after.seq) visit(e.text);
  }
}

bool memory_session_events::issued(event_position p) const {
  std::lock_guard g(lock_);
  if (p.seq == 0 || p.seq >= next_seq_ || p.stream >= next_stream_) return false;
  if (replay_.empty() || p.seq < replay_.front().seq) return true;
  // Sequence numbers are contiguous in the buffer: the event is at a known offset.
  return replay_[p.seq - replay_.front().seq].stream == p.stream;
}

void memory_session_events::cancel(std::uint64_t stream, const jsonrpc::request_id& id) {
  std::lock_guard g(lock_);
  cancelled_.emplace_back(stream, id);
  // Only streams still represented in the replay buffer need remembering.
  if (cancelled_.size() > capacity_ + 1) cancelled_.pop_front();
  std::erase(running_, stream);
}

stream_state memory_session_events::state(std::uint64_t stream) const {
  std::lock_guard g(lock_);
  if (std::find(running_.begin(), running_.end(), stream) != running_.end()) {
    return {stream_state::phase::running, {}};
  }
  auto c = std::find_if(cancelled_.begin(), cancelled_.end(),
                        [&](const auto& e) { return e.first == stream; });
  if (c != cancelled_.end()) return {stream_state::phase::cancelled, c->second};
  return {};
}

std::size_t memory_session_events::bytes() const {
  std::lock_guard g(lock_);
  return sizeof(*this) + session_id_.capacity() + replay_bytes_ + replay_.size() * sizeof(event) +
         running_.capacity() * sizeof(std::uint64_t) +
         cancelled_.size() * sizeof(std::pair<std::uint64_t, jsonrpc::request_id>);
}

}  // namespace

memory_event_store::memory_event_store(std::size_t replay_capacity)
    : replay_capacity_(replay_capacity), index_(std::make_shared<index>()) {}

memory_event_store::~memory_event_store() = default;

std::shared_ptr<session_events> memory_event_store::open(const std::string& session_id) {
  std::lock_guard g(index_->lock);
  auto& slot = index_->live[session_id];
  if (auto existing = slot.lock()) return existing;
  auto fresh = std::make_shared<memory_session_events>(session_id, replay_capacity_, index_);
  slot = fresh;
  return fresh;
}

void memory_event_store::forget(const std::string& session_id) {
  std::lock_guard g(index_->lock);
  index_->live.erase(session_id);
}

std::size_t memory_event_store::sessions() const {
  std::lock_guard g(index_->lock);
  return static_cast<std::size_t>(std::count_if(index_->live.begin(), index_->live.end(),
                                                [](const auto& e) { return !e.second.expired(); }));
}

std::size_t memory_event_store::bytes() const {
  // The records are summed outside the index lock: the last handle of one may go meanwhile,
  // and its destructor takes that lock.
  std::vector<std::shared_ptr<session_events>> held;
  std::size_t total = 0;
  {
    std::lock_guard g(index_->lock);
    total += index_->live.bucket_count() * sizeof(void*);
    for (const auto& [id, weak] : index_->live) {
      total += id.capacity() + sizeof(std::string) + sizeof(weak) + 2 * sizeof(void*);
      if (auto e = weak.lock()) held.push_back(std::move(e));
    }
  }
  for (const auto& e : held) total += e->bytes();
  return total;
}

}  // namespace mcpcxx::http
