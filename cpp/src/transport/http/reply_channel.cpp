#include "transport/http/reply_channel.hpp"

namespace mcpcxx::http {

reply_channel::reply_channel(std::shared_ptr<reply_target> target, std::uint64_t request_no,
                             bool keep_alive)
    : target_(std::move(target)), request_no_(request_no), keep_alive_(keep_alive) {}

void reply_channel::send(const response& r) {
  std::shared_ptr<reply_target> t;
  std::function<void()> ended;
  {
    std::lock_guard g(lock_);
    if (final_ || streaming_) return;
    final_ = true;
    t = std::move(target_);
    on_disconnect_ = nullptr;
    ended = std::move(on_end_);
  }
  if (t) t->deliver(request_no_, serialize(r, keep_alive_), delivery::final, keep_alive_);
  if (ended) ended();
}

void reply_channel::open_stream(int status, const response_headers& headers) {
  std::lock_guard g(lock_);
  if (final_ || streaming_ || !target_) return;
  streaming_ = true;
  target_->deliver(request_no_, serialize_stream_head(status, headers, "text/event-stream"),
                   delivery::head_of_stream, keep_alive_);
}

void reply_channel::write(std::string_view event_text) {
  std::lock_guard g(lock_);
  if (final_ || !streaming_ || closed_ || !target_ || event_text.empty()) return;
  target_->deliver(request_no_, chunk(event_text), delivery::data, keep_alive_);
}

void reply_channel::end_stream() {
  std::shared_ptr<reply_target> t;
  std::function<void()> ended;
  {
    std::lock_guard g(lock_);
    if (final_ || !streaming_) return;
    final_ = true;
    t = std::move(target_);
    on_disconnect_ = nullptr;
    ended = std::move(on_end_);
  }
  if (t) t->deliver(request_no_, std::string(last_chunk()), delivery::final, keep_alive_);
  if (ended) ended();
}

void reply_channel::on_end(std::function<void()> fn) {
  {
    std::lock_guard g(lock_);
    if (!final_ && !closed_) {
      on_end_ = std::move(fn);
      return;
    }
  }
  if (fn) fn();
}

void reply_channel::on_disconnect(std::function<void()> fn) {
  {
    std::lock_guard g(lock_);
    if (final_) return;
    if (!closed_) {
      on_disconnect_ = std::move(fn);
      return;
    }
  }
  // The peer left before the reply completed: run it now, outside the lock.
  if (fn) fn();
}

void reply_channel::disconnected() {
  std::function<void()> fn;
  std::function<void()> ended;
  {
    std::lock_guard g(lock_);
    if (closed_) return;
    closed_ = true;
    target_.reset();
    if (!final_) fn = std::move(on_disconnect_);
    on_disconnect_ = nullptr;
    ended = std::move(on_end_);
  }
  if (fn) fn();
  if (ended) ended();
}

bool reply_channel::closed() const {
  std::lock_guard g(lock_);
  return closed_;
}

bool reply_channel::finished() const {
  std::lock_guard g(lock_);
  return final_;
}

std::size_t reply_channel::unwritten_bytes() const {
  std::shared_ptr<reply_target> t;
  {
    std::lock_guard g(lock_);
    t = target_;
  }
  return t ? t->unwritten_bytes() : 0;
}

}  // namespace mcpcxx::http
