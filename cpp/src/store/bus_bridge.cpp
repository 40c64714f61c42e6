// The Redis bus bridge (store/redis_stores.hpp): local events go out through one sender thread,
// remote ones come in through a SUBSCRIBE connection and are published on the local bus.
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "store/envelope.hpp"
#include "store/redis_stores.hpp"
#include "store/trouble.hpp"

namespace mcpcxx::detail {

namespace {

// The event this thread is publishing on the local bus because it came from Redis: the forwarder
// sees that very object (the local bus hands every handler the reference it was given) and does
// not send it back. A handler publishing a new event meanwhile gets it forwarded as usual.
thread_local const change_event* t_arriving = nullptr;

constexpr std::size_t k_batch = 256;  // PUBLISH commands per pipeline

class redis_bus_bridge final : public bus_bridge {
 public:
  redis_bus_bridge(notification_bus& local, redis_scope scope, bus_bridge_options options)
      : local_(local),
        scope_(std::move(scope)),
        options_(std::move(options)),
        channel_(scope_.key_prefix + "bus"),
        origin_(scope_.replica_id + "/" + random_hex(8)),
        trouble_(options_.on_trouble, "notification bus") {
    subscriber_ = std::make_unique<redis::subscriber>(
        scope_.connection, [this](std::string_view, std::string_view payload) { arrive(payload); },
        [this](bool up) { on_state(up); });
    subscriber_->subscribe(channel_);
    subscriber_->wait_subscribed(options_.subscribe_wait);
    try {
      for (std::size_t k = 0; k < k_change_kind_count; ++k) {
        forwarders_.push_back(local_.subscribe(static_cast<change_kind>(k),
                                               [this](const change_event& e) { forward(e); }));
      }
      sender_ = std::thread([this] { send_loop(); });
    } catch (...) {
      detach();  // the destructor will not run
      throw;
    }
  }

  ~redis_bus_bridge() override {
    detach();
    {
      std::lock_guard g(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (sender_.joinable()) sender_.join();
  }

  redis_bus_bridge(const redis_bus_bridge&) = delete;
  redis_bus_bridge& operator=(const redis_bus_bridge&) = delete;

  bool connected() const noexcept override { return connected_.load(); }
  std::uint64_t lost() const noexcept override { return lost_.load(); }

 private:
  void detach() {
    for (const auto id : forwarders_) local_.unsubscribe(id);
    subscriber_->stop();
  }

  void forward(const change_event& e) {
    if (&e == t_arriving) return;
    std::string message = encode_event(origin_, e);
    {
      std::lock_guard g(mutex_);
      if (queue_.size() >= options_.max_queued) {
        lost_.fetch_add(1);
        return;
      }
      queue_.push_back(std::move(message));
    }
    wake_.notify_one();
  }

  // One thread sends, in queue order: events one thread published reach Redis in that order.
  void send_loop() {
    for (;;) {
      std::vector<std::string> batch;
      {
        std::unique_lock g(mutex_);
        wake_.wait(g, [this] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping, everything sent
        if (stopping_ && failed_) {  // Redis is down: shutting down does not wait for it
          lost_.fetch_add(queue_.size());
          return;
        }
        while (!queue_.empty() && batch.size() < k_batch) {
          batch.push_back(std::move(queue_.front()));
          queue_.pop_front();
        }
      }
      send(batch);
    }
  }

  void send(std::vector<std::string>& batch) {
    std::vector<redis::command> commands;
    commands.reserve(batch.size());
    for (auto& m : batch) commands.push_back({"PUBLISH", channel_, std::move(m)});
    try {
      scope_.client->pipeline(commands);
      failed_ = false;
      trouble_.ok();
    } catch (const std::exception& x) {
      // Not sent again: Redis may have published part of the batch, and a resend could deliver
      // an event twice; other replicas miss these events as they miss any sent while down.
      lost_.fetch_add(batch.size());
      failed_ = true;
      trouble_.failed(x.what());
    }
  }

  void arrive(std::string_view message) {
    std::optional<decoded_event> d;
    try {
      d = decode_event(message);
    } catch (const std::exception& x) {
      trouble_.report(std::string("an unreadable event arrived: ") + x.what());
      return;
    }
    if (!d || d->origin == origin_) return;  // another version's kind, or our own echo
    d->event.from_other_replica = true;
    const change_event* outer = t_arriving;
    t_arriving = &d->event;
    local_.publish(d->event);
    t_arriving = outer;
  }

  void on_state(bool up) {
    connected_.store(up);
    if (up) {
      trouble_.ok();
    } else {
      trouble_.failed("the SUBSCRIBE connection was lost; reconnecting");
    }
  }

  notification_bus& local_;
  redis_scope scope_;
  bus_bridge_options options_;
  const std::string channel_;
  const std::string origin_;  // this bridge among every publisher on the channel
  trouble_reporter trouble_;
  std::atomic<bool> connected_{false};
  std::atomic<std::uint64_t> lost_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::string> queue_;
  bool stopping_ = false;
  bool failed_ = false;  // the last send failed (the sender thread alone uses it)
  std::thread sender_;
  std::unique_ptr<redis::subscriber> subscriber_;
  std::vector<notification_bus::subscription> forwarders_;
};

// A memory bus and its bridge as one bus (the bridge is destroyed first).
class bridged_bus final : public notification_bus {
 public:
  bridged_bus(redis_scope scope, bus_error_callback on_error, bus_bridge_options options)
      : local_(make_memory_notification_bus(std::move(on_error))),
        bridge_(make_redis_bus_bridge(*local_, std::move(scope), std::move(options))) {}

  void publish(const change_event& e) override { local_->publish(e); }
  subscription subscribe(change_kind kind, handler h, interest wants) override {
    return local_->subscribe(kind, std::move(h), std::move(wants));
  }
  bool unsubscribe(subscription s) override { return local_->unsubscribe(s); }
  bool wanted(change_kind kind, std::string_view subject) const override {
    return local_->wanted(kind, subject);
  }

 private:
  std::unique_ptr<notification_bus> local_;
  std::unique_ptr<bus_bridge> bridge_;
};

}  // namespace

std::unique_ptr<bus_bridge> make_redis_bus_bridge(notification_bus& local, redis_scope scope,
                                                  bus_bridge_options options) {
  return std::make_unique<redis_bus_bridge>(local, std::move(scope), std::move(options));
}

std::unique_ptr<notification_bus> make_redis_notification_bus(redis_scope scope,
                                                              bus_error_callback on_error,
                                                              bus_bridge_options options) {
  return std::make_unique<bridged_bus>(std::move(scope), std::move(on_error), std::move(options));
}

}  // namespace mcpcxx::detail
