// Both directions of the stdio transport: in, the line framing (stdio_framing.hpp) and the reader
// that hands each line to the session (stdio_reader.hpp); out, the ordered frame writer
// (stdio_writer.hpp).
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <limits>
#include <sys/uio.h>
#include <thread>
#include <unistd.h>

#include <asio/post.hpp>
#include <asio/write.hpp>

#include "mcpcxx/jsonrpc.hpp"

#include "core/cpu_relax.hpp"
#include "jsonrpc/scan.hpp"
#include "observability/server_log.hpp"
#include "transport/stdio_reader.hpp"
#include "transport/stdio_writer.hpp"
#include "wire/situation.hpp"

namespace mcpcxx::stdio_detail {

namespace {

constexpr std::size_t k_read_chunk = std::size_t{64} * 1024;
/// Reads one poll serves before the chain goes back to the reactor.
constexpr int k_max_polled_reads = 64;
/// Pauses between two reads of a poll: about 1 us.
constexpr int k_pauses_between_reads = 16;
/// The framing keeps lines up to this multiple of the message limit, so that the codec can read a
/// moderately oversized message's id and size (P3); longer lines are dropped unread (P3c), which
/// bounds what one line can make the reader hold.
constexpr std::size_t k_line_cap_factor = 2;

std::size_t line_cap(std::size_t max_message_bytes) {
  constexpr std::size_t most = std::numeric_limits<std::size_t>::max() / k_line_cap_factor;
  return max_message_bytes > most ? std::numeric_limits<std::size_t>::max()
                                  : max_message_bytes * k_line_cap_factor;
}

// Holds the writer's frames and this thread's log lines for its lifetime (released also when
// serving a line throws): the replies and the request log lines of one read leave together.
class held_writes {
 public:
  explicit held_writes(frame_writer& w) : w_(w) {
    w_.hold();
    detail::server_log::hold_lines();
  }
  ~held_writes() {
    w_.release_held();
    detail::server_log::release_held_lines();
  }
  held_writes(const held_writes&) = delete;
  held_writes& operator=(const held_writes&) = delete;

 private:
  frame_writer& w_;
};

}  // namespace

void line_splitter::deliver(std::string_view line, line_handler& handler) const {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.size() > max_) {
    handler.on_overlong();
  } else if (!jsonrpc::detail::is_blank(line)) {
    handler.on_line(line);
  }
}

void line_splitter::feed(std::string_view chunk, line_handler& handler) {
  while (!chunk.empty()) {
    const std::size_t nl = chunk.find('\n');
    if (discarding_) {
      if (nl == std::string_view::npos) return;
      discarding_ = false;
      chunk.remove_prefix(nl + 1);
      continue;
    }
    if (nl == std::string_view::npos) {
      // One extra byte is allowed for a "\r" that the line end may still strip.
      if (buffer_.size() + chunk.size() > max_ + 1) {
        buffer_.clear();
        buffer_.shrink_to_fit();
        discarding_ = true;
        handler.on_overlong();
      } else {
        buffer_.append(chunk);
      }
      return;
    }
    if (buffer_.empty()) {
      deliver(chunk.substr(0, nl), handler);  // zero-copy: the line lies inside the chunk
    } else {
      buffer_.append(chunk.substr(0, nl));
      deliver(buffer_, handler);
      buffer_.clear();
    }
    chunk.remove_prefix(nl + 1);
  }
}

void line_splitter::finish(line_handler& handler) {
  if (!discarding_ && !buffer_.empty()) deliver(buffer_, handler);
  buffer_.clear();
  discarding_ = false;
}

line_reader::line_reader(asio::io_context& io, int fd, session target,
                         std::shared_ptr<frame_writer> writer, jsonrpc::parse_limits limits,
                         end_callback on_end, log_writer log)
    : in_(std::make_unique<asio::posix::stream_descriptor>(io)),
      session_(std::move(target)),
      writer_(std::move(writer)),
      limits_(limits),
      splitter_(line_cap(limits.max_message_bytes)),
      buffer_(k_read_chunk),
      on_end_(std::move(on_end)),
      log_(std::move(log)) {
  const int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  if (copy < 0) throw std::system_error(errno, std::generic_category(), "stdio: dup of input fd");
  std::error_code ec;
  in_->assign(copy, ec);
  if (ec) {
    ::close(copy);
    throw std::system_error(ec, "stdio: cannot use the input fd");
  }
}

void line_reader::start() { read_some(); }

void line_reader::read_some() {
  in_->async_read_some(asio::buffer(buffer_), [this](const std::error_code& ec, std::size_t n) {
    if (stopped_.load(std::memory_order_acquire)) return;
    if (n > 0) serve(n);
    if (ec) {
      end(ec);
      return;
    }
    if (n > 0 && poll_for_next_request() == polled::ended) return;
    read_more();
  });
}

void line_reader::serve(std::size_t n) {
  // The replies to these lines, and their log lines, leave together once all are served.
  const held_writes held(*writer_);
  splitter_.feed(std::string_view(buffer_.data(), n), *this);
}

void line_reader::end(const std::error_code& ec) {
  if (ec == asio::error::eof) splitter_.finish(*this);
  on_end_(ec == asio::error::eof ? std::error_code() : ec);
}

void line_reader::set_request_poll(std::chrono::microseconds poll) {
  poll_ = std::chrono::microseconds(0);
  if (poll.count() <= 0 || detail::spare_cpus() == 0) return;
  // Non-blocking for this thread's own reads (the reactor's are anyway); without it, no polling.
  std::error_code ec;
  in_->non_blocking(true, ec);
  if (!ec) poll_ = poll;
}

bool line_reader::worth_polling() const {
  return poll_.count() > 0 && !stopped_.load(std::memory_order_acquire) &&
         session_.in_flight() == 0 && writer_->queued_bytes() == 0;
}

line_reader::polled line_reader::poll_for_next_request() {
  // Bounded, so that other handlers of this io_context (the writer's chain, a stop signal) run
  // at least every k_max_polled_reads reads even while requests keep coming.
  for (int reads = 0; reads < k_max_polled_reads && worth_polling(); ++reads) {
    std::error_code ec;
    const std::size_t n = read_within(ec);
    if (stopped_.load(std::memory_order_acquire)) return polled::ended;
    if (n > 0) serve(n);
    if (ec == asio::error::would_block) return polled::nothing;  // nothing came in time
    if (ec) {
      end(ec);
      return polled::ended;
    }
  }
  return polled::nothing;
}

std::size_t line_reader::read_within(std::error_code& ec) {
  const auto until = std::chrono::steady_clock::now() + poll_;
  for (;;) {
    const std::size_t n = in_->read_some(asio::buffer(buffer_), ec);
    if (ec != asio::error::would_block || std::chrono::steady_clock::now() >= until) return n;
    // A read is a syscall; pausing between two keeps the loop from hammering the pipe's lock.
    for (int i = 0; i < k_pauses_between_reads; ++i) detail::cpu_relax();
  }
}

void line_reader::read_more() {
  if (stopped_.load(std::memory_order_acquire)) return;
  if (writer_->pause_if_over(outbound_bound_, [this] { read_more(); })) {
    if (!paused_logged_) {  // once per serve: a client that stops reading may do so for long
      paused_logged_ = true;
      log_stdio(log_, "warning",
                "stdout is not being read: over " + std::to_string(outbound_bound_) +
                    " reply bytes queued; reading stdin pauses until the client reads");
    }
    return;
  }
  read_some();
}

void line_reader::release() { in_.reset(); }

void line_reader::on_line(std::string_view line) {
  // Parsed here rather than inside session::receive so that a failure can still be answered
  // with the request's id.
  std::optional<jsonrpc::message_kind> kind;
  std::optional<jsonrpc::request_id> id;
  try {
    jsonrpc::message msg = jsonrpc::parse(line, limits_);
    kind = msg.kind;
    id = msg.id;
    session_.receive(std::move(msg));
  } catch (const std::exception& e) {
    // The codec and the engine answer bad input themselves; reaching here is a server defect.
    answer_failure(kind, id, e);
  }
}

void line_reader::answer_failure(std::optional<jsonrpc::message_kind> kind,
                                 std::optional<jsonrpc::request_id> id, const std::exception& e) {
  const std::string ref = detail::server_log::new_reference();
  log_stdio(log_, "error",
            "processing a message failed (reference " + ref + "): " + std::string(e.what()));
  using jsonrpc::message_kind;
  if (kind == message_kind::notification || kind == message_kind::response) return;
  if (kind == message_kind::batch) id.reset();  // one error for the whole batch
  writer_->send(jsonrpc::serialize_error(
      id, wire::render(wire::situation::P24_internal_error, {{"reference", ref}})));
}

void line_reader::on_overlong() {
  writer_->send(
      jsonrpc::serialize_error(std::nullopt, wire::render(wire::situation::P3c_stdio_line_too_long,
                                                          {{"limit", limits_.max_message_bytes}})));
}

void log_stdio(const std::function<void(std::string_view)>& writer, std::string_view level,
               std::string_view message) {
  const std::string line =
      json{{"level", level}, {"component", "stdio"}, {"message", message}}.dump(
          -1, ' ', false, json::error_handler_t::replace);
  if (writer) {
    writer(line);
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
}

// ---- the frame writer: a FIFO drained by a single chain of gather writes ----

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
