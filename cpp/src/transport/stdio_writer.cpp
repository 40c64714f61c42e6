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
// Batches one sending thread writes before it leaves the rest to the io thread: a worker must
// not spend its time writing everybody else's replies under a sustained load.
constexpr int k_max_direct_rounds = 4;
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
  std::unique_lock lock(mutex_);
  if (closed_ || error_) return;
  const std::size_t bytes = frame.size() + 1;
  queue_.push_back(entry{std::move(frame), {}});
  queued_bytes_ += bytes;
  if (writing_ || (held_ && holder_ == std::this_thread::get_id())) return;
  // Nothing is being written: this thread writes the queue (held frames of the reader first:
  // they are ahead of this one) instead of waking the io thread.
  drain_directly(lock);
}

// One non-blocking gather write of `batch` (each frame and its newline); bytes written, 0 on
// EAGAIN or an error (the chain then retries and reports it).
std::size_t frame_writer::write_batch(const std::vector<entry>& batch) const {
  iovec parts[2 * k_max_batch];
  std::size_t n = 0;
  for (const entry& e : batch) {
    parts[n++] = {const_cast<char*>(e.frame.data()), e.frame.size()};
    parts[n++] = {const_cast<char*>(k_newline), 1};
  }
  for (;;) {
    const ssize_t written = ::writev(out_->native_handle(), parts, static_cast<int>(n));
    if (written >= 0) return static_cast<std::size_t>(written);
    if (errno != EINTR) return 0;
  }
}

// The calling thread writes queued plain frames with the mutex released during each write, so
// the reader and the other workers never wait on it behind a system call (that wait, a futex
// sleep per reply, was most of a pooled call's cost with many in flight). writing_ keeps every
// other writer out meanwhile; what the pipe does not take, a batch reply, or a long queue is
// left to the io-thread chain.
void frame_writer::drain_directly(std::unique_lock<std::mutex>& lock) {
  writing_ = true;
  direct_ = true;
  bool to_chain = false;
  for (int rounds = 0; !closed_ && !error_ && !queue_.empty(); ++rounds) {
    if (!queue_.front().pieces.empty() || rounds == k_max_direct_rounds) {
      to_chain = true;
      break;
    }
    take_plain_batch();
    lock.unlock();
    const std::size_t written = write_batch(in_flight_);
    lock.lock();
    if (!settle_direct(written)) {
      to_chain = true;
      break;
    }
  }
  direct_ = false;
  if (to_chain && !closed_ && !error_) {
    asio::post(io_, [self = shared_from_this()] { self->pump(); });  // writing_ stays true
  } else {
    writing_ = false;
  }
  idle_cv_.notify_all();
}

// Moves up to k_max_batch plain frames from the queue's front into in_flight_ (under mutex_).
void frame_writer::take_plain_batch() {
  in_flight_.clear();
  in_flight_bytes_ = 0;
  while (!queue_.empty() && in_flight_.size() < k_max_batch && queue_.front().pieces.empty()) {
    in_flight_bytes_ += queue_.front().frame.size() + 1;
    in_flight_.push_back(std::move(queue_.front()));
    queue_.pop_front();
  }
}

// Accounts a direct write of in_flight_ (under mutex_): the unwritten rest goes back to the
// queue's front, in order (dropped once closed). False when the pipe did not take everything.
bool frame_writer::settle_direct(std::size_t written) {
  const bool all = written == in_flight_bytes_;
  queued_bytes_ -= std::min(queued_bytes_, in_flight_bytes_);
  std::size_t left = written;
  std::size_t first_unwritten = 0;
  for (; first_unwritten < in_flight_.size(); ++first_unwritten) {
    const std::size_t size = in_flight_[first_unwritten].frame.size() + 1;
    if (left < size) break;
    left -= size;
    ++frames_written_;
  }
  if (!closed_ && !error_) {
    for (std::size_t i = in_flight_.size(); i > first_unwritten; --i) {
      entry& e = in_flight_[i - 1];
      if (i - 1 == first_unwritten && left > 0)
        e.frame.erase(0, left);  // may leave "" (only the newline)
      queued_bytes_ += e.frame.size() + 1;
      queue_.push_front(std::move(e));
    }
  }
  in_flight_.clear();
  in_flight_bytes_ = 0;
  resume_if_drained();
  return all;
}

void frame_writer::hold() {
  std::lock_guard lock(mutex_);
  held_ = true;
  holder_ = std::this_thread::get_id();
}

void frame_writer::release_held() {
  std::unique_lock lock(mutex_);
  held_ = false;
  if (closed_ || error_ || writing_ || queue_.empty()) return;
  drain_directly(lock);
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
  std::unique_lock lock(mutex_);
  closed_ = true;
  queue_.clear();
  queued_bytes_ = in_flight_bytes_;
  resume_ = nullptr;
  on_failure_ = nullptr;
  // A thread may be inside a direct write (non-blocking, so this wait is one system call).
  idle_cv_.wait(lock, [&] { return !direct_; });
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
