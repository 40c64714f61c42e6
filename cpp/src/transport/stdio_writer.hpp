// Ordered, never-interleaved writer of outbound frames for the stdio transport.
// Thread-safety: send() may be called from any thread; frames are written in the order send()
// returned, each followed by "\n", one write at a time: when nothing is being written, send()
// writes the queue itself (non-blocking, with the mutex released during the system call) from
// the calling thread; otherwise, or for what the pipe did not take, a chain of writes on the
// io_context drains the queue.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <asio/io_context.hpp>
#include <asio/posix/stream_descriptor.hpp>

#include "mcpcxx/session.hpp"

namespace mcpcxx::stdio_detail {

/// Queues frames from any thread and writes them to one descriptor from the io_context.
class frame_writer : public std::enable_shared_from_this<frame_writer> {
 public:
  /// Writes to a private duplicate of `fd` (the caller's fd is never closed).
  /// Throws std::system_error when `fd` cannot be duplicated or registered.
  frame_writer(asio::io_context& io, int fd);

  /// Queues one frame (no trailing newline); dropped once closed or failed.
  void send(std::string frame);
  /// Queues one frame given as pieces written back to back on one line, never joined into one
  /// string (a 2025-03-26 batch reply: "[", member, ",", member, ..., "]").
  void send_pieces(std::vector<std::string> pieces);
  /// Holds the frames this thread sends from now on in the queue (the reader, while it serves
  /// the lines of one read: their replies then leave together, in one write, like a buffered
  /// loop's). A frame from another thread is never held: it writes the held ones before it.
  void hold();
  /// Ends hold(): writes what is queued from this thread (non-blocking), the rest by the chain.
  void release_held();
  /// Back-pressure: when more than `high` bytes wait to be written, remembers `resume` and
  /// returns true; `resume` is then posted to the io_context once the queue drained to `high`/2
  /// (or never, when writing fails or the writer closes). Returns false (nothing kept) otherwise.
  bool pause_if_over(std::size_t high, std::function<void()> resume);
  /// Bytes queued or being written.
  std::size_t queued_bytes() const;
  /// Waits until every queued frame is written, the writer failed, or `timeout` passed.
  /// Returns true when the queue is empty and no write is in flight.
  bool flush(std::chrono::milliseconds timeout);
  /// Stops accepting frames; queued frames are dropped.
  void close();
  /// Releases the descriptor. Call only once the io_context no longer runs handlers.
  void release();
  /// Called once, on an io thread, when a write fails (EPIPE, ECONNRESET, ...).
  void on_failure(std::function<void(const std::error_code&)> callback);
  /// The write error, or an empty code.
  std::error_code error() const;
  /// Frames written so far.
  std::size_t frames_written() const;

 private:
  /// One queued frame: `frame`, or `pieces` when it came from send_pieces.
  struct entry {
    std::string frame;
    std::vector<std::string> pieces;
  };
  void enqueue(entry e, std::size_t bytes);
  /// Posts the write chain unless it runs (under mutex_).
  void start_chain();
  /// Writes the queue from the calling thread, the mutex released during each write (entered
  /// and left locked, with nothing being written); hands the rest to the chain when needed.
  void drain_directly(std::unique_lock<std::mutex>& lock);
  /// Moves the queue's front plain frames into in_flight_ (under mutex_).
  void take_plain_batch();
  /// One non-blocking gather write of `batch`; the bytes written (0 on EAGAIN or an error).
  std::size_t write_batch(const std::vector<entry>& batch) const;
  /// Accounts a direct write of in_flight_ (under mutex_); false unless all of it was written.
  bool settle_direct(std::size_t written);
  void pump();
  void written(const std::error_code& ec);
  void resume_if_drained();  // under mutex_

  asio::io_context& io_;
  std::unique_ptr<asio::posix::stream_descriptor> out_;
  mutable std::mutex mutex_;
  std::condition_variable idle_cv_;
  std::deque<entry> queue_;
  std::vector<entry> in_flight_;  ///< owned by the write chain while writing_
  std::size_t queued_bytes_ = 0;
  std::size_t in_flight_bytes_ = 0;
  std::size_t resume_below_ = 0;
  std::function<void()> resume_;
  std::vector<asio::const_buffer> buffers_;
  bool writing_ = false;  ///< a chain or a direct writer owns the descriptor and in_flight_
  bool direct_ = false;   ///< a thread is writing outside the mutex (release() waits for it)
  bool held_ = false;
  std::thread::id holder_;  ///< the thread that called hold()
  bool closed_ = false;
  std::error_code error_;
  std::size_t frames_written_ = 0;
  std::function<void(const std::error_code&)> on_failure_;
};

/// A session's frame_sink on a frame_writer: every frame goes to the ordered writer.
/// Thread-safety: as frame_writer's send(), callable from any thread.
class writer_sink final : public frame_sink {
 public:
  /// Forwards every frame to `writer`, which the sink shares.
  explicit writer_sink(std::shared_ptr<frame_writer> writer) : writer_(std::move(writer)) {}
  void send(std::string frame, frame_kind) override { writer_->send(std::move(frame)); }
  void send_pieces(std::vector<std::string> pieces, const frame_info&) override {
    writer_->send_pieces(std::move(pieces));
  }
  std::size_t queued_bytes() const override { return writer_->queued_bytes(); }

 private:
  std::shared_ptr<frame_writer> writer_;
};

}  // namespace mcpcxx::stdio_detail
