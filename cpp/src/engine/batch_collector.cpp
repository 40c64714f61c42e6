// The 2025-03-26 batch reply collector.
#include <mutex>

#include "engine/era.hpp"
#include "engine/session_state.hpp"

namespace mcpcxx::detail {

namespace {

// Requests and invalid members each produce one reply; notifications produce none.
std::size_t expected_replies(const std::vector<jsonrpc::message>& parts) {
  std::size_t n = 0;
  for (const auto& p : parts) {
    if (p.kind != jsonrpc::message_kind::notification && p.kind != jsonrpc::message_kind::response) {
      ++n;
    }
  }
  return n;
}

class batch_collector final : public frame_sink {
 public:
  batch_collector(std::shared_ptr<session_state> session, std::shared_ptr<frame_sink> target,
                  std::size_t expected)
      : session_(std::move(session)), target_(std::move(target)), expected_(expected) {}

  void send(std::string frame, frame_kind kind) override {
    if (kind == frame_kind::notification) {
      session_->send(target_, std::move(frame), kind);
      return;
    }
    std::string batch;
    {
      std::lock_guard lock(mutex_);
      replies_.push_back(std::move(frame));
      if (replies_.size() < expected_) return;
      std::size_t total = 2 + replies_.size();
      for (const auto& r : replies_) total += r.size();
      batch.reserve(total);
      batch.push_back('[');
      for (std::size_t i = 0; i < replies_.size(); ++i) {
        if (i != 0) batch.push_back(',');
        batch.append(replies_[i]);
      }
      batch.push_back(']');
    }
    session_->send(target_, std::move(batch), frame_kind::response);
  }

 private:
  std::shared_ptr<session_state> session_;
  std::shared_ptr<frame_sink> target_;
  std::size_t expected_;
  std::mutex mutex_;
  std::vector<std::string> replies_;
};

}  // namespace

std::shared_ptr<frame_sink> make_batch_collector(std::shared_ptr<session_state> session,
                                                 std::shared_ptr<frame_sink> target,
                                                 const std::vector<jsonrpc::message>& parts) {
  return std::make_shared<batch_collector>(std::move(session), std::move(target),
                                           expected_replies(parts));
}

}  // namespace mcpcxx::detail
