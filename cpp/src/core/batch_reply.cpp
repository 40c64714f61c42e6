// The 2025-03-26 batch reply (see batch_reply.hpp for what a cancelled member leaves).
#include "core/batch_reply.hpp"

#include "core/server_core.hpp"
#include "core/session_state.hpp"
#include "wire/situation.hpp"

namespace mcpcxx::detail {

batch_reply::batch_reply(std::shared_ptr<session_state> session, std::shared_ptr<frame_sink> target,
                         std::size_t members, std::size_t max_bytes)
    : session_(std::move(session)),
      target_(std::move(target)),
      stream_(dynamic_cast<batch_stream_sink*>(target_.get())),
      remaining_(members),
      max_bytes_(max_bytes) {}

void batch_reply::add(std::string frame, const std::optional<jsonrpc::request_id>& id) {
  settle(&frame, id);
}

void batch_reply::skip() { settle(nullptr, std::nullopt); }

void batch_reply::bound_locked(std::string& frame, const std::optional<jsonrpc::request_id>& id) {
  if (bytes_ + frame.size() + 1 > max_bytes_) {
    const auto row = wire::situation::P29_batch_reply_too_large;
    const auto error = wire::render(row, {{"limit", max_bytes_}});
    frame = jsonrpc::serialize_error(id, error);
    session_->core().count(outcome_class::protocol_error, "batch_reply_too_large");
  }
  bytes_ += frame.size() + 1;
  replied_ = true;
}

// Held under mutex_ so one batch's member writes and its end reach the sink in order.
void batch_reply::stream_locked(std::string* frame) {
  const bool last = remaining_ != 0 && --remaining_ == 0;
  try {
    if (frame != nullptr) stream_->send_member(std::move(*frame), {frame_kind::response});
    if (last) stream_->end_batch(replied_);
  } catch (const std::exception& e) {
    session_->core().log().write("error", "sink_failed", {{"what", e.what()}});
  }
}

void batch_reply::settle(std::string* frame, const std::optional<jsonrpc::request_id>& id) {
  std::vector<std::string> pieces;
  {
    std::lock_guard lock(mutex_);
    if (frame != nullptr) bound_locked(*frame, id);
    if (stream_ != nullptr) return stream_locked(frame);
    if (frame != nullptr) {
      pieces_.emplace_back(pieces_.empty() ? "[" : ",");
      pieces_.push_back(std::move(*frame));
    }
    if (remaining_ == 0 || --remaining_ != 0 || pieces_.empty()) return;
    pieces_.emplace_back("]");
    pieces.swap(pieces_);
  }
  session_->send_pieces(target_, std::move(pieces), {frame_kind::response});
}

}  // namespace mcpcxx::detail
