// The single-process request router: a map from session id to its guarded inbox.
#include "core/request_router.hpp"

#include <mutex>
#include <unordered_map>

#include "core/guarded_callback.hpp"

namespace mcpcxx::detail {

namespace {

using guarded_inbox = guarded_callback<request_router::inbox>;

class memory_router final : public request_router {
 public:
  void attach(const std::string& session_id, inbox in) override {
    auto fresh = std::make_shared<guarded_inbox>(std::move(in));
    std::shared_ptr<guarded_inbox> old;
    {
      std::lock_guard g(mutex_);
      auto& slot = inboxes_[session_id];
      old = std::move(slot);
      slot = std::move(fresh);
    }
    if (old) old->close();
  }

  bool detach(const std::string& session_id) override {
    std::shared_ptr<guarded_inbox> old;
    {
      std::lock_guard g(mutex_);
      auto it = inboxes_.find(session_id);
      if (it == inboxes_.end()) return false;
      old = std::move(it->second);
      inboxes_.erase(it);
    }
    old->close();
    return true;
  }

  bool route(const std::string& session_id, std::string message) override {
    return deliver_here(session_id, message);
  }

  // One process: the only origin is this one (named by the empty string).
  bool route_to(const std::string& origin, const std::string& session_id,
                std::string message) override {
    if (!origin.empty()) return false;
    deliver_here(session_id, message);
    return true;
  }

  void broadcast(const std::string& /*session_id*/, std::string /*message*/) override {}

 private:
  bool deliver_here(const std::string& session_id, const std::string& message) {
    // An inbox replaced (the session moved) between the lookup and the call refuses it: look
    // again, so a session attached throughout never misses a message.
    for (std::shared_ptr<guarded_inbox> in = find(session_id); in; in = find(session_id)) {
      if (in->call(message)) return true;
    }
    return false;
  }

  std::shared_ptr<guarded_inbox> find(const std::string& session_id) {
    std::lock_guard g(mutex_);
    auto it = inboxes_.find(session_id);
    return it == inboxes_.end() ? nullptr : it->second;
  }

  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<guarded_inbox>> inboxes_;
};

}  // namespace

std::unique_ptr<request_router> make_memory_request_router() {
  return std::make_unique<memory_router>();
}

}  // namespace mcpcxx::detail
