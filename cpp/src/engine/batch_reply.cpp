// The 2025-03-26 batch reply (see batch_reply.hpp for what a cancelled member leaves).
#include "engine/batch_reply.hpp"

#include "engine/session_state.hpp"

namespace mcpcxx::detail {

batch_reply::batch_reply(std::shared_ptr<session_state> session, std::shared_ptr<frame_sink> target,
                         std::size_t members)
    : session_(std::move(session)), target_(std::move(target)), remaining_(members) {}

void batch_reply::add(std::string frame) { settle(&frame); }

void batch_reply::skip() { settle(nullptr); }

void batch_reply::settle(std::string* frame) {
  std::string batch;
  {
    std::lock_guard lock(mutex_);
    if (frame != nullptr) replies_.push_back(std::move(*frame));
    if (remaining_ == 0 || --remaining_ != 0 || replies_.empty()) return;
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
  session_->send(target_, std::move(batch), {frame_kind::response});
}

}  // namespace mcpcxx::detail
