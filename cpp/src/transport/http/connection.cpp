#include "transport/http/connection.hpp"

#include <poll.h>
#include <sys/socket.h>

#include "transport/http/io_loop.hpp"

namespace mcpcxx::http {

namespace {

constexpr std::size_t k_max_gather = 64;
constexpr std::chrono::milliseconds k_linger{2000};

parser_limits limits_of(const http_options& o) {
  return {o.max_header_bytes, o.max_headers, o.max_body_bytes};
}

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Sent when the client half-closed during a call: a 1xx every HTTP/1.1 client must skip (RFC 9110
// §15.2) that makes a fully closed client's kernel answer with a reset, so a gone client is
// still noticed while one that only half-closed gets its response.
constexpr std::string_view k_probe = "HTTP/1.1 100 Continue\r\n\r\n";

}  // namespace

connection::connection(asio::io_context& io, asio::ip::tcp::socket socket, transport_context& ctx,
                       endpoint& ep, closed_fn on_closed)
    : socket_(std::move(socket)),
      strand_(asio::make_strand(io)),
      timer_(strand_),
      write_timer_(strand_),
      ctx_(ctx),
      endpoint_(ep),
      on_closed_(std::move(on_closed)),
      parser_(limits_of(ctx.opts)) {
  since_ns_.store(now_ns());
}

connection::~connection() {
  // A connection whose last handler let go of it without close() must still leave the registry.
  if (!closed_ && on_closed_) on_closed_(this);
}

void connection::start() {
  asio::post(strand_, [self = shared_from_this()] {
    asio::error_code ec;
    // Small JSON-RPC messages must not wait for Nagle's algorithm.
    self->socket_.set_option(asio::ip::tcp::no_delay(true), ec);
    // Nothing sent yet: the header timeout applies, not the (longer) keep-alive idle timeout.
    self->arm_timer(phase::fresh);
    self->do_read();
  });
}

void connection::evict() {
  asio::post(strand_, [self = shared_from_this()] {
    if ((self->phase_ == phase::idle || self->phase_ == phase::fresh) && self->pending_.empty() &&
        self->out_queue_.empty()) {
      self->close();
    }
  });
}

std::pair<int, std::int64_t> connection::eviction_rank() const noexcept {
  return {rank_.load(std::memory_order_relaxed), since_ns_.load(std::memory_order_relaxed)};
}

void connection::drain() {
  asio::post(strand_, [self = shared_from_this()] {
    self->draining_ = true;
    if (((self->phase_ == phase::idle || self->phase_ == phase::fresh) && self->pending_.empty()) ||
        self->phase_ == phase::head) {
      self->close();
    }
  });
}

void connection::force_close() {
  asio::post(strand_, [self = shared_from_this()] { self->close(); });
}

void connection::close_when_flushed() {
  asio::post(strand_, [self = shared_from_this()] {
    if (self->out_queue_.empty()) {
      self->close();
    } else {
      self->close_after_write_ = true;
    }
  });
}

void connection::do_read() {
  if (reading_ || closed_ || peer_eof_) return;
  // While a reply is in progress we keep reading only to notice a disconnect; cap the backlog.
  if (phase_ == phase::busy &&
      pending_.size() > ctx_.opts.max_header_bytes + ctx_.opts.max_body_bytes) {
    return;
  }
  reading_ = true;
  socket_.async_read_some(
      asio::buffer(read_buf_),
      asio::bind_executor(strand_,
                          [self = shared_from_this()](const asio::error_code& ec, std::size_t n) {
                            self->on_read(ec, n);
                          }));
}

void connection::on_read(const asio::error_code& ec, std::size_t n) {
  reading_ = false;
  if (closed_) return;
  if (phase_ == phase::lingering) {
    if (ec)
      close();
    else
      do_read();
    return;
  }
  if (ec == asio::error::eof && phase_ == phase::busy) return on_peer_eof();
  if (ec) {
    if (phase_ != phase::busy && parser_.started() && parser_.finish() == parse_state::error) {
      reject_request(parser_.failure().what);
    } else {
      close();
    }
    return;
  }
  pending_.append(read_buf_.data(), n);
  if (phase_ != phase::busy) process();
  do_read();
}

void connection::process() {
  while (!closed_ && phase_ != phase::busy && phase_ != phase::lingering && !pending_.empty()) {
    std::size_t used = 0;
    parse_state st = parser_.feed(pending_.data(), pending_.size(), used);
    pending_.erase(0, used);
    if (st == parse_state::error) {
      reject_request(parser_.failure().what);
      return;
    }
    if (st == parse_state::complete) {
      dispatch_request();
      continue;
    }
    if (parser_.take_continue()) enqueue_own("HTTP/1.1 100 Continue\r\n\r\n");
    phase p = parser_.in_body()        ? phase::body
              : parser_.started()      ? phase::head
              : phase_ == phase::fresh ? phase::fresh
                                       : phase::idle;
    if (p != phase_) arm_timer(p);
    return;
  }
}

// The client shut down its sending side while a call runs. It may only have half-closed
// (shutdown(SHUT_WR) after the request): it still gets its response. A probe tells a client that
// is really gone (its kernel resets the connection) from one that half-closed.
void connection::on_peer_eof() {
  peer_eof_ = true;
  enqueue_own(streaming_ ? chunk(":\n\n") : std::string(k_probe));
  watch_for_reset();
}

void connection::watch_for_reset() {
  socket_.async_wait(
      asio::ip::tcp::socket::wait_error,
      asio::bind_executor(strand_, [self = shared_from_this()](const asio::error_code& ec) {
        if (ec || self->closed_) return;
        int err = 0;
        socklen_t len = sizeof err;
        ::getsockopt(self->socket_.native_handle(), SOL_SOCKET, SO_ERROR, &err, &len);
        pollfd p{self->socket_.native_handle(), POLLIN, 0};
        bool hung_up = ::poll(&p, 1, 0) > 0 && (p.revents & (POLLERR | POLLHUP)) != 0;
        if (err != 0 || hung_up) {
          self->close();
        } else {
          self->watch_for_reset();
        }
      }));
}

void connection::dispatch_request() {
  request req = parser_.take();
  ++request_no_;
  arm_timer(phase::busy);
  bool keep_alive = req.keep_alive && !draining_;
  current_ = std::make_shared<reply_channel>(shared_from_this(), request_no_, keep_alive);
  auto ch = current_;
  endpoint_.handle(std::move(req), ch);  // never throws
}

void connection::reject_request(const problem& p) {
  arm_timer(phase::busy);
  enqueue_own(serialize(row_response(p), false));
  close_after_write_ = true;
}

void connection::deliver(std::uint64_t request_no, std::string bytes, delivery kind,
                         bool keep_alive) {
  unwritten_ += bytes.size();
  asio::post(strand_, [self = shared_from_this(), request_no, b = std::move(bytes), kind,
                       keep_alive]() mutable {
    self->deliver_on_strand(request_no, std::move(b), kind, keep_alive);
  });
  ctx_.frames_posted.fetch_add(1, std::memory_order_release);
  http::note_reply_here();
}

void connection::deliver_on_strand(std::uint64_t request_no, std::string bytes, delivery kind,
                                   bool keep_alive) {
  if (closed_ || request_no != request_no_ || phase_ != phase::busy) {
    unwritten_ -= bytes.size();
    return;
  }
  enqueue(std::move(bytes));
  if (kind == delivery::head_of_stream) {
    streaming_ = true;
    arm_timer(phase::busy);
  } else if (kind == delivery::final) {
    streaming_ = false;
    current_.reset();
    if (!keep_alive || draining_ || peer_eof_) {
      close_after_write_ = true;
      return;
    }
    arm_timer(phase::idle);
    process();
    do_read();
  }
}

// Bytes the connection writes on its own (keep-alive comments, probes, refusals): counted in
// unwritten_ like deliver()'s, since on_write() subtracts every byte written.
void connection::enqueue_own(std::string bytes) {
  unwritten_ += bytes.size();
  enqueue(std::move(bytes));
}

void connection::enqueue(std::string bytes) {
  out_queue_.push_back(std::move(bytes));
  do_write();
}

// One write_some at a time, so every bit of progress restarts the write timer.
void connection::do_write() {
  if (writing_count_ > 0 || out_queue_.empty() || closed_) return;
  write_bufs_.clear();
  for (const auto& b : out_queue_) {
    if (write_bufs_.size() == k_max_gather) break;
    std::size_t skip = write_bufs_.empty() ? front_sent_ : 0;
    write_bufs_.emplace_back(asio::buffer(b.data() + skip, b.size() - skip));
  }
  writing_count_ = write_bufs_.size();
  arm_write_timer();
  socket_.async_write_some(
      write_bufs_, asio::bind_executor(strand_, [self = shared_from_this()](
                                                    const asio::error_code& ec, std::size_t n) {
        self->on_write(ec, n);
      }));
}

void connection::on_write(const asio::error_code& ec, std::size_t n) {
  writing_count_ = 0;
  if (ec) {
    close();
    return;
  }
  write_progress_ = write_progress_ || n > 0;
  unwritten_ -= n;  // every written byte was counted by deliver() first
  while (n > 0 && !out_queue_.empty()) {
    std::size_t left = out_queue_.front().size() - front_sent_;
    if (n < left) {
      front_sent_ += n;
      break;
    }
    n -= left;
    front_sent_ = 0;
    out_queue_.pop_front();
  }
  if (!out_queue_.empty()) {
    do_write();
    return;
  }
  write_timer_.cancel();
  write_timer_armed_ = false;
  if (close_after_write_) {
    linger();
  } else if (phase_ == phase::idle) {
    arm_timer(phase::idle);  // the idle time starts once the reply is written
  }
}

void connection::arm_write_timer() {
  if (write_timer_armed_ || ctx_.opts.write_timeout.count() <= 0) return;
  write_timer_armed_ = true;
  write_progress_ = false;
  write_timer_.expires_after(ctx_.opts.write_timeout);
  write_timer_.async_wait(
      asio::bind_executor(strand_, [self = shared_from_this()](const asio::error_code& ec) {
        if (!ec) self->on_write_timer();
      }));
}

void connection::on_write_timer() {
  if (!write_timer_armed_) return;
  write_timer_armed_ = false;
  if (closed_ || out_queue_.empty()) return;
  if (write_progress_) {  // progress since the timer was armed: measure again from now
    arm_write_timer();
    return;
  }
  std::size_t pending = 0;
  for (const auto& b : out_queue_) pending += b.size();
  ++ctx_.write_timeouts;
  ctx_.log_event("warning", "http_write_timeout",
                 {{"pending_bytes", pending - front_sent_},
                  {"timeout_ms", ctx_.opts.write_timeout.count()},
                  {"request", request_no_}});
  close();
}

void connection::linger() {
  // Half-close and drain what the client still sends, so our last response is not lost to a
  // reset caused by unread bytes.
  asio::error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
  arm_timer(phase::lingering);
  pending_.clear();
  do_read();
}

void connection::arm_timer(phase p) {
  phase_ = p;
  if (p == phase::idle || p == phase::fresh) since_ns_.store(now_ns(), std::memory_order_relaxed);
  rank_.store(p == phase::idle ? 0 : p == phase::fresh ? 1 : 2, std::memory_order_relaxed);
  std::chrono::milliseconds d{0};
  switch (p) {
    case phase::idle:
      d = ctx_.opts.idle_timeout;
      break;
    case phase::fresh:
    case phase::head:
      d = ctx_.opts.header_timeout;
      break;
    case phase::body:
      d = ctx_.opts.body_timeout;
      break;
    case phase::busy:
      d = streaming_ ? ctx_.opts.sse_keepalive : std::chrono::milliseconds(0);
      break;
    case phase::lingering:
      d = k_linger;
      break;
  }
  if (d.count() <= 0) {
    deadline_ = std::chrono::steady_clock::time_point::max();  // a pending wait finds no deadline
    return;
  }
  deadline_ = std::chrono::steady_clock::now() + d;
  if (!wait_pending_ || timer_.expiry() > deadline_) start_wait(deadline_);
}

void connection::start_wait(std::chrono::steady_clock::time_point at) {
  wait_pending_ = true;
  timer_.expires_at(at);  // a wait still pending completes as aborted, with a stale gen
  timer_.async_wait(asio::bind_executor(
      strand_, [self = shared_from_this(), gen = ++wait_gen_](const asio::error_code& ec) {
        self->on_wait(ec, gen);
      }));
}

void connection::on_wait(const asio::error_code& ec, std::uint64_t gen) {
  if (gen != wait_gen_) return;  // superseded by a later start_wait
  wait_pending_ = false;
  if (ec || closed_ || deadline_ == std::chrono::steady_clock::time_point::max()) return;
  if (std::chrono::steady_clock::now() < deadline_) return start_wait(deadline_);
  deadline_ = std::chrono::steady_clock::time_point::max();
  on_timer();
}

void connection::on_timer() {
  if (closed_) return;
  switch (phase_) {
    case phase::idle:
      if (!out_queue_.empty()) return;  // the write timer governs a reply still being written
      close();
      break;
    case phase::fresh:
    case phase::lingering:
      close();
      break;
    case phase::head:
    case phase::body:
      reject_request({mcpcxx::wire::situation::H25_request_timeout});
      break;
    case phase::busy:
      if (streaming_) {
        enqueue_own(chunk(":\n\n"));
        arm_timer(phase::busy);
      }
      break;
  }
}

void connection::close() {
  if (closed_) return;
  closed_ = true;
  deadline_ = std::chrono::steady_clock::time_point::max();
  timer_.cancel();
  write_timer_.cancel();
  rank_.store(2, std::memory_order_relaxed);
  asio::error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  if (auto cur = std::move(current_)) cur->disconnected();
  if (on_closed_) on_closed_(this);
}

}  // namespace mcpcxx::http
