// The stdio transport's input side: reads the inbound descriptor on the io_context, splits it into
// lines and hands each to the session; lines over twice the message limit are answered directly
// (P3c), shorter oversized messages by the codec (P3, id echoed).
// Thread-safety: start() once; the read chain runs on io threads; release() after they stopped.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <system_error>
#include <vector>

#include <asio/io_context.hpp>
#include <asio/posix/stream_descriptor.hpp>

#include "mcpcxx/jsonrpc.hpp"
#include "mcpcxx/session.hpp"

#include "transport/stdio_framing.hpp"
#include "transport/stdio_writer.hpp"

namespace mcpcxx::stdio_detail {

/// Reads newline-delimited frames from one descriptor into a session.
class line_reader final : public line_handler {
 public:
  /// Called once when input ends: an empty code for EOF, else the read error.
  using end_callback = std::function<void(const std::error_code&)>;
  /// The server's log writer (empty: stderr).
  using log_writer = std::function<void(std::string_view)>;

  /// Reads a private duplicate of `fd`. Throws std::system_error when it cannot be used.
  line_reader(asio::io_context& io, int fd, session target, std::shared_ptr<frame_writer> writer,
              jsonrpc::parse_limits limits, end_callback on_end, log_writer log);

  /// Back-pressure: the chain pauses while more than `bytes` replies wait in the writer.
  void set_outbound_bound(std::size_t bytes) { outbound_bound_ = bytes; }
  /// stdio_options::request_poll, before start(); 0, or a single CPU, turns polling off.
  void set_request_poll(std::chrono::microseconds poll);
  /// Starts the read chain.
  void start();
  /// Stops reading for good (a stop signal): bytes still arriving are not processed and
  /// on_end is not called. Any thread.
  void stop() noexcept { stopped_.store(true, std::memory_order_release); }
  /// Releases the descriptor; only once the io_context no longer runs handlers.
  void release();

  void on_line(std::string_view line) override;
  void on_overlong() override;

 private:
  /// What a poll for the next request ended with.
  enum class polled { nothing, ended };

  void read_some();
  /// Serves the lines of the first `n` bytes of the buffer.
  void serve(std::size_t n);
  /// Input ended: EOF (the last unterminated line is served) or a read error.
  void end(const std::error_code& ec);
  /// Whether to poll: enabled, not stopped, nothing in flight and no reply waiting to be written.
  bool worth_polling() const;
  /// After a read whose requests were all answered, reads again on this thread for up to poll_
  /// (then again after each read that brought more), instead of going back to the reactor.
  /// `ended` when input ended (on_end_ called) or the reader was stopped meanwhile.
  polled poll_for_next_request();
  /// Non-blocking reads until one brings bytes, fails, or poll_ has passed (ec = would_block).
  std::size_t read_within(std::error_code& ec);
  /// Continues the chain unless stopped or paused for back-pressure.
  void read_more();
  /// Logs a message whose processing threw and answers it (P24 with a reference) unless it was
  /// a notification or a response; `kind` is empty when parsing itself threw.
  void answer_failure(std::optional<jsonrpc::message_kind> kind,
                      std::optional<jsonrpc::request_id> id, const std::exception& e);

  std::unique_ptr<asio::posix::stream_descriptor> in_;
  session session_;
  std::shared_ptr<frame_writer> writer_;
  jsonrpc::parse_limits limits_;
  line_splitter splitter_;
  std::vector<char> buffer_;
  end_callback on_end_;
  log_writer log_;
  std::size_t outbound_bound_ = static_cast<std::size_t>(-1);
  std::atomic<bool> stopped_{false};
  bool paused_logged_ = false;
  std::chrono::microseconds poll_{0};
};

/// Writes one JSON log line {"level","component":"stdio","message"} to the server log.
void log_stdio(const std::function<void(std::string_view)>& writer, std::string_view level,
               std::string_view message);

}  // namespace mcpcxx::stdio_detail
