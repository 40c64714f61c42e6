// http::stream_follower: serves resumed POST streams whose request runs on another replica. A
// client that lost such a stream resumes it with Last-Event-ID on whichever replica the balancer
// picks; that replica replays what the shared event store kept, and from then on this follower
// polls the store for the events the running replica appends and sends them, until the stream
// ends there (http_session::follow_stream).
// Thread-safety: follow(), has_room(), size() and stop() may be called from any thread; one
// thread of its own (started by the first follow()) writes to the followed channels.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "transport/http/event_store.hpp"
#include "transport/http/reply_channel.hpp"

namespace mcpcxx::http {

class http_session;

/// How a stream_follower behaves.
struct follower_options {
  /// How often each followed stream is read from the store (two round trips each time).
  std::chrono::milliseconds period{50};
  /// A followed stream that got no event for this long is ended with a comment that says to
  /// resume again (its replica may have died: nothing would ever end it).
  std::chrono::milliseconds idle_limit{60000};
  /// Streams followed at once at most; beyond it a resume ends after the replay, as before.
  std::size_t max_followed = 256;
};

/// Follows resumed streams (see the file comment).
class stream_follower {
 public:
  explicit stream_follower(follower_options options = {});
  ~stream_follower();  ///< stop()
  stream_follower(const stream_follower&) = delete;
  stream_follower& operator=(const stream_follower&) = delete;

  /// True while fewer than max_followed streams are followed.
  bool has_room() const;
  /// Follows `ch` of session `s` (resume_stream() returned follow) from event `after`.
  void follow(const std::shared_ptr<http_session>& s, event_position after,
              const std::shared_ptr<reply_channel>& ch);
  /// Streams followed now.
  std::size_t size() const;
  /// Ends every followed stream with a comment to resume again, and the thread. Idempotent;
  /// later follow() calls end their stream at once.
  void stop();

 private:
  struct followed {
    std::weak_ptr<http_session> session;
    event_position after;
    std::shared_ptr<reply_channel> channel;
    std::chrono::steady_clock::time_point last_event;
  };
  void run();
  bool step(followed& f, std::chrono::steady_clock::time_point now);

  const follower_options options_;
  mutable std::mutex lock_;
  std::condition_variable wake_;
  std::vector<followed> streams_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace mcpcxx::http
