// Input side of the stdio transport: the line framing (stdio_framing.hpp) and the reader that
// hands each line to the session.
#include "transport/stdio_reader.hpp"

#include <cstdio>
#include <fcntl.h>
#include <limits>
#include <unistd.h>

#include "mcpcxx/jsonrpc.hpp"

#include "core/cpu_relax.hpp"
#include "jsonrpc/scan.hpp"
#include "observability/server_log.hpp"
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

}  // namespace mcpcxx::stdio_detail
