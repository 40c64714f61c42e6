// The Redis request router (store/redis_stores.hpp): sessions attached here are found in a local
// map, as in the memory router; their route:<session> keys tell the other replicas where to
// PUBLISH, and a renewal thread keeps those keys alive.
#include <algorithm>
#include <array>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/guarded_callback.hpp"
#include "store/envelope.hpp"
#include "store/redis_stores.hpp"
#include "store/trouble.hpp"

namespace mcpcxx::detail {

namespace {

using guarded_inbox = guarded_callback<request_router::inbox>;

// KEYS[1] route key; ARGV: this replica, the channel prefix, the payload. -1: nobody holds the
// session; -2: the key names this replica (which no longer holds it); else PUBLISH's receivers.
constexpr const char* k_route_script = R"lua(
local holder = redis.call('GET', KEYS[1])
if not holder then return -1 end
if holder == ARGV[1] then return -2 end
return redis.call('PUBLISH', ARGV[2] .. holder, ARGV[3])
)lua";

// KEYS: route keys this replica holds; ARGV: this replica, the TTL in ms. A key another replica
// took (the session moved) is left alone; a lost one (Redis restarted) is written again.
constexpr const char* k_holder_renew_script = R"lua(
for _, key in ipairs(KEYS) do
  local holder = redis.call('GET', key)
  if not holder then
    redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
  elseif holder == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
  end
end
return 0
)lua";

// KEYS: route keys; ARGV: this replica. Deletes those that still name it.
constexpr const char* k_release_script = R"lua(
for _, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then redis.call('DEL', key) end
end
return 0
)lua";

constexpr std::size_t k_keys_per_script = 500;

class redis_router final : public request_router {
 public:
  redis_router(redis_scope scope, redis_router_options options)
      : scope_(std::move(scope)),
        options_(std::move(options)),
        key_prefix_(scope_.key_prefix + "route:"),
        channel_prefix_(scope_.key_prefix + "replica:"),
        broadcast_channel_(scope_.key_prefix + "sessions"),
        ttl_ms_(std::to_string(std::max<std::int64_t>(3, options_.holder_ttl.count()))),
        trouble_(options_.on_trouble, "request router") {
    subscriber_ = std::make_unique<redis::subscriber>(
        scope_.connection,
        [this](std::string_view channel, std::string_view payload) {
          if (channel == broadcast_channel_) {
            arrive_broadcast(payload);
          } else {
            arrive(payload);
          }
        },
        [this](bool up) { on_state(up); });
    subscriber_->subscribe(channel_prefix_ + scope_.replica_id);
    subscriber_->subscribe(broadcast_channel_);
    subscriber_->wait_subscribed(options_.subscribe_wait);
    try {
      renewer_ = std::thread([this] { renew_loop(); });
    } catch (...) {
      subscriber_->stop();
      throw;
    }
  }

  ~redis_router() override {
    subscriber_->stop();
    {
      std::lock_guard g(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    renewer_.join();
    run_batched(k_release_script, {scope_.replica_id}, attached_ids());
  }

  redis_router(const redis_router&) = delete;
  redis_router& operator=(const redis_router&) = delete;

  // attach() and detach() of one session hold its stripe across the local change and the Redis
  // write, so the key ends as the last of them left it; inboxes are closed after, unlocked (a
  // running inbox may attach or detach its own session).
  void attach(const std::string& session_id, inbox in) override {
    auto fresh = std::make_shared<guarded_inbox>(std::move(in));
    std::shared_ptr<guarded_inbox> old;
    {
      std::lock_guard order(stripe(session_id));
      {
        std::lock_guard g(mutex_);
        auto& slot = inboxes_[session_id];
        old = std::move(slot);
        slot = std::move(fresh);
      }
      run_quietly({"SET", key_prefix_ + session_id, scope_.replica_id, "PX", ttl_ms_});
    }
    if (old) old->close();
  }

  bool detach(const std::string& session_id) override {
    std::shared_ptr<guarded_inbox> old;
    {
      std::lock_guard order(stripe(session_id));
      {
        std::lock_guard g(mutex_);
        auto it = inboxes_.find(session_id);
        if (it == inboxes_.end()) return false;
        old = std::move(it->second);
        inboxes_.erase(it);
      }
      // After any renewal pass that still saw the session: that pass would write the key again.
      std::lock_guard pass(renew_pass_);
      run_batched(k_release_script, {scope_.replica_id}, {session_id});
    }
    old->close();
    return true;
  }

  bool route(const std::string& session_id, std::string message) override {
    if (deliver_here(session_id, message)) return true;
    try {
      const auto r = scope_.client->eval(
          k_route_script, {key_prefix_ + session_id},
          {scope_.replica_id, channel_prefix_, encode_routed(session_id, message)});
      trouble_.ok();
      return r.integer > 0;
    } catch (const std::exception& x) {
      trouble_.failed(x.what());
      return false;
    }
  }

  std::string origin() const override { return scope_.replica_id; }

  bool route_to(const std::string& origin, const std::string& session_id,
                std::string message) override {
    if (origin == scope_.replica_id) {
      deliver_here(session_id, message);
      return true;
    }
    return publish(channel_prefix_ + origin, encode_routed(session_id, message));
  }

  void broadcast(const std::string& session_id, std::string message) override {
    publish(broadcast_channel_,
            encode_routed(scope_.replica_id, encode_routed(session_id, message)));
  }

 private:
  // Redis trouble is reported, not thrown: the message is lost, as one routed to a replica that
  // died would be (its waiting request times out and says so).
  bool publish(const std::string& channel, const std::string& payload) {
    try {
      scope_.client->run({"PUBLISH", channel, payload});
      trouble_.ok();
      return true;
    } catch (const std::exception& x) {
      trouble_.failed(x.what());
      return false;
    }
  }

  // An inbox replaced (the session moved) between the lookup and the call refuses it: look
  // again, so a session attached throughout never misses a message.
  bool deliver_here(const std::string& session_id, const std::string& message) {
    for (std::shared_ptr<guarded_inbox> in = find(session_id); in; in = find(session_id)) {
      if (in->call(message)) return true;
    }
    return false;
  }

  std::mutex& stripe(const std::string& session_id) {
    return stripes_[std::hash<std::string>{}(session_id) % stripes_.size()];
  }

  std::shared_ptr<guarded_inbox> find(const std::string& session_id) {
    std::lock_guard g(mutex_);
    auto it = inboxes_.find(session_id);
    return it == inboxes_.end() ? nullptr : it->second;
  }

  std::vector<std::string> attached_ids() {
    std::lock_guard g(mutex_);
    std::vector<std::string> ids;
    ids.reserve(inboxes_.size());
    for (const auto& [id, in] : inboxes_) ids.push_back(id);
    return ids;
  }

  // A message another replica routed here; dropped when the session left meanwhile.
  void arrive(std::string_view payload) {
    auto routed = decode_routed(payload);
    if (!routed) {
      trouble_.report("an unreadable routed message arrived");
      return;
    }
    deliver_here(routed->first, routed->second);
  }

  // A broadcast: "<origin><routed message>" (encode_routed twice); this replica's own is skipped.
  void arrive_broadcast(std::string_view payload) {
    auto outer = decode_routed(payload);
    auto routed = outer ? decode_routed(outer->second) : std::nullopt;
    if (!routed) {
      trouble_.report("an unreadable broadcast message arrived");
      return;
    }
    if (outer->first != scope_.replica_id) deliver_here(routed->first, routed->second);
  }

  void on_state(bool up) {
    if (!up) {
      trouble_.failed("the SUBSCRIBE connection was lost; reconnecting");
      return;
    }
    trouble_.ok();
    {
      std::lock_guard g(mutex_);
      renew_now_ = true;  // Redis may have restarted empty: write the keys again at once
    }
    wake_.notify_all();
  }

  void renew_loop() {
    const auto period = std::max(std::chrono::milliseconds(1), options_.holder_ttl / 3);
    std::unique_lock g(mutex_);
    while (!stopping_) {
      wake_.wait_for(g, period, [this] { return stopping_ || renew_now_; });
      if (stopping_) return;
      renew_now_ = false;
      g.unlock();
      {
        // The snapshot and the scripts as one pass: detach() waits for it (see detach()).
        std::lock_guard pass(renew_pass_);
        run_batched(k_holder_renew_script, {scope_.replica_id, ttl_ms_}, attached_ids());
      }
      g.lock();
    }
  }

  // Runs `script` over the route keys of `ids`, k_keys_per_script at a time; Redis trouble is
  // reported, not thrown (the keys expire by themselves, and renewal writes them again).
  void run_batched(const char* script, const std::vector<std::string>& args,
                   const std::vector<std::string>& ids) {
    for (std::size_t at = 0; at < ids.size(); at += k_keys_per_script) {
      std::vector<std::string> keys;
      const std::size_t end = std::min(ids.size(), at + k_keys_per_script);
      for (std::size_t i = at; i < end; ++i) keys.push_back(key_prefix_ + ids[i]);
      try {
        scope_.client->eval(script, keys, args);
        trouble_.ok();
      } catch (const std::exception& x) {
        trouble_.failed(x.what());
        return;
      }
    }
  }

  void run_quietly(const redis::command& c) {
    try {
      scope_.client->run(c);
      trouble_.ok();
    } catch (const std::exception& x) {
      trouble_.failed(x.what());
    }
  }

  redis_scope scope_;
  redis_router_options options_;
  const std::string key_prefix_;
  const std::string channel_prefix_;
  const std::string broadcast_channel_;
  const std::string ttl_ms_;
  trouble_reporter trouble_;
  std::array<std::mutex, 32> stripes_;  // see attach()
  std::mutex mutex_;
  std::mutex renew_pass_;  // one renewal pass at a time, and no release during one
  std::condition_variable wake_;
  std::unordered_map<std::string, std::shared_ptr<guarded_inbox>> inboxes_;
  bool stopping_ = false;
  bool renew_now_ = false;
  std::unique_ptr<redis::subscriber> subscriber_;
  std::thread renewer_;
};

}  // namespace

std::unique_ptr<request_router> make_redis_request_router(redis_scope scope,
                                                          redis_router_options options) {
  return std::make_unique<redis_router>(std::move(scope), std::move(options));
}

}  // namespace mcpcxx::detail
