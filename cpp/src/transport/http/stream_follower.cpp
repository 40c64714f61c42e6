#include "transport/http/stream_follower.hpp"

#include <string>

#include "core/store_unavailable.hpp"
#include "transport/http/session_table.hpp"

namespace mcpcxx::http {

namespace {

void end_with(const std::shared_ptr<reply_channel>& ch, const std::string& comment) {
  ch->write(comment);
  ch->end_stream();
}

}  // namespace

stream_follower::stream_follower(follower_options options) : options_(options) {}

stream_follower::~stream_follower() { stop(); }

bool stream_follower::has_room() const {
  std::lock_guard g(lock_);
  return !stopping_ && streams_.size() < options_.max_followed;
}

std::size_t stream_follower::size() const {
  std::lock_guard g(lock_);
  return streams_.size();
}

void stream_follower::follow(const std::shared_ptr<http_session>& s, event_position after,
                             const std::shared_ptr<reply_channel>& ch) {
  {
    std::lock_guard g(lock_);
    if (!stopping_) {
      streams_.push_back({s, after, ch, std::chrono::steady_clock::now()});
      if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
      return;
    }
  }
  s->detach(ch.get());
  end_with(ch, ": the server is stopping; resume again with the last event id received\n\n");
}

void stream_follower::stop() {
  std::vector<followed> left;
  {
    std::lock_guard g(lock_);
    stopping_ = true;
    left.swap(streams_);
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  for (auto& f : left) {
    if (auto s = f.session.lock()) s->detach(f.channel.get());
    end_with(f.channel,
             ": the server is stopping; resume again with the last event id received\n\n");
  }
}

void stream_follower::run() {
  std::unique_lock g(lock_);
  while (!stopping_) {
    wake_.wait_for(g, options_.period, [this] { return stopping_; });
    if (stopping_) return;
    // Stepped unlocked (store round trips); follow() may append meanwhile, nothing else removes.
    std::vector<followed> batch;
    batch.swap(streams_);
    g.unlock();
    const auto now = std::chrono::steady_clock::now();
    std::vector<followed> kept;
    for (auto& f : batch) {
      if (step(f, now)) kept.push_back(std::move(f));
    }
    g.lock();
    if (stopping_) {
      // stop() has taken what was listed; what this step kept is ended the same way here.
      g.unlock();
      for (auto& f : kept) {
        if (auto s = f.session.lock()) s->detach(f.channel.get());
        end_with(f.channel,
                 ": the server is stopping; resume again with the last event id received\n\n");
      }
      return;
    }
    streams_.insert(streams_.end(), std::make_move_iterator(kept.begin()),
                    std::make_move_iterator(kept.end()));
  }
}

// One poll of `f`; false when it is done with (ended, or its client or session went away).
bool stream_follower::step(followed& f, std::chrono::steady_clock::time_point now) {
  auto s = f.session.lock();
  if (!s) {
    end_with(f.channel, ": the session ended\n\n");
    return false;
  }
  const event_position before = f.after;
  try {
    if (!s->follow_stream(f.after, f.channel)) return false;
  } catch (const detail::store_unavailable&) {
    s->detach(f.channel.get());
    end_with(f.channel,
             ": the event store did not answer; resume again with the same Last-Event-ID\n\n");
    return false;
  }
  if (f.after.seq != before.seq) f.last_event = now;
  if (now - f.last_event < options_.idle_limit) return true;
  s->detach(f.channel.get());
  end_with(f.channel, ": no event for " + std::to_string(options_.idle_limit.count() / 1000) +
                          " s from the replica running this request; resume again with the "
                          "last event id received\n\n");
  return false;
}

}  // namespace mcpcxx::http
