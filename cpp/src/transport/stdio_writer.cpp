// The stdio frame writer: a FIFO drained by a single chain of gather writes.
#include "transport/stdio_writer.hpp"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <sys/uio.h>
#include <thread>
#include <unistd.h>

#include <asio/post.hpp>
#include <asio/write.hpp>

namespace mcpcxx::stdio_detail {

namespace {

constexpr std::size_t k_max_batch = 64;
constexpr char k_newline[] = "\n";

// A raw newline would split the frame; outside JSON strings it is plain whitespace.
void no_raw_newline(std::string& frame) {
  if (frame.find('\n') != std::string::npos) {
    std::replace(frame.begin(), frame.end(), '\n', ' ');
  }
}

std::size_t entry_bytes(const std::string& frame, const std::vector<std::string>& pieces) {
  std::size_t n = frame.size() + 1;
  for (const auto& p : pieces) n += p.size();
  return n;
}

int duplicate(int fd) {
  const int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  if (copy < 0) throw std::system_error(errno, std::generic_category(), "stdio: dup of output fd");
  return copy;
}

}  // namespace

frame_writer::frame_writer(asio::io_context& io, int fd)
    : io_(io), out_(std::make_unique<asio::posix::stream_descriptor>(io)) {
  const int copy = duplicate(fd);
  std::error_code ec;
  out_->assign(copy, ec);
  if (ec) {
    ::close(copy);
    throw std::system_error(ec, "stdio: cannot use the output fd");
  }
  // Direct writes from send() must never block (asio would set this at its first write anyway;
  // serve_fds restores the descriptor's flags on return).
  out_->native_non_blocking(true, ec);
  if (ec) throw std::system_error(ec, "stdio: cannot make the output fd non-blocking");
}

void frame_writer::send(std::string frame) {
  no_raw_newline(frame);
  std::lock_guard lock(mutex_);
  if (closed_ || error_) return;
  const bool holding = held_ && holder_ == std::this_thread::get_id();
  if (!writing_ && !holding && queue_.empty()) {
    // Nothing is queued or being written, so this frame is next in order: write it from this
    // thread instead of waking the io thread. What the pipe does not take now (EAGAIN, a partial
    // write, or an error the write chain will report) goes through the queue as before.
    const std::size_t done = write_now(frame);
    if (done == frame.size() + 1) {
      ++frames_written_;
      return;
    }
    frame.erase(0, done);
  }
  const std::size_t bytes = frame.size() + 1;
  queue_.push_back(entry{std::move(frame), {}});
  queued_bytes_ += bytes;
  if (holding || writing_) return;
  // Frames held by the reader are ahead of this one: another thread (a worker, the deadline
  // thread) writes them all now rather than waiting for the reader, which may be busy.
  write_queued_now();
  if (!queue_.empty()) start_chain();
}

std::size_t frame_writer::write_now(const std::string& frame) {
  iovec parts[2] = {{const_cast<char*>(frame.data()), frame.size()},
                    {const_cast<char*>(k_newline), 1}};
  for (;;) {
    const ssize_t n = ::writev(out_->native_handle(), parts, 2);
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno != EINTR) return 0;
  }
}

void frame_writer::hold() {
  std::lock_guard lock(mutex_);
  held_ = true;
  holder_ = std::this_thread::get_id();
}

void frame_writer::release_held() {
  std::lock_guard lock(mutex_);
  held_ = false;
  if (closed_ || error_ || writing_ || queue_.empty()) return;
  write_queued_now();
  if (!queue_.empty()) start_chain();
}

// One non-blocking writev of the plain frames at the front of the queue; drops what was written
// and trims a partly written frame, so the chain continues exactly where the pipe stopped.
void frame_writer::write_queued_now() {
  iovec parts[2 * k_max_batch];
  std::size_t n = 0;
  for (auto it = queue_.begin(); it != queue_.end() && n < 2 * k_max_batch; ++it) {
    if (!it->pieces.empty()) break;  // batch replies: left to the chain
    parts[n++] = {const_cast<char*>(it->frame.data()), it->frame.size()};
    parts[n++] = {const_cast<char*>(k_newline), 1};
  }
  if (n == 0) return;
  ssize_t written = -1;
  do {
    written = ::writev(out_->native_handle(), parts, static_cast<int>(n));
  } while (written < 0 && errno == EINTR);
  if (written <= 0) return;  // EAGAIN or an error: the chain writes (and reports) it
  auto left = static_cast<std::size_t>(written);
  while (left > 0) {
    entry& front = queue_.front();
    const std::size_t size = front.frame.size() + 1;
    if (left < size) {
      front.frame.erase(0, left);  // left == frame size: only the newline remains
      queued_bytes_ -= left;
      break;
    }
    left -= size;
    queued_bytes_ -= size;
    ++frames_written_;
    queue_.pop_front();
  }
  resume_if_drained();
}

void frame_writer::start_chain() {
  if (writing_) return;
  writing_ = true;
  asio::post(io_, [self = shared_from_this()] { self->pump(); });
}

void frame_writer::send_pieces(std::vector<std::string> pieces) {
  std::size_t bytes = 1;
  for (auto& p : pieces) {
    no_raw_newline(p);
    bytes += p.size();
  }
  enqueue(entry{{}, std::move(pieces)}, bytes);
}

void frame_writer::enqueue(entry e, std::size_t bytes) {
  std::lock_guard lock(mutex_);
  if (closed_ || error_) return;
  queue_.push_back(std::move(e));
  queued_bytes_ += bytes;
  if (held_ && holder_ == std::this_thread::get_id()) return;
  start_chain();
}

void frame_writer::pump() {
  {
    std::lock_guard lock(mutex_);
    if (closed_ || error_ || queue_.empty()) {
      writing_ = false;
      idle_cv_.notify_all();
      return;
    }
    const std::size_t n = std::min(queue_.size(), k_max_batch);
    in_flight_.clear();
    in_flight_bytes_ = 0;
    for (std::size_t i = 0; i < n; ++i) {
      in_flight_bytes_ += entry_bytes(queue_.front().frame, queue_.front().pieces);
      in_flight_.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
  }
  buffers_.clear();
  for (const entry& e : in_flight_) {
    if (e.pieces.empty()) buffers_.emplace_back(asio::buffer(e.frame));
    for (const std::string& p : e.pieces) buffers_.emplace_back(asio::buffer(p));
    buffers_.emplace_back(asio::buffer(k_newline, 1));
  }
  asio::async_write(
      *out_, buffers_,
      [self = shared_from_this()](const std::error_code& ec, std::size_t) { self->written(ec); });
}

void frame_writer::written(const std::error_code& ec) {
  std::function<void(const std::error_code&)> notify;
  bool more = false;
  {
    std::lock_guard lock(mutex_);
    if (!ec) {
      frames_written_ += in_flight_.size();
    } else if (!error_) {
      error_ = ec;
      queue_.clear();
      notify = std::move(on_failure_);
    }
    in_flight_.clear();
    queued_bytes_ = error_ ? 0 : queued_bytes_ - in_flight_bytes_;
    in_flight_bytes_ = 0;
    resume_if_drained();
    // writing_ stays true while this chain continues, so send() never starts a second one.
    more = !error_ && !closed_ && !queue_.empty();
    if (!more) {
      writing_ = false;
      idle_cv_.notify_all();
    }
  }
  if (notify) notify(ec);
  if (more) pump();
}

void frame_writer::resume_if_drained() {
  if (!resume_ || error_ || closed_ || queued_bytes_ > resume_below_) return;
  asio::post(io_, std::move(resume_));
  resume_ = nullptr;
}

bool frame_writer::pause_if_over(std::size_t high, std::function<void()> resume) {
  std::lock_guard lock(mutex_);
  if (queued_bytes_ <= high || error_ || closed_) return false;
  resume_below_ = high / 2;
  resume_ = std::move(resume);
  return true;
}

std::size_t frame_writer::queued_bytes() const {
  std::lock_guard lock(mutex_);
  return queued_bytes_;
}

bool frame_writer::flush(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  idle_cv_.wait_for(lock, timeout, [&] { return error_ || (!writing_ && queue_.empty()); });
  return !error_ && !writing_ && queue_.empty();
}

void frame_writer::close() {
  std::lock_guard lock(mutex_);
  closed_ = true;
  queue_.clear();
  queued_bytes_ = in_flight_bytes_;
  resume_ = nullptr;
  idle_cv_.notify_all();
}

void frame_writer::release() {
  std::lock_guard lock(mutex_);
  closed_ = true;
  queue_.clear();
  queued_bytes_ = in_flight_bytes_;
  resume_ = nullptr;
  on_failure_ = nullptr;
  out_.reset();
}

void frame_writer::on_failure(std::function<void(const std::error_code&)> callback) {
  std::lock_guard lock(mutex_);
  on_failure_ = std::move(callback);
}

std::error_code frame_writer::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

std::size_t frame_writer::frames_written() const {
  std::lock_guard lock(mutex_);
  return frames_written_;
}

}  // namespace mcpcxx::stdio_detail
