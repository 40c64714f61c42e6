#include "transport/http/connection.hpp"

namespace mcpcxx::http {

namespace {

constexpr std::size_t k_max_gather = 64;
constexpr std::chrono::milliseconds k_linger{2000};

parser_limits limits_of(const http_options& o) {
  return {o.max_header_bytes, o.max_headers, o.max_body_bytes};
}

}  // namespace

connection::connection(asio::ip::tcp::socket socket, transport_context& ctx, endpoint& ep,
                       closed_fn on_closed)
    : socket_(std::move(socket)),
      strand_(asio::make_strand(socket_.get_executor())),
      timer_(strand_),
      ctx_(ctx),
      endpoint_(ep),
      on_closed_(std::move(on_closed)),
      parser_(limits_of(ctx.opts)) {}

connection::~connection() {
  // A connection whose last handler let go of it without close() must still leave the registry.
  if (!closed_ && on_closed_) on_closed_(this);
}

void connection::start() {
  asio::post(strand_, [self = shared_from_this()] {
    asio::error_code ec;
    // Small JSON-RPC messages must not wait for Nagle's algorithm.
    self->socket_.set_option(asio::ip::tcp::no_delay(true), ec);
    self->arm_timer(phase::idle);
    self->do_read();
  });
}

void connection::drain() {
  asio::post(strand_, [self = shared_from_this()] {
    self->draining_ = true;
    if ((self->phase_ == phase::idle && self->pending_.empty()) || self->phase_ == phase::head) {
      self->close();
    }
  });
}

void connection::force_close() {
  asio::post(strand_, [self = shared_from_this()] { self->close(); });
}

void connection::do_read() {
  if (reading_ || closed_) return;
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
    if (parser_.take_continue()) enqueue("HTTP/1.1 100 Continue\r\n\r\n");
    phase p = parser_.in_body() ? phase::body : parser_.started() ? phase::head : phase::idle;
    if (p != phase_) arm_timer(p);
    return;
  }
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
  enqueue(serialize(row_response(p), false));
  close_after_write_ = true;
}

void connection::deliver(std::uint64_t request_no, std::string bytes, delivery kind,
                         bool keep_alive) {
  asio::post(strand_, [self = shared_from_this(), request_no, b = std::move(bytes), kind,
                       keep_alive]() mutable {
    self->deliver_on_strand(request_no, std::move(b), kind, keep_alive);
  });
}

void connection::deliver_on_strand(std::uint64_t request_no, std::string bytes, delivery kind,
                                   bool keep_alive) {
  if (closed_ || request_no != request_no_ || phase_ != phase::busy) return;
  enqueue(std::move(bytes));
  if (kind == delivery::head_of_stream) {
    streaming_ = true;
    arm_timer(phase::busy);
  } else if (kind == delivery::final) {
    streaming_ = false;
    current_.reset();
    if (!keep_alive || draining_) {
      close_after_write_ = true;
      return;
    }
    arm_timer(phase::idle);
    process();
    do_read();
  }
}

void connection::enqueue(std::string bytes) {
  out_queue_.push_back(std::move(bytes));
  do_write();
}

void connection::do_write() {
  if (writing_count_ > 0 || out_queue_.empty() || closed_) return;
  write_bufs_.clear();
  for (const auto& b : out_queue_) {
    if (write_bufs_.size() == k_max_gather) break;
    write_bufs_.emplace_back(asio::buffer(b));
  }
  writing_count_ = write_bufs_.size();
  asio::async_write(socket_, write_bufs_,
                    asio::bind_executor(
                        strand_, [self = shared_from_this()](const asio::error_code& ec,
                                                             std::size_t) { self->on_write(ec); }));
}

void connection::on_write(const asio::error_code& ec) {
  for (std::size_t i = 0; i < writing_count_ && !out_queue_.empty(); ++i) out_queue_.pop_front();
  writing_count_ = 0;
  if (ec) {
    close();
    return;
  }
  if (!out_queue_.empty()) {
    do_write();
  } else if (close_after_write_) {
    linger();
  }
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
  ++timer_gen_;
  std::chrono::milliseconds d{0};
  switch (p) {
    case phase::idle:
      d = ctx_.opts.idle_timeout;
      break;
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
    timer_.cancel();
    return;
  }
  timer_.expires_after(d);
  timer_.async_wait(asio::bind_executor(
      strand_, [self = shared_from_this(), gen = timer_gen_](const asio::error_code& ec) {
        if (!ec && gen == self->timer_gen_) self->on_timer();
      }));
}

void connection::on_timer() {
  if (closed_) return;
  switch (phase_) {
    case phase::idle:
    case phase::lingering:
      close();
      break;
    case phase::head:
    case phase::body:
      reject_request({mcpcxx::wire::situation::H25_request_timeout});
      break;
    case phase::busy:
      if (streaming_) {
        enqueue(chunk(":\n\n"));
        arm_timer(phase::busy);
      }
      break;
  }
}

void connection::close() {
  if (closed_) return;
  closed_ = true;
  ++timer_gen_;
  timer_.cancel();
  asio::error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  if (auto cur = std::move(current_)) cur->disconnected();
  if (on_closed_) on_closed_(this);
}

}  // namespace mcpcxx::http
